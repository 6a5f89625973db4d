/*
 * fib-client: the load for a fib(n) request/reply server, the seed's client_bench.sh in one
 * program. N client threads; each one, again and again, connects, sends one request "n\n" (n in
 * decimal), reads the reply line, checks that it is fib(n) in decimal (fib(0) = 0, fib(1) = 1),
 * and closes: one request per connection, as the seed's client.py makes.
 *
 * The client computes fib(n) itself, once, by iteration, so a wrong answer is caught whatever
 * the server does. Each wrong answer counts one error and, for the first few, prints
 *     wrong answer: fib(30) is 832040, the server answered "832041"
 * so that a check can read it. A server that is not there (the engine restarts it on a mode
 * switch), a connection lost before the reply, or no reply within --timeout seconds counts one
 * error too, and the client retries after a backoff that starts at 10 ms and doubles up to
 * 200 ms.
 *
 * With --stall S, a request still unanswered after S seconds while the other clients got at
 * least twice as many answers as there are clients since it was sent prints, once per request,
 *     stalled: client 3 got no answer to fib(36) in 2.0 s while the others got 16 answers
 * on stderr: a server that lost that connection (two threads handed the same descriptor, one
 * left unserved) is told within the run, whatever the machine's pace, since the others' answers
 * show the server is serving.
 *
 * With --lull S, once there have been as many right answers as clients, no client sends a new
 * request for S seconds (once per run): the requests under way finish, and then the server has
 * nothing to do. A server that leaves a child unreaped whenever two exits share one SIGCHLD hides
 * it while children keep exiting (each later signal reaps the oldest zombie); in a lull its
 * leftover zombies stay, and grow old enough to be seen.
 *
 * Ends after --requests M right answers (in total), after --seconds T, or on SIGTERM/SIGINT, and
 * prints one summary line (demo_summary_print) and "wrong answers: W". Published figures, from
 * each client's own slot: requests (right answers only), bytes (reply bytes of right answers),
 * conns_opened, conns_closed, errors, and every request's time from connect() to the reply as its
 * latency.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG        "fib-client"
#define BACKOFF_MIN 10000000ull  /* 10 ms */
#define BACKOFF_MAX 200000000ull /* 200 ms */
#define REPLY_MAX   64           /* fib(92), the largest that fits in 64 bits, has 19 digits */
#define WRONG_SHOWN 5            /* wrong answers printed in full; the rest are only counted */

static struct sockaddr_in server;
static uint64_t nclients = 8;   /* --clients */
static uint64_t fib_n = 30;     /* --n */
static uint64_t fib_expected;   /* fib(n), computed here */
static uint64_t max_requests;   /* --requests; 0: no limit */
static uint64_t timeout_s = 20; /* --timeout */
static uint64_t started;        /* requests handed out, for --requests (atomic) */
static uint64_t wrong_total;    /* wrong answers, all clients (atomic) */
static uint64_t stall_s;        /* --stall; 0: not watched */
static uint64_t answered_total; /* right answers, all clients (atomic) */
static uint64_t lull_s;         /* --lull; 0: none */
static uint64_t lull_until;     /* when the lull ends, once it has begun; 0: not yet (atomic) */
static int finishing;           /* set by main at the end: clients stop (atomic) */

struct client {
    pthread_t thread;
    pthread_mutex_t lock; /* guards fd, so that main never shuts down a reused descriptor */
    int fd;               /* the connection in use, or -1 */
    uint64_t answers, bytes, errors;
    struct demo_hist hist;
    int done;       /* the thread has returned (atomic) */
    uint64_t since; /* when the request under way began, 0: none (demo_waiting_publish) */
    uint64_t answered_at_send; /* answered_total when it began (atomic) */
    uint64_t stall_said;       /* the since of the request last said stalled (main only) */
};

static int client_should_stop(void)
{
    return demo_stop || __atomic_load_n(&finishing, __ATOMIC_RELAXED);
}

/* Sleeps ns, waking early (in 10 ms steps) when the client is told to stop. */
static void client_sleep(uint64_t ns)
{
    uint64_t until = demo_now_ns() + ns;
    while (!client_should_stop() && demo_now_ns() < until)
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
}

/* fib(n) by iteration: what the server's answer must be. */
static uint64_t client_fib(uint64_t n)
{
    uint64_t a = 0, b = 1;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t t = a + b;
        a = b;
        b = t;
    }
    return a;
}

/* Says what was wrong with one answer, for the first few. */
static void client_report_wrong(const char *reply, size_t len, int newline)
{
    uint64_t k = __atomic_fetch_add(&wrong_total, 1, __ATOMIC_RELAXED);
    if (k < WRONG_SHOWN)
        fprintf(stderr,
                "wrong answer: fib(%" PRIu64 ") is %" PRIu64 ", the server answered \"%.*s\"%s\n",
                fib_n, fib_expected, (int)len, reply,
                newline ? "" : " and closed without the newline that ends a reply");
    else if (k == WRONG_SHOWN)
        fprintf(stderr, "wrong answer: more wrong answers follow; only counted from now on\n");
}

/*
 * One request on a fresh connection. The reply's length when the answer was right, 0 when the
 * client was told to stop in the middle, -EBADMSG for a wrong answer, another negative errno
 * when the request failed.
 */
static int client_request_once(int fd)
{
    if (connect(fd, (struct sockaddr *)&server, sizeof server) < 0)
        return -errno;
    char req[32];
    int len = snprintf(req, sizeof req, "%" PRIu64 "\n", fib_n);
    int err = demo_send_all(fd, req, (size_t)len);
    if (err)
        return client_should_stop() ? 0 : err;

    /* The reply is one line: read until its newline, or until the server closes. */
    char reply[REPLY_MAX + 1];
    size_t got = 0;
    while (got < REPLY_MAX && !memchr(reply, '\n', got)) {
        ssize_t n = recv(fd, reply + got, REPLY_MAX - got, 0);
        if (n < 0 && errno == EINTR && !client_should_stop())
            continue;
        if (n < 0)
            return client_should_stop() ? 0 : -errno;
        if (n == 0)
            break;
        got += (size_t)n;
    }
    char *nl = memchr(reply, '\n', got);
    if (!nl && got == 0)
        return -ECONNRESET; /* the server closed without a word */
    size_t line = nl ? (size_t)(nl - reply) : got;
    reply[line] = '\0';
    char *end;
    errno = 0;
    unsigned long long v = strtoull(reply, &end, 10);
    if (!nl || line == 0 || *end != '\0' || errno || v != fib_expected) {
        client_report_wrong(reply, line, nl != NULL);
        return -EBADMSG;
    }
    return (int)got;
}

/* --lull: waits out the lull if it is under way. */
static void client_lull(void)
{
    uint64_t until = __atomic_load_n(&lull_until, __ATOMIC_ACQUIRE), now = demo_now_ns();
    if (until > now)
        client_sleep(until - now);
}

static void *client_thread(void *arg)
{
    struct client *me = arg;
    struct iolab_app *app = iolab_app(); /* this thread's own slot */
    uint64_t backoff = BACKOFF_MIN;
    while (!client_should_stop()) {
        client_lull();
        if (client_should_stop())
            break;
        if (max_requests && __atomic_fetch_add(&started, 1, __ATOMIC_RELAXED) >= max_requests)
            break;
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0) { /* out of descriptors: say which limit, count it, try again later */
            demo_fail(PROG, IOLAB_FAIL_CONNECT, errno);
            me->errors++;
            if (app)
                iolab_add(&app->errors, 1);
            client_sleep(backoff);
            backoff = backoff * 2 < BACKOFF_MAX ? backoff * 2 : BACKOFF_MAX;
            continue;
        }
        pthread_mutex_lock(&me->lock);
        me->fd = fd;
        pthread_mutex_unlock(&me->lock);
        /* A server that never answers must not hang us: the request fails after --timeout. */
        struct timeval tv = {.tv_sec = (time_t)timeout_s};
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        uint64_t t0 = demo_now_ns();
        __atomic_store_n(&me->answered_at_send, __atomic_load_n(&answered_total, __ATOMIC_RELAXED),
                         __ATOMIC_RELAXED);
        __atomic_store_n(&me->since, t0, __ATOMIC_RELEASE);
        int r = client_request_once(fd);
        __atomic_store_n(&me->since, 0, __ATOMIC_RELAXED);
        uint64_t ns = demo_now_ns() - t0;
        int connected = r != -ECONNREFUSED && r != -ENETUNREACH;
        pthread_mutex_lock(&me->lock);
        me->fd = -1;
        close(fd);
        pthread_mutex_unlock(&me->lock);
        if (r > 0 && client_should_stop())
            r = 0; /* answered after the end: the summary has already been taken */
        if (app && connected) {
            iolab_add(&app->conns_opened, 1);
            iolab_add(&app->conns_closed, 1);
        }
        if (r == 0) {
            break; /* told to stop mid-request: dropped, not an error */
        } else if (r > 0) {
            uint64_t answered = __atomic_add_fetch(&answered_total, 1, __ATOMIC_RELAXED);
            if (lull_s && answered == nclients) /* the lull begins now, for every client */
                __atomic_store_n(&lull_until, demo_now_ns() + lull_s * 1000000000ull,
                                 __ATOMIC_RELEASE);
            me->answers++;
            me->bytes += (uint64_t)r;
            demo_hist_add(&me->hist, ns);
            backoff = BACKOFF_MIN;
            if (app) {
                iolab_add(&app->requests, 1);
                iolab_add(&app->bytes, (uint64_t)r);
                iolab_app_latency(app, ns);
            }
        } else {
            me->errors++;
            if (app)
                iolab_add(&app->errors, 1);
            if (max_requests)
                __atomic_fetch_sub(&started, 1, __ATOMIC_RELAXED); /* it will be asked again */
            if (r != -EBADMSG) { /* a wrong answer was an answer: no need to wait */
                client_sleep(backoff);
                backoff = backoff * 2 < BACKOFF_MAX ? backoff * 2 : BACKOFF_MAX;
            }
        }
    }
    __atomic_store_n(&me->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* --stall: each request unanswered for stall_s while the others got 2 x clients answers since
   it began is said once, on one line of stderr (a check reads it). Called by main's loop. */
static void client_watch_stalls(struct client *cs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* since first (acquire: the answered count it was sent at is then in), the clock and
           the total after it: a request that began after this look has since > now, and is
           skipped rather than taken for one that waited for ever. */
        uint64_t since = __atomic_load_n(&cs[i].since, __ATOMIC_ACQUIRE);
        uint64_t at = __atomic_load_n(&cs[i].answered_at_send, __ATOMIC_RELAXED);
        uint64_t now = demo_now_ns(), answered = __atomic_load_n(&answered_total, __ATOMIC_RELAXED);
        if (!since || since > now || at > answered || since == cs[i].stall_said ||
            now - since < stall_s * 1000000000ull || answered - at < 2 * n)
            continue;
        cs[i].stall_said = since;
        fprintf(stderr,
                "stalled: client %zu got no answer to fib(%" PRIu64 ") in %.1f s while the "
                "others got %" PRIu64 " answers\n",
                i + 1, fib_n, (double)(now - since) / 1e9, answered - at);
    }
}

/* ---- options, the run and main ---- */

static uint64_t port;
static struct demo_host host = {.name = "127.0.0.1"};
static double seconds; /* --seconds; 0: no limit */

static const struct demo_opt opts[] = {
    DEMO_OPTS_CONNECT(&port, &host),
    DEMO_OPT_U64("clients", &nclients, 1, 256, "N", "concurrent clients (default 8)"),
    DEMO_OPT_U64("n", &fib_n, 0, 92, "K", "ask for fib(K) (default 30)"),
    DEMO_OPT_U64("requests", &max_requests, 1, UINT64_MAX / 2, "M",
                 "stop after M right answers in total", .not_with = "seconds"),
    DEMO_OPT_SECONDS(&seconds),
    DEMO_OPT_U64("timeout", &timeout_s, 1, 3600, "S",
                 "give up on a request with no reply after S seconds (default 20)"),
    DEMO_OPT_U64("stall", &stall_s, 1, 3600, "S",
                 "say \"stalled:\" for a request unanswered after S seconds while the others "
                 "were answered"),
    DEMO_OPT_U64("lull", &lull_s, 1, 3600, "S",
                 "once there were as many answers as clients, send nothing for S seconds (once)"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host H] [--clients N] [--n K] [--requests M | --seconds T] [--timeout S] "
             "[--stall S] [--lull S]",
    .about = "Load for a fib server: N client threads, each sending \"K\\n\" on a new connection,\n"
             "checking that the reply line is fib(K) in decimal, and starting over.\n",
    .opts = opts,
    .footer =
        "At the end it prints two lines (latencies are whole requests, connect to reply):\n"
        "  requests=R seconds=T req_per_s=X bytes=B p50_us=.. p99_us=.. p999_us=.. max_us=..\n"
        "  errors=E\n"
        "  wrong answers: W\n"
        "R counts right answers only. A refused or lost connection is retried after 10 ms,\n"
        "doubling up to 200 ms; it and every wrong answer count an error.\n",
};

/* Starts the clients, waits for the end, prints the summary. */
static int run(void)
{
    fib_expected = client_fib(fib_n);
    struct client *cs = calloc(nclients, sizeof *cs);
    if (!cs) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    demo_signals_init();
    uint64_t start = demo_now_ns();
    uint64_t deadline = seconds > 0 ? start + (uint64_t)(seconds * 1e9) : 0;
    size_t nstarted = 0;
    /* Clients start with SIGTERM blocked, so it always reaches this thread's sleep. */
    demo_signals_mask(SIG_BLOCK);
    for (; nstarted < nclients; nstarted++) {
        struct client *c = &cs[nstarted];
        c->fd = -1;
        pthread_mutex_init(&c->lock, NULL);
        int err = demo_hist_init(&c->hist);
        if (err == 0 && (err = pthread_create(&c->thread, NULL, client_thread, c)) != 0)
            demo_hist_free(&c->hist);
        if (err) {
            fprintf(stderr, PROG ": cannot start client %zu: %s\n", nstarted, strerror(abs(err)));
            break;
        }
    }
    demo_signals_mask(SIG_UNBLOCK);

    /* Wait for the deadline, a signal, or every client done with --requests. */
    uint64_t published = start, oldest = 0;
    for (;;) {
        if (demo_now_ns() - published >= DEMO_WAITING_EVERY_NS) {
            demo_waiting_publish(&cs[0].since, nstarted, sizeof *cs, &oldest);
            published = demo_now_ns();
        }
        if (stall_s)
            client_watch_stalls(cs, nstarted);
        size_t done = 0;
        for (size_t i = 0; i < nstarted; i++)
            done += (size_t)__atomic_load_n(&cs[i].done, __ATOMIC_ACQUIRE);
        if (demo_stop || done == nstarted || (deadline && demo_now_ns() >= deadline))
            break;
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    /* The last word on who waits: the requests the server had not answered at the end. */
    uint64_t waiting =
        nstarted ? demo_waiting_publish(&cs[0].since, nstarted, sizeof *cs, &oldest) : 0;
    __atomic_store_n(&finishing, 1, __ATOMIC_RELAXED);
    double seconds_run = (double)(demo_now_ns() - start) / 1e9;
    /* shutdown() wakes a client blocked in send() or recv() on its socket at once. */
    for (size_t i = 0; i < nstarted; i++) {
        pthread_mutex_lock(&cs[i].lock);
        if (cs[i].fd >= 0)
            shutdown(cs[i].fd, SHUT_RDWR);
        pthread_mutex_unlock(&cs[i].lock);
    }

    struct demo_hist all;
    struct demo_summary s = {.hist = &all, .waiting = waiting, .oldest_wait_ns = oldest};
    int ok = demo_hist_init(&all) == 0;
    for (size_t i = 0; i < nstarted; i++) {
        pthread_join(cs[i].thread, NULL);
        s.requests += cs[i].answers;
        s.bytes += cs[i].bytes;
        s.errors += cs[i].errors;
        if (ok)
            demo_hist_merge(&all, &cs[i].hist);
        demo_hist_free(&cs[i].hist);
        pthread_mutex_destroy(&cs[i].lock);
    }
    s.seconds = seconds_run;
    if (ok) {
        demo_summary_print(&s, 0);
        demo_hist_free(&all);
    }
    printf("wrong answers: %" PRIu64 "\n", __atomic_load_n(&wrong_total, __ATOMIC_RELAXED));
    fflush(stdout);
    free(cs);
    return nstarted == nclients && ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    server = demo_sockaddr(&host, port);
    return run();
}
