/*
 * cancel-blocked: a thread blocked in a call is cancelled, as POSIX says it must be at a
 * cancellation point. The shim makes the hot calls itself, and in a process with threads it
 * must make them cancellation points as libc does (shim.c, "Direct calls"); test_counters.cpp
 * runs this under the shim to prove that a blocked thread can still be cancelled. Built without
 * sanitizers (tests/CMakeLists.txt), so that the shim's direct calls are the ones tested.
 *
 *   iolab-cancel-blocked read|recv|recvmsg|write
 *
 * Starts a thread that blocks in that call (on an empty pipe or socket, or a full pipe for
 * write), cancels it 100 ms later and waits up to 3 s for it. Prints "cancelled" and exits 0,
 * or says what went wrong and exits 1 (2 on a bad argument).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static int blocked_fd;
static const char *blocked_call;

static void *blocked_thread(void *arg)
{
    (void)arg;
    char buf[64] = {0};
    if (!strcmp(blocked_call, "read"))
        (void)read(blocked_fd, buf, sizeof buf);
    else if (!strcmp(blocked_call, "recv"))
        (void)recv(blocked_fd, buf, sizeof buf, 0);
    else if (!strcmp(blocked_call, "recvmsg")) {
        struct iovec v = {buf, sizeof buf};
        struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
        (void)recvmsg(blocked_fd, &m, 0);
    } else
        (void)write(blocked_fd, buf, 1);
    return "returned"; /* the call came back: it was not cancelled while blocked */
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "read") && strcmp(argv[1], "recv") &&
                      strcmp(argv[1], "recvmsg") && strcmp(argv[1], "write"))) {
        fprintf(stderr, "usage: iolab-cancel-blocked read|recv|recvmsg|write\n");
        return 2;
    }
    blocked_call = argv[1];
    int fds[2];
    if (!strcmp(blocked_call, "read") || !strcmp(blocked_call, "write")) {
        if (pipe(fds) < 0)
            return perror("pipe"), 1;
    } else if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) < 0)
        return perror("socketpair"), 1;
    blocked_fd = fds[0];
    if (!strcmp(blocked_call, "write")) { /* fill the pipe, so that one more byte blocks */
        blocked_fd = fds[1];
        char chunk[4096] = {0};
        fcntl(fds[1], F_SETFL, O_NONBLOCK);
        while (write(fds[1], chunk, sizeof chunk) > 0)
            ;
        fcntl(fds[1], F_SETFL, 0);
    }
    /* This read is made while the process has one thread: no cancellation point needed. */
    char none;
    if (read(fds[0], &none, 0) < 0)
        return perror("read"), 1;

    pthread_t t;
    if ((errno = pthread_create(&t, NULL, blocked_thread, NULL)) != 0)
        return perror("pthread_create"), 1;
    struct timespec pause = {0, 100 * 1000 * 1000};
    nanosleep(&pause, NULL);
    if ((errno = pthread_cancel(t)) != 0)
        return perror("pthread_cancel"), 1;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 3;
    void *res = NULL;
    int r = pthread_timedjoin_np(t, &res, &deadline);
    if (r == ETIMEDOUT) {
        printf("%s: the thread was still blocked 3 s after pthread_cancel\n", blocked_call);
        fflush(stdout);
        _exit(1); /* the thread cannot be joined: leave without waiting for it */
    }
    if (r != 0 || res != PTHREAD_CANCELED) {
        printf("%s: the thread %s instead of being cancelled\n", blocked_call,
               r ? strerror(r) : (const char *)res);
        return 1;
    }
    printf("cancelled\n");
    return 0;
}
