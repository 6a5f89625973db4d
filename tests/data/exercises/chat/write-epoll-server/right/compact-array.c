/* expect: pass */
/*
 * Correct, written differently from the reference: the connected clients are a compact array
 * (a client who leaves is replaced by the last one), looked up by a scan of their descriptors;
 * epoll_wait() takes up to 16 events at once; lines are assembled with an explicit length, no
 * string functions on what arrived.
 */
#define _GNU_SOURCE
#include "w_epoll.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { ROOM = 64, BUF = 2048 };

struct member {
    int fd;
    int named;
    char name[32];
    char buf[BUF];
    size_t len;
};

static struct member room[ROOM];
static int members;

static int find(int fd)
{
    for (int i = 0; i < members; i++)
        if (room[i].fd == fd)
            return i;
    return -1;
}

static void put(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void say(int from, const char *text, size_t tlen)
{
    char out[BUF + 64];
    size_t nl = strlen(room[from].name);
    size_t n = 0;
    out[n++] = '[';
    memcpy(out + n, room[from].name, nl);
    n += nl;
    out[n++] = ']';
    out[n++] = ' ';
    memcpy(out + n, text, tlen);
    n += tlen;
    out[n++] = '\n';
    for (int i = 0; i < members; i++)
        if (i != from)
            put(room[i].fd, out, n);
}

/* 0: still here; -1: gone. */
static int hear(int i)
{
    struct member *m = &room[i];
    ssize_t r = recv(m->fd, m->buf + m->len, sizeof m->buf - m->len, 0);
    if (r < 0 && errno == EINTR)
        return 0;
    if (r <= 0)
        return -1;
    m->len += (size_t)r;
    size_t start = 0;
    for (size_t k = 0; k < m->len; k++) {
        if (m->buf[k] != '\n')
            continue;
        size_t tlen = k - start;
        if (!m->named) {
            snprintf(m->name, sizeof m->name, "%.*s", (int)(tlen < 31 ? tlen : 31), m->buf + start);
            m->named = 1;
        } else {
            say(i, m->buf + start, tlen);
        }
        start = k + 1;
    }
    memmove(m->buf, m->buf + start, m->len - start);
    m->len -= start;
    if (m->len == sizeof m->buf)
        m->len = 0;
    return 0;
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
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    int yes = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 64) < 0)
        return 1;
    int ep = epoll_create1(0);
    if (w_epoll_add_fd_in(ep, lfd) < 0)
        return 1;
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    struct epoll_event evs[16];
    for (;;) {
        int n = epoll_wait(ep, evs, 16, -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        for (int e = 0; e < n; e++) {
            int fd = evs[e].data.fd;
            if (fd == lfd) {
                int c = accept(lfd, NULL, NULL);
                if (c < 0)
                    continue;
                if (members == ROOM || w_epoll_add_fd_in(ep, c) < 0) {
                    close(c);
                    continue;
                }
                memset(&room[members], 0, sizeof room[members]);
                room[members++].fd = c;
                continue;
            }
            int i = find(fd);
            if (i < 0 || hear(i) == 0)
                continue;
            w_epoll_remove_fd(ep, fd);
            close(fd);
            room[i] = room[--members];
        }
    }
}
