/* expect: fail: read() copies the file into your buffer */
/* A correct copy through a buffer, which the exercise forbids: read() and write(). */
/*
 * copy_all() for iolab's copy-main.c (copy.h): copies size bytes of in, from its start, to out.
 */
#define _GNU_SOURCE
#include "copy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

int copy_all(int out, int in, off_t size)
{

    static char buf[65536];
    for (;;) {
        ssize_t r = read(in, buf, sizeof buf);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return 0;
        for (ssize_t w = 0; w < r;) {
            ssize_t k = write(out, buf + w, (size_t)(r - w));
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                return -1;
            w += k;
        }
    }
    (void)size;
}
