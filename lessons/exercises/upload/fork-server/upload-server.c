/* iolab-starter: 1 */
/*
 * An upload server: clients send files, the server reads each one whole and answers with the
 * byte count and a checksum of what it received (upload.h has the protocol), so that the client
 * knows every byte arrived in order.
 *
 * The main loop waits with epoll for new connections. Reading an upload takes a while, and
 * while the server reads one it could not accept the next: so each client is served by a
 * process of its own, forked for it, and the main loop goes straight back to epoll_wait().
 *
 *   ./upload-server --port P [--host H]       prints "listening on H:P" when ready
 */
#define _GNU_SOURCE /* accept4() */
#include "upload.h"
#include "w_epoll.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Reads exactly len bytes. 0, or -1 when the peer is gone first. */
static int recv_all(int fd, void *buf, size_t len)
{
    char *p = buf;
    while (len > 0) {
        ssize_t n = recv(fd, p, len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Serves one upload on sock: the size, the bytes (summed as they come), the reply. */
static void serve_upload(int sock)
{
    uint8_t head[UPLOAD_HEADER_SIZE];
    if (recv_all(sock, head, sizeof head) < 0)
        return;
    uint64_t size;
    memcpy(&size, head, 8);
    size = be64toh(size);
    struct upload_sum sum = {0};
    static char buf[UPLOAD_CHUNK];
    uint64_t got = 0;
    /* TODO 10: read the upload's bytes until size have arrived, adding each piece to sum */
    while (got < size) {
        size_t want = size - got < sizeof buf ? (size_t)(size - got) : sizeof buf;
        ssize_t n = recv(sock, buf, want, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        upload_sum_add(&sum, buf, (size_t)n);
        got += (size_t)n;
    }
    /* REPLACE 1 */
    // (void)buf;
    uint8_t reply[UPLOAD_REPLY_SIZE];
    upload_reply_pack(reply, got, upload_sum_value(&sum));
    send(sock, reply, sizeof reply, MSG_NOSIGNAL);
}

/* Serves the client on sock in a process of its own; the caller goes back to its loop. */
static void handle_client(int sock)
{
    /* TODO 9: fork(); the child serves the upload, closes sock and exits; the parent closes sock */
    pid_t pid = fork();
    if (pid < 0) {
        perror("upload-server: fork");
    } else if (pid == 0) {
        serve_upload(sock);
        close(sock);
        _exit(0);
    }
    close(sock);
    /* REPLACE 2 */
    // serve_upload(sock);
    // close(sock);
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
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGCHLD, SIG_IGN); /* children are reaped by the kernel: no zombies */
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 128) < 0) {
        perror("upload-server: bind/listen");
        return 1;
    }
    int epollfd = epoll_create1(EPOLL_CLOEXEC);
    if (epollfd < 0 || w_epoll_add_fd_in(epollfd, lfd) < 0) {
        perror("upload-server: epoll");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        struct epoll_event ev;
        int n = epoll_wait(epollfd, &ev, 1, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            perror("upload-server: epoll_wait");
            return 1;
        }
        if (ev.data.fd != lfd)
            continue;
        int sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (sock >= 0)
            handle_client(sock);
    }
}
