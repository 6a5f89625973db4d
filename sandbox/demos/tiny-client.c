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
 * Two APIs, as in the seed (--api): sync, where each call waits for its own result, and async,
 * where tf_compress_async() queues the call on a thread pool (one thread by default) that runs
 * the synchronous path and calls the caller's callback with the result; tf_wait_all_async()
 * waits for every callback. --batch N makes N calls, then waits for them all, again and again;
 * an asynchronous call's latency runs from its submission to its callback, the queue included.
 * On SIGTERM the queued calls are cancelled (called back with -ECANCELED, not counted), the
 * running one finishes, the pool's threads are joined, and the client leaves as before.
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
static size_t chunk_room, nchunks;     /* a result holds chunk k's output at k * chunk_room */

/* Where one call's compressed chunks go: the synchronous loop has one, every asynchronous call
   its own (the seed's API hands each callback its own result). */
struct tf_result {
    unsigned char *data; /* nchunks * chunk_room bytes */
    uint32_t *len;       /* nchunks lengths */
};
static struct tf_result sync_result;

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
static int chunk_roundtrip(int i, size_t k, struct tf_result *res)
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
    memcpy(res->data + k * chunk_room, seg[i]->data, m);
    res->len[k] = m;
    return sem_do(TF_SEM_OWN, i, +1, SEM_UNDO, 0);
}

/* The work of one segment's thread: every Nth chunk, starting at chunk i. */
struct lane {
    int seg;    /* the segment (and first chunk) of this lane */
    int nlanes; /* the stride */
    int rc;     /* 0 or the first negative errno */
    struct tf_result *res;
    pthread_t tid;
};

static void *lane_run(void *arg)
{
    struct lane *l = arg;
    for (size_t k = (size_t)l->seg; k < nchunks && l->rc == 0; k += (size_t)l->nlanes)
        l->rc = chunk_roundtrip(l->seg, k, l->res);
    return NULL;
}

/* Compresses the input once through the service; 0, -EIDRM (service gone) or -EINTR. */
static int compress_once(struct tf_result *res)
{
    int nlanes = svc.segments < (int)nchunks ? svc.segments : (int)nchunks;
    struct lane lanes[TF_MAX_SEGMENTS];
    for (int i = 0; i < nlanes; i++)
        lanes[i] = (struct lane){.seg = i, .nlanes = nlanes, .res = res};
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
static int verify(const struct tf_result *res)
{
    unsigned char *back = malloc(chunk_max);
    int ok = back != NULL;
    for (size_t k = 0; ok && k < nchunks; k++) {
        size_t off = k * chunk_max, n = input_len - off < chunk_max ? input_len - off : chunk_max;
        long got = tf_decompress(res->data + k * chunk_room, res->len[k], back, chunk_max);
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

static int tf_result_alloc(struct tf_result *r)
{
    r->data = malloc(nchunks * chunk_room);
    r->len = calloc(nchunks, sizeof *r->len);
    return r->data && r->len ? 0 : -ENOMEM;
}

static void tf_result_free(struct tf_result *r)
{
    free(r->data);
    free(r->len);
    r->data = NULL;
    r->len = NULL;
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
    tf_result_free(&sync_result);
    return tf_result_alloc(&sync_result);
}

/* ---- the asynchronous API: tf_compress_async() and tf_wait_all_async() ----
 *
 * The seed's design: an asynchronous call is lower priority than a synchronous one, so it is
 * queued on a small thread pool (one thread by default, --async-threads) that runs the same
 * synchronous path and then calls the caller's callback with the result. tf_wait_all_async()
 * waits until every queued call has called back; tf_pool_stop() stops the pool: calls still
 * queued are called back with -ECANCELED, the running one ends, the threads are joined.
 */

/* Called on a pool thread: status 0 and the call's result, or a negative errno; waited_ns is
   the time from the submission to the callback, the queue included. */
typedef void (*tf_callback)(void *user, int status, const struct tf_result *res,
                            uint64_t waited_ns);

struct tf_task {
    struct tf_task *next;
    tf_callback cb;
    void *user;
    uint64_t submitted_ns;
};

#define TF_MAX_ASYNC_THREADS 16

static struct {
    pthread_mutex_t mu;
    pthread_cond_t work; /* a task was queued, or the pool is stopping */
    pthread_cond_t idle; /* pending reached zero */
    struct tf_task *head, *tail;
    size_t pending; /* queued and running */
    int stopping;
    pthread_t tid[TF_MAX_ASYNC_THREADS];
    int nthreads;
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER,
          .work = PTHREAD_COND_INITIALIZER,
          .idle = PTHREAD_COND_INITIALIZER};

static void *pool_worker(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&pool.mu);
    for (;;) {
        while (!pool.head && !pool.stopping)
            pthread_cond_wait(&pool.work, &pool.mu);
        if (!pool.head)
            break;
        struct tf_task *t = pool.head;
        pool.head = t->next;
        if (!pool.head)
            pool.tail = NULL;
        pthread_mutex_unlock(&pool.mu);
        struct tf_result res = {0};
        int rc = tf_result_alloc(&res);
        if (rc == 0)
            rc = compress_once(&res);
        t->cb(t->user, rc, &res, demo_now_ns() - t->submitted_ns);
        tf_result_free(&res);
        free(t);
        pthread_mutex_lock(&pool.mu);
        if (--pool.pending == 0)
            pthread_cond_broadcast(&pool.idle);
    }
    pthread_mutex_unlock(&pool.mu);
    return NULL;
}

/* Starts n threads; 0 or a negative errno. */
static int tf_pool_start(int n)
{
    /* SIGTERM stays with the main thread, which stops the pool. */
    demo_signals_mask(SIG_BLOCK);
    int rc = 0;
    for (pool.nthreads = 0; pool.nthreads < n; pool.nthreads++)
        if ((rc = -pthread_create(&pool.tid[pool.nthreads], NULL, pool_worker, NULL)) < 0)
            break;
    demo_signals_mask(SIG_UNBLOCK);
    return rc;
}

/* Queues one compression of the input; cb is called on a pool thread. 0 or a negative errno. */
static int tf_compress_async(tf_callback cb, void *user)
{
    struct tf_task *t = malloc(sizeof *t);
    if (!t)
        return -ENOMEM;
    *t = (struct tf_task){.cb = cb, .user = user, .submitted_ns = demo_now_ns()};
    pthread_mutex_lock(&pool.mu);
    if (pool.stopping) {
        pthread_mutex_unlock(&pool.mu);
        free(t);
        return -ESHUTDOWN;
    }
    if (pool.tail)
        pool.tail->next = t;
    else
        pool.head = t;
    pool.tail = t;
    pool.pending++;
    pthread_cond_signal(&pool.work);
    pthread_mutex_unlock(&pool.mu);
    return 0;
}

/* Waits until every queued call has called back; -EINTR when SIGTERM came first. */
static int tf_wait_all_async(void)
{
    int rc = 0;
    pthread_mutex_lock(&pool.mu);
    while (pool.pending && !demo_stop) {
        /* A signal does not end a condition wait: look at demo_stop every 100 ms. */
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 100000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_cond_timedwait(&pool.idle, &pool.mu, &until);
    }
    if (pool.pending)
        rc = -EINTR;
    pthread_mutex_unlock(&pool.mu);
    return rc;
}

/* Stops the pool: queued calls call back with -ECANCELED, the threads end and are joined. */
static void tf_pool_stop(void)
{
    pthread_mutex_lock(&pool.mu);
    pool.stopping = 1;
    struct tf_task *t = pool.head;
    pool.head = pool.tail = NULL;
    pthread_cond_broadcast(&pool.work);
    pthread_mutex_unlock(&pool.mu);
    while (t) {
        struct tf_task *next = t->next;
        t->cb(t->user, -ECANCELED, NULL, demo_now_ns() - t->submitted_ns);
        free(t);
        pthread_mutex_lock(&pool.mu);
        pool.pending--;
        pthread_mutex_unlock(&pool.mu);
        t = next;
    }
    for (int i = 0; i < pool.nthreads; i++)
        pthread_join(pool.tid[i], NULL);
    pool.nthreads = 0;
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

/* ---- what the calls measured ---- */

/* The run's figures; the asynchronous callbacks add to them from the pool's threads. */
static struct {
    pthread_mutex_t mu;
    struct demo_hist hist;
    uint64_t done, errors, bytes;
    int service_gone; /* a call found the service's objects removed: join again */
} tally = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* One finished call, on whichever thread made it: verified, counted, published. */
static void tally_call(int status, const struct tf_result *res, uint64_t ns)
{
    if (status == -EIDRM) {
        __atomic_store_n(&tally.service_gone, 1, __ATOMIC_RELAXED);
        return;
    }
    if (status < 0) /* cancelled or stopped: not a request */
        return;
    int ok = verify(res);
    pthread_mutex_lock(&tally.mu);
    demo_hist_add(&tally.hist, ns);
    tally.done++;
    tally.bytes += input_len;
    tally.errors += !ok;
    pthread_mutex_unlock(&tally.mu);
    struct iolab_app *app = iolab_app(); /* this thread's figures */
    if (app) {
        iolab_add(&app->requests, 1);
        iolab_add(&app->bytes, input_len);
        iolab_add(&app->errors, !ok);
        iolab_app_latency(app, ns);
    }
}

static void async_done(void *user, int status, const struct tf_result *res, uint64_t waited_ns)
{
    (void)user;
    tally_call(status, res, waited_ns);
}

/* ---- options, the run and main ---- */

static const char *file; /* --file */
static uint64_t max_requests;
static double seconds;
static const char *api = "sync";   /* --api */
static uint64_t batch = 1;         /* --batch */
static uint64_t async_threads = 1; /* --async-threads */

/* A batch of calls: one after the other (sync), or all queued then waited for (async). 0,
   -EIDRM (the service went away: join again), -EINTR or another negative errno. */
static int run_batch(uint64_t n)
{
    if (!strcmp(api, "sync")) {
        for (uint64_t i = 0; i < n && !demo_stop; i++) {
            uint64_t t0 = demo_now_ns();
            int rc = compress_once(&sync_result);
            if (rc < 0)
                return rc;
            tally_call(0, &sync_result, demo_now_ns() - t0);
        }
        return 0;
    }
    for (uint64_t i = 0; i < n; i++) {
        int rc = tf_compress_async(async_done, NULL);
        if (rc < 0)
            return rc;
    }
    int rc = tf_wait_all_async();
    if (__atomic_exchange_n(&tally.service_gone, 0, __ATOMIC_RELAXED))
        return -EIDRM;
    return rc;
}

static void check_api(void)
{
    if (strcmp(api, "sync") && strcmp(api, "async")) {
        fprintf(stderr, PROG ": --api is sync or async, not '%s'; see " PROG " --help.\n", api);
        exit(2);
    }
}

static const struct demo_opt opts[] = {
    DEMO_OPT_TEXT("file", &file, "PATH", "compress this file (up to 64M)"),
    DEMO_OPT_SIZE("input-size", &input_len, MAX_INPUT, "S",
                  "else compress S bytes of generated text (default 64K)"),
    DEMO_OPT_U64("requests", &max_requests, 1, UINT64_MAX / 2, "M", "stop after M requests",
                 .not_with = "seconds"),
    DEMO_OPT_SECONDS(&seconds),
    DEMO_OPT_TEXT("id-file", &id_file, "PATH",
                  "where the service published its queue id (default ./" TF_ID_FILE ")"),
    DEMO_OPT_TEXT("api", &api, "sync|async",
                  "sync: each call waits for its result (default); async: calls are queued on\n"
                  "a thread pool and call back with their result (tf_compress_async)"),
    DEMO_OPT_U64("batch", &batch, 1, 1000000, "N",
                 "make N calls, then wait for them all, again and again (default 1)"),
    DEMO_OPT_U64("async-threads", &async_threads, 1, TF_MAX_ASYNC_THREADS, "K",
                 "threads of the asynchronous pool (default 1, as in the seed)"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "[--file PATH | --input-size S] [--requests M | --seconds T] [--id-file PATH]\n"
             "       [--api sync|async] [--batch N] [--async-threads K]",
    .about = "Load for tiny-service: compresses the same input again and again through the\n"
             "service's shared-memory segments, checks each result by decompressing it, and\n"
             "reports the client-side service time per request.\n",
    .opts = opts,
    .check = check_api,
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
    if (!input || demo_hist_init(&tally.hist) < 0) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    if (getrandom(&token, sizeof token, 0) != sizeof token)
        token = (long)demo_now_ns();
    token = (long)((unsigned long)token % (1ul << 62)) + TF_TOKEN_MIN;

    demo_signals_init();
    struct iolab_app *app = iolab_app();
    uint64_t start = demo_now_ns(), deadline = 0, rejoins = 0;
    if (seconds > 0)
        deadline = start + (uint64_t)(seconds * 1e9);
    int rc = 0;
    if (!strcmp(api, "async") && (rc = tf_pool_start((int)async_threads)) < 0) {
        fprintf(stderr, PROG ": could not start the asynchronous pool: %s\n", strerror(-rc));
        tf_pool_stop();
        return 1;
    }
    while (!demo_stop && !(deadline && demo_now_ns() >= deadline) &&
           !(max_requests && tally.done >= max_requests)) {
        if (msqid < 0) {
            if ((rc = join(deadline)) < 0)
                break;
            if (app)
                iolab_add(&app->conns_opened, 1);
        }
        uint64_t n = batch;
        if (max_requests && max_requests - tally.done < n)
            n = max_requests - tally.done;
        rc = run_batch(n);
        if (rc == -EIDRM) { /* the service went away: join the next one, then do it again */
            detach();
            rejoins++;
            if (app)
                iolab_add(&app->conns_closed, 1);
            continue;
        }
        if (rc < 0)
            break;
    }
    if (!strcmp(api, "async"))
        tf_pool_stop(); /* before detaching: a running call still uses the segments */
    if (rc == -EINTR)
        rc = 0;
    size_t packed = 0;
    for (size_t k = 0; sync_result.len && k < nchunks; k++)
        packed += sync_result.len[k];
    if (msqid >= 0) {
        /* Detach first: once we have left, the service expects our attachments gone. */
        int q = msqid;
        detach();
        struct tf_hello bye = {.mtype = TF_MSG_DEREGISTER, .token = token};
        msgsnd(q, &bye, sizeof bye - sizeof(long), IPC_NOWAIT);
        if (app)
            iolab_add(&app->conns_closed, 1);
    }
    if (rc == -ENOMEM || rc == -EAGAIN)
        fprintf(stderr, PROG ": %s\n", strerror(-rc));
    printf("input=%zu compressed=%zu chunks=%zu segments=%d segment_size=%d rejoins=%llu\n",
           input_len, packed, nchunks, svc.segments, svc.segment_size, (unsigned long long)rejoins);
    struct demo_summary sum = {.requests = tally.done,
                               .seconds = (double)(demo_now_ns() - start) / 1e9,
                               .bytes = tally.bytes,
                               .errors = tally.errors,
                               .hist = &tally.hist};
    demo_summary_print(&sum, 1);
    demo_hist_free(&tally.hist);
    tf_result_free(&sync_result);
    return tally.errors || rc == -ENOMEM || rc == -EAGAIN ? 1 : 0;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    return run();
}
