/* expect: pass */
/* Serve what the buffer has, refill once it is empty, and serve the rest by calling itself. */
#include "reader.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    size_t k = r->len - r->pos < n ? r->len - r->pos : n;
    memcpy(out, r->buf + r->pos, k);
    r->pos += k;
    if (k == n)
        return (ssize_t)n;
    ssize_t got;
    do
        got = read(r->fd, r->buf, sizeof r->buf);
    while (got < 0 && errno == EINTR);
    if (got <= 0)
        return got < 0 && k == 0 ? -1 : (ssize_t)k;
    r->pos = 0;
    r->len = (size_t)got;
    ssize_t more = reader_read(r, out + k, n - k);
    return more < 0 ? -1 : (ssize_t)k + more;
}
