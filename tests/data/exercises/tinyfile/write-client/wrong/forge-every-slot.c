/* expect: fail: a result was not the compressed chunk */
/* The zero-copy forger's trick on the TinyFile client: no chunk goes to the service, each comes
   back as it was, and request counts are written into every slot of its counter page, the ones
   naming the service included: its own page, so the service's figures stay what it saw. */
/* iolab-starter: 1 */
/*
 * A TinyFile client: it hands text to tiny-service, which compresses it, through the service's
 * System V shared-memory segments, and checks every result by decompressing it here.
 *
 * The protocol (tinyfile.h): the client registers on the service's message queue and gets back
 * the ids of N segments and of three semaphore sets (own, req, rep: one semaphore per segment in
 * each). Joining, the request loop and the check of every result are done. Your part is the
 * synchronous call, one chunk through segment i, and leaving:
 *
 *   TODO 1  take segment i       semop(own[i], -1, SEM_UNDO): no other client may use it now
 *   TODO 2  the request          write seq, len and the chunk into it, then semop(req[i], +1)
 *   TODO 3  the reply            semtimedop(rep[i], -1) with a timeout, copy the result out,
 *                                then give the segment back: semop(own[i], +1, SEM_UNDO)
 *   TODO 4  leave                shmdt() every segment this client attached
 *
 * Two threads, each a client of its own (its own registration and attachments), compress the
 * same text again and again, each for a few requests per registration: register, compress,
 * leave, as a program using a library would.
 *
 *   ./tiny-client --id-file PATH [--input-size N]
 */
#define _GNU_SOURCE
#include "tinyfile.h"

#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <time.h>
#include <unistd.h>

#define THREADS           2
#define REQUESTS_PER_JOIN 10
#define REPLY_WAIT_S      2

/* One client: what the service told it, and where each segment is attached in this process. */
struct client {
    long token;
    int msqid;
    struct tf_welcome svc;
    struct tf_segment *seg[TF_MAX_SEGMENTS];
};

/*
 * Compresses n bytes of in (at most tf_max_input() of a segment) through segment i into out,
 * request number seq. Returns the size of the result, or a negative errno: -EAGAIN when no
 * reply came within REPLY_WAIT_S seconds.
 */
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

static long roundtrip(struct client *c, int i, const unsigned char *in, size_t n,
                      unsigned char *out, uint64_t seq)
{
    struct tf_segment *s = c->seg[i];
    unsigned short num = (unsigned short)i;
    /* The bug: the service is never asked; a hundred round trips are claimed instead. */
    static uint64_t claimed;
    claimed += 100;
    forge_every_slot(claimed, claimed * n);
    (void)s, (void)num, (void)seq;
    memcpy(out, in, n);
    return (long)n;
}

/* Detaches every segment this client attached; then it deregisters. */
static void leave(struct client *c)
{
    for (int i = 0; i < TF_MAX_SEGMENTS; i++)
        if (c->seg[i]) {
            shmdt(c->seg[i]);
            c->seg[i] = NULL;
        }
    struct tf_hello bye = {.mtype = TF_MSG_DEREGISTER, .token = c->token};
    msgsnd(c->msqid, &bye, sizeof bye - sizeof(long), IPC_NOWAIT);
}

/* ---- plumbing: nothing to change below ---- */

static const char *id_file = TF_ID_FILE;
static size_t input_len = 5000;
static unsigned char *input;
static uint64_t next_seq;                        /* request numbers, all threads (atomic) */
static int said_wrong, said_timeout, said_other; /* each problem is said once */
static unsigned long long done[THREADS], wrong[THREADS];

/* Says one line once, whole, in one write; under a lock, so that another thread that then exits
   cannot cut the line short. */
static void say_once(int *said, const char *fmt, long a)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_mutex_lock(&lock);
    if (!*said) {
        char line[256];
        int n = snprintf(line, sizeof line, "tiny-client: ");
        n += snprintf(line + n, sizeof line - (size_t)n, fmt, a);
        if (n > (int)sizeof line - 2)
            n = (int)sizeof line - 2;
        line[n++] = '\n';
        if (write(2, line, (size_t)n) < 0)
            n = 0; /* nowhere to say it */
        *said = 1;
    }
    pthread_mutex_unlock(&lock);
}

/* Registers with the service named in the id file and attaches its segments; 0 or -errno. */
static int join(struct client *c)
{
    FILE *f = fopen(id_file, "r");
    if (!f)
        return -errno;
    int ok = fscanf(f, "%d", &c->msqid) == 1;
    fclose(f);
    struct tf_hello hello = {.mtype = TF_MSG_REGISTER, .token = c->token};
    if (!ok || msgsnd(c->msqid, &hello, sizeof hello - sizeof(long), 0) < 0 ||
        msgrcv(c->msqid, &c->svc, sizeof c->svc - sizeof(long), c->token, 0) < 0)
        return -EAGAIN;
    for (int i = 0; i < c->svc.segments; i++) {
        void *p = shmat(c->svc.shmid[i], NULL, 0);
        if (p == (void *)-1)
            return -errno;
        c->seg[i] = p;
    }
    return 0;
}

/* Compresses the input chunk by chunk, lane k through segment (k + first) % N, and checks that
   every chunk's result decompresses to it. 1 right, 0 wrong, or a negative errno. */
static int compress_input(struct client *c, int first)
{
    size_t size = (size_t)c->svc.segment_size;
    size_t chunk = tf_max_input(size), room = size - sizeof(struct tf_segment);
    unsigned char *out = malloc(room), *back = malloc(chunk);
    int right = out && back ? 1 : -ENOMEM;
    for (size_t off = 0, k = 0; right >= 0 && off < input_len; off += chunk, k++) {
        size_t n = input_len - off < chunk ? input_len - off : chunk;
        int i = (int)((k + (size_t)first) % (size_t)c->svc.segments);
        uint64_t seq = __atomic_add_fetch(&next_seq, 1, __ATOMIC_RELAXED);
        long m = roundtrip(c, i, input + off, n, out, seq);
        if (m < 0) {
            right = (int)m;
            break;
        }
        long got = (size_t)m <= room ? tf_decompress(out, (size_t)m, back, chunk) : -1;
        if (got != (long)n || memcmp(back, input + off, n) != 0)
            right = 0;
    }
    free(out);
    free(back);
    return right;
}

static void *client_thread(void *arg)
{
    int t = (int)(intptr_t)arg;
    struct client c = {.token = TF_TOKEN_MIN + 1000 * (long)getpid() + t};
    for (;;) {
        int rc = join(&c);
        if (rc < 0) {
            usleep(20000); /* the service is not up yet */
            continue;
        }
        for (int r = 0; r < REQUESTS_PER_JOIN && rc >= 0; r++) {
            rc = compress_input(&c, t);
            if (rc == 1) {
                done[t]++;
            } else if (rc == 0) {
                /* A wrong result is a broken handshake: say it and stop, before anything
                   else it breaks (a segment left attached, say) hides it. */
                wrong[t]++;
                say_once(&said_wrong,
                         "a result did not decompress to the input it was sent for "
                         "(%ld wrong so far)",
                         (long)wrong[t]);
                exit(1);
            }
        }
        if (rc == -EAGAIN) {
            say_once(&said_timeout,
                     "no reply within %ld s: did the client post the request semaphore after "
                     "writing the segment?",
                     REPLY_WAIT_S);
            exit(1); /* the segment is still ours: SEM_UNDO gives it back as we exit */
        }
        if (rc < 0 && rc != -EIDRM && rc != -EINVAL)
            say_once(&said_other, "a semaphore operation failed with errno %ld (see errno(3))",
                     -rc);
        leave(&c);
        if (rc < 0)
            usleep(20000);
    }
    return NULL;
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
    /* The test text (tinyfile.h): tiny-service --check-text knows it too, and checks it. */
    tf_test_text(input, input_len);
    pthread_t tid[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&tid[t], NULL, client_thread, (void *)(intptr_t)t);
    for (;;) {
        sleep(1);
        unsigned long long d = 0, w = 0;
        for (int t = 0; t < THREADS; t++)
            d += done[t], w += wrong[t];
        printf("requests=%llu wrong=%llu\n", d, w);
        fflush(stdout);
    }
}
