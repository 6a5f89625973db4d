/*
 * cgroup: see cgroup.h. Where a jail's cgroup goes is found from /proc/self/mountinfo (which
 * hierarchies are mounted where) and /proc/self/cgroup (where this process is in each), never
 * from a fixed path: a container mounts them elsewhere, a desktop has only cgroup2, and the
 * machines this project is tested on have v1 controllers beside a cgroup2 without any.
 *
 * cgroup v2 refuses to enable a controller below a cgroup that has processes of its own (the
 * root excepted), so the iolab parent goes where that holds: under this process's cgroup when it
 * may enable them there, else under its parent (a user manager's app.slice, say), else, as root,
 * under the root. cgroup v1 has no such rule: the parent goes under this process's own cgroup in
 * the pids and in the memory hierarchy, so that whatever limits the environment set around
 * iolab still hold around its jails.
 */
#include "cgroup.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CGROUP_PARENT  "iolab"
#define CGROUP_KILL_MS 3000 /* for what is left in a jail to die before its rmdir */

static const char *const cgroup_ctl_names[CGROUP_NCTL] = {
    [CGROUP_PIDS] = "pids",
    [CGROUP_MEMORY] = "memory",
};

/* Where the iolab parent is (or would be) for each controller. */
struct cgroup_place {
    int version;
    char dir[CGROUP_NCTL][4096]; /* "": that controller cannot be had */
};

void cgroup_init(struct cgroup *cg)
{
    memset(cg, 0, sizeof *cg);
    for (int i = 0; i < CGROUP_NCTL; i++)
        cg->dir[i] = cg->parent[i] = cg->procs[i] = cg->home[i] = -1;
}

/* ---- small file helpers (cgroup files are tiny and read whole) ---- */

static int cgroup_read_at(int dirfd, const char *dir, const char *file, char *buf, size_t len)
{
    char path[4200];
    int fd;
    if (dirfd >= 0) {
        fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
    } else {
        snprintf(path, sizeof path, "%s/%s", dir, file);
        fd = open(path, O_RDONLY | O_CLOEXEC);
    }
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, len - 1);
    int err = errno;
    close(fd);
    if (n < 0)
        return -err;
    buf[n] = '\0';
    return 0;
}

static int cgroup_write_at(int dirfd, const char *dir, const char *file, const char *text)
{
    char path[4200];
    int fd;
    if (dirfd >= 0) {
        fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC);
    } else {
        snprintf(path, sizeof path, "%s/%s", dir, file);
        fd = open(path, O_WRONLY | O_CLOEXEC);
    }
    if (fd < 0)
        return -errno;
    ssize_t n = write(fd, text, strlen(text));
    int err = errno;
    close(fd);
    return n < 0 ? -err : 0;
}

/* True when the space-separated list holds word. */
static bool cgroup_has_word(const char *list, const char *word, const char *seps)
{
    size_t wl = strlen(word);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, seps);
        if (n == wl && !strncmp(p, word, wl))
            return true;
        p += n;
        p += strspn(p, seps);
    }
    return false;
}

/* The value after "key " on one of the lines of text, or 0. */
static uint64_t cgroup_key(const char *text, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = text; p && *p;) {
        if (!strncmp(p, key, kl) && p[kl] == ' ')
            return strtoull(p + kl + 1, NULL, 10);
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

/* ---- where the hierarchies are ---- */

/* This process's path in the v1 hierarchy of ctl ("pids", "memory"), or in v2 (ctl NULL). */
static int cgroup_own_path(const char *ctl, char *out, size_t len)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    if (!f)
        return -errno;
    char line[4400];
    int rc = -ENOENT;
    while (rc < 0 && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2)
            continue;
        *c2 = '\0';
        bool match = ctl ? cgroup_has_word(c1 + 1, ctl, ",") : !strcmp(line, "0:");
        if (match) {
            snprintf(out, len, "%s", c2 + 1);
            rc = 0;
        }
    }
    fclose(f);
    return rc;
}

/*
 * The directory of this process's cgroup in the hierarchy mounted with fstype (and, for v1, the
 * controller ctl among its super options): mount point plus the path below the mount's root.
 */
static int cgroup_own_dir(const char *fstype, const char *ctl, char *out, size_t len)
{
    char own[4096];
    if (cgroup_own_path(ctl, own, sizeof own) < 0)
        return -ENOENT;
    FILE *f = fopen("/proc/self/mountinfo", "re");
    if (!f)
        return -errno;
    char line[8192];
    int rc = -ENOENT;
    while (rc < 0 && fgets(line, sizeof line, f)) {
        /* id parent maj:min root mountpoint options [optional...] - fstype source superopts */
        char root[4096], mnt[4096], type[64], super[1024];
        char *dash = strstr(line, " - ");
        if (!dash || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) != 2 ||
            sscanf(dash + 3, "%63s %*s %1023s", type, super) != 2 || strcmp(type, fstype))
            continue;
        if (ctl && !cgroup_has_word(super, ctl, ","))
            continue;
        if (strchr(mnt, '\\') || strchr(root, '\\'))
            continue; /* an escaped name: not where iolab will look */
        const char *below = own;
        size_t rl = strlen(root);
        if (strcmp(root, "/")) {
            if (strncmp(own, root, rl) || (own[rl] && own[rl] != '/'))
                continue; /* this process is outside what that mount shows */
            below = own + rl;
        }
        int n = snprintf(out, len, "%s%s", mnt, !strcmp(below, "/") ? "" : below);
        rc = n > 0 && (size_t)n < len ? 0 : -ENAMETOOLONG;
    }
    fclose(f);
    return rc;
}

/* Enables the wanted controllers below dir (cgroup v2); returns the mask that is enabled. */
static unsigned cgroup_v2_enable(const char *dir, unsigned want)
{
    char have[512] = "";
    cgroup_read_at(-1, dir, "cgroup.subtree_control", have, sizeof have);
    unsigned got = 0;
    for (int i = 0; i < CGROUP_NCTL; i++) {
        if (!(want & (1u << i)))
            continue;
        char plus[32];
        snprintf(plus, sizeof plus, "+%s", cgroup_ctl_names[i]);
        if (cgroup_has_word(have, cgroup_ctl_names[i], " \n") ||
            cgroup_write_at(-1, dir, "cgroup.subtree_control", plus) == 0)
            got |= 1u << i;
    }
    return got;
}

/* cgroup v2: a candidate directory D that can hold the iolab parent with its controllers. */
static bool cgroup_v2_try(const char *d, struct cgroup_place *pl)
{
    char avail[512] = "";
    if (access(d, W_OK) < 0 || cgroup_read_at(-1, d, "cgroup.controllers", avail, sizeof avail) < 0)
        return false;
    unsigned want = 0;
    for (int i = 0; i < CGROUP_NCTL; i++)
        if (cgroup_has_word(avail, cgroup_ctl_names[i], " \n"))
            want |= 1u << i;
    unsigned got = want ? cgroup_v2_enable(d, want) : 0;
    if (!got)
        return false;
    char parent[4096];
    if (snprintf(parent, sizeof parent, "%s/" CGROUP_PARENT, d) >= (int)sizeof parent ||
        (mkdir(parent, 0755) < 0 && errno != EEXIST))
        return false;
    got &= cgroup_v2_enable(parent, got);
    if (!got)
        return false;
    pl->version = 2;
    for (int i = 0; i < CGROUP_NCTL; i++)
        if (got & (1u << i))
            snprintf(pl->dir[i], sizeof pl->dir[i], "%s", parent);
    return true;
}

static bool cgroup_find_v2(struct cgroup_place *pl)
{
    char own[4096], mnt[4096], up[4096];
    if (cgroup_own_dir("cgroup2", NULL, own, sizeof own) < 0)
        return false;
    if (cgroup_v2_try(own, pl))
        return true;
    snprintf(up, sizeof up, "%s", own);
    char *slash = strrchr(up, '/');
    /* The parent, unless own is already the mount point (the root cgroup). */
    if (cgroup_own_path(NULL, mnt, sizeof mnt) == 0 && strcmp(mnt, "/") && slash && slash != up) {
        *slash = '\0';
        if (cgroup_v2_try(up, pl))
            return true;
    }
    if (geteuid() != 0)
        return false;
    /* As root: the root cgroup, which may have processes and still hand controllers down. */
    snprintf(up, sizeof up, "%s", own);
    if (cgroup_own_path(NULL, mnt, sizeof mnt) == 0 && strcmp(mnt, "/")) {
        size_t ol = strlen(own), ml = strlen(mnt);
        if (ol > ml && !strcmp(own + ol - ml, mnt)) {
            up[ol - ml] = '\0';
            return cgroup_v2_try(up, pl);
        }
    }
    return false;
}

static bool cgroup_find_v1(struct cgroup_place *pl)
{
    bool any = false;
    for (int i = 0; i < CGROUP_NCTL; i++) {
        char own[4000];
        if (cgroup_own_dir("cgroup", cgroup_ctl_names[i], own, sizeof own) < 0 ||
            access(own, W_OK) < 0)
            continue;
        snprintf(pl->dir[i], sizeof pl->dir[i], "%s/" CGROUP_PARENT, own);
        if (mkdir(pl->dir[i], 0755) < 0 && errno != EEXIST) {
            pl->dir[i][0] = '\0';
            continue;
        }
        any = true;
    }
    if (any)
        pl->version = 1;
    return any;
}

/* v2 first (one hierarchy, events for both), then v1. IOLAB_SANDBOX_CGROUP=off: none. */
static bool cgroup_find(struct cgroup_place *pl)
{
    memset(pl, 0, sizeof *pl);
    const char *env = getenv("IOLAB_SANDBOX_CGROUP");
    if (env && !strcmp(env, "off"))
        return false;
    if (cgroup_find_v2(pl))
        return true;
    memset(pl, 0, sizeof *pl);
    return cgroup_find_v1(pl);
}

void cgroup_probe(struct cgroup_probe *p)
{
    struct cgroup_place pl;
    memset(p, 0, sizeof *p);
    if (!cgroup_find(&pl))
        return;
    p->version = pl.version;
    p->pids = pl.dir[CGROUP_PIDS][0] != '\0';
    p->memory = pl.dir[CGROUP_MEMORY][0] != '\0';
}

/* ---- a jail's cgroup ---- */

/* The start time of pid in clock ticks since boot (/proc/PID/stat field 22), or 0. */
static unsigned long long cgroup_start_time(int pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    unsigned long long start = 0;
    /* After the name: state is field 3, the start time field 22. */
    if (!p || sscanf(p + 2,
                     "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d "
                     "%*d %*d %llu",
                     &start) != 1)
        return 0;
    return start;
}

/* This process's PID namespace, by inode: part of a jail's name, since pids are per namespace. */
static unsigned long long cgroup_pid_ns(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long long)st.st_ino : 0;
}

/* SIGKILLs every process listed in dir's cgroup.procs; returns how many were listed. */
static int cgroup_kill_members(int dirfd, const char *dir)
{
    char buf[65536];
    if (cgroup_read_at(dirfd, dir, "cgroup.procs", buf, sizeof buf) < 0)
        return 0;
    int n = 0;
    for (char *p = buf; *p;) {
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p)
            break;
        if (pid > 0 && pid != getpid()) { /* a launcher that could not leave stays alive */
            kill((pid_t)pid, SIGKILL);
            n++;
        }
        p = end + strspn(end, "\n");
    }
    return n;
}

static void cgroup_nap(void)
{
    nanosleep(&(struct timespec){0, 10000000}, NULL);
}

/* Stops forks in dir, kills what is in it and removes it, waiting at most ms. 0 or -errno. */
static int cgroup_remove(int parentfd, const char *parent, const char *name, int ms)
{
    char dir[4200] = "";
    if (parent)
        snprintf(dir, sizeof dir, "%s/%s", parent, name);
    int dfd = parentfd >= 0 ? openat(parentfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC)
                            : open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return errno == ENOENT ? 0 : -errno;
    /* No new process can start in it from here on; then whatever is there dies. */
    cgroup_write_at(dfd, NULL, "pids.max", "0");
    cgroup_write_at(dfd, NULL, "cgroup.kill", "1");
    int rc = -EBUSY;
    for (int waited = 0; waited <= ms; waited += 10) {
        cgroup_kill_members(dfd, NULL);
        if ((parentfd >= 0 ? unlinkat(parentfd, name, AT_REMOVEDIR) : rmdir(dir)) == 0 ||
            errno == ENOENT) {
            rc = 0;
            break;
        }
        rc = -errno;
        if (errno != EBUSY)
            break;
        cgroup_nap();
    }
    close(dfd);
    return rc;
}

/* Removes the jails under parent whose creator is gone (its pid dead, or reused since). */
static void cgroup_remove_stale(const char *parent)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid;
        unsigned long long start;
        char tail;
        unsigned long long ns;
        if (sscanf(e->d_name, "iolab-%d-%llu-%llu%c", &pid, &start, &ns, &tail) != 3 || pid <= 0)
            continue;
        /* A pid means something only in its own PID namespace: another's jails are theirs. */
        if (ns != cgroup_pid_ns())
            continue;
        if (cgroup_start_time(pid) == start)
            continue; /* its creator is alive and removes it itself */
        cgroup_remove(dirfd(d), parent, e->d_name, 200);
    }
    closedir(d);
}

/*
 * The file a launcher writes "0" into to move itself. cgroup v1's "tasks" moves the calling
 * thread alone (the launcher has no other), which the kernel does without its global
 * threadgroup lock: "cgroup.procs" takes that lock and waits for an RCU grace period, 12 ms a
 * move measured here, on every program start. v2 has only cgroup.procs for a domain cgroup.
 */
static const char *cgroup_move_file(int version)
{
    return version == 1 ? "tasks" : "cgroup.procs";
}

/* The move file of this process's own cgroup in the hierarchy of controller i (cgroup_leave). */
static int cgroup_open_home(int version, int i)
{
    char own[4000], path[4100];
    int rc = version == 2 ? cgroup_own_dir("cgroup2", NULL, own, sizeof own)
                          : cgroup_own_dir("cgroup", cgroup_ctl_names[i], own, sizeof own);
    if (rc < 0)
        return rc;
    snprintf(path, sizeof path, "%s/%s", own, cgroup_move_file(version));
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    return fd < 0 ? -errno : fd;
}

/* Writes the limits into the jail's directory for controller i. */
static void cgroup_set_limits(struct cgroup *cg, int i, long pids_max, long memory_mb)
{
    char v[32];
    if (i == CGROUP_PIDS && pids_max > 0) {
        snprintf(v, sizeof v, "%ld", pids_max);
        if (cgroup_write_at(cg->dir[i], NULL, "pids.max", v) == 0)
            cg->pids_max = pids_max;
    }
    if (i == CGROUP_MEMORY && memory_mb > 0) {
        snprintf(v, sizeof v, "%lld", (long long)memory_mb << 20);
        const char *limit = cg->version == 2 ? "memory.max" : "memory.limit_in_bytes";
        if (cgroup_write_at(cg->dir[i], NULL, limit, v) == 0)
            cg->memory_mb = memory_mb;
        /* Swap would only stretch the cap: memory plus swap gets the same limit. */
        if (cg->version == 2)
            cgroup_write_at(cg->dir[i], NULL, "memory.swap.max", "0");
        else
            cgroup_write_at(cg->dir[i], NULL, "memory.memsw.limit_in_bytes", v);
    }
}

int cgroup_create(struct cgroup *cg, long pids_max, long memory_mb, char *why, size_t whylen)
{
    cgroup_init(cg);
    struct cgroup_place pl;
    if (!cgroup_find(&pl)) {
        snprintf(why, whylen, "no cgroup this user may write offers the pids or memory controller");
        return -ENOENT;
    }
    cg->version = pl.version;
    cg->owner = true;
    snprintf(cg->name, sizeof cg->name, "iolab-%d-%llu-%llu", (int)getpid(),
             cgroup_start_time((int)getpid()), cgroup_pid_ns());
    int rc = 0;
    for (int i = 0; i < CGROUP_NCTL && rc == 0; i++) {
        if (!pl.dir[i][0])
            continue;
        if (i == 0 || strcmp(pl.dir[i], pl.dir[0]))
            cgroup_remove_stale(pl.dir[i]);
        if (snprintf(cg->path[i], sizeof cg->path[i], "%.4000s/%s", pl.dir[i], cg->name) >=
            (int)sizeof cg->path[i]) {
            rc = -ENAMETOOLONG;
            snprintf(why, whylen, "the cgroup path under %.200s is too long", pl.dir[i]);
            break;
        }
        cg->parent[i] = open(pl.dir[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
        bool shared = i > 0 && !strcmp(cg->path[i], cg->path[0]); /* v2: one directory */
        if (cg->parent[i] < 0 || (!shared && mkdirat(cg->parent[i], cg->name, 0755) < 0) ||
            (cg->dir[i] = openat(cg->parent[i], cg->name, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0 ||
            (cg->procs[i] =
                 openat(cg->dir[i], cgroup_move_file(cg->version), O_WRONLY | O_CLOEXEC)) < 0 ||
            (cg->home[i] = cgroup_open_home(cg->version, i)) < 0) {
            rc = cg->home[i] < -1 ? cg->home[i] : -errno;
            snprintf(why, whylen, "cannot create the cgroup %s: %s", cg->path[i], strerror(-rc));
            break;
        }
        cgroup_set_limits(cg, i, pids_max, memory_mb);
    }
    if (rc < 0) {
        cgroup_destroy(cg);
        cgroup_init(cg);
    }
    return rc;
}

/* A jail's limit as a number: "max" and the huge "no limit" of v1 are 0. */
static long cgroup_read_limit(int dirfd, const char *file, long unit)
{
    char buf[64];
    if (cgroup_read_at(dirfd, NULL, file, buf, sizeof buf) < 0 || !isdigit((unsigned char)buf[0]))
        return 0;
    unsigned long long v = strtoull(buf, NULL, 10) / (unsigned long long)unit;
    return v > (1ull << 40) ? 0 : (long)v;
}

int cgroup_open(struct cgroup *cg, const char *const *paths, int npaths)
{
    cgroup_init(cg);
    for (int k = 0; k < npaths; k++) {
        const char *base = strrchr(paths[k], '/');
        if (!base || strncmp(base + 1, "iolab-", 6))
            return -EINVAL;
        int fd = open(paths[k], O_PATH | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0) {
            int e = -errno;
            cgroup_destroy(cg);
            return e;
        }
        struct stat st;
        bool v2 = fstatat(fd, "cgroup.controllers", &st, 0) == 0;
        bool took = false;
        for (int i = 0; i < CGROUP_NCTL; i++) {
            const char *marker = i == CGROUP_PIDS ? "pids.max"
                                 : v2             ? "memory.max"
                                                  : "memory.limit_in_bytes";
            if (cg->dir[i] >= 0 || fstatat(fd, marker, &st, 0) < 0)
                continue;
            cg->dir[i] = took ? dup(fd) : fd;
            took = true;
            cg->version = v2 ? 2 : 1;
            snprintf(cg->path[i], sizeof cg->path[i], "%s", paths[k]);
            cg->procs[i] = openat(cg->dir[i], cgroup_move_file(cg->version), O_WRONLY | O_CLOEXEC);
            if (cg->procs[i] < 0 || (cg->home[i] = cgroup_open_home(cg->version, i)) < 0) {
                int e = cg->procs[i] < 0 ? -errno : cg->home[i];
                cgroup_destroy(cg);
                return e;
            }
            if (i == CGROUP_PIDS)
                cg->pids_max = cgroup_read_limit(cg->dir[i], "pids.max", 1);
            else
                cg->memory_mb = cgroup_read_limit(cg->dir[i], marker, 1L << 20);
        }
        if (!took)
            close(fd);
    }
    return 0;
}

/* Writes the calling process into each distinct cgroup.procs of fds. */
static int cgroup_move(const struct cgroup *cg, const int *fds)
{
    for (int i = 0; i < CGROUP_NCTL; i++) {
        if (fds[i] < 0 || (i > 0 && !strcmp(cg->path[i], cg->path[0])))
            continue;
        /* "0" is the writer itself, in whatever PID namespace it is. */
        if (write(fds[i], "0", 1) < 0)
            return -errno;
    }
    return 0;
}

int cgroup_enter(const struct cgroup *cg)
{
    return cgroup_move(cg, cg->procs);
}

int cgroup_leave(const struct cgroup *cg)
{
    return cgroup_move(cg, cg->home);
}

void cgroup_events(const struct cgroup *cg, struct cgroup_events *ev)
{
    char buf[1024];
    memset(ev, 0, sizeof *ev);
    if (cg->dir[CGROUP_PIDS] >= 0 &&
        cgroup_read_at(cg->dir[CGROUP_PIDS], NULL, "pids.events", buf, sizeof buf) == 0)
        ev->pids_max = cgroup_key(buf, "max");
    int m = cg->dir[CGROUP_MEMORY];
    if (m < 0)
        return;
    const char *file = cg->version == 2 ? "memory.events" : "memory.oom_control";
    if (cgroup_read_at(m, NULL, file, buf, sizeof buf) == 0 && strstr(buf, "oom_kill "))
        ev->oom_kill = cgroup_key(buf, "oom_kill");
    else if (cg->version == 1 && cgroup_read_at(m, NULL, "memory.failcnt", buf, sizeof buf) == 0)
        ev->oom_kill = strtoull(buf, NULL, 10); /* kernels before 4.13: the limit's hits */
}

enum cgroup_limit cgroup_explain(const struct cgroup *cg, const struct cgroup_events *before,
                                 const struct cgroup_events *after, bool alone, char *text,
                                 size_t len)
{
    if (after->oom_kill > before->oom_kill) {
        snprintf(text, len,
                 "was stopped: the jail used up its memory limit (%ld MiB for all its processes, "
                 "cgroup %s): "
                 "the kernel's OOM killer ended a process",
                 cg->memory_mb, cg->version == 2 ? "memory.max" : "memory.limit_in_bytes");
        return CGROUP_LIMIT_MEMORY;
    }
    if (after->pids_max > before->pids_max) {
        snprintf(text, len,
                 alone ? "reached the jail's process limit (%ld processes and threads, cgroup "
                         "pids.max): a fork or a new thread failed with EAGAIN"
                       : "failed while its jail was at its process limit (%ld processes and "
                         "threads of all its programs, cgroup pids.max): a fork or a new thread "
                         "in the jail failed with EAGAIN",
                 cg->pids_max);
        return CGROUP_LIMIT_PIDS;
    }
    if (len)
        text[0] = '\0';
    return CGROUP_LIMIT_NONE;
}

const char *cgroup_limit_name(enum cgroup_limit l)
{
    return l == CGROUP_LIMIT_PIDS ? "pids" : l == CGROUP_LIMIT_MEMORY ? "memory" : NULL;
}

/* A path as a JSON string body: quotes and backslashes escaped, control bytes dropped. */
static void cgroup_json_str(char *out, size_t len, const char *s)
{
    size_t n = 0;
    for (; *s && n + 3 < len; s++) {
        if ((unsigned char)*s < 0x20)
            continue;
        if (*s == '"' || *s == '\\')
            out[n++] = '\\';
        out[n++] = *s;
    }
    out[n] = '\0';
}

int cgroup_json(const struct cgroup *cg, char *buf, size_t len)
{
    char p[CGROUP_NCTL][8300];
    for (int i = 0; i < CGROUP_NCTL; i++)
        cgroup_json_str(p[i], sizeof p[i], cg->path[i]);
    int n = snprintf(buf, len,
                     "{\"version\":%d,\"pids\":\"%s\",\"memory\":\"%s\",\"pids_max\":%ld,"
                     "\"memory_mb\":%ld}",
                     cg->version, p[CGROUP_PIDS], p[CGROUP_MEMORY], cg->pids_max, cg->memory_mb);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

void cgroup_destroy(struct cgroup *cg)
{
    for (int i = 0; i < CGROUP_NCTL; i++) {
        bool shared = i > 0 && cg->path[i][0] && !strcmp(cg->path[i], cg->path[0]);
        if (cg->owner && cg->parent[i] >= 0 && !shared)
            cgroup_remove(cg->parent[i], NULL, cg->name, CGROUP_KILL_MS);
        if (cg->procs[i] >= 0)
            close(cg->procs[i]);
        if (cg->home[i] >= 0)
            close(cg->home[i]);
        if (cg->dir[i] >= 0)
            close(cg->dir[i]);
        if (cg->parent[i] >= 0)
            close(cg->parent[i]);
        cg->procs[i] = cg->dir[i] = cg->parent[i] = cg->home[i] = -1;
    }
    cg->owner = false;
}

int cgroup_take_uid(unsigned *uid, int *lockfd)
{
    const char *dir = "/run/iolab-sandbox";
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return -errno;
    for (unsigned u = CGROUP_UID_FIRST; u <= CGROUP_UID_LAST; u++) {
        char path[96];
        snprintf(path, sizeof path, "%s/uid-%u.lock", dir, u);
        int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
            continue;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
            *uid = u;
            *lockfd = fd;
            return 0;
        }
        close(fd);
    }
    return -EAGAIN;
}
