/* expect: fail: reader_read() must copy at most n bytes */
/* Copies all that is left in the buffer into out, whatever n asked: past the caller's 13 bytes. */
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
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                return -1;
            if (got == 0)
                break;
            r->pos = 0;
            r->len = (size_t)got;
        }
        /* The bug: all the buffer holds is copied, however little was asked for. */
        size_t k = r->len - r->pos;
        memcpy(out + done, r->buf + r->pos, k);
        r->pos += k;
        done += k;
    }
    return (ssize_t)done;
}
