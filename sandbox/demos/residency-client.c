/*
 * residency-client: the reference side of the page-cache exercise. It asks a residency server
 * how many pages of a file are in the page cache, and checks the answer against the kernel's own
 * count, taken with mincore() just before and just after the question.
 *
 * It creates DIR/residency.data (--size bytes, by default 1 MiB and 1,000 bytes: the last page
 * is partly used, so a count that forgets it is caught), writes it, fdatasync()s it (dirty pages
 * cannot be dropped), and then, round after round:
 *   1. drops the file from the cache (posix_fadvise DONTNEED) and reads back a different share
 *      of its pages each round, one page per pread(), with readahead off (POSIX_FADV_RANDOM),
 *      the last page in every other round: a residency no fixed answer matches;
 *   2. counts the resident pages itself (mincore on its own mapping), sends the file's path on a
 *      new connection as one line, reads the reply line "RESIDENT PAGES", counts again;
 *   3. judges: PAGES must be the file's page count, and RESIDENT between the count after and
 *      the count before (the kernel may reclaim pages meanwhile, never add them: nothing else
 *      reads the file). A count after that is higher than before means the server read the
 *      file and so brought pages into the cache: it changed what it measured.
 * It prints, for the first few of each,
 *     wrong count: the server said 12 of 257 pages resident; the kernel counted 130 of 257
 *     cache changed: 130 pages resident before the question, 257 after: the server read the file
 * and counts each as an error. A right answer is one request. mincore() does not load pages and
 * an unused mapping holds none, so the client's own counts disturb nothing.
 *
 * On tmpfs the cache is the only copy of a file and every page is always resident: no count
 * could be told from "all of them", so the client refuses such a directory.
 *
 * Ends after --rounds N right answers, --seconds T, or SIGTERM/SIGINT; prints the summary line
 * (demo_summary_print) and "wrong counts: W, cache changed: C". Published figures: requests
 * (right answers), bytes (reply bytes), conns_opened, conns_closed, errors, latency (connect to
 * reply). The file is removed at the end.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define PROG           "residency-client"
#define SIZE_MAX_      (64ull << 20)
#define SHOWN          5 /* of each kind of failure, printed in full; the rest are only counted */
#define BACKOFF_MIN    10000000ull  /* 10 ms */
#define BACKOFF_MAX    200000000ull /* 200 ms */
#define ROUND_PAUSE_NS 20000000L    /* 20 ms: at most about 50 questions a second */

static struct sockaddr_in server;
static uint64_t port, rounds;
static struct demo_host host = {.name = "127.0.0.1"};
static const char *dir;
static uint64_t size = (1u << 20) + 1000;
static double seconds;

/* ---- the file and the kernel's count ---- */

static long page_size;
static size_t npages;

/* The resident pages of the file mapped at map, by the kernel's mincore(); -1 when it failed. */
static long judge_count(void *map, unsigned char *vec)
{
    if (mincore(map, (size_t)size, vec) < 0)
        return -1;
    long n = 0;
    for (size_t i = 0; i < npages; i++)
        n += vec[i] & 1;
    return n;
}

/* A small generator, so that each round's share of pages differs and no answer is fixed. */
static uint64_t judge_rng = 0x9e3779b97f4a7c15ull;
static uint32_t judge_rand(void)
{
    judge_rng ^= judge_rng << 13;
    judge_rng ^= judge_rng >> 7;
    judge_rng ^= judge_rng << 17;
    return (uint32_t)(judge_rng >> 32);
}

/* Drops the file's pages, then reads back a share of them, one page per pread(). */
static int judge_prepare(int fd, uint64_t round)
{
    int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (err)
        return -err;
    uint32_t share = 15 + judge_rand() % 70; /* percent of the pages read back */
    char c;
    for (size_t i = 0; i < npages; i++) {
        int last = i + 1 == npages;
        int want = last ? (int)(round % 2) : (int)(judge_rand() % 100 < share);
        if (want && pread(fd, &c, 1, (off_t)i * page_size) < 0)
            return -errno;
    }
    return 0;
}

/* ---- one question ---- */

/* Sends path on a new connection and reads the reply line into reply. Its length, or -errno. */
static int judge_ask(const char *path, char *reply, size_t cap)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    struct timeval tv = {.tv_sec = 10}; /* a server that never answers is a failed question */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char line[4200];
    int len = snprintf(line, sizeof line, "%s\n", path);
    int err = connect(fd, (struct sockaddr *)&server, sizeof server) < 0 ? -errno : 0;
    if (!err)
        err = demo_send_all(fd, line, (size_t)len);
    size_t got = 0;
    while (!err && got + 1 < cap && !memchr(reply, '\n', got)) {
        ssize_t n = recv(fd, reply + got, cap - 1 - got, 0);
        if (n < 0 && errno == EINTR && !demo_stop)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    if (err)
        return err;
    reply[got] = '\0';
    char *nl = strchr(reply, '\n');
    if (!nl)
        return got ? (int)got : -ECONNRESET;
    *nl = '\0';
    return (int)(nl - reply);
}

/* ---- options, the run and main ---- */

static const struct demo_opt opts[] = {
    DEMO_OPTS_CONNECT(&port, &host),
    DEMO_OPT_TEXT("dir", &dir, "DIR", "a directory on a disk filesystem (not tmpfs)",
                  .required = 1),
    DEMO_OPT_SIZE("size", &size, SIZE_MAX_, "BYTES",
                  "file size, K/M suffixes allowed (default 1049576: 1 MiB and 1,000 bytes)"),
    DEMO_OPT_U64("rounds", &rounds, 1, UINT64_MAX / 2, "N", "stop after N right answers",
                 .not_with = "seconds"),
    DEMO_OPT_SECONDS(&seconds),
    {0},
};

/* On tmpfs every page is always resident: refuse it, as page-cache does. */
static void check_dir(void)
{
    struct statfs fs;
    if (statfs(dir, &fs) < 0)
        demo_usage_error(PROG, "--dir '%s' cannot be used (%s)", dir, strerror(errno));
    if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC)
        demo_usage_error(PROG,
                         "--dir '%s' is in memory (tmpfs), where every page of a file is always "
                         "resident: no count could be judged; give a directory on a disk",
                         dir);
    demo_check_room(PROG, dir, size);
}

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host H] --dir DIR [--size BYTES] [--rounds N | --seconds T]",
    .about = "Reference side of the residency exercise: makes a share of DIR/residency.data\n"
             "resident, asks the server how many pages are, and checks the answer against\n"
             "mincore() taken before and after the question.\n",
    .opts = opts,
    .footer = "At the end it prints the summary line and:\n"
              "  wrong counts: W, cache changed: C\n",
    .check = check_dir,
};

/* Creates the file: a pattern, written and flushed so that its pages can be dropped. */
static int make_file(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    char block[4096];
    for (size_t i = 0; i < sizeof block; i++)
        block[i] = (char)('a' + i % 26);
    for (uint64_t left = size; left > 0;) {
        size_t n = left < sizeof block ? (size_t)left : sizeof block;
        int err = demo_write_all(fd, block, n);
        if (err < 0) {
            close(fd);
            return err;
        }
        left -= n;
    }
    int err = fdatasync(fd) < 0 ? errno : posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    if (err) {
        close(fd);
        return -err;
    }
    return fd;
}

static int run(void)
{
    demo_signals_init();
    page_size = sysconf(_SC_PAGESIZE);
    npages = (size_t)((size + (uint64_t)page_size - 1) / (uint64_t)page_size);
    char path[4096];
    snprintf(path, sizeof path, "%s/residency.data", dir);
    int fd = make_file(path);
    if (fd < 0) {
        fprintf(stderr, PROG ": cannot create %s: %s\n", path, strerror(-fd));
        return 1;
    }
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char *vec = malloc(npages);
    struct demo_hist hist;
    if (map == MAP_FAILED || !vec || demo_hist_init(&hist) < 0) {
        fprintf(stderr, PROG ": cannot map %s: %s\n", path, strerror(errno));
        return 1;
    }
    printf("asking about %s: %zu pages of %ld bytes\n", path, npages, page_size);
    fflush(stdout);

    struct iolab_app *app = iolab_app();
    uint64_t start = demo_now_ns(), backoff = BACKOFF_MIN;
    uint64_t deadline = seconds > 0 ? start + (uint64_t)(seconds * 1e9) : 0;
    uint64_t right = 0, wrong = 0, changed = 0, errors = 0, bytes = 0;
    for (uint64_t round = 0; !demo_stop && !(rounds && right >= rounds); round++) {
        if (deadline && demo_now_ns() >= deadline)
            break;
        if (round > 0) /* a pause between questions: each one drops and reads the file */
            nanosleep(&(struct timespec){.tv_nsec = ROUND_PAUSE_NS}, NULL);
        int err = judge_prepare(fd, round);
        long before = err ? -1 : judge_count(map, vec);
        if (err || before < 0) {
            fprintf(stderr, PROG ": cannot prepare the file: %s\n", strerror(err ? -err : errno));
            return 1;
        }
        char reply[128];
        uint64_t t0 = demo_now_ns();
        int len = judge_ask(path, reply, sizeof reply);
        uint64_t ns = demo_now_ns() - t0;
        long after = judge_count(map, vec);
        if (len < 0) { /* not there yet (a restart), or gone: retry after a backoff */
            errors++;
            if (app)
                iolab_add(&app->errors, 1);
            nanosleep(&(struct timespec){.tv_nsec = (long)backoff}, NULL);
            backoff = backoff * 2 < BACKOFF_MAX ? backoff * 2 : BACKOFF_MAX;
            continue;
        }
        backoff = BACKOFF_MIN;
        if (app) {
            iolab_add(&app->conns_opened, 1);
            iolab_add(&app->conns_closed, 1);
        }
        long said = -1, pages = -1;
        int fields = sscanf(reply, "%ld %ld", &said, &pages);
        if (after > before) {
            if (changed++ < SHOWN)
                fprintf(stderr,
                        "cache changed: %ld pages resident before the question, %ld after: the "
                        "server read the file\n",
                        before, after);
        } else if (fields != 2 || pages != (long)npages || said < after || said > before) {
            if (wrong++ < SHOWN)
                fprintf(stderr,
                        "wrong count: the server said \"%s\"; the kernel counted %ld of %zu pages "
                        "resident\n",
                        reply, before, npages);
        } else {
            right++;
            bytes += (uint64_t)len + 1;
            demo_hist_add(&hist, ns);
            if (app) {
                iolab_add(&app->requests, 1);
                iolab_add(&app->bytes, (uint64_t)len + 1);
                iolab_app_latency(app, ns);
            }
            continue;
        }
        errors++;
        if (app)
            iolab_add(&app->errors, 1);
    }
    struct demo_summary s = {.requests = right,
                             .seconds = (double)(demo_now_ns() - start) / 1e9,
                             .bytes = bytes,
                             .errors = errors,
                             .hist = &hist};
    demo_summary_print(&s, 0);
    printf("wrong counts: %" PRIu64 ", cache changed: %" PRIu64 "\n", wrong, changed);
    fflush(stdout);
    demo_hist_free(&hist);
    munmap(map, (size_t)size);
    free(vec);
    close(fd);
    unlink(path);
    return 0;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    server = demo_sockaddr(&host, port);
    return run();
}
