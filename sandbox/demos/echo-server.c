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
 *   io_uring   one thread that queues its recv()s and send()s in an io_uring ring and collects
 *              their completions: one io_uring_enter() submits and waits for a whole batch.
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
#include "demo_uring.h"
#include "iolab_counters.h"

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

/*
 * A new connection, counted as opened, with Nagle's algorithm off: an echo is written in pieces
 * when it exceeds the buffer, and without TCP_NODELAY the last small piece waits for the
 * client's delayed ACK (up to 40 ms).
 */
static void echo_opened(int fd, struct iolab_app *app)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    echo_publish_conn(app, 1);
}

/*
 * One connection with blocking I/O, start to end: read, answer, repeat. Used by the iterative,
 * fork and thread modes, which differ only in who runs it.
 */
static void echo_serve_conn(int fd)
{
    struct iolab_app *app = iolab_app(); /* the slot of the process or thread serving it */
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
    while (!demo_stop) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC); /* sleeps until a client connects */
        if (fd < 0) {
            demo_accept_failed(PROG, lfd, errno); /* a signal, or a limit (said and counted) */
            continue;
        }
        echo_opened(fd, iolab_app());
        echo_serve_conn(fd); /* meanwhile the next client waits in the listen backlog */
    }
}

/* ---- fork: a child process per connection ---- */

static void echo_fork(int lfd)
{
    demo_children_watch(); /* SIGCHLD interrupts accept(), so an exited child is reaped at once */
    while (!demo_stop) {
        pid_t pid;
        while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) /* reap the children that exited */
            demo_children_forget(pid);
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            demo_accept_failed(PROG, lfd, errno);
            continue;
        }
        echo_opened(fd, iolab_app());
        pid = fork(); /* from here on, two processes run this code, each with a copy of fd */
        if (pid == 0) {
            /* The child: serve this one connection and exit; if the parent dies, follow it. */
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            close(lfd); /* accepting is the parent's job */
            echo_serve_conn(fd);
            _exit(0);
        }
        if (pid < 0) /* the connection is closed unserved: say why, and count it */
            demo_fail(PROG, IOLAB_FAIL_FORK, errno);
        else
            demo_children_add(PROG, pid);
        close(fd); /* the parent's copy: the child owns the connection now */
    }
    demo_children_end(); /* SIGTERM to every child, and wait for them: none outlives us */
}

/* ---- thread: a thread per connection ---- */

static void *echo_thread_main(void *arg)
{
    echo_serve_conn((int)(intptr_t)arg);
    return NULL;
}

static void echo_thread(int lfd)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED); /* nobody waits for it */
    pthread_attr_setstacksize(&attr, DEMO_THREAD_STACK);         /* not 8 MiB: see demo.h */
    while (!demo_stop) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            demo_accept_failed(PROG, lfd, errno);
            continue;
        }
        echo_opened(fd, iolab_app());
        pthread_t t;
        demo_signals_mask(SIG_BLOCK); /* inherited: SIGTERM keeps coming to this thread */
        int err = pthread_create(&t, &attr, echo_thread_main, (void *)(intptr_t)fd);
        demo_signals_mask(SIG_UNBLOCK);
        if (err) { /* the connection is closed unserved: say why, and count it */
            demo_fail(PROG, IOLAB_FAIL_THREAD, err);
            close(fd);
        }
    }
    pthread_attr_destroy(&attr); /* returning ends the process, and the threads mid-connection */
}

/* ---- epoll: one thread, many connections ---- */

struct echo_conn {
    struct demo_conn conn; /* its socket, in the list of open connections */
    int want_out;          /* waiting for EPOLLOUT (a reply did not fit) instead of EPOLLIN */
    size_t have;           /* bytes in buf */
    size_t reply;          /* bytes at the front of buf being sent back */
    size_t sent;           /* of those, already sent */
    uint64_t requests;     /* requests that reply answers */
    char buf[ECHO_BUF];
};

static void echo_epoll_watch(int ep, struct echo_conn *c, int want_out)
{
    struct epoll_event ev = {.events = want_out ? EPOLLOUT : EPOLLIN, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_MOD, c->conn.fd, &ev);
    c->want_out = want_out;
}

/* The connection is readable (or writable, when want_out): make progress; 0, or -1 to close. */
static int echo_epoll_step(int ep, struct echo_conn *c, struct iolab_app *app)
{
    if (!c->want_out) {
        ssize_t n = read(c->conn.fd, c->buf + c->have, sizeof c->buf - c->have);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return 0;
        if (n <= 0)
            return -1;
        c->have += (size_t)n;
        c->reply = echo_answerable(c->buf, c->have, &c->requests);
        if (c->reply == 0)
            return c->have == sizeof c->buf ? -1 : 0; /* partial --fib line: read more */
    }
    ssize_t n = write(c->conn.fd, c->buf + c->sent, c->reply - c->sent);
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

/* The listener is readable: take every connection waiting in the backlog into the set. */
static void echo_epoll_accept(int ep, int lfd, struct demo_conn **open, struct iolab_app *app)
{
    while (!demo_stop) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (demo_accept_failed(PROG, lfd, errno))
                continue;
            return; /* EAGAIN: the backlog is empty */
        }
        struct echo_conn *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->conn.fd = fd;
        demo_conn_link(open, &c->conn);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev); /* wake us when it has something to read */
        echo_opened(fd, app);
    }
}

static void echo_epoll_close(struct demo_conn **open, struct echo_conn *c, struct iolab_app *app)
{
    close(c->conn.fd); /* closing also takes it out of the epoll set */
    demo_conn_unlink(open, &c->conn);
    free(c);
    echo_publish_conn(app, 0);
}

static void echo_epoll(int lfd)
{
    struct iolab_app *app = iolab_app();
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        fprintf(stderr, "%s: epoll_create1: %s\n", PROG, strerror(errno));
        return;
    }
    /* The listener non-blocking, so that one wake-up accepts the whole backlog up to EAGAIN,
     * and in the set with NULL as its data: every other entry is a connection. */
    fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);

    struct epoll_event events[64];
    struct demo_conn *open = NULL; /* epoll cannot list its set: keep our own */
    while (!demo_stop) {
        int n = epoll_wait(ep, events, 64, -1); /* sleeps until a descriptor is ready */
        if (n < 0 && errno != EINTR) {
            fprintf(stderr, "%s: epoll_wait: %s\n", PROG, strerror(errno));
            break;
        }
        for (int i = 0; i < n; i++) { /* n < 0: a signal; the loop checks demo_stop */
            struct echo_conn *c = events[i].data.ptr;
            if (c == NULL)
                echo_epoll_accept(ep, lfd, &open, app);
            else if (echo_epoll_step(ep, c, app) < 0)
                echo_epoll_close(&open, c, app);
        }
    }
    while (open)
        echo_epoll_close(&open, (struct echo_conn *)open, NULL);
    close(ep);
}

/* ---- io_uring: one thread, the kernel does the waiting ---- */

#ifdef IOLAB_HAVE_LIBURING
/*
 * Where epoll says "this socket is ready, now call read()", io_uring takes the read itself: the
 * program queues a recv per connection in the ring's submission queue, and one io_uring_enter()
 * hands them all over and sleeps until some have completed. A completion carries the result
 * (the bytes are already in our buffer), and the answer is queued as a send the same way. The
 * system calls per request drop below one: each enter submits and reaps a batch.
 */
enum eu_op { EU_ACCEPT, EU_RECV, EU_SEND }; /* in the low bits of a completion's user_data */

struct eu_conn {
    struct eu_conn *prev, *next; /* the open connections, to close them when we stop */
    int fd;
    size_t have;       /* bytes in buf */
    size_t reply;      /* bytes at the front of buf being sent back */
    size_t sent;       /* of those, already sent */
    uint64_t requests; /* requests that reply answers */
    char buf[ECHO_BUF];
};

static struct demo_uring eu_ring;
static struct eu_conn *eu_open;

static void eu_queue(struct eu_conn *c, enum eu_op op, struct io_uring_sqe *sqe)
{
    io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)c | op);
}

static void eu_accept(int lfd)
{
    /* One submission, one completion per connection for as long as IORING_CQE_F_MORE says. */
    struct io_uring_sqe *sqe = demo_uring_sqe(&eu_ring);
    io_uring_prep_multishot_accept(sqe, lfd, NULL, NULL, SOCK_CLOEXEC);
    eu_queue(NULL, EU_ACCEPT, sqe);
}

static void eu_recv(struct eu_conn *c)
{
    struct io_uring_sqe *sqe = demo_uring_sqe(&eu_ring);
    io_uring_prep_recv(sqe, c->fd, c->buf + c->have, sizeof c->buf - c->have, 0);
    eu_queue(c, EU_RECV, sqe);
}

static void eu_send(struct eu_conn *c)
{
    /* MSG_WAITALL: the kernel keeps sending until all of it went, however slow the reader. */
    struct io_uring_sqe *sqe = demo_uring_sqe(&eu_ring);
    io_uring_prep_send(sqe, c->fd, c->buf + c->sent, c->reply - c->sent,
                       MSG_NOSIGNAL | MSG_WAITALL);
    eu_queue(c, EU_SEND, sqe);
}

static void eu_close(struct eu_conn *c, struct iolab_app *app)
{
    close(c->fd);
    if (c->prev)
        c->prev->next = c->next;
    else
        eu_open = c->next;
    if (c->next)
        c->next->prev = c->prev;
    free(c);
    echo_publish_conn(app, 0);
}

/* One completion: what it finished, and what to queue next. */
static void eu_complete(int lfd, const struct io_uring_cqe *cqe, struct iolab_app *app)
{
    uint64_t data = io_uring_cqe_get_data64(cqe);
    struct eu_conn *c = (struct eu_conn *)(uintptr_t)(data & ~(uint64_t)3);
    int res = cqe->res;
    if ((data & 3) == EU_ACCEPT) {
        if (!(cqe->flags & IORING_CQE_F_MORE))
            eu_accept(lfd); /* the multishot accept ended (an error): ask again */
        if (res < 0)
            return;
        int one = 1;
        setsockopt(res, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (!(c = calloc(1, sizeof *c))) {
            close(res);
            return;
        }
        c->fd = res;
        c->next = eu_open;
        if (eu_open)
            eu_open->prev = c;
        eu_open = c;
        echo_publish_conn(app, 1);
        return eu_recv(c);
    }
    if (res < 0 || ((data & 3) == EU_RECV && res == 0))
        return eu_close(c, app); /* a reset, or (0) the peer closed */
    if ((data & 3) == EU_RECV) {
        c->have += (size_t)res;
        c->reply = echo_answerable(c->buf, c->have, &c->requests);
        if (c->reply > 0)
            return eu_send(c);
        if (c->have == sizeof c->buf)
            return eu_close(c, app); /* a --fib line longer than the buffer */
        return eu_recv(c);
    }
    c->sent += (size_t)res; /* EU_SEND */
    if (c->sent < c->reply)
        return eu_send(c);
    echo_publish(app, c->requests, c->reply);
    memmove(c->buf, c->buf + c->reply, c->have - c->reply);
    c->have -= c->reply;
    c->reply = c->sent = 0;
    eu_recv(c);
}

static void echo_uring(int lfd)
{
    struct iolab_app *app = iolab_app();
    /* A ring as deep as the connections it serves: every open connection has a recv queued,
       and a completion queue smaller than their answers overflows, which ends the multishot
       accept again and again; with 256 entries the C10K step's server took 7,388 of its 10,000
       connections in 10 s, with 4,096 all of them (8,780 in the first 3 s). */
    if (demo_uring_init(PROG, &eu_ring, 4096) < 0)
        exit(1);
    eu_accept(lfd);
    while (!demo_stop) {
        if (demo_uring_enter(&eu_ring) < 0) /* submit what is queued, wait for a completion */
            continue;                       /* a signal: the loop checks demo_stop */
        struct io_uring_cqe *cqe;
        unsigned head, n = 0;
        io_uring_for_each_cqe(&eu_ring.ring, head, cqe)
        {
            eu_complete(lfd, cqe, app);
            n++;
        }
        demo_uring_reaped(&eu_ring, n);
    }
    while (eu_open)
        eu_close(eu_open, NULL);
    demo_uring_exit(&eu_ring);
}
#else
static void echo_uring(int lfd)
{
    (void)lfd; /* never reached: main's demo_uring_check() ends the program first */
}
#endif

/* ---- modes and main ---- */

static const struct demo_server_mode echo_modes[] = {
    {.cli = {"iterative", "one connection at a time"}, .serve = echo_iterative},
    {.cli = {"epoll", "one thread, non-blocking sockets, epoll_wait()"}, .serve = echo_epoll},
    {.cli = {"fork", "a child process per connection"}, .serve = echo_fork},
    {.cli = {"thread", "a thread per connection"}, .serve = echo_thread},
    {.cli = {"io_uring", "one thread; recv and send queued in an io_uring ring"},
     .serve = echo_uring},
};

static uint64_t echo_port;
static struct demo_host echo_host = {.name = "127.0.0.1"};

static const struct demo_opt echo_opts[] = {
    DEMO_OPTS_LISTEN(&echo_port, &echo_host),
    DEMO_OPT_MODE,
    DEMO_OPT_U64("fib", &echo_fib_n, 0, 50, "N",
                 "answer each newline-terminated line, after computing fib(N)"),
    {0},
};

static const struct demo_cli echo_cli = {
    .prog = PROG,
    .usage = "--port P [--host 127.0.0.1] --mode iterative|epoll|fork|thread|io_uring [--fib N]",
    .about = "A TCP echo server. Prints 'listening on HOST:PORT mode=MODE' once it listens.\n",
    .opts = echo_opts,
    DEMO_MODES(echo_modes),
};

int main(int argc, char **argv)
{
    const struct demo_server_mode *mode = demo_cli_parse(&echo_cli, argc, argv);
    /* Before listening: a mode this build or this kernel lacks must never look ready. */
    demo_uring_check(PROG, mode->serve == echo_uring);
    int lfd = demo_server_start(PROG, &echo_host, echo_port, "mode=%s", mode->cli.name);
    mode->serve(lfd);
    close(lfd);
    return 0;
}
