/* expect: pass */
/* Another buffering: when fewer bytes than asked are buffered, move them to the front and top the
 * buffer up. */
#include "reader.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    for (;;) {
        size_t have = r->len - r->pos;
        if (have >= n) {
            size_t k = have < n ? have : n;
            memcpy(out, r->buf + r->pos, k);
            r->pos += k;
            return (ssize_t)k;
        }
        memmove(r->buf, r->buf + r->pos, have);
        r->pos = 0;
        r->len = have;
        ssize_t got = read(r->fd, r->buf + have, sizeof r->buf - have);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return -1;
        if (got == 0) {
            size_t k = have < n ? have : n;
            memcpy(out, r->buf, k);
            r->pos = k;
            return (ssize_t)k;
        }
        r->len += (size_t)got;
    }
}
