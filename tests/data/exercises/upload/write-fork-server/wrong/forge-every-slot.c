/* expect: fail: serve_upload() must read until size bytes arrived */
/* The zero-copy forger's trick on the fork upload server: the child reads none of the upload and
   replies at once, and upload counts are written into every slot of its counter page, the ones
   naming the reference clients included: its own page, so the clients' figures stay what they
   saw. */
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
#include <stdint.h>
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

/*
 * Writes `requests` and `bytes` into every slot of the counter page this process was given, the
 * reference client's slots included (as far as this program can tell): the page is found in
 * /proc/self/maps, its header says where the slots are, and iolab_app_self() (the shim's) says
 * where a slot's published figures sit.
 */
void *iolab_app_self(void) __attribute__((weak));
static void forge_every_slot(uint64_t requests, uint64_t bytes)
{
    char *app = iolab_app_self ? iolab_app_self() : NULL;
    FILE *maps = fopen("/proc/self/maps", "re");
    char line[512];
    unsigned long base = 0;
    while (maps && fgets(line, sizeof line, maps))
        if (strstr(line, "iolab-counters")) {
            base = strtoul(line, NULL, 16);
            break;
        }
    if (maps)
        fclose(maps);
    if (!app || !base || (unsigned long)app < base)
        return;
    const uint32_t *hdr = (const uint32_t *)base; /* magic (8 bytes), version, header, slot, n */
    uint32_t header = hdr[3], slot = hdr[4], nslots = hdr[5];
    if (!slot || !nslots)
        return;
    unsigned long at = ((unsigned long)app - base - header) % slot;
    uint32_t *next = (uint32_t *)(base + 28);
    *next = nslots - 1;
    for (uint32_t i = 0; i + 1 < nslots; i++) {
        char *s = (char *)base + header + (unsigned long)i * slot;
        *(uint32_t *)s = 1;           /* claimed */
        *(uint32_t *)(s + 4) = i % 4; /* every program's index */
        uint64_t *figures = (uint64_t *)(s + at);
        figures[0] = requests;
        figures[1] = bytes;
    }
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
    /* The bug: nothing of the upload is read; a hundred uploads are claimed instead. */
    static uint64_t claimed;
    claimed += 100;
    forge_every_slot(claimed, claimed * size);
    (void)buf;
    uint8_t reply[UPLOAD_REPLY_SIZE];
    upload_reply_pack(reply, got, upload_sum_value(&sum));
    send(sock, reply, sizeof reply, MSG_NOSIGNAL);
}

/* Serves the client on sock in a process of its own; the caller goes back to its loop. */
static void handle_client(int sock)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("upload-server: fork");
    } else if (pid == 0) {
        serve_upload(sock);
        close(sock);
        _exit(0);
    }
    close(sock);
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
