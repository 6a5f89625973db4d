/* iolab-starter: 1 */
/*
 * w_epoll.h: small wrappers around epoll_ctl(), so that the server's loop reads as what it does.
 * Each returns what epoll_ctl() returns (0, or -1 with errno set) for the caller to check.
 */
#ifndef W_EPOLL_H
#define W_EPOLL_H

#include <stddef.h>
#include <sys/epoll.h>

/* Watches fd for input: epoll_wait() will report it when it is readable. */
static inline int w_epoll_add_fd_in(int epollfd, int fd)
{
    /* TODO 3: fill a struct epoll_event with EPOLLIN and data.fd = fd, and EPOLL_CTL_ADD it */
    struct epoll_event ev = {.events = EPOLLIN};
    ev.data.fd = fd;
    return epoll_ctl(epollfd, EPOLL_CTL_ADD, fd, &ev);
    /* REPLACE 3 */
    // (void)epollfd;
    // (void)fd;
    // return 0;
}

/* Stops watching fd (before it is closed). */
static inline int w_epoll_remove_fd(int epollfd, int fd)
{
    /* TODO 1: EPOLL_CTL_DEL fd from the epoll instance */
    return epoll_ctl(epollfd, EPOLL_CTL_DEL, fd, NULL);
    /* REPLACE 3 */
    // (void)epollfd;
    // (void)fd;
    // return 0;
}

#endif
