/* iolab-starter: 1 */
/*
 * iolab's side of the exercise: the program around your copy_all() (copy-memfd.c). Not yours to
 * change: iolab's checker, copy-check, asks which version of it you run, and tells you when this
 * file comes from an older iolab (delete it and check again: iolab writes the current one beside
 * your copy-memfd.c, which it never touches).
 *
 * It opens the file, makes a memfd, calls copy_all(), then hands the memfd to copy-check over a
 * Unix socket (SCM_RIGHTS). copy-check compares the memfd with the file byte for byte and prints
 * the verdict: this program's own lines only say what copy_all() returned.
 *
 *   ./copy --file PATH --socket @NAME     exit 0 once copy-check has the memfd, 1 otherwise
 */
#define _GNU_SOURCE /* memfd_create */
#include "copy.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* The plumbing's version, which copy-check compares with its own. */
#define COPY_MAIN_VERSION 1

/*
 * A copy-memfd.c of the older starter held the whole program (its own main() and a static
 * copy_all()). Linked with this file it leaves copy_all() undefined: the weak reference is then
 * NULL, and the program says so before anything runs, instead of failing a check with advice
 * about code that is right.
 */
#pragma weak copy_all

__attribute__((constructor)) static void copy_main_older(void)
{
    if (copy_all)
        return;
    printf("copy: copy-memfd.c was made from an older starter of this exercise (its own main(), "
           "no copy_all() for copy-main.c to call): move it aside (mv copy-memfd.c "
           "copy-memfd.c.old), open the step or check it again for the new copy-memfd.c, and "
           "copy your copy_all() into it; your copy_all() is kept in the old file\n");
    fflush(stdout);
    _exit(3);
}

/* Sends all of buf to copy-check, through short sends and EINTR. 0 or -1. */
static int copy_main_send(int sock, const char *buf, size_t len)
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

/* Hands the memfd to copy-check with one byte. 0 or -1. */
static int copy_main_give(int sock, int fd)
{
    char byte = 'M';
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
    while (rc < 0 && errno == EINTR);
    return rc == 1 ? 0 : -1;
}

/* Connects to copy-check's abstract socket @NAME, waiting up to 5 s for it. */
static int copy_main_connect(const char *name)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    size_t n = strlen(name + 1);
    memcpy(sa.sun_path + 1, name + 1, n);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
    for (int tries = 0; tries < 50; tries++) {
        int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (s < 0)
            return -1;
        int rc;
        do
            rc = connect(s, (struct sockaddr *)&sa, len);
        while (rc < 0 && errno == EINTR);
        if (rc == 0)
            return s;
        close(s);
        usleep(100000);
    }
    return -1;
}

__attribute__((weak)) int main(int argc, char **argv)
{
    const char *path = NULL, *name = NULL;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--file"))
            path = argv[i + 1];
        else if (!strcmp(argv[i], "--socket"))
            name = argv[i + 1];
    if (!path || !name || name[0] != '@' ||
        strlen(name) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        fprintf(stderr, "usage: copy --file PATH --socket @NAME\n");
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    int file = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (file < 0 || fstat(file, &st) < 0) {
        printf("copy: %s: %s\n", path, strerror(errno));
        return 1;
    }
    int mem = memfd_create("copy", MFD_CLOEXEC);
    if (mem < 0) {
        printf("copy: memfd_create: %s\n", strerror(errno));
        return 1;
    }
    errno = 0;
    if (copy_all(mem, file, st.st_size) < 0) {
        printf("copy: copy_all() returned -1 (errno %d: %s)\n", errno, strerror(errno));
        return 1;
    }
    /* copy-check answers with one byte once it has judged the memfd, so that its line comes
       before this program ends. */
    int sock = copy_main_connect(name);
    char hello[32];
    int hl = snprintf(hello, sizeof hello, "copy-main %d\n", COPY_MAIN_VERSION);
    char done = 0;
    ssize_t rc = -1;
    if (sock >= 0 && copy_main_send(sock, hello, (size_t)hl) == 0 && copy_main_give(sock, mem) == 0)
        do
            rc = recv(sock, &done, 1, 0);
        while (rc < 0 && errno == EINTR);
    if (rc != 1) {
        printf("copy: copy_all() returned 0, and the memfd did not reach copy-check at %s (see "
               "its line)\n",
               name);
        return 1;
    }
    return 0;
}
