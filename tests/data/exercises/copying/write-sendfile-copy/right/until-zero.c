/* expect: pass */
/* No offset and no size: sendfile() from the file position until it returns 0, the end of the file.
 */
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

    (void)size;
    if (lseek(in, 0, SEEK_SET) < 0)
        return -1;
    for (;;) {
        ssize_t n = sendfile(out, in, NULL, 1 << 20);
        if (n > 0)
            continue;
        if (n == 0)
            return 0;
        if (errno != EINTR)
            return -1;
    }
}
