/*
 * ns: every step of the namespace set-up can fail on its own (the uid map, the loopback, the
 * tmpfs), and the caller falls back to a lower tier, so each returns its errno and nothing here
 * prints. The uid map maps the user to itself: the programs' files, /proc entries and signals
 * keep the learner's uid as seen from the host, so iolab's sampler reads them as before.
 */
#include "ns.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

static int ns_write(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, text, strlen(text));
    int rc = n == (ssize_t)strlen(text) ? 0 : n < 0 ? -errno : -EIO;
    close(fd);
    return rc;
}

static int ns_user(void)
{
    uid_t uid = geteuid();
    gid_t gid = getegid();
    if (unshare(CLONE_NEWUSER) < 0)
        return -EUSERS;
    char map[64];
    snprintf(map, sizeof map, "%u %u 1\n", uid, uid);
    if (ns_write("/proc/self/uid_map", map) < 0)
        return -EUSERS;
    /* An unprivileged gid map is only accepted once setgroups() is denied. */
    if (ns_write("/proc/self/setgroups", "deny") < 0)
        return -EUSERS;
    snprintf(map, sizeof map, "%u %u 1\n", gid, gid);
    if (ns_write("/proc/self/gid_map", map) < 0)
        return -EUSERS;
    return 0;
}

static int ns_loopback_up(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    struct ifreq ifr = {0};
    strcpy(ifr.ifr_name, "lo");
    int rc = ioctl(fd, SIOCGIFFLAGS, &ifr);
    if (rc == 0) {
        ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
        rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
    }
    rc = rc < 0 ? -errno : 0;
    close(fd);
    return rc;
}

/* mkdir -p for a mount point inside the private /tmp; an existing one (already shown by an
 * earlier bind, even a read-only one) is fine: mkdir() reports EEXIST before EROFS. */
static int ns_mkdirs(const char *path)
{
    char p[4096];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
        *s = 0;
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            return -errno;
        *s = '/';
    }
    return mkdir(p, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

/* A mount point of the same kind as what is shown there: a directory, or an empty file. */
static int ns_mount_point(const char *path, bool dir)
{
    if (dir)
        return ns_mkdirs(path);
    char parent[4096];
    snprintf(parent, sizeof parent, "%s", path);
    char *slash = strrchr(parent, '/');
    if (slash && slash != parent) {
        *slash = 0;
        int rc = ns_mkdirs(parent);
        if (rc < 0)
            return rc;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0)
        return errno == EEXIST || errno == EROFS || errno == EISDIR ? 0 : -errno;
    close(fd);
    return 0;
}

/* What statvfs() says of a mount, as the flags a remount must keep: in a user namespace the
 * kernel refuses to clear nosuid, nodev, noexec or an atime flag that the host's mount has. */
static unsigned long ns_locked_flags(const char *path)
{
    struct statvfs sv;
    if (statvfs(path, &sv) < 0)
        return 0;
    static const struct {
        unsigned long st, ms;
    } map[] = {{ST_NOSUID, MS_NOSUID},         {ST_NODEV, MS_NODEV},
               {ST_NOEXEC, MS_NOEXEC},         {ST_NOATIME, MS_NOATIME},
               {ST_NODIRATIME, MS_NODIRATIME}, {ST_RELATIME, MS_RELATIME}};
    unsigned long ms = 0;
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (sv.f_flag & map[i].st)
            ms |= map[i].ms;
    return ms;
}

/* Binds what fd names (opened before /tmp was replaced) at path, then makes it read-only. */
static int ns_bind_ro(int fd, const char *path)
{
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    int rc = ns_mount_point(path, S_ISDIR(st.st_mode));
    if (rc < 0)
        return rc;
    char from[64];
    snprintf(from, sizeof from, "/proc/self/fd/%d", fd);
    if (mount(from, path, NULL, MS_BIND | MS_REC, NULL) < 0)
        return -errno;
    unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV;
    if (mount(NULL, path, NULL, flags | ns_locked_flags(path), NULL) < 0)
        return -errno;
    return 0;
}

/* True when path is what fd names (same inode), and writable when fd's mount is. */
static bool ns_same(int fd, const char *path)
{
    struct stat want, now;
    struct statvfs was, is;
    if (fstat(fd, &want) < 0 || stat(path, &now) < 0 || now.st_ino != want.st_ino ||
        now.st_dev != want.st_dev)
        return false;
    return fstatvfs(fd, &was) < 0 || statvfs(path, &is) < 0 ||
           (is.f_flag & ST_RDONLY) == (was.f_flag & ST_RDONLY);
}

/*
 * Mounts a tmpfs of fs->tmp_mb MiB on /tmp: the jail's own /tmp, which no program can grow past
 * its size (ENOSPC) and which vanishes with the mount namespace. The host's /tmp is hidden, so
 * the work directory and the ro paths, which usually live under it, are opened first and bound
 * again at their own paths inside the new /tmp (the mount points are directories in the tmpfs).
 * The ro paths come first and the work directory last, so that a work directory inside one of
 * them stays writable.
 */
static int ns_private_tmp(const struct ns_fs *fs)
{
    int wfd = open(fs->workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (wfd < 0)
        return -errno;
    int ro_fd[64];
    char *ro_real[64] = {0};
    int nro = fs->nro < 64 ? fs->nro : 64, rc = 0;
    for (int i = 0; i < nro; i++) {
        /* A path that does not exist on the host is left out: there is nothing to show. */
        ro_fd[i] = open(fs->ro[i], O_PATH | O_CLOEXEC);
        ro_real[i] = ro_fd[i] >= 0 ? realpath(fs->ro[i], NULL) : NULL;
    }
    char opts[64];
    snprintf(opts, sizeof opts, "mode=1777,size=%ldm", fs->tmp_mb > 0 ? fs->tmp_mb : 1);
    if (mount("iolab-tmp", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, opts) < 0)
        rc = -errno;
    for (int i = 0; rc == 0 && i < nro; i++) {
        if (ro_fd[i] < 0)
            continue;
        /* Where its links lead first: a path as given that holds a link (say /tmp/x/lessons
           -> ../src/lessons, inside an earlier read-only bind) then resolves, and needs none. */
        if (ro_real[i] && !ns_same(ro_fd[i], ro_real[i]))
            rc = ns_bind_ro(ro_fd[i], ro_real[i]);
        if (rc == 0 && !ns_same(ro_fd[i], fs->ro[i]))
            rc = ns_bind_ro(ro_fd[i], fs->ro[i]);
    }
    if (rc == 0 && !ns_same(wfd, fs->workdir)) {
        char from[64];
        snprintf(from, sizeof from, "/proc/self/fd/%d", wfd);
        rc = ns_mkdirs(fs->workdir);
        if (rc == 0 && mount(from, fs->workdir, NULL, MS_BIND | MS_REC, NULL) < 0)
            rc = -errno;
    }
    for (int i = 0; i < nro; i++) {
        if (ro_fd[i] >= 0)
            close(ro_fd[i]);
        free(ro_real[i]);
    }
    close(wfd);
    return rc;
}

int ns_create(bool root, const struct ns_fs *fs)
{
    int rc = root ? 0 : ns_user();
    if (rc < 0)
        return rc;
    if (unshare(CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS) < 0)
        return -errno;
    if ((rc = ns_loopback_up()) < 0)
        return rc;
    /* Private propagation first, or the mounts below would appear on the host. */
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
        return -errno;
    if (mount("iolab-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=256m") < 0)
        return -errno;
    /* POSIX message queues live in the IPC namespace; mount them where a host has the dir. */
    if (access("/dev/mqueue", F_OK) == 0 &&
        mount("mqueue", "/dev/mqueue", "mqueue", MS_NOSUID | MS_NODEV, NULL) < 0)
        return -errno;
    if (fs && fs->workdir && (rc = ns_private_tmp(fs)) < 0)
        return rc;
    /* Landlock confines by path, and mq_open() goes through the IPC namespace's internal
     * mqueue mount, which has none: a visible mount of the same file system gives the rule
     * (landlock_apply) something to name. */
    if (fs && fs->workdir && access("/dev/mqueue", F_OK) < 0 &&
        ((mkdir("/tmp/.mqueue", 01777) < 0 && errno != EEXIST) ||
         mount("mqueue", "/tmp/.mqueue", "mqueue", MS_NOSUID | MS_NODEV, NULL) < 0))
        return -errno;
    return 0;
}

pid_t ns_fork_init(void)
{
    /* A raw clone() without CLONE_VM behaves as fork() (bubblewrap does the same). It skips
     * glibc's fork handlers, which only matter with other threads, and there are none here. */
    return (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, 0);
}

int ns_join(pid_t pid, bool root)
{
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd < 0)
        return -errno;
    int flags = CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWNS;
    if (!root)
        flags |= CLONE_NEWUSER;
    int rc = setns(fd, flags) < 0 ? -errno : 0;
    close(fd);
    return rc;
}
