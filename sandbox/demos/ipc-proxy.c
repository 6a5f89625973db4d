/*
 * ipc-proxy: the load for ipc-cache (lessons/ipc.json). --concurrency C threads each own one
 * of the cache's segments (thread k uses segment k) and ask for the --file names in turn:
 *
 *   mq_send("send FILE through segment k")  then, per chunk:
 *   sem_wait(ready) -> memcpy the chunk out of the segment -> sem_post(room)
 *
 * The memcpy is what a real proxy does before it hands the bytes on (the seed's proxy wrote
 * them to a client socket): the second copy of every byte. Each whole file is then compared
 * with the file itself (mapped from --dir), so a wrong byte counts as an error.
 *
 * The cache may restart (the learner switches its segment size): a thread whose chunk does
 * not arrive within a second counts one error, drops its mapping and opens the queue and its
 * segment again by name, retrying every 50 ms until the new cache is up.
 *
 * Ends after --requests M, --seconds T or SIGTERM, then prints the summary line. Published
 * figures (per thread): requests, bytes received, errors, every request's latency.
 */
#include "demo.h"
#include "iolab_counters.h"
#include "ipc-segment.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG        "ipc-proxy"
#define MAX_FILES   8
#define MAX_THREADS 64

struct file {
    const char *name;
    const unsigned char *bytes; /* the file mapped, to verify against */
    size_t size;
};

static struct file files[MAX_FILES];
static unsigned nfiles;
static uint64_t max_requests; /* 0: no limit */
static uint64_t handed_out;   /* requests started, across threads (atomic) */
static uint64_t corrupt;      /* files that arrived with wrong bytes (atomic) */

struct thread {
    pthread_t id;
    unsigned k; /* the segment this thread uses */
    mqd_t queue;
    struct ipc_segment *seg;
    size_t seg_len;
    uint64_t requests, bytes, errors;
    struct demo_hist hist;
};

static void disconnect(struct thread *t)
{
    if (t->seg)
        munmap(t->seg, t->seg_len);
    if (t->queue != (mqd_t)-1)
        mq_close(t->queue);
    t->seg = NULL;
    t->queue = (mqd_t)-1;
}

/* Opens the queue and segment k; 0 when both are there (and the cache has a segment k). */
static int connect_cache(struct thread *t)
{
    char name[256];
    ipc_name(name, sizeof name, "queue", -1);
    t->queue = mq_open(name, O_WRONLY | O_CLOEXEC);
    ipc_name(name, sizeof name, "seg", (int)t->k);
    int fd = t->queue == (mqd_t)-1 ? -1 : shm_open(name, O_RDWR | O_CLOEXEC, 0);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size > IPC_HEADER_SIZE) {
        t->seg_len = (size_t)st.st_size;
        void *m = mmap(NULL, t->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        t->seg = m == MAP_FAILED ? NULL : m;
    }
    if (fd >= 0)
        close(fd);
    if (!t->seg || t->seg->size + IPC_HEADER_SIZE > t->seg_len) {
        disconnect(t);
        return -ENOENT;
    }
    return 0;
}

/* sem_wait() on the segment's ready semaphore that gives up after a second. */
static int wait_ready(struct thread *t)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 1;
    while (sem_timedwait(&t->seg->ready, &dl) < 0)
        if (errno != EINTR || demo_stop)
            return -errno;
    return 0;
}

/* One request for file f into buf; 0, or a negative errno (the connection is then dropped). */
static int fetch(struct thread *t, const struct file *f, unsigned char *buf)
{
    struct ipc_request req = {.segment = t->k};
    snprintf(req.file, sizeof req.file, "%s", f->name);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 1;
    if (mq_timedsend(t->queue, (const char *)&req, sizeof req, 0, &dl) < 0)
        return -errno;
    size_t got = 0;
    for (;;) {
        int err = wait_ready(t);
        if (err)
            return err;
        int64_t len = t->seg->len;
        int last = (int)t->seg->last;
        if (len > 0 && got + (size_t)len <= f->size)
            memcpy(buf + got, ipc_segment_data(t->seg), (size_t)len);
        got += len > 0 ? (size_t)len : 0;
        sem_post(&t->seg->room);
        if (len < 0)
            return (int)len;
        if (last)
            break;
    }
    t->bytes += got;
    return got == f->size && memcmp(buf, f->bytes, f->size) == 0 ? 0 : -EBADMSG;
}

static void *run_thread(void *arg)
{
    struct thread *t = arg;
    struct iolab_app *app = iolab_app();
    size_t biggest = 1;
    for (unsigned i = 0; i < nfiles; i++)
        biggest = files[i].size > biggest ? files[i].size : biggest;
    unsigned char *buf = malloc(biggest);
    if (!buf)
        return NULL;
    for (uint64_t n = t->k; !demo_stop;) {
        if (!t->seg && connect_cache(t) < 0) {
            usleep(50000); /* the cache is not up yet, or is restarting */
            continue;
        }
        if (max_requests && __atomic_fetch_add(&handed_out, 1, __ATOMIC_RELAXED) >= max_requests)
            break;
        const struct file *f = &files[n++ % nfiles];
        uint64_t t0 = demo_now_ns();
        int err = fetch(t, f, buf);
        uint64_t ns = demo_now_ns() - t0;
        if (err) {
            t->errors++;
            if (app)
                iolab_add(&app->errors, 1);
            if (max_requests)
                __atomic_fetch_sub(&handed_out, 1, __ATOMIC_RELAXED); /* ask again */
            if (err == -EBADMSG)
                __atomic_fetch_add(&corrupt, 1, __ATOMIC_RELAXED);
            if (err != -EBADMSG && err != -ENOENT)
                disconnect(t); /* timed out: the cache is gone; find the new one */
            else
                usleep(10000);
            continue;
        }
        t->requests++;
        demo_hist_add(&t->hist, ns);
        demo_publish_request(app, f->size, ns);
    }
    free(buf);
    disconnect(t);
    return NULL;
}

/* ---- options, the run and main ---- */

static const char *dir, *file; /* --dir, and the latest --file */
static uint64_t concurrency = 2;
static double seconds;

/* --file may be given several times: each one joins the list. */
static void add_file(void)
{
    if (nfiles == MAX_FILES)
        demo_usage_error(PROG, "at most %d --file options", MAX_FILES);
    if (!*file || strlen(file) > IPC_FILE_MAX || strchr(file, '/'))
        demo_usage_error(PROG, "--file '%s' must be a plain name of at most %u bytes", file,
                         IPC_FILE_MAX);
    files[nfiles++].name = file;
}

static void check_args(void)
{
    if (!dir || !nfiles)
        demo_usage_error(PROG, "--dir DIR and at least one --file NAME are required");
}

static const struct demo_opt opts[] = {
    DEMO_OPT_TEXT("dir", &dir, "DIR", "where the files are (to verify against)"),
    DEMO_OPT_TEXT("file", &file, "NAME",
                  "a file to ask for (up to " DEMO_STR(MAX_FILES) "; at least one)",
                  .after = add_file),
    DEMO_OPT_U64("concurrency", &concurrency, 1, MAX_THREADS, "C",
                 "threads, thread k using segment k (1-" DEMO_STR(MAX_THREADS) ", default 2)"),
    DEMO_OPT_U64("requests", &max_requests, 1, UINT64_MAX / 2, "M", "stop after M files"),
    DEMO_OPT_SECONDS(&seconds),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--dir DIR --file NAME [--file NAME]... [--concurrency C]\n"
             "                 [--requests M | --seconds T]",
    .about = "Asks ipc-cache for the files in turn and reads them out of its shared-memory\n"
             "segments, verifying every byte against DIR/NAME.\n",
    .opts = opts,
    .footer = "Prints one summary line at the end; exits 1 if any file arrived with wrong bytes.\n",
    .check = check_args,
};

/* Maps the files to verify against, runs the threads until a limit or SIGTERM. */
static int run(void)
{
    for (unsigned i = 0; i < nfiles; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
            demo_usage_error(PROG, "--file '%s' is not a non-empty file we can read", path);
        files[i].size = (size_t)st.st_size;
        files[i].bytes = mmap(NULL, files[i].size, PROT_READ, MAP_SHARED, fd, 0);
        close(fd);
        if (files[i].bytes == MAP_FAILED)
            demo_usage_error(PROG, "cannot map '%s'", path);
    }
    demo_signals_init();

    struct thread threads[MAX_THREADS];
    unsigned started = 0;
    uint64_t t0 = demo_now_ns();
    demo_signals_mask(SIG_BLOCK); /* only the main thread takes SIGTERM */
    for (; started < concurrency; started++) {
        struct thread *t = &threads[started];
        *t = (struct thread){.k = started, .queue = (mqd_t)-1};
        if (demo_hist_init(&t->hist) < 0 || pthread_create(&t->id, NULL, run_thread, t) != 0)
            break;
    }
    demo_signals_mask(SIG_UNBLOCK);
    if (started < concurrency)
        demo_stop = 1;
    /* Sleep in small steps: the threads end by themselves after --requests M. */
    while (!demo_stop) {
        double elapsed = (double)(demo_now_ns() - t0) / 1e9;
        if ((seconds > 0 && elapsed >= seconds) ||
            (max_requests && __atomic_load_n(&handed_out, __ATOMIC_RELAXED) >= max_requests))
            break;
        usleep(20000);
    }
    /* Stop the threads: with --requests they stop by themselves once all are handed out. */
    if (!max_requests || demo_stop || seconds > 0)
        demo_stop = 1;
    struct demo_hist all;
    demo_hist_init(&all);
    struct demo_summary sum = {.hist = &all};
    for (unsigned i = 0; i < started; i++) {
        pthread_join(threads[i].id, NULL);
        demo_hist_merge(&all, &threads[i].hist);
        sum.requests += threads[i].requests;
        sum.bytes += threads[i].bytes;
        sum.errors += threads[i].errors;
        demo_hist_free(&threads[i].hist);
    }
    sum.seconds = (double)(demo_now_ns() - t0) / 1e9;
    demo_summary_print(&sum, 1);
    demo_hist_free(&all);
    return corrupt ? 1 : 0;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    return run();
}
