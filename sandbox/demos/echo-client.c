/*
 * echo-client: the load for echo-server. N persistent connections, all driven by ONE thread with
 * epoll, so that the client's own cost stays small and flat whatever the server does. Each
 * connection sends an S-byte message, waits until all S bytes have come back, records the round
 * trip, and sends the next one.
 *
 * A connection is in one of four states:
 *   CONNECTING  non-blocking connect() in progress; EPOLLOUT says it finished (or failed)
 *   BUSY        a request is out: sending its bytes (EPOLLOUT when the socket buffer was full)
 *               and reading the echo (EPOLLIN) at the same time, since a large message comes
 *               back while it is still being sent
 *   IDLE        --requests M were all handed out; nothing more to do
 *   WAITING     the server went away (refused, reset, EOF); reconnect after a backoff that
 *               starts at 10 ms and doubles up to 200 ms. The engine restarts the server when
 *               the learner switches modes, and the load must carry on by itself.
 * Every lost connection counts one error; the request it carried is sent again.
 *
 * With --per-connection K a connection is closed after K replies and a new one opened in its
 * place: the server sees a stream of short connections, as a web server does. That is what
 * shows an iterative server's queueing: a new connection waits in the listen backlog until the
 * server is done with the one before, and that wait lands in the first request's latency.
 *
 * Ends after --requests M replies, after --seconds T, or on SIGTERM/SIGINT, and then prints one
 * summary line (demo_summary_print). Published figures: requests, bytes (echo bytes received),
 * conns_opened, conns_closed, errors, and every request's latency.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG         "echo-client"
#define BACKOFF_MIN  10000000ull  /* 10 ms */
#define BACKOFF_MAX  200000000ull /* 200 ms */
#define MAX_MSG_SIZE (64u << 20)

enum conn_state { CONNECTING, BUSY, IDLE, WAITING };

struct conn {
    int fd;                /* -1 while WAITING */
    enum conn_state state; /* see the top of the file */
    uint32_t events;       /* what epoll watches for this fd now */
    size_t sent, got;      /* progress of the current request, bytes */
    uint64_t t_start;      /* when the current request started, ns */
    uint64_t retry_at;     /* WAITING: when to reconnect, ns */
    uint64_t backoff;      /* the next reconnect delay, ns */
    uint64_t replies;      /* replies on this connection, for --per-connection */
    char *reply;           /* the echo being received, size bytes */
};

static struct sockaddr_in server;
static uint64_t size = 16;    /* --size */
static uint64_t max_requests; /* --requests; 0: no limit */
static uint64_t per_conn;     /* --per-connection; 0: connections stay open */
static char *message;         /* what every request sends */
static int ep;                /* the epoll instance */
static uint64_t issued, completed, bytes, errors;
static int nwaiting; /* connections in WAITING, so the loop knows to check timers */
static struct demo_hist hist;
static struct iolab_app *app; /* this (only) thread's published figures, or NULL */

static void watch(struct conn *c, uint32_t events)
{
    /* Only when the interest changes: in the steady state a request costs no epoll_ctl(). */
    if (c->events == events)
        return;
    struct epoll_event ev = {.events = events, .data.ptr = c};
    epoll_ctl(ep, c->events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, c->fd, &ev);
    c->events = events;
}

/* The connection broke: count an error, close it, and schedule a reconnect. */
static void conn_fail(struct conn *c)
{
    if (c->state == BUSY)
        issued--; /* that request was not answered; it will be sent again */
    if (c->state != CONNECTING && app)
        iolab_add(&app->conns_closed, 1);
    close(c->fd); /* also removes it from the epoll set */
    c->fd = -1;
    c->events = 0;
    c->state = WAITING;
    c->retry_at = demo_now_ns() + c->backoff;
    c->backoff = c->backoff * 2 < BACKOFF_MAX ? c->backoff * 2 : BACKOFF_MAX;
    nwaiting++;
    errors++;
    if (app)
        iolab_add(&app->errors, 1);
}

/* No descriptor for a new connection (the open-file limit): say so, count it, and try again
   after the backoff, like a connection the server refused. The others carry on. */
static void conn_no_socket(struct conn *c, int err)
{
    demo_fail(PROG, IOLAB_FAIL_CONNECT, err);
    c->state = WAITING;
    c->retry_at = demo_now_ns() + c->backoff;
    c->backoff = c->backoff * 2 < BACKOFF_MAX ? c->backoff * 2 : BACKOFF_MAX;
    nwaiting++;
    errors++;
    if (app)
        iolab_add(&app->errors, 1);
}

static void conn_connect(struct conn *c)
{
    if (c->state == WAITING)
        nwaiting--;
    c->state = CONNECTING;
    c->replies = 0;
    c->t_start = demo_now_ns(); /* a client waits from the moment it asks to connect */
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) {
        conn_no_socket(c, errno);
        return;
    }
    /* Send each message at once rather than waiting for the previous echo to be acknowledged. */
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (connect(c->fd, (struct sockaddr *)&server, sizeof server) < 0 && errno != EINPROGRESS) {
        conn_fail(c);
        return;
    }
    watch(c, EPOLLOUT); /* writable = the connect finished, one way or the other */
}

/* Closes a connection that did its share (--per-connection), not an error. */
static void conn_hang_up(struct conn *c)
{
    if (app)
        iolab_add(&app->conns_closed, 1);
    close(c->fd);
    c->fd = -1;
    c->events = 0;
}

/* Hands out the next request, or parks the connection when --requests are all out. */
static void conn_start_request(struct conn *c)
{
    if (max_requests && issued >= max_requests) {
        c->state = IDLE;
        if (per_conn)
            conn_hang_up(c); /* an iterative server serves the next one only after this */
        else
            watch(c, EPOLLIN); /* still notice the server closing */
        return;
    }
    issued++;
    c->state = BUSY;
    c->sent = c->got = 0;
    c->t_start = demo_now_ns();
}

/* Sends what is left of the message; watches EPOLLOUT only while the socket buffer is full. */
static int conn_send(struct conn *c)
{
    while (c->sent < size) {
        ssize_t n = write(c->fd, message + c->sent, size - c->sent);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            break;
        if (n < 0)
            return -1;
        c->sent += (size_t)n;
    }
    watch(c, c->sent < size ? EPOLLIN | EPOLLOUT : EPOLLIN);
    return 0;
}

/* Reads what has come back; when the whole echo is in, records the request. */
static int conn_receive(struct conn *c)
{
    ssize_t n = read(c->fd, c->reply + c->got, size - c->got);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return 0;
    if (n <= 0)
        return -1; /* 0: the server closed the connection */
    c->got += (size_t)n;
    if (c->got < size)
        return 0;

    uint64_t ns = demo_now_ns() - c->t_start;
    demo_hist_add(&hist, ns);
    completed++;
    bytes += size;
    c->backoff = BACKOFF_MIN;
    if (memcmp(c->reply, message, size) != 0) {
        errors++; /* the server answered, but not with what we sent */
        if (app)
            iolab_add(&app->errors, 1);
    }
    demo_publish_request(app, size, ns);
    if (per_conn && ++c->replies >= per_conn && !(max_requests && issued >= max_requests)) {
        conn_hang_up(c); /* done with this connection: queue up again with a new one */
        conn_connect(c);
        return 0;
    }
    conn_start_request(c);
    return 0;
}

/* One epoll event for a connection. */
static void conn_event(struct conn *c, uint32_t events)
{
    if (c->state == CONNECTING) {
        int err = 0;
        socklen_t len = sizeof err;
        getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (err) { /* typically ECONNREFUSED: the server is not (yet, or any more) there */
            conn_fail(c);
            return;
        }
        if (app)
            iolab_add(&app->conns_opened, 1);
        conn_start_request(c);
        if (c->state == BUSY && conn_send(c) < 0)
            conn_fail(c);
        return;
    }
    if (c->state == IDLE) {
        char b;
        if (read(c->fd, &b, 1) == 0)
            conn_fail(c); /* the server went away while we had nothing to ask */
        return;
    }
    /* BUSY: take in what came back (which may finish the request and start the next), then
     * send whatever is still unsent. */
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && conn_receive(c) < 0) {
        conn_fail(c);
        return;
    }
    if (c->state == BUSY && c->sent < size && conn_send(c) < 0)
        conn_fail(c);
}

/*
 * Who is waiting: every connection that asked (to connect, or a request) and has no answer yet,
 * with how long it has waited, published as gauges about ten times a second and once at the
 * end, so that iolab can count the clients a server leaves waiting (an iterative server answers
 * one connection at a time: the others' requests sit unanswered) and put their waits into the
 * latency. A request out for WAITING_AFTER_NS or more counts as waiting its turn; a younger one
 * is a round trip under way. Connections in the WAITING state (a retry after an error) are not
 * in it: they count as errors.
 */
#define WAITING_EVERY_NS 100000000ull /* 100 ms: as often as iolab samples */
#define WAITING_AFTER_NS 100000000ull

static uint64_t wait_hist[IOLAB_HIST_BUCKETS];

/* Publishes who is waiting; returns how many have waited WAITING_AFTER_NS or more. */
static uint64_t waiting_publish(const struct conn *conns, size_t n, uint64_t now, uint64_t *oldest)
{
    uint64_t in_flight = 0, waiting = 0;
    *oldest = 0;
    memset(wait_hist, 0, sizeof wait_hist);
    for (size_t i = 0; i < n; i++) {
        if (conns[i].state != BUSY && conns[i].state != CONNECTING)
            continue;
        /* A request started after `now` was read (in the caller's loop) has waited 0 ns; a
           wrapped difference would publish an age no clock gives (tally marks it forged). */
        uint64_t age = conns[i].t_start < now ? now - conns[i].t_start : 0;
        wait_hist[iolab_hist_bucket(age)]++;
        in_flight++;
        waiting += age >= WAITING_AFTER_NS;
        if (age > *oldest)
            *oldest = age;
    }
    if (app) {
        for (unsigned b = 0; b < IOLAB_HIST_BUCKETS; b++)
            __atomic_store_n(&app->in_flight_hist[b], wait_hist[b], __ATOMIC_RELAXED);
        __atomic_store_n(&app->in_flight, in_flight, __ATOMIC_RELAXED);
        __atomic_store_n(&app->waiting, waiting, __ATOMIC_RELAXED);
        __atomic_store_n(&app->in_flight_oldest_ns, *oldest, __ATOMIC_RELAXED);
    }
    return waiting;
}

/* ---- options, the run and main ---- */

static uint64_t port, nconns = 1;
static struct demo_host host = {.name = "127.0.0.1"};
static double seconds; /* --seconds; 0: no limit */
static int fib;        /* --fib: end every message with a newline */

static const struct demo_opt opts[] = {
    DEMO_OPTS_CONNECT(&port, &host),
    DEMO_OPT_U64("connections", &nconns, 1, 10000, "N", "concurrent connections (default 1)"),
    DEMO_OPT_U64("requests", &max_requests, 1, UINT64_MAX / 2, "M", "stop after M replies in total",
                 .not_with = "seconds"),
    DEMO_OPT_SECONDS(&seconds),
    DEMO_OPT_U64("size", &size, 1, MAX_MSG_SIZE, "S", "message size in bytes (default 16)"),
    DEMO_OPT_U64("per-connection", &per_conn, 1, UINT64_MAX / 2, "K",
                 "close each connection after K replies and open a new one"),
    DEMO_OPT_FLAG("fib", &fib, "end every message with a newline, for 'echo-server --fib N'"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host H] [--connections N] [--requests M | --seconds T] [--size S]"
             " [--per-connection K] [--fib]",
    .about = "Load for echo-server: N persistent connections, one thread, epoll. Each connection\n"
             "sends S bytes, waits for the same S bytes back, and repeats.\n",
    .opts = opts,
    .footer = "At the end it prints one line:\n"
              "  requests=R seconds=T req_per_s=X bytes=B p50_us=.. p99_us=.. p999_us=.. max_us=.."
              " errors=E [waiting=W oldest_wait_us=A]\n"
              "The percentiles are the answered requests'; W connections had been waiting 100 ms\n"
              "or more for an answer at the end, the oldest for A us.\n"
              "Lost connections are retried after 10 ms, doubling up to 200 ms; each counts an "
              "error.\n",
};

/* Opens the connections and drives them until the limit or SIGTERM; prints the summary. */
static int run(void)
{
    /* The message: letters, never a newline, except the last byte with --fib (one line). */
    message = malloc(size);
    struct conn *conns = calloc(nconns, sizeof *conns);
    struct epoll_event *events = calloc(nconns, sizeof *events);
    if (!message || !conns || !events || demo_hist_init(&hist) < 0 ||
        (ep = epoll_create1(EPOLL_CLOEXEC)) < 0) {
        fprintf(stderr, PROG ": out of memory or descriptors\n");
        return 1;
    }
    for (size_t i = 0; i < size; i++)
        message[i] = (char)('a' + i % 26);
    if (fib)
        message[size - 1] = '\n';

    demo_signals_init();
    app = iolab_app();
    uint64_t start = demo_now_ns();
    uint64_t deadline = seconds > 0 ? start + (uint64_t)(seconds * 1e9) : 0;
    uint64_t published = start, oldest = 0;
    for (size_t i = 0; i < nconns; i++) {
        conns[i].backoff = BACKOFF_MIN;
        conns[i].reply = malloc(size);
        if (!conns[i].reply) {
            fprintf(stderr, PROG ": out of memory\n");
            return 1;
        }
        conn_connect(&conns[i]);
    }

    while (!demo_stop && !(max_requests && completed >= max_requests)) {
        uint64_t now = demo_now_ns();
        if (deadline && now >= deadline)
            break;
        /* Sleep until an event, the deadline, or the earliest reconnect, whichever is first. */
        uint64_t wake = deadline;
        for (size_t i = 0; nwaiting > 0 && i < nconns; i++)
            if (conns[i].state == WAITING && (!wake || conns[i].retry_at < wake))
                wake = conns[i].retry_at;
        int timeout = wake ? (int)((wake > now ? wake - now : 0) / 1000000 + 1) : -1;
        if (timeout < 0 || timeout > (int)(WAITING_EVERY_NS / 1000000))
            timeout = (int)(WAITING_EVERY_NS / 1000000); /* wake up to publish who waits */

        int n = epoll_wait(ep, events, (int)nconns, timeout);
        if (n < 0 && errno != EINTR) {
            perror(PROG ": epoll_wait");
            return 1;
        }
        for (int i = 0; i < n; i++)
            conn_event(events[i].data.ptr, events[i].events);
        now = demo_now_ns();
        for (size_t i = 0; nwaiting > 0 && i < nconns; i++)
            if (conns[i].state == WAITING && conns[i].retry_at <= now)
                conn_connect(&conns[i]);
        if (now - published >= WAITING_EVERY_NS) {
            waiting_publish(conns, nconns, now, &oldest);
            published = now;
        }
    }
    /* The last word on who waits: those the server never answered. */
    uint64_t waiting = waiting_publish(conns, nconns, demo_now_ns(), &oldest);

    struct demo_summary s = {.requests = completed,
                             .seconds = (double)(demo_now_ns() - start) / 1e9,
                             .bytes = bytes,
                             .errors = errors,
                             .hist = &hist,
                             .waiting = waiting,
                             .oldest_wait_ns = oldest};
    demo_summary_print(&s, 0);

    for (size_t i = 0; i < nconns; i++)
        free(conns[i].reply);
    free(conns);
    free(events);
    free(message);
    return 0;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    server = demo_sockaddr(&host, port);
    return run();
}
