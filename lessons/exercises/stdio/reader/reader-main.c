/* iolab-starter: 1 */
/*
 * iolab's side of the exercise: the program around your reader_read() (reader.c). Not yours to
 * change: iolab's feeder checks which version of it you run, and tells you when this file comes
 * from an older iolab (delete it and check again: iolab writes the current one beside your
 * reader.c, which it never touches).
 *
 * Each pass connects to the feeder, gets the read end of a pipe (the feeder writes fresh bytes
 * into it, made from a random seed, so there is no file to map and no digest to know), reads the
 * whole stream through reader_read() in pieces of 7 and 13 bytes, and sends every byte it got
 * back to the feeder, which compares them with what it sent. The feeder's line is the verdict;
 * this program only says, on its own output, what the feeder cannot see: a reader_read() that
 * returned -1, handed out more than asked, or never returned.
 *
 *   ./reader --socket @NAME     passes until stopped
 */
#define _GNU_SOURCE
#include "reader.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* The plumbing's version, which the feeder compares with its own. */
#define READER_MAIN_VERSION 2

/*
 * A reader.c of the older starter held the whole program (its own main() and a static
 * reader_read() over a file). Linked with this file it leaves reader_read() undefined: the weak
 * reference is then NULL, and the program says so before anything runs, instead of failing a
 * check with advice about code that is right.
 */
#pragma weak reader_read

__attribute__((constructor)) static void reader_main_older(void)
{
    if (reader_read)
        return;
    printf("reader: reader.c was made from an older starter of this exercise (its own main(), "
           "no reader_read() for reader-main.c to call): move it aside (mv reader.c "
           "reader.c.old), open the step or check it again for the new reader.c, and copy your "
           "reader_read() into it\n");
    fflush(stdout);
    _exit(3);
}

/*
 * stdio's buffered reading is what the exercise asks you to write: a stream on the pipe
 * (fdopen(), or fopen() of it by name) would let fread() or getc() do it. glibc's own refills
 * make exactly the read() calls a right answer makes, so the kernel's counts cannot tell them
 * apart; the stream's creation can.
 */
static void reader_main_stdio(const char *call)
{
    printf("reader: reader_read() opened a stdio stream on the pipe with %s(): fread(), getc() and "
           "fgets() would buffer in the library; refill your own buffer with read()\n",
           call);
    fflush(stdout);
    _exit(1);
}

static int reader_main_is_pipe(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

static int reader_main_path_is_pipe(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

FILE *fdopen(int fd, const char *mode)
{
    if (reader_main_is_pipe(fd))
        reader_main_stdio("fdopen");
    FILE *(*real)(int, const char *) = (FILE * (*)(int, const char *)) dlsym(RTLD_NEXT, "fdopen");
    return real ? real(fd, mode) : NULL;
}

FILE *fopen(const char *path, const char *mode)
{
    if (reader_main_path_is_pipe(path))
        reader_main_stdio("fopen");
    FILE *(*real)(const char *, const char *) =
        (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, "fopen");
    return real ? real(path, mode) : NULL;
}

FILE *fopen64(const char *path, const char *mode)
{
    return fopen(path, mode);
}

/* glibc exports the same functions under these names too. */
FILE *_IO_fdopen(int fd, const char *mode);
FILE *_IO_fdopen(int fd, const char *mode)
{
    return fdopen(fd, mode);
}

FILE *_IO_fopen(const char *path, const char *mode);
FILE *_IO_fopen(const char *path, const char *mode)
{
    return fopen(path, mode);
}

FILE *freopen(const char *path, const char *mode, FILE *fp)
{
    if (reader_main_path_is_pipe(path))
        reader_main_stdio("freopen");
    FILE *(*real)(const char *, const char *, FILE *) =
        (FILE * (*)(const char *, const char *, FILE *)) dlsym(RTLD_NEXT, "freopen");
    return real ? real(path, mode, fp) : NULL;
}

static volatile sig_atomic_t stop;
static void reader_main_on_term(int sig)
{
    (void)sig;
    stop = 1;
}

/* Where the pass is, for the watchdog: a reader_read() that never returns cannot say so. */
static unsigned long long returns, at_pass, at_byte;
static int watched_fd = -1, in_call;

/* Seconds a reader_read() may go without returning, while it is not waiting for the feeder. */
#define READER_MAIN_STUCK_S 1

/*
 * Says once, when reader_read() has not returned for READER_MAIN_STUCK_S seconds, where it is
 * stuck. At the end of the stream (the feeder closed its end and the pipe is empty) a reader
 * that goes on calling read() after a read() of 0 never returns at all. A call blocked on an
 * empty pipe that the feeder still holds open is waiting for the feeder (a busy machine can
 * starve it), not stuck: that time does not count.
 */
static void *reader_main_watchdog(void *arg)
{
    (void)arg;
    unsigned long long seen = ~0ull;
    int stuck = 0;
    for (;;) {
        sleep(1);
        unsigned long long now = __atomic_load_n(&returns, __ATOMIC_RELAXED);
        int fd = __atomic_load_n(&watched_fd, __ATOMIC_RELAXED);
        if (now != seen || fd < 0 || !__atomic_load_n(&in_call, __ATOMIC_RELAXED)) {
            seen = now;
            stuck = 0;
            continue;
        }
        int left = -1;
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        if (poll(&pf, 1, 0) < 0 || ioctl(fd, FIONREAD, &left) < 0)
            continue;
        int ended = (pf.revents & POLLHUP) != 0;
        if (left == 0 && !ended)
            continue; /* waiting for the feeder's next bytes */
        if (++stuck < READER_MAIN_STUCK_S)
            continue;
        unsigned long long b = __atomic_load_n(&at_byte, __ATOMIC_RELAXED);
        unsigned long long p = __atomic_load_n(&at_pass, __ATOMIC_RELAXED);
        if (left == 0)
            printf("pass %llu: reader_read() has not returned for %d s at the end of the stream "
                   "(byte %llu, the stream is over and nothing is left in the pipe): there it "
                   "must return what it holds, then 0\n",
                   p, READER_MAIN_STUCK_S, b);
        else
            printf("pass %llu: reader_read() has not returned for %d s, at byte %llu (%d bytes "
                   "wait in the pipe)\n",
                   p, READER_MAIN_STUCK_S, b, left);
        fflush(stdout);
        return NULL;
    }
}

/* Sends all of buf to the feeder, through short writes and EINTR. 0 or -1. */
static int reader_main_send(int sock, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = send(sock, buf, len, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Takes the pipe's read end the feeder hands over. The descriptor, or -1. */
static int reader_main_take(int sock)
{
    char byte;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.space, .msg_controllen = sizeof u.space};
    ssize_t rc;
    do
        rc = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    while (rc < 0 && errno == EINTR && !stop);
    struct cmsghdr *c = rc == 1 ? CMSG_FIRSTHDR(&m) : NULL;
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

/* Connects to the feeder's abstract socket @NAME, waiting up to 5 s for it. */
static int reader_main_connect(const char *name)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t n = strlen(name + 1);
    memcpy(sa.sun_path + 1, name + 1, n);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    for (int tries = 0; tries < 50 && !stop; tries++) {
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0)
            return -1;
        if (connect(s, (struct sockaddr *)&sa, len) == 0)
            return s;
        close(s);
        usleep(100000);
    }
    return -1;
}

/* One pass: the whole stream through reader_read(), every byte sent back. 0 when the stream
   ended; -1 when reader_read() failed or the feeder went away. */
static int reader_main_pass(int sock, struct reader *r, unsigned long long n)
{
    static const size_t sizes[2] = {7, 13}; /* neither divides 4096 */
    static char back[65536];
    size_t nback = 0;
    unsigned long long total = 0;
    char piece[13];
    for (size_t i = 0;; i++) {
        size_t want = sizes[(i + n) % 2];
        __atomic_store_n(&in_call, 1, __ATOMIC_RELAXED);
        ssize_t got = reader_read(r, piece, want);
        __atomic_store_n(&in_call, 0, __ATOMIC_RELAXED);
        __atomic_add_fetch(&returns, 1, __ATOMIC_RELAXED);
        if (got < 0) {
            printf("pass %llu: reader_read() returned -1 at byte %llu (%s)\n", n, total,
                   errno ? strerror(errno) : "errno 0: no read() failed");
            return -1;
        }
        if ((size_t)got > want) {
            printf("pass %llu: reader_read() returned %zd bytes for a request of %zu\n", n, got,
                   want);
            return -1;
        }
        if (got == 0 || nback + (size_t)got > sizeof back) {
            if (reader_main_send(sock, back, nback) < 0)
                return -1; /* the feeder stopped the pass: its line says why */
            nback = 0;
        }
        if (got == 0)
            break;
        memcpy(back + nback, piece, (size_t)got);
        nback += (size_t)got;
        total += (size_t)got;
        __atomic_store_n(&at_byte, total, __ATOMIC_RELAXED);
    }
    /* The feeder's last byte, taken only now: closing without it resets the connection, which
       is how a failed pass reaches the feeder. */
    char end;
    ssize_t rc;
    do
        rc = recv(sock, &end, 1, 0);
    while (rc < 0 && errno == EINTR);
    printf("pass %llu: reader_read() handed out %llu bytes, then 0 (the end)\n", n, total);
    return 0;
}

__attribute__((weak)) int main(int argc, char **argv)
{
    const char *name = NULL;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--socket"))
            name = argv[i + 1];
    if (!name || name[0] != '@' || strlen(name) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        fprintf(stderr, "usage: reader --socket @NAME\n");
        return 2;
    }
    struct sigaction sa = {.sa_handler = reader_main_on_term};
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    pthread_t t;
    pthread_create(&t, NULL, reader_main_watchdog, NULL);
    static struct reader r;
    for (unsigned long long n = 1; !stop; n++) {
        int sock = reader_main_connect(name);
        char hello[32];
        int hl = snprintf(hello, sizeof hello, "reader-main %d\n", READER_MAIN_VERSION);
        if (sock < 0 || reader_main_send(sock, hello, (size_t)hl) < 0) {
            if (!stop)
                printf("reader: cannot reach the feeder at %s\n", name);
            return 1;
        }
        r.fd = reader_main_take(sock);
        r.pos = r.len = 0;
        if (r.fd < 0) {
            close(sock);
            if (stop)
                break;
            printf("reader: the feeder turned this program away (see its line)\n");
            return 1;
        }
        __atomic_store_n(&watched_fd, r.fd, __ATOMIC_RELAXED);
        __atomic_store_n(&at_pass, n, __ATOMIC_RELAXED);
        __atomic_store_n(&at_byte, 0, __ATOMIC_RELAXED);
        int rc = reader_main_pass(sock, &r, n);
        fflush(stdout);
        __atomic_store_n(&watched_fd, -1, __ATOMIC_RELAXED);
        close(r.fd);
        close(sock);
        if (rc < 0)
            return 1;
    }
    return 0;
}
