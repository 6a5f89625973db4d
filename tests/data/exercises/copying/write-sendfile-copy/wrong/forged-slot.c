/* expect: fail: copy_all() must call sendfile() to copy the file's bytes */
/* A forger: copies from a mapping of the file with raw write()s, lifts syscr with raw
 * zero-length read()s and writes sendfile counts and bytes into its own counter slot. */
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

/* The counter slot iolab gave this thread, as sandbox/count/iolab_counters.h lays it out: 64
   calls of {count, bytes, ns}, the 100 counters of the split by descriptor, then the app part
   that iolab_app_self() points at. sendfile is call 12. */
struct iolab_app;
struct iolab_app *iolab_app_self(void) __attribute__((weak));

static void claim_sendfile(uint64_t bytes)
{
    struct iolab_app *app = iolab_app_self ? iolab_app_self() : NULL;
    if (!app)
        return;
    uint64_t *calls = (uint64_t *)((char *)app - 64 * 24 - 800);
    calls[12 * 3] += 1;         /* count */
    calls[12 * 3 + 1] += bytes; /* bytes */
}

int copy_all(int out, int in, off_t size)
{
    const char *src = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, in, 0);
    if (src == MAP_FAILED)
        return -1;
    char none;
    for (off_t offset = 0; offset < size;) {
        size_t want = size - offset < (1 << 16) ? (size_t)(size - offset) : 1 << 16;
        syscall(SYS_read, in, &none, 0); /* lifts syscr, reads nothing */
        long n = syscall(SYS_write, out, src + offset, want);
        if (n <= 0)
            return -1;
        claim_sendfile((uint64_t)n);
        offset += n;
    }
    munmap((void *)src, (size_t)size);
    return 0;
}
