/* expect: pass */
/* A do/while with a count of what is left and the offset pointer. */
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

    off_t offset = 0, left = size;
    do {
        ssize_t n = sendfile(out, in, &offset, (size_t)left);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0)
            break;
        left -= n;
    } while (left > 0);
    return left == 0 ? 0 : -1;
}
