/* expect: fail: the server lost that connection */
/*
 * Known wrong: a detached thread per request, handed the address of the accept loop's variable.
 * The loop accepts the next client before the thread has read it (the step's late thread start
 * makes sure of that): two threads serve one socket, and the other client waits for ever.
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

static void *worker(void *arg)
{
    int fd = *(int *)arg;
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
    return NULL;
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
    int ls = socket(AF_INET, SOCK_STREAM, 0);
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
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    int c;
    for (;;) {
        c = accept(ls, NULL, NULL);
        if (c < 0)
            continue;
        pthread_t t;
        if (pthread_create(&t, &attr, worker, &c) != 0)
            close(c);
    }
}
