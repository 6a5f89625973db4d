/*
 * Hostile: tries to leave its namespaces. It enters every namespace of /proc/1 (inside a jail,
 * the jail's own init; outside one, the host's), then tries to reach a TCP port on the host's
 * loopback (argv[1]) and to create a file at argv[2], then calls unshare() for every kind and
 * leaves a child in the new namespaces. Each outcome is printed on a line of its own.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    static const char *const ns[] = {"user", "mnt", "net", "pid", "ipc", "uts", "cgroup", "time"};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/1/ns/%s", ns[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        int rc = fd < 0 ? -1 : setns(fd, 0);
        printf("setns %s: %s\n", ns[i], rc == 0 ? "ok" : strerror(errno));
        if (fd >= 0)
            close(fd);
    }
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    printf("connect %s\n",
           connect(s, (struct sockaddr *)&sa, sizeof sa) == 0 ? "ok" : strerror(errno));
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    printf("create %s\n", fd >= 0 ? "ok" : strerror(errno));
    static const struct {
        const char *name;
        int flag;
    } kinds[] = {{"user", CLONE_NEWUSER},    {"mnt", CLONE_NEWNS},  {"net", CLONE_NEWNET},
                 {"pid", CLONE_NEWPID},      {"ipc", CLONE_NEWIPC}, {"uts", CLONE_NEWUTS},
                 {"cgroup", CLONE_NEWCGROUP}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        printf("unshare %s: %s\n", kinds[i].name,
               unshare(kinds[i].flag) == 0 ? "ok" : strerror(errno));
    printf("done\n");
    fflush(stdout);
    /* A child in whatever namespaces it ended up in, to be found and stopped by the launcher. */
    if (fork() == 0)
        for (;;)
            pause();
    for (;;)
        pause();
}
