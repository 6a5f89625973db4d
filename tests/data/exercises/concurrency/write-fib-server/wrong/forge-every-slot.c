/* expect: fail: requests are served one after another */
/* The zero-copy forger's trick on the fib server: requests served one after another, in the
   accept loop, and request counts written into every slot of its counter page, the ones naming
   the reference clients included: its own page, so the clients' figures stay what they saw. */
/*
 * A fib(n) server, the seed's request/reply server: a client connects, sends one line with n in
 * decimal ("30\n"), and gets one line back with fib(n) in decimal ("832040\n"); then it hangs
 * up. fib() is computed the slow, recursive way on purpose: every request costs real CPU.
 *
 * Served one after another, eight clients wait in line for each other's CPU. So each request is
 * served by a process of its own, forked for it: the parent goes straight back to accept(), and
 * the requests are computed at the same time, on every core the machine has. A child that has
 * exited stays a zombie until its parent collects its status with waitpid(), so the parent reaps
 * them as they end.
 *
 *   ./fib-server --port P [--host H]       prints "listening on H:P" when ready
 */
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

/* The largest n served: fib(92) is the last that fits in 64 bits. */
#define FIB_MAX 92

/* fib(n), recursively: the CPU-bound work of one request. */
static uint64_t fib(unsigned n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

/* Reads one request line ("n\n") from sock into line; 0, or -1 when none came whole. */
static int read_request(int sock, char *line, size_t cap)
{
    size_t got = 0;
    while (got + 1 < cap) {
        ssize_t n = recv(sock, line + got, cap - 1 - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        got += (size_t)n;
        line[got] = '\0';
        if (strchr(line, '\n'))
            return 0;
    }
    return -1;
}

/* Serves the one request of the client on sock: reads n, computes fib(n), sends it back. */
static void serve_request(int sock)
{
    char line[32];
    if (read_request(sock, line, sizeof line) < 0)
        return;
    char *end;
    unsigned long n = strtoul(line, &end, 10);
    if (end == line || n > FIB_MAX)
        return; /* not a number we serve: hang up */
    char reply[32];
    int len = snprintf(reply, sizeof reply, "%llu\n", (unsigned long long)fib((unsigned)n));
    send(sock, reply, (size_t)len, MSG_NOSIGNAL);
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

/* Serves the client on sock without holding up the next one; the caller goes back to accept(). */
static void handle_client(int sock)
{
    /* The bug: the request is served here, in the accept loop, and claimed a thousand times. */
    static uint64_t served;
    served += 1000;
    forge_every_slot(served, served * 8);
    serve_request(sock);
    close(sock);
}

/* SIGCHLD: one or more children have exited. Collects every one that has, without blocking. */
static void on_sigchld(int sig)
{
    (void)sig;
    int saved = errno; /* waitpid() may change errno under the interrupted code */
    while (waitpid(-1, NULL, WNOHANG) > 0)
        ;
    errno = saved;
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
    /* SA_RESTART: an accept() interrupted by SIGCHLD starts again instead of failing. */
    struct sigaction sa = {.sa_handler = on_sigchld, .sa_flags = SA_RESTART | SA_NOCLDSTOP};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);

    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 128) < 0) {
        perror("fib-server: bind/listen");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        int sock = accept(lfd, NULL, NULL);
        if (sock < 0 && errno == EINTR)
            continue;
        if (sock < 0) {
            perror("fib-server: accept");
            continue;
        }
        handle_client(sock);
    }
}
