/* expect: pass */
/*
 * Correct, written differently from the reference: the connection is read through stdio
 * (fdopen() and getline(), which keep the partial line in their own buffer) and answered with
 * dprintf(); the conversation is one function with the loop as a while over getline().
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

static void talk(int sock)
{
    /* A second descriptor for the FILE: fclose() closes it, the caller closes sock. */
    FILE *in = fdopen(dup(sock), "r");
    if (!in)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    unsigned n = 0;
    while ((len = getline(&line, &cap, in)) > 0) {
        if (line[len - 1] == '\n')
            line[--len] = '\0';
        if (!strcmp(line, "exit"))
            break;
        printf("client: %s\n", line);
        if (dprintf(sock, "ack %u\n", ++n) < 0)
            break;
        printf("me: ack %u\n", n);
        fflush(stdout);
    }
    free(line);
    fclose(in);
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
        talk(sock);
        close(sock);
        printf("conversation over\n");
        fflush(stdout);
    }
}
