/*
 * paths: locate iolab's parts from /proc/self/exe. The prefix is resolved once; symlinks to the
 * executable (a ~/bin/iolab link, say) are followed by the kernel, so they work too.
 */
#include "paths.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char paths_prefix[PATH_MAX];

static int paths_find_prefix(void)
{
    if (paths_prefix[0])
        return 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0)
        return -errno;
    exe[n] = '\0';
    /* PREFIX/bin/iolab: strip the file name, then the bin directory. */
    for (int strip = 0; strip < 2; strip++) {
        char *slash = strrchr(exe, '/');
        if (!slash)
            return -ENOENT;
        *slash = '\0';
    }
    if (exe[0] == '\0')
        strcpy(exe, "/");
    snprintf(paths_prefix, sizeof paths_prefix, "%s", exe);
    return 0;
}

int paths_get(enum paths_part part, char *buf, size_t len)
{
    static const char *const suffix[] = {
        [PATHS_PREFIX] = "",
        [PATHS_SANDBOX] = "/bin/iolab-sandbox",
        [PATHS_SHIM] = "/lib/iolab/libiolab-count.so",
        [PATHS_LIBEXEC] = "/libexec/iolab",
        [PATHS_PACK] = "/share/iolab/lessons",
        [PATHS_INCLUDE] = "/share/iolab/include",
        [PATHS_SCHEMA] = "/share/iolab/schema",
        [PATHS_TEMPLATE] = "/share/iolab/template",
    };
    int rc = paths_find_prefix();
    if (rc < 0)
        return rc;
    int n = snprintf(buf, len, "%s%s", paths_prefix, suffix[part]);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int paths_demo(const char *name, char *buf, size_t len)
{
    char dir[PATH_MAX];
    int rc = paths_get(PATHS_LIBEXEC, dir, sizeof dir);
    if (rc < 0)
        return rc;
    int n = snprintf(buf, len, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= len)
        return -ENAMETOOLONG;
    return access(buf, X_OK) == 0 ? 0 : -errno;
}

int paths_cache(const char *sub, char *buf, size_t len)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/iolab/%s", xdg, sub);
    else if (home && home[0] == '/')
        n = snprintf(buf, len, "%s/.cache/iolab/%s", home, sub);
    else
        return -ENOENT;
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void paths_installed_packs(char **dirs, size_t *n, size_t max)
{
    char base[PATH_MAX];
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(base, sizeof base, "%s/iolab/packs", xdg);
    else if (home && home[0])
        snprintf(base, sizeof base, "%s/.local/share/iolab/packs", home);
    else
        return;
    struct dirent **names = NULL;
    /* Sorted, so the listing does not depend on the directory's order. */
    int k = scandir(base, &names, NULL, alphasort);
    for (int i = 0; i < k; i++) {
        char path[PATH_MAX];
        struct stat st;
        if (names[i]->d_name[0] != '.' && *n < max &&
            snprintf(path, sizeof path, "%s/%s", base, names[i]->d_name) < (int)sizeof path &&
            stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            dirs[(*n)++] = strdup(path);
        free(names[i]);
    }
    free(names);
}
