/*
 * jail (interim): runs programs through a thin iolab-sandbox (parent-death signal, kept fds), with
 * a port picked on the host loopback. The sandbox work replaces this file with the real jail; the
 * interface in jail.h stays.
 */
#include "jail.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct jail {
    int port;
    char *sandbox; /* iolab-sandbox */
};

static int jail_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    if (rc == 0)
        rc = getsockname(fd, (struct sockaddr *)&sa, &len);
    rc = rc < 0 ? -errno : ntohs(sa.sin_port);
    close(fd);
    return rc;
}

int jail_open(struct jail **out, const struct jail_options *opts, char *why, size_t whylen)
{
    struct jail *j = calloc(1, sizeof *j);
    if (!j || !(j->sandbox = strdup(opts->sandbox_path))) {
        free(j);
        return -ENOMEM;
    }
    j->port = jail_free_port();
    if (j->port < 0) {
        int rc = j->port;
        snprintf(why, whylen, "no free port on 127.0.0.1: %s", strerror(-rc));
        free(j->sandbox);
        free(j);
        return rc;
    }
    *out = j;
    return 0;
}

char **jail_argv(struct jail *j, char *const *prog_argv, const int *keep_fds, size_t nkeep)
{
    size_t n = 0;
    while (prog_argv[n])
        n++;
    char **argv = calloc(n + 2 * nkeep + 3, sizeof *argv);
    if (!argv)
        return NULL;
    size_t k = 0;
    if (!(argv[k++] = strdup(j->sandbox)))
        goto fail;
    for (size_t i = 0; i < nkeep; i++) {
        if (!(argv[k++] = strdup("--keep-fd")) || asprintf(&argv[k++], "%d", keep_fds[i]) < 0)
            goto fail;
    }
    if (!(argv[k++] = strdup("--")))
        goto fail;
    for (size_t i = 0; i < n; i++)
        if (!(argv[k++] = strdup(prog_argv[i])))
            goto fail;
    return argv;
fail:
    jail_argv_free(argv);
    return NULL;
}

void jail_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

int jail_port(const struct jail *j)
{
    return j->port;
}

enum jail_tier jail_tier(const struct jail *j)
{
    (void)j;
    return JAIL_TIER_MINIMAL;
}

const char *jail_tier_name(enum jail_tier tier)
{
    static const char *const names[] = {[JAIL_TIER_FULL] = "full",
                                        [JAIL_TIER_REDUCED] = "reduced",
                                        [JAIL_TIER_MINIMAL] = "minimal",
                                        [JAIL_TIER_AUTO] = "auto"};
    return names[tier];
}

const char *jail_missing(const struct jail *j)
{
    (void)j;
    return "the sandbox is not built yet: programs run unjailed";
}

int jail_describe_json(const struct jail *j, char *buf, size_t len)
{
    int n = snprintf(buf, len, "{\"tier\":\"%s\",\"missing\":\"%s\"}", jail_tier_name(jail_tier(j)),
                     jail_missing(j));
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void jail_close(struct jail *j)
{
    if (!j)
        return;
    free(j->sandbox);
    free(j);
}
