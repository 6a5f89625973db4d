/*
 * file-client: the load for file-server. Each of N threads keeps one HTTP/1.1 connection open
 * and downloads --path over it again and again: send the request, read the head, take
 * Content-Length from it, then read() exactly that many body bytes into a buffer and throw them
 * away, or, with --verify FILE, compare them with FILE (mapped once) byte for byte.
 *
 * Plain blocking I/O, one thread per connection: the client is there to pull bytes, not to be
 * studied. Each socket has a 200 ms receive timeout only so that a thread notices the end of the
 * run while it waits for a server that has gone quiet (and, mid-body, to say once per run how far
 * a stalled download got).
 *
 * A connection that breaks (refused, reset, closed mid-response) counts one error and is
 * re-established after 10 ms, doubling up to 200 ms: the engine restarts the server when the
 * learner switches modes. A response other than 200, or a body that differs from --verify FILE,
 * counts one error too, and makes the exit status 1.
 *
 * What went wrong is said at once, the first time each kind happens in a run, in one line an
 * exercise's checks match: the first byte that differs from --verify FILE ("bytes differ from
 * the file at offset N"), a wrong status or length, and a connection the server closed in the
 * middle of a response ("the connection dropped after N of M bytes", with --whole). A server
 * that closes mid-response because it was stopped (the engine restarts it on a mode switch, and
 * stops it at the end of a run) is gone: a drop is said only once the server has answered again,
 * on a new connection made at once, with the head of a response. A new connection alone does not
 * tell: a process that exits lets its connections go before its listening socket, which still
 * takes connections for that moment. Only with --whole, since a demo server that is stopping may
 * close its connections before its listening socket.
 *
 * Ends after --requests M downloads, after --seconds T, or on SIGTERM/SIGINT, and prints one
 * summary line (demo_summary_print, with bytes_per_s). Published figures (each thread's slot):
 * requests, bytes (body bytes received), conns_opened, conns_closed, errors, latency.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG        "file-client"
#define HEAD_MAX    8192
#define BODY_CHUNK  65536
#define BACKOFF_MIN 10000000ull  /* 10 ms */
#define BACKOFF_MAX 200000000ull /* 200 ms */

static struct sockaddr_in server;
static char request[1200]; /* the GET request, the same every time */
static size_t request_len;
static const unsigned char *expect; /* --verify FILE, mapped; NULL without --verify */
static uint64_t expect_size;
static uint64_t budget;     /* --requests left to hand out; UINT64_MAX: no limit */
static int whole;           /* --whole: a response the server cut short is a wrong download */
static volatile int finish; /* set by main: the run is over */
static int running;         /* workers that have not returned yet */

struct worker {
    pthread_t thread;
    uint64_t requests, bytes, errors, wrong; /* wrong: non-200 or mismatching downloads */
    uint64_t cut_got, cut_len; /* a response that broke mid-way: how far it got (cut_len 0: none) */
    uint64_t drop_got, drop_len; /* such a break not said yet: said when the server answers the
                                    next request (drop_len 0: none) */
    struct demo_hist hist;
    struct iolab_app *app; /* this thread's published figures, or NULL */
    uint64_t since;        /* when the request out now was sent, 0: none (demo_waiting_publish) */
};

static int take_request(void)
{
    uint64_t left = __atomic_load_n(&budget, __ATOMIC_RELAXED);
    while (left > 0)
        if (__atomic_compare_exchange_n(&budget, &left, left == UINT64_MAX ? left : left - 1, 0,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return 1;
    return 0;
}

static void give_back_request(void)
{
    if (__atomic_load_n(&budget, __ATOMIC_RELAXED) != UINT64_MAX)
        __atomic_add_fetch(&budget, 1, __ATOMIC_RELAXED);
}

static void count_error(struct worker *w)
{
    w->errors++;
    if (w->app)
        iolab_add(&w->app->errors, 1);
}

/* read() that waits through the receive timeout until data, EOF, an error, or the end. */
static ssize_t read_some(int fd, void *buf, size_t len)
{
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0 || (errno != EINTR && errno != EAGAIN) || finish)
            return n;
    }
}

/* Set once a stalled download has been said: one line a run tells the learner enough. */
static int said_stall;

/* What went wrong with a download, said once per run for each kind (see the top). */
enum wrong_kind { WRONG_BYTES, WRONG_STATUS, WRONG_LENGTH, WRONG_DROP, WRONG_KINDS };
static int said_wrong[WRONG_KINDS];

static void say_wrong(enum wrong_kind k, unsigned long long a, unsigned long long b)
{
    if (__atomic_exchange_n(&said_wrong[k], 1, __ATOMIC_RELAXED))
        return;
    switch (k) {
    case WRONG_BYTES:
        fprintf(stderr, PROG ": a download's bytes differ from the file at offset %llu of %llu\n",
                a, b);
        break;
    case WRONG_STATUS:
        fprintf(stderr, PROG ": a response had status %llu, not 200\n", a);
        break;
    case WRONG_LENGTH:
        fprintf(stderr, PROG ": a response said Content-Length: %llu, the file has %llu bytes\n", a,
                b);
        break;
    case WRONG_DROP:
        fprintf(stderr,
                PROG ": the connection dropped after %llu of %llu bytes of a download: the "
                     "server closed it mid-response (is EINTR retried?)\n",
                a, b);
        break;
    default:
        break;
    }
}

/*
 * read_some() for a body: a server that stops sending before its Content-Length (a send loop
 * that gave up after a short send) leaves the download waiting for ever, so after a second of
 * silence mid-body the client says how far it got, once per run, and keeps waiting.
 */
static ssize_t read_body(int fd, void *buf, size_t len, uint64_t got, uint64_t length)
{
    uint64_t quiet_since = 0;
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0 || (errno != EINTR && errno != EAGAIN) || finish)
            return n;
        if (errno != EAGAIN)
            continue;
        uint64_t now = demo_now_ns();
        if (!quiet_since)
            quiet_since = now;
        else if (now - quiet_since >= 1000000000u &&
                 !__atomic_exchange_n(&said_stall, 1, __ATOMIC_RELAXED))
            fprintf(stderr,
                    PROG ": a download stalled at %llu of %llu bytes: the server sent nothing "
                         "more for 1 s, short of its Content-Length\n",
                    (unsigned long long)got, (unsigned long long)length);
    }
}

static int connect_server(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) { /* out of descriptors: say which limit (the caller counts the error) */
        demo_fail(PROG, IOLAB_FAIL_CONNECT, errno);
        return -1;
    }
    struct timeval tv = {.tv_usec = 200000}; /* see the top of the file */
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (connect(fd, (struct sockaddr *)&server, sizeof server) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * One download on an open connection. Returns 1 when the connection can be reused, 0 when the
 * server asked to close it, -1 when it broke. *ok says whether the download was right.
 */
static int download(int fd, struct worker *w, char *body, int *ok)
{
    char head[HEAD_MAX + 1];
    size_t have = 0;
    char *end;
    *ok = 0;
    if (demo_send_all(fd, request, request_len) < 0)
        return -1;
    while (!(end = memmem(head, have, "\r\n\r\n", 4))) {
        if (have == HEAD_MAX)
            return -1;
        ssize_t n = read_some(fd, head + have, HEAD_MAX - have);
        if (n <= 0)
            return -1;
        have += (size_t)n;
    }
    *end = '\0';
    int status = 0;
    unsigned long long length = 0;
    sscanf(head, "HTTP/1.%*d %d", &status);
    const char *cl = strcasestr(head, "\r\nContent-Length:");
    if (!cl || sscanf(cl + 17, "%llu", &length) != 1)
        return -1; /* without a length we cannot tell where the body ends */
    const char *conn = strcasestr(head, "\r\nConnection:");
    int keep = !(conn && strncasecmp(conn + 13 + strspn(conn + 13, " "), "close", 5) == 0);
    if (w->drop_len) { /* the server answered after the drop: it is still there, and chose it */
        say_wrong(WRONG_DROP, w->drop_got, w->drop_len);
        w->wrong++;
        w->drop_len = 0;
    }

    /* The body: first what came with the head, then read() until Content-Length bytes. */
    size_t extra = have - (size_t)(end + 4 - head);
    int same = status == 200 && (!expect || length == expect_size);
    if (status != 200)
        say_wrong(WRONG_STATUS, (unsigned long long)status, 0);
    else if (expect && length != expect_size)
        say_wrong(WRONG_LENGTH, length, (unsigned long long)expect_size);
    uint64_t got = 0;
    while (got < length) {
        const char *p;
        size_t n;
        if (extra > 0) {
            p = end + 4;
            n = extra < length ? extra : (size_t)length;
            extra = 0;
        } else {
            uint64_t want = length - got < BODY_CHUNK ? length - got : BODY_CHUNK;
            ssize_t r = read_body(fd, body, (size_t)want, got, length);
            if (r <= 0) {
                w->cut_got = got;
                w->cut_len = length;
                return -1;
            }
            p = body;
            n = (size_t)r;
        }
        if (expect && same && memcmp(p, expect + got, n) != 0) {
            size_t at = 0;
            while ((unsigned char)p[at] == expect[got + at])
                at++;
            say_wrong(WRONG_BYTES, got + at, length);
            same = 0;
        }
        got += n;
    }
    w->bytes += got;
    if (w->app)
        iolab_add(&w->app->bytes, got);
    *ok = same;
    return keep;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->app = iolab_app(); /* per thread: each worker has its own slot */
    char *body = malloc(BODY_CHUNK);
    int fd = -1;
    uint64_t backoff = BACKOFF_MIN;
    while (body && !finish) {
        if (fd < 0) {
            fd = connect_server();
            if (fd < 0) {
                count_error(w); /* typically ECONNREFUSED: the server is restarting */
                demo_sleep_ns(backoff);
                backoff = backoff * 2 < BACKOFF_MAX ? backoff * 2 : BACKOFF_MAX;
                continue;
            }
            if (w->app)
                iolab_add(&w->app->conns_opened, 1);
        }
        if (!take_request())
            break;
        uint64_t t0 = demo_now_ns();
        __atomic_store_n(&w->since, t0, __ATOMIC_RELAXED);
        w->cut_len = 0;
        int ok, keep = download(fd, w, body, &ok);
        __atomic_store_n(&w->since, 0, __ATOMIC_RELAXED);
        w->drop_len = 0; /* a drop the server did not answer after: it was stopping */
        if (keep < 0 && w->cut_len && !finish && whole) {
            /* Cut mid-response. A server that is still there chose to close (a send loop that
               gave up), and answers the request again on a new connection made at once; one
               that was stopped refuses it, or takes it and never answers. */
            close(fd);
            if (w->app)
                iolab_add(&w->app->conns_closed, 1);
            fd = connect_server();
            if (fd >= 0) {
                w->drop_got = w->cut_got; /* said when the answer's head comes (download) */
                w->drop_len = w->cut_len;
                if (w->app)
                    iolab_add(&w->app->conns_opened, 1);
            }
            give_back_request(); /* asked again on the new connection (or the next one) */
            count_error(w);
            continue;
        }
        if (keep < 0) {
            give_back_request(); /* not answered; it will be asked again */
            if (!finish)
                count_error(w);
        } else if (!ok) {
            count_error(w);
            w->wrong++;
            demo_sleep_ns(backoff); /* a wrong answer will not improve by asking faster */
        } else {
            uint64_t ns = demo_now_ns() - t0;
            demo_hist_add(&w->hist, ns);
            w->requests++;
            backoff = BACKOFF_MIN;
            if (w->app) {
                iolab_add(&w->app->requests, 1);
                iolab_app_latency(w->app, ns);
            }
        }
        if (keep <= 0) {
            close(fd);
            fd = -1;
            if (w->app)
                iolab_add(&w->app->conns_closed, 1);
        }
    }
    if (fd >= 0) {
        close(fd);
        if (w->app)
            iolab_add(&w->app->conns_closed, 1);
    }
    free(body);
    __atomic_sub_fetch(&running, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* ---- options, the run and main ---- */

static uint64_t port, nconns = 1, max_requests;
static struct demo_host host = {.name = "127.0.0.1"};
static const char *path, *verify; /* --path, --verify */
static double seconds;            /* --seconds; 0: no limit */

static const struct demo_opt opts[] = {
    DEMO_OPTS_CONNECT(&port, &host),
    DEMO_OPT_TEXT("path", &path, "/NAME", "what to download"),
    DEMO_OPT_U64("connections", &nconns, 1, 256, "N",
                 "concurrent connections (default 1, at most 256)"),
    DEMO_OPT_U64("requests", &max_requests, 1, UINT64_MAX / 2, "M",
                 "stop after M downloads in total", .not_with = "seconds"),
    DEMO_OPT_SECONDS(&seconds),
    DEMO_OPT_TEXT("verify", &verify, "FILE",
                  "compare every byte with FILE; exit 1 if any download differed"),
    DEMO_OPT_FLAG("whole", &whole,
                  "a response the server closes before its end (and still listens) is wrong:"
                  " say so at once and exit 1 (for an exercise; a mode switch is not one)"),
    {0},
};

/* --path goes into the request line as it is, so it must be one word that starts with '/'. */
static void check_path(void)
{
    if (!path || path[0] != '/' || strlen(path) > 1024 || strpbrk(path, " \r\n"))
        demo_usage_error(PROG, "--path wants a URL path such as /file.bin");
}

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host H] --path /NAME [--connections N] [--requests M | --seconds T]"
             " [--verify FILE] [--whole]",
    .about = "Load for file-server: N keep-alive connections, a thread each, downloading /NAME\n"
             "again and again and discarding the bytes.\n",
    .opts = opts,
    .footer = "At the end it prints one line:\n"
              "  requests=R seconds=T req_per_s=X bytes=B bytes_per_s=Y p50_us=.. p99_us=..\n"
              "  p999_us=.. max_us=.. errors=E\n",
    .check = check_path,
};

/* Starts the workers, waits for the end, prints the summary. */
static int run(void)
{
    if (verify) {
        /* Mapped once and compared against every download: the reference never changes. */
        int fd = open(verify, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
            demo_usage_error(PROG, "--verify '%s' is not a regular file we can read", verify);
        expect_size = (uint64_t)st.st_size;
        expect = expect_size ? mmap(NULL, expect_size, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
        close(fd);
        if (expect == MAP_FAILED) {
            perror(PROG ": mmap");
            return 1;
        }
        if (!expect)
            expect = (const unsigned char *)""; /* an empty file: still verify the length */
    }
    request_len =
        (size_t)snprintf(request, sizeof request, "GET %s HTTP/1.1\r\nHost: %s:%llu\r\n\r\n", path,
                         host.name, (unsigned long long)port);
    budget = max_requests ? max_requests : UINT64_MAX;

    demo_signals_init();
    struct worker *workers = calloc(nconns, sizeof *workers);
    if (!workers) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    uint64_t start = demo_now_ns(), s_oldest = 0;
    demo_signals_mask(SIG_BLOCK); /* workers inherit it: SIGTERM is this thread's to handle */
    size_t started = 0;
    running = (int)nconns;
    for (; started < nconns; started++)
        if (demo_hist_init(&workers[started].hist) < 0 ||
            pthread_create(&workers[started].thread, NULL, worker_main, &workers[started]) != 0)
            break;
    demo_signals_mask(SIG_UNBLOCK);
    if (started < nconns) {
        fprintf(stderr, PROG ": could start only %zu of %zu connections\n", started, nconns);
        finish = 1;
        __atomic_sub_fetch(&running, (int)(nconns - started), __ATOMIC_RELAXED);
    }

    /* Wait for the end: the workers ran out of requests, the deadline, or SIGTERM (which cuts
     * the sleep short). */
    uint64_t deadline = seconds > 0 ? start + (uint64_t)(seconds * 1e9) : 0;
    uint64_t published = start;
    while (!demo_stop && __atomic_load_n(&running, __ATOMIC_RELAXED) > 0 &&
           (!deadline || demo_now_ns() < deadline)) {
        demo_sleep_ns(10000000);
        if (demo_now_ns() - published >= DEMO_WAITING_EVERY_NS) {
            demo_waiting_publish(&workers[0].since, started, sizeof *workers, &s_oldest);
            published = demo_now_ns();
        }
    }
    /* The last word on who waits: those the server had not answered at the end. */
    uint64_t s_waiting =
        demo_waiting_publish(&workers[0].since, started, sizeof *workers, &s_oldest);
    double elapsed = (double)(demo_now_ns() - start) / 1e9;
    finish = 1;

    struct demo_hist all;
    struct demo_summary s = {
        .seconds = elapsed, .hist = &all, .waiting = s_waiting, .oldest_wait_ns = s_oldest};
    uint64_t wrong = 0;
    if (demo_hist_init(&all) < 0)
        return 1;
    for (size_t i = 0; i < started; i++) {
        pthread_join(workers[i].thread, NULL);
        s.requests += workers[i].requests;
        s.bytes += workers[i].bytes;
        s.errors += workers[i].errors;
        wrong += workers[i].wrong;
        demo_hist_merge(&all, &workers[i].hist);
    }
    free(workers);
    demo_summary_print(&s, 1);
    if (wrong > 0) {
        fprintf(stderr,
                PROG ": %llu downloads were wrong (status not 200, bytes not those of"
                     " --verify FILE, or closed by the server before their end).\n",
                (unsigned long long)wrong);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    server = demo_sockaddr(&host, port);
    return run();
}
