/* expect: fail: not one per request */
/* No buffer: a read() of the pipe per 7- or 13-byte request, with a 2 MiB read of /dev/zero after
 * every 256 of them, so that the kernel's bytes per read system call (rchar / syscr, the whole
 * process's) look like a 4 KiB buffer's. A read() a signal interrupts is made again: its one bug
 * is the padding. */
#include "reader.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    static int zero = -1;
    static unsigned long calls;
    static char pad[2 << 20];
    if (zero < 0)
        zero = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    if (++calls % 256 == 0)
        while (read(zero, pad, sizeof pad) < 0 && errno == EINTR)
            ;
    ssize_t got;
    while ((got = read(r->fd, out, n)) < 0 && errno == EINTR)
        ;
    return got;
}
