/*
 * read-sizes: reads a file from start to end in transfers of --size bytes, again and again, with
 * one of three interfaces chosen by --mode:
 *
 *   read           read(fd, buf, SIZE): one system call per transfer
 *   fread          fread(buf, 1, SIZE, fp) with stdio's own buffer: fread() copies out of that
 *                  buffer and calls read() only when it is empty (glibc's buffer is st_blksize,
 *                  4096 bytes here), so small transfers cost a memcpy, not a system call
 *   fread-setvbuf  the same after setvbuf(fp, OUR 64 KiB buffer, _IOFBF, 65536): the buffer
 *                  must be our own; setvbuf(fp, NULL, ...) does not enlarge glibc's
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

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
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

/* One open file, read through the interface of the mode. */
struct reader {
    int fd;      /* read mode */
    FILE *fp;    /* fread modes */
    char *vbuf;  /* fread-setvbuf: the buffer we hand to stdio */
    size_t size; /* bytes per transfer */
    char *buf;   /* where transfers land */
};

/* ---- the three ways to read: the subject of the lesson ---- */

/* Each returns the bytes of one transfer, 0 at the end of the file, or a negative errno. */
static ssize_t take_read(struct reader *r)
{
    ssize_t n;
    do
        n = read(r->fd, r->buf, r->size); /* always a system call */
    while (n < 0 && errno == EINTR && !demo_stop);
    return n < 0 ? -errno : n;
}

static ssize_t take_fread(struct reader *r)
{
    /* A copy out of stdio's buffer; read() only when the buffer runs dry (inside glibc). */
    size_t n = fread(r->buf, 1, r->size, r->fp);
    if (n == 0 && ferror(r->fp))
        return -EIO;
    return (ssize_t)n;
}

static void rewind_fd(struct reader *r)
{
    lseek(r->fd, 0, SEEK_SET);
}

static void rewind_fp(struct reader *r)
{
    rewind(r->fp); /* also clears end-of-file and drops what the buffer held */
}

static int open_fd(struct reader *r, const char *path)
{
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    return r->fd < 0 ? -errno : 0;
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
    const char *name;
    int (*open)(struct reader *r, const char *path);
    ssize_t (*take)(struct reader *r);
    void (*rewind)(struct reader *r);
};

static const struct read_mode read_modes[] = {
    {.name = "read", .open = open_fd, .take = take_read, .rewind = rewind_fd},
    {.name = "fread", .open = open_fp, .take = take_fread, .rewind = rewind_fp},
    {.name = "fread-setvbuf", .open = open_fp_setvbuf, .take = take_fread, .rewind = rewind_fp},
};

#define NMODES (sizeof read_modes / sizeof read_modes[0])

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
           prefix, m->name, size, t->transfers ? (double)t->ns / (double)t->transfers : 0.0,
           secs > 0 ? (double)t->bytes / 1e6 / secs : 0.0, t->syscr, t->transfers, t->bytes, secs);
    fflush(stdout);
}

static void tally_add(struct tally *to, const struct tally *t)
{
    to->transfers += t->transfers, to->bytes += t->bytes, to->ns += t->ns, to->syscr += t->syscr;
}

static void usage(void)
{
    printf("usage: " PROG " --file FILE --size BYTES --mode read|fread|fread-setvbuf\n"
           "                  [--total BYTES] [--rounds N | --seconds T]\n"
           "\n"
           "Reads FILE in transfers of BYTES, start to end, again and again, and prints the\n"
           "time per transfer, MB/s and the kernel's count of read calls about once a second.\n"
           "  --mode M        read           read() per transfer: a system call each time\n"
           "                  fread          fread() with stdio's default buffer (st_blksize)\n"
           "                  fread-setvbuf  fread() after setvbuf() with our own 64 KiB buffer\n"
           "  --size BYTES    bytes per transfer, 1 to 67108864 (the lesson uses 8 to 65536)\n"
           "  --total BYTES   bytes per round (default: the file's size)\n"
           "  --rounds N      stop after N rounds; --seconds T: after T seconds\n"
           "  --check         print a position-weighted sum of the rounds' bytes at the end\n"
           "Without a limit it reads until SIGTERM or SIGINT, then prints the total, status 0.\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"file", required_argument, NULL, 'f'},
        {"size", required_argument, NULL, 's'},
        {"mode", required_argument, NULL, 'm'},
        {"total", required_argument, NULL, 'T'},
        {"rounds", required_argument, NULL, 'r'},
        {"seconds", required_argument, NULL, 'S'},
        {"check", no_argument, NULL, 'c'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    const struct read_mode *mode = NULL;
    const char *path = NULL;
    uint64_t size = 0, total_per_round = 0, rounds = 0;
    double seconds = 0;
    int opt, check = 0;
    opterr = 0;
    while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (opt) {
        case 'f':
            path = optarg;
            break;
        case 's':
            size = demo_parse_u64(PROG, "--size", optarg, 1, TRANSFER_MAX);
            break;
        case 'm':
            for (size_t i = 0; i < NMODES; i++)
                if (strcmp(read_modes[i].name, optarg) == 0)
                    mode = &read_modes[i];
            if (!mode)
                demo_usage_error(PROG, "--mode must be read, fread or fread-setvbuf, not '%s'",
                                 optarg);
            break;
        case 'T':
            total_per_round = demo_parse_u64(PROG, "--total", optarg, 1, UINT64_MAX / 2);
            break;
        case 'r':
            rounds = demo_parse_u64(PROG, "--rounds", optarg, 1, UINT64_MAX);
            break;
        case 'S':
            seconds = demo_parse_seconds(PROG, "--seconds", optarg);
            break;
        case 'c':
            check = 1;
            break;
        case 'h':
            usage();
            return 0;
        default:
            demo_usage_error(PROG, "unknown option or missing value in '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        demo_usage_error(PROG, "unexpected argument '%s'", argv[optind]);
    if (!path)
        demo_usage_error(PROG, "--file is required");
    if (!size)
        demo_usage_error(PROG, "--size is required");
    if (!mode)
        demo_usage_error(PROG, "--mode is required");
    struct stat st;
    if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        demo_usage_error(PROG, "--file '%s' must be a non-empty regular file we can read", path);
    if (!total_per_round)
        total_per_round = (uint64_t)st.st_size;

    demo_signals_init();
    struct reader r = {.fd = -1, .size = size, .buf = malloc(size)};
    int status = 1, err = r.buf ? mode->open(&r, path) : -ENOMEM;
    int iofd = open("/proc/self/io", O_RDONLY | O_CLOEXEC);
    if (err) {
        fprintf(stderr, PROG ": cannot open %s for %s: %s\n", path, mode->name, strerror(-err));
        goto out;
    }
    printf("reading %s (%lld bytes) in %llu-byte transfers with %s", path, (long long)st.st_size,
           (unsigned long long)size, mode->name);
    if (r.fp)
        printf(", stdio buffer %d bytes", r.vbuf ? SETVBUF_SIZE : (int)st.st_blksize);
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
                fprintf(stderr, PROG ": %s failed: %s\n", mode->name, strerror((int)-n));
                status = 1;
                goto summary;
            }
            if (n == 0) {
                mode->rewind(&r); /* end of the file: start over */
                continue;
            }
            if (check)
                round_sum += check_sum(r.buf, (size_t)n, got);
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
    if (iofd >= 0)
        close(iofd);
    if (r.fp)
        fclose(r.fp);
    if (r.fd >= 0)
        close(r.fd);
    free(r.vbuf);
    free(r.buf);
    return status;
}
