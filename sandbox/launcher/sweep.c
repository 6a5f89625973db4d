/*
 * sweep: /proc/sysvipc lists every System V object with its creator's uid; an object is the
 * session's when it is new since the snapshot and its creator is the programs' uid. POSIX
 * objects carry no creator, so they are recognised by the IOLAB_SESSION prefix the programs were
 * given (a learner's program that ignores it is caught only in the full tier). Message queues
 * are swept only where they can be listed: /dev/mqueue mounted, or iolab running as root; the
 * reduced tier's Landlock rules refuse mq_open() altogether, so none can be left there.
 */
#include "sweep.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

/* The three System V kinds: where they are listed and how one is removed. */
struct sweep_kind {
    const char *list;
    int uid_column; /* 1-based column of cuid */
    int (*remove)(int id);
};

static int sweep_rm_shm(int id)
{
    return shmctl(id, IPC_RMID, NULL);
}
static int sweep_rm_msg(int id)
{
    return msgctl(id, IPC_RMID, NULL);
}
static int sweep_rm_sem(int id)
{
    return semctl(id, 0, IPC_RMID);
}

static const struct sweep_kind sweep_kinds[3] = {
    {.list = "/proc/sysvipc/shm", .uid_column = 10, .remove = sweep_rm_shm},
    {.list = "/proc/sysvipc/msg", .uid_column = 10, .remove = sweep_rm_msg},
    {.list = "/proc/sysvipc/sem", .uid_column = 7, .remove = sweep_rm_sem},
};

/* Calls fn(id, cuid) for every object of a kind. */
static void sweep_list(const struct sweep_kind *k, void (*fn)(int id, long cuid, void *arg),
                       void *arg)
{
    FILE *f = fopen(k->list, "re");
    if (!f)
        return;
    char line[512];
    if (!fgets(line, sizeof line, f)) {
        fclose(f);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        long col[16] = {0};
        int n = 0;
        for (char *save = NULL, *t = strtok_r(line, " \t\n", &save); t && n < 16;
             t = strtok_r(NULL, " \t\n", &save))
            col[n++] = strtol(t, NULL, 10);
        if (n >= k->uid_column)
            fn((int)col[1], col[k->uid_column - 1], arg);
    }
    fclose(f);
}

struct sweep_ctx {
    const struct sweep *s;
    int kind;
    uid_t uid;
    int removed;
};

static void sweep_note(int id, long cuid, void *arg)
{
    (void)cuid;
    struct sweep_ctx *x = arg;
    struct sweep *s = (struct sweep *)x->s;
    if (s->nids[x->kind] < SWEEP_MAX_IDS)
        s->ids[x->kind][s->nids[x->kind]++] = id;
}

void sweep_snapshot(struct sweep *s)
{
    memset(s, 0, sizeof *s);
    for (int k = 0; k < 3; k++) {
        struct sweep_ctx x = {.s = s, .kind = k};
        sweep_list(&sweep_kinds[k], sweep_note, &x);
    }
}

static void sweep_one(int id, long cuid, void *arg)
{
    struct sweep_ctx *x = arg;
    if ((uid_t)cuid != x->uid)
        return;
    for (int i = 0; i < x->s->nids[x->kind]; i++)
        if (x->s->ids[x->kind][i] == id)
            return;
    if (sweep_kinds[x->kind].remove(id) == 0)
        x->removed++;
}

static int sweep_posix(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    size_t plen = strlen(prefix);
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, plen) && unlinkat(dirfd(d), e->d_name, 0) == 0)
            n++;
    closedir(d);
    return n;
}

/*
 * POSIX message queues can only be listed through a mount of the mqueue file system, which a
 * host rarely has. A child in a private mount namespace (root only: the host's IPC namespace
 * belongs to the initial user namespace) mounts one over its own view of /tmp to list them.
 */
static int sweep_mqueue(const char *prefix)
{
    if (access("/dev/mqueue", F_OK) == 0)
        return sweep_posix("/dev/mqueue", prefix);
    if (geteuid() != 0)
        return 0;
    pid_t pid = fork();
    if (pid == 0) {
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount("mqueue", "/tmp", "mqueue", 0, NULL) < 0)
            _exit(0);
        _exit(sweep_posix("/tmp", prefix) & 0x7f);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 0;
}

int sweep_ipc(const struct sweep *s, uid_t uid, const char *prefix)
{
    struct sweep_ctx x = {.s = s, .uid = uid};
    for (x.kind = 0; x.kind < 3; x.kind++)
        sweep_list(&sweep_kinds[x.kind], sweep_one, &x);
    if (prefix && *prefix) {
        x.removed += sweep_posix("/dev/shm", prefix);
        x.removed += sweep_mqueue(prefix);
    }
    return x.removed;
}

static int sweep_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

int sweep_tree(const char *path)
{
    return nftw(path, sweep_rm, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}
