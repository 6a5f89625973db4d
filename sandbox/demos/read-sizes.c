/*
 * read-sizes: reads a file from start to end in transfers of --size bytes, again and again, with
 * one of four interfaces chosen by --mode:
 *
 *   read           read(fd, buf, SIZE): one system call per transfer
 *   fread          fread(buf, 1, SIZE, fp) with stdio's own buffer: fread() copies out of that
 *                  buffer and calls read() only when it is empty (glibc's buffer is st_blksize,
 *                  4096 bytes here), so small transfers cost a memcpy, not a system call
 *   fread-setvbuf  the same after setvbuf(fp, OUR 64 KiB buffer, _IOFBF, 65536): the buffer
 *                  must be our own; setvbuf(fp, NULL, ...) does not enlarge glibc's
 *   aio            POSIX asynchronous I/O: aio_read() asks for a transfer and returns at once,
 *                  aio_suspend() waits until it is done, aio_return() gives its result; we keep
 *                  AIO_DEPTH requests in flight so the next ones are read while we take one
 *
 * What glibc's POSIX AIO really is: no kernel interface at all. aio_read() queues the request
 * in user space and hands it to a helper thread that glibc creates (and ends after a second
 * idle); that thread does an ordinary pread(), then wakes the waiter in aio_suspend() through
 * a futex. Requests on one descriptor run one after another on one helper thread, so a single
 * file gains no parallel reads, only overlap of our work with the next read. Every transfer
 * pays a queue lock, a thread wake-up and a wake-up back, microseconds that dwarf an 8-byte
 * copy but vanish beside a 64 KiB one. The helper's pread() and its thread are made inside
 * glibc, so the counting shim sees neither; the kernel's syscr counts every pread() (one per
 * transfer, as in read mode), because /proc/self/io sums all the threads of the process.
 *
 * The point to watch: the read() calls that fread() makes happen inside glibc, so a counter of
 * the program's own calls (iolab's shim) sees none of them in the fread modes, while the
 * kernel's count of read system calls (/proc/PID/io syscr) sees every one. This program prints
 * that kernel count too (syscr=, read from /proc/self/io with one pread() per report, which
 * adds that one call to it).
 *
 * A round reads --total bytes (default: the file's size), rewinding at the end of the file.
 * About once a second, and once more at the end ("total:"), it prints
 *   mode=M size=N ns_per_transfer=X mb_per_s=R syscr=N transfers=N bytes=N seconds=S
 * (MB = 10^6 bytes, as in the table this lesson comes from). Published figures: requests
 * (rounds), bytes (published every 64 KiB read, so rates move while a round runs), per-round
 * latency. With --check it also prints "check: rounds=N sum=HEX", a position-weighted sum of
 * the bytes of the completed rounds, so a test can tell that every mode read the right bytes.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <aio.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG          "read-sizes"
#define TRANSFER_MAX  (64u << 20)
#define SETVBUF_SIZE  65536
#define PUBLISH_BYTES 65536 /* publish bytes in steps this size: live rates, cheap */

/*
 * aio: requests in flight. One is only a slow read(): we would wait for each request as soon as
 * we made it. A few let the helper thread go straight on to the next request while we take the
 * last one; more than a few buys nothing, since glibc serves one descriptor's requests one at a
 * time anyway.
 */
#define AIO_DEPTH 4

/* One open file, read through the interface of the mode. */
struct reader {
    int fd;            /* read mode */
    FILE *fp;          /* fread modes */
    char *vbuf;        /* fread-setvbuf: the buffer we hand to stdio */
    size_t size;       /* bytes per transfer */
    char *buf;         /* where transfers land (read and fread modes) */
    const char *data;  /* where the last transfer's bytes are: buf, or an aio request's buffer */
    struct aiocb *aio; /* aio: AIO_DEPTH requests, used as a ring */
    char *aiobuf;      /* aio: AIO_DEPTH buffers of size bytes, one per request */
    unsigned aio_head; /* aio: the oldest request in flight, the next one we take */
    unsigned aio_busy; /* aio: requests in flight */
    off_t aio_next;    /* aio: file offset of the next request to make */
    off_t aio_end;     /* aio: the file's size; no request starts at or past it */
};

/* ---- the four ways to read: the subject of the lesson ---- */

/* Each returns the bytes of one transfer, 0 at the end of the file, or a negative errno. */
static ssize_t take_read(struct reader *r)
{
    ssize_t n;
    do
        n = read(r->fd, r->buf, r->size); /* always a system call */
    while (n < 0 && errno == EINTR && !demo_stop);
    r->data = r->buf;
    return n < 0 ? -errno : n;
}

static ssize_t take_fread(struct reader *r)
{
    /* A copy out of stdio's buffer; read() only when the buffer runs dry (inside glibc). */
    size_t n = fread(r->buf, 1, r->size, r->fp);
    if (n == 0 && ferror(r->fp))
        return -EIO;
    r->data = r->buf;
    return (ssize_t)n;
}

/* Queues requests until AIO_DEPTH are in flight or the next would start past the end. */
static int aio_fill(struct reader *r)
{
    while (r->aio_busy < AIO_DEPTH && r->aio_next < r->aio_end) {
        struct aiocb *cb = &r->aio[(r->aio_head + r->aio_busy) % AIO_DEPTH];
        cb->aio_offset = r->aio_next;
        /* Returns at once: glibc queues the request for its helper thread. */
        if (aio_read(cb) < 0)
            return -errno;
        r->aio_next += (off_t)r->size;
        r->aio_busy++;
    }
    return 0;
}

/* Waits for the oldest request in flight and returns its result (bytes or a negative errno). */
static ssize_t aio_take_oldest(struct reader *r)
{
    struct aiocb *cb = &r->aio[r->aio_head];
    const struct aiocb *wait[1] = {cb};
    /* Waits even after SIGTERM (EINTR): the helper thread is still writing into our buffer,
       and a cached read finishes in microseconds. */
    while (aio_error(cb) == EINPROGRESS)
        if (aio_suspend(wait, 1, NULL) < 0 && errno != EINTR)
            return -errno;
    ssize_t n = aio_return(cb);
    int err = n < 0 ? -aio_error(cb) : 0;
    r->data = (const char *)cb->aio_buf;
    r->aio_head = (r->aio_head + 1) % AIO_DEPTH;
    r->aio_busy--;
    return err ? err : n;
}

static ssize_t take_aio(struct reader *r)
{
    /* The request taken last time is done with now: its slot can take a new one. So the helper
       thread has AIO_DEPTH - 1 requests to go on with while we use a transfer. */
    int err = aio_fill(r);
    if (err)
        return err;
    if (!r->aio_busy)
        return 0; /* every request up to the end is taken: the end of the file */
    /* Taking the oldest first keeps the transfers in file order, as read() returns them. */
    return aio_take_oldest(r);
}

static void rewind_fd(struct reader *r)
{
    lseek(r->fd, 0, SEEK_SET);
}

static void rewind_fp(struct reader *r)
{
    rewind(r->fp); /* also clears end-of-file and drops what the buffer held */
}

static void rewind_aio(struct reader *r)
{
    /* Requests still in flight (a round shorter than the file) are waited for and dropped:
       their buffers are about to be reused. */
    while (r->aio_busy)
        aio_take_oldest(r);
    r->aio_next = 0;
}

static int open_fd(struct reader *r, const char *path)
{
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    return r->fd < 0 ? -errno : 0;
}

static int open_aio(struct reader *r, const char *path)
{
    int err = open_fd(r, path);
    if (err)
        return err;
    struct stat st;
    if (fstat(r->fd, &st) < 0)
        return -errno;
    r->aio_end = st.st_size;
    r->aio = calloc(AIO_DEPTH, sizeof *r->aio);
    r->aiobuf = malloc(AIO_DEPTH * r->size);
    if (!r->aio || !r->aiobuf)
        return -ENOMEM;
    for (unsigned i = 0; i < AIO_DEPTH; i++) {
        r->aio[i].aio_fildes = r->fd;
        r->aio[i].aio_buf = r->aiobuf + i * r->size;
        r->aio[i].aio_nbytes = r->size;
        r->aio[i].aio_sigevent.sigev_notify = SIGEV_NONE; /* we ask with aio_suspend() */
    }
    return 0;
}

static int open_fp(struct reader *r, const char *path)
{
    r->fp = fopen(path, "re");
    return r->fp ? 0 : -errno;
}

static int open_fp_setvbuf(struct reader *r, const char *path)
{
    int err = open_fp(r, path);
    if (err)
        return err;
    /* Our buffer: with NULL, glibc 2.36 would keep its st_blksize one whatever size we ask. */
    r->vbuf = malloc(SETVBUF_SIZE);
    if (!r->vbuf)
        return -ENOMEM;
    return setvbuf(r->fp, r->vbuf, _IOFBF, SETVBUF_SIZE) == 0 ? 0 : -EINVAL;
}

struct read_mode {
    struct demo_mode cli; /* name and help */
    int (*open)(struct reader *r, const char *path);
    ssize_t (*take)(struct reader *r);
    void (*rewind)(struct reader *r);
};

static const struct read_mode read_modes[] = {
    {.cli = {"read", "read() per transfer: a system call each time"},
     .open = open_fd,
     .take = take_read,
     .rewind = rewind_fd},
    {.cli = {"fread", "fread() with stdio's default buffer (st_blksize)"},
     .open = open_fp,
     .take = take_fread,
     .rewind = rewind_fp},
    {.cli = {"fread-setvbuf", "fread() after setvbuf() with our own 64 KiB buffer"},
     .open = open_fp_setvbuf,
     .take = take_fread,
     .rewind = rewind_fp},
    {.cli = {"aio", "aio_read() + aio_suspend(), 4 requests in flight"},
     .open = open_aio,
     .take = take_aio,
     .rewind = rewind_aio},
};
/* ---- checking, the kernel's count, reporting and the loop ---- */

/*
 * --check: a position-weighted sum of the bytes of a round (byte value times its position + 1,
 * mod 2^64), so that a missing, repeated or misplaced block changes it. Off by default: it
 * costs more than an 8-byte fread.
 */
static uint64_t check_sum(const char *buf, size_t n, uint64_t pos)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (uint64_t)(unsigned char)buf[i] * (pos + i + 1);
    return sum;
}

/* syscr from /proc/self/io (kept open): read system calls as the kernel counted them; 0 if
 * unavailable. */
static uint64_t kernel_syscr(int iofd)
{
    char text[512];
    ssize_t n = iofd >= 0 ? pread(iofd, text, sizeof text - 1, 0) : -1;
    if (n <= 0)
        return 0;
    text[n] = '\0';
    const char *at = strstr(text, "syscr: ");
    return at ? strtoull(at + 7, NULL, 10) : 0;
}

struct tally {
    uint64_t transfers, bytes, ns, syscr;
};

static void tally_print(const char *prefix, const struct read_mode *m, size_t size,
                        const struct tally *t)
{
    double secs = (double)t->ns / 1e9;
    /* The figures to compare come first: a narrow pane cuts the end of the line. */
    printf("%smode=%s size=%zu ns_per_transfer=%.1f mb_per_s=%.1f syscr=%" PRIu64
           " transfers=%" PRIu64 " bytes=%" PRIu64 " seconds=%.3f\n",
           prefix, m->cli.name, size, t->transfers ? (double)t->ns / (double)t->transfers : 0.0,
           secs > 0 ? (double)t->bytes / 1e6 / secs : 0.0, t->syscr, t->transfers, t->bytes, secs);
    fflush(stdout);
}

static void tally_add(struct tally *to, const struct tally *t)
{
    to->transfers += t->transfers, to->bytes += t->bytes, to->ns += t->ns, to->syscr += t->syscr;
}

/* ---- options, the run and main ---- */

static const char *path; /* --file */
static uint64_t size, total_per_round, rounds;
static double seconds;
static int check;      /* --check */
static struct stat st; /* --file's */

static const struct demo_opt opts[] = {
    DEMO_OPT_TEXT("file", &path, "FILE", "the file to read, start to end", .required = 1),
    DEMO_OPT_U64("size", &size, 1, TRANSFER_MAX, "BYTES",
                 "bytes per transfer, 1 to 67108864 (the lesson uses 8 to 65536)", .required = 1),
    DEMO_OPT_MODE,
    DEMO_OPT_U64("total", &total_per_round, 1, UINT64_MAX / 2, "BYTES",
                 "bytes per round (default: the file's size)"),
    DEMO_OPT_U64("rounds", &rounds, 1, UINT64_MAX, "N", "stop after N rounds"),
    DEMO_OPT_SECONDS(&seconds),
    DEMO_OPT_FLAG("check", &check, "print a position-weighted sum of the rounds' bytes at the end"),
    {0},
};

/* The file is read again and again, so it must have something in it; a round is all of it
 * unless --total says otherwise. */
static void check_file(void)
{
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        demo_usage_error(PROG, "--file '%s' must be a non-empty regular file we can read", path);
    if (!total_per_round)
        total_per_round = (uint64_t)st.st_size;
}

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--file FILE --size BYTES --mode read|fread|fread-setvbuf|aio\n"
             "                  [--total BYTES] [--rounds N | --seconds T] [--check]",
    .about = "Reads FILE in transfers of BYTES, start to end, again and again, and prints the\n"
             "time per transfer, MB/s and the kernel's count of read calls about once a second.\n",
    .opts = opts,
    DEMO_MODES(read_modes),
    .footer =
        "Without a limit it reads until SIGTERM or SIGINT, then prints the total, status 0.\n",
    .check = check_file,
};

/* Opens the file the mode's way and reads rounds of it until a limit or SIGTERM. */
static int run(const struct read_mode *mode)
{
    demo_signals_init();
    struct reader r = {.fd = -1, .size = size, .buf = malloc(size)};
    int status = 1, err = r.buf ? mode->open(&r, path) : -ENOMEM;
    int iofd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
    if (err) {
        fprintf(stderr, PROG ": cannot open %s for %s: %s\n", path, mode->cli.name, strerror(-err));
        goto out;
    }
    printf("reading %s (%lld bytes) in %llu-byte transfers with %s", path, (long long)st.st_size,
           (unsigned long long)size, mode->cli.name);
    if (r.fp)
        printf(", stdio buffer %d bytes", r.vbuf ? SETVBUF_SIZE : (int)st.st_blksize);
    if (r.aio)
        printf(", %d requests in flight", AIO_DEPTH);
    printf("\n");
    fflush(stdout);

    struct iolab_app *app = iolab_app();
    struct tally total = {0}, period = {0};
    uint64_t start = demo_now_ns(), period_start = start, done_rounds = 0, sum = 0;
    /* --seconds is checked inside a round too: 16 MiB in 8-byte read()s takes seconds. */
    uint64_t deadline = seconds > 0 ? start + (uint64_t)(seconds * 1e9) : UINT64_MAX;
    uint64_t syscr = kernel_syscr(iofd);
    status = 0;
    while (!demo_stop && (!rounds || done_rounds < rounds) && demo_now_ns() < deadline) {
        /* One round: total_per_round bytes, from the start of the file, in SIZE transfers. */
        mode->rewind(&r);
        uint64_t round_sum = 0, got = 0, unpublished = 0, t0 = demo_now_ns(), t = t0,
                 round_start = t0;
        while (got < total_per_round && !demo_stop) {
            ssize_t n = mode->take(&r);
            if (n < 0) {
                fprintf(stderr, PROG ": %s failed: %s\n", mode->cli.name, strerror((int)-n));
                status = 1;
                goto summary;
            }
            if (n == 0) {
                mode->rewind(&r); /* end of the file: start over */
                continue;
            }
            if (check)
                round_sum += check_sum(r.data, (size_t)n, got);
            got += (uint64_t)n;
            period.transfers++;
            unpublished += (uint64_t)n;
            if (unpublished >= PUBLISH_BYTES) {
                if (app)
                    iolab_add(&app->bytes, unpublished);
                period.bytes += unpublished;
                unpublished = 0;
                /* Time is read here, not per transfer: a clock read costs more than fread(8). */
                t = demo_now_ns();
                if (t - period_start >= 1000000000u) {
                    period.ns += t - t0;
                    t0 = t;
                    uint64_t k = kernel_syscr(iofd);
                    period.syscr = k - syscr;
                    syscr = k;
                    tally_print("", mode, size, &period);
                    tally_add(&total, &period);
                    period = (struct tally){0};
                    period_start = t;
                }
                if (t >= deadline)
                    break; /* an unfinished round: its bytes count, the round does not */
            }
        }
        t = demo_now_ns();
        period.ns += t - t0;
        period.bytes += unpublished;
        if (app)
            iolab_add(&app->bytes, unpublished);
        if (got >= total_per_round) {
            done_rounds++;
            sum += round_sum;
            if (app) {
                iolab_add(&app->requests, 1);
                iolab_app_latency(app, t - round_start);
            }
        }
    }
summary:
    period.syscr = kernel_syscr(iofd) - syscr;
    tally_add(&total, &period);
    tally_print("total: ", mode, size, &total);
    if (check)
        printf("check: rounds=%" PRIu64 " sum=%016" PRIx64 "\n", done_rounds, sum);
out:
    if (r.aio)
        rewind_aio(&r); /* no helper thread may still write into what we free below */
    if (iofd >= 0)
        close(iofd);
    if (r.fp)
        fclose(r.fp);
    if (r.fd >= 0)
        close(r.fd);
    free(r.vbuf);
    free(r.aio);
    free(r.aiobuf);
    free(r.buf);
    return status;
}

int main(int argc, char **argv)
{
    return run(demo_cli_parse(&cli, argc, argv));
}
