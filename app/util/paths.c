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

int paths_packs_dir(char *buf, size_t len)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    int n;
    if (xdg && xdg[0] == '/')
        n = snprintf(buf, len, "%s/iolab/packs", xdg);
    else if (home && home[0])
        n = snprintf(buf, len, "%s/.local/share/iolab/packs", home);
    else
        return -ENOENT;
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void paths_installed_packs(char **dirs, size_t *n, size_t max)
{
    char base[PATH_MAX];
    if (paths_packs_dir(base, sizeof base) < 0)
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

/* True when path is list[i] or lies beneath a list entry that is its own real path. */
static int paths_jail_listed(const char *path, char **list, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(list[i]);
        if (!strcmp(path, list[i]))
            return 1;
        char real[PATH_MAX];
        if (!strncmp(path, list[i], l) && path[l] == '/' && realpath(list[i], real) &&
            !strcmp(real, list[i]))
            return 1;
    }
    return 0;
}

static void paths_jail_push(const char *path, char **list, size_t *n, size_t max)
{
    if (*n >= max || path[0] != '/' || !strcmp(path, "/") || paths_jail_listed(path, list, *n))
        return;
    char *copy = strdup(path);
    if (copy)
        list[(*n)++] = copy;
}

void paths_jail_add(const char *path, int links, char **list, size_t *n, size_t max)
{
    char real[PATH_MAX];
    if (!path || !realpath(path, real))
        return; /* nothing there: nothing to show */
    paths_jail_push(path, list, n, max);
    paths_jail_push(real, list, n, max);
    DIR *d = links ? opendir(real) : NULL;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char entry[PATH_MAX], target[PATH_MAX];
        struct stat st;
        if (snprintf(entry, sizeof entry, "%s/%s", real, e->d_name) >= (int)sizeof entry ||
            lstat(entry, &st) < 0 || !S_ISLNK(st.st_mode) || !realpath(entry, target))
            continue;
        /* The directory holding the target, so that what sits beside it (and includes it by a
           relative path) is there too. */
        if (stat(target, &st) == 0 && !S_ISDIR(st.st_mode)) {
            char *slash = strrchr(target, '/');
            if (slash && slash != target)
                *slash = '\0';
        }
        paths_jail_push(target, list, n, max);
    }
    if (d)
        closedir(d);
}

void paths_jail_tree(char **list, size_t *n, size_t max)
{
    static const enum paths_part parts[] = {PATHS_PREFIX,  PATHS_LIBEXEC, PATHS_PACK,
                                            PATHS_INCLUDE, PATHS_SCHEMA,  PATHS_TEMPLATE};
    for (size_t i = 0; i < sizeof parts / sizeof *parts; i++) {
        char path[PATH_MAX];
        if (paths_get(parts[i], path, sizeof path) == 0)
            paths_jail_add(path, parts[i] == PATHS_INCLUDE, list, n, max);
    }
}
