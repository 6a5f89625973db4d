/* expect: fail: made from an older starter */
/* Last week's whole program: its own main() and a static copy_all(), right, from before
 * copy-main.c. */
/*
 * Copies a file into a memfd (a file that lives only in memory) with sendfile(), then checks
 * the copy byte for byte.
 *
 * sendfile() copies inside the kernel, from the page cache to the destination: no byte passes
 * through this program, so there is no read() and no write(). Like write(), it may copy less
 * than asked (a signal, a limit of the destination): the copy is a loop until every byte is
 * there.
 *
 *   ./copy-memfd --file PATH     prints "copy verified: N bytes" and the memfd's digest, or
 *                                what differs; exit 0 or 1
 */
#define _GNU_SOURCE /* memfd_create */
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

/* FNV-1a of n bytes: the memfd's digest, printed with the verdict; iolab computes the file's
   own and compares them, so the copy is checked by more than this program's word. */
static uint64_t fnv(const unsigned char *p, off_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (off_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

/* Copies size bytes of in (from its start) to out. 0, or -1 on an error (errno set). */
static int copy_all(int out, int in, off_t size)
{
    /* TODO 9: loop sendfile(out, in, &offset, size - offset) until offset reaches size */
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

/* Compares the memfd with the file through mappings (no read()): prints the verdict, naming the
   first byte that differs, or how far the copy got when every byte it has is right. */
static int verify(int mem, int file, off_t size)
{
    struct stat st;
    if (fstat(mem, &st) < 0)
        return 1;
    off_t common = st.st_size < size ? st.st_size : size;
    const unsigned char *a = NULL, *b = NULL;
    if (common > 0) {
        a = mmap(NULL, (size_t)common, PROT_READ, MAP_SHARED, mem, 0);
        b = mmap(NULL, (size_t)common, PROT_READ, MAP_SHARED, file, 0);
        if (a == MAP_FAILED || b == MAP_FAILED) {
            perror("copy-memfd: mmap");
            return 1;
        }
    }
    for (off_t i = 0; i < common; i++)
        if (a[i] != b[i]) {
            printf("copy differs: first at byte %lld of %lld\n", (long long)i, (long long)size);
            return 1;
        }
    if (st.st_size != size) {
        printf("copy differs: the memfd has %lld of %lld bytes\n", (long long)st.st_size,
               (long long)size);
        return 1;
    }
    printf("copy verified: %lld bytes\n", (long long)size);
    printf("copy digest: fnv %016llx\n", (unsigned long long)fnv(a, size));
    return 0;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--file"))
            path = argv[i + 1];
    if (!path) {
        fprintf(stderr, "usage: copy-memfd --file PATH\n");
        return 2;
    }
    int file = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (file < 0 || fstat(file, &st) < 0) {
        perror(path);
        return 1;
    }
    int mem = memfd_create("copy", MFD_CLOEXEC);
    if (mem < 0) {
        perror("copy-memfd: memfd_create");
        return 1;
    }
    if (copy_all(mem, file, st.st_size) < 0) {
        perror("copy-memfd: copy_all() failed: sendfile");
        return 1;
    }
    fflush(stdout);
    int rc = verify(mem, file, st.st_size);
    fflush(stdout);
    return rc;
}
