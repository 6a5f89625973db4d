/*
 * file-server: a minimal HTTP/1.1 file server whose variables are how a file's bytes reach the
 * socket and how the server waits for its connections, chosen with --mode:
 *
 *   read-send  read() BUFFER bytes of the file into our memory, send() them, repeat: every byte
 *              is copied into the process and out again, and each chunk costs two calls.
 *   sendfile   sendfile() from the file to the socket: the kernel moves the bytes itself,
 *              and one call usually moves the whole file.
 *   epoll      one thread and non-blocking sockets, the way nginx serves: epoll_wait() says
 *              which connection can go on; a small file is read and sent with its header in
 *              one send(), a larger one goes out with sendfile(), and a sendfile() the socket
 *              cannot take whole is resumed when epoll reports the socket writable again.
 *              With --copy every file is read (pread, BUFFER bytes at a time, into one
 *              buffer all connections share) and sent from our memory, as nginx does with
 *              sendfile off: the copying path of an event loop.
 *   io_uring   one thread that hands its socket reads and writes to the kernel in a ring of
 *              submissions and collects their completions: see file_uring below.
 *
 * read-send and sendfile serve each connection in a thread of its own with blocking sockets, so
 * that their lesson stays the copy. In every mode the header and the start of the body leave in
 * one call: read-send puts both in one writev(), sendfile sends the header with MSG_MORE so that
 * the kernel waits for the body before it builds a packet. --split-head sends the header on its
 * own instead (two calls and two packets per reply: the lesson of what MSG_MORE saves).
 *
 * Where the epoll mode differs from nginx, it is on purpose, and each difference is a line of the
 * zerocopy lesson ("What the demo does differently from nginx"): it sends all a socket takes per
 * wake-up (one sendfile() for the rest of the file, where nginx stops at sendfile_max_chunk);
 * where it sends by sendfile() the socket takes at most 96 KiB more than it has sent
 * (TCP_NOTSENT_LOWAT, --unsent: see conn_opened), where nginx lets the kernel queue as much as
 * the send buffer holds; it leaves the socket buffers' sizes to the kernel's autotuning, as
 * nginx does; the head goes with MSG_MORE rather than TCP_CORK; a file up to SMALL_FILE is
 * copied into the head's writev(); it asks for EPOLLOUT only while a reply waits for room
 * (level-triggered), where nginx registers both directions once, edge-triggered; and with
 * --copy its one buffer serves every connection, the part of a chunk a full socket did not take
 * being read again from the page cache, where nginx keeps two 32 KiB buffers per request.
 *
 * The HTTP itself (parsing a request head, writing a response head) is in http.h. GET and HEAD
 * of a regular file under --root; 200 with Content-Length, 404, 400 (malformed, or a
 * path with a ".." segment), 405 (any other method). The headers are about nginx's (Server, Date,
 * Content-Type, Content-Length, Last-Modified, ETag, Accept-Ranges), so that a comparison with
 * nginx sends the same bytes. Connections are kept alive (HTTP/1.1) unless the request says
 * "Connection: close" or is HTTP/1.0 without "Connection: keep-alive"; after a 400 or 405 the
 * server closes, since it cannot know where the next request starts.
 *
 * Published figures: requests (responses sent, errors included), bytes (body bytes sent),
 * conns_opened, conns_closed; the io_uring mode adds the ring's own figures (uring_*), which the
 * counting shim cannot see.
 */
#include "demo.h"
#include "demo_uring.h"
#include "http.h" /* the HTTP: parsing a request, writing a response head */
#include "iolab_counters.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define PROG         "file-server"
#define REQUEST_MAX  8192 /* longest request head accepted */
#define BUFFER_MAX   (64u << 20)
#define BUFFER_DEFLT 65536
#define SMALL_FILE   16384 /* epoll: a file up to this size goes out in one send() with its head */
#define UNSENT_DEFLT 98304 /* --unsent: 96 KiB, room for a 64 KiB file and its head in one call */

static int root_fd; /* --root, opened once; files are opened relative to it */
static uint64_t buffer_size = BUFFER_DEFLT; /* --buffer: read() size in read-send mode */
static int split_head;                      /* --split-head: the header in a send() of its own */
static int copy_all; /* --copy: the epoll mode copies every file (pread, writev), never sendfile */
/* --copy: BUFFER bytes that every connection's chunks pass through. A chunk is read, written
   and done with before the loop turns to another connection; the part a full socket did not
   take is read again when it has room. One buffer stays in the CPU's cache, where a buffer per
   connection (16 MiB for 256 of them) would not. */
static char *chunk;
static uint64_t unsent_max = UNSENT_DEFLT; /* --unsent: TCP_NOTSENT_LOWAT where sendfile() sends */
static int unsent_any;                     /* --no-unsent-limit: the kernel's own (no limit) */
static int unsent_limit; /* what conn_opened sets: unsent_max where it applies, else 0 (none) */

/* The end of a response: the file closed, the request and its body bytes published. */
static void reply_done(struct http_reply *r, struct iolab_app *app)
{
    if (r->file >= 0) {
        close(r->file);
        r->file = -1;
        if (app)
            iolab_add(&app->bytes, r->size);
    }
    if (app)
        iolab_add(&app->requests, 1);
}

/* ---- read-send and sendfile: a thread per connection, blocking sockets ---- */

/* send() all of buf with these flags (MSG_MORE: more follows, do not push a packet yet). */
static int send_all_flags(int sock, const char *buf, size_t len, int flags)
{
    while (len > 0) {
        ssize_t n = send(sock, buf, len, MSG_NOSIGNAL | flags);
        if (n < 0 && errno == EINTR && !demo_stop)
            continue;
        if (n < 0)
            return -errno;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* writev() of the head and one chunk of the body, looping over a short write. */
static int writev_all(int sock, struct iovec *iov, int cnt)
{
    while (cnt > 0) {
        ssize_t n = writev(sock, iov, cnt);
        if (n < 0 && errno == EINTR && !demo_stop)
            continue;
        if (n < 0)
            return -errno;
        for (; cnt > 0 && (size_t)n >= iov->iov_len; iov++, cnt--)
            n -= (ssize_t)iov->iov_len;
        if (cnt > 0) {
            iov->iov_base = (char *)iov->iov_base + n;
            iov->iov_len -= (size_t)n;
        }
    }
    return 0;
}

/* read() BUFFER bytes, send them, repeat. The head rides with the first chunk in one writev(). */
static int body_read_send(int sock, struct http_reply *r, char *buf)
{
    uint64_t left = r->size;
    size_t head = r->head_len;
    if (split_head || r->file < 0) {
        int err = send_all_flags(sock, r->head, head, 0);
        if (err || r->file < 0)
            return err;
        head = 0;
    }
    while (left > 0) {
        ssize_t n = read(r->file, buf, left < buffer_size ? left : buffer_size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO; /* 0: the file shrank under us */
        struct iovec iov[2] = {{r->head, head}, {buf, (size_t)n}};
        int err = head ? writev_all(sock, iov, 2) : send_all_flags(sock, buf, (size_t)n, 0);
        if (err)
            return err;
        head = 0;
        left -= (uint64_t)n;
    }
    return 0;
}

/* The head with MSG_MORE (the kernel holds it for the body), then sendfile() until done. */
static int body_sendfile(int sock, struct http_reply *r, char *buf)
{
    (void)buf; /* the bytes never come through our memory */
    int more = r->file >= 0 && !split_head ? MSG_MORE : 0;
    int err = send_all_flags(sock, r->head, r->head_len, more);
    off_t off = 0;
    while (!err && r->file >= 0 && (uint64_t)off < r->size) {
        /* Ask for everything left; the kernel says how much it sent and advances off. */
        ssize_t n = sendfile(sock, r->file, &off, r->size - (uint64_t)off);
        if (n < 0 && errno == EINTR && !demo_stop)
            continue;
        if (n <= 0)
            err = n < 0 ? -errno : -EIO;
    }
    return err;
}

struct file_mode {
    struct demo_mode cli; /* name and help */
    void (*serve)(int lfd);
    int (*send_reply)(int sock, struct http_reply *r, char *buf); /* the thread modes' body loop */
    int uring;                                                    /* needs liburing */
    int by_sendfile; /* sends larger files by sendfile(): --unsent applies */
};

static const struct file_mode *mode;

/* One connection, in its own thread: read a request head, answer it, repeat. */
static void conn_serve(int sock)
{
    struct iolab_app *app = iolab_app(); /* this thread's own slot */
    char *buf = malloc(buffer_size);     /* read-send's copy buffer */
    char req[REQUEST_MAX + 1];
    size_t have = 0;
    int keep = buf != NULL;
    while (keep) {
        char *end;
        while (!(end = memmem(req, have, "\r\n\r\n", 4))) {
            if (have == REQUEST_MAX) {
                struct http_reply r;
                http_reply_error(&r, http_bad, 0, 0); /* a head this long is not one we serve */
                send_all_flags(sock, r.head, r.head_len, 0);
                goto done;
            }
            ssize_t n = read(sock, req + have, REQUEST_MAX - have);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                goto done; /* the client closed (between requests, the normal way to end) */
            have += (size_t)n;
        }
        *end = '\0';
        struct http_reply r;
        http_reply_prepare(root_fd, req, &r);
        int err = mode->send_reply(sock, &r, buf);
        keep = !err && r.keep;
        if (err && r.file >= 0) {
            close(r.file);
            r.file = -1;
        }
        if (!err)
            reply_done(&r, app);
        /* Pipelined requests: whatever followed this head is the start of the next one. */
        size_t used = (size_t)(end + 4 - req);
        memmove(req, req + used, have - used);
        have -= used;
    }
done:
    free(buf);
    close(sock);
    if (app)
        iolab_add(&app->conns_closed, 1);
}

/*
 * A new connection, counted as opened. TCP_NODELAY: the last packet of a reply goes out at once
 * instead of waiting for a delayed ACK. Where the body goes by sendfile(), TCP_NOTSENT_LOWAT
 * (--unsent): the socket takes more of the file, and reports room for it, only while less than
 * that much of what it holds is still unsent. Without it a sendfile() hands the kernel as much of
 * the file as the send buffer holds, and autotuning grows that to 4 MiB per connection; ahead of
 * a reader slower than us (wrk, one thread) the reader's window then shuts and reopens in bursts,
 * TCP's loss probes resend data that was not lost, and at 1 MiB the rate falls by half or more
 * (the zerocopy lesson has this machine's figures). Copying modes send a chunk at a time anyway.
 */
static void conn_opened(int sock, struct iolab_app *app)
{
    int one = 1;
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (unsent_limit)
        setsockopt(sock, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &unsent_limit, sizeof unsent_limit);
    if (app)
        iolab_add(&app->conns_opened, 1);
}

static void *conn_thread(void *arg)
{
    conn_serve((int)(intptr_t)arg);
    return NULL;
}

/* read-send and sendfile: this thread accepts, and a new thread serves each connection. */
static void file_threads(int lfd)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED); /* nobody waits for it */
    pthread_attr_setstacksize(&attr, DEMO_THREAD_STACK);         /* not 8 MiB: see demo.h */
    while (!demo_stop) {
        int sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC); /* sleeps until a client connects */
        if (sock < 0) {
            demo_accept_failed(PROG, lfd, errno); /* a signal, or a limit (said and counted) */
            continue;
        }
        conn_opened(sock, iolab_app());
        pthread_t t;
        demo_signals_mask(SIG_BLOCK); /* inherited: SIGTERM keeps coming to this thread */
        int err = pthread_create(&t, &attr, conn_thread, (void *)(intptr_t)sock);
        demo_signals_mask(SIG_UNBLOCK);
        if (err) { /* the connection is closed unserved: say why, and count it */
            demo_fail(PROG, IOLAB_FAIL_THREAD, err);
            close(sock);
        }
    }
    pthread_attr_destroy(&attr); /* returning ends the process, and the threads mid-connection */
}

/* ---- epoll: one thread, non-blocking sockets, the way nginx serves ---- */

struct ep_conn {
    struct demo_conn conn;  /* its socket, in the list of open connections */
    int want_out;           /* waiting for EPOLLOUT (a reply did not fit) instead of EPOLLIN */
    size_t have;            /* request bytes in req */
    size_t used;            /* of those, the request being answered (head and blank line) */
    size_t out, sent;       /* bytes of the reply's head, and of it sent */
    char *body;             /* the body's bytes in our memory (small[], or chunk with --copy);
                               NULL while the file goes by sendfile() */
    size_t body_len;        /* bytes in body */
    size_t body_sent;       /* of those, sent */
    off_t off;              /* how far into the file: sendfile()'s offset, the next pread()'s
                               for a small file, or with --copy the first byte not yet sent */
    struct http_reply r;    /* the reply under way (r.file >= 0: a file still open) */
    char small[SMALL_FILE]; /* a small file's bytes, sent right after the head */
    char req[REQUEST_MAX + 1];
};

static void ep_watch(int ep, struct ep_conn *c, int want_out)
{
    struct epoll_event ev = {.events = want_out ? EPOLLOUT : EPOLLIN, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_MOD, c->conn.fd, &ev);
    c->want_out = want_out;
}

/*
 * Starts the reply to the request at the front of c->req: a small file is read (pread) right
 * behind its head, so both leave in one writev(); a larger one waits for sendfile(), or with
 * --copy for its first pread() into chunk.
 */
static int ep_start(struct ep_conn *c, char *end)
{
    *end = '\0';
    c->used = (size_t)(end + 4 - c->req);
    http_reply_prepare(root_fd, c->req, &c->r);
    c->out = c->r.head_len;
    c->sent = c->body_len = c->body_sent = 0;
    c->off = 0;
    c->body = NULL;
    if (c->r.file >= 0 && c->r.size <= SMALL_FILE) {
        ssize_t n = pread(c->r.file, c->small, c->r.size, 0);
        if (n != (ssize_t)c->r.size)
            return -1; /* the file changed under us: the client would get a wrong length */
        c->body = c->small;
        c->body_len = (size_t)n;
        c->off = n;
    } else if (c->r.file >= 0 && copy_all) {
        c->body = chunk; /* empty: ep_send reads the first chunk */
    }
    return 0;
}

/* --copy: the file's next unsent bytes into chunk, up to BUFFER of them. 0, or -1 when the file
   shrank under us (the client would get a wrong length). */
static int ep_next_chunk(struct ep_conn *c)
{
    uint64_t left = c->r.size - (uint64_t)c->off;
    ssize_t n;
    do
        n = pread(c->r.file, chunk, left < buffer_size ? left : buffer_size, c->off);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return -1;
    c->body_len = (size_t)n;
    c->body_sent = 0;
    return 0;
}

/*
 * Sends as much of the reply as the socket takes. A copied body (a small file, or every file
 * with --copy): the head and the body's bytes in one writev(), and with --copy the next chunk
 * read as soon as the last one is out. A larger one: the head with MSG_MORE (held back until the
 * body joins it), then sendfile() of the rest, resumed where it stopped. A write the socket
 * takes only in part means it is full: no second try to be told EAGAIN. 1 when the reply is
 * all sent, 0 when the socket is full (wait for EPOLLOUT), -1 on an error.
 */
static int ep_send(struct ep_conn *c)
{
    int chunked = chunk && c->body == chunk; /* --copy, a file larger than small[] */
    for (;;) {
        if (chunked && c->body_sent == c->body_len && (uint64_t)c->off < c->r.size &&
            ep_next_chunk(c) < 0)
            return -1;
        struct iovec iov[2];
        int cnt = 0;
        if (c->sent < c->out)
            iov[cnt++] = (struct iovec){c->r.head + c->sent, c->out - c->sent};
        if (c->body_sent < c->body_len && !(cnt && split_head)) /* --split-head: head alone */
            iov[cnt++] = (struct iovec){c->body + c->body_sent, c->body_len - c->body_sent};
        if (cnt == 0)
            break;
        size_t want = iov[0].iov_len + (cnt > 1 ? iov[1].iov_len : 0);
        ssize_t n;
        if (c->r.file >= 0 && !c->body) /* MSG_MORE: the kernel waits for sendfile's bytes */
            n = send(c->conn.fd, iov[0].iov_base, iov[0].iov_len,
                     MSG_NOSIGNAL | (split_head ? 0 : MSG_MORE));
        else
            n = writev(c->conn.fd, iov, cnt);
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
        size_t took = n < 0 ? 0 : (size_t)n;
        size_t head = c->out - c->sent < took ? c->out - c->sent : took;
        c->sent += head;
        c->body_sent += took - head;
        if (chunked)
            c->off += (off_t)(took - head);
        if (took < want) { /* the socket is full: wait for EPOLLOUT */
            if (chunked)   /* chunk is every connection's: read the rest again then */
                c->body_len = c->body_sent = 0;
            return 0;
        }
    }
    while (c->r.file >= 0 && !c->body && (uint64_t)c->off < c->r.size) {
        ssize_t n = sendfile(c->conn.fd, c->r.file, &c->off, c->r.size - (uint64_t)c->off);
        if (n < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1; /* EAGAIN: resume on EPOLLOUT */
        if (n == 0)
            return -1; /* the file shrank under us */
    }
    return 1;
}

/* The connection is readable (or writable, when want_out): make progress; 0, or -1 to close. */
static int ep_step(int ep, struct ep_conn *c, struct iolab_app *app)
{
    if (!c->want_out) {
        ssize_t n = read(c->conn.fd, c->req + c->have, REQUEST_MAX - c->have);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return 0;
        if (n <= 0)
            return -1; /* 0: the client closed */
        c->have += (size_t)n;
    }
    for (;;) {
        if (!c->want_out) {
            char *end = memmem(c->req, c->have, "\r\n\r\n", 4);
            if (!end) {
                if (c->have < REQUEST_MAX)
                    return 0; /* the rest of the head is still on its way */
                http_reply_error(&c->r, http_bad, 0, 0); /* too long: answer 400 and close */
                c->out = c->r.head_len;
                c->sent = c->body_len = c->body_sent = 0;
                c->body = NULL;
                c->used = c->have;
            } else if (ep_start(c, end) < 0)
                return -1;
        }
        int done = ep_send(c);
        if (done < 0)
            return -1;
        if (done == 0) { /* the socket is full: wait until it can take more */
            if (!c->want_out)
                ep_watch(ep, c, 1);
            return 0;
        }
        reply_done(&c->r, app);
        if (c->want_out)
            ep_watch(ep, c, 0);
        if (!c->r.keep)
            return -1;
        /* Pipelined requests: whatever followed this head is the start of the next one. */
        memmove(c->req, c->req + c->used, c->have - c->used);
        c->have -= c->used;
        if (!memmem(c->req, c->have, "\r\n\r\n", 4))
            return 0;
    }
}

/* The listener is readable: take every connection waiting in the backlog into the set. */
static void ep_accept(int ep, int lfd, struct demo_conn **open, struct iolab_app *app)
{
    while (!demo_stop) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) {
            if (demo_accept_failed(PROG, lfd, errno))
                continue;
            return; /* EAGAIN: the backlog is empty */
        }
        struct ep_conn *c = calloc(1, sizeof *c);
        if (!c) {
            close(fd);
            continue;
        }
        c->conn.fd = fd;
        c->r.file = -1;
        demo_conn_link(open, &c->conn);
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev); /* wake us when a request arrives */
        conn_opened(fd, app);
    }
}

static void ep_close(struct demo_conn **open, struct ep_conn *c, struct iolab_app *app)
{
    if (c->r.file >= 0)
        close(c->r.file);
    close(c->conn.fd); /* closing also takes it out of the epoll set */
    demo_conn_unlink(open, &c->conn);
    free(c);
    if (app)
        iolab_add(&app->conns_closed, 1);
}

static void file_epoll(int lfd)
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
            struct ep_conn *c = events[i].data.ptr;
            if (c == NULL)
                ep_accept(ep, lfd, &open, app);
            else if (ep_step(ep, c, app) < 0)
                ep_close(&open, c, app);
        }
    }
    while (open)
        ep_close(&open, (struct ep_conn *)open, NULL);
    close(ep);
}

/* ---- io_uring: one thread, the socket's waiting done by the kernel ---- */

#ifdef IOLAB_HAVE_LIBURING
/*
 * Every socket operation is a submission on one ring: a multishot accept that keeps delivering
 * connections, a recv per request, and for a small file (up to SMALL_FILE) a read of the file
 * linked to the send of head and body (IOSQE_IO_LINK: the send starts only once the read
 * completed whole). One io_uring_enter() hands over all of them and waits, so many connections
 * cost one call. io_uring has no sendfile(), and its splice() always runs in a kernel worker
 * thread; so a larger file goes as in the epoll mode, by plain calls on the non-blocking
 * socket: its head by send() with MSG_MORE, its body by sendfile() right after. When the
 * socket is first full, one multishot poll submission asks the ring to say each time it has room
 * again, for as long as the connection lives (as epoll's set keeps a socket); epoll instead
 * changes its set twice per reply that fills the socket. The file's openat, fstat and close stay
 * plain calls too: they never wait for the network.
 */
enum ur_op { UR_ACCEPT, UR_RECV, UR_READ, UR_SEND, UR_POLL, UR_REMOVE }; /* user_data's low bits */
#define UR_OP_MASK 7u

struct ur_conn {
    struct ur_conn *prev, *next; /* the open connections, to close them when we stop */
    int fd;
    int read_failed;  /* the linked read came back short: the send after it is cancelled */
    int polling;      /* a multishot poll for room (POLLOUT) is armed on the socket */
    int waiting;      /* sendfile() found the socket full: the next POLLOUT resumes it */
    int closed;       /* closed, and freed once its poll and the cancel of it have completed */
    int removing;     /* a cancel of the poll is under way */
    size_t have;      /* request bytes in req */
    size_t used;      /* of those, the request being answered */
    size_t out, sent; /* bytes in buf to send (head and chunk), and sent so far */
    size_t chunk;     /* of those, the file's bytes the linked read brings */
    off_t off;        /* body bytes read, or sent by sendfile(), so far */
    struct http_reply r;
    char req[REQUEST_MAX + 1];
    char buf[]; /* HTTP_HEAD_MAX + 64 + buffer_size: the head, then one chunk of the body */
};

static struct demo_uring ur;
static struct ur_conn *ur_open;
static struct ur_conn *ur_closed; /* closed while their poll is still armed (linked by next) */

/* A file above SMALL_FILE goes by sendfile() once its head is sent. */
static int ur_by_sendfile(const struct ur_conn *c)
{
    return c->r.file >= 0 && c->r.size > SMALL_FILE;
}

static void ur_submit(struct ur_conn *c, enum ur_op op, struct io_uring_sqe *sqe)
{
    io_uring_sqe_set_data64(sqe, (uint64_t)(uintptr_t)c | op);
}

static void ur_accept(int lfd)
{
    /* One submission, a completion per connection, until the kernel says it stopped (no
       IORING_CQE_F_MORE), when we submit it again. Non-blocking sockets, for sendfile(): the
       ring's own recv and send still wait for their socket. */
    struct io_uring_sqe *sqe = demo_uring_sqe(&ur);
    io_uring_prep_multishot_accept(sqe, lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    ur_submit(NULL, UR_ACCEPT, sqe);
}

static void ur_recv(struct ur_conn *c)
{
    struct io_uring_sqe *sqe = demo_uring_sqe(&ur);
    io_uring_prep_recv(sqe, c->fd, c->req + c->have, REQUEST_MAX - c->have, 0);
    ur_submit(c, UR_RECV, sqe);
}

/* A send of buf[sent, out); MSG_MORE while sendfile()'s bytes are still to follow. */
static void ur_send_rest(struct ur_conn *c)
{
    struct io_uring_sqe *sqe = demo_uring_sqe(&ur);
    io_uring_prep_send(sqe, c->fd, c->buf + c->sent, c->out - c->sent,
                       MSG_NOSIGNAL | MSG_WAITALL | (ur_by_sendfile(c) ? MSG_MORE : 0));
    ur_submit(c, UR_SEND, sqe);
}

/* The next piece of the reply: head and/or a chunk of the file, read then sent, linked. */
static void ur_send_next(struct ur_conn *c, size_t head)
{
    size_t chunk = 0;
    if (c->r.file >= 0 && !ur_by_sendfile(c) && (uint64_t)c->off < c->r.size) {
        uint64_t left = c->r.size - (uint64_t)c->off;
        chunk = left < buffer_size ? left : buffer_size;
        struct io_uring_sqe *sqe = demo_uring_sqe(&ur);
        io_uring_prep_read(sqe, c->r.file, c->buf + head, (unsigned)chunk, (uint64_t)c->off);
        sqe->flags |= IOSQE_IO_LINK; /* the send waits for it, and is cancelled if it is short */
        ur_submit(c, UR_READ, sqe);
    }
    c->out = head + chunk;
    c->chunk = chunk;
    c->sent = 0;
    c->off += (off_t)chunk;
    ur_send_rest(c);
}

static void ur_close(struct ur_conn *c, struct iolab_app *app);
static void ur_sendfile(struct ur_conn *c, struct iolab_app *app);
static void ur_cancel_poll(struct ur_conn *c);

/* Answers the request at the front of req if it is all there, else asks for more of it. */
static void ur_next_request(struct ur_conn *c, struct iolab_app *app)
{
    char *end = memmem(c->req, c->have, "\r\n\r\n", 4);
    if (!end && c->have < REQUEST_MAX)
        return ur_recv(c);
    if (end) {
        *end = '\0';
        c->used = (size_t)(end + 4 - c->req);
        http_reply_prepare(root_fd, c->req, &c->r); /* openat + fstat: plain calls */
    } else {                                        /* a head this long is not one we serve */
        http_reply_error(&c->r, http_bad, 0, 0);
        c->used = c->have;
    }
    memcpy(c->buf, c->r.head, c->r.head_len);
    c->off = 0;
    c->read_failed = 0;
    if (ur_by_sendfile(c)) {
        /* The head by a plain send() (MSG_MORE: held back for the body), and the body by
           sendfile() right after it, with no trip through the ring between them. A head the
           socket cannot take whole (it is nearly empty between replies) goes on by the ring. */
        ssize_t n = send(c->fd, c->r.head, c->r.head_len, MSG_NOSIGNAL | MSG_MORE);
        if (n == (ssize_t)c->r.head_len)
            return ur_sendfile(c, app);
        if (n < 0 && errno != EAGAIN && errno != EINTR)
            return ur_close(c, app);
        c->out = c->r.head_len;
        c->sent = n > 0 ? (size_t)n : 0;
        return ur_send_rest(c);
    }
    ur_send_next(c, c->r.head_len);
}

static void ur_close(struct ur_conn *c, struct iolab_app *app)
{
    if (c->r.file >= 0)
        close(c->r.file);
    close(c->fd);
    if (c->prev)
        c->prev->next = c->next;
    else
        ur_open = c->next;
    if (c->next)
        c->next->prev = c->prev;
    if (app)
        iolab_add(&app->conns_closed, 1);
    if (!c->polling)
        return free(c);
    /* The armed poll holds the socket open, and may still complete: cancel it, and free c once
       both the poll and the cancel have completed (in either order). */
    c->closed = 1;
    ur_cancel_poll(c);
    c->prev = NULL;
    c->next = ur_closed;
    ur_closed = c;
}

/* Asks the ring to end a closed connection's poll. */
static void ur_cancel_poll(struct ur_conn *c)
{
    struct io_uring_sqe *sqe = demo_uring_sqe(&ur);
    io_uring_prep_poll_remove(sqe, (uint64_t)(uintptr_t)c | UR_POLL);
    ur_submit(c, UR_REMOVE, sqe);
    c->removing = 1;
}

/* A closed connection whose poll has ended: out of ur_closed, and freed. */
static void ur_closed_free(struct ur_conn *c)
{
    struct ur_conn **p = &ur_closed;
    while (*p != c)
        p = &(*p)->next;
    *p = c->next;
    free(c);
}

/* The reply is all sent: count it, and go on to the next request (or close). */
static void ur_reply_sent(struct ur_conn *c, struct iolab_app *app)
{
    reply_done(&c->r, app);
    if (!c->r.keep)
        return ur_close(c, app);
    memmove(c->req, c->req + c->used, c->have - c->used);
    c->have -= c->used;
    ur_next_request(c, app);
}

/* sendfile() as much of the body as the socket takes; when it is full, the connection's poll
   on the ring says when it has room again. */
static void ur_sendfile(struct ur_conn *c, struct iolab_app *app)
{
    while ((uint64_t)c->off < c->r.size) {
        ssize_t n = sendfile(c->fd, c->r.file, &c->off, c->r.size - (uint64_t)c->off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN) {
            c->waiting = 1;
            if (!c->polling) { /* armed once: a completion each time the socket has room */
                struct io_uring_sqe *sqe = demo_uring_sqe(&ur);
                io_uring_prep_poll_multishot(sqe, c->fd, POLLOUT);
                ur_submit(c, UR_POLL, sqe);
                c->polling = 1;
            }
            return;
        }
        if (n <= 0)
            return ur_close(c, app); /* a reset, or the file shrank under us */
    }
    ur_reply_sent(c, app);
}

/* One completion: what it finished, and what to submit next. */
static void ur_complete(int lfd, struct io_uring_cqe *cqe, struct iolab_app *app)
{
    uint64_t data = io_uring_cqe_get_data64(cqe);
    struct ur_conn *c = (struct ur_conn *)(uintptr_t)(data & ~(uint64_t)UR_OP_MASK);
    int res = cqe->res;
    switch ((enum ur_op)(data & UR_OP_MASK)) {
    case UR_ACCEPT:
        if (res >= 0) {
            c = calloc(1, sizeof *c + HTTP_HEAD_MAX + 64 + buffer_size);
            if (!c) {
                close(res);
                break;
            }
            c->fd = res;
            c->r.file = -1;
            c->next = ur_open;
            if (ur_open)
                ur_open->prev = c;
            ur_open = c;
            conn_opened(res, app);
            ur_recv(c);
        }
        if (!(cqe->flags & IORING_CQE_F_MORE))
            ur_accept(lfd);
        break;
    case UR_RECV:
        if (res <= 0)
            return ur_close(c, app); /* 0: the client closed */
        c->have += (size_t)res;
        ur_next_request(c, app);
        break;
    case UR_READ:
        c->read_failed = res < 0 || (size_t)res != c->chunk;
        break;
    case UR_SEND:
        if (res < 0 || c->read_failed)
            return ur_close(c, app); /* a reset, or the file changed under us */
        c->sent += (size_t)res;
        if (c->sent < c->out) /* short even with MSG_WAITALL: send the rest */
            ur_send_rest(c);
        else if (ur_by_sendfile(c))
            ur_sendfile(c, app);
        else if (c->r.file >= 0 && (uint64_t)c->off < c->r.size)
            ur_send_next(c, 0);
        else
            ur_reply_sent(c, app);
        break;
    case UR_POLL:
        if (!(cqe->flags & IORING_CQE_F_MORE)) /* it ended (cancelled, or by the kernel) */
            c->polling = 0;                    /* and is armed again when needed */
        if (c->closed) {
            if (!c->polling && !c->removing)
                ur_closed_free(c);
        } else if (c->waiting) { /* room, or POLLERR/POLLHUP: sendfile() says which */
            c->waiting = 0;
            ur_sendfile(c, app);
        } /* else room while no reply waits for it: nothing to do */
        break;
    case UR_REMOVE:
        c->removing = 0;
        if (res == -EALREADY && c->polling)
            ur_cancel_poll(c); /* the poll was busy completing: ask again */
        else if (!c->polling)
            ur_closed_free(c);
        break;
    }
}

static void file_uring(int lfd)
{
    struct iolab_app *app = iolab_app();
    if (demo_uring_init(PROG, &ur, 256) < 0)
        exit(1);
    ur_accept(lfd);
    while (!demo_stop) {
        if (demo_uring_enter(&ur) < 0)
            continue; /* a signal: the loop checks demo_stop */
        struct io_uring_cqe *cqe;
        unsigned head, n = 0;
        io_uring_for_each_cqe(&ur.ring, head, cqe)
        {
            ur_complete(lfd, cqe, app);
            n++;
        }
        demo_uring_reaped(&ur, n);
    }
    while (ur_open) {
        ur_open->polling = 0; /* the ring goes with us: no completion will come */
        ur_close(ur_open, NULL);
    }
    while (ur_closed)
        ur_closed_free(ur_closed);
    demo_uring_exit(&ur);
}
#else
static void file_uring(int lfd)
{
    (void)lfd; /* never reached: demo_uring_check() ends the program first */
}
#endif

/* ---- modes, options and main ---- */

static const struct file_mode file_modes[] = {
    {.cli = {"read-send", "a thread per connection; read() into a buffer, send() it, in a loop"},
     .serve = file_threads,
     .send_reply = body_read_send},
    {.cli = {"sendfile", "a thread per connection; sendfile() from the file to the socket"},
     .serve = file_threads,
     .send_reply = body_sendfile,
     .by_sendfile = 1},
    {.cli = {"epoll", "one thread, epoll_wait(), non-blocking sockets; small files in one\n"
                      "writev() with their head, larger ones by sendfile()"},
     .serve = file_epoll,
     .by_sendfile = 1},
    {.cli = {"io_uring", "one thread; socket reads and writes through an io_uring ring"},
     .serve = file_uring,
     .uring = 1,
     .by_sendfile = 1},
};

static uint64_t file_port;
static struct demo_host file_host = {.name = "127.0.0.1"};
static const char *file_root; /* --root DIR */

static const struct demo_opt file_opts[] = {
    DEMO_OPTS_LISTEN(&file_port, &file_host),
    DEMO_OPT_TEXT("root", &file_root, "DIR", "directory whose files are served", .required = 1),
    DEMO_OPT_MODE,
    DEMO_OPT_U64("buffer", &buffer_size, 1, BUFFER_MAX, "BYTES",
                 "read() size in read-send, io_uring and epoll --copy (default 65536)"),
    DEMO_OPT_FLAG("split-head", &split_head,
                  "send the response head in a call of its own, before the body"),
    DEMO_OPT_FLAG("copy", &copy_all,
                  "epoll mode: copy every file through our memory (pread, writev), as nginx\n"
                  "with sendfile off does, instead of sendfile() above 16 KiB"),
    DEMO_OPT_SIZE("unsent", &unsent_max, 64u << 20, "BYTES",
                  "where the body goes by sendfile() (sendfile, epoll, io_uring): the most of\n"
                  "it the kernel holds unsent, TCP_NOTSENT_LOWAT (default 96K)"),
    DEMO_OPT_FLAG("no-unsent-limit", &unsent_any,
                  "no such limit: the kernel takes as much of the file as the send buffer\n"
                  "holds (its default, and nginx's)",
                  .not_with = "unsent"),
    {0},
};

static const struct demo_cli file_cli = {
    .prog = PROG,
    .usage = "--port P [--host H] --root DIR --mode read-send|sendfile|epoll|io_uring\n"
             "       [--buffer BYTES] [--split-head] [--copy] [--unsent BYTES | --no-unsent-limit]",
    .about = "A minimal HTTP/1.1 server for the files under DIR (GET and HEAD, keep-alive).\n"
             "Prints 'listening on HOST:PORT mode=MODE buffer=B' once it listens.\n",
    .opts = file_opts,
    DEMO_MODES(file_modes),
};

int main(int argc, char **argv)
{
    mode = demo_cli_parse(&file_cli, argc, argv);
    root_fd = open(file_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0)
        demo_usage_error(PROG, "--root '%s' is not a directory we can open (%s)", file_root,
                         strerror(errno));
    if (copy_all && mode->serve != file_epoll)
        demo_usage_error(PROG, "--copy applies to the epoll mode only (--mode %s)", mode->cli.name);
    if (copy_all && !(chunk = malloc(buffer_size))) { /* before we say we are listening */
        fprintf(stderr, "%s: out of memory for the %llu-byte --copy buffer\n", PROG,
                (unsigned long long)buffer_size);
        return 1;
    }
    demo_uring_check(PROG, mode->uring);              /* io_uring built in, and allowed? */
    int by_sendfile = mode->by_sendfile && !copy_all; /* --unsent applies */
    unsent_limit = by_sendfile && !unsent_any ? (int)unsent_max : 0;
    char unsent[32] = ""; /* the limit on unsent bytes, where it applies */
    if (unsent_limit)
        snprintf(unsent, sizeof unsent, " unsent=%d", unsent_limit);
    else if (by_sendfile)
        strcpy(unsent, " unsent=any");
    int lfd = demo_server_start(PROG, &file_host, file_port, "mode=%s buffer=%llu%s%s%s",
                                mode->cli.name, (unsigned long long)buffer_size,
                                split_head ? " split-head" : "", copy_all ? " copy" : "", unsent);
    mode->serve(lfd);
    close(lfd);
    free(chunk);
    return 0;
}
