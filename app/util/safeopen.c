/*
 * safeopen: see safeopen.h. openat2() first; on EXDEV a second look with realpath() lets an
 * absolute link that points inside the directory through (openat2 refuses every absolute link);
 * on ENOSYS the realpath() check with O_NOFOLLOW does the whole job.
 */
#include "safeopen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Deeper trees than this are left in place: each level holds a descriptor while it is emptied. */
#define SAFEOPEN_MAX_DEPTH 128

static bool safeopen_fallback;

void safeopen_force_fallback(bool on)
{
    safeopen_fallback = on;
}

static int safeopen_openat2(int dirfd, const char *rel, int flags)
{
    if (safeopen_fallback)
        return -ENOSYS;
#ifdef SYS_openat2
    struct open_how how = {
        .flags = (unsigned long long)(flags | O_CLOEXEC),
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
    };
    long fd = syscall(SYS_openat2, dirfd, rel, &how, sizeof how);
    return fd < 0 ? -errno : (int)fd;
#else
    (void)dirfd;
    (void)rel;
    (void)flags;
    return -ENOSYS;
#endif
}

/*
 * Where dir/rel really is, relative to dir's real path, in out; -EXDEV when it is not under
 * dir. rel names an existing file (realpath needs it).
 */
static int safeopen_resolve(const char *dir, const char *rel, char *out, size_t len)
{
    char root[PATH_MAX], full[PATH_MAX * 2], real[PATH_MAX];
    if (!realpath(dir, root))
        return -errno;
    snprintf(full, sizeof full, "%s/%s", dir, rel);
    if (!realpath(full, real))
        return -errno;
    size_t n = strlen(root);
    if (!strcmp(root, "/"))
        n = 0;
    if (strncmp(real, root, n) || real[n] != '/')
        return -EXDEV;
    if (snprintf(out, len, "%s", real + n + 1) >= (int)len)
        return -ENAMETOOLONG;
    return 0;
}

/*
 * A regular file with more than one name (a hard link) may be a second name of a file outside
 * the directory: /etc/shadow hard-linked into a pack by root, or by anyone where
 * fs.protected_hardlinks is off. No name of it says where the others are, so such a file is
 * refused whole (-EMLINK): iolab reads pack and learner files only when they have one name.
 */
static int safeopen_one_name(int fd)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_nlink <= 1)
        return fd;
    close(fd);
    return -EMLINK;
}

static int safeopen_beneath_any(int dirfd, const char *dir_path, const char *rel, int flags);

int safeopen_beneath_at(int dirfd, const char *dir_path, const char *rel, int flags)
{
    return safeopen_one_name(safeopen_beneath_any(dirfd, dir_path, rel, flags));
}

/* safeopen_beneath_at() without the one-name rule. */
static int safeopen_beneath_any(int dirfd, const char *dir_path, const char *rel, int flags)
{
    if (!rel[0])
        return -ENOENT;
    if (rel[0] == '/')
        return -EXDEV;
    int fd = safeopen_openat2(dirfd, rel, flags);
    /* EPERM too: a container's seccomp filter may answer so for a system call it does not know,
       and a real EPERM comes back from the fallback's own open() as well. */
    if (fd == -EPERM)
        fd = -ENOSYS;
    if (fd != -ENOSYS && fd != -EXDEV)
        return fd;
    /* Either no openat2, or a link it refused: where does the name really lead? */
    char inside[PATH_MAX];
    int rc = safeopen_resolve(dir_path, rel, inside, sizeof inside);
    if (rc < 0)
        return rc;
    if (fd == -EXDEV) {
        /* An absolute link into dir itself: open the resolved name, still kept beneath. */
        return safeopen_openat2(dirfd, inside, flags);
    }
    /* The resolved path has no link left in it; O_NOFOLLOW refuses one put at its end since. */
    fd = openat(dirfd, inside, flags | O_NOFOLLOW | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

int safeopen_beneath(const char *dir, const char *rel, int flags)
{
    int dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return -errno;
    int fd = safeopen_beneath_at(dirfd, dir, rel, flags);
    close(dirfd);
    return fd;
}

void safeopen_escape(const char *dir, const char *rel, char *buf, size_t len)
{
    buf[0] = '\0';
    char part[PATH_MAX];
    for (size_t at = 0; rel[at];) {
        at += strcspn(rel + at, "/");
        if ((size_t)snprintf(part, sizeof part, "%.*s", (int)at, rel) >= sizeof part)
            return;
        char path[PATH_MAX * 2], inside[PATH_MAX], target[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir, part);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 0 && safeopen_resolve(dir, part, inside, sizeof inside) == -EXDEV) {
            target[n] = '\0';
            snprintf(buf, len, "%s", target);
            return;
        }
        while (rel[at] == '/')
            at++;
    }
}

/* Removes name in dirfd: a file or link at once, a directory after its entries, but never a
   directory on another mount than dev's (a mount point under it is left alone, with its parent). */
static int safeopen_rm_at(int dirfd, const char *name, dev_t dev, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR || depth >= SAFEOPEN_MAX_DEPTH)
        return -errno;
    struct statx sx;
    if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE, &sx) < 0)
        return -errno;
    if ((sx.stx_attributes_mask & sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) ||
        makedev(sx.stx_dev_major, sx.stx_dev_minor) != dev)
        return -EBUSY;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    DIR *d = fdopendir(fd);
    if (!d) {
        int e = -errno;
        close(fd);
        return e;
    }
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        int r = safeopen_rm_at(fd, e->d_name, dev, depth + 1);
        if (r < 0 && !rc)
            rc = r;
    }
    closedir(d);
    if (unlinkat(dirfd, name, AT_REMOVEDIR) < 0 && errno != ENOENT && !rc)
        rc = -errno;
    return rc;
}

int safeopen_rmtree(const char *path)
{
    if (!path || !path[0])
        return -EINVAL;
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char parent[PATH_MAX];
    size_t plen = slash ? (slash == path ? 1 : (size_t)(slash - path)) : 0;
    if (plen >= sizeof parent)
        return -ENAMETOOLONG;
    snprintf(parent, sizeof parent, "%.*s", (int)plen, path);
    if (!base[0] || !strcmp(base, ".") || !strcmp(base, ".."))
        return -EINVAL;
    int dirfd = open(slash ? parent : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0)
        return -errno;
    struct stat st;
    int rc = fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
    if (rc == 0)
        rc = S_ISDIR(st.st_mode) ? safeopen_rm_at(dirfd, base, st.st_dev, 0) : -ENOTDIR;
    close(dirfd);
    return rc;
}
