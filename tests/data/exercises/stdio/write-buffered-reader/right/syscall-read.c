/* expect: pass */
/* The reference loop, but each refill is the system call itself, syscall(SYS_read, ...), not the
 * libc wrapper. */
#include "reader.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    size_t done = 0;
    while (done < n) {
        if (r->pos == r->len) {
            long got = syscall(SYS_read, r->fd, r->buf, sizeof r->buf);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                return -1;
            if (got == 0)
                break;
            r->pos = 0;
            r->len = (size_t)got;
        }
        size_t k = r->len - r->pos < n - done ? r->len - r->pos : n - done;
        memcpy(out + done, r->buf + r->pos, k);
        r->pos += k;
        done += k;
    }
    return (ssize_t)done;
}
