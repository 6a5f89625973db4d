/*
 * probe_fortify: the probe's calls through glibc's _FORTIFY_SOURCE variants. This file is
 * built with -O2 -D_FORTIFY_SOURCE=2: the buffers have sizes the compiler knows and the lengths
 * and flags come from variables it cannot see through, which is what makes glibc's headers emit
 * __read_chk, __recv_chk, __recvfrom_chk, __pread64_chk, __poll_chk, __ppoll_chk and __open_2
 * instead of the plain calls. Each call must succeed; the probe exits 3 otherwise.
 */
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "probe.h"

#if !defined(_FORTIFY_SOURCE) || _FORTIFY_SOURCE < 2
#error "probe_fortify.c must be built with -D_FORTIFY_SOURCE=2"
#endif

/* Kept opaque to the optimiser, so that no length or flag below is a compile-time constant. */
static volatile size_t probe_four = 4;
static volatile int probe_flags = O_RDWR | O_TRUNC;

static void probe_fortify_fail(void)
{
    _exit(3);
}

void probe_fortify_sockets(int c, int s)
{
    char buf[16];
    memset(buf, 'r', sizeof buf);
    if (send(c, buf, 8, 0) != 8)
        probe_fortify_fail();
    if (recv(s, buf, probe_four, MSG_WAITALL) != 4)
        probe_fortify_fail();
    if (recvfrom(s, buf, probe_four, MSG_WAITALL, NULL, NULL) != 4)
        probe_fortify_fail();
}

void probe_fortify_waits(int readable)
{
    struct pollfd pfd[1] = {{.fd = readable, .events = POLLIN}};
    struct timespec ts = {0, 0};
    nfds_t n = probe_four / 4;
    if (poll(pfd, n, 0) != 1 || ppoll(pfd, n, &ts, NULL) != 1)
        probe_fortify_fail();
}

void probe_fortify_files(const char *dir)
{
    char path[300];
    char buf[16];
    size_t d = strlen(dir);
    if (d + 3 > sizeof path)
        probe_fortify_fail();
    memcpy(path, dir, d);
    memcpy(path + d, "/a", 3);
    int fd = open(path, probe_flags);
    if (fd < 0)
        probe_fortify_fail();
    memset(buf, 'p', sizeof buf);
    if (write(fd, buf, sizeof buf) != sizeof buf)
        probe_fortify_fail();
    if (pread(fd, buf, probe_four, 0) != 4)
        probe_fortify_fail();
    if (lseek(fd, 0, SEEK_SET) != 0 || read(fd, buf, probe_four) != 4)
        probe_fortify_fail();
    close(fd);
}
