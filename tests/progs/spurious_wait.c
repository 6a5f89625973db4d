/*
 * spurious_wait: how often pthread_cond_wait() and pthread_cond_timedwait() returned 0 with
 * nothing signalled, for the shim's "spurious" fault (test_faults.cpp). The timed waits have
 * nobody to signal them; the untimed ones a thread that signals every millisecond, counting
 * its signals so that a wake-up it did not send shows. Each wait must return with the mutex
 * held by the caller, which the error-checking mutex's unlock proves.
 *
 *   iolab-spurious-wait      prints "timed N untimed M lost L" and exits 0
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define WAITS 200

static pthread_mutex_t m;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static unsigned long signals; /* under m */
static int stop;              /* under m */

static void *spurious_wait_signaller(void *arg)
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
    if (pthread_create(&t, NULL, spurious_wait_signaller, NULL) != 0)
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
    printf("timed %d untimed %d lost %d\n", timed, untimed, lost);
    return 0;
}
