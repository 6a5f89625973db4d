/*
 * ipc-cache: the cache process of the "proxy and cache" pair (lessons/ipc.json). It owns
 * --segments N shared-memory segments of --segment-size S bytes and a POSIX message queue, the
 * command channel. Each command says "send FILE through segment K"; a worker thread copies the
 * file from --dir into the segment, one chunk of at most S bytes at a time, handing each chunk
 * to the proxy with the segment's pair of semaphores (see ipc-segment.h).
 *
 * The copy: pread() moves the file's bytes from the page cache straight into the shared
 * segment (one copy, in the kernel: copy_user), and the proxy copies them out again (a second
 * copy, in user space). A segment of S bytes costs ceil(F/S) chunks for a file of F bytes, and
 * each chunk costs one pread, two semaphore calls here and two in the proxy.
 *
 * One worker thread per segment, all blocked in mq_receive() on the same queue: the kernel
 * hands each command to exactly one of them. On SIGTERM the main thread sends one quit
 * command per worker, joins them, and unlinks the queue and every segment.
 *
 * The fix the seed proposed: no copy at all. The cache also listens on a Unix socket
 * (DIR/ipc-cache.sock); for each file a proxy names there, it opens the file and hands the
 * proxy the open descriptor itself (sendmsg with SCM_RIGHTS), then closes its own copy. The
 * bytes never enter either process: the proxy sends them from the page cache with sendfile().
 * One thread per proxy connection.
 *
 * Published figures (per worker): requests answered, bytes sent (none for a passed descriptor:
 * the cache moves no byte), errors.
 */
#include "demo.h"
#include "iolab_counters.h"
#include "ipc-segment.h"

#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define PROG         "ipc-cache"
#define MAX_SEGMENTS 64
#define ROOM_WAIT_S  2 /* a proxy that does not empty a segment for this long is gone */

static int dir_fd = -1;
static mqd_t queue = (mqd_t)-1;
static uint64_t nsegments = 4;            /* --segments */
static uint64_t segment_size = 64 * 1024; /* --segment-size */
static struct ipc_segment *segments[MAX_SEGMENTS];
static char queue_name[256];

/* sem_wait() that gives up after ROOM_WAIT_S seconds, so a vanished proxy cannot hang us. */
static int wait_room(struct ipc_segment *s)
{
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += ROOM_WAIT_S;
    while (sem_timedwait(&s->room, &dl) < 0)
        if (errno != EINTR || demo_stop)
            return -errno;
    return 0;
}

/* Copies one file through segment s chunk by chunk. 0, or a negative errno. */
static int serve(struct ipc_segment *s, const char *file, uint64_t *sent)
{
    int fd = openat(dir_fd, file, O_RDONLY | O_CLOEXEC);
    int err = fd < 0 ? -errno : 0;
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) < 0)
        err = -errno;
    uint64_t off = 0, total = err ? 0 : (uint64_t)st.st_size;
    do {
        if (wait_room(s) < 0) {
            /* The proxy went away mid-file: give the segment back in its starting state. */
            sem_init(&s->room, 1, 1);
            sem_init(&s->ready, 1, 0);
            err = -ETIMEDOUT;
            break;
        }
        uint64_t want = total - off < s->size ? total - off : s->size;
        ssize_t n = err ? err : pread(fd, ipc_segment_data(s), want, (off_t)off);
        if (n < 0 && !err)
            err = -errno;
        if (n == 0 && want > 0) /* the file shrank under us */
            err = -EIO;
        s->len = err ? err : n;
        s->total = total;
        off += n > 0 ? (uint64_t)n : 0;
        s->last = err || off >= total;
        sem_post(&s->ready);
    } while (!err && off < total);
    if (fd >= 0)
        close(fd);
    *sent = off;
    return err;
}

static void *worker(void *arg)
{
    (void)arg;
    struct iolab_app *app = iolab_app();
    for (;;) {
        struct ipc_request req;
        ssize_t n = mq_receive(queue, (char *)&req, sizeof req, NULL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof req || req.segment == IPC_QUIT)
            break;
        req.file[IPC_FILE_MAX] = '\0';
        if (req.segment >= nsegments)
            continue; /* not ours: a proxy that still knows an older, larger cache */
        uint64_t sent = 0;
        int err = serve(segments[req.segment], req.file, &sent);
        if (app && err != -ETIMEDOUT) { /* a proxy that went away mid-file counts its own */
            iolab_add(err ? &app->errors : &app->requests, 1);
            iolab_add(&app->bytes, sent);
        }
    }
    return NULL;
}

/* ---- the descriptor instead of the bytes ---- */

static int fd_listener = -1; /* the Unix socket proxies connect to */
static char fd_path[sizeof((struct sockaddr_un){0}.sun_path)];

/* Sends the reply, with the open file as SCM_RIGHTS when there is one. */
static int fd_reply(int conn, int64_t size, int file)
{
    struct ipc_fd_reply reply = {.size = size};
    struct iovec iov = {&reply, sizeof reply};
    union { /* aligned room for one descriptor's control message */
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl = {0};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (file >= 0) {
        msg.msg_control = ctl.buf;
        msg.msg_controllen = sizeof ctl.buf;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS; /* the kernel installs a copy of it in the receiver */
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &file, sizeof file);
    }
    return sendmsg(conn, &msg, MSG_NOSIGNAL) == (ssize_t)sizeof reply ? 0 : -errno;
}

/* One proxy connection: a file name in, its open descriptor out, until the proxy hangs up. */
static void *fd_conn(void *arg)
{
    int conn = (int)(intptr_t)arg;
    struct iolab_app *app = iolab_app();
    struct ipc_request req;
    while (!demo_stop) {
        ssize_t n = recv(conn, &req, sizeof req, MSG_WAITALL);
        if (n != (ssize_t)sizeof req)
            break; /* 0: the proxy closed; a short read: not our protocol */
        req.file[IPC_FILE_MAX] = '\0';
        int file = strchr(req.file, '/') ? -1 : openat(dir_fd, req.file, O_RDONLY | O_CLOEXEC);
        struct stat st;
        int64_t size = file < 0 ? -ENOENT : fstat(file, &st) < 0 ? -errno : st.st_size;
        int err = fd_reply(conn, size, size >= 0 ? file : -1);
        if (file >= 0)
            close(file); /* the proxy has its own copy now */
        if (app)
            iolab_add(size < 0 ? &app->errors : &app->requests, 1);
        if (err)
            break;
    }
    close(conn);
    return NULL;
}

/* Accepts proxies on the Unix socket, a detached thread each, until SIGTERM closes it. */
static void *fd_acceptor(void *arg)
{
    (void)arg;
    for (;;) {
        int conn = accept4(fd_listener, NULL, NULL, SOCK_CLOEXEC);
        if (conn < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            break; /* shut down by the main thread */
        }
        pthread_t t;
        if (pthread_create(&t, NULL, fd_conn, (void *)(intptr_t)conn) != 0)
            close(conn);
        else
            pthread_detach(t);
    }
    return NULL;
}

/* The Unix socket in DIR; 0 or a negative errno. */
static int fd_listen(const char *dir)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if ((size_t)snprintf(sa.sun_path, sizeof sa.sun_path, "%s/" IPC_FD_SOCKET, dir) >=
        sizeof sa.sun_path)
        return -ENAMETOOLONG;
    memcpy(fd_path, sa.sun_path, sizeof fd_path);
    unlink(fd_path); /* a leftover of a killed cache */
    fd_listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd_listener < 0 || bind(fd_listener, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        listen(fd_listener, 64) < 0)
        return -errno;
    return 0;
}

/* Creates segment k: header page + data, semaphores in their starting state. */
static int make_segment(unsigned k)
{
    char name[256];
    ipc_name(name, sizeof name, "seg", (int)k);
    shm_unlink(name); /* a leftover of a killed cache of this session */
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -errno;
    size_t len = IPC_HEADER_SIZE + segment_size;
    void *m = MAP_FAILED;
    if (ftruncate(fd, (off_t)len) == 0)
        m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = m == MAP_FAILED ? -errno : 0;
    close(fd);
    if (err)
        return err;
    struct ipc_segment *s = m;
    sem_init(&s->room, 1, 1);
    sem_init(&s->ready, 1, 0);
    s->size = segment_size;
    s->nsegments = nsegments;
    segments[k] = s;
    return 0;
}

static void cleanup(void)
{
    char name[256];
    for (unsigned k = 0; k < nsegments; k++) {
        ipc_name(name, sizeof name, "seg", (int)k);
        shm_unlink(name);
        if (segments[k])
            munmap(segments[k], IPC_HEADER_SIZE + segment_size);
    }
    if (queue != (mqd_t)-1) {
        mq_close(queue);
        mq_unlink(queue_name);
    }
    if (fd_path[0])
        unlink(fd_path);
}

/* ---- options and main ---- */

static const char *dir; /* --dir */

static const struct demo_opt opts[] = {
    DEMO_OPT_TEXT("dir", &dir, "DIR", "the files to serve"),
    DEMO_OPT_U64(
        "segments", &nsegments, 1, MAX_SEGMENTS, "N",
        "shared-memory segments, one worker thread each (1-" DEMO_STR(MAX_SEGMENTS) ", default 4)"),
    DEMO_OPT_SIZE("segment-size", &segment_size, 64u << 20, "S",
                  "bytes per segment, K/M suffixes (4K-64M, default 64K)"),
    {0},
};

/* A segment must hold at least a page of file data. */
static void check_args(void)
{
    if (!dir)
        demo_usage_error(PROG, "--dir DIR is required");
    if (segment_size < 4096)
        demo_usage_error(PROG, "--segment-size must be at least 4K");
}

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--dir DIR [--segments N] [--segment-size S]",
    .about = "Serves the files of DIR to ipc-proxy through N shared-memory segments of S bytes,\n"
             "taking commands from a POSIX message queue (names start with $IOLAB_SESSION),\n"
             "and hands out open descriptors of them on the Unix socket DIR/" IPC_FD_SOCKET ".\n",
    .opts = opts,
    .footer = "Prints 'listening on mq NAME segments=N size=S fd-socket=PATH' when ready; SIGTERM\n"
              "removes it all.\n",
    .check = check_args,
};

/* Creates the queue and the segments, serves until SIGTERM, removes them all. */
static int run(void)
{
    dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir_fd < 0)
        demo_usage_error(PROG, "--dir '%s' is not a directory we can open", dir);
    demo_signals_init();

    int err = 0;
    for (unsigned k = 0; k < nsegments && !err; k++)
        err = make_segment(k);
    ipc_name(queue_name, sizeof queue_name, "queue", -1);
    mq_unlink(queue_name);
    struct mq_attr attr = {.mq_maxmsg = 10, .mq_msgsize = sizeof(struct ipc_request)};
    if (!err && (queue = mq_open(queue_name, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600,
                                 &attr)) == (mqd_t)-1)
        err = -errno;
    if (!err)
        err = fd_listen(dir);
    /* The writer end, for the quit commands: opened now, while we surely may. */
    mqd_t self = err ? (mqd_t)-1 : mq_open(queue_name, O_WRONLY | O_CLOEXEC);
    if (err || self == (mqd_t)-1) {
        fprintf(stderr, PROG ": cannot set up the queue and segments: %s\n",
                strerror(err ? -err : errno));
        cleanup();
        return 1;
    }
    pthread_t threads[MAX_SEGMENTS];
    unsigned started = 0;
    demo_signals_mask(SIG_BLOCK); /* only the main thread takes SIGTERM */
    for (; started < nsegments; started++)
        if (pthread_create(&threads[started], NULL, worker, NULL) != 0)
            break;
    pthread_t acceptor;
    int accepting = pthread_create(&acceptor, NULL, fd_acceptor, NULL) == 0;
    demo_signals_mask(SIG_UNBLOCK);
    demo_ready("listening on mq %s segments=%u size=%llu fd-socket=%s", queue_name,
               (unsigned)nsegments, (unsigned long long)segment_size, fd_path);
    while (!demo_stop && started == nsegments)
        pause();
    struct ipc_request quit = {.segment = IPC_QUIT};
    for (unsigned i = 0; i < started; i++)
        mq_send(self, (const char *)&quit, sizeof quit, 1); /* priority 1: before any request */
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    shutdown(fd_listener, SHUT_RDWR); /* wakes the acceptor's accept() */
    if (accepting)
        pthread_join(acceptor, NULL);
    close(fd_listener);
    mq_close(self);
    cleanup();
    printf("stopped\n");
    return started == nsegments ? 0 : 1;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    return run();
}
