/*
 * sync_faults: what the shim's "coalesce_sigchld" and "jitter_us" faults did (test_faults.cpp).
 *
 *   iolab-sync-faults sigchld all|one   ROUNDS times, two children that exit at the same moment
 *       (both read a pipe the parent then closes), 300 ms apart; then one child alone. The
 *       SIGCHLD handler (installed with sigaction(), or with signal() when a third argument
 *       "signal" is given) reaps every child that has exited ("all") or one per call ("one").
 *       One second after the last exit, main() reaps what is left. Prints "calls C reaped R
 *       left L own O": the handler's calls, the children it reaped, those main() found left,
 *       and 1 when sigaction() says the handler is the program's own.
 *   iolab-sync-faults jitter            100 mutex lock/unlock pairs, 100 sem_post/sem_wait pairs
 *       and 50 System V semop() +1/-1 pairs in one thread; prints "ms M", the time they took.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 5

static volatile sig_atomic_t calls, reaped;
static int reap_all;

static void sync_faults_on_chld(int sig)
{
    (void)sig;
    int saved = errno;
    calls++;
    if (reap_all) {
        while (waitpid(-1, NULL, WNOHANG) > 0)
            reaped++;
    } else if (waitpid(-1, NULL, WNOHANG) > 0) {
        reaped++;
    }
    errno = saved;
}

/* Sleeps ms milliseconds whatever signals come in between. */
static void sync_faults_sleep(long ms)
{
    struct timespec t = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) < 0 && errno == EINTR)
        ;
}

/* Forks n children that exit once the returned descriptor is closed; -1 on failure. */
static int sync_faults_fork(int n)
{
    int p[2];
    if (pipe(p) < 0)
        return -1;
    for (int i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            return -1;
        if (pid == 0) {
            char c;
            close(p[1]);
            while (read(p[0], &c, 1) < 0 && errno == EINTR)
                ;
            _exit(0);
        }
    }
    close(p[0]);
    return p[1];
}

static int sync_faults_sigchld(const char *how, int by_signal)
{
    reap_all = !strcmp(how, "all");
    if (by_signal) {
        signal(SIGCHLD, sync_faults_on_chld);
    } else {
        struct sigaction sa = {.sa_handler = sync_faults_on_chld, .sa_flags = SA_RESTART};
        sigemptyset(&sa.sa_mask);
        sigaction(SIGCHLD, &sa, NULL);
    }
    struct sigaction now;
    sigaction(SIGCHLD, NULL, &now);
    int own = !(now.sa_flags & SA_SIGINFO) && now.sa_handler == sync_faults_on_chld;
    for (int r = 0; r <= ROUNDS; r++) {
        int go = sync_faults_fork(r < ROUNDS ? 2 : 1);
        if (go < 0)
            return 1;
        sync_faults_sleep(50); /* both are waiting in read() */
        close(go);
        sync_faults_sleep(300);
    }
    sync_faults_sleep(1000);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int left = 0;
    while (waitpid(-1, NULL, WNOHANG) > 0)
        left++;
    printf("calls %d reaped %d left %d own %d\n", (int)calls, (int)reaped, left, own);
    return 0;
}

static long long sync_faults_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

static int sync_faults_jitter(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    sem_t s;
    if (sem_init(&s, 0, 0) < 0)
        return 1;
    int set = semget(IPC_PRIVATE, 1, 0600);
    if (set < 0)
        return 1;
    long long t0 = sync_faults_now_ms();
    for (int i = 0; i < 100; i++) {
        pthread_mutex_lock(&m);
        pthread_mutex_unlock(&m);
        sem_post(&s);
        sem_wait(&s);
    }
    for (int i = 0; i < 50; i++) {
        struct sembuf up = {.sem_num = 0, .sem_op = 1}, down = {.sem_num = 0, .sem_op = -1};
        semop(set, &up, 1);
        semop(set, &down, 1);
    }
    long long ms = sync_faults_now_ms() - t0;
    semctl(set, 0, IPC_RMID);
    sem_destroy(&s);
    printf("ms %lld\n", ms);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "sigchld"))
        return sync_faults_sigchld(argv[2], argc >= 4 && !strcmp(argv[3], "signal"));
    if (argc >= 2 && !strcmp(argv[1], "jitter"))
        return sync_faults_jitter();
    fprintf(stderr, "usage: iolab-sync-faults sigchld all|one [signal] | jitter\n");
    return 2;
}
