/* expect: fail: your program also reads the file itself */
/* The reference solution plus a checksum of the file read through a buffer with raw
 * syscall(SYS_pread64, ...): every byte is read twice. */
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

/* A checksum of the file before the copy, read through a buffer with raw pread64 calls, which
   the shim never sees. */
static unsigned long checksum(int file, off_t size)
{
    static char buf[1 << 16];
    unsigned long sum = 0;
    for (off_t offset = 0; offset < size;) {
        long n = syscall(SYS_pread64, file, buf, sizeof buf, offset);
        if (n <= 0)
            break;
        for (long i = 0; i < n; i++)
            sum = sum * 31 + (unsigned char)buf[i];
        offset += n;
    }
    return sum;
}

int copy_all(int out, int in, off_t size)
{
    volatile unsigned long sum = checksum(in, size);
    (void)sum;
    off_t offset = 0;
    while (offset < size) {
        ssize_t n = sendfile(out, in, &offset, (size_t)(size - offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
    }
    return 0;
}
