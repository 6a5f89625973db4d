/* expect: pass */
/*
 * Correct, written differently from the reference: every socket is watched edge-triggered with
 * epoll's data.ptr pointing at its upload's state (the listener at a tag of its own), so each
 * wake-up is drained: accept() until EAGAIN, recv() until EAGAIN. The header and the payload go
 * through one recv() each time, into a staging buffer that is split afterwards.
 */
#define _GNU_SOURCE
#include "upload.h"
#include "w_epoll.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct upload {
    int fd;
    uint8_t head[UPLOAD_HEADER_SIZE];
    size_t head_len;
    uint64_t size, got;
    struct upload_sum sum;
};

static char listener_tag;

static void reply(int fd, uint64_t bytes, uint64_t sum)
{
    uint8_t r[UPLOAD_REPLY_SIZE];
    upload_reply_pack(r, bytes, sum);
    size_t off = 0;
    while (off < sizeof r) {
        ssize_t n = send(fd, r + off, sizeof r - off, MSG_NOSIGNAL);
        if (n > 0)
            off += (size_t)n;
        else if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        else
            return;
    }
}

/* Reads until EAGAIN. 0: more to come; 1: complete; -1: the client left first. */
static int drain(struct upload *u)
{
    static uint8_t stage[65536];
    for (;;) {
        size_t want = UPLOAD_HEADER_SIZE - u->head_len;
        if (u->head_len == UPLOAD_HEADER_SIZE) {
            uint64_t left = u->size - u->got;
            if (left == 0)
                return 1;
            want = left < sizeof stage ? (size_t)left : sizeof stage;
        }
        ssize_t n = recv(u->fd, stage, want, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return 0;
        if (n <= 0)
            return -1;
        size_t k = (size_t)n;
        if (u->head_len < UPLOAD_HEADER_SIZE) {
            memcpy(u->head + u->head_len, stage, k);
            if ((u->head_len += k) == UPLOAD_HEADER_SIZE) {
                uint64_t be;
                memcpy(&be, u->head, 8);
                u->size = be64toh(be);
            }
            continue;
        }
        upload_sum_add(&u->sum, stage, k);
        u->got += k;
    }
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
    signal(SIGPIPE, SIG_IGN);
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) || listen(lfd, 128))
        return 1;
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event lev = {.events = EPOLLIN | EPOLLET, .data.ptr = &listener_tag};
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &lev))
        return 1;
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        struct epoll_event evs[32];
        int n = epoll_wait(ep, evs, 32, -1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return 1;
        }
        for (int i = 0; i < n; i++) {
            if (evs[i].data.ptr == &listener_tag) {
                int fd;
                while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    struct upload *u = calloc(1, sizeof *u);
                    struct epoll_event ev = {.events = EPOLLIN | EPOLLET, .data.ptr = u};
                    if (!u || epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev)) {
                        free(u);
                        close(fd);
                        continue;
                    }
                    u->fd = fd;
                }
                continue;
            }
            struct upload *u = evs[i].data.ptr;
            int r = drain(u);
            if (r == 0)
                continue;
            if (r == 1)
                reply(u->fd, u->got, upload_sum_value(&u->sum));
            epoll_ctl(ep, EPOLL_CTL_DEL, u->fd, NULL);
            close(u->fd);
            free(u);
        }
    }
}
