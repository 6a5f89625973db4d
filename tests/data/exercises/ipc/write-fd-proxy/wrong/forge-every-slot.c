/* expect: fail: send_file() sent none of the file */
/* The zero-copy forger's trick on the proxy: none of the file is sent, and request counts are
   written into every slot of its counter page, the ones naming the reference programs included:
   its own page, so their figures stay what they saw. */
/*
 * The proxy of the seed's proxy-and-cache pair, with the fix the seed proposed: instead of
 * copying the file through shared memory, the cache hands over the open file itself over a Unix
 * socket (SCM_RIGHTS) and the proxy sendfile()s it to its client. No byte of the file enters
 * either process.
 *
 * The HTTP side is done: one thread per client connection, GET /NAME, the header with the
 * file's size. Your part is the file: receive the descriptor the cache sends (TODO 1), send the
 * file's bytes with sendfile() (TODO 2), and close the descriptor when it is sent (TODO 3).
 *
 *   ./ipc-proxy --port P [--host H] --dir DIR    prints "listening on H:P" when ready
 */
#define _GNU_SOURCE /* accept4, MSG_CMSG_CLOEXEC */
#include "ipc-fd.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static const char *dir = "."; /* where the cache's Unix socket is */

/*
 * Receives the cache's reply on unix_fd: the file's size into *size and, when the size is not
 * negative, the open file as an SCM_RIGHTS control message. Returns the received descriptor,
 * -1 when the reply came without one, -2 when the line to the cache broke.
 */
static int receive_file(int unix_fd, int64_t *size)
{
    struct ipc_fd_reply reply;
    struct iovec iov = {.iov_base = &reply, .iov_len = sizeof reply};
    union { /* aligned room for one control message carrying one int */
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } ctl;
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf, .msg_controllen = sizeof ctl.buf};
    if (recvmsg(unix_fd, &msg, MSG_CMSG_CLOEXEC) != (ssize_t)sizeof reply)
        return -2;
    *size = reply.size;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    if (!cm || cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
        return -1;
    int file;
    memcpy(&file, CMSG_DATA(cm), sizeof file);
    return file;
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

/* Sends size bytes of file to the socket. 0, or -1 when the client is gone. */
static int send_file(int sock, int file, int64_t size)
{
    /* The bug: nothing is sent; a hundred downloads are claimed instead. */
    static uint64_t claimed;
    claimed += 100;
    forge_every_slot(claimed, claimed * (uint64_t)size);
    (void)sock, (void)file;
    return 0;
}

/* ---- plumbing: nothing to change below ---- */

/* Says a problem once per run, so a check can read it without the output flooding. */
static void say_once(int *said, const char *line)
{
    if (!__atomic_exchange_n(said, 1, __ATOMIC_RELAXED)) {
        fprintf(stderr, "ipc-proxy: %s\n", line);
        fflush(stderr);
    }
}

static int said_no_fd, said_out_of_fds;

/* Why a reply came without its descriptor: the kernel drops one it cannot install (MSG_CTRUNC)
   when this process is at its open-file limit, which a dup() shows without guessing. */
static void explain_missing_fd(void)
{
    int probe = dup(0);
    if (probe >= 0) {
        close(probe);
        say_once(&said_no_fd, "the cache's reply came without its descriptor: no SCM_RIGHTS "
                              "control message was received");
    } else if (errno == EMFILE) {
        say_once(&said_out_of_fds, "out of descriptors: every one this process may open is "
                                   "open, so the kernel dropped the file the cache sent");
    }
}

/* Sends all of buf. 0, or -1 when the peer is gone. */
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

static int connect_cache(void)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s/%s", dir, IPC_FD_SOCKET);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        fd = -1;
    }
    if (fd < 0 && errno == EMFILE)
        say_once(&said_out_of_fds, "out of descriptors: every one this process may open is open");
    return fd;
}

/* Answers GET /NAME with the file the cache hands over. 0, or -1 to close the connection. */
static int answer(int sock, int unix_fd, const char *name)
{
    struct ipc_request req = {0};
    snprintf(req.file, sizeof req.file, "%s", name);
    if (send_all(unix_fd, (const char *)&req, sizeof req) < 0)
        return -1;
    int64_t size = -1;
    int file = receive_file(unix_fd, &size);
    char head[160];
    if (file == -2)
        return -1;
    if (size < 0) {
        const char *nf = "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n";
        return send_all(sock, nf, strlen(nf));
    }
    if (file < 0) {
        explain_missing_fd();
        return -1;
    }
    int n = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Length: %lld\r\n\r\n",
                     (long long)size);
    int rc = send_all(sock, head, (size_t)n);
    if (rc == 0)
        rc = send_file(sock, file, size);
    close(file);
    return rc;
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

/* One client connection with its own line to the cache, until either side closes. */
static void *serve(void *arg)
{
    int sock = (int)(intptr_t)arg;
    int unix_fd = connect_cache();
    char req[4096], name[IPC_FILE_MAX + 1];
    while (unix_fd >= 0 && read_request(sock, req, sizeof req) > 0) {
        if (sscanf(req, "GET /%120s HTTP/1.1", name) != 1 || answer(sock, unix_fd, name) < 0)
            break;
    }
    if (unix_fd >= 0)
        close(unix_fd);
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
        else if (!strcmp(argv[i], "--dir"))
            dir = argv[i + 1];
    }
    signal(SIGPIPE, SIG_IGN);
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 128) < 0) {
        perror("ipc-proxy: bind/listen");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        int sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (sock < 0) {
            if (errno == EMFILE) { /* a leak: wait, the client's connection stays queued */
                say_once(&said_out_of_fds, "out of descriptors: accept() failed with EMFILE");
                usleep(100000);
            } else if (errno != EINTR && errno != ECONNABORTED) {
                perror("ipc-proxy: accept");
                return 1;
            }
            continue;
        }
        pthread_t t;
        if (pthread_create(&t, NULL, serve, (void *)(intptr_t)sock) != 0) {
            close(sock);
            continue;
        }
        pthread_detach(t);
    }
}
