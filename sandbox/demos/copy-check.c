/*
 * copy-check: the copying exercise's judge. The learner's program (copy_all() inside iolab's
 * copy-main.c) copies a file into a memfd and hands the memfd over a Unix socket (SCM_RIGHTS);
 * this program compares it with the file, byte for byte, and prints the verdict. A whole, right
 * copy is a request of the file's size: the verdict of the step is this program's line and
 * request, never the copying program's own words.
 *
 *   copy-check --socket @NAME --file PATH
 *       @NAME is an abstract Unix socket name (no file). Prints "listening on @NAME", then one
 *       line per copy it is handed.
 *
 * A copy: the program connects and says "copy-main V" (the version of the plumbing that iolab
 * writes into the workspace as copy-main.c; an older one is told so and turned away), then sends
 * one byte with the memfd. This program answers with one byte once it has judged it.
 */
#include "demo.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define PROG "copy-check"

/* The version of copy-main.c this checker speaks with; copy-main.c sends its own. */
#define COPY_CHECK_VERSION 1

#define COPY_CHECK_CHUNK (1 << 20)

/* Waits up to 3 s for fd to be readable. 0, or -1 when nothing came (or the run stops). */
static int copy_check_wait(int fd)
{
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int rc = poll(&p, 1, 3000);
        if (rc < 0 && errno == EINTR && !demo_stop)
            continue;
        return rc > 0 ? 0 : -1;
    }
}

/* Reads the program's first line ("copy-main V\n"), byte by byte so that nothing after it is
   taken. 0, or -1 when none came. */
static int copy_check_hello(int fd, char *line, size_t len)
{
    for (size_t n = 0; n + 1 < len;) {
        if (copy_check_wait(fd) < 0)
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

/* Takes the descriptor the program sends with one byte. The descriptor, or -1. */
static int copy_check_take(int sock)
{
    char byte;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    union {
        struct cmsghdr h;
        char space[CMSG_SPACE(sizeof(int))];
    } u;
    struct msghdr m = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.space, .msg_controllen = sizeof u.space};
    if (copy_check_wait(sock) < 0)
        return -1;
    ssize_t rc;
    do
        rc = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    while (rc < 0 && errno == EINTR && !demo_stop);
    struct cmsghdr *c = rc == 1 ? CMSG_FIRSTHDR(&m) : NULL;
    if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
        c->cmsg_len != CMSG_LEN(sizeof(int)))
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(c), sizeof fd);
    return fd;
}

/* Reads n bytes at off with pread(), through short reads and EINTR. 0, or -1 when fewer came. */
static int copy_check_pread(int fd, unsigned char *buf, size_t n, off_t off)
{
    while (n > 0) {
        ssize_t got = pread(fd, buf, n, off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        buf += got;
        n -= (size_t)got;
        off += got;
    }
    return 0;
}

/*
 * Compares the memfd with the file: prints the verdict, naming the first byte that differs, or
 * how far the copy got when every byte it has is right. pread(), not a mapping: the copying
 * program still holds the memfd and could shrink it under a mapping. 1 when the copy is whole
 * and right, else 0.
 */
static int copy_check_compare(int mem, const char *path)
{
    static unsigned char a[COPY_CHECK_CHUNK], b[COPY_CHECK_CHUNK];
    struct stat ms, fs;
    /* A memfd has no name on disk and carries seals; the file itself (handed over in place of
       a copy) has a name and none. */
    if (fstat(mem, &ms) < 0 || !S_ISREG(ms.st_mode) || ms.st_nlink != 0 ||
        fcntl(mem, F_GET_SEALS) < 0) {
        printf("%s: what the program handed over is not a memfd, so no copy was judged\n", PROG);
        return 0;
    }
    int file = open(path, O_RDONLY | O_CLOEXEC);
    if (file < 0 || fstat(file, &fs) < 0) {
        printf("%s: %s: %s\n", PROG, path, strerror(errno));
        if (file >= 0)
            close(file);
        return 0;
    }
    off_t size = fs.st_size, common = ms.st_size < size ? ms.st_size : size;
    int ok = 1;
    for (off_t at = 0; ok && at < common; at += COPY_CHECK_CHUNK) {
        size_t k = common - at < COPY_CHECK_CHUNK ? (size_t)(common - at) : COPY_CHECK_CHUNK;
        if (copy_check_pread(mem, a, k, at) < 0 || copy_check_pread(file, b, k, at) < 0) {
            printf("copy differs: the memfd ended at byte %lld or before, of %lld\n",
                   (long long)(at + (off_t)k), (long long)size);
            ok = 0;
        } else if (memcmp(a, b, k) != 0) {
            size_t i = 0;
            while (a[i] == b[i])
                i++;
            printf("copy differs: first at byte %lld of %lld\n", (long long)(at + (off_t)i),
                   (long long)size);
            ok = 0;
        }
    }
    if (ok && ms.st_size != size) {
        printf("copy differs: the memfd has %lld of %lld bytes\n", (long long)ms.st_size,
               (long long)size);
        ok = 0;
    }
    if (ok)
        printf("copy verified: %lld bytes, byte for byte\n", (long long)size);
    close(file);
    return ok;
}

int main(int argc, char **argv)
{
    const char *name = NULL, *path = NULL;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--socket"))
            name = argv[i + 1];
        else if (!strcmp(argv[i], "--file"))
            path = argv[i + 1];
    if (!name || !path || name[0] != '@' ||
        strlen(name) >= sizeof(((struct sockaddr_un *)0)->sun_path))
        demo_usage_error(PROG, "usage: %s --socket @NAME --file PATH", PROG);
    demo_signals_init();
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path + 1, name + 1, strlen(name + 1)); /* abstract: sun_path[0] is 0 */
    socklen_t salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name));
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, salen) < 0 || listen(lfd, 8) < 0) {
        printf("%s: cannot listen on %s: %s\n", PROG, name, strerror(errno));
        return 1;
    }
    struct iolab_app *app = iolab_app();
    demo_ready("listening on %s", name);
    while (!demo_stop) {
        int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0)
            continue; /* EINTR (demo_stop is checked) or a connection that went at once */
        char hello[64];
        int version = 0;
        if (copy_check_hello(c, hello, sizeof hello) < 0) {
            /* No line: a program that went at once, or that does not speak this protocol at
               all; neither is an older copy-main.c. */
            close(c);
            continue;
        }
        if (sscanf(hello, "copy-main %d", &version) != 1 || version != COPY_CHECK_VERSION) {
            printf("%s: this workspace's copy-main.c is from another iolab (it says version %d, "
                   "this iolab's is %d): delete copy-main.c and open the step or check it "
                   "again; iolab writes the current one, and copy-memfd.c, your code, is kept\n",
                   PROG, version, COPY_CHECK_VERSION);
            fflush(stdout);
            close(c);
            continue;
        }
        uint64_t t0 = demo_now_ns();
        int mem = copy_check_take(c);
        if (mem < 0) {
            printf("%s: the program said hello and handed over no descriptor\n", PROG);
        } else {
            struct stat st;
            uint64_t bytes = fstat(mem, &st) == 0 ? (uint64_t)st.st_size : 0;
            /* A whole, right copy is one request of the file's size. */
            if (copy_check_compare(mem, path))
                demo_publish_request(app, bytes, demo_now_ns() - t0);
            close(mem);
        }
        fflush(stdout);
        (void)send(c, "J", 1, MSG_NOSIGNAL);
        close(c);
    }
    return 0;
}
