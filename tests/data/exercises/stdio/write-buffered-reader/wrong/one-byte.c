/* expect: fail: read() at reader.c:16 ran */
/* A refill that reads one byte per read(): a system call per byte, and the verdict names the
 * line that makes them. */
#include "reader.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    size_t done = 0;
    while (done < n) {
        if (r->pos == r->len) {
            /* The line the verdict must name: */
            ssize_t got = read(r->fd, r->buf, 1);
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
