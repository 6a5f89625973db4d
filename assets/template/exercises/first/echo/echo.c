/*
 * echo: the reference solution of the exercise in first.json. The learner's starting point is
 * generated from this file by its markers (lessons/README.md, "Exercise steps"):
 *   TODO n: what to do    the comment stays, the n lines after it go (the learner writes them)
 *   REPLACE n             the n "//" lines after it become code in the starter only
 *   REMOVE n              the marker and the n lines after it go (code only the solution needs)
 * `iolab check --pack DIR --solutions` proves this file passes the step's checks and that its
 * starter builds and fails them.
 *
 * An iterative echo server: one connection at a time, read() what came and write() it back.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static void serve(int c)
{
    char buf[4096];
    /* TODO 4: read() what the client sent and write() it back, until read() returns 0 */
    ssize_t n;
    while ((n = read(c, buf, sizeof buf)) > 0)
        if (write(c, buf, (size_t)n) != n)
            break;
    /* REPLACE 1 */
    // (void)buf;
    close(c);
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
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
    if (s < 0 || inet_pton(AF_INET, host, &sa.sin_addr) != 1) {
        fprintf(stderr, "echo: cannot listen on %s\n", host);
        return 1;
    }
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(s, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(s, 64) < 0) {
        perror("echo");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        int c = accept(s, NULL, NULL);
        if (c >= 0)
            serve(c);
    }
}
