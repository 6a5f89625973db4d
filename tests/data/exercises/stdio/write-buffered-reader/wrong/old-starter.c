/* expect: fail: this workspace was made from an older starter */
/* The reference solution as last week's starter shaped it: the whole program in reader.c (its own
 * main() over a file, a static reader_read()); iolab now runs reader_read() from reader-main.c. */
/*
 * Reads a file in small pieces, 7 and 13 bytes in turn, the way a parser asks for them, through a
 * buffered reader of your own: one read() system call fills a 4 KiB buffer, and the small requests
 * are served from it. Every piece is compared with the file (through a mapping, no read()), so a
 * lost, doubled or changed byte shows with its offset, and so does an end of the file found too
 * early, too late or never.
 *
 *   ./reader --file PATH     passes over the file until stopped; prints one line per pass
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
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
   end, or -1 on an error. One read() per READER_BUF bytes of the file, or per what the kernel
   gives when a read() brings less (only a read() of 0 is the end). */
static ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    /* TODO 19: hand out bytes from buf[pos..len); when it is empty, refill it with one read() */
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

static volatile sig_atomic_t stop;
static void on_term(int sig)
{
    (void)sig;
    stop = 1;
}

/* Where the passes are, for the watchdog: a reader_read() that never returns cannot say so. */
static unsigned long long returns, at_pass, at_byte, file_size;

/*
 * Says once, when reader_read() has not returned for a second, where it is stuck: a reader that
 * goes on calling read() after the end of the file (a read() of 0) never returns at all, and
 * this program cannot say so from inside the call.
 */
static void *watchdog(void *arg)
{
    (void)arg;
    unsigned long long seen = ~0ull;
    for (;;) {
        sleep(1);
        unsigned long long now = __atomic_load_n(&returns, __ATOMIC_RELAXED);
        if (now == seen) {
            unsigned long long b = __atomic_load_n(&at_byte, __ATOMIC_RELAXED);
            unsigned long long p = __atomic_load_n(&at_pass, __ATOMIC_RELAXED);
            if (file_size - b < 13) /* less than one request left: it is at the end */
                printf("pass %llu: reader_read() has not returned for 1 s at the end of the file "
                       "(byte %llu of %llu): there it must return what it holds, then 0\n",
                       p, b, file_size);
            else
                printf("pass %llu: reader_read() has not returned for 1 s, at byte %llu of %llu\n",
                       p, b, file_size);
            fflush(stdout);
            return NULL;
        }
        seen = now;
    }
}

/* One pass over the file through the reader, each piece compared with the file. Prints the
   pass's line; 0, or -1 when reader_read() failed. */
static int pass(struct reader *r, unsigned n, const unsigned char *file, unsigned long long size)
{
    static const size_t sizes[2] = {7, 13}; /* neither divides 4096, nor the file's size */
    unsigned long long total = 0, fnv = 0xcbf29ce484222325ull; /* FNV-1a of what came */
    char piece[13];
    for (size_t i = 0;; i++) {
        size_t want = sizes[(i + n) % 2];
        ssize_t got = reader_read(r, piece, want);
        __atomic_add_fetch(&returns, 1, __ATOMIC_RELAXED);
        if (got < 0) {
            printf("pass %u: reader_read() returned -1 at byte %llu of %llu (%s)\n", n, total, size,
                   errno ? strerror(errno) : "errno 0: no read() failed");
            return -1;
        }
        if (got == 0)
            break;
        if ((size_t)got > want) {
            printf("pass %u: reader_read() returned %zd bytes for a request of %zu\n", n, got,
                   want);
            return 0;
        }
        if (total + (size_t)got > size) {
            printf("pass %u: reader_read() went past the end of the file: %llu bytes of %llu, "
                   "and it must return 0 at the end\n",
                   n, total + (unsigned long long)got, size);
            return 0;
        }
        for (ssize_t k = 0; k < got; k++)
            if ((unsigned char)piece[k] != file[total + (size_t)k]) {
                printf("pass %u: byte %llu differs from the file (a piece of %zd bytes from "
                       "reader_read())\n",
                       n, total + (unsigned long long)k, got);
                return 0;
            }
        for (ssize_t k = 0; k < got; k++)
            fnv = (fnv ^ (unsigned char)piece[k]) * 0x100000001b3ull;
        total += (size_t)got;
        __atomic_store_n(&at_byte, total, __ATOMIC_RELAXED);
    }
    if (total < size)
        printf("pass %u: reader_read() returned 0 (the end) after %llu of %llu bytes\n", n, total,
               size);
    else
        /* The digest lets iolab check this line against the file itself: a line printed
           without reading it proves nothing. */
        printf("pass %u: %llu bytes, fnv %016llx, all as in the file\n", n, total, fnv);
    return 0;
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
    /* The file as it must arrive, through a mapping: no read() here. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
        perror(path);
        return 1;
    }
    const unsigned char *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        perror("reader: mmap");
        return 1;
    }
    close(fd);
    file_size = (unsigned long long)st.st_size;
    pthread_t t;
    pthread_create(&t, NULL, watchdog, NULL);
    static struct reader r;
    for (unsigned n = 1; !stop; n++) {
        r.fd = open(path, O_RDONLY | O_CLOEXEC);
        r.pos = r.len = 0;
        if (r.fd < 0) {
            perror(path);
            return 1;
        }
        __atomic_store_n(&at_pass, n, __ATOMIC_RELAXED);
        __atomic_store_n(&at_byte, 0, __ATOMIC_RELAXED);
        int rc = pass(&r, n, map, file_size);
        fflush(stdout);
        close(r.fd);
        if (rc < 0)
            return 1;
    }
    return 0;
}
