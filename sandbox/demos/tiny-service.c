/*
 * tiny-service: a compression service that clients reach only through System V IPC, after the
 * TinyFile design (tinyfile.h has the protocol). It owns everything:
 *
 *   msgget(IPC_PRIVATE)       one queue where clients register and deregister
 *   shmget(IPC_PRIVATE) x N   N segments of S bytes that every client may use
 *   semget(IPC_PRIVATE) x 3   own / req / rep, N semaphores each (one per segment)
 *
 * One thread per segment waits on req[i], compresses what is in segment i in place, and posts
 * rep[i]. The main thread answers registrations on the queue with the ids above. A client then
 * never talks to the queue again until it leaves: the data moves through shared memory, and the
 * only system calls per chunk are the semaphore operations.
 *
 * Stopping: SIGTERM interrupts msgrcv() in the main thread (System V calls are never restarted).
 * The main thread then removes every object with IPC_RMID: the segment threads, blocked in
 * semop(), wake up with EIDRM and end, and so do clients waiting on a semaphore, which then
 * register again with the next service. Exit status 0.
 *
 * It also watches that clients detach when they leave: at each registration, a segment attached
 * more often than by the service and the clients still registered (shm_nattch, the kernel's own
 * count) is said once on stderr, "a client that left did not shmdt() it".
 *
 * With --check-text N the service also checks what it was sent, so that a verdict never rests on
 * a client's word alone: it makes the N-byte test text the exercise's client compresses
 * (tf_test_text), cut into the chunks that fit its segments, and matches every chunk it receives
 * against them by FNV-1a and content. A chunk that is none of them is said once on stderr ("...
 * are no chunk of the test text"); each time every chunk of the text has arrived once more, it
 * says so on stdout with the digests of the text received and of the replies sent for it
 * ("test text received whole 3 times: ..."). A client that computes its results itself and
 * sends the service something else (or nothing) cannot make either line come out right.
 *
 * Published figures (each segment thread's own slot): requests (chunks compressed), bytes (input
 * bytes compressed); the main thread's conns_opened / conns_closed count registrations.
 */
#include "demo.h"
#include "iolab_counters.h"
#include "tinyfile.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

#define PROG "tiny-service"

static int nseg = 1;             /* --segments */
static uint64_t seg_size = 4096; /* --segment-size, header included */
static int msqid = -1;           /* the registration queue */
static int semid[TF_NSEMSETS] = {-1, -1, -1};
static int shmid[TF_MAX_SEGMENTS];
static struct tf_segment *seg[TF_MAX_SEGMENTS]; /* where each segment is attached here */
static uint64_t served[TF_MAX_SEGMENTS];        /* chunks each thread compressed */

/* --check-text: the test text as chunks, and how often each has come in (under text_lock). */
static uint64_t text_len;      /* its size; 0: no check */
static unsigned char *text;    /* the text itself */
static size_t text_chunk;      /* bytes per chunk: tf_max_input() of a segment */
static size_t text_nchunks;    /* chunks in the text, the last one maybe shorter */
static uint64_t *text_fnv;     /* each chunk's digest */
static uint64_t *text_seen;    /* how many times each chunk came in */
static uint64_t text_whole;    /* times every chunk has come in: the least of text_seen[] */
static uint64_t text_fnv_all;  /* the whole text's digest */
static uint64_t reply_fnv_all; /* the digest of the replies for the whole text, in order */
static pthread_mutex_t text_lock = PTHREAD_MUTEX_INITIALIZER;

/* One operation on semaphore i of a set; 0 or a negative errno (EIDRM once the set is gone). */
static int sem_add(int set, int i, int delta)
{
    struct sembuf op = {.sem_num = (unsigned short)i, .sem_op = (short)delta};
    while (semop(semid[set], &op, 1) < 0) {
        if (errno != EINTR)
            return -errno;
    }
    return 0;
}

/* Makes the test text and its chunks' digests; 0 or -ENOMEM. */
static int text_prepare(void)
{
    text_chunk = tf_max_input(seg_size);
    text_nchunks = (size_t)((text_len + text_chunk - 1) / text_chunk);
    text = malloc(text_len);
    text_fnv = calloc(text_nchunks, sizeof *text_fnv);
    text_seen = calloc(text_nchunks, sizeof *text_seen);
    unsigned char *out = malloc(text_chunk + text_chunk / 128 + 1);
    if (!text || !text_fnv || !text_seen || !out) {
        free(out);
        return -ENOMEM;
    }
    tf_test_text(text, text_len);
    text_fnv_all = tf_fnv1a(TF_FNV1A_START, text, text_len);
    reply_fnv_all = TF_FNV1A_START;
    for (size_t k = 0; k < text_nchunks; k++) {
        size_t off = k * text_chunk, n = text_len - off < text_chunk ? text_len - off : text_chunk;
        text_fnv[k] = tf_fnv1a(TF_FNV1A_START, text + off, n);
        reply_fnv_all = tf_fnv1a(reply_fnv_all, out, tf_compress(text + off, n, out));
    }
    free(out);
    return 0;
}

/*
 * Matches one chunk received in segment i (n bytes, digest h) against the test text: a chunk of
 * the text is counted, anything else is said once. The replies are this service's own
 * compressions of the chunks, so the digest of those sent for the whole text is known ahead.
 */
static void text_received(int i, const unsigned char *in, size_t n, uint64_t h)
{
    static int said;
    size_t k = 0;
    while (k < text_nchunks) {
        size_t off = k * text_chunk,
               len = text_len - off < text_chunk ? text_len - off : text_chunk;
        if (len == n && text_fnv[k] == h && memcmp(text + off, in, n) == 0)
            break;
        k++;
    }
    pthread_mutex_lock(&text_lock);
    if (k == text_nchunks) {
        if (!said)
            fprintf(stderr,
                    PROG ": segment %d carried %zu bytes (fnv1a %016llx) that are no chunk of the "
                         "%llu-byte test text\n",
                    i, n, (unsigned long long)h, (unsigned long long)text_len);
        said = 1;
    } else {
        text_seen[k]++;
        uint64_t least = text_seen[0];
        for (size_t j = 1; j < text_nchunks; j++)
            least = text_seen[j] < least ? text_seen[j] : least;
        if (least > text_whole) {
            text_whole = least;
            printf(PROG ": test text received whole %llu times: %llu bytes in %zu chunks, fnv1a "
                        "%016llx; replies sent for it: fnv1a %016llx\n",
                   (unsigned long long)text_whole, (unsigned long long)text_len, text_nchunks,
                   (unsigned long long)text_fnv_all, (unsigned long long)reply_fnv_all);
            fflush(stdout);
        }
    }
    pthread_mutex_unlock(&text_lock);
}

/* The thread behind segment i: wait for a request, compress it in place, post the reply. */
static void *segment_thread(void *arg)
{
    int i = (int)(intptr_t)arg;
    struct iolab_app *app = iolab_app();
    size_t room = seg_size - sizeof(struct tf_segment);
    unsigned char *in = malloc(room), *out = malloc(room + room / 128 + 1);
    while (in && out && sem_add(TF_SEM_REQ, i, -1) == 0) {
        /* Copy the request out first: the client owns the segment again once rep is posted. */
        uint64_t seq = seg[i]->seq;
        size_t n = seg[i]->len <= tf_max_input(seg_size) ? seg[i]->len : 0;
        memcpy(in, seg[i]->data, n);
        if (text_len)
            text_received(i, in, n, tf_fnv1a(TF_FNV1A_START, in, n));
        size_t m = tf_compress(in, n, out);
        memcpy(seg[i]->data, out, m);
        seg[i]->len = (uint32_t)m;
        seg[i]->seq = seq;
        served[i]++;
        if (app) {
            iolab_add(&app->requests, 1);
            iolab_add(&app->bytes, n);
        }
        if (sem_add(TF_SEM_REP, i, +1) < 0)
            break;
    }
    free(in);
    free(out);
    return NULL;
}

/* Writes the queue id to path through a temporary file and rename(), so a reader never sees
 * half a number. */
static int publish_id(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -errno;
    fprintf(f, "%d\n", msqid);
    if (fclose(f) != 0 || rename(tmp, path) < 0) {
        int rc = -errno;
        unlink(tmp);
        return rc;
    }
    return 0;
}

/* Creates the queue, the semaphore sets and the segments; 0 or a negative errno. */
static int create_objects(void)
{
    if ((msqid = msgget(IPC_PRIVATE, IPC_CREAT | 0600)) < 0)
        return -errno;
    static const unsigned short start[TF_NSEMSETS] = {
        [TF_SEM_OWN] = 1, [TF_SEM_REQ] = 0, [TF_SEM_REP] = 0};
    for (int s = 0; s < TF_NSEMSETS; s++) {
        if ((semid[s] = semget(IPC_PRIVATE, nseg, IPC_CREAT | 0600)) < 0)
            return -errno;
        unsigned short vals[TF_MAX_SEGMENTS];
        for (int i = 0; i < nseg; i++)
            vals[i] = start[s];
        if (semctl(semid[s], 0, SETALL, vals) < 0)
            return -errno;
    }
    for (int i = 0; i < nseg; i++) {
        if ((shmid[i] = shmget(IPC_PRIVATE, seg_size, IPC_CREAT | 0600)) < 0)
            return -errno;
        void *p = shmat(shmid[i], NULL, 0);
        if (p == (void *)-1)
            return -errno;
        seg[i] = p;
    }
    return 0;
}

/* IPC_RMID on everything that exists, then detach: safe after a partial create_objects(). */
static void remove_objects(void)
{
    if (msqid >= 0)
        msgctl(msqid, IPC_RMID, NULL);
    for (int s = 0; s < TF_NSEMSETS; s++)
        if (semid[s] >= 0)
            semctl(semid[s], 0, IPC_RMID);
    for (int i = 0; i < nseg; i++)
        if (shmid[i] >= 0)
            shmctl(shmid[i], IPC_RMID, NULL);
}

/*
 * A client that leaves must shmdt() what it attached: the kernel counts every attachment of a
 * segment (shm_nattch), and a client that deregistered without detaching keeps its count up.
 * When a client registers, each segment should be attached at most once by this service and once
 * by each client still registered (fewer when one died without saying goodbye: the kernel
 * detached it). More, at two registrations in a row (a leak stays; a goodbye still in the queue
 * does not), is a client that left without shmdt(): said once, as the kernel counts it.
 */
static void check_attachments(uint64_t still_registered)
{
    static int said, seen;
    int over = -1;
    unsigned long nattch = 0;
    for (int i = 0; i < nseg && over < 0; i++) {
        struct shmid_ds ds;
        if (shmctl(shmid[i], IPC_STAT, &ds) == 0 && ds.shm_nattch > 1 + still_registered)
            over = i, nattch = (unsigned long)ds.shm_nattch;
    }
    seen = over >= 0 ? seen + 1 : 0;
    if (seen >= 2 && !said) {
        said = 1;
        fprintf(stderr,
                PROG ": segment %d is attached %lu times, by this service and %llu registered "
                     "clients: a client that left did not shmdt() it\n",
                over, nattch, (unsigned long long)still_registered);
    }
}

/* ---- options, the service and main ---- */

static uint64_t segments = 1;            /* --segments */
static const char *id_file = TF_ID_FILE; /* --id-file */

/* A segment holds its header and at least a small chunk. */
static void check_seg_size(void)
{
    if (seg_size < TF_MIN_SEG_SIZE)
        demo_usage_error(PROG, "--segment-size must be at least %d bytes", TF_MIN_SEG_SIZE);
}

static const struct demo_opt opts[] = {
    DEMO_OPT_U64("segments", &segments, 1, TF_MAX_SEGMENTS, "N",
                 "shared-memory segments, 1.." DEMO_STR(TF_MAX_SEGMENTS) " (default 1)"),
    DEMO_OPT_SIZE("segment-size", &seg_size, TF_MAX_SEG_SIZE, "S",
                  "bytes per segment, " DEMO_STR(TF_MIN_SEG_SIZE) ".." DEMO_STR(
                      TF_MAX_SEG_SIZE) ", K suffix allowed (default 4096)",
                  .after = check_seg_size),
    DEMO_OPT_TEXT("id-file", &id_file, "PATH",
                  "where to publish the queue id (default ./" TF_ID_FILE ")"),
    DEMO_OPT_SIZE("check-text", &text_len, 1 << 24, "N",
                  "check that the chunks received are the N-byte test text, K suffix allowed"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "[--segments N] [--segment-size S] [--id-file PATH] [--check-text N]",
    .about = "A compression service reached through System V IPC: clients register on a message\n"
             "queue, then send data through N shared-memory segments of S bytes, one semaphore\n"
             "handshake per chunk. Run tiny-client against it.\n",
    .opts = opts,
};

/* Creates the IPC objects, registers clients until SIGTERM, removes the objects. */
static int serve(void)
{
    for (int i = 0; i < TF_MAX_SEGMENTS; i++)
        shmid[i] = -1;
    demo_signals_init();
    pthread_t threads[TF_MAX_SEGMENTS];
    int nthreads = 0, listening = 0, rc = create_objects();
    struct iolab_app *app = iolab_app();
    uint64_t registered = 0, left = 0;
    if (rc == 0 && text_len)
        rc = text_prepare();
    if (rc < 0) {
        fprintf(stderr, PROG ": could not create the System V objects: %s\n", strerror(-rc));
        goto out;
    }
    /* The segment threads leave SIGTERM to the main thread, whose msgrcv() it must interrupt. */
    demo_signals_mask(SIG_BLOCK);
    for (; nthreads < nseg; nthreads++)
        if (pthread_create(&threads[nthreads], NULL, segment_thread, (void *)(intptr_t)nthreads)) {
            rc = -EAGAIN;
            fprintf(stderr, PROG ": could not start the segment threads\n");
            goto out;
        }
    demo_signals_mask(SIG_UNBLOCK);
    if ((rc = publish_id(id_file)) < 0) {
        fprintf(stderr, PROG ": could not write %s: %s\n", id_file, strerror(-rc));
        goto out;
    }
    demo_ready("listening on msgq %d segments=%d size=%zu", msqid, nseg, seg_size);
    listening = 1;

    while (!demo_stop) {
        struct tf_hello hello;
        /* A negative type takes the lowest type <= 2: registrations, never our own replies. */
        if (msgrcv(msqid, &hello, sizeof hello - sizeof(long), -TF_MSG_DEREGISTER, 0) < 0) {
            if (errno == EINTR)
                continue;
            rc = -errno;
            perror(PROG ": msgrcv");
            break;
        }
        if (hello.mtype == TF_MSG_DEREGISTER || hello.token < TF_TOKEN_MIN) {
            left++;
            if (app)
                iolab_add(&app->conns_closed, 1);
            continue;
        }
        /* Goodbyes still queued are counted first: registrations (the lower type) are taken
           before them, so a client that leaves and joins again and again would otherwise pile
           them up until the queue is full and the count of who is still here is wrong. */
        struct tf_hello bye;
        while (msgrcv(msqid, &bye, sizeof bye - sizeof(long), TF_MSG_DEREGISTER, IPC_NOWAIT) >= 0) {
            left++;
            if (app)
                iolab_add(&app->conns_closed, 1);
        }
        check_attachments(registered - left);
        struct tf_welcome w = {
            .mtype = hello.token, .segments = nseg, .segment_size = (int32_t)seg_size};
        for (int s = 0; s < TF_NSEMSETS; s++)
            w.semid[s] = semid[s];
        for (int i = 0; i < nseg; i++)
            w.shmid[i] = shmid[i];
        if (msgsnd(msqid, &w, sizeof w - sizeof(long), IPC_NOWAIT) == 0) {
            registered++;
            if (app)
                iolab_add(&app->conns_opened, 1);
        }
    }
out:
    unlink(id_file);
    remove_objects(); /* wakes the segment threads with EIDRM */
    for (int i = 0; i < nthreads; i++)
        pthread_join(threads[i], NULL);
    if (listening) {
        uint64_t chunks = 0;
        for (int i = 0; i < nseg; i++)
            chunks += served[i];
        printf("served chunks=%llu registrations=%llu deregistrations=%llu\n",
               (unsigned long long)chunks, (unsigned long long)registered,
               (unsigned long long)left);
    }
    for (int i = 0; i < nseg; i++)
        if (seg[i])
            shmdt(seg[i]);
    free(text);
    free(text_fnv);
    free(text_seen);
    return rc < 0 && !demo_stop ? 1 : 0;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    nseg = (int)segments;
    return serve();
}
