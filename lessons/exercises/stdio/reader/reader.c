/*
 * Reads a file 8 bytes at a time, the way a parser asks for small pieces, through a buffered
 * reader of your own: one read() system call fills a 4 KiB buffer, and the 8-byte requests are
 * served from it. Every pass over the file is checked against a checksum taken through a
 * mapping of the file, so a lost or doubled byte shows.
 *
 *   ./reader --file PATH     passes over the file until stopped; prints one line per pass
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define READER_BUF 4096

struct reader {
    int fd;
    char buf[READER_BUF]; /* bytes read from fd ... */
    size_t pos, len;      /* ... of which buf[pos..len) are not handed out yet */
};

/* Copies up to n bytes into out: fewer only at the end of the file. Returns how many; 0 at the
   end, or -1 on an error. At most one read() per READER_BUF bytes of the file. */
static ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    /* TODO 19: hand out bytes from buf[pos..len); when it is empty, refill it with one read() of READER_BUF bytes */
    size_t done = 0;
    while (done < n) {
        if (r->pos == r->len) {
            ssize_t got = read(r->fd, r->buf, sizeof r->buf);
            if (got < 0 && errno == EINTR)
                continue;
            if (got < 0)
                return -1;
            if (got == 0)
                break;
            r->pos = 0;
            r->len = (size_t)got;
        }
        size_t k = r->len - r->pos < n - done ? r->len - r->pos : n - done;
        memcpy(out + done, r->buf + r->pos, k);
        r->pos += k;
        done += k;
    }
    return (ssize_t)done;
    /* REPLACE 1 */
    // return read(r->fd, out, n);
}

/* FNV-1a, fed in pieces. */
static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *c = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3ull;
    return h;
}

static volatile sig_atomic_t stop;
static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i + 1 < argc; i += 2)
        if (!strcmp(argv[i], "--file"))
            path = argv[i + 1];
    if (!path) {
        fprintf(stderr, "usage: reader --file PATH\n");
        return 2;
    }
    signal(SIGTERM, on_term);
    /* The expected checksum, through a mapping: no read() here. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
        perror(path);
        return 1;
    }
    const char *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        perror("reader: mmap");
        return 1;
    }
    uint64_t want = fnv(0xcbf29ce484222325ull, map, (size_t)st.st_size);
    munmap((void *)map, (size_t)st.st_size);
    close(fd);
    static struct reader r;
    for (unsigned pass = 1; !stop; pass++) {
        r.fd = open(path, O_RDONLY | O_CLOEXEC);
        r.pos = r.len = 0;
        if (r.fd < 0) {
            perror(path);
            return 1;
        }
        uint64_t h = 0xcbf29ce484222325ull, total = 0;
        char piece[8];
        ssize_t n;
        while ((n = reader_read(&r, piece, sizeof piece)) > 0) {
            h = fnv(h, piece, (size_t)n);
            total += (uint64_t)n;
        }
        close(r.fd);
        if (n < 0) {
            perror("reader: read");
            return 1;
        }
        /* The digest is checked again by iolab, which computes the file's own. */
        if (h == want && total == (uint64_t)st.st_size)
            printf("pass %u: %llu bytes, fnv %016llx, all as in the file\n", pass,
                   (unsigned long long)total, (unsigned long long)h);
        else
            printf("pass %u: %llu bytes, fnv %016llx, checksum differs: %llu bytes read of %lld\n",
                   pass, (unsigned long long)total, (unsigned long long)h,
                   (unsigned long long)total, (long long)st.st_size);
        fflush(stdout);
    }
    return 0;
}
