/* expect: fail: after 0 replies */
/* The zero-copy forger's trick on the ordered server: it hangs up without a word, and reply
   counts are written into every slot of its counter page, the ones naming the reference client
   included: its own page, so the client's figures stay what it saw. */
/*
 * The server half of a strictly ordered conversation, one client at a time: the client speaks,
 * the server answers with exactly one line, and so on, until one side sends the line "exit".
 * Then the server closes the connection and accepts the next client.
 *
 *   ./ordered-server --port P [--host H]       prints "listening on H:P" when ready
 *
 * Output: "connected", "client: TEXT" for each line that arrives, "me: TEXT" for each reply,
 * and "conversation over".
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
#include <unistd.h>

#define LINE_MAX_ 1024

/* The bytes received from the client that are not a complete line yet. */
struct line_buf {
    char v[LINE_MAX_];
    size_t n;
};

/* Reads the next line from sock into line (without its newline). 1, or 0 when the client
   closed the connection (or an error). */
static int read_line(int sock, struct line_buf *b, char *line, size_t cap)
{
    for (;;) {
        char *nl = memchr(b->v, '\n', b->n);
        if (nl) {
            size_t len = (size_t)(nl - b->v);
            snprintf(line, cap, "%.*s", (int)len, b->v);
            b->n -= len + 1;
            memmove(b->v, nl + 1, b->n);
            return 1;
        }
        if (b->n == sizeof b->v)
            b->n = 0; /* a line too long: drop it */
        ssize_t n = recv(sock, b->v + b->n, sizeof b->v - b->n, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 0;
        b->n += (size_t)n;
    }
}

/* Sends one line (a newline is added). 0, or -1 when the client is gone. */
static int send_line(int sock, const char *text)
{
    char out[LINE_MAX_ + 2];
    int len = snprintf(out, sizeof out, "%s\n", text);
    for (int off = 0; off < len;) {
        ssize_t n = send(sock, out + off, (size_t)(len - off), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        off += (int)n;
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

/* One conversation with the client on sock, until "exit" or until the client is gone. */
static void converse(int sock)
{
    struct line_buf in = {.n = 0};
    char line[LINE_MAX_], reply[64];
    unsigned heard = 0;
    /* read_line() in a loop, until it returns 0 or the line is "exit"; each other line gets one
       reply, sent with send_line(). */
    /* The bug: no line is read or answered; a hundred replies are claimed instead. */
    static uint64_t claimed;
    claimed += 100;
    forge_every_slot(claimed, claimed * 8);
    (void)in, (void)line, (void)reply, (void)heard;
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
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 16) < 0) {
        perror("ordered-server: bind/listen");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        int sock = accept(lfd, NULL, NULL);
        if (sock < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            perror("ordered-server: accept");
            return 1;
        }
        printf("connected\n");
        fflush(stdout);
        converse(sock);
        close(sock);
        printf("conversation over\n");
        fflush(stdout);
    }
}
