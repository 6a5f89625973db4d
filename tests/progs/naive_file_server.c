/*
 * naive-file-server: an HTTP/1.1 file server with the bug fault injection is there to find. It
 * reads each file whole (correctly, in a loop) and then sends the body with one send(), ignoring
 * what send() returned: a short send or an EINTR loses the rest of the body. Without faults a
 * loopback send() of a few hundred KiB is never short here, so the server looks right; under
 * IOLAB_FAULTS the verifying file-client sees short bodies. Used by test_faults.cpp only.
 *
 *   naive-file-server --port P --host H --root DIR
 *
 * Prints "listening on H:P" once it listens. Every response says "Connection: close".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

static int naive_listen(const char *host, int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (fd < 0 || inet_pton(AF_INET, host, &a.sin_addr) != 1 ||
        bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 64) < 0) {
        perror("naive-file-server: listen");
        exit(1);
    }
    return fd;
}

/* The whole file, read correctly: a loop over short reads and EINTR. */
static char *naive_slurp(int dir, const char *name, size_t *len)
{
    int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *buf = malloc((size_t)st.st_size + 1);
    size_t have = 0;
    while (buf && have < (size_t)st.st_size) {
        ssize_t n = read(fd, buf + have, (size_t)st.st_size - have);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        have += (size_t)n;
    }
    close(fd);
    *len = have;
    return buf;
}

static void naive_serve(int sock, int dir)
{
    char req[4096];
    size_t have = 0;
    while (have < sizeof req - 1 && !memmem(req, have, "\r\n\r\n", 4)) {
        ssize_t n = recv(sock, req + have, sizeof req - 1 - have, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        have += (size_t)n;
    }
    req[have] = '\0';
    char path[1024];
    if (sscanf(req, "GET /%1023s", path) != 1 || strstr(path, ".."))
        return;
    size_t len = 0;
    char *body = naive_slurp(dir, path, &len);
    char head[256];
    int hl =
        body ? snprintf(head, sizeof head,
                        "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n", len)
             : snprintf(head, sizeof head,
                        "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: "
                        "close\r\n\r\n");
    /* The bug: one send() each, whatever they return. */
    (void)send(sock, head, (size_t)hl, MSG_NOSIGNAL);
    if (body)
        (void)send(sock, body, len, MSG_NOSIGNAL);
    free(body);
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1", *root = ".";
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
    int dir = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int lfd = naive_listen(host, port);
    if (dir < 0) {
        perror("naive-file-server: root");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        int s = accept(lfd, NULL, NULL);
        if (s < 0)
            continue;
        naive_serve(s, dir);
        close(s);
    }
}
