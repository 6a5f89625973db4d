/*
 * slot_churn: a test program that starts many short-lived threads or processes, each making a
 * known number of counted calls, and prints its own tally of them, so that a test can compare the
 * counter page's totals with the truth (tests/integration/test_slots.cpp).
 *
 *   slot_churn --threads N | --procs N  [--batch B] [--calls K]
 *
 * Work goes in waves of B workers alive at once (threads wait on a barrier before ending, so a
 * wave really holds B live slots; processes simply overlap). Each worker makes K fdatasync(-1)
 * calls (counted, failing with EBADF) and K pwrite() calls of 1 to 7 bytes to /dev/null, and
 * adds one request and those bytes to its app figures. Threads end by returning or by
 * pthread_exit; processes by exit, _exit, SIGKILL or SIGTERM, in turn, so that every way a slot's
 * owner can end is seen. The last line on stdout is the tally:
 *   fdatasync=F pwrite64=P bytes=B requests=R fork=N pthread_create=T
 * Exit status 0, 2 on bad arguments, 3 when a worker did not end as it was told to.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "iolab_counters.h"

static int churn_devnull = -1;
static long churn_calls = 10;
static pthread_barrier_t churn_barrier;

/* Bytes a worker writes per pwrite: 1 to 7, so that byte totals test more than counts. */
static size_t churn_size(long id)
{
    return 1 + (size_t)(id % 7);
}

static void churn_work(long id)
{
    static const char buf[8] = "abcdefg";
    size_t n = churn_size(id);
    for (long i = 0; i < churn_calls; i++) {
        if (fdatasync(-1) != -1 || errno != EBADF)
            _exit(3);
        if (pwrite(churn_devnull, buf, n, 0) != (ssize_t)n)
            _exit(3);
    }
    struct iolab_app *a = iolab_app();
    if (a) {
        iolab_add(&a->requests, 1);
        iolab_add(&a->bytes, n * (uint64_t)churn_calls);
    }
}

static void *churn_thread(void *arg)
{
    long id = (long)arg;
    churn_work(id);
    pthread_barrier_wait(&churn_barrier);
    if (id % 2)
        pthread_exit(NULL);
    return NULL;
}

static int churn_threads(long total, long batch, unsigned long long *bytes)
{
    pthread_t *t = calloc((size_t)batch, sizeof *t);
    if (!t)
        return 3;
    for (long done = 0; done < total;) {
        long n = total - done < batch ? total - done : batch;
        pthread_barrier_init(&churn_barrier, NULL, (unsigned)n);
        for (long i = 0; i < n; i++)
            if (pthread_create(&t[i], NULL, churn_thread, (void *)(done + i)) != 0)
                return 3;
        for (long i = 0; i < n; i++) {
            pthread_join(t[i], NULL);
            *bytes += churn_size(done + i) * (unsigned long long)churn_calls;
        }
        pthread_barrier_destroy(&churn_barrier);
        done += n;
    }
    free(t);
    return 0;
}

/* How child `id` ends, and the wait status that says it did. */
static void churn_end(long id)
{
    switch (id % 4) {
    case 0:
        exit(0);
    case 1:
        _exit(0);
    case 2:
        kill(getpid(), SIGKILL);
        break;
    default:
        kill(getpid(), SIGTERM);
        break;
    }
    _exit(4);
}

static int churn_ended_right(long id, int st)
{
    switch (id % 4) {
    case 0:
    case 1:
        return WIFEXITED(st) && WEXITSTATUS(st) == 0;
    case 2:
        return WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
    default:
        return WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM;
    }
}

static int churn_procs(long total, long batch, unsigned long long *bytes)
{
    pid_t *pids = calloc((size_t)batch, sizeof *pids);
    if (!pids)
        return 3;
    for (long done = 0; done < total;) {
        long n = total - done < batch ? total - done : batch;
        for (long i = 0; i < n; i++) {
            pids[i] = fork();
            if (pids[i] < 0)
                return 3;
            if (pids[i] == 0) {
                churn_work(done + i);
                churn_end(done + i);
            }
        }
        for (long i = 0; i < n; i++) {
            int st;
            if (waitpid(pids[i], &st, 0) != pids[i] || !churn_ended_right(done + i, st))
                return 3;
            *bytes += churn_size(done + i) * (unsigned long long)churn_calls;
        }
        done += n;
    }
    free(pids);
    return 0;
}

static long churn_num(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return errno || *end || v < 0 ? -1 : v;
}

int main(int argc, char **argv)
{
    long threads = 0, procs = 0, batch = 16;
    for (int i = 1; i + 1 < argc; i += 2) {
        long v = churn_num(argv[i + 1]);
        if (!strcmp(argv[i], "--threads"))
            threads = v;
        else if (!strcmp(argv[i], "--procs"))
            procs = v;
        else if (!strcmp(argv[i], "--batch"))
            batch = v;
        else if (!strcmp(argv[i], "--calls"))
            churn_calls = v;
        else
            v = -1;
        if (v < 0) {
            fprintf(stderr, "usage: slot_churn --threads N | --procs N [--batch B] [--calls K]\n");
            return 2;
        }
    }
    if (batch < 1 || (argc - 1) % 2) {
        fprintf(stderr, "usage: slot_churn --threads N | --procs N [--batch B] [--calls K]\n");
        return 2;
    }
    churn_devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (churn_devnull < 0)
        return 3;
    unsigned long long bytes = 0;
    int rc = threads ? churn_threads(threads, batch, &bytes) : churn_procs(procs, batch, &bytes);
    if (rc)
        return rc;
    long workers = threads + procs;
    printf("fdatasync=%ld pwrite64=%ld bytes=%llu requests=%ld fork=%ld pthread_create=%ld\n",
           workers * churn_calls, workers * churn_calls, bytes, workers, procs, threads);
    return 0;
}
