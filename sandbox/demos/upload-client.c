/*
 * upload-client: the load for upload-server. N uploader threads; each one, again and again,
 * connects, sends the 8-byte size header and --size bytes in 64 KiB send()s, waits for the
 * server's 16-byte reply, checks the byte count and the checksum against its own, and closes
 * (the protocol is in upload.h). One thread per uploader keeps the code a straight line; the
 * client's own cost is small next to the server's.
 *
 * --split-header MS sends every upload's header in three pieces (3, 3 and 2 bytes), MS apart,
 * each its own segment: a server's first recv() of it brings 3 bytes at most, so one that takes
 * one recv() for the whole header reads a wrong size. The pauses also leave the server with
 * nothing to do for a while in every upload, which a server that polls instead of waiting shows.
 *
 * An upload's time runs from connect() to the reply. When the server is not there (the engine
 * restarts it on a mode switch) an uploader counts one error and retries after a backoff that
 * starts at 10 ms and doubles up to 200 ms; a reply with the wrong count or checksum, or a
 * connection lost mid-upload, counts one error as well, and is said on one line of stderr that
 * names the upload and its bytes: "upload 7 failed: the server's reply counts 3 bytes, 16777216
 * were sent" (a send() or recv() that waits 2 s gives up, as a failed upload).
 *
 * Ends after --uploads M (in total), after --seconds T, or on SIGTERM/SIGINT; uploads still in
 * flight then are dropped, neither counted nor errors. It prints one summary line
 * (demo_summary_print, with bytes_per_s). Published figures, from each uploader's own slot:
 * requests (uploads confirmed), bytes (payload sent in confirmed uploads), conns_opened,
 * conns_closed, errors, and every upload's time as its latency.
 */
#include "demo.h"
#include "iolab_counters.h"
#include "upload.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG        "upload-client"
#define BACKOFF_MIN 10000000ull  /* 10 ms */
#define BACKOFF_MAX 200000000ull /* 200 ms */
#define MAX_SIZE    (64ull << 30)
#define GIVE_UP_S   2 /* a send() or recv() that waits this long fails the upload */

static struct sockaddr_in server;
static uint64_t size;               /* --size */
static uint64_t max_uploads;        /* --uploads; 0: no limit */
static uint64_t split_ms;           /* --split-header; 0: the header in one send() */
static uint64_t started;            /* uploads handed out, for --uploads (atomic) */
static uint64_t numbered;           /* uploads begun on a connection, to name them (atomic) */
static int finishing;               /* set by main at the end: uploaders stop (atomic) */
static uint8_t chunk[UPLOAD_CHUNK]; /* what every send() sends: a fixed pattern */
static uint64_t expected_sum;       /* the checksum of --size bytes of that pattern */

struct uploader {
    pthread_t thread;
    pthread_mutex_t lock; /* guards fd, so that main never shuts down a reused descriptor */
    int fd;               /* the connection in use, or -1 */
    uint64_t uploads, bytes, errors;
    struct demo_hist hist;
    int done;       /* the thread has returned (atomic) */
    uint64_t since; /* when the upload under way began, 0: none (demo_waiting_publish) */
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

/* One upload under way: what its failure line says. */
struct attempt {
    uint64_t number; /* the how-manieth upload begun on a connection, from 1 */
    uint64_t sent;   /* bytes sent so far, header included */
};

/* Says why upload a failed, on one line of stderr in one write: the exercise's checks quote
   it. */
static void client_failed(const struct attempt *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void client_failed(const struct attempt *a, const char *fmt, ...)
{
    char line[512];
    int n = snprintf(line, sizeof line, "upload %llu failed: ", (unsigned long long)a->number);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    demo_write_all(STDERR_FILENO, line, (size_t)n);
}

/* A send() that failed in the middle of upload a: why, with how far it had come. A server that
   took the upload for complete too early has answered already: its reply says what it counted. */
static void client_send_failed(int fd, const struct attempt *a, int err)
{
    unsigned long long total = size + UPLOAD_HEADER_SIZE, sent = a->sent;
    uint8_t reply[UPLOAD_REPLY_SIZE];
    uint64_t bytes, sum;
    if (recv(fd, reply, sizeof reply, MSG_DONTWAIT | MSG_WAITALL) == (ssize_t)sizeof reply) {
        upload_reply_unpack(reply, &bytes, &sum);
        client_failed(a,
                      "the server's reply counts %llu bytes, %llu were to come; it answered "
                      "after %llu of %llu bytes",
                      (unsigned long long)bytes, (unsigned long long)size, sent, total);
    } else if (err == -EAGAIN || err == -EWOULDBLOCK) {
        client_failed(a,
                      "the server read nothing of it for %d s, after %llu of %llu bytes "
                      "(header included) had been sent",
                      GIVE_UP_S, sent, total);
    } else {
        client_failed(a,
                      "the server closed the connection without a reply after %llu of %llu "
                      "bytes (header included) were sent (%s)",
                      sent, total, strerror(-err));
    }
}

/* Sends upload a's header: in one send(), or with --split-header in three pieces, split_ms
   apart, each pushed out at once (TCP_NODELAY) so that each arrives as a segment of its own. */
static int client_send_header(int fd, struct attempt *a)
{
    uint64_t be = htobe64(size);
    if (!split_ms) {
        int err = demo_send_all(fd, &be, sizeof be);
        a->sent += err ? 0 : sizeof be;
        return err;
    }
    static const size_t pieces[] = {3, 3, 2};
    const uint8_t *p = (const uint8_t *)&be;
    for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
        if (i > 0)
            client_sleep(split_ms * 1000000ull);
        if (client_should_stop())
            return 1;
        int err = demo_send_all(fd, p, pieces[i]);
        if (err)
            return err;
        p += pieces[i];
        a->sent += pieces[i];
    }
    return 0;
}

/*
 * One upload on a fresh connection. 0 when the server confirmed it, 1 when the client was told
 * to stop in the middle, a negative errno when it failed (said on stderr once connected).
 */
static int client_upload_once(int fd)
{
    if (connect(fd, (struct sockaddr *)&server, sizeof server) < 0)
        return -errno;
    struct attempt a = {.number = __atomic_add_fetch(&numbered, 1, __ATOMIC_RELAXED)};
    if (split_ms)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){1}, sizeof(int));
    int err = client_send_header(fd, &a);
    for (uint64_t sent = 0; err == 0 && sent < size;) {
        if (client_should_stop())
            return 1;
        size_t n = size - sent < UPLOAD_CHUNK ? (size_t)(size - sent) : UPLOAD_CHUNK;
        err = demo_send_all(fd, chunk, n);
        sent += err ? 0 : n;
        a.sent += err ? 0 : n;
    }
    if (err == 1 || (err && client_should_stop()))
        return 1;
    if (err) {
        client_send_failed(fd, &a, err);
        return err;
    }

    uint8_t reply[UPLOAD_REPLY_SIZE];
    size_t got = 0;
    while (got < sizeof reply) {
        ssize_t n = recv(fd, reply + got, sizeof reply - got, 0);
        if (n < 0 && errno == EINTR && !client_should_stop())
            continue;
        if (n < 0 && client_should_stop())
            return 1;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            client_failed(&a,
                          "no reply within %d s after all %llu bytes (header included) were "
                          "sent (%zu of the reply's %d bytes came)",
                          GIVE_UP_S, (unsigned long long)a.sent, got, UPLOAD_REPLY_SIZE);
            return -ETIMEDOUT;
        }
        if (n <= 0) { /* the server went away before answering */
            int err = n == 0 ? ECONNRESET : errno;
            client_failed(&a,
                          "the server closed the connection after all %llu bytes (header "
                          "included) were sent, before its reply (%zu of %d bytes came)",
                          (unsigned long long)a.sent, got, UPLOAD_REPLY_SIZE);
            return -err;
        }
        got += (size_t)n;
    }
    uint64_t bytes, sum;
    upload_reply_unpack(reply, &bytes, &sum);
    if (bytes != size) {
        client_failed(&a, "the server's reply counts %llu bytes, %llu were sent",
                      (unsigned long long)bytes, (unsigned long long)size);
        return -EBADMSG;
    }
    if (sum != expected_sum) {
        client_failed(&a,
                      "the server's reply counts all %llu bytes, but its checksum is %016llx, "
                      "theirs %016llx",
                      (unsigned long long)size, (unsigned long long)sum,
                      (unsigned long long)expected_sum);
        return -EBADMSG;
    }
    return 0;
}

static void *client_uploader(void *arg)
{
    struct uploader *me = arg;
    struct iolab_app *app = iolab_app(); /* this thread's own slot */
    uint64_t backoff = BACKOFF_MIN;
    while (!client_should_stop()) {
        if (max_uploads && __atomic_fetch_add(&started, 1, __ATOMIC_RELAXED) >= max_uploads)
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
        /* A server that stops reading (stopped, or gone without a reset) must not hang us: a
         * blocked send() or recv() gives up after GIVE_UP_S, as a failed upload. */
        struct timeval tv = {.tv_sec = GIVE_UP_S};
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
        uint64_t t0 = demo_now_ns();
        __atomic_store_n(&me->since, t0, __ATOMIC_RELAXED);
        int r = client_upload_once(fd);
        __atomic_store_n(&me->since, 0, __ATOMIC_RELAXED);
        uint64_t ns = demo_now_ns() - t0;
        int connected = r != -ECONNREFUSED && r != -ENETUNREACH;
        pthread_mutex_lock(&me->lock);
        me->fd = -1;
        close(fd);
        pthread_mutex_unlock(&me->lock);
        if (r != 1 && client_should_stop())
            r = 1; /* finished or failed after the end: the summary has already been taken */
        if (app && connected) {
            iolab_add(&app->conns_opened, 1);
            iolab_add(&app->conns_closed, 1);
        }
        if (r == 1) {
            break; /* told to stop mid-upload: dropped, not an error */
        } else if (r == 0) {
            me->uploads++;
            me->bytes += size;
            demo_hist_add(&me->hist, ns);
            backoff = BACKOFF_MIN;
            if (app) {
                iolab_add(&app->requests, 1);
                iolab_add(&app->bytes, size);
                iolab_app_latency(app, ns);
            }
        } else {
            me->errors++;
            if (app)
                iolab_add(&app->errors, 1);
            if (max_uploads)
                __atomic_fetch_sub(&started, 1, __ATOMIC_RELAXED); /* it will be sent again */
            client_sleep(backoff);
            backoff = backoff * 2 < BACKOFF_MAX ? backoff * 2 : BACKOFF_MAX;
        }
    }
    __atomic_store_n(&me->done, 1, __ATOMIC_RELEASE);
    return NULL;
}

/* ---- options, the run and main ---- */

static uint64_t port, nclients = 1;
static struct demo_host host = {.name = "127.0.0.1"};
static double seconds; /* --seconds; 0: no limit */

static const struct demo_opt opts[] = {
    DEMO_OPTS_CONNECT(&port, &host),
    DEMO_OPT_U64("clients", &nclients, 1, 256, "N", "concurrent uploaders (default 1)"),
    DEMO_OPT_SIZE("size", &size, MAX_SIZE, "BYTES",
                  "bytes per upload, with an optional K, M or G suffix (required)", .required = 1),
    DEMO_OPT_U64("uploads", &max_uploads, 1, UINT64_MAX / 2, "M",
                 "stop after M confirmed uploads in total", .not_with = "seconds"),
    DEMO_OPT_SECONDS(&seconds),
    DEMO_OPT_U64("split-header", &split_ms, 1, 10000, "MS",
                 "send each header in three pieces (3, 3 and 2 bytes), MS ms apart"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host H] [--clients N] --size BYTES [--uploads M | --seconds T]\n"
             "       [--split-header MS]",
    .about = "Load for upload-server: N uploader threads, each uploading BYTES on a new\n"
             "connection, checking the server's byte count and checksum, and starting over.\n",
    .opts = opts,
    .footer = "At the end it prints one line (latencies are whole uploads):\n"
              "  requests=R seconds=T req_per_s=X bytes=B bytes_per_s=Y p50_us=.. p99_us=..\n"
              "  p999_us=.. max_us=.. errors=E\n"
              "A refused or lost connection is retried after 10 ms, doubling up to 200 ms; each\n"
              "counts an error. An upload that failed once connected is said on stderr:\n"
              "  upload N failed: WHY (the bytes sent, and what the server's reply said)\n",
};

/* Starts the uploaders, waits for the end, prints the summary. */
static int run(void)
{
    /* The data: a byte pattern that is not all one value, so the checksum sees every chunk. */
    for (size_t i = 0; i < sizeof chunk; i++)
        chunk[i] = (uint8_t)(i * 7 + i / 251);
    struct upload_sum sum = {0};
    for (uint64_t left = size; left > 0;) {
        size_t n = left < UPLOAD_CHUNK ? (size_t)left : UPLOAD_CHUNK;
        upload_sum_add(&sum, chunk, n);
        left -= n;
    }
    expected_sum = upload_sum_value(&sum);

    struct uploader *ups = calloc(nclients, sizeof *ups);
    if (!ups) {
        fprintf(stderr, PROG ": out of memory\n");
        return 1;
    }
    demo_signals_init();
    uint64_t start = demo_now_ns();
    uint64_t deadline = seconds > 0 ? start + (uint64_t)(seconds * 1e9) : 0;
    size_t nstarted = 0;
    /* Uploaders start with SIGTERM blocked, so it always reaches this thread's sleep. */
    demo_signals_mask(SIG_BLOCK);
    for (; nstarted < nclients; nstarted++) {
        struct uploader *u = &ups[nstarted];
        u->fd = -1;
        pthread_mutex_init(&u->lock, NULL);
        int err = demo_hist_init(&u->hist);
        if (err == 0 && (err = pthread_create(&u->thread, NULL, client_uploader, u)) != 0)
            demo_hist_free(&u->hist);
        if (err) {
            fprintf(stderr, PROG ": cannot start uploader %zu: %s\n", nstarted, strerror(abs(err)));
            break;
        }
    }
    demo_signals_mask(SIG_UNBLOCK);

    /* Wait for the deadline, a signal, or every uploader done with --uploads. */
    uint64_t published = start, oldest = 0;
    for (;;) {
        if (demo_now_ns() - published >= DEMO_WAITING_EVERY_NS) {
            demo_waiting_publish(&ups[0].since, nstarted, sizeof *ups, &oldest);
            published = demo_now_ns();
        }
        size_t done = 0;
        for (size_t i = 0; i < nstarted; i++)
            done += (size_t)__atomic_load_n(&ups[i].done, __ATOMIC_ACQUIRE);
        if (demo_stop || done == nstarted || (deadline && demo_now_ns() >= deadline))
            break;
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    /* The last word on who waits: the uploads the server had not confirmed at the end. */
    uint64_t waiting =
        nstarted ? demo_waiting_publish(&ups[0].since, nstarted, sizeof *ups, &oldest) : 0;
    __atomic_store_n(&finishing, 1, __ATOMIC_RELAXED);
    double seconds_run = (double)(demo_now_ns() - start) / 1e9;
    /* shutdown() wakes an uploader blocked in send() or recv() on its socket at once. */
    for (size_t i = 0; i < nstarted; i++) {
        pthread_mutex_lock(&ups[i].lock);
        if (ups[i].fd >= 0)
            shutdown(ups[i].fd, SHUT_RDWR);
        pthread_mutex_unlock(&ups[i].lock);
    }

    struct demo_hist all;
    struct demo_summary s = {.hist = &all, .waiting = waiting, .oldest_wait_ns = oldest};
    int ok = demo_hist_init(&all) == 0;
    for (size_t i = 0; i < nstarted; i++) {
        pthread_join(ups[i].thread, NULL);
        s.requests += ups[i].uploads;
        s.bytes += ups[i].bytes;
        s.errors += ups[i].errors;
        if (ok)
            demo_hist_merge(&all, &ups[i].hist);
        demo_hist_free(&ups[i].hist);
        pthread_mutex_destroy(&ups[i].lock);
    }
    s.seconds = seconds_run;
    if (ok) {
        demo_summary_print(&s, 1);
        demo_hist_free(&all);
    }
    free(ups);
    return nstarted == nclients && ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    server = demo_sockaddr(&host, port);
    return run();
}
