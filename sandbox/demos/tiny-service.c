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
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "[--segments N] [--segment-size S] [--id-file PATH]",
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
    return rc < 0 && !demo_stop ? 1 : 0;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    nseg = (int)segments;
    return serve();
}
