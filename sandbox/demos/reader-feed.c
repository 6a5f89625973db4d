/*
 * reader-feed: the stdio exercise's feeder and judge. The learner's reader never sees a file it
 * could map or a digest it could copy: for each pass this program makes fresh bytes from a
 * random seed, hands the reader the read end of a pipe (over a Unix socket, SCM_RIGHTS) and
 * writes the bytes into it. The reader's program sends back what reader_read() handed out, on
 * the same socket, and this program compares it with what it sent, byte for byte: the verdict
 * of a pass is this program's line and the request it publishes, never the reader's own words.
 *
 *   reader-feed --socket @NAME [--size BYTES]
 *       @NAME is an abstract Unix socket name (no file); one reader at a time, one pass per
 *       connection. Prints "listening on @NAME", then one line per pass.
 *
 * A pass: the reader connects and says "reader-main V" (the version of the plumbing that iolab
 * writes into the workspace as reader-main.c); an older plumbing is told so and turned away.
 */
#include "demo.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define PROG "reader-feed"

/* The version of reader-main.c this feeder speaks with; reader-main.c sends its own. */
#define READER_FEED_VERSION 2

#define READER_FEED_CHUNK 65536

/* Fills buf with bytes nobody can know before the pass: xorshift64* from a random seed. */
static void reader_feed_fill(unsigned char *buf, size_t n)
{
    uint64_t x = 0;
    if (getrandom(&x, sizeof x, 0) != sizeof x || x == 0)
        x = demo_now_ns() | 1;
    for (size_t i = 0; i < n; i += 8) {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        uint64_t v = x * 0x2545f4914f6cdd1dull;
        size_t k = n - i < 8 ? n - i : 8;
        memcpy(buf + i, &v, k);
    }
}

/* Reads the reader's first line ("reader-main V\n") within 3 s, byte by byte so that nothing
   after it is taken. 0, or -1 when none came. */
static int reader_feed_hello(int fd, char *line, size_t len)
{
    size_t n = 0;
    while (n + 1 < len) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int rc = poll(&p, 1, 3000);
        if (rc < 0 && errno == EINTR && !demo_stop)
            continue;
        if (rc <= 0)
            return -1;
        ssize_t got = read(fd, line + n, 1);
        if (got < 0 && errno == EINTR && !demo_stop)
            continue;
        if (got <= 0)
            return -1;
        if (line[n] == '\n') {
            line[n] = '\0';
            return 0;
        }
        n++;
    }
    return -1;
}

/* Hands the pipe's read end to the reader. 0 or -1. */
static int reader_feed_give(int sock, int fd)
{
    char byte = 'P';
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(int))];
    } u;
    memset(&u, 0, sizeof u);
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.space, .msg_controllen = sizeof u.space};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    ssize_t rc;
    do
        rc = sendmsg(sock, &m, MSG_NOSIGNAL);
    while (rc < 0 && errno == EINTR && !demo_stop);
    return rc == 1 ? 0 : -1;
}

/*
 * One pass on an accepted connection: the bytes go into the pipe while what came back is
 * compared with them. Prints the pass's line; returns 1 when every byte came back as sent and
 * then the end, else 0.
 */
static int reader_feed_pass(int sock, unsigned long pass, const unsigned char *want, size_t size)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        printf("%s: pipe: %s\n", PROG, strerror(errno));
        return 0;
    }
    if (reader_feed_give(sock, p[0]) < 0) {
        close(p[0]);
        close(p[1]);
        return 0;
    }
    close(p[0]);
    /* A byte the reader takes only after a whole pass: a program that closes the connection
       without it (reader_read() failed, or the program ended) resets it, which this program
       tells from an end of the stream. */
    if (send(sock, "E", 1, MSG_NOSIGNAL) != 1) {
        close(p[1]);
        return 0;
    }
    fcntl(p[1], F_SETFL, O_NONBLOCK);
    fcntl(sock, F_SETFL, O_NONBLOCK);
    size_t sent = 0, back = 0;
    int wfd = p[1], ok = 0;
    unsigned char buf[READER_FEED_CHUNK];
    uint64_t quiet_since = demo_now_ns();
    for (;;) {
        struct pollfd f[2] = {{.fd = sock, .events = POLLIN}, {.fd = wfd, .events = POLLOUT}};
        int rc = poll(f, wfd >= 0 ? 2 : 1, 1000);
        if (demo_stop)
            break;
        if (rc < 0 && errno == EINTR)
            continue;
        if (wfd >= 0 && (f[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
            size_t k = size - sent < READER_FEED_CHUNK ? size - sent : READER_FEED_CHUNK;
            ssize_t w = write(wfd, want + sent, k);
            if (w > 0)
                sent += (size_t)w;
            else if (w < 0 && errno != EAGAIN && errno != EINTR)
                sent = size; /* the reader closed the pipe: its program says why */
            if (sent == size) {
                close(wfd); /* the end of the stream: the reader's next read() returns 0 */
                wfd = -1;
            }
        }
        if (f[0].revents & (POLLIN | POLLERR | POLLHUP)) {
            ssize_t got = read(sock, buf, sizeof buf);
            if (got < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (got < 0) {
                printf("pass %lu: the reader's program stopped the pass after %zu of %zu bytes "
                       "came back (%s): reader_read() failed, or the program ended\n",
                       pass, back, size, strerror(errno));
                break;
            }
            if (got == 0) {
                if (back == size) {
                    printf("pass %lu: %zu bytes came back through reader_read(), all as sent\n",
                           pass, size);
                    ok = 1;
                } else {
                    /* A clean end comes only after the reader's last byte, which reader-main.c
                       takes once reader_read() returned 0; any other way out resets. So this
                       is a 0 before the end, whether or not the pipe had all the bytes yet. */
                    printf("pass %lu: reader_read() returned 0 (the end) after %zu of %zu bytes\n",
                           pass, back, size);
                }
                break;
            }
            if (back + (size_t)got > size) {
                printf("pass %lu: reader_read() went past the end of the stream: %zu bytes of "
                       "%zu, and it must return 0 at the end\n",
                       pass, back + (size_t)got, size);
                break;
            }
            if (memcmp(buf, want + back, (size_t)got) != 0) {
                size_t k = 0;
                while (buf[k] == want[back + k])
                    k++;
                printf("pass %lu: byte %zu differs from what was sent (0x%02x came back, 0x%02x "
                       "was sent): a byte was lost, doubled or changed\n",
                       pass, back + k, buf[k], want[back + k]);
                break;
            }
            back += (size_t)got;
            quiet_since = demo_now_ns();
        } else if (rc == 0 && demo_now_ns() - quiet_since > 30ull * 1000000000ull) {
            printf("pass %lu: nothing came back for 30 s, at %zu of %zu bytes\n", pass, back, size);
            break;
        }
    }
    if (wfd >= 0)
        close(wfd);
    fflush(stdout);
    return ok;
}

int main(int argc, char **argv)
{
    const char *name = NULL;
    size_t size = 4000037;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--socket"))
            name = argv[i + 1];
        else if (!strcmp(argv[i], "--size"))
            size = strtoul(argv[i + 1], NULL, 10);
    if (!name || name[0] != '@' || strlen(name) >= sizeof(((struct sockaddr_un *)0)->sun_path) ||
        size == 0 || size > (256u << 20))
        demo_usage_error(PROG, "usage: %s --socket @NAME [--size BYTES (1 to 256 MiB)]", PROG);
    demo_signals_init();
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path + 1, name + 1, strlen(name + 1)); /* abstract: sun_path[0] is 0 */
    socklen_t salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name));
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, salen) < 0 || listen(lfd, 8) < 0) {
        printf("%s: cannot listen on %s: %s\n", PROG, name, strerror(errno));
        return 1;
    }
    unsigned char *want = malloc(size);
    if (!want) {
        printf("%s: no memory for %zu bytes\n", PROG, size);
        return 1;
    }
    struct iolab_app *app = iolab_app();
    demo_ready("listening on %s", name);
    for (unsigned long pass = 1; !demo_stop;) {
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue; /* EINTR (demo_stop is checked) or a connection that went at once */
        char hello[64];
        int version = 0;
        if (reader_feed_hello(c, hello, sizeof hello) < 0) {
            /* No line: a program that went at once (stopped with the run) or that does not
               speak this protocol at all; neither is an older reader-main.c. */
            close(c);
            continue;
        }
        if (sscanf(hello, "reader-main %d", &version) != 1 || version != READER_FEED_VERSION) {
            printf("%s: this workspace's reader-main.c is from another iolab (it says version %d, "
                   "this iolab's is %d): delete reader-main.c and open the step or check it "
                   "again; iolab writes the current one, and reader.c, your code, is kept\n",
                   PROG, version, READER_FEED_VERSION);
            fflush(stdout);
            close(c);
            continue;
        }
        reader_feed_fill(want, size);
        /* A whole pass is a request of size bytes, and its latency is how long the reader
           took over it, from the pipe handed over to the last byte back. */
        uint64_t t0 = demo_now_ns();
        if (reader_feed_pass(c, pass, want, size))
            demo_publish_request(app, size, demo_now_ns() - t0);
        close(c);
        pass++;
    }
    free(want);
    return 0;
}
