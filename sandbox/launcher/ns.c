/*
 * ns: every step of the namespace set-up can fail on its own (the uid map, the loopback, the
 * tmpfs), and the caller falls back to a lower tier, so each returns its errno and nothing here
 * prints. The uid map maps the user to itself: the programs' files, /proc entries and signals
 * keep the learner's uid as seen from the host, so iolab's sampler reads them as before.
 */
#include "ns.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
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

/* mkdir -p for the mount point of a work directory inside the private /tmp. */
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

/*
 * Binds <workdir>/tmp over /tmp. The work directory itself usually lives under /tmp, where the
 * bind would hide it, so it is bound again at its own path inside the new /tmp (the mount point
 * is an empty directory in <workdir>/tmp, removed with the work directory).
 */
static int ns_private_tmp(const char *private_tmp)
{
    char workdir[4096];
    snprintf(workdir, sizeof workdir, "%s", private_tmp);
    char *slash = strrchr(workdir, '/');
    if (!slash || slash == workdir)
        return -EINVAL;
    *slash = 0;
    int wfd = open(workdir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (wfd < 0)
        return -errno;
    int rc = 0;
    if (mount(private_tmp, "/tmp", NULL, MS_BIND | MS_REC, NULL) < 0)
        rc = -errno;
    struct stat want, now;
    if (rc == 0 && fstat(wfd, &want) == 0 &&
        (stat(workdir, &now) < 0 || now.st_ino != want.st_ino || now.st_dev != want.st_dev)) {
        char from[64];
        snprintf(from, sizeof from, "/proc/self/fd/%d", wfd);
        rc = ns_mkdirs(workdir);
        if (rc == 0 && mount(from, workdir, NULL, MS_BIND | MS_REC, NULL) < 0)
            rc = -errno;
    }
    close(wfd);
    return rc;
}

int ns_create(bool root, const char *private_tmp)
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
    if (private_tmp && (rc = ns_private_tmp(private_tmp)) < 0)
        return rc;
    /* Landlock confines by path, and mq_open() goes through the IPC namespace's internal
     * mqueue mount, which has none: a visible mount of the same file system gives the rule
     * (landlock_apply) something to name. */
    if (private_tmp && access("/dev/mqueue", F_OK) < 0 &&
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
