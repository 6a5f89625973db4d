/*
 * echo-server: a TCP echo server in four shapes, one per --mode, so that a learner can switch
 * between them under the same load and watch the system calls, context switches and CPU change.
 *
 *   iterative  accept() one connection, serve it until the peer closes, then accept() the next.
 *              Everyone else waits in the listen backlog.
 *   epoll      one thread, non-blocking sockets, a level-triggered epoll_wait() loop; a reply
 *              that does not fit in the socket buffer waits for EPOLLOUT.
 *   fork       one child process per connection (fork()); the parent only accepts and reaps.
 *   thread     one detached thread per connection (pthread_create()).
 *
 * Protocol. Plain echo: whatever a read() returns is written back in full; each such read counts
 * as one request, because a stream has no message boundaries the server could see. With
 * --fib N the server works on lines instead: for every newline-terminated line it computes
 * fib(N) (a CPU-bound request) and then echoes the line unchanged, so the client's protocol
 * (send S bytes, wait for the same S bytes) is identical in both experiments.
 *
 * Published figures (the counter page's app part of the serving thread): conns_opened,
 * conns_closed, requests (reads answered, or lines answered with --fib), bytes (echoed).
 */
#include "demo.h"
#include "iolab_counters.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG     "echo-server"
#define ECHO_BUF 16384 /* per connection; with --fib also the longest line accepted */

#define ECHO_NO_FIB UINT64_MAX            /* --fib not given: answer reads, not lines */
static uint64_t echo_fib_n = ECHO_NO_FIB; /* N of --fib N */
static volatile uint64_t echo_fib_v;      /* where fib(N) goes, so the compiler must compute it */

static uint64_t echo_fib(uint64_t n)
{
    /* Deliberately the slow recursive definition: the point is to burn CPU per request. */
    return n < 2 ? n : echo_fib(n - 1) + echo_fib(n - 2);
}

/*
 * How many bytes at the front of buf can be answered now; *requests says how many requests they
 * are. Plain echo answers everything; --fib answers complete lines only, computing fib(N) for
 * each, and leaves a partial line in the buffer for the next read.
 */
static size_t echo_answerable(const char *buf, size_t len, uint64_t *requests)
{
    if (echo_fib_n == ECHO_NO_FIB) {
        *requests = len > 0;
        return len;
    }
    size_t done = 0;
    const char *nl;
    *requests = 0;
    while ((nl = memchr(buf + done, '\n', len - done)) != NULL) {
        echo_fib_v = echo_fib(echo_fib_n);
        ++*requests;
        done = (size_t)(nl - buf) + 1;
    }
    return done;
}

static void echo_publish(struct iolab_app *app, uint64_t requests, size_t bytes)
{
    if (!app)
        return;
    iolab_add(&app->requests, requests);
    iolab_add(&app->bytes, bytes);
}

static void echo_publish_conn(struct iolab_app *app, int opened)
{
    if (app)
        iolab_add(opened ? &app->conns_opened : &app->conns_closed, 1);
}

/* A connection from demo_accept(), with Nagle's algorithm off: an echo is written in pieces
 * when it exceeds the buffer, and without TCP_NODELAY the last small piece waits for the
 * client's delayed ACK (up to 40 ms). */
static int echo_accept(int lfd, int flags)
{
    int fd = demo_accept(PROG, lfd, flags);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/*
 * One connection with blocking I/O, start to end: read, answer, repeat. Used by the iterative,
 * fork and thread modes, which differ only in who runs it.
 */
static void echo_serve_conn(int fd, struct iolab_app *app)
{
    char buf[ECHO_BUF];
    size_t have = 0;
    while (!demo_stop) { /* checked here too: SIGTERM may land while we are not blocked */
        ssize_t n = read(fd, buf + have, sizeof buf - have);
        if (n < 0 && errno == EINTR && !demo_stop)
            continue;
        if (n <= 0)
            break; /* 0: the peer closed; < 0: reset, or SIGTERM */
        have += (size_t)n;
        uint64_t requests;
        size_t reply = echo_answerable(buf, have, &requests);
        if (demo_write_all(fd, buf, reply) < 0)
            break;
        echo_publish(app, requests, reply);
        memmove(buf, buf + reply, have - reply);
        have -= reply;
        if (have == sizeof buf)
            break; /* a --fib line longer than the buffer: not our protocol */
    }
    close(fd);
    echo_publish_conn(app, 0);
}

static void echo_iterative(int lfd)
{
    struct iolab_app *app = iolab_app();
    int fd;
    while ((fd = echo_accept(lfd, 0)) >= 0) {
        echo_publish_conn(app, 1);
        echo_serve_conn(fd, app);
    }
}

/* ---- fork: a child per connection ---- */

static void echo_fork(int lfd)
{
    struct iolab_app *app = iolab_app();
    demo_kids_begin();
    while (!demo_stop) {
        demo_kids_reap();
        int fd = echo_accept(lfd, 0);
        if (fd < 0)
            continue;
        echo_publish_conn(app, 1);
        if (demo_kids_reserve() < 0) {
            close(fd);
            continue;
        }
        pid_t pid = fork();
        if (pid == 0) {
            /* The child: serve this one connection and exit. If the parent dies, follow it. */
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            close(lfd);
            echo_serve_conn(fd, iolab_app()); /* iolab_app() again: the child has its own slot */
            _exit(0);
        }
        if (pid < 0)
            perror(PROG ": fork");
        else
            demo_kids_add(pid);
        close(fd); /* the child owns the connection now */
    }
    demo_kids_end(); /* SIGTERM to every child, and wait for them: none outlives us */
}

/* ---- thread: a thread per connection ---- */

static void *echo_thread_main(void *arg)
{
    int fd = (int)(intptr_t)arg;
    echo_serve_conn(fd, iolab_app()); /* this thread's own slot */
    return NULL;
}

static void echo_thread(int lfd)
{
    struct iolab_app *app = iolab_app();
    int fd;
    while ((fd = echo_accept(lfd, 0)) >= 0) {
        echo_publish_conn(app, 1);
        /* pthread_create(): the new thread serves the connection, this one accepts the next. */
        if (demo_thread_detached(PROG, echo_thread_main, (void *)(intptr_t)fd) < 0)
            close(fd);
    }
    /* Returning ends the process, and with it the detached workers mid-connection. */
}

/* ---- epoll: one thread, many connections ---- */

struct echo_conn {
    struct echo_conn *prev, *next; /* the open connections, so that stopping can free them */
    int fd;
    int want_out;      /* waiting for EPOLLOUT (a reply did not fit) instead of EPOLLIN */
    size_t have;       /* bytes in buf */
    size_t reply;      /* bytes at the front of buf being sent back */
    size_t sent;       /* of those, already sent */
    uint64_t requests; /* requests that reply answers */
    char buf[ECHO_BUF];
};

static void echo_epoll_watch(int ep, struct echo_conn *c, int want_out)
{
    struct epoll_event ev = {.events = want_out ? EPOLLOUT : EPOLLIN, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
    c->want_out = want_out;
}

/* The connection is readable (or writable, when want_out): make progress; 0, or -1 to close. */
static int echo_epoll_step(int ep, struct echo_conn *c, struct iolab_app *app)
{
    if (!c->want_out) {
        ssize_t n = read(c->fd, c->buf + c->have, sizeof c->buf - c->have);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return 0;
        if (n <= 0)
            return -1;
        c->have += (size_t)n;
        c->reply = echo_answerable(c->buf, c->have, &c->requests);
        if (c->reply == 0)
            return c->have == sizeof c->buf ? -1 : 0; /* partial --fib line: read more */
    }
    ssize_t n = write(c->fd, c->buf + c->sent, c->reply - c->sent);
    if (n < 0 && errno != EAGAIN && errno != EINTR)
        return -1;
    if (n > 0)
        c->sent += (size_t)n;
    if (c->sent < c->reply) {
        /* Short write: the peer is not reading fast enough. Stop reading, wait to write. */
        if (!c->want_out)
            echo_epoll_watch(ep, c, 1);
        return 0;
    }
    echo_publish(app, c->requests, c->reply);
    memmove(c->buf, c->buf + c->reply, c->have - c->reply);
    c->have -= c->reply;
    c->reply = c->sent = 0;
    if (c->want_out)
        echo_epoll_watch(ep, c, 0);
    return 0;
}

static void echo_epoll(int lfd)
{
    struct iolab_app *app = iolab_app();
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        perror(PROG ": epoll_create1");
        return;
    }
    fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL}; /* NULL: the listener */
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);

    struct epoll_event events[64];
    struct echo_conn *open = NULL; /* epoll cannot list its set: keep our own */
    while (!demo_stop) {
        int n = epoll_wait(ep, events, 64, -1);
        if (n < 0 && errno != EINTR) {
            perror(PROG ": epoll_wait");
            break;
        }
        for (int i = 0; i < n; i++) {
            struct echo_conn *c = events[i].data.ptr;
            if (c == NULL) { /* the listener: take every connection waiting in the backlog */
                int fd;
                while ((fd = echo_accept(lfd, SOCK_NONBLOCK)) >= 0) {
                    c = calloc(1, sizeof *c);
                    if (!c) {
                        close(fd);
                        continue;
                    }
                    c->fd = fd;
                    c->next = open;
                    if (open)
                        open->prev = c;
                    open = c;
                    struct epoll_event cev = {.events = EPOLLIN, .data.ptr = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
                    echo_publish_conn(app, 1);
                }
            } else if (echo_epoll_step(ep, c, app) < 0) {
                close(c->fd); /* closing also removes it from the epoll set */
                if (c->prev)
                    c->prev->next = c->next;
                else
                    open = c->next;
                if (c->next)
                    c->next->prev = c->prev;
                free(c);
                echo_publish_conn(app, 0);
            }
        }
    }
    while (open) {
        struct echo_conn *next = open->next;
        close(open->fd);
        free(open);
        open = next;
    }
    close(ep);
}

/* ---- modes and main ---- */

struct echo_mode {
    struct demo_mode cli; /* name and help */
    void (*serve)(int lfd);
};

static const struct echo_mode echo_modes[] = {
    {.cli = {"iterative", "one connection at a time"}, .serve = echo_iterative},
    {.cli = {"epoll", "one thread, non-blocking sockets, epoll_wait()"}, .serve = echo_epoll},
    {.cli = {"fork", "a child process per connection"}, .serve = echo_fork},
    {.cli = {"thread", "a thread per connection"}, .serve = echo_thread},
};

static uint64_t echo_port;
static struct demo_host echo_host = {.name = "127.0.0.1"};

static const struct demo_opt echo_opts[] = {
    DEMO_OPTS_LISTEN(&echo_port, &echo_host),
    {.name = "mode", .kind = DEMO_OPT_MODE, .required = 1, .arg = "M"},
    {.name = "fib",
     .kind = DEMO_OPT_U64,
     .to.u64 = &echo_fib_n,
     .max = 50,
     .arg = "N",
     .help = "answer each newline-terminated line, after computing fib(N)"},
    {0},
};

static const struct demo_cli echo_cli = {
    .prog = PROG,
    .usage = "--port P [--host 127.0.0.1] --mode iterative|epoll|fork|thread [--fib N]",
    .about = "A TCP echo server. Prints 'listening on HOST:PORT mode=MODE' once it listens.\n",
    .opts = echo_opts,
    DEMO_MODES(echo_modes),
    .footer = "Stops cleanly (status 0) on SIGTERM or SIGINT.\n",
};

int main(int argc, char **argv)
{
    const struct echo_mode *mode = demo_cli_parse(&echo_cli, argc, argv);
    int lfd = demo_server_start(PROG, &echo_host, echo_port, "mode=%s", mode->cli.name);
    mode->serve(lfd);
    close(lfd);
    return 0;
}
