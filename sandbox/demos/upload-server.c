/*
 * upload-server: receives uploads (see upload.h) in four shapes, one per --mode, to show the
 * seed's point: a single-threaded event loop that also does the work for its clients can only
 * ever use one core, and every client waits while it works for another.
 *
 *   epoll-whole  the seed's first server: epoll_wait() says which socket is ready, then
 *           the handler reads that client's whole upload with blocking read()s before it
 *           returns to epoll_wait(), so the uploads are served one after the other.
 *   epoll   one thread, non-blocking sockets, a level-triggered epoll_wait() loop. Each ready
 *           connection gets one read() of up to 64 KiB and that chunk's work, then the loop
 *           moves on, so the uploads take turns on one core.
 *   fork    one child process per connection (fork()); the parent only accepts and reaps.
 *   thread  one detached thread per connection (pthread_create()).
 *
 * --work-us N stands in for what a real server does with an upload (decompress, scan, hash):
 * for every 64 KiB received, it spins for N µs of wall-clock time (CLOCK_MONOTONIC) on top of
 * the checksum. It is a busy loop and says so; with it the server is CPU-bound, which is when
 * the shape of the server decides how many clients are served at once.
 *
 * Published figures (the app part of the serving thread's slot): conns_opened, conns_closed,
 * requests (uploads completed and answered), bytes (upload bytes received), errors (uploads cut
 * short), and each upload's time from accept() to the reply as its latency.
 */
#include "demo.h"
#include "iolab_counters.h"
#include "upload.h"

#include <errno.h>
#include <fcntl.h>
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

#define PROG "upload-server"

static uint64_t work_us; /* --work-us: spin this long per 64 KiB received */

/* One upload in progress: the same state for the blocking modes and for epoll. */
struct upload {
    int fd;
    uint8_t header[UPLOAD_HEADER_SIZE];
    size_t header_got;
    uint64_t size;     /* announced in the header */
    uint64_t got;      /* payload bytes received so far */
    uint64_t unworked; /* received bytes whose work is still to be done */
    struct upload_sum sum;
    uint64_t t_accept; /* for the latency: accept() to reply */
};

/* The stand-in for real work: burn work_us of wall-clock time on this core. */
static void upload_work(void)
{
    uint64_t until = demo_now_ns() + work_us * 1000;
    while (demo_now_ns() < until) {
    }
}

/*
 * Takes in n received bytes: first the header, then payload (checksummed, and worked on per
 * full 64 KiB). Returns 1 when the whole upload is in, 0 when more is expected.
 */
static int upload_take(struct upload *u, const uint8_t *p, size_t n, struct iolab_app *app)
{
    if (app)
        iolab_add(&app->bytes, n); /* header bytes too: they crossed the wire */
    while (n > 0 && u->header_got < UPLOAD_HEADER_SIZE) {
        u->header[u->header_got++] = *p++;
        n--;
        if (u->header_got == UPLOAD_HEADER_SIZE) {
            uint64_t be;
            memcpy(&be, u->header, 8);
            u->size = be64toh(be);
        }
    }
    if (u->header_got < UPLOAD_HEADER_SIZE)
        return 0;
    if (n > u->size - u->got)
        n = (size_t)(u->size - u->got); /* the client sent more than it announced: ignore it */
    upload_sum_add(&u->sum, p, n);
    u->got += n;
    u->unworked += n;
    for (; work_us && u->unworked >= UPLOAD_CHUNK; u->unworked -= UPLOAD_CHUNK)
        upload_work();
    if (u->got < u->size)
        return 0;
    if (work_us && u->unworked > 0) /* the last, partial chunk is work too */
        upload_work();
    u->unworked = 0;
    return 1;
}

/* The upload is complete: send the reply (16 bytes, they always fit in an empty socket buffer). */
static void upload_answer(struct upload *u, struct iolab_app *app)
{
    uint8_t reply[UPLOAD_REPLY_SIZE];
    upload_reply_pack(reply, u->got, upload_sum_value(&u->sum));
    if (demo_write_all(u->fd, reply, sizeof reply) == 0 && app) {
        iolab_add(&app->requests, 1);
        iolab_app_latency(app, demo_now_ns() - u->t_accept);
    } else if (app) {
        iolab_add(&app->errors, 1);
    }
}

static void upload_publish_conn(struct iolab_app *app, int opened)
{
    if (app)
        iolab_add(opened ? &app->conns_opened : &app->conns_closed, 1);
}

/*
 * One connection with blocking read()s, start to end. Used by epoll-whole, fork and thread
 * mode, which differ only in who runs it and what waits meanwhile.
 */
static void upload_serve_conn(int fd)
{
    struct iolab_app *app = iolab_app(); /* the slot of the process or thread serving it */
    static __thread uint8_t buf[UPLOAD_CHUNK];
    struct upload u = {.fd = fd, .t_accept = demo_now_ns()};
    int done = 0;
    while (!done && !demo_stop) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR && !demo_stop)
            continue;
        if (n <= 0)
            break; /* 0: the client gave up early; < 0: reset, or SIGTERM */
        done = upload_take(&u, buf, (size_t)n, app);
    }
    if (done)
        upload_answer(&u, app);
    else if (app)
        iolab_add(&app->errors, 1);
    close(fd);
    upload_publish_conn(app, 0);
}

/* ---- fork: a child process per upload ---- */

static void upload_fork(int lfd)
{
    demo_children_watch(); /* SIGCHLD interrupts accept(), so an exited child is reaped at once */
    while (!demo_stop) {
        pid_t pid;
        while ((pid = waitpid(-1, NULL, WNOHANG)) > 0) /* reap the children that exited */
            demo_children_forget(pid);
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC); /* sleeps until a client connects */
        if (fd < 0) {
            demo_accept_failed(PROG, lfd, errno); /* a signal, or a limit (said and counted) */
            continue;
        }
        upload_publish_conn(iolab_app(), 1);
        pid = fork(); /* from here on, two processes run this code, each with a copy of fd */
        if (pid == 0) {
            /* The child: receive this one upload and exit; if the parent dies, follow it. */
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            close(lfd); /* accepting is the parent's job */
            upload_serve_conn(fd);
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

/* ---- thread: a thread per upload ---- */

static void *upload_thread_main(void *arg)
{
    upload_serve_conn((int)(intptr_t)arg);
    return NULL;
}

static void upload_thread(int lfd)
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
        upload_publish_conn(iolab_app(), 1);
        pthread_t t;
        demo_signals_mask(SIG_BLOCK); /* inherited: SIGTERM keeps coming to this thread */
        int err = pthread_create(&t, &attr, upload_thread_main, (void *)(intptr_t)fd);
        demo_signals_mask(SIG_UNBLOCK);
        if (err) { /* the connection is closed unserved: say why, and count it */
            demo_fail(PROG, IOLAB_FAIL_THREAD, err);
            close(fd);
        }
    }
    pthread_attr_destroy(&attr); /* returning ends the process, and the threads mid-upload */
}

/* epoll_create1() with the listener in the set for EPOLLIN, non-blocking so that one wake-up
   accepts the whole backlog up to EAGAIN. The epoll descriptor, or -1 after saying why. */
static int upload_epoll_create(int lfd, epoll_data_t listener)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0) {
        fprintf(stderr, "%s: epoll_create1: %s\n", PROG, strerror(errno));
        return -1;
    }
    fcntl(lfd, F_SETFL, fcntl(lfd, F_GETFL) | O_NONBLOCK);
    struct epoll_event ev = {.events = EPOLLIN, .data = listener};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    return ep;
}

/* epoll_wait() with no timeout: the number of events, 0 after a signal (the caller checks
   demo_stop), -1 after saying why. */
static int upload_epoll_wait(int ep, struct epoll_event *events, int max)
{
    int n = epoll_wait(ep, events, max, -1); /* sleeps until a descriptor is ready */
    if (n >= 0 || errno == EINTR)
        return n < 0 ? 0 : n;
    fprintf(stderr, "%s: epoll_wait: %s\n", PROG, strerror(errno));
    return -1;
}

/* ---- epoll-whole: epoll picks the socket, then one whole upload per event ---- */

/*
 * Client sockets stay blocking (accept4() without SOCK_NONBLOCK). When epoll reports one ready,
 * upload_serve_conn() reads until that upload is complete. Multiplexing only helps while no
 * handler blocks: during those reads nobody calls epoll_wait(), so every other client, accepted
 * or still in the listen backlog, waits with its bytes in the socket buffers until this one is
 * done. Connections still waiting when SIGTERM arrives are closed by the process's exit.
 */
static void upload_epoll_whole(int lfd)
{
    struct iolab_app *app = iolab_app();
    int ep = upload_epoll_create(lfd, (epoll_data_t){.fd = lfd}); /* the listener by number */
    if (ep < 0)
        return;

    struct epoll_event events[64];
    int n;
    while (!demo_stop && (n = upload_epoll_wait(ep, events, 64)) >= 0) {
        for (int i = 0; i < n && !demo_stop; i++) {
            int fd = events[i].data.fd;
            if (fd == lfd) { /* the listener: add every waiting connection to the set */
                while (!demo_stop) {
                    fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC); /* a blocking socket */
                    if (fd < 0 && demo_accept_failed(PROG, lfd, errno))
                        continue;
                    if (fd < 0)
                        break; /* EAGAIN: the backlog is empty */
                    struct epoll_event cev = {.events = EPOLLIN, .data.fd = fd};
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
                    upload_publish_conn(app, 1);
                }
                continue;
            }
            /* The whole upload, blocking: every other client waits here. Closing the socket
             * at the end also takes it out of the epoll set. */
            upload_serve_conn(fd);
        }
    }
    close(ep);
}

/* ---- epoll: one thread, every upload ---- */

struct upload_conn {
    struct demo_conn conn; /* its socket, in the list of open connections */
    struct upload u;
};

static void upload_epoll_close(struct demo_conn **open, struct upload_conn *c,
                               struct iolab_app *app)
{
    close(c->conn.fd); /* closing also takes it out of the epoll set */
    demo_conn_unlink(open, &c->conn);
    free(c);
    upload_publish_conn(app, 0);
}

static void upload_epoll(int lfd)
{
    static uint8_t buf[UPLOAD_CHUNK];
    struct iolab_app *app = iolab_app();
    int ep = upload_epoll_create(lfd, (epoll_data_t){.ptr = NULL}); /* the listener as NULL */
    if (ep < 0)
        return;

    struct epoll_event events[64];
    struct demo_conn *open = NULL; /* epoll cannot list its set: keep our own */
    int n;
    while (!demo_stop && (n = upload_epoll_wait(ep, events, 64)) >= 0) {
        for (int i = 0; i < n && !demo_stop; i++) {
            struct upload_conn *c = events[i].data.ptr;
            if (c == NULL) { /* the listener: take every connection waiting in the backlog */
                while (!demo_stop) {
                    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
                    if (fd < 0 && demo_accept_failed(PROG, lfd, errno))
                        continue;
                    if (fd < 0)
                        break; /* EAGAIN: the backlog is empty */
                    uint64_t t_accept = demo_now_ns();
                    if (!(c = calloc(1, sizeof *c))) {
                        close(fd);
                        continue;
                    }
                    c->conn.fd = fd;
                    c->u = (struct upload){.fd = fd, .t_accept = t_accept};
                    demo_conn_link(&open, &c->conn);
                    struct epoll_event cev = {.events = EPOLLIN, .data.ptr = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &cev);
                    upload_publish_conn(app, 1);
                }
                continue;
            }
            /* One read and its work per event: while this runs, every other client waits. */
            ssize_t got = read(c->u.fd, buf, sizeof buf);
            if (got < 0 && (errno == EAGAIN || errno == EINTR))
                continue;
            if (got > 0 && !upload_take(&c->u, buf, (size_t)got, app))
                continue;
            if (got > 0)
                upload_answer(&c->u, app);
            else if (app)
                iolab_add(&app->errors, 1); /* EOF or reset before the upload was complete */
            upload_epoll_close(&open, c, app);
        }
    }
    while (open)
        upload_epoll_close(&open, (struct upload_conn *)open, NULL);
    close(ep);
}

/* ---- modes and main ---- */

static const struct demo_server_mode upload_modes[] = {
    {.cli = {"epoll-whole", "epoll_wait(), then the ready client's whole upload\n"
                            "with blocking reads (one client at a time)"},
     .serve = upload_epoll_whole},
    {.cli = {"epoll", "one thread, non-blocking sockets: one 64 KiB read() and its work\n"
                      "per ready socket, so uploads take turns"},
     .serve = upload_epoll},
    {.cli = {"fork", "a child process per upload, blocking read()s"}, .serve = upload_fork},
    {.cli = {"thread", "a detached thread per upload, blocking read()s"}, .serve = upload_thread},
};

static uint64_t upload_port;
static struct demo_host upload_host = {.name = "127.0.0.1"};

static const struct demo_opt upload_opts[] = {
    DEMO_OPTS_LISTEN(&upload_port, &upload_host),
    DEMO_OPT_MODE,
    DEMO_OPT_U64("work-us", &work_us, 0, 1000000, "N",
                 "spin N microseconds (busy loop) per 64 KiB received, standing in\n"
                 "for real work such as decompressing (default 0)"),
    {0},
};

static const struct demo_cli upload_cli = {
    .prog = PROG,
    .usage = "--port P [--host 127.0.0.1] --mode epoll-whole|epoll|fork|thread\n"
             "       [--work-us N]",
    .about = "Receives uploads: an 8-byte big-endian size, then that many bytes; answers with the\n"
             "byte count and a checksum (16 bytes) and closes. Prints 'listening on HOST:PORT\n"
             "mode=MODE' once it listens.\n",
    .opts = upload_opts,
    DEMO_MODES(upload_modes),
};

int main(int argc, char **argv)
{
    const struct demo_server_mode *mode = demo_cli_parse(&upload_cli, argc, argv);
    int lfd = demo_server_start(PROG, &upload_host, upload_port, "mode=%s", mode->cli.name);
    mode->serve(lfd);
    close(lfd);
    return 0;
}
