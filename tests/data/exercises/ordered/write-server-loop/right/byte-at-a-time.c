/* expect: pass */
/*
 * Correct, written differently from the reference: one recv() per byte, so nothing of the next
 * line is ever read early and no buffer is kept between lines (about 25 calls per client where
 * the reference makes 4: a check that bounds the calls must leave room for it); the reply is
 * sent with write() in a loop over short writes.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The byte received and not yet used. */
struct chunk {
    char v[1];
    size_t at, len;
};

/* The next line into buf (without its newline): its length, or -1 at the end or on error. */
static int next_line(int sock, struct chunk *ch, char *buf, int cap)
{
    int len = 0;
    for (;;) {
        if (ch->at == ch->len) {
            ssize_t n = recv(sock, ch->v, sizeof ch->v, 0);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return -1;
            ch->at = 0;
            ch->len = (size_t)n;
        }
        char c = ch->v[ch->at++];
        if (c == '\n')
            break;
        if (len < cap - 1)
            buf[len++] = c;
    }
    buf[len] = '\0';
    return len;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
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
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 16) < 0)
        return 1;
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        int sock = accept(lfd, NULL, NULL);
        if (sock < 0)
            continue;
        printf("connected\n");
        fflush(stdout);
        char line[1024];
        struct chunk ch = {.at = 0, .len = 0};
        for (unsigned k = 1; next_line(sock, &ch, line, sizeof line) >= 0; k++) {
            if (!strcmp(line, "exit"))
                break;
            char reply[32];
            int n = snprintf(reply, sizeof reply, "ack %u\n", k);
            printf("client: %s\n", line);
            if (write_all(sock, reply, (size_t)n) < 0)
                break;
            printf("me: ack %u\n", k);
            fflush(stdout);
        }
        close(sock);
        printf("conversation over\n");
        fflush(stdout);
    }
}
