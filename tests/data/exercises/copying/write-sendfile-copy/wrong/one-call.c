/* expect: fail: copy_all() stopped before the end */
/* One sendfile() for the whole file, EINTR retried, no loop over a short copy. */
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

    off_t offset = 0;
    ssize_t n;
    do
        n = sendfile(out, in, &offset, (size_t)size);
    while (n < 0 && errno == EINTR);
    return n < 0 ? -1 : 0;
}
