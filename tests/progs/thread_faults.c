/*
 * thread_faults: what the shim's thread faults did (test_faults.cpp). For "spurious": how often
 * pthread_cond_wait() and pthread_cond_timedwait() returned 0 with nothing signalled. The timed
 * waits have nobody to signal them; the untimed ones a thread that signals every millisecond,
 * counting its signals so that a wake-up it did not send shows. Each wait must return with the
 * mutex held by the caller, which the error-checking mutex's unlock proves. For "late_start": how
 * many of THREADS threads began a millisecond or more after their pthread_create() returned.
 *
 *   iolab-thread-faults      prints "timed N untimed M lost L late K" and exits 0
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define WAITS   200
#define THREADS 50

static pthread_mutex_t m;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static unsigned long signals; /* under m */
static int stop;              /* under m */

static long long returned_ns[THREADS]; /* when each pthread_create() returned in main() */
static long long began_ns[THREADS];    /* when each thread began */

static long long thread_faults_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void *thread_faults_starter(void *arg)
{
    began_ns[(intptr_t)arg] = thread_faults_now();
    return NULL;
}

static void *thread_faults_signaller(void *arg)
{
    (void)arg;
    for (;;) {
        usleep(1000);
        pthread_mutex_lock(&m);
        int done = stop;
        signals++;
        pthread_cond_broadcast(&c);
        pthread_mutex_unlock(&m);
        if (done)
            return NULL;
    }
}

int main(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_init(&m, &a);
    int timed = 0, untimed = 0, lost = 0;
    for (int i = 0; i < WAITS; i++) {
        pthread_mutex_lock(&m);
        struct timespec at;
        clock_gettime(CLOCK_REALTIME, &at);
        at.tv_nsec += 1000000;
        if (at.tv_nsec >= 1000000000) {
            at.tv_sec++;
            at.tv_nsec -= 1000000000;
        }
        if (pthread_cond_timedwait(&c, &m, &at) == 0)
            timed++;
        if (pthread_mutex_unlock(&m) != 0)
            lost++;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, thread_faults_signaller, NULL) != 0)
        return 1;
    for (int i = 0; i < WAITS; i++) {
        pthread_mutex_lock(&m);
        unsigned long before = signals;
        pthread_cond_wait(&c, &m);
        if (signals == before)
            untimed++;
        if (pthread_mutex_unlock(&m) != 0)
            lost++;
    }
    pthread_mutex_lock(&m);
    stop = 1;
    pthread_mutex_unlock(&m);
    pthread_join(t, NULL);
    pthread_t tid[THREADS];
    for (int i = 0; i < THREADS; i++) {
        if (pthread_create(&tid[i], NULL, thread_faults_starter, (void *)(intptr_t)i) != 0)
            return 1;
        returned_ns[i] = thread_faults_now();
    }
    int late = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tid[i], NULL); /* after it, began_ns[i] is ours to read */
        late += began_ns[i] - returned_ns[i] >= 1000000;
    }
    printf("timed %d untimed %d lost %d late %d\n", timed, untimed, lost, late);
    return 0;
}
