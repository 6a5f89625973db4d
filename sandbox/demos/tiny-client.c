/*
 * tiny-client: the load for tiny-service, and the client half of the TinyFile design
 * (tinyfile.h has the protocol). It compresses the same input over and over through the
 * service, checks every result by decompressing it locally, and measures each request's
 * client-side service time: from handing the input over to holding the whole result.
 *
 * Joining: read the queue id from the id file, msgsnd() a registration with a random token,
 * and msgrcv() the reply addressed to that token: the segment and semaphore ids. shmat() every
 * segment. The reply is polled (IPC_NOWAIT, 1 ms apart, for up to 2 s) rather than waited for,
 * because a queue left by a service that was killed outright would otherwise block forever.
 *
 * One request: the input is cut into chunks that fit a segment; with N segments, N threads
 * (pthread_create per request, as in the original design) each take every Nth chunk through
 * their own segment i:
 *     semop(own[i], -1, SEM_UNDO)   wait until no other client uses segment i
 *     copy the chunk in, semop(req[i], +1)          "compress this"
 *     semtimedop(rep[i], -1)        wait for the service's answer, copy it out
 *     semop(own[i], +1, SEM_UNDO)   hand the segment to the next client
 * With one segment the calling thread does it itself.
 *
 * When the service goes away (the learner switched modes, so a new one starts) its objects are
 * removed, every wait ends with EIDRM, and the client detaches and joins again, retrying every
 * 10..200 ms until the new service has published its id. The request is then done again.
 *
 * Known limit: a client killed while its chunk is in the service leaves a reply behind on that
 * segment; the next request there may then fail verification once (counted in errors).
 *
 * Published figures: requests (inputs compressed and verified), bytes (input bytes), errors
 * (results that did not decompress to the input), conns_opened / conns_closed (joins and
 * leaves), and every request's latency.
 */
#include "demo.h"
#include "iolab_counters.h"
#include "tinyfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/random.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <time.h>
#include <unistd.h>

#define PROG        "tiny-client"
#define BACKOFF_MIN 10000000ull  /* 10 ms */
#define BACKOFF_MAX 200000000ull /* 200 ms */
#define MAX_INPUT   (64u << 20)

static const char *id_file = TF_ID_FILE;
static long token;            /* where the service's replies go */
static int msqid = -1;        /* the service's queue while joined */
static struct tf_welcome svc; /* what the service told us at join time */
static struct tf_segment *seg[TF_MAX_SEGMENTS];
static size_t chunk_max;  /* input bytes per chunk */
static uint64_t next_seq; /* request numbers written into the segments */

static unsigned char *input;           /* what every request compresses */
static uint64_t input_len = 64 * 1024; /* --input-size */
static unsigned char *result;          /* chunk k's output at k * chunk_room */
static uint32_t *result_len;
static size_t chunk_room, nchunks;

/* One semaphore operation. A wait gives up every 200 ms to look at demo_stop when may_stop is
 * set; it never does while a chunk is in the service, whose reply must not be left behind. */
static int sem_do(int set, int i, int delta, short flags, int may_stop)
{
    struct sembuf op = {.sem_num = (unsigned short)i, .sem_op = (short)delta, .sem_flg = flags};
    struct timespec tick = {.tv_nsec = 200000000};
    for (;;) {
        if (may_stop && demo_stop)
            return -EINTR;
        if ((delta > 0 ? semop(svc.semid[set], &op, 1)
                       : semtimedop(svc.semid[set], &op, 1, &tick)) == 0)
            return 0;
        if (errno != EINTR && errno != EAGAIN)
            return -EIDRM; /* EIDRM or EINVAL: the service removed the set; it is gone */
    }
}

/* Sends chunk k through segment i and stores its compressed form; 0 or a negative errno. */
static int chunk_roundtrip(int i, size_t k)
{
    size_t off = k * chunk_max, n = input_len - off < chunk_max ? input_len - off : chunk_max;
    int rc = sem_do(TF_SEM_OWN, i, -1, SEM_UNDO, 1);
    if (rc < 0)
        return rc;
    uint64_t seq = __atomic_add_fetch(&next_seq, 1, __ATOMIC_RELAXED);
    seg[i]->seq = seq;
    seg[i]->len = (uint32_t)n;
    memcpy(seg[i]->data, input + off, n);
    if ((rc = sem_do(TF_SEM_REQ, i, +1, 0, 0)) < 0)
        return rc;
    do {
        /* A reply with another number is a leftover of a client that died waiting for it. */
        if ((rc = sem_do(TF_SEM_REP, i, -1, 0, 0)) < 0)
            return rc;
    } while (seg[i]->seq != seq);
    uint32_t m = seg[i]->len <= chunk_room ? seg[i]->len : 0;
    memcpy(result + k * chunk_room, seg[i]->data, m);
    result_len[k] = m;
    return sem_do(TF_SEM_OWN, i, +1, SEM_UNDO, 0);
}

/* The work of one segment's thread: every Nth chunk, starting at chunk i. */
struct lane {
    int seg;    /* the segment (and first chunk) of this lane */
    int nlanes; /* the stride */
    int rc;     /* 0 or the first negative errno */
    pthread_t tid;
};

static void *lane_run(void *arg)
{
    struct lane *l = arg;
    for (size_t k = (size_t)l->seg; k < nchunks && l->rc == 0; k += (size_t)l->nlanes)
        l->rc = chunk_roundtrip(l->seg, k);
    return NULL;
}

/* Compresses the input once through the service; 0, -EIDRM (service gone) or -EINTR. */
static int compress_once(void)
{
    int nlanes = svc.segments < (int)nchunks ? svc.segments : (int)nchunks;
    struct lane lanes[TF_MAX_SEGMENTS];
    for (int i = 0; i < nlanes; i++)
        lanes[i] = (struct lane){.seg = i, .nlanes = nlanes};
    if (nlanes == 1) {
        lane_run(&lanes[0]);
        return lanes[0].rc;
    }
    /* SIGTERM stays with the main thread; the lanes look at demo_stop between chunks. */
    demo_signals_mask(SIG_BLOCK);
    int started = 0;
    for (; started < nlanes; started++)
        if (pthread_create(&lanes[started].tid, NULL, lane_run, &lanes[started]) != 0)
            break;
    demo_signals_mask(SIG_UNBLOCK);
    int rc = started < nlanes ? -EAGAIN : 0;
    for (int i = 0; i < started; i++) {
        pthread_join(lanes[i].tid, NULL);
        if (lanes[i].rc < 0 && rc != -EIDRM) /* a vanished service matters most */
            rc = lanes[i].rc;
    }
    return rc;
}

/* Whether the results decompress to the input. */
static int verify(void)
{
    unsigned char *back = malloc(chunk_max);
    int ok = back != NULL;
    for (size_t k = 0; ok && k < nchunks; k++) {
        size_t off = k * chunk_max, n = input_len - off < chunk_max ? input_len - off : chunk_max;
        long got = tf_decompress(result + k * chunk_room, result_len[k], back, chunk_max);
        ok = got == (long)n && memcmp(back, input + off, n) == 0;
    }
    free(back);
    return ok;
}

static void detach(void)
{
    for (int i = 0; i < TF_MAX_SEGMENTS; i++)
        if (seg[i]) {
            shmdt(seg[i]);
            seg[i] = NULL;
        }
    msqid = -1;
}

/* One attempt to register with the service named in the id file; 0 or a negative errno. */
static int join_once(void)
{
    FILE *f = fopen(id_file, "r");
    int q = -1;
    if (!f)
        return -errno;
    int got = fscanf(f, "%d", &q);
    fclose(f);
    if (got != 1)
        return -EAGAIN; /* the service is writing it: a moment later it will be whole */
    struct tf_hello hello = {.mtype = TF_MSG_REGISTER, .token = token};
    if (msgsnd(q, &hello, sizeof hello - sizeof(long), IPC_NOWAIT) < 0)
        return -errno; /* EINVAL/EIDRM: an id file left by a service that is gone */
    for (int tries = 0; tries < 2000 && !demo_stop; tries++) {
        if (msgrcv(q, &svc, sizeof svc - sizeof(long), token, IPC_NOWAIT) >= 0)
            break;
        if (errno != ENOMSG && errno != EINTR)
            return -errno;
        demo_sleep_ns(1000000);
    }
    if (svc.mtype != token || svc.segments < 1 || svc.segments > TF_MAX_SEGMENTS ||
        svc.segment_size < TF_MIN_SEG_SIZE || svc.segment_size > TF_MAX_SEG_SIZE)
        return -ETIMEDOUT;
    msqid = q;
    for (int i = 0; i < svc.segments; i++) {
        void *p = shmat(svc.shmid[i], NULL, 0);
        if (p == (void *)-1) {
            detach();
            return -errno;
        }
        seg[i] = p;
    }
    return 0;
}

/* Joins the service, retrying with a growing pause; 0, or -EINTR when stopped or out of time. */
static int join(uint64_t deadline)
{
    uint64_t backoff = BACKOFF_MIN;
    for (;;) {
        svc.mtype = 0;
        if (join_once() == 0)
            break;
        if (demo_stop || (deadline && demo_now_ns() + backoff >= deadline))
            return -EINTR;
        demo_sleep_ns(backoff);
        backoff = backoff * 2 < BACKOFF_MAX ? backoff * 2 : BACKOFF_MAX;
    }
    chunk_max = tf_max_input((size_t)svc.segment_size);
    chunk_room = (size_t)svc.segment_size - sizeof(struct tf_segment);
    nchunks = (input_len + chunk_max - 1) / chunk_max;
    free(result);
    free(result_len);
    result = malloc(nchunks * chunk_room);
    result_len = calloc(nchunks, sizeof *result_len);
    return result && result_len ? 0 : -ENOMEM;
}

/* The default input: log-like text lines, which repeat enough for LZ77 to find matches. */
static void make_text(unsigned char *buf, size_t n)
{
    static const char *paths[] = {"/index.html", "/lessons/tinyfile", "/img/logo.png",
                                  "/api/v1/progress", "/static/app.js"};
    uint32_t x = 12345;
    size_t o = 0;
    for (unsigned line = 0; o < n; line++) {
        char l[128];
        x = x * 1103515245u + 12345u;
        int len = snprintf(l, sizeof l, "%06u GET %s 200 %u\n", line, paths[(x >> 16) % 5],
                           (x >> 8) % 5000);
        for (int i = 0; i < len && o < n; i++)
            buf[o++] = (unsigned char)l[i];
    }
}

static int load_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    input = malloc(MAX_INPUT);
    input_len = 0;
    ssize_t r;
    while (input && input_len < MAX_INPUT &&
           (r = read(fd, input + input_len, MAX_INPUT - input_len)) > 0)
        input_len += (size_t)r;
    close(fd);
    return input && input_len > 0 ? 0 : -EINVAL;
}

/* ---- options, the run and main ---- */

static const char *file; /* --file */
static uint64_t max_requests;
static double seconds;

static const struct demo_opt opts[] = {
    DEMO_OPT_TEXT("file", &file, "PATH", "compress this file (up to 64M)"),
    DEMO_OPT_SIZE("input-size", &input_len, MAX_INPUT, "S",
                  "else compress S bytes of generated text (default 64K)"),
    DEMO_OPT_U64("requests", &max_requests, 1, UINT64_MAX / 2, "M", "stop after M requests",
                 .not_with = "seconds"),
    DEMO_OPT_SECONDS(&seconds),
    DEMO_OPT_TEXT("id-file", &id_file, "PATH",
                  "where the service published its queue id (default ./" TF_ID_FILE ")"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "[--file PATH | --input-size S] [--requests M | --seconds T] [--id-file PATH]",
    .about = "Load for tiny-service: compresses the same input again and again through the\n"
             "service's shared-memory segments, checks each result by decompressing it, and\n"
             "reports the client-side service time per request.\n",
    .opts = opts,
};

/* Loads or makes the input, compresses it until a limit or SIGTERM, prints the summary. */
static int run(void)
{
    if (file) {
        int rc = load_file(file);
        if (rc < 0) {
            fprintf(stderr, PROG ": could not read %s: %s\n", file,
                    rc == -EINVAL ? "empty or too large" : strerror(-rc));
            return 1;
        }
    } else if ((input = malloc(input_len)) != NULL) {
        make_text(input, input_len);
    }
    struct demo_hist hist;
    if (!input || demo_hist_init(&hist) < 0) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    if (getrandom(&token, sizeof token, 0) != sizeof token)
        token = (long)demo_now_ns();
    token = (long)((unsigned long)token % (1ul << 62)) + TF_TOKEN_MIN;

    demo_signals_init();
    struct iolab_app *app = iolab_app();
    uint64_t start = demo_now_ns(), deadline = 0, done = 0, errors = 0, bytes = 0, rejoins = 0;
    if (seconds > 0)
        deadline = start + (uint64_t)(seconds * 1e9);
    int rc = 0;
    while (!demo_stop && !(deadline && demo_now_ns() >= deadline) &&
           !(max_requests && done >= max_requests)) {
        if (msqid < 0) {
            if ((rc = join(deadline)) < 0)
                break;
            if (app)
                iolab_add(&app->conns_opened, 1);
        }
        uint64_t t0 = demo_now_ns();
        rc = compress_once();
        if (rc == -EIDRM) { /* the service went away: join the next one, then do it again */
            detach();
            rejoins++;
            if (app)
                iolab_add(&app->conns_closed, 1);
            continue;
        }
        if (rc < 0)
            break;
        uint64_t ns = demo_now_ns() - t0;
        int ok = verify();
        demo_hist_add(&hist, ns);
        done++;
        bytes += input_len;
        errors += !ok;
        if (app) {
            iolab_add(&app->requests, 1);
            iolab_add(&app->bytes, input_len);
            iolab_add(&app->errors, !ok);
            iolab_app_latency(app, ns);
        }
    }
    size_t packed = 0;
    for (size_t k = 0; result_len && k < nchunks; k++)
        packed += result_len[k];
    if (msqid >= 0) {
        struct tf_hello bye = {.mtype = TF_MSG_DEREGISTER, .token = token};
        msgsnd(msqid, &bye, sizeof bye - sizeof(long), IPC_NOWAIT);
        if (app)
            iolab_add(&app->conns_closed, 1);
        detach();
    }
    if (rc == -ENOMEM || rc == -EAGAIN)
        fprintf(stderr, PROG ": %s\n", strerror(-rc));
    printf("input=%zu compressed=%zu chunks=%zu segments=%d segment_size=%d rejoins=%llu\n",
           input_len, packed, nchunks, svc.segments, svc.segment_size, (unsigned long long)rejoins);
    struct demo_summary sum = {.requests = done,
                               .seconds = (double)(demo_now_ns() - start) / 1e9,
                               .bytes = bytes,
                               .errors = errors,
                               .hist = &hist};
    demo_summary_print(&sum, 1);
    demo_hist_free(&hist);
    return errors || rc == -ENOMEM || rc == -EAGAIN ? 1 : 0;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    return run();
}
