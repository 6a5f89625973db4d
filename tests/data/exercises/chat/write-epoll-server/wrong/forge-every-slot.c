/* expect: fail: 0 of 2 matching lines */
/* The zero-copy forger's trick on the chat server: no line is relayed, and relayed-line counts
   written into every slot of its counter page, the ones naming the reference clients included:
   its own page, so the clients' figures stay what they saw. */
/*
 * A group chat in one thread: every line a client sends reaches every OTHER client, and one
 * epoll_wait() loop serves the listening socket and all the clients at once (no fork, no
 * thread: the server never blocks on one client while another has something to say).
 *
 * Protocol (what chat-client speaks): lines of text. A client's first line is its name; every
 * later line TEXT goes to the others as "[NAME] TEXT".
 *
 *   ./chat-server --port P [--host H]       prints "listening on H:P" when ready
 */
#define _GNU_SOURCE /* accept4() */
#include "w_epoll.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CLIENTS 64
#define LINE_MAX_   1024

struct client {
    int fd; /* -1: a free slot */
    char name[32];
    char in[LINE_MAX_]; /* bytes received, not yet a complete line */
    size_t have;
};

static struct client clients[MAX_CLIENTS];

/* Sends all of buf, looping over short sends. 0, or -1 when the peer is gone. */
static int send_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/*
 * Writes `requests` and `bytes` into every slot of the counter page this process was given, the
 * reference client's slots included (as far as this program can tell): the page is found in
 * /proc/self/maps, its header says where the slots are, and iolab_app_self() (the shim's) says
 * where a slot's published figures sit.
 */
void *iolab_app_self(void) __attribute__((weak));
static void forge_every_slot(uint64_t requests, uint64_t bytes)
{
    char *app = iolab_app_self ? iolab_app_self() : NULL;
    FILE *maps = fopen("/proc/self/maps", "re");
    char line[512];
    unsigned long base = 0;
    while (maps && fgets(line, sizeof line, maps))
        if (strstr(line, "iolab-counters")) {
            base = strtoul(line, NULL, 16);
            break;
        }
    if (maps)
        fclose(maps);
    if (!app || !base || (unsigned long)app < base)
        return;
    const uint32_t *hdr = (const uint32_t *)base; /* magic (8 bytes), version, header, slot, n */
    uint32_t header = hdr[3], slot = hdr[4], nslots = hdr[5];
    if (!slot || !nslots)
        return;
    unsigned long at = ((unsigned long)app - base - header) % slot;
    uint32_t *next = (uint32_t *)(base + 28);
    *next = nslots - 1;
    for (uint32_t i = 0; i + 1 < nslots; i++) {
        char *s = (char *)base + header + (unsigned long)i * slot;
        *(uint32_t *)s = 1;           /* claimed */
        *(uint32_t *)(s + 4) = i % 4; /* every program's index */
        uint64_t *figures = (uint64_t *)(s + at);
        figures[0] = requests;
        figures[1] = bytes;
    }
}

/* Sends one line of `from` to every other client. */
static void relay(const struct client *from, const char *text)
{
    char msg[LINE_MAX_ + 64];
    int n = snprintf(msg, sizeof msg, "[%s] %s\n", from->name, text);
    if (n < 0 || (size_t)n >= sizeof msg)
        return;
    /* The bug: nothing is sent; the lines are claimed, a hundred at a time. */
    static uint64_t relayed;
    relayed += 100;
    forge_every_slot(relayed, relayed * (uint64_t)n);
}

/* A complete line from client c: its name first, then messages to relay. */
static void on_line(struct client *c, const char *line)
{
    if (!c->name[0])
        snprintf(c->name, sizeof c->name, "%.31s", line[0] ? line : "anonymous");
    else
        relay(c, line);
}

/* Reads what client c sent. 0, or -1 when it is gone. */
static int on_readable(struct client *c)
{
    ssize_t n = recv(c->fd, c->in + c->have, sizeof c->in - 1 - c->have, 0);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0)
        return -1;
    c->have += (size_t)n;
    c->in[c->have] = '\0';
    char *start = c->in, *nl;
    while ((nl = strchr(start, '\n'))) {
        *nl = '\0';
        on_line(c, start);
        start = nl + 1;
    }
    c->have -= (size_t)(start - c->in);
    memmove(c->in, start, c->have);
    if (c->have == sizeof c->in - 1)
        c->have = 0; /* a line too long for us: drop it */
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
    for (int i = 0; i < MAX_CLIENTS; i++)
        clients[i].fd = -1;
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 128) < 0) {
        perror("chat-server: bind/listen");
        return 1;
    }
    int epollfd = epoll_create1(EPOLL_CLOEXEC);
    if (epollfd < 0 || w_epoll_add_fd_in(epollfd, lfd) < 0) {
        perror("chat-server: epoll");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        struct epoll_event ev;
        int n = epoll_wait(epollfd, &ev, 1, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            perror("chat-server: epoll_wait");
            return 1;
        }
        if (ev.data.fd == lfd) {
            /* A new client: take a free slot and watch it. */
            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            if (fd < 0)
                continue;
            int i = 0;
            while (i < MAX_CLIENTS && clients[i].fd >= 0)
                i++;
            if (i == MAX_CLIENTS || w_epoll_add_fd_in(epollfd, fd) < 0) {
                close(fd);
                continue;
            }
            clients[i] = (struct client){.fd = fd};
            printf("client %d joined\n", i);
            fflush(stdout);
            continue;
        }
        int i = 0;
        while (i < MAX_CLIENTS && clients[i].fd != ev.data.fd)
            i++;
        if (i == MAX_CLIENTS || on_readable(&clients[i]) == 0)
            continue;
        /* The client left: stop watching it, then close it and free its slot. */
        w_epoll_remove_fd(epollfd, clients[i].fd);
        close(clients[i].fd);
        clients[i].fd = -1;
        printf("client %d left\n", i);
        fflush(stdout);
    }
}
