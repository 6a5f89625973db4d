/* expect: fail: reader_read() returned -1 */
/* Returns -1 when read() returns 0, as if the end of the file were an error. */
#include "reader.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    size_t done = 0;
    while (done < n) {
        if (r->pos == r->len) {
            ssize_t got = read(r->fd, r->buf, sizeof r->buf);
            if (got <= 0)
                return done ? (ssize_t)done : -1;
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
