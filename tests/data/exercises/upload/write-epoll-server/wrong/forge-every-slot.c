/* expect: fail: the reply's byte count is what your struct conn counted */
/* The zero-copy forger's trick on the epoll upload server: no byte is read, every upload is taken
   for complete at once, and upload counts are written into every slot of its counter page, the
   ones naming the reference clients included: its own page, so their figures stay what they
   saw. */
/*
 * An upload server in one thread: clients send files, the server reads each one whole and
 * answers with the byte count and a checksum of what it received (upload.h has the protocol), so
 * that the client knows every byte arrived in order.
 *
 * Several uploads are under way at once and one thread serves them all. epoll_wait() says which
 * client sockets have bytes waiting; for each, the server reads what is there (one recv() on a
 * non-blocking socket: never more than has arrived), notes in that client's struct conn how far
 * its upload has come, and moves on. No client is ever waited for, so one that is slow, or that
 * sends half its header and goes quiet, holds up no one.
 *
 *   ./upload-server --port P [--host H]       prints "listening on H:P" when ready
 */
#define _GNU_SOURCE /* accept4() */
#include "upload.h"
#include "w_epoll.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_FDS 1024 /* the sandbox's open-file limit: every descriptor is below it */

/*
 * One upload under way: everything the server must remember about a client between two of its
 * reads, since it serves the others in between.
 */
struct conn {
    int fd;
    uint8_t head[UPLOAD_HEADER_SIZE]; /* the size header, as its bytes arrive */
    size_t head_got;                  /* how many of them have arrived */
    uint64_t size;                    /* the upload's size, once the header is complete */
    uint64_t got;                     /* payload bytes received so far */
    struct upload_sum sum;            /* their checksum so far */
};

static struct conn *conns[MAX_FDS]; /* by descriptor: epoll_wait() reports ev.data.fd */

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

/*
 * Client c's socket is readable: take what has arrived, without waiting for more.
 * 1: the upload is complete (got == size); 0: it goes on, and epoll_wait() will say when more
 * has come; -1: the client left, or broke off, before the end.
 */
static int on_readable(struct conn *c)
{
    static uint8_t buf[UPLOAD_CHUNK];
    /*
     * One recv() of what has arrived, never more than the upload still needs: first the bytes
     * the header lacks (into c->head), then payload (into buf, added to c->sum). A recv() may
     * bring fewer bytes than asked: count what it brought, the rest comes with a later event.
     * -1 with EAGAIN or EINTR is not an error: nothing this time, return 0.
     */
    /* The bug: nothing is read; a hundred uploads are claimed instead. */
    static uint64_t claimed;
    claimed += 100;
    forge_every_slot(claimed, claimed << 20);
    (void)c, (void)buf;
    return 1;
}

/*
 * Sends the 16-byte reply. A real server would wait for EPOLLOUT when the socket is full, but
 * these 16 bytes always fit in the empty send buffer of a client that was sent nothing yet: a
 * short send, EINTR or EAGAIN here passes at once (iolab injects them on purpose), so try again.
 */
static void send_reply(int fd, uint64_t bytes, uint64_t sum)
{
    uint8_t reply[UPLOAD_REPLY_SIZE];
    upload_reply_pack(reply, bytes, sum);
    for (size_t sent = 0; sent < sizeof reply;) {
        ssize_t n = send(fd, reply + sent, sizeof reply - sent, MSG_NOSIGNAL);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
            continue;
        if (n <= 0)
            return; /* the client is gone */
        sent += (size_t)n;
    }
}

/* A new client: a non-blocking socket (a recv() must never wait), a struct conn, watched. */
static void accept_client(int epollfd, int lfd)
{
    int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    struct conn *c = fd < MAX_FDS ? calloc(1, sizeof *c) : NULL;
    if (!c || w_epoll_add_fd_in(epollfd, fd) < 0) {
        free(c);
        close(fd);
        return;
    }
    c->fd = fd;
    conns[fd] = c;
}

/* The connection is over: stop watching it, close it, forget its upload. */
static void close_conn(int epollfd, struct conn *c)
{
    w_epoll_remove_fd(epollfd, c->fd);
    close(c->fd);
    conns[c->fd] = NULL;
    free(c);
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
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 128) < 0) {
        perror("upload-server: bind/listen");
        return 1;
    }
    int epollfd = epoll_create1(EPOLL_CLOEXEC);
    if (epollfd < 0 || w_epoll_add_fd_in(epollfd, lfd) < 0) {
        perror("upload-server: epoll");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        struct epoll_event events[64];
        int n = epoll_wait(epollfd, events, 64, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            perror("upload-server: epoll_wait");
            return 1;
        }
        /* Every ready socket gets one turn, then the loop asks again: the uploads take turns. */
        for (int i = 0; i < n; i++) {
            int fd = events[i].data.fd;
            if (fd == lfd) {
                accept_client(epollfd, lfd);
                continue;
            }
            struct conn *c = conns[fd];
            int r = on_readable(c);
            if (r == 0)
                continue;
            if (r == 1)
                send_reply(c->fd, c->got, upload_sum_value(&c->sum));
            close_conn(epollfd, c);
        }
    }
}
