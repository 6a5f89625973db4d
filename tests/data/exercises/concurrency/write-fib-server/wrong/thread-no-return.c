/* expect: fail: each thread must return once its client is served || closes its socket when its */
/*
 * A detached thread per request, but the thread does not return when its client is done: it
 * goes on accepting, as main() does, so every request leaves one more thread behind.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static uint64_t slow_fib(unsigned n)
{
    if (n < 2)
        return n;
    return slow_fib(n - 1) + slow_fib(n - 2);
}

static int ls = -1;
static pthread_attr_t attr;
static void serve_forever(void);

static void *worker(void *arg)
{
    int fd = *(int *)arg;
    free(arg);
    char buf[64];
    size_t have = 0;
    while (have < sizeof buf - 1 && !memchr(buf, '\n', have)) {
        ssize_t r = read(fd, buf + have, sizeof buf - 1 - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        have += (size_t)r;
    }
    buf[have] = '\0';
    unsigned n;
    if (memchr(buf, '\n', have) && sscanf(buf, "%u", &n) == 1 && n <= 92)
        dprintf(fd, "%llu\n", (unsigned long long)slow_fib(n));
    close(fd);
    /* The bug: back to the loop, as main() does, instead of returning. */
    serve_forever();
    return NULL;
}

/* Accepts each client and starts a detached thread for it. */
static void serve_forever(void)
{
    for (;;) {
        int c = accept(ls, NULL, NULL);
        if (c < 0)
            continue;
        int *cell = malloc(sizeof *cell);
        if (!cell) {
            close(c);
            continue;
        }
        *cell = c;
        pthread_t t;
        if (pthread_create(&t, &attr, worker, cell) != 0) {
            free(cell);
            close(c);
        }
    }
}

int main(int argc, char **argv)
{
    const char *host = "127.0.0.1";
    int port = 0;
    for (int i = 1; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--port") == 0)
            port = atoi(argv[++i]);
        else if (strcmp(argv[i], "--host") == 0)
            host = argv[++i];
    }
    signal(SIGPIPE, SIG_IGN);
    ls = socket(AF_INET, SOCK_STREAM, 0);
    int on = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    struct sockaddr_in sin;
    memset(&sin, 0, sizeof sin);
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    inet_pton(AF_INET, host, &sin.sin_addr);
    if (bind(ls, (struct sockaddr *)&sin, sizeof sin) != 0 || listen(ls, 64) != 0) {
        perror("bind/listen");
        return 1;
    }
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    serve_forever();
}
