/* Hostile: starts N threads (default 50) that sleep, says so, and holds them for 60 s. The kernel
 * counts each thread against its uid's RLIMIT_NPROC, so a limit set from the uid's processes
 * alone comes out too low for the next program of the same uid. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *threadhold_sleep(void *arg)
{
    (void)arg;
    sleep(60);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 50;
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, threadhold_sleep, NULL) != 0) {
            printf("thread %d failed\n", i);
            return 1;
        }
    }
    printf("holding %d threads\n", n);
    fflush(stdout);
    sleep(60);
    return 0;
}
