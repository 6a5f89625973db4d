/*
 * chat-server: a group chat in one thread. Every line a client sends goes to every OTHER
 * client; one epoll_wait() loop serves the listener and all the clients.
 *
 * Protocol: lines of text. A client's first line is its name; the server then answers it with
 * `* welcome NAME; N in the room` and tells the others `* NAME joined`. Every later line TEXT
 * reaches the others as `[NAME] TEXT`. When a client leaves, the others get `* NAME left`.
 *
 * The loop (level-triggered epoll, non-blocking sockets):
 *   - the listener is readable: accept() the new client and watch it for EPOLLIN.
 *   - a client is readable: ONE recv() per wake-up (if more is waiting, epoll says so again),
 *     then every complete line in its input buffer is handled. A partial line waits for the
 *     rest; a client that disconnects mid-line takes the partial line with it.
 *   - relaying a line is one send() per recipient, straight away. What a slow recipient's
 *     socket buffer cannot take goes to that client's output buffer, and the client is watched
 *     for EPOLLOUT until the buffer is empty again. A client whose output buffer would exceed
 *     OUT_MAX is dropped: one slow reader must not make the server hold unbounded memory, nor
 *     slow down everyone else.
 *
 * Invariant: a client is closed and freed only after the current batch of epoll events has been
 * handled (clients marked `gone` are reaped then), so an event later in the batch never points
 * to freed memory, and a client dropped while a line is being relayed does not change the list
 * being walked.
 *
 * Output: `listening on HOST:PORT`, then one line per join, leave and drop; messages are not
 * logged, so a relayed line costs exactly one recv() and one send() per recipient.
 *
 * Published figures: requests (lines relayed), bytes (bytes sent to recipients), conns_opened,
 * conns_closed, errors (clients dropped for being too slow).
 */
#include "demo.h"
#include "iolab_counters.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG         "chat-server"
#define TEXT_MAX     1024        /* the longest line; a longer one is cut and relayed in pieces */
#define NAME_MAX_LEN 24          /* a name is cut to this */
#define OUT_MAX      (64 * 1024) /* per-client output buffer: beyond this the client is dropped */

struct client {
    int fd;
    int joined;       /* its first line (the name) has arrived */
    const char *gone; /* NULL while connected; else why it goes ("left", "dropped: ...") */
    uint32_t events;  /* what epoll watches for it now */
    char name[NAME_MAX_LEN + 1];
    size_t in_len; /* bytes received, not yet a complete line */
    char in[TEXT_MAX];
    size_t out_len; /* bytes the socket did not take yet, oldest first */
    char out[OUT_MAX];
    struct client *next;
};

static struct client *clients; /* every connected client, newest first */
static int room;               /* clients that have joined (sent their name) */
static int ep;                 /* the epoll instance */
static struct iolab_app *app;  /* this (only) thread's published figures, or NULL */

static void watch(struct client *c)
{
    /* EPOLLOUT only while output waits: a writable socket would otherwise wake us forever. */
    uint32_t events = EPOLLIN | (c->out_len ? EPOLLOUT : 0);
    if (events == c->events)
        return;
    struct epoll_event ev = {.events = events, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->events = events;
}

static void sent(size_t n)
{
    if (app)
        iolab_add(&app->bytes, n);
}

/* Sends msg to one client now, keeping what its socket does not take for EPOLLOUT. */
static void deliver(struct client *c, const char *msg, size_t len)
{
    if (c->gone)
        return;
    if (c->out_len == 0) { /* nothing queued: try the socket first, so order is kept */
        ssize_t n = send(c->fd, msg, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            c->gone = "left";
            return;
        }
        if (n > 0) {
            sent((size_t)n);
            msg += n;
            len -= (size_t)n;
        }
    }
    if (len == 0)
        return;
    if (len > OUT_MAX - c->out_len) {
        c->gone = "dropped: it did not read its messages";
        return;
    }
    memcpy(c->out + c->out_len, msg, len);
    c->out_len += len;
    watch(c);
}

/* Sends msg to every joined client except from (NULL: to everyone). */
static void broadcast(const struct client *from, const char *msg, size_t len)
{
    for (struct client *c = clients; c; c = c->next)
        if (c != from && c->joined)
            deliver(c, msg, len);
}

/* Keeps printable characters other than spaces and brackets, so a name reads as one word. */
static void set_name(struct client *c, const char *line)
{
    size_t n = 0;
    for (const char *p = line; *p && n < NAME_MAX_LEN; p++)
        if (isgraph((unsigned char)*p) && *p != '[' && *p != ']')
            c->name[n++] = *p;
    c->name[n] = '\0';
    if (n == 0)
        snprintf(c->name, sizeof c->name, "guest%d", c->fd);
}

/* One complete line from c: its name, or a message for the others. */
static void on_line(struct client *c, const char *line)
{
    char msg[TEXT_MAX + NAME_MAX_LEN + 64];
    int len;
    if (!c->joined) {
        set_name(c, line);
        c->joined = 1;
        room++;
        len = snprintf(msg, sizeof msg, "* welcome %s; %d in the room\n", c->name, room);
        deliver(c, msg, (size_t)len);
        len = snprintf(msg, sizeof msg, "* %s joined\n", c->name);
        broadcast(c, msg, (size_t)len);
        printf("%s joined (%d in the room)\n", c->name, room);
        fflush(stdout);
        return;
    }
    len = snprintf(msg, sizeof msg, "[%s] %s\n", c->name, line);
    broadcast(c, msg, (size_t)len);
    if (app)
        iolab_add(&app->requests, 1);
}

static void on_readable(struct client *c)
{
    ssize_t n = recv(c->fd, c->in + c->in_len, sizeof c->in - c->in_len, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n <= 0) {
        c->gone = "left"; /* 0: it closed; < 0: reset. A partial line goes with it. */
        return;
    }
    c->in_len += (size_t)n;
    /* Every complete line; a full buffer without a newline counts as a line of its own. */
    char *start = c->in, *nl, line[TEXT_MAX + 1];
    size_t left = c->in_len;
    while (!c->gone && left > 0 &&
           ((nl = memchr(start, '\n', left)) != NULL || left == sizeof c->in)) {
        size_t len = nl ? (size_t)(nl - start) : left;
        memcpy(line, start, len);
        line[len] = '\0';
        if (len > 0 && line[len - 1] == '\r')
            line[len - 1] = '\0'; /* telnet and nc -C end lines with \r\n */
        on_line(c, line);
        size_t used = nl ? len + 1 : len;
        start += used;
        left -= used;
    }
    memmove(c->in, start, left);
    c->in_len = left;
}

static void on_writable(struct client *c)
{
    ssize_t n = send(c->fd, c->out, c->out_len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
        c->gone = "left";
        return;
    }
    if (n > 0) {
        sent((size_t)n);
        memmove(c->out, c->out + n, c->out_len - (size_t)n);
        c->out_len -= (size_t)n;
    }
    watch(c);
}

static void on_listener(int lfd)
{
    while (!demo_stop) { /* everyone waiting in the backlog */
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0 && demo_accept_failed(PROG, lfd, errno)) /* a signal, or a limit */
            continue;
        if (fd < 0)
            return; /* EAGAIN: the backlog is empty */
        struct client *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->fd = fd;
        c->events = EPOLLIN;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
        c->next = clients;
        clients = c;
        if (app)
            iolab_add(&app->conns_opened, 1);
    }
}

/*
 * Closes and frees every client marked gone, telling the others. Telling them may in turn find
 * another client too slow, so it repeats until a pass finds nobody.
 */
static void reap(void)
{
    int again = 1;
    while (again) {
        again = 0;
        for (struct client **pp = &clients; *pp;) {
            struct client *c = *pp;
            if (!c->gone) {
                pp = &c->next;
                continue;
            }
            *pp = c->next;
            close(c->fd); /* also removes it from the epoll set */
            if (app) {
                iolab_add(&app->conns_closed, 1);
                if (strcmp(c->gone, "left") != 0)
                    iolab_add(&app->errors, 1);
            }
            if (c->joined) {
                room--;
                char msg[NAME_MAX_LEN + 64];
                int len = snprintf(msg, sizeof msg, "* %s %s\n", c->name, c->gone);
                broadcast(NULL, msg, (size_t)len);
                printf("%s %s (%d in the room)\n", c->name, c->gone, room);
                fflush(stdout);
                again = 1;
            }
            free(c);
        }
    }
}

/* Sets up epoll over the listener, says it is ready, and relays until SIGTERM. */
static int serve(int lfd, const char *host, unsigned port)
{
    app = iolab_app();
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        fprintf(stderr, "%s: epoll_create1: %s\n", PROG, strerror(errno));
        return 1;
    }
    /* The listener non-blocking, so that on_listener() can take the whole backlog and stop at
     * EAGAIN, and in the set with NULL as its data: every other entry is a client. */
    fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
    struct epoll_event lev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &lev);
    demo_ready("listening on %s:%u", host, port);

    struct epoll_event events[64];
    while (!demo_stop) {
        int n = epoll_wait(ep, events, 64, -1); /* sleeps until someone has something */
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "%s: epoll_wait: %s\n", PROG, strerror(errno));
            break;
        }
        for (int i = 0; i < n; i++) { /* n < 0: a signal; the loop checks demo_stop */
            struct client *cl = events[i].data.ptr;
            if (cl == NULL)
                on_listener(lfd);
            else if (!cl->gone && (events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
                on_readable(cl);
            if (cl && !cl->gone && (events[i].events & EPOLLOUT))
                on_writable(cl);
        }
        reap();
    }
    while (clients) {
        struct client *cl = clients;
        clients = cl->next;
        close(cl->fd);
        free(cl);
    }
    close(ep);
    return 0;
}

/* ---- options and main ---- */

static uint64_t port;
static struct demo_host host = {.name = "127.0.0.1"};

static const struct demo_opt opts[] = {
    DEMO_OPTS_LISTEN(&port, &host),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host 127.0.0.1]",
    .about = "A group chat in one thread with epoll: each line a client sends goes to all the\n"
             "other clients as '[NAME] TEXT'. A client's first line is its name.\n"
             "Prints 'listening on HOST:PORT' first, then joins and leaves.\n",
    .opts = opts,
};

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    demo_signals_init();
    unsigned bound;
    int lfd = demo_listen_or_exit(PROG, &host, port, &bound);
    int status = serve(lfd, host.name, bound);
    close(lfd);
    return status;
}
