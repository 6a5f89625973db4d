/* expect: fail: a refill must keep the bytes still in the buffer */
/* Refills when the buffer holds less than the request: the bytes left in it are dropped. */
#include "reader.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    if (r->len - r->pos < n) {
        ssize_t got;
        do
            got = read(r->fd, r->buf, sizeof r->buf);
        while (got < 0 && errno == EINTR);
        if (got < 0)
            return -1;
        r->pos = 0;
        r->len = (size_t)got;
    }
    size_t k = r->len - r->pos < n ? r->len - r->pos : n;
    memcpy(out, r->buf + r->pos, k);
    r->pos += k;
    return (ssize_t)k;
}
