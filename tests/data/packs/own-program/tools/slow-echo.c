/*
 * slow-echo: a pack's own program (tests/data/packs/own-program). A thread per connection
 * echoes what it reads, SLOW_CHUNK bytes per read(), and publishes on iolab's counter page one
 * request per 16 bytes echoed and the bytes, through iolab_counters.h.
 */
#include "slow.h"

#include <iolab_counters.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void *serve(void *arg)
{
    int c = (int)(intptr_t)arg;
    char buf[SLOW_CHUNK];
    ssize_t n;
    uint64_t echoed = 0;
    while ((n = read(c, buf, sizeof buf)) > 0) {
        if (write(c, buf, (size_t)n) != n)
            break;
        struct iolab_app *a = iolab_app();
        if (a) {
            iolab_add(&a->bytes, (uint64_t)n);
            if ((echoed + (uint64_t)n) / 16 > echoed / 16)
                iolab_add(&a->requests, 1);
        }
        echoed += (uint64_t)n;
    }
    close(c);
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
    }
    int s = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &sa.sin_addr);
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(s, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(s, 64) < 0) {
        perror("slow-echo");
        return 1;
    }
    printf("listening on %s:%d, %d byte(s) per read\n", host, port, SLOW_CHUNK);
    fflush(stdout);
    for (;;) {
        int c = accept(s, NULL, NULL);
        if (c < 0)
            continue;
        pthread_t t;
        if (pthread_create(&t, NULL, serve, (void *)(intptr_t)c) == 0)
            pthread_detach(t);
        else
            close(c);
    }
}
