/* expect: fail: the copy's bytes are not the file's */
/* Counts the bytes copied but reads every time from offset 0. */
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

    off_t done = 0;
    while (done < size) {
        off_t offset = 0;
        ssize_t n = sendfile(out, in, &offset, (size_t)(size - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        done += n;
    }
    return 0;
}
