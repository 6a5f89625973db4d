/* expect: fail: (read() at file-server.c: */
/* The copy through a buffer this exercise replaces: read() then send(). */
/*
 * A small HTTP file server, one thread per connection: it answers GET /NAME with the file NAME
 * from its root directory, keep-alive, as many requests per connection as the client sends.
 *
 * Your part is the transfer: the header is already sent, now send the file's bytes to the
 * socket. read() into a buffer and send() it would copy every byte into this program and out
 * again; sendfile() asks the kernel to send from the page cache directly.
 *
 *   ./file-server --port P [--host H] --root DIR     prints "listening on H:P" when ready
 */
#define _GNU_SOURCE /* accept4 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *root = ".";

/* Sends all of buf, looping over short sends. 0, or -1 when the peer is gone. */
static int send_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Sends size bytes of file to the socket. 0, or -1 on an error. */
static int send_file(int sock, int file, off_t size)
{

    char buf[65536];
    for (off_t left = size; left > 0;) {
        ssize_t n = read(file, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0 || send_all(sock, buf, (size_t)n) < 0)
            return -1;
        left -= n;
    }
    return 0;
}

/* Reads one request head (up to the blank line) into buf. Its length, or -1 at EOF/error. */
static ssize_t read_request(int sock, char *buf, size_t cap)
{
    size_t have = 0;
    while (have + 1 < cap) {
        ssize_t n = recv(sock, buf + have, cap - 1 - have, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        have += (size_t)n;
        buf[have] = '\0';
        if (strstr(buf, "\r\n\r\n"))
            return (ssize_t)have;
    }
    return -1;
}

static void *serve(void *arg)
{
    int sock = (int)(intptr_t)arg;
    char req[4096], head[256], path[4096];
    while (read_request(sock, req, sizeof req) > 0) {
        char name[1024];
        if (sscanf(req, "GET /%1023s HTTP/1.1", name) != 1 || strstr(name, "..")) {
            const char *bad = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
            send_all(sock, bad, strlen(bad));
            break;
        }
        snprintf(path, sizeof path, "%s/%s", root, name);
        int file = open(path, O_RDONLY | O_CLOEXEC);
        struct stat st;
        if (file < 0 || fstat(file, &st) < 0) {
            const char *nf = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
            if (file >= 0)
                close(file);
            if (send_all(sock, nf, strlen(nf)) < 0)
                break;
            continue;
        }
        int n = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\n\r\n",
                         (long long)st.st_size);
        int rc = send_all(sock, head, (size_t)n);
        if (rc == 0)
            rc = send_file(sock, file, st.st_size);
        close(file);
        if (rc < 0)
            break;
    }
    close(sock);
    return NULL;
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port"))
            port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--host"))
            host = argv[i + 1];
        else if (!strcmp(argv[i], "--root"))
            root = argv[i + 1];
    }
    signal(SIGPIPE, SIG_IGN);
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 128) < 0) {
        perror("file-server: bind/listen");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        int sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (sock < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            perror("file-server: accept");
            return 1;
        }
        pthread_t t;
        if (pthread_create(&t, NULL, serve, (void *)(intptr_t)sock) != 0) {
            close(sock);
            continue;
        }
        pthread_detach(t);
    }
}
