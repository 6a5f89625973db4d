/*
 * file-server: a minimal HTTP/1.1 file server whose one variable is how a file's bytes reach the
 * socket, chosen with --mode:
 *
 *   read-send  read() BUFFER bytes of the file into our memory, send() them, repeat: every byte
 *              is copied into the process and out again, and each chunk costs two calls.
 *   sendfile   sendfile() from the file to the socket: the kernel moves the bytes itself,
 *              and one call usually moves the whole file.
 *
 * Everything else is kept plain on purpose (the lesson is about the copy, not about
 * concurrency): one thread per connection, blocking sockets. GET and HEAD of a regular file under
 * --root; 200 with Content-Length, 404, 400 (malformed, or a path with a ".." segment), 405 (any
 * other method). Connections are kept alive (HTTP/1.1) unless the request says
 * "Connection: close" or is HTTP/1.0 without "Connection: keep-alive"; after a 400 or 405 the
 * server closes, since it cannot know where the next request starts.
 *
 * Published figures (the serving thread's slot): requests (responses sent, errors included),
 * bytes (body bytes sent), conns_opened (by the accepting thread), conns_closed.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROG         "file-server"
#define REQUEST_MAX  8192 /* longest request head accepted */
#define BUFFER_MAX   (64u << 20)
#define BUFFER_DEFLT 65536

static int root_fd; /* --root, opened once; files are opened relative to it */
static uint64_t buffer_size = BUFFER_DEFLT; /* --buffer: read() size in read-send mode */

/* ---- the two ways to send a body: the subject of the lesson ---- */

static int body_read_send(int sock, int file, uint64_t size, char *buf)
{
    uint64_t left = size;
    while (left > 0) {
        ssize_t n = read(file, buf, left < buffer_size ? left : buffer_size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO; /* 0: the file shrank under us */
        int err = demo_send_all(sock, buf, (size_t)n);
        if (err)
            return err;
        left -= (uint64_t)n;
    }
    return 0;
}

static int body_sendfile(int sock, int file, uint64_t size, char *buf)
{
    (void)buf; /* the bytes never come through our memory */
    off_t off = 0;
    while ((uint64_t)off < size) {
        /* Ask for everything left; the kernel says how much it sent and advances off. */
        ssize_t n = sendfile(sock, file, &off, size - (uint64_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n < 0 ? -errno : -EIO;
    }
    return 0;
}

struct file_mode {
    struct demo_mode cli; /* name and help */
    int (*send_body)(int sock, int file, uint64_t size, char *buf);
};

static const struct file_mode file_modes[] = {
    {.cli = {"read-send", "read() into a buffer, then send() it, in a loop"},
     .send_body = body_read_send},
    {.cli = {"sendfile", "sendfile() from the file to the socket"}, .send_body = body_sendfile},
};

static const struct file_mode *mode;

/* ---- HTTP ---- */

struct status {
    int code;
    const char *reason;
};

static const struct status st_ok = {200, "OK"}, st_bad = {400, "Bad Request"},
                           st_missing = {404, "Not Found"}, st_method = {405, "Method Not Allowed"};

/* Sends the status line and headers. 0 or a negative errno. */
static int send_head(int sock, struct status st, uint64_t length, int keep_alive)
{
    char head[512];
    int n =
        snprintf(head, sizeof head,
                 "HTTP/1.1 %d %s\r\n"
                 "Content-Length: %llu\r\n"
                 "Content-Type: %s\r\n"
                 "%s"
                 "Connection: %s\r\n\r\n",
                 st.code, st.reason, (unsigned long long)length,
                 st.code == 200 ? "application/octet-stream" : "text/plain",
                 st.code == 405 ? "Allow: GET, HEAD\r\n" : "", keep_alive ? "keep-alive" : "close");
    return demo_send_all(sock, head, (size_t)n);
}

/* An error response with a one-line text body (none for HEAD). */
static int send_error(int sock, struct status st, int head_only, int keep_alive)
{
    char body[64];
    int n = snprintf(body, sizeof body, "%d %s\n", st.code, st.reason);
    int err = send_head(sock, st, (uint64_t)n, keep_alive);
    return err || head_only ? err : demo_send_all(sock, body, (size_t)n);
}

/* Whether a URL path stays under the root: it starts with '/' and no segment is "..". */
static int path_is_safe(const char *path)
{
    if (path[0] != '/')
        return 0;
    for (const char *seg = path; seg; seg = strchr(seg + 1, '/'))
        if (strncmp(seg, "/..", 3) == 0 && (seg[3] == '/' || seg[3] == '\0'))
            return 0;
    return 1;
}

/* The value of header `name` in a NUL-terminated request head, or NULL. */
static const char *header_value(const char *head, const char *name)
{
    size_t len = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line; line = strstr(line + 2, "\r\n"))
        if (strncasecmp(line + 2, name, len) == 0 && line[2 + len] == ':')
            return line + 3 + len;
    return NULL;
}

/*
 * Answers one request whose head (NUL-terminated, without the blank line) is in `head`.
 * Returns 1 to keep the connection, 0 to close it, or a negative errno when sending failed.
 */
static int serve_request(int sock, const char *head, char *buf, struct iolab_app *app)
{
    char method[16], path[1024];
    int major, minor;
    if (sscanf(head, "%15s %1023s HTTP/%d.%d", method, path, &major, &minor) != 4 || major != 1)
        return send_error(sock, st_bad, 0, 0); /* 0 (close) or the error */

    const char *conn = header_value(head, "Connection");
    int keep_alive = minor >= 1 ? !(conn && strcasestr(conn, "close"))
                                : (conn && strcasestr(conn, "keep-alive"));
    int head_only = strcmp(method, "HEAD") == 0;
    if (!head_only && strcmp(method, "GET") != 0)
        return send_error(sock, st_method, 0, 0);
    path[strcspn(path, "?#")] = '\0'; /* a query string does not name a different file */
    if (!path_is_safe(path))
        return send_error(sock, st_bad, head_only, 0);

    int file = path[1] ? openat(root_fd, path + 1, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (file < 0 || fstat(file, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (file >= 0)
            close(file);
        int err = send_error(sock, st_missing, head_only, keep_alive);
        return err ? err : keep_alive;
    }
    int err = send_head(sock, st_ok, (uint64_t)st.st_size, keep_alive);
    if (!err && !head_only)
        err = mode->send_body(sock, file, (uint64_t)st.st_size, buf);
    close(file);
    if (err)
        return err;
    if (app && !head_only)
        iolab_add(&app->bytes, (uint64_t)st.st_size);
    return keep_alive;
}

/* One connection, in its own thread: read a request head, answer it, repeat. */
static void conn_serve(int sock)
{
    struct iolab_app *app = iolab_app(); /* this thread's own slot */
    char *buf = malloc(buffer_size);     /* read-send's copy buffer */
    char req[REQUEST_MAX + 1];
    size_t have = 0;
    int keep = buf != NULL;
    while (keep > 0) {
        char *end;
        while (!(end = memmem(req, have, "\r\n\r\n", 4))) {
            if (have == REQUEST_MAX) {
                send_error(sock, st_bad, 0, 0); /* a head this long is not one we serve */
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
        keep = serve_request(sock, req, buf, app);
        if (keep >= 0 && app)
            iolab_add(&app->requests, 1);
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

/* The next connection, counted as opened; -1 once we are to stop. */
static int conn_accept(int lfd)
{
    int sock = demo_accept(PROG, lfd, 0); /* accept4(), retried on EINTR */
    if (sock < 0)
        return -1;
    /* Headers and small bodies go out at once instead of waiting for a delayed ACK. */
    int one = 1;
    setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct iolab_app *app = iolab_app();
    if (app)
        iolab_add(&app->conns_opened, 1);
    return sock;
}

/* ---- options and main ---- */

static uint64_t file_port;
static struct demo_host file_host = {.name = "127.0.0.1"};
static const char *file_root; /* --root DIR */

static const struct demo_opt file_opts[] = {
    DEMO_OPTS_LISTEN(&file_port, &file_host),
    DEMO_OPT_TEXT("root", &file_root, "DIR", "directory whose files are served", .required = 1),
    DEMO_OPT_MODE,
    DEMO_OPT_U64("buffer", &buffer_size, 1, BUFFER_MAX, "BYTES",
                 "read() size in read-send mode (default 65536)"),
    {0},
};

static const struct demo_cli file_cli = {
    .prog = PROG,
    .usage = "--port P [--host H] --root DIR --mode read-send|sendfile [--buffer BYTES]",
    .about = "A minimal HTTP/1.1 server for the files under DIR (GET and HEAD, keep-alive).\n"
             "Prints 'listening on HOST:PORT mode=MODE buffer=B' once it listens.\n",
    .opts = file_opts,
    DEMO_MODES(file_modes),
    .footer = "One thread per connection.\n",
};

int main(int argc, char **argv)
{
    mode = demo_cli_parse(&file_cli, argc, argv);
    root_fd = open(file_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0)
        demo_usage_error(PROG, "--root '%s' is not a directory we can open (%s)", file_root,
                         strerror(errno));
    int lfd = demo_server_start(PROG, &file_host, file_port, "mode=%s buffer=%llu", mode->cli.name,
                                (unsigned long long)buffer_size);
    /* pthread_create() per connection: the thread runs conn_serve(), this one accepts. */
    demo_thread_per_connection(PROG, lfd, conn_accept, conn_serve);
    close(lfd);
    return 0;
}
