/* iolab-starter: 1 */
/*
 * w_epoll.h: small wrappers around epoll_ctl() (you wrote them in the chat exercise). Each
 * returns what epoll_ctl() returns: 0, or -1 with errno set.
 */
#ifndef W_EPOLL_H
#define W_EPOLL_H

#include <stddef.h>
#include <sys/epoll.h>

static inline int w_epoll_add_fd_in(int epollfd, int fd)
{
    struct epoll_event ev = {.events = EPOLLIN};
    ev.data.fd = fd;
    return epoll_ctl(epollfd, EPOLL_CTL_ADD, fd, &ev);
}

static inline int w_epoll_remove_fd(int epollfd, int fd)
{
    return epoll_ctl(epollfd, EPOLL_CTL_DEL, fd, NULL);
}

#endif
