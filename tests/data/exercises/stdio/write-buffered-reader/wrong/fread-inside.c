/* expect: fail: a stdio stream (fdopen() with fread() */
/* Buffers nothing itself: reader_read() wraps the pipe in a stdio stream and calls fread(), whose
 * refills make the same 4 KiB read() calls as a right answer. */
#include "reader.h"

#include <stdio.h>

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    static FILE *fp;
    static int fp_fd = -1;
    if (!fp || fp_fd != r->fd || (r->pos == 0 && r->len == 0)) {
        fp = fdopen(r->fd, "r"); /* a new pass: a new stream (the old one is left open) */
        fp_fd = r->fd;
        r->len = 1; /* only to tell the next call it is the same pass */
        if (!fp)
            return -1;
    }
    size_t got = fread(out, 1, n, fp);
    if (got == 0 && ferror(fp))
        return -1;
    return (ssize_t)got;
}
