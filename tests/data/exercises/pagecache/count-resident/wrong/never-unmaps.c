/* expect: fail: count_resident() must munmap() the whole mapping */
/* Never unmaps the file: every request leaves a mapping of the whole file behind. */
/*
 * A residency server: a client sends the path of a file as one line, and gets back one line,
 * "RESIDENT PAGES": how many of the file's pages are in the page cache right now, and how many
 * pages the file has. The same figure `fincore FILE` prints in a shell.
 *
 * It must measure without disturbing: reading the file would bring the pages it reads into the
 * cache and change the answer. mincore() asks the kernel instead, page by page, about a mapping
 * of the file, and neither mapping nor mincore() loads anything.
 *
 *   ./resident-server --port P [--host H]       prints "listening on H:P" when ready
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Counts the pages of the file at path (a partly used last page counts) into *pages, and how
 * many of them are in the page cache into *resident. 0, or -1 when the file cannot be measured.
 */
static int count_resident(const char *path, size_t *resident, size_t *pages)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) < 0) {
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    long page = sysconf(_SC_PAGESIZE);
    *resident = 0;
    *pages = 0;
    int rc = 0;
    *pages = (size + (size_t)page - 1) / (size_t)page;
    if (size > 0) {
        void *map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
        unsigned char *vec = malloc(*pages);
        if (map == MAP_FAILED || !vec || mincore(map, size, vec) < 0)
            rc = -1;
        for (size_t i = 0; rc == 0 && i < *pages; i++)
            *resident += vec[i] & 1;
        free(vec);
        /* The bug: the mapping is never unmapped. */
    }
    (void)page; /* used by the count above */
    (void)size;
    close(fd);
    return rc;
}

/* Answers one client: reads the path line, measures, replies "RESIDENT PAGES". */
static void serve(int sock)
{
    char line[4200];
    size_t got = 0;
    while (got + 1 < sizeof line && !memchr(line, '\n', got)) {
        ssize_t n = recv(sock, line + got, sizeof line - 1 - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        got += (size_t)n;
    }
    char *nl = memchr(line, '\n', got);
    if (!nl)
        return;
    *nl = '\0';
    size_t resident, pages;
    char reply[64];
    int len;
    if (count_resident(line, &resident, &pages) < 0)
        len = snprintf(reply, sizeof reply, "error %s\n", strerror(errno));
    else
        len = snprintf(reply, sizeof reply, "%zu %zu\n", resident, pages);
    send(sock, reply, (size_t)len, MSG_NOSIGNAL);
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
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, host, &a.sin_addr);
    if (bind(lfd, (struct sockaddr *)&a, sizeof a) < 0 || listen(lfd, 16) < 0) {
        perror("resident-server: bind/listen");
        return 1;
    }
    printf("listening on %s:%d\n", host, port);
    fflush(stdout);
    for (;;) {
        int sock = accept(lfd, NULL, NULL);
        if (sock < 0)
            continue;
        serve(sock);
        close(sock);
    }
}
