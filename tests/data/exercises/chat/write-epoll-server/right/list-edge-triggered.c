/* expect: pass */
/*
 * Correct, written differently from the reference: every descriptor is non-blocking and
 * watched edge-triggered, with epoll's data.ptr pointing at its client (a node of a linked
 * list). Each wake-up is drained: accept() until EAGAIN, recv() until EAGAIN. The wrappers of
 * w_epoll.h are not used: the events are registered here, with EPOLLET.
 */
#define _GNU_SOURCE
#include "w_epoll.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct peer {
    int fd;
    char name[32];
    char pending[4096];
    size_t have;
    struct peer *next;
};

static struct peer *everyone;
static struct peer listener_tag; /* data.ptr of the listening socket */

static void deliver(const struct peer *author, const char *line, size_t len)
{
    char msg[4200];
    int n = snprintf(msg, sizeof msg, "[%s] %.*s\n", author->name, (int)len, line);
    if (n < 0 || (size_t)n >= sizeof msg)
        return;
    for (struct peer *p = everyone; p; p = p->next) {
        if (p == author || !p->name[0])
            continue;
        size_t off = 0;
        while (off < (size_t)n) {
            ssize_t w = send(p->fd, msg + off, (size_t)n - off, MSG_NOSIGNAL);
            if (w > 0) {
                off += (size_t)w;
                continue;
            }
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0 && errno == EAGAIN) {
                /* A full socket buffer: wait for it briefly (the bots read all the time). */
                struct timespec t = {0, 1000000};
                nanosleep(&t, NULL);
                continue;
            }
            break;
        }
    }
}

/* Reads everything there is. 1: the peer left. */
static int drain(struct peer *p)
{
    for (;;) {
        ssize_t r = recv(p->fd, p->pending + p->have, sizeof p->pending - p->have, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (r <= 0)
            return 1;
        p->have += (size_t)r;
        char *line = p->pending, *end = p->pending + p->have, *nl;
        while ((nl = memchr(line, '\n', (size_t)(end - line)))) {
            if (!p->name[0])
                snprintf(p->name, sizeof p->name, "%.*s", (int)(nl - line), line);
            else
                deliver(p, line, (size_t)(nl - line));
            line = nl + 1;
        }
        p->have = (size_t)(end - line);
        memmove(p->pending, line, p->have);
        if (p->have == sizeof p->pending)
            p->have = 0;
    }
}

static void leave(int ep, struct peer *gone)
{
    epoll_ctl(ep, EPOLL_CTL_DEL, gone->fd, NULL);
    close(gone->fd);
    for (struct peer **pp = &everyone; *pp; pp = &(*pp)->next)
        if (*pp == gone) {
            *pp = gone->next;
            break;
        }
    free(gone);
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port"))
            port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--host"))
            host = argv[i + 1];
    }
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    int on = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &sa.sin_addr);
    if (bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, 128))
        return 1;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.ptr = &listener_tag};
    if (epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev))
        return 1;
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        struct epoll_event got[8];
        int n = epoll_wait(ep, got, 8, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return 1;
        for (int i = 0; i < n; i++) {
            if (got[i].data.ptr == &listener_tag) {
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    struct peer *p = calloc(1, sizeof *p);
                    if (!p) {
                        close(fd);
                        continue;
                    }
                    p->fd = fd;
                    struct epoll_event pe = {.events = EPOLLIN | EPOLLET, .data.ptr = p};
                    if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &pe)) {
                        close(fd);
                        free(p);
                        continue;
                    }
                    p->next = everyone;
                    everyone = p;
                }
                continue;
            }
            struct peer *p = got[i].data.ptr;
            if (drain(p))
                leave(ep, p);
        }
    }
}
