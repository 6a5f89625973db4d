/*
 * ipc-proxy: the load for ipc-cache (lessons/ipc.json). --concurrency C threads each own one
 * of the cache's segments (thread k uses segment k) and ask for the --file names in turn:
 *
 *   mq_send("send FILE through segment k")  then, per chunk:
 *   sem_wait(ready) -> memcpy the chunk out of the segment -> sem_post(room)
 *
 * The memcpy is what a real proxy does before it hands the bytes on (the seed's proxy wrote
 * them to a client socket): the second copy of every byte. Each whole file is then compared
 * with the file itself (mapped from --dir), so a wrong byte counts as an error.
 *
 * The cache may restart (the learner switches its segment size): a thread whose chunk does
 * not arrive within a second counts one error, drops its mapping and opens the queue and its
 * segment again by name, retrying every 50 ms until the new cache is up.
 *
 * Ends after --requests M, --seconds T or SIGTERM, then prints the summary line. Published
 * figures (per thread): requests, bytes received, errors, every request's latency.
 *
 * With --listen P the proxy is what the seed built: a server in front of real clients. It
 * answers HTTP GETs on port P (a thread per connection, as file-server's thread modes), and
 * --via says how each file comes from the cache:
 *
 *   shm           through a shared-memory segment, chunk by chunk, as above; each chunk is
 *                 send()-ed from the segment to the client: the cache's pread() and our send()
 *                 copy every byte once each.
 *   fd-sendfile   the cache passes us the open file itself over its Unix socket (SCM_RIGHTS)
 *                 and we sendfile() it to the client: no byte enters either process.
 *   fd-splice     the same descriptor, moved with splice() through a pipe instead.
 *
 * The client (file-client --verify) checks every byte it receives. Published figures then:
 * requests answered, bytes sent to clients, connections, errors.
 */
#include "demo.h"
#include "iolab_counters.h"
#include "ipc-segment.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <string.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PROG        "ipc-proxy"
#define MAX_FILES   8
#define MAX_THREADS 64

struct file {
    const char *name;
    const unsigned char *bytes; /* the file mapped, to verify against */
    size_t size;
};

static struct file files[MAX_FILES];
static unsigned nfiles;
static uint64_t max_requests; /* 0: no limit */
static uint64_t handed_out;   /* requests started, across threads (atomic) */
static uint64_t corrupt;      /* files that arrived with wrong bytes (atomic) */

struct thread {
    pthread_t id;
    unsigned k; /* the segment this thread uses */
    mqd_t queue;
    struct ipc_segment *seg;
    size_t seg_len;
    uint64_t requests, bytes, errors;
    struct demo_hist hist;
};

static void disconnect(struct thread *t)
{
    if (t->seg)
        munmap(t->seg, t->seg_len);
    if (t->queue != (mqd_t)-1)
        mq_close(t->queue);
    t->seg = NULL;
    t->queue = (mqd_t)-1;
}

/* Opens the queue and segment k; 0 when both are there (and the cache has a segment k). */
static int connect_cache(struct thread *t)
{
    char name[256];
    ipc_name(name, sizeof name, "queue", -1);
    t->queue = mq_open(name, O_WRONLY | O_CLOEXEC);
    ipc_name(name, sizeof name, "seg", (int)t->k);
    int fd = t->queue == (mqd_t)-1 ? -1 : shm_open(name, O_RDWR | O_CLOEXEC, 0);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size > IPC_HEADER_SIZE) {
        t->seg_len = (size_t)st.st_size;
        void *m = mmap(NULL, t->seg_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        t->seg = m == MAP_FAILED ? NULL : m;
    }
    if (fd >= 0)
        close(fd);
    if (!t->seg || t->seg->size + IPC_HEADER_SIZE > t->seg_len) {
        disconnect(t);
        return -ENOENT;
    }
    return 0;
}

/* sem_wait() on the segment's ready semaphore that gives up after a second. */
static int wait_ready(struct thread *t)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 1;
    while (sem_timedwait(&t->seg->ready, &dl) < 0)
        if (errno != EINTR || demo_stop)
            return -errno;
    return 0;
}

/* One request for file f into buf; 0, or a negative errno (the connection is then dropped). */
static int fetch(struct thread *t, const struct file *f, unsigned char *buf)
{
    struct ipc_request req = {.segment = t->k};
    snprintf(req.file, sizeof req.file, "%s", f->name);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 1;
    if (mq_timedsend(t->queue, (const char *)&req, sizeof req, 0, &dl) < 0)
        return -errno;
    size_t got = 0;
    for (;;) {
        int err = wait_ready(t);
        if (err)
            return err;
        int64_t len = t->seg->len;
        int last = (int)t->seg->last;
        if (len > 0 && got + (size_t)len <= f->size)
            memcpy(buf + got, ipc_segment_data(t->seg), (size_t)len);
        got += len > 0 ? (size_t)len : 0;
        sem_post(&t->seg->room);
        if (len < 0)
            return (int)len;
        if (last)
            break;
    }
    t->bytes += got;
    return got == f->size && memcmp(buf, f->bytes, f->size) == 0 ? 0 : -EBADMSG;
}

static void *run_thread(void *arg)
{
    struct thread *t = arg;
    struct iolab_app *app = iolab_app();
    size_t biggest = 1;
    for (unsigned i = 0; i < nfiles; i++)
        biggest = files[i].size > biggest ? files[i].size : biggest;
    unsigned char *buf = malloc(biggest);
    if (!buf)
        return NULL;
    for (uint64_t n = t->k; !demo_stop;) {
        if (!t->seg && connect_cache(t) < 0) {
            usleep(50000); /* the cache is not up yet, or is restarting */
            continue;
        }
        if (max_requests && __atomic_fetch_add(&handed_out, 1, __ATOMIC_RELAXED) >= max_requests)
            break;
        const struct file *f = &files[n++ % nfiles];
        uint64_t t0 = demo_now_ns();
        int err = fetch(t, f, buf);
        uint64_t ns = demo_now_ns() - t0;
        if (err) {
            t->errors++;
            if (app)
                iolab_add(&app->errors, 1);
            if (max_requests)
                __atomic_fetch_sub(&handed_out, 1, __ATOMIC_RELAXED); /* ask again */
            if (err == -EBADMSG)
                __atomic_fetch_add(&corrupt, 1, __ATOMIC_RELAXED);
            if (err != -EBADMSG && err != -ENOENT)
                disconnect(t); /* timed out: the cache is gone; find the new one */
            else
                usleep(10000);
            continue;
        }
        t->requests++;
        demo_hist_add(&t->hist, ns);
        demo_publish_request(app, f->size, ns);
    }
    free(buf);
    disconnect(t);
    return NULL;
}

/* ---- --listen: the proxy in front of a client ---- */

static const char *dir; /* --dir: the cache's directory (its Unix socket is there) */

/* The cache's queue and every segment, shared by the connection threads: a request holds the
   segment's lock for its whole transfer. */
static struct thread shared[MAX_THREADS];
static pthread_mutex_t shared_lock[MAX_THREADS];
static unsigned shared_n = 1; /* segments in use: learnt from the cache's segment 0 */
static unsigned shared_next;  /* round robin over them (atomic) */

/* "HTTP/1.1 200 OK" with its Content-Length, or an error with none; flags: MSG_MORE when the
   body follows, so that the head waits for it. */
static int front_head(int sock, int64_t size, int flags)
{
    char head[160];
    int n = size >= 0 ? snprintf(head, sizeof head,
                                 "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n"
                                 "Content-Length: %lld\r\n\r\n",
                                 (long long)size)
                      : snprintf(head, sizeof head,
                                 "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
    return send(sock, head, (size_t)n, MSG_NOSIGNAL | (size > 0 ? flags : 0)) == n ? 0 : -EIO;
}

/* shm: the file comes chunk by chunk through a segment; each chunk goes from the segment
   straight to the client (one copy, user to kernel). Bytes sent, or a negative errno. */
static int64_t via_shm(int sock, const char *name, int *unix_fd)
{
    (void)unix_fd;
    unsigned k = __atomic_fetch_add(&shared_next, 1, __ATOMIC_RELAXED) % shared_n;
    struct thread *t = &shared[k];
    pthread_mutex_lock(&shared_lock[k]);
    int64_t sent = 0;
    if (!t->seg && connect_cache(t) < 0) {
        pthread_mutex_unlock(&shared_lock[k]);
        return -ENOENT;
    }
    if (k == 0 && t->seg->nsegments > 0)
        shared_n = t->seg->nsegments < MAX_THREADS ? t->seg->nsegments : MAX_THREADS;
    struct ipc_request req = {.segment = k};
    snprintf(req.file, sizeof req.file, "%s", name);
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += 1;
    int err = mq_timedsend(t->queue, (const char *)&req, sizeof req, 0, &dl) < 0 ? -errno : 0;
    for (int first = 1; !err; first = 0) {
        if ((err = wait_ready(t)) < 0)
            break;
        int64_t len = t->seg->len;
        int last = (int)t->seg->last;
        if (first)
            err = front_head(sock, len < 0 ? -1 : (int64_t)t->seg->total, MSG_MORE);
        if (!err && len > 0 && demo_send_all(sock, ipc_segment_data(t->seg), (size_t)len) < 0)
            err = -EPIPE;
        sent += len > 0 ? len : 0;
        sem_post(&t->seg->room);
        if (len < 0 && !err)
            err = 1; /* answered 404: not an error of ours, but no bytes */
        if (last)
            break;
    }
    if (err < 0 && err != -EPIPE)
        disconnect(t); /* the cache went away: find the new one next time */
    pthread_mutex_unlock(&shared_lock[k]);
    return err < 0 ? err : sent;
}

/* Asks the cache for `name` on its Unix socket; the open file arrives as SCM_RIGHTS. */
static int fd_fetch(int *unix_fd, const char *name, int64_t *size)
{
    if (*unix_fd < 0) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s/" IPC_FD_SOCKET, dir);
        *unix_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (*unix_fd < 0 || connect(*unix_fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
            int err = -errno;
            if (*unix_fd >= 0)
                close(*unix_fd);
            *unix_fd = -1;
            return err;
        }
    }
    struct ipc_request req = {0};
    snprintf(req.file, sizeof req.file, "%s", name);
    struct ipc_fd_reply reply;
    struct iovec iov = {&reply, sizeof reply};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl};
    if (send(*unix_fd, &req, sizeof req, MSG_NOSIGNAL) != (ssize_t)sizeof req ||
        recvmsg(*unix_fd, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof reply) {
        close(*unix_fd);
        *unix_fd = -1;
        return -ECONNRESET;
    }
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    int file = -1;
    if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
        memcpy(&file, CMSG_DATA(cm), sizeof file);
    *size = reply.size;
    return file; /* -1 with size < 0: the cache has no such file */
}

/* fd-sendfile: our own descriptor of the cache's file, sent by the kernel. */
static int64_t via_fd_sendfile(int sock, const char *name, int *unix_fd)
{
    int64_t size;
    int file = fd_fetch(unix_fd, name, &size);
    if (file < 0)
        return size < 0 && file == -1 ? (front_head(sock, -1, 0) ? -EPIPE : 0) : file;
    int err = front_head(sock, size, MSG_MORE);
    off_t off = 0;
    while (!err && off < size) {
        ssize_t n = sendfile(sock, file, &off, (size_t)(size - off));
        if (n <= 0 && !(n < 0 && errno == EINTR && !demo_stop))
            err = -EPIPE;
    }
    close(file);
    return err ? err : size;
}

/* fd-splice: the same descriptor, file -> pipe -> socket with splice(): page references move,
   not bytes. */
static int64_t via_fd_splice(int sock, const char *name, int *unix_fd)
{
    int64_t size;
    int file = fd_fetch(unix_fd, name, &size);
    if (file < 0)
        return size < 0 && file == -1 ? (front_head(sock, -1, 0) ? -EPIPE : 0) : file;
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0) {
        close(file);
        return -errno;
    }
    int err = front_head(sock, size, MSG_MORE);
    loff_t off = 0;
    while (!err && off < size) {
        ssize_t in = splice(file, &off, p[1], NULL, (size_t)(size - off), SPLICE_F_MOVE);
        if (in <= 0) {
            err = -EIO;
            break;
        }
        /* SPLICE_F_MORE (MSG_MORE) while more of the file follows; the last piece goes out at
           once, or it would wait for a next reply that the client is not asking for yet. */
        unsigned more = off < size ? SPLICE_F_MORE : 0;
        while (in > 0 && !err) {
            ssize_t out = splice(p[0], NULL, sock, NULL, (size_t)in, SPLICE_F_MOVE | more);
            if (out <= 0)
                err = -EPIPE;
            else
                in -= out;
        }
    }
    close(p[0]);
    close(p[1]);
    close(file);
    return err ? err : size;
}

struct via {
    struct demo_mode cli;
    int64_t (*send_file)(int sock, const char *name, int *unix_fd); /* bytes sent or -errno */
};

static const struct via vias[] = {
    {.cli = {"shm", "chunks through a shared-memory segment, send() from it"},
     .send_file = via_shm},
    {.cli = {"fd-sendfile", "the open file passed over a Unix socket (SCM_RIGHTS), sendfile()"},
     .send_file = via_fd_sendfile},
    {.cli = {"fd-splice", "the open file passed over a Unix socket, splice() through a pipe"},
     .send_file = via_fd_splice},
};
static const struct via *via;

/* One client connection: GET /NAME, answered with the file from the cache, until it closes. */
static void front_conn(int sock)
{
    struct iolab_app *app = iolab_app();
    int unix_fd = -1; /* this connection's own line to the cache (fd modes) */
    char req[4097];
    size_t have = 0;
    while (!demo_stop) {
        char *end;
        while (!(end = memmem(req, have, "\r\n\r\n", 4)) && have < sizeof req - 1) {
            ssize_t n = recv(sock, req + have, sizeof req - 1 - have, 0);
            if (n <= 0)
                goto done;
            have += (size_t)n;
        }
        if (!end)
            goto done; /* a head this long is not a request we serve */
        *end = '\0';
        char name[IPC_FILE_MAX + 8] = "";
        sscanf(req, "GET /%120[^ ?] HTTP/1.", name); /* 120: IPC_FILE_MAX */
        uint64_t t0 = demo_now_ns();
        int64_t sent = via->send_file(sock, name, &unix_fd);
        if (sent < 0) {
            if (app)
                iolab_add(&app->errors, 1);
            break;
        }
        demo_publish_request(app, (uint64_t)sent, demo_now_ns() - t0);
        size_t used = (size_t)(end + 4 - req);
        memmove(req, req + used, have - used);
        have -= used;
    }
done:
    if (unix_fd >= 0)
        close(unix_fd);
    close(sock);
    if (app)
        iolab_add(&app->conns_closed, 1);
}

static int front_accept(int lfd)
{
    int sock = demo_accept(PROG, lfd, 0);
    int one = 1;
    if (sock >= 0) {
        setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        struct iolab_app *app = iolab_app();
        if (app)
            iolab_add(&app->conns_opened, 1);
    }
    return sock;
}

static uint64_t listen_port; /* --listen P: 0 unless given */
static struct demo_host listen_host = {.name = "127.0.0.1"};
static const char *via_name = "shm";

static int front_run(void)
{
    for (unsigned k = 0; k < MAX_THREADS; k++) {
        shared[k] = (struct thread){.k = k, .queue = (mqd_t)-1};
        pthread_mutex_init(&shared_lock[k], NULL);
    }
    int lfd = demo_server_start(PROG, &listen_host, listen_port, "via=%s", via->cli.name);
    demo_thread_per_connection(PROG, lfd, front_accept, front_conn);
    close(lfd);
    return 0;
}

/* ---- options, the run and main ---- */

static const char *file; /* the latest --file */
static uint64_t concurrency = 2;
static double seconds;

/* --file may be given several times: each one joins the list. */
static void add_file(void)
{
    if (nfiles == MAX_FILES)
        demo_usage_error(PROG, "at most %d --file options", MAX_FILES);
    if (!*file || strlen(file) > IPC_FILE_MAX || strchr(file, '/'))
        demo_usage_error(PROG, "--file '%s' must be a plain name of at most %u bytes", file,
                         IPC_FILE_MAX);
    files[nfiles++].name = file;
}

static void check_args(void)
{
    for (size_t i = 0; i < sizeof vias / sizeof *vias; i++)
        if (!strcmp(via_name, vias[i].cli.name))
            via = &vias[i];
    if (!via)
        demo_usage_error(PROG, "--via must be shm, fd-sendfile or fd-splice, not '%s'", via_name);
    if (!dir)
        demo_usage_error(PROG, "--dir DIR is required");
    if (listen_port && nfiles)
        demo_usage_error(PROG, "give --listen or --file, not both: with --listen the client "
                               "names the files");
    if (!listen_port && !nfiles)
        demo_usage_error(PROG, "at least one --file NAME is required (or --listen P)");
    if (!listen_port && strcmp(via_name, "shm"))
        demo_usage_error(PROG, "--via %s needs --listen: sendfile() needs a socket to send to",
                         via_name);
}

static const struct demo_opt opts[] = {
    DEMO_OPT_TEXT("dir", &dir, "DIR", "where the files are (to verify against)"),
    DEMO_OPT_TEXT("file", &file, "NAME",
                  "a file to ask for (up to " DEMO_STR(MAX_FILES) "; at least one)",
                  .after = add_file),
    DEMO_OPT_U64("concurrency", &concurrency, 1, MAX_THREADS, "C",
                 "threads, thread k using segment k (1-" DEMO_STR(MAX_THREADS) ", default 2)"),
    DEMO_OPT_U64("requests", &max_requests, 1, UINT64_MAX / 2, "M", "stop after M files"),
    DEMO_OPT_SECONDS(&seconds),
    DEMO_OPT_U64("listen", &listen_port, 1, 65535, "P",
                 "serve HTTP clients on port P instead, fetching what they ask for"),
    {.name = "host",
     .kind = DEMO_KIND_HOST,
     .to.host = &listen_host,
     .arg = "H",
     .help = "with --listen: the address to listen on (default 127.0.0.1)"},
    DEMO_OPT_TEXT("via", &via_name, "HOW",
                  "with --listen: shm (default), fd-sendfile or fd-splice"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--dir DIR --file NAME [--file NAME]... [--concurrency C]\n"
             "                 [--requests M | --seconds T]\n"
             "       ipc-proxy --dir DIR --listen P [--host H] [--via shm|fd-sendfile|fd-splice]",
    .about = "Asks ipc-cache for the files in turn and reads them out of its shared-memory\n"
             "segments, verifying every byte against DIR/NAME.\n",
    .opts = opts,
    .footer = "Prints one summary line at the end; exits 1 if any file arrived with wrong bytes.\n",
    .check = check_args,
};

/* Maps the files to verify against, runs the threads until a limit or SIGTERM. */
static int run(void)
{
    for (unsigned i = 0; i < nfiles; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
            demo_usage_error(PROG, "--file '%s' is not a non-empty file we can read", path);
        files[i].size = (size_t)st.st_size;
        files[i].bytes = mmap(NULL, files[i].size, PROT_READ, MAP_SHARED, fd, 0);
        close(fd);
        if (files[i].bytes == MAP_FAILED)
            demo_usage_error(PROG, "cannot map '%s'", path);
    }
    demo_signals_init();

    struct thread threads[MAX_THREADS];
    unsigned started = 0;
    uint64_t t0 = demo_now_ns();
    demo_signals_mask(SIG_BLOCK); /* only the main thread takes SIGTERM */
    for (; started < concurrency; started++) {
        struct thread *t = &threads[started];
        *t = (struct thread){.k = started, .queue = (mqd_t)-1};
        if (demo_hist_init(&t->hist) < 0 || pthread_create(&t->id, NULL, run_thread, t) != 0)
            break;
    }
    demo_signals_mask(SIG_UNBLOCK);
    if (started < concurrency)
        demo_stop = 1;
    /* Sleep in small steps: the threads end by themselves after --requests M. */
    while (!demo_stop) {
        double elapsed = (double)(demo_now_ns() - t0) / 1e9;
        if ((seconds > 0 && elapsed >= seconds) ||
            (max_requests && __atomic_load_n(&handed_out, __ATOMIC_RELAXED) >= max_requests))
            break;
        usleep(20000);
    }
    /* Stop the threads: with --requests they stop by themselves once all are handed out. */
    if (!max_requests || demo_stop || seconds > 0)
        demo_stop = 1;
    struct demo_hist all;
    demo_hist_init(&all);
    struct demo_summary sum = {.hist = &all};
    for (unsigned i = 0; i < started; i++) {
        pthread_join(threads[i].id, NULL);
        demo_hist_merge(&all, &threads[i].hist);
        sum.requests += threads[i].requests;
        sum.bytes += threads[i].bytes;
        sum.errors += threads[i].errors;
        demo_hist_free(&threads[i].hist);
    }
    sum.seconds = (double)(demo_now_ns() - t0) / 1e9;
    demo_summary_print(&sum, 1);
    demo_hist_free(&all);
    return corrupt ? 1 : 0;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    return listen_port ? front_run() : run();
}
