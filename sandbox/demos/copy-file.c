/*
 * copy-file: copies one file again and again, into memory (a memfd, the default) or into another
 * file, with the method chosen by --mode:
 *
 *   read-write       read() BUFFER bytes into our memory, write() them out, repeat: every byte
 *                    crosses into the process and back, two calls per buffer (GNU cp: 128 KiB)
 *   sendfile         sendfile(): the kernel copies file to file itself; one call for the lot
 *   splice           splice() the file into a pipe and the pipe into the target: the pipe (its
 *                    size is BUFFER) holds references to page-cache pages, not copies
 *   copy-file-range  copy_file_range(): "copy this range of that file here", one call; works
 *                    only within one filesystem, so into a memfd it fails with EXDEV: the
 *                    program says why once, then retries once a second (errors= counts them)
 *   mmap             mmap() the source and write() the mapping: three calls, but every page of
 *                    the source is faulted into our address space (see faults= in the output)
 *
 * Every write-like call may move fewer bytes than asked (a short write), so each is looped until
 * the whole file is copied. The target is reused from copy to copy: after the first copy its
 * pages exist, so what is timed is the copy itself, not the allocation of fresh memory (a fresh
 * memfd costs about the same for every method, see FACTS.md).
 *
 * The program creates its source file (DIR/copy-file.src, --size bytes of a fixed pattern) and,
 * with --to file, its target DIR/copy-file.dst, and removes both when it ends. About once a
 * second, and once more at the end ("total:"), it prints
 *   mode=M mib_per_s=R calls_per_copy=N faults=N errors=N buffer=B copies=N bytes=N seconds=S
 *   calls=N
 * where seconds is time spent copying, calls the copy calls it made (read, write, sendfile,
 * splice, copy_file_range, mmap, munmap; not the lseek() that rewinds between copies) and faults
 * the page faults taken (getrusage). Published figures: requests (copies), bytes, per-copy
 * latency, errors (failed copies). Exit status: 0, or 1 when a copy failed (unless SIGTERM or
 * SIGINT ended the run), 2 for a bad argument.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG "copy-file"
#define SIZE_MAX_                                                                                  \
    (1ull << 30) /* 1 GiB: enough to see every effect, never enough to fill a disk                 \
                  */
#define BUFFER_MAX (64u << 20)

/* What one copy needs; calls counts the copy calls made so far. */
struct copy_job {
    int src, dst;   /* source file and target (memfd or file), both rewound before each copy */
    uint64_t size;  /* bytes per copy */
    size_t buffer;  /* read-write: read() size; splice: pipe size */
    char *buf;      /* read-write's buffer */
    int pipe[2];    /* splice's pipe */
    uint64_t calls; /* copy calls made */
};

/* A call interrupted by SIGTERM is retried unless we are stopping. */
#define RETRY(n) ((n) < 0 && errno == EINTR && !demo_stop)

/* ---- the five methods: the subject of the lesson ---- */

static int copy_read_write(struct copy_job *j)
{
    for (;;) {
        ssize_t n = read(j->src, j->buf, j->buffer);
        j->calls++;
        if (RETRY(n))
            continue;
        if (n < 0)
            return -errno;
        if (n == 0)
            return 0; /* end of file: the copy is complete */
        for (ssize_t done = 0; done < n;) {
            /* write() may write less than asked; the rest must be written again. */
            ssize_t w = write(j->dst, j->buf + done, (size_t)(n - done));
            j->calls++;
            if (RETRY(w))
                continue;
            if (w < 0)
                return -errno;
            done += w;
        }
    }
}

static int copy_sendfile(struct copy_job *j)
{
    off_t off = 0;
    while ((uint64_t)off < j->size) {
        /* Ask for all that is left; the kernel advances off by what it copied. */
        ssize_t n = sendfile(j->dst, j->src, &off, j->size - (uint64_t)off);
        j->calls++;
        if (RETRY(n))
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO; /* 0: the source shrank under us */
    }
    return 0;
}

static int copy_splice(struct copy_job *j)
{
    off_t in = 0, out = 0;
    while ((uint64_t)in < j->size) {
        /* File -> pipe: the pipe takes references to page-cache pages, up to its size. */
        ssize_t n = splice(j->src, &in, j->pipe[1], NULL, j->buffer, SPLICE_F_MOVE);
        j->calls++;
        if (RETRY(n))
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
        while (n > 0) {
            /* Pipe -> target, looped: it too may move less than the pipe holds. */
            ssize_t m = splice(j->pipe[0], NULL, j->dst, &out, (size_t)n, SPLICE_F_MOVE);
            j->calls++;
            if (RETRY(m))
                continue;
            if (m <= 0)
                return m < 0 ? -errno : -EIO;
            n -= m;
        }
    }
    return 0;
}

static int copy_copy_file_range(struct copy_job *j)
{
    off_t in = 0, out = 0;
    while ((uint64_t)in < j->size) {
        ssize_t n = copy_file_range(j->src, &in, j->dst, &out, j->size - (uint64_t)in, 0);
        j->calls++;
        if (RETRY(n))
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO; /* EXDEV: not the same filesystem (main says why) */
    }
    return 0;
}

static int copy_mmap(struct copy_job *j)
{
    /* No read(): the source's page-cache pages are mapped into our address space... */
    char *map = mmap(NULL, j->size, PROT_READ, MAP_SHARED, j->src, 0);
    j->calls++;
    if (map == MAP_FAILED)
        return -errno;
    int err = 0;
    for (uint64_t done = 0; done < j->size;) {
        /* ...and write() copies from them, faulting each page in as it goes. */
        ssize_t w = write(j->dst, map + done, j->size - done);
        j->calls++;
        if (RETRY(w))
            continue;
        if (w < 0) {
            err = -errno;
            break;
        }
        done += (uint64_t)w;
    }
    munmap(map, j->size);
    j->calls++;
    return err;
}

/* ---- what each method needs before its first copy ---- */

/* read-write: the buffer it reads into. */
static int setup_buffer(struct copy_job *j)
{
    if ((j->buf = malloc(j->buffer)) != NULL)
        return 0;
    fprintf(stderr, PROG ": no memory for a %zu-byte buffer\n", j->buffer);
    return -ENOMEM;
}

/* splice: the pipe in the middle. */
static int setup_pipe(struct copy_job *j)
{
    if (pipe2(j->pipe, O_CLOEXEC) < 0) {
        perror(PROG ": pipe2");
        return -errno;
    }
    /* The pipe's size is the most one splice() can move; without privilege at most
     * /proc/sys/fs/pipe-max-size (1 MiB by default). Report what we really got. */
    int got = fcntl(j->pipe[1], F_SETPIPE_SZ, (int)j->buffer);
    if (got < 0)
        got = fcntl(j->pipe[1], F_GETPIPE_SZ);
    j->buffer = (size_t)got;
    return 0;
}

enum copy_target { TO_MEMFD, TO_FILE };

struct copy_mode {
    struct demo_mode cli; /* name and help */
    int (*copy)(struct copy_job *j);
    int (*setup)(struct copy_job *j); /* what it needs first, or NULL */
    size_t buffer;                    /* default --buffer, 0: not used */
    enum copy_target target;          /* default --to */
};

static const struct copy_mode copy_modes[] = {
    {.cli = {"read-write", "read() into a buffer, write() it out, in a loop"},
     .copy = copy_read_write,
     .setup = setup_buffer,
     .buffer = 128 << 10,
     .target = TO_MEMFD},
    {.cli = {"sendfile", "sendfile(): the kernel copies, one call"},
     .copy = copy_sendfile,
     .target = TO_MEMFD},
    {.cli = {"splice", "splice() through a pipe of BUFFER bytes"},
     .copy = copy_splice,
     .setup = setup_pipe,
     .buffer = 1 << 20,
     .target = TO_MEMFD},
    /* Into a memfd it can only fail (see the top); a file next to the source is its own case. */
    {.cli = {"copy-file-range", "copy_file_range(); same filesystem only"},
     .copy = copy_copy_file_range,
     .target = TO_FILE},
    {.cli = {"mmap", "mmap() the source, write() the mapping"},
     .copy = copy_mmap,
     .target = TO_MEMFD},
};

/* ---- set-up, reporting and the loop ---- */

/*
 * Creates DIR/copy-file.src holding size bytes of a fixed pattern. A descriptor or -errno.
 * It is filled through a mapping, not with write(), so that the only write() calls the counters
 * see are the copies' own (one mmap and one munmap at start-up are all this adds).
 */
static int make_source(const char *path, uint64_t size)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    /* Reserve the blocks first: a store into a mapping of a full disk would be a SIGBUS. */
    int err = -posix_fallocate(fd, 0, (off_t)size);
    unsigned char *map = err ? MAP_FAILED : mmap(NULL, size, PROT_WRITE, MAP_SHARED, fd, 0);
    if (!err && map == MAP_FAILED)
        err = -errno;
    if (err) {
        close(fd);
        return err;
    }
    for (uint64_t at = 0; at < size; at++) /* no short period: a misplaced block shows */
        map[at] = (unsigned char)((at * 2654435761u) >> 24 ^ at >> 12);
    munmap(map, size);
    return fd;
}

struct tally {
    uint64_t copies, bytes, ns, calls, errors;
    long faults;
};

static void tally_add(struct tally *to, const struct tally *t)
{
    to->copies += t->copies, to->bytes += t->bytes, to->ns += t->ns, to->calls += t->calls;
    to->errors += t->errors, to->faults += t->faults;
}

static long faults_now(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_minflt + ru.ru_majflt;
}

static void tally_print(const char *prefix, const struct copy_mode *m, size_t buffer,
                        const struct tally *t)
{
    double secs = (double)t->ns / 1e9;
    /* The figures to compare come first: a narrow pane cuts the end of the line. */
    printf("%smode=%s mib_per_s=%.0f calls_per_copy=%llu faults=%ld errors=%llu buffer=%zu "
           "copies=%llu bytes=%llu seconds=%.3f calls=%llu\n",
           prefix, m->cli.name, secs > 0 ? (double)t->bytes / 1048576.0 / secs : 0.0,
           (unsigned long long)(t->copies ? t->calls / t->copies : 0), t->faults,
           (unsigned long long)t->errors, buffer, (unsigned long long)t->copies,
           (unsigned long long)t->bytes, secs, (unsigned long long)t->calls);
    fflush(stdout);
}

/* ---- options, the run and main ---- */

static const char *dir, *to; /* --dir, --to */
static uint64_t size = 64 << 20, buffer, rounds;
static double seconds;

/* --to names a kind of target: a memfd or a file. */
static void check_to(void)
{
    if (strcmp(to, "memfd") != 0 && strcmp(to, "file") != 0)
        demo_usage_error(PROG, "--to must be memfd or file, not '%s'", to);
}

static const struct demo_opt opts[] = {
    DEMO_OPT_TEXT("dir", &dir, "DIR",
                  "where the source (and a file target) are created and removed", .required = 1),
    DEMO_OPT_MODE,
    DEMO_OPT_SIZE("size", &size, SIZE_MAX_, "BYTES",
                  "bytes per copy, K/M/G suffixes allowed (default 64M, at most 1G)"),
    DEMO_OPT_SIZE("buffer", &buffer, BUFFER_MAX, "BYTES",
                  "read() size for read-write (default 128K, as GNU cp),\n"
                  "pipe size for splice (default 1M)"),
    DEMO_OPT_TEXT("to", &to, "memfd|file",
                  "copy into a memfd (default) or into DIR/copy-file.dst\n"
                  "(the default for copy-file-range, which fails into a memfd)",
                  .after = check_to),
    DEMO_OPT_U64("rounds", &rounds, 1, UINT64_MAX, "N", "stop after N copies"),
    DEMO_OPT_SECONDS(&seconds),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--dir DIR --mode MODE [--size BYTES] [--buffer BYTES] [--to memfd|file]\n"
             "                 [--rounds N | --seconds T]",
    .about = "Creates DIR/copy-file.src and copies it again and again with one method, printing\n"
             "MiB/s and the calls each copy took about once a second and at the end.\n",
    .opts = opts,
    DEMO_MODES(copy_modes),
    .footer =
        "Without a limit it copies until SIGTERM or SIGINT, then prints the total, status 0.\n",
};

/* Creates the source and the target, copies until a limit or SIGTERM, removes the files. */
static int run(const struct copy_mode *mode, enum copy_target target)
{
    struct copy_job job = {.src = -1,
                           .dst = -1,
                           .size = size,
                           .pipe = {-1, -1},
                           .buffer = buffer ? buffer : mode->buffer};
    demo_signals_init();
    char src_path[4096], dst_path[4096];
    snprintf(src_path, sizeof src_path, "%s/copy-file.src", dir);
    snprintf(dst_path, sizeof dst_path, "%s/copy-file.dst", dir);
    int status = 1;
    struct tally total = {0}, period = {0};
    job.src = make_source(src_path, size);
    if (job.src < 0) {
        fprintf(stderr, PROG ": cannot create %s: %s\n", src_path, strerror(-job.src));
        goto out;
    }
    if (target == TO_MEMFD)
        job.dst = memfd_create("copy-file-target", MFD_CLOEXEC);
    else
        job.dst = open(dst_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (job.dst < 0) {
        fprintf(stderr, PROG ": cannot create the target: %s\n", strerror(errno));
        goto out;
    }
    if (mode->setup && mode->setup(&job) < 0)
        goto out;
    printf("copying %s (%llu bytes) into %s with %s\n", src_path, (unsigned long long)size,
           target == TO_MEMFD ? "a memfd" : dst_path, mode->cli.name);
    fflush(stdout);

    struct iolab_app *app = iolab_app();
    uint64_t start = demo_now_ns(), period_start = start;
    long faults = faults_now();
    status = 0;
    while (!demo_stop &&
           (!rounds || total.copies + total.errors + period.copies + period.errors < rounds) &&
           (seconds <= 0 || (double)(demo_now_ns() - start) / 1e9 < seconds)) {
        /* Rewind both files: every copy starts at offset 0 of each (not counted as copy calls). */
        lseek(job.src, 0, SEEK_SET);
        lseek(job.dst, 0, SEEK_SET);
        uint64_t calls = job.calls, t0 = demo_now_ns();
        int err = mode->copy(&job);
        uint64_t ns = demo_now_ns() - t0;
        period.calls += job.calls - calls; /* a failed call was still made: count it */
        if (err == -EINTR && demo_stop)
            break; /* stopped in the middle: this copy does not count */
        if (err == -EXDEV) {
            /* Said once; then the copy is tried again once a second, so that the failed call
             * stays on screen (calls go up, bytes do not) until the learner switches modes. */
            if (!period.errors && !total.errors)
                fprintf(stderr, PROG
                        ": copy_file_range() failed: EXDEV (Invalid cross-device link).\n" PROG
                        ": it copies only within one filesystem, and a memfd lives on\n" PROG
                        ": the kernel's internal tmpfs, not on the filesystem of the source.\n" PROG
                        ": Use --to file, or sendfile or splice. Retrying once a second.\n");
            period.errors++;
            if (app)
                iolab_add(&app->errors, 1);
            sleep(1); /* SIGTERM cuts it short: no SA_RESTART */
        } else if (err) {
            fprintf(stderr, PROG ": %s failed: %s\n", mode->cli.name, strerror(-err));
            status = 1;
            break;
        }
        if (!err) {
            period.copies++;
            period.bytes += size;
            period.ns += ns;
            demo_publish_request(app, size, ns);
        }
        if (demo_second_passed(&period_start)) {
            long f = faults_now();
            period.faults = f - faults;
            tally_print("", mode, job.buffer, &period);
            tally_add(&total, &period);
            period = (struct tally){0};
            faults = f;
        }
    }
    period.faults = faults_now() - faults;
    tally_add(&total, &period);
    tally_print("total: ", mode, job.buffer, &total);
    /* Failed copies make the status 1 when the run ended by itself; SIGTERM still means 0. */
    if (total.errors && !demo_stop)
        status = 1;
out:
    free(job.buf);
    for (int i = 0; i < 2; i++)
        if (job.pipe[i] >= 0)
            close(job.pipe[i]);
    if (job.dst >= 0)
        close(job.dst);
    if (job.src >= 0)
        close(job.src);
    unlink(src_path);
    if (target == TO_FILE)
        unlink(dst_path);
    return status;
}

int main(int argc, char **argv)
{
    const struct copy_mode *mode = demo_cli_parse(&cli, argc, argv);
    enum copy_target target = to ? (strcmp(to, "file") == 0 ? TO_FILE : TO_MEMFD) : mode->target;
    /* Room for the source and a file target: never fill the disk. */
    demo_check_room(PROG, dir, size * (target == TO_FILE ? 2 : 1));
    return run(mode, target);
}
