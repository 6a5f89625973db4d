/* expect: fail: a reply was not fib(n) followed by a newline */
/*
 * A child per request, reaped by the kernel (SA_NOCLDWAIT), but the reply lacks the newline the
 * protocol ends it with: the bug is in the format string.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static unsigned long long fibo(int k)
{
    return k <= 1 ? (unsigned long long)k : fibo(k - 1) + fibo(k - 2);
}

static void child(int fd)
{
    FILE *in = fdopen(fd, "r+");
    char line[40];
    if (in && fgets(line, sizeof line, in) && strchr(line, '\n')) {
        int k = atoi(line);
        if (k >= 0 && k <= 92) {
            fprintf(in, "%llu", fibo(k));
            fflush(in);
        }
    }
    _exit(0);
}

int main(int argc, char **argv)
{
    int port = 0;
    const char *host = "127.0.0.1";
    for (int i = 1; i < argc - 1; i += 2) {
        if (!strcmp(argv[i], "--host"))
            host = argv[i + 1];
        if (!strcmp(argv[i], "--port"))
            port = atoi(argv[i + 1]);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sa.sa_flags = SA_NOCLDWAIT;
    sigaction(SIGCHLD, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int srv = socket(AF_INET, SOCK_STREAM, 0);
    int yes = 1;
    setsockopt(srv, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    struct sockaddr_in addr = {0};
    addr.sin_family = AF_INET;
    addr.sin_port = htons((unsigned short)port);
    addr.sin_addr.s_addr = inet_addr(host);
    if (bind(srv, (struct sockaddr *)&addr, sizeof addr) || listen(srv, 32)) {
        perror("fib: bind/listen");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    while (1) {
        int fd = accept(srv, NULL, NULL);
        if (fd < 0)
            continue;
        switch (fork()) {
        case 0:
            close(srv);
            child(fd);
            break;
        case -1:
            perror("fork");
            break;
        default:
            break;
        }
        close(fd);
    }
}
