/* iolab-starter: 1 */
/*
 * Your buffered reader: one read() system call fills a 4 KiB buffer, and the small requests
 * (7 and 13 bytes in turn, the way a parser asks) are served from it, as fread() does. The
 * program around it is iolab's, in reader-main.c: it hands reader_read() the read end of a pipe
 * from iolab's feeder and sends back every byte it returns, and the feeder compares them with
 * what it sent. Write reader_read() with read() and memcpy(): stdio's fread() and getc() would
 * do the buffering for you, and the exercise is to do it yourself.
 */
#include "reader.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    /* TODO 19: hand out bytes from buf[pos..len); when it is empty, refill it with one read() */
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
        size_t k = r->len - r->pos < n - done ? r->len - r->pos : n - done;
        memcpy(out + done, r->buf + r->pos, k);
        r->pos += k;
        done += k;
    }
    return (ssize_t)done;
    /* REPLACE 1 */
    // return read(r->fd, out, n);
}
