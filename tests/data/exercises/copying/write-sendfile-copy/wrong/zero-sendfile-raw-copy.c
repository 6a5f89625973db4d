/* expect: fail: copy_all() must call sendfile() to copy the file's bytes */
/* A zero-length sendfile() per chunk beside the real copy, by raw pread64 and write calls. */
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
#include <sys/syscall.h>
#include <unistd.h>

int copy_all(int out, int in, off_t size)
{
    static char buf[1 << 16];
    for (off_t offset = 0; offset < size;) {
        off_t none = offset;
        sendfile(out, in, &none, 0); /* counted, and moves nothing */
        long n = syscall(SYS_pread64, in, buf, sizeof buf, offset);
        if (n <= 0)
            return -1;
        for (long done = 0; done < n;) {
            long w = syscall(SYS_write, out, buf + done, (size_t)(n - done));
            if (w <= 0)
                return -1;
            done += w;
        }
        offset += n;
    }
    return 0;
}
