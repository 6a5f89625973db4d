/*
 * http: what file-server answers to an HTTP/1.1 request, kept out of file-server.c so that what a
 * learner reads there is how the bytes travel (read() and send(), sendfile(), epoll_wait()).
 *
 * http_reply_prepare() reads one request head and decides the response: it opens the file
 * (openat, fstat) and writes the response head, whose headers are about nginx's (Server, Date,
 * Content-Type, Content-Length, Last-Modified, ETag, Accept-Ranges) so that a comparison with
 * nginx moves the same bytes. GET and HEAD of a regular file; 200, 404, 400 (malformed, or a path
 * with a ".." segment), 405 (any other method). Every function is static inline: file-server.c is
 * the only user, and the compiler sees it all as before.
 */
#ifndef IOLAB_HTTP_H
#define IOLAB_HTTP_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HTTP_HEAD_MAX 512 /* room for a response head */

/* One response: its head (and, for an error, its short text body) and the file to send. */
struct http_reply {
    char head[HTTP_HEAD_MAX + 64]; /* status line, headers, blank line; an error's body follows */
    size_t head_len;               /* bytes of head to send, an error's body included */
    int file;                      /* the file whose bytes follow the head, or -1 */
    uint64_t size;                 /* its size: the body's length when file >= 0 */
    int keep;                      /* keep the connection open afterwards */
};

struct http_status {
    int code;
    const char *reason;
};

static const struct http_status http_ok = {200, "OK"}, http_bad = {400, "Bad Request"},
                                http_missing = {404, "Not Found"},
                                http_method = {405, "Method Not Allowed"};

/* "Wed, 25 Nov 2026 03:01:02 GMT" for t. */
static inline void http_date(time_t t, char *out, size_t len)
{
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, len, "%a, %d %b %Y %H:%M:%S GMT", &tm);
}

/* The Date header's value, made again once a second: time() reads the vDSO, no system call. */
static inline const char *http_now(void)
{
    static __thread char now[40];
    static __thread time_t made;
    time_t t = time(NULL);
    if (t != made) {
        http_date(t, now, sizeof now);
        made = t;
    }
    return now;
}

/* Writes the status line and headers into r->head. st (a file's stat) is NULL for an error. */
static inline void http_reply_head(struct http_reply *r, struct http_status s, uint64_t length,
                                   const struct stat *st)
{
    char modified[40] = "";
    if (st)
        http_date(st->st_mtime, modified, sizeof modified);
    int n =
        snprintf(r->head, sizeof r->head,
                 "HTTP/1.1 %d %s\r\nServer: iolab-file-server\r\nDate: %s\r\nContent-Type: %s\r\n"
                 "Content-Length: %llu\r\n",
                 s.code, s.reason, http_now(), st ? "application/octet-stream" : "text/plain",
                 (unsigned long long)length);
    if (st) /* what nginx sends for a static file, so that a comparison moves the same bytes */
        n += snprintf(r->head + n, sizeof r->head - (size_t)n,
                      "Last-Modified: %s\r\nETag: \"%llx-%llx\"\r\nAccept-Ranges: bytes\r\n",
                      modified, (unsigned long long)st->st_mtime, (unsigned long long)length);
    if (s.code == 405)
        n += snprintf(r->head + n, sizeof r->head - (size_t)n, "Allow: GET, HEAD\r\n");
    n += snprintf(r->head + n, sizeof r->head - (size_t)n, "Connection: %s\r\n\r\n",
                  r->keep ? "keep-alive" : "close");
    r->head_len = (size_t)n;
}

/* An error response: head and a one-line text body (none for HEAD), no file. */
static inline void http_reply_error(struct http_reply *r, struct http_status s, int head_only,
                                    int keep)
{
    char body[64];
    int n = snprintf(body, sizeof body, "%d %s\n", s.code, s.reason);
    r->keep = keep;
    r->file = -1;
    http_reply_head(r, s, (uint64_t)n, NULL);
    if (!head_only) {
        memcpy(r->head + r->head_len, body, (size_t)n);
        r->head_len += (size_t)n;
    }
}

/* Whether a URL path stays under the root: it starts with '/' and no segment is "..". */
static inline int http_path_is_safe(const char *path)
{
    if (path[0] != '/')
        return 0;
    for (const char *seg = path; seg; seg = strchr(seg + 1, '/'))
        if (strncmp(seg, "/..", 3) == 0 && (seg[3] == '/' || seg[3] == '\0'))
            return 0;
    return 1;
}

/* The value of header `name` in a NUL-terminated request head, or NULL. */
static inline const char *http_header_value(const char *head, const char *name)
{
    size_t len = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line; line = strstr(line + 2, "\r\n"))
        if (strncasecmp(line + 2, name, len) == 0 && line[2 + len] == ':')
            return line + 3 + len;
    return NULL;
}

/*
 * Decides the answer to one request whose head (NUL-terminated, without the blank line) is in
 * `req`: opens the file (openat + fstat), writes the response head. Every mode sends what this
 * decides, each in its own way. Files are opened relative to root_fd (--root).
 */
static inline void http_reply_prepare(int root_fd, const char *req, struct http_reply *r)
{
    char method[16], path[1024];
    int major, minor;
    if (sscanf(req, "%15s %1023s HTTP/%d.%d", method, path, &major, &minor) != 4 || major != 1)
        return http_reply_error(r, http_bad, 0, 0);

    const char *conn = http_header_value(req, "Connection");
    int keep = minor >= 1 ? !(conn && strcasestr(conn, "close"))
                          : (conn && strcasestr(conn, "keep-alive"));
    int head_only = strcmp(method, "HEAD") == 0;
    if (!head_only && strcmp(method, "GET") != 0)
        return http_reply_error(r, http_method, 0, 0);
    path[strcspn(path, "?#")] = '\0'; /* a query string does not name a different file */
    if (!http_path_is_safe(path))
        return http_reply_error(r, http_bad, head_only, 0);

    int file = path[1] ? openat(root_fd, path + 1, O_RDONLY | O_CLOEXEC) : -1;
    struct stat st;
    if (file < 0 || fstat(file, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (file >= 0)
            close(file);
        return http_reply_error(r, http_missing, head_only, keep);
    }
    r->keep = keep;
    r->size = (uint64_t)st.st_size;
    http_reply_head(r, http_ok, r->size, &st);
    r->file = file;
    if (head_only || r->size == 0) {
        close(file); /* nothing of it to send */
        r->file = -1;
    }
}

#endif
