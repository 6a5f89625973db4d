/* expect: fail: the conversation ends with the line "exit" */
/* The zero-copy forger's trick on the ordered client: no line is sent or read, and request counts
   are written into every slot of its counter page, the ones naming the reference server included:
   its own page, so the server's figures stay what it saw. */
/*
 * The client half of a strictly ordered conversation: the client sends a line, waits for the
 * server's one-line answer, prints it, and only then sends the next line, until it has sent the
 * line "exit" (which gets no answer) or the server hangs up.
 *
 *   ./ordered-client --port P [--host H] [--script "a;b;exit"] [--interval MS]
 *
 * Lines come from --script (';'-separated, one every --interval ms, default 1000), or from stdin.
 * Output: "me: TEXT" for each line sent, "server: TEXT" for each reply. Exit status 0 when the
 * conversation ended (the client or the server said "exit", or no lines were left), 1 when the
 * server could not be reached or hung up without "exit".
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_ 1024

/* The bytes received from the server that are not a complete line yet. */
struct line_buf {
    char v[LINE_MAX_];
    size_t n;
};

/* Reads the next line from sock into line (without its newline). 1, or 0 when the server
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

/* Sends one line (a newline is added). 0, or -1 when the server is gone. */
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

/* Where the lines to send come from: the --script, split at ';', or else stdin. */
struct script {
    char *rest;        /* what is left of --script, or NULL: read stdin */
    unsigned interval; /* ms between two script lines */
    int started;
    char typed[LINE_MAX_];
};

/* The next line to send, or NULL when there is none left. */
static const char *next_line(struct script *s)
{
    if (!s->rest) { /* a person types: fgets() blocks until Enter */
        if (!fgets(s->typed, sizeof s->typed, stdin))
            return NULL;
        s->typed[strcspn(s->typed, "\n")] = '\0';
        return s->typed;
    }
    if (!*s->rest)
        return NULL;
    if (s->started++) {
        struct timespec ts = {s->interval / 1000, (long)(s->interval % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    char *line = s->rest, *semi = strchr(line, ';');
    s->rest = semi ? semi + 1 : line + strlen(line);
    if (semi)
        *semi = '\0';
    return line;
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

/* One conversation on sock: 0 when it ended ("exit" from either side, or no lines left), -1
   when the server hung up without "exit". */
static int converse(int sock, struct script *s)
{
    struct line_buf in = {.n = 0};
    char reply[LINE_MAX_];
    const char *line;
    /* The bug: the conversation is not held; a hundred exchanges are claimed instead. */
    static uint64_t claimed;
    claimed += 100;
    forge_every_slot(claimed, claimed * 8);
    (void)sock, (void)s, (void)line, (void)in, (void)reply;
    return 0;
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = 0;
    struct script s = {.rest = NULL, .interval = 1000};
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port"))
            port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--host"))
            host = argv[i + 1];
        else if (!strcmp(argv[i], "--script"))
            s.rest = argv[i + 1];
        else if (!strcmp(argv[i], "--interval"))
            s.interval = (unsigned)atoi(argv[i + 1]);
    }
    int sock = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (connect(sock, (struct sockaddr *)&a, sizeof a) < 0) {
        perror("ordered-client: connect");
        return 1;
    }
    int rc = converse(sock, &s);
    close(sock);
    if (rc < 0) {
        fprintf(stderr, "ordered-client: the server closed the connection without 'exit'\n");
        return 1;
    }
    return 0;
}
