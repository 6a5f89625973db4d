/* Hostile: binds 127.0.0.1:argv[1] and connects to 127.0.0.1:argv[2] (ports it does not own). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int try(int port, int do_bind)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((unsigned short)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int rc = do_bind ? bind(fd, (struct sockaddr *)&sa, sizeof sa)
                     : connect(fd, (struct sockaddr *)&sa, sizeof sa);
    int err = errno;
    close(fd);
    return rc < 0 ? err : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int b = try(atoi(argv[1]), 1), c = try(atoi(argv[2]), 0);
    printf("bind %s\n", b ? strerror(b) : "ok");
    printf("connect %s\n", c ? strerror(c) : "ok");
    return 0;
}
