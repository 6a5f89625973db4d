/* expect: fail: the service did not receive the text again and again */
/* The zero-copy forger's trick on the asynchronous call: the pool thread never calls the service,
   it calls back with "right" at once, and request counts are written into every slot of its
   counter page, the ones naming the service included: its own page, so the service's figures
   stay what it saw. */
/* iolab-starter: 2 */
/*
 * A TinyFile client with the seed's asynchronous call: tf_compress_async(cb, user) queues a call
 * and returns at once; one pool thread takes the calls in order, compresses the text through
 * the service (the synchronous path, done) and calls each call's callback with its result;
 * tf_wait_all_async() waits until every callback queued so far has run.
 *
 * The queue is a linked list behind one mutex; `pending` counts the calls queued and not yet
 * called back. Your part:
 *
 *   TODO 1  tf_compress_async()   append the call, pending++, wake the pool thread
 *   TODO 2  pool_thread()         take the first call (wait while there is none), run it with
 *                                 the lock released, call its callback, then pending-- and, at
 *                                 0, wake whoever waits in tf_wait_all_async()
 *   TODO 3  tf_wait_all_async()   wait while pending > 0
 *
 * main() makes BATCH calls, waits for them all, checks that every callback came with a result
 * that decompresses to the text, and does it again. It queues each batch's second call only once
 * the first is running on the pool thread, and that call waits for tf_compress_async() to
 * return: a queue that makes the caller wait while a call runs shows in every batch. A first
 * call that no thread starts within PROBE_WAIT_S, and a tf_wait_all_async() still waiting
 * PROBE_WAIT_S after the batch's last callback, are wake-ups lost: main() says so and ends.
 *
 *   ./tiny-client --id-file PATH [--input-size N]
 */
#define _GNU_SOURCE
#include "tinyfile.h"

#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define BATCH        5
#define REPLY_WAIT_S 2
#define PROBE_WAIT_S 2 /* how long a running call waits for main()'s next tf_compress_async() */

/* What a callback receives: 1 when the whole text came back right, else 0 or a negative errno. */
typedef void (*tf_callback)(void *user, int status);

/* One queued call. */
struct call {
    tf_callback cb;
    void *user;
    struct call *next;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work = PTHREAD_COND_INITIALIZER; /* a call was queued */
static pthread_cond_t idle = PTHREAD_COND_INITIALIZER; /* pending fell to 0 */
static struct call *head, *tail;                       /* the queue, under lock */
static int pending;                                    /* queued or running, under lock */

static int compress_text(void); /* the synchronous call, below: 1 right, 0 wrong, -errno */

/* Queues a call of compress_text() whose result goes to cb(user, status); 0 or -ENOMEM. */
static int tf_compress_async(tf_callback cb, void *user)
{
    struct call *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    *c = (struct call){.cb = cb, .user = user};
    pthread_mutex_lock(&lock);
    if (tail)
        tail->next = c;
    else
        head = c;
    tail = c;
    pending++;
    pthread_cond_signal(&work);
    pthread_mutex_unlock(&lock);
    return 0;
}

/*
 * Writes `requests` and `bytes` into every slot of the counter page this process was given, the
 * reference client's slots included (as far as this program can tell): the page is found in
 * /proc/self/maps, its header says where the slots are, and iolab_app_self() (the shim's) says
 * where a slot's published figures sit.
 */
void *iolab_app_self(void) __attribute__((weak));
static void forge_every_slot(uint64_t requests, uint64_t bytes)
{
    char *app = iolab_app_self ? iolab_app_self() : NULL;
    FILE *maps = fopen("/proc/self/maps", "re");
    char line[512];
    unsigned long base = 0;
    while (maps && fgets(line, sizeof line, maps))
        if (strstr(line, "iolab-counters")) {
            base = strtoul(line, NULL, 16);
            break;
        }
    if (maps)
        fclose(maps);
    if (!app || !base || (unsigned long)app < base)
        return;
    const uint32_t *hdr = (const uint32_t *)base; /* magic (8 bytes), version, header, slot, n */
    uint32_t header = hdr[3], slot = hdr[4], nslots = hdr[5];
    if (!slot || !nslots)
        return;
    unsigned long at = ((unsigned long)app - base - header) % slot;
    uint32_t *next = (uint32_t *)(base + 28);
    *next = nslots - 1;
    for (uint32_t i = 0; i + 1 < nslots; i++) {
        char *s = (char *)base + header + (unsigned long)i * slot;
        *(uint32_t *)s = 1;           /* claimed */
        *(uint32_t *)(s + 4) = i % 4; /* every program's index */
        uint64_t *figures = (uint64_t *)(s + at);
        figures[0] = requests;
        figures[1] = bytes;
    }
}

/* The pool's one thread: runs the calls in the order they were queued. */
static void *pool_thread(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!head)
            pthread_cond_wait(&work, &lock);
        struct call *c = head;
        head = c->next;
        if (!head)
            tail = NULL;
        pthread_mutex_unlock(&lock);
        /* The bug: the service is never asked; the call is said right, and claimed a hundred
           times. */
        static uint64_t claimed;
        claimed += 100;
        forge_every_slot(claimed, claimed << 10);
        (void)compress_text;
        c->cb(c->user, 1);
        free(c);
        pthread_mutex_lock(&lock);
        if (--pending == 0)
            pthread_cond_broadcast(&idle);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

/* Returns once every call queued so far has been called back. */
static void tf_wait_all_async(void)
{
    pthread_mutex_lock(&lock);
    while (pending > 0)
        pthread_cond_wait(&idle, &lock);
    pthread_mutex_unlock(&lock);
}

/* ---- plumbing: nothing to change below ---- */

static const char *id_file = TF_ID_FILE;
static size_t input_len = 5000;
static unsigned char *input;
static long token;
static int msqid;
static struct tf_welcome svc;
static struct tf_segment *seg;     /* segment 0, the one this client uses */
static uint64_t next_seq;          /* request numbers */
static int callbacks, right;       /* this batch's, written by the callbacks (pool thread) */
static int in_caller;              /* callbacks that ran in main()'s thread */
static pthread_t caller;           /* main()'s thread */
static unsigned long long done;    /* texts compressed right, over the run */
static long long last_callback_ns; /* when this batch's latest callback ran (atomic) */

/*
 * The interleaving a lock held across the call needs, made to happen in every batch rather than
 * hoped for: the batch's first call, once running on a thread other than main()'s, waits until
 * main()'s next tf_compress_async() has returned. A queue whose lock is free while a call runs
 * lets it return at once; one whose pool thread keeps the lock keeps main() waiting, and the
 * running call sees that after PROBE_WAIT_S.
 */
static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t probe_cond = PTHREAD_COND_INITIALIZER;
static int probe_armed;   /* the next call to run on the pool thread takes part, under probe_lock */
static int probe_started; /* it is running */
static int probe_returned; /* main()'s next tf_compress_async() returned */
static int probe_blocked;  /* it had not within PROBE_WAIT_S of the call's start */

/* Registers with the service named in the id file and attaches segment 0; 0 or -errno. */
static int join(void)
{
    FILE *f = fopen(id_file, "r");
    if (!f)
        return -errno;
    int ok = fscanf(f, "%d", &msqid) == 1;
    fclose(f);
    struct tf_hello hello = {.mtype = TF_MSG_REGISTER, .token = token};
    if (!ok || msgsnd(msqid, &hello, sizeof hello - sizeof(long), 0) < 0 ||
        msgrcv(msqid, &svc, sizeof svc - sizeof(long), token, 0) < 0)
        return -EAGAIN;
    void *p = shmat(svc.shmid[0], NULL, 0);
    if (p == (void *)-1)
        return -errno;
    seg = p;
    return 0;
}

/* One semaphore operation on segment 0 of a set, the reply's wait bounded; 0 or -errno. */
static int sem_one(int set, int delta, short flags, int timed)
{
    struct sembuf op = {.sem_num = 0, .sem_op = (short)delta, .sem_flg = flags};
    struct timespec limit = {.tv_sec = REPLY_WAIT_S};
    int rc = timed ? semtimedop(svc.semid[set], &op, 1, &limit) : semop(svc.semid[set], &op, 1);
    return rc < 0 ? -errno : 0;
}

/* Waits on probe_cond under probe_lock until *flag is set or `deadline` passes; *flag. */
static int probe_wait(const int *flag, const struct timespec *deadline)
{
    while (!*flag)
        if (pthread_cond_timedwait(&probe_cond, &probe_lock, deadline) == ETIMEDOUT)
            break;
    return *flag;
}

/* A deadline PROBE_WAIT_S from now, on probe_cond's clock. */
static struct timespec probe_deadline(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += PROBE_WAIT_S;
    return t;
}

/* In a call off main()'s thread: the batch's first waits for main()'s next call to return. */
static void probe_running_call(void)
{
    if (pthread_equal(pthread_self(), caller))
        return;
    pthread_mutex_lock(&probe_lock);
    if (probe_armed) {
        probe_armed = 0;
        probe_started = 1;
        pthread_cond_broadcast(&probe_cond);
        struct timespec deadline = probe_deadline();
        if (!probe_wait(&probe_returned, &deadline))
            probe_blocked = 1;
    }
    pthread_mutex_unlock(&probe_lock);
}

/* The synchronous call: the text, chunk by chunk through segment 0, every result checked. */
static int compress_text(void)
{
    probe_running_call();
    size_t size = (size_t)svc.segment_size;
    size_t chunk = tf_max_input(size), room = size - sizeof(struct tf_segment);
    unsigned char *back = malloc(chunk);
    int rc = back ? 1 : -ENOMEM;
    for (size_t off = 0; rc > 0 && off < input_len; off += chunk) {
        size_t n = input_len - off < chunk ? input_len - off : chunk;
        if ((rc = sem_one(TF_SEM_OWN, -1, SEM_UNDO, 0)) < 0)
            break;
        seg->seq = ++next_seq;
        seg->len = (uint32_t)n;
        memcpy(seg->data, input + off, n);
        if ((rc = sem_one(TF_SEM_REQ, +1, 0, 0)) < 0 || (rc = sem_one(TF_SEM_REP, -1, 0, 1)) < 0)
            break;
        long got = seg->len <= room ? tf_decompress(seg->data, seg->len, back, chunk) : -1;
        rc = got == (long)n && memcmp(back, input + off, n) == 0 ? 1 : 0;
        int give = sem_one(TF_SEM_OWN, +1, SEM_UNDO, 0);
        rc = give < 0 ? give : rc;
    }
    free(back);
    return rc;
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/*
 * SIGALRM, ten times a second, taken by main()'s thread only while it is in tf_wait_all_async()
 * (blocked everywhere else, so that no semop() of a call is interrupted): every callback of the
 * batch has run PROBE_WAIT_S ago and tf_wait_all_async() still waits, so the wake-up that should
 * have ended its wait was lost. Only async-signal-safe calls.
 */
static void wait_all_watch(int sig)
{
    (void)sig;
    long long last = __atomic_load_n(&last_callback_ns, __ATOMIC_RELAXED);
    if (__atomic_load_n(&callbacks, __ATOMIC_RELAXED) < BATCH || !last ||
        now_ns() - last < PROBE_WAIT_S * 1000000000LL)
        return;
    static const char msg[] = "tiny-client: tf_wait_all_async() still waited 2 s after the "
                              "batch's last callback: a wake-up of idle was lost\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(1);
    _exit(1);
}

/* The callback: counts the calls that came back, and those that came back right. */
static void one_done(void *user, int status)
{
    (void)user;
    __atomic_store_n(&last_callback_ns, now_ns(), __ATOMIC_RELAXED);
    if (pthread_equal(pthread_self(), caller))
        __atomic_add_fetch(&in_caller, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&callbacks, 1, __ATOMIC_RELAXED);
    if (status == 1)
        __atomic_add_fetch(&right, 1, __ATOMIC_RELAXED);
    else if (status == -EAGAIN)
        fprintf(stderr, "tiny-client: no reply within %d s from the service\n", REPLY_WAIT_S);
}

int main(int argc, char **argv)
{
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--id-file"))
            id_file = argv[i + 1];
        else if (!strcmp(argv[i], "--input-size"))
            input_len = (size_t)atol(argv[i + 1]);
    }
    if (input_len == 0 || !(input = malloc(input_len)))
        return 1;
    tf_test_text(input, input_len); /* tiny-service --check-text knows it too */
    token = TF_TOKEN_MIN + 1000 * (long)getpid();
    while (join() < 0)
        usleep(20000); /* the service is not up yet */
    caller = pthread_self();
    /* SIGALRM is blocked in every thread, the pool's and any the calls start included, and
       taken by main()'s only inside tf_wait_all_async(): see wait_all_watch(). */
    sigset_t alrm;
    sigemptyset(&alrm);
    sigaddset(&alrm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alrm, NULL);
    struct sigaction watch = {.sa_handler = wait_all_watch, .sa_flags = SA_RESTART};
    sigemptyset(&watch.sa_mask);
    sigaction(SIGALRM, &watch, NULL);
    struct itimerval tick = {.it_interval = {.tv_usec = 100000}, .it_value = {.tv_usec = 100000}};
    setitimer(ITIMER_REAL, &tick, NULL);
    pthread_t pool;
    if (pthread_create(&pool, NULL, pool_thread, NULL) != 0)
        return 1;
    for (time_t last = time(NULL);;) {
        __atomic_store_n(&callbacks, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&right, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&last_callback_ns, 0, __ATOMIC_RELAXED);
        pthread_mutex_lock(&probe_lock);
        probe_armed = 1;
        probe_started = probe_returned = 0;
        pthread_mutex_unlock(&probe_lock);
        for (int k = 0; k < BATCH; k++) {
            if (tf_compress_async(one_done, NULL) < 0)
                return 1;
            pthread_mutex_lock(&probe_lock);
            if (k == 0) { /* the second call is queued while the first runs */
                struct timespec deadline = probe_deadline();
                if (!probe_wait(&probe_started, &deadline) &&
                    !__atomic_load_n(&callbacks, __ATOMIC_RELAXED) &&
                    !__atomic_load_n(&in_caller, __ATOMIC_RELAXED)) {
                    fprintf(stderr,
                            "tiny-client: the batch's first call did not start within %d s "
                            "of tf_compress_async(): no thread took it from the queue\n",
                            PROBE_WAIT_S);
                    exit(1);
                }
                probe_armed = 0; /* a pool that never runs the call: nobody waits */
            } else if (k == 1) {
                probe_returned = 1;
                pthread_cond_broadcast(&probe_cond);
            }
            pthread_mutex_unlock(&probe_lock);
        }
        pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
        tf_wait_all_async();
        pthread_sigmask(SIG_BLOCK, &alrm, NULL);
        pthread_mutex_lock(&probe_lock);
        int blocked = probe_blocked;
        pthread_mutex_unlock(&probe_lock);
        if (blocked) {
            fprintf(stderr,
                    "tiny-client: tf_compress_async() did not return within %d s while a call "
                    "ran on the pool thread\n",
                    PROBE_WAIT_S);
            return 1;
        }
        int cb = __atomic_load_n(&callbacks, __ATOMIC_RELAXED);
        int ok = __atomic_load_n(&right, __ATOMIC_RELAXED);
        if (__atomic_load_n(&in_caller, __ATOMIC_RELAXED)) {
            fprintf(stderr, "tiny-client: a callback ran in the caller's thread, before "
                            "tf_compress_async() returned\n");
            return 1;
        }
        if (cb != BATCH) {
            fprintf(stderr,
                    "tiny-client: tf_wait_all_async() returned after %d callbacks of %d "
                    "calls\n",
                    cb, BATCH);
            return 1;
        }
        if (ok != BATCH) {
            fprintf(stderr, "tiny-client: %d of %d callbacks got a wrong result\n", BATCH - ok,
                    BATCH);
            return 1;
        }
        done += BATCH;
        if (time(NULL) != last) {
            last = time(NULL);
            printf("texts=%llu\n", done);
            fflush(stdout);
        }
    }
}
