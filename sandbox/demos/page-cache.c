/*
 * page-cache: reads one file from start to end, again and again, either from the disk or from
 * the page cache (the kernel's copy of file data in memory), chosen by --mode:
 *
 *   cold  before every timed pass, posix_fadvise(POSIX_FADV_DONTNEED) asks the kernel to drop
 *         the file's pages from the cache, so the pass reads from the disk. No root needed, and
 *         only this file is affected (unlike `echo 3 > /proc/sys/vm/drop_caches`, which needs
 *         root and empties the cache of the whole machine: never done here).
 *  warm  when the file is not wholly in the cache, an untimed pass loads it first; the timed
 *        pass reads memory.
 *
 * Before every timed pass the program measures how much of the file is in the cache with
 * mincore() on a mapping of it (mapping does not load pages, so it does not disturb what it
 * measures) and prints it as resident_pct: near 0 for cold, 100 for warm. It checks this right
 * before the warm pass because idle cache can be reclaimed at any time (this machine runs DAMON,
 * which does so after minutes).
 *
 * Dirty pages (written but not yet on disk) cannot be dropped, so the file is written once,
 * fdatasync()ed, then only read. On tmpfs the cache is the only copy of the file and nothing
 * can be dropped: the program refuses such a directory.
 *
 * It creates DIR/page-cache.data (--size bytes) and removes it at the end. About once a second,
 * and at the end ("total:"), it prints
 *   mode=M gb_per_s=X resident_pct=P passes=N bytes=N seconds=S mib_per_s=R calls=N
 * where seconds is the time of the timed passes only, resident_pct the mean residency before
 * them and calls the read() calls of the timed passes. Published figures: requests (timed
 * passes), bytes (bytes of timed passes), per-pass latency.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#define PROG       "page-cache"
#define SIZE_MAX_  (1ull << 30)
#define BUFFER_MAX (64u << 20)

/* ---- the cache: drop it, measure it ---- */

/* Drops the file's clean pages from the page cache. 0 or a negative errno. */
static int cache_drop(int fd)
{
    return -posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED); /* returns an errno, not -1 */
}

/* The percentage of the file's pages in the page cache, or a negative errno. */
static double cache_resident_pct(int fd, uint64_t size)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t npages = (size_t)((size + (uint64_t)page - 1) / (uint64_t)page);
    void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return -errno;
    unsigned char *vec = malloc(npages);
    double pct = -ENOMEM;
    if (vec && mincore(map, size, vec) == 0) {
        size_t in = 0;
        for (size_t i = 0; i < npages; i++)
            in += vec[i] & 1; /* bit 0: the page is resident */
        pct = 100.0 * (double)in / (double)npages;
    } else if (vec) {
        pct = -errno;
    }
    free(vec);
    munmap(map, size);
    return pct;
}

/* One pass over the whole file with read(); counts the calls. 0 or a negative errno. */
static int read_pass(int fd, char *buf, size_t buffer, uint64_t *calls)
{
    lseek(fd, 0, SEEK_SET);
    for (;;) {
        ssize_t n = read(fd, buf, buffer);
        (*calls)++;
        if (n < 0 && errno == EINTR && !demo_stop)
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return 0;
    }
}

/* ---- the two modes: what happens before the timed pass ---- */

static int prepare_cold(int fd, char *buf, size_t buffer)
{
    (void)buf, (void)buffer;
    return cache_drop(fd);
}

static int prepare_warm(int fd, char *buf, size_t buffer)
{
    /* Only what is missing needs reading, but the kernel may have reclaimed any page: when
     * the file is not wholly cached, one untimed pass brings every page back. */
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    double pct = cache_resident_pct(fd, (uint64_t)st.st_size);
    if (pct < 0)
        return (int)pct;
    uint64_t untimed = 0;
    return pct < 100.0 ? read_pass(fd, buf, buffer, &untimed) : 0;
}

struct cache_mode {
    struct demo_mode cli; /* name and help */
    int (*prepare)(int fd, char *buf, size_t buffer);
    const char *reads; /* how the start line says where the reads come from */
};

static const struct cache_mode cache_modes[] = {
    {.cli = {"cold", "drop the file's cached pages (posix_fadvise DONTNEED)\n"
                     "before each timed read"},
     .prepare = prepare_cold,
     .reads = "cold (dropped from the cache first)"},
    {.cli = {"warm", "read it untimed first if it is not all cached, then\n"
                     "time a read from the cache"},
     .prepare = prepare_warm,
     .reads = "warm (cached)"},
};

/* ---- set-up, reporting and the loop ---- */

/* Creates the file with size bytes and flushes it to disk, so its pages can be dropped. */
static int make_file(const char *path, uint64_t size)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    static char chunk[1 << 16];
    int err = 0;
    for (uint64_t off = 0; off < size && !err; off += sizeof chunk) {
        for (size_t i = 0; i < sizeof chunk; i++)
            chunk[i] = (char)((off + i) * 2654435761u >> 24);
        size_t len = size - off < sizeof chunk ? (size_t)(size - off) : sizeof chunk;
        err = demo_write_all(fd, chunk, len);
    }
    if (!err && fdatasync(fd) < 0)
        err = -errno;
    if (err) {
        close(fd);
        return err;
    }
    return fd;
}

struct tally {
    uint64_t passes, bytes, ns, calls;
    double resident_sum; /* of the percentages before each timed pass */
};

static void tally_print(const char *prefix, const struct cache_mode *m, const struct tally *t)
{
    double secs = (double)t->ns / 1e9;
    /* The figures to compare come first: a narrow pane cuts the end of the line. */
    printf("%smode=%s gb_per_s=%.2f resident_pct=%.1f passes=%llu bytes=%llu seconds=%.3f "
           "mib_per_s=%.0f calls=%llu\n",
           prefix, m->cli.name, secs > 0 ? (double)t->bytes / 1e9 / secs : 0.0,
           t->passes ? t->resident_sum / (double)t->passes : 0.0, (unsigned long long)t->passes,
           (unsigned long long)t->bytes, secs, secs > 0 ? (double)t->bytes / 1048576.0 / secs : 0.0,
           (unsigned long long)t->calls);
    fflush(stdout);
}

static void tally_add(struct tally *to, const struct tally *t)
{
    to->passes += t->passes, to->bytes += t->bytes, to->ns += t->ns, to->calls += t->calls;
    to->resident_sum += t->resident_sum;
}

/* ---- options, the run and main ---- */

static const char *dir; /* --dir */
static uint64_t size = 64 << 20, rounds, buffer = 128 << 10;
static double seconds;

static const struct demo_opt opts[] = {
    DEMO_OPT_TEXT("dir", &dir, "DIR", "a directory on a disk filesystem (not tmpfs)",
                  .required = 1),
    DEMO_OPT_MODE,
    DEMO_OPT_SIZE("size", &size, SIZE_MAX_, "BYTES",
                  "file size, K/M/G suffixes allowed (default 64M, at most 1G)"),
    DEMO_OPT_SIZE("buffer", &buffer, BUFFER_MAX, "BYTES", "read() size (default 128K)"),
    DEMO_OPT_U64("rounds", &rounds, 1, UINT64_MAX, "N", "stop after N timed passes"),
    DEMO_OPT_SECONDS(&seconds),
    {0},
};

/* A file in memory (tmpfs) has no copy on a disk to read cold from. */
static void check_dir(void)
{
    struct statfs fs;
    if (statfs(dir, &fs) < 0)
        demo_usage_error(PROG, "--dir '%s' cannot be used (%s)", dir, strerror(errno));
    if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC)
        demo_usage_error(PROG,
                         "--dir '%s' is in memory (tmpfs), where the page cache is the only copy "
                         "of a file and cannot be dropped; give a directory on a disk",
                         dir);
    demo_check_room(PROG, dir, size); /* never fill the disk */
}

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--dir DIR --mode cold|warm [--size BYTES] [--buffer BYTES]\n"
             "                  [--rounds N | --seconds T]",
    .about = "Creates DIR/page-cache.data and reads it again and again, from the disk (cold) or\n"
             "from the page cache (warm), printing GB/s and how much of the file was cached.\n",
    .opts = opts,
    DEMO_MODES(cache_modes),
    .footer = "Without a limit it reads until SIGTERM or SIGINT, then prints the total, status 0.\n"
              "Needs no root; never touches /proc/sys/vm/drop_caches.\n",
    .check = check_dir,
};

/* Writes the file, reads it until a limit or SIGTERM, removes it. */
static int run(const struct cache_mode *mode)
{
    demo_signals_init();
    char path[4096];
    snprintf(path, sizeof path, "%s/page-cache.data", dir);
    char *buf = malloc(buffer);
    int status = 1, fd = buf ? make_file(path, size) : -ENOMEM;
    if (fd < 0) {
        fprintf(stderr, PROG ": cannot create %s: %s\n", path, strerror(-fd));
        goto out;
    }
    printf("reading %s (%llu bytes) %s, %llu-byte reads\n", path, (unsigned long long)size,
           mode->reads, (unsigned long long)buffer);
    fflush(stdout);

    struct iolab_app *app = iolab_app();
    struct tally total = {0}, period = {0};
    uint64_t start = demo_now_ns(), period_start = start;
    status = 0;
    while (!demo_stop && (!rounds || total.passes + period.passes < rounds) &&
           (seconds <= 0 || (double)(demo_now_ns() - start) / 1e9 < seconds)) {
        int err = mode->prepare(fd, buf, buffer);
        double pct = err ? 0 : cache_resident_pct(fd, size);
        if (!err && pct < 0)
            err = (int)pct;
        uint64_t calls = 0, t0 = demo_now_ns();
        if (!err)
            err = read_pass(fd, buf, buffer, &calls);
        uint64_t ns = demo_now_ns() - t0;
        if (err == -EINTR && demo_stop)
            break; /* stopped in the middle: this pass does not count */
        if (err) {
            fprintf(stderr, PROG ": %s pass failed: %s\n", mode->cli.name, strerror(-err));
            status = 1;
            break;
        }
        period.passes++;
        period.bytes += size;
        period.ns += ns;
        period.calls += calls;
        period.resident_sum += pct;
        demo_publish_request(app, size, ns);
        if (demo_second_passed(&period_start)) {
            tally_print("", mode, &period);
            tally_add(&total, &period);
            period = (struct tally){0};
        }
    }
    tally_add(&total, &period);
    tally_print("total: ", mode, &total);
    cache_drop(fd); /* leave no cache behind for a file that is about to go */
out:
    if (fd >= 0)
        close(fd);
    unlink(path);
    free(buf);
    return status;
}

int main(int argc, char **argv)
{
    return run(demo_cli_parse(&cli, argc, argv));
}
