/*
 * leftovers: what the programs left behind is removed by the holder. An object is removed because
 * the programs are known to have created it, never because of who owns it or when it appeared:
 * outside the full tier the host's IPC tables are shared with the learner's other programs, which
 * run under the same uid (as root, iolab's programs all run as 65534, like every other session's
 * and the nobody user's).
 *
 * Model: the counting shim appends each object a program creates to the registry in the work
 * directory (iolab_ipclog.h). After the last program is dead the holder reads it and removes
 *  - a System V id when /proc/sysvipc still lists it with the programs' uid as its creator (an
 *    id freed and reused by someone else is left alone),
 *  - a POSIX name when its file in /dev/shm or the mqueue file system is owned by that uid,
 *  - and, as a second net, every POSIX name starting with IOLAB_SESSION, the prefix the programs
 *    were told to use (it holds iolab's pid, so no other session's objects carry it).
 * The registry is written by the programs, so it is read as untrusted input: bounded, parsed
 * strictly, names restricted to one path component, and each removal checked against the uid.
 * What escapes it (no shim: static binaries, an emptied environment; raw syscall()) is stated in
 * README.md.
 *
 * Message queues are swept only where they can be listed or named: /dev/mqueue mounted, iolab
 * running as root, or (recorded names only) with the programs' own rights. The reduced tier's
 * Landlock rules refuse mq_open() altogether, so none can be left there.
 */
#include "leftovers.h"

#include <iolab_ipclog.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <mqueue.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LEFTOVERS_MAX_IDS   1024  /* System V ids recorded per kind */
#define LEFTOVERS_MAX_NAMES 64    /* POSIX names recorded per kind */
#define LEFTOVERS_MAX_LINES 65536 /* lines of the registry read at most */

/* What the registry records, checked and deduplicated. */
struct leftovers_reg {
    int ids[3][LEFTOVERS_MAX_IDS]; /* IOLAB_IPC_SHM, _MSG, _SEM */
    int nids[3];
    char names[2][LEFTOVERS_MAX_NAMES][IOLAB_IPC_NAME_MAX + 1]; /* IOLAB_IPC_PSHM, _PMQ */
    int nnames[2];
};

/* The three System V kinds: where they are listed and how one is removed. */
struct leftovers_kind {
    const char *list;
    int uid_column; /* 1-based column of cuid */
    int (*remove)(int id);
};

static int leftovers_rm_shm(int id)
{
    return shmctl(id, IPC_RMID, NULL);
}
static int leftovers_rm_msg(int id)
{
    return msgctl(id, IPC_RMID, NULL);
}
static int leftovers_rm_sem(int id)
{
    return semctl(id, 0, IPC_RMID);
}

static const struct leftovers_kind leftovers_kinds[3] = {
    {.list = "/proc/sysvipc/shm", .uid_column = 10, .remove = leftovers_rm_shm},
    {.list = "/proc/sysvipc/msg", .uid_column = 10, .remove = leftovers_rm_msg},
    {.list = "/proc/sysvipc/sem", .uid_column = 7, .remove = leftovers_rm_sem},
};

/* Calls fn(id, cuid) for every object of a kind. */
static void leftovers_list(const struct leftovers_kind *k, void (*fn)(int id, long cuid, void *arg),
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

int leftovers_begin(struct leftovers *s, const char *workdir)
{
    int n = snprintf(s->log, sizeof s->log, "%s/%s", workdir ? workdir : ".", IOLAB_IPC_LOG_NAME);
    if (n < 0 || (size_t)n >= sizeof s->log) {
        s->log[0] = '\0';
        return -ENAMETOOLONG;
    }
    /* A registry left by an earlier session in the same directory names objects not ours. */
    unlink(s->log);
    return 0;
}

int leftovers_log_env(char *buf, size_t len)
{
    /* Absolute: the shim opens it from whatever directory a program has moved to. */
    if (!getcwd(buf, len))
        return -errno;
    size_t n = strlen(buf);
    int m = snprintf(buf + n, len - n, "%s%s", n > 1 ? "/" : "", IOLAB_IPC_LOG_NAME);
    return m < 0 || (size_t)m >= len - n ? -ENAMETOOLONG : 0;
}

static void leftovers_add(struct leftovers_reg *r, const struct iolab_ipc_rec *rec)
{
    if (iolab_ipc_is_sysv(rec->kind)) {
        int *ids = r->ids[rec->kind], *n = &r->nids[rec->kind];
        for (int i = 0; i < *n; i++)
            if (ids[i] == rec->id)
                return;
        if (*n < LEFTOVERS_MAX_IDS)
            ids[(*n)++] = rec->id;
        return;
    }
    int k = rec->kind - IOLAB_IPC_PSHM;
    for (int i = 0; i < r->nnames[k]; i++)
        if (!strcmp(r->names[k][i], rec->name))
            return;
    if (r->nnames[k] < LEFTOVERS_MAX_NAMES)
        memcpy(r->names[k][r->nnames[k]++], rec->name, sizeof rec->name);
}

/*
 * Reads the registry: a regular file only (a program could leave a FIFO there to block us, or
 * a symlink to point us elsewhere), at most LEFTOVERS_MAX_LINES lines, malformed lines skipped.
 */
static void leftovers_read(const char *log, struct leftovers_reg *r)
{
    int fd = open(log, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return;
    struct stat st;
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
    if (!f) {
        close(fd);
        return;
    }
    char line[IOLAB_IPC_LINE_MAX + 2];
    bool skipping = false; /* inside a line too long to be a record */
    for (int n = 0; n < LEFTOVERS_MAX_LINES && fgets(line, sizeof line, f); n++) {
        size_t len = strlen(line);
        bool whole = len > 0 && line[len - 1] == '\n';
        struct iolab_ipc_rec rec;
        if (!skipping && whole && iolab_ipclog_parse(line, len, &rec) == 0)
            leftovers_add(r, &rec);
        skipping = !whole;
    }
    fclose(f);
}

struct leftovers_ctx {
    const struct leftovers_reg *reg;
    int kind;
    uid_t uid;
    int removed;
};

static void leftovers_one(int id, long cuid, void *arg)
{
    struct leftovers_ctx *x = arg;
    if ((uid_t)cuid != x->uid)
        return;
    for (int i = 0; i < x->reg->nids[x->kind]; i++)
        if (x->reg->ids[x->kind][i] == id) {
            if (leftovers_kinds[x->kind].remove(id) == 0)
                x->removed++;
            return;
        }
}

static bool leftovers_recorded(const char names[][IOLAB_IPC_NAME_MAX + 1], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return true;
    return false;
}

/*
 * Removes, in a directory of POSIX objects (/dev/shm, an mqueue mount), the entries named with
 * the prefix and the recorded entries owned by uid.
 */
static int leftovers_posix(const char *dir, const char *prefix,
                           const char names[][IOLAB_IPC_NAME_MAX + 1], int nnames, uid_t uid)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    size_t plen = prefix ? strlen(prefix) : 0;
    while ((e = readdir(d))) {
        struct stat st;
        bool ours = plen && !strncmp(e->d_name, prefix, plen);
        if (!ours && leftovers_recorded(names, nnames, e->d_name))
            ours = fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                   S_ISREG(st.st_mode) && st.st_uid == uid;
        if (ours && unlinkat(dirfd(d), e->d_name, 0) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/*
 * POSIX message queues can only be listed through a mount of the mqueue file system, which a
 * host rarely has. As root, a child in a private mount namespace (the host's IPC namespace
 * belongs to the initial user namespace) mounts one over its own view of /tmp to list them.
 * Otherwise iolab runs as the programs' own uid, and mq_unlink() of a recorded name can do no
 * more than the programs themselves could.
 */
static int leftovers_mqueue(const char *prefix, const struct leftovers_reg *r, uid_t uid)
{
    const char(*names)[IOLAB_IPC_NAME_MAX + 1] = r->names[IOLAB_IPC_PMQ - IOLAB_IPC_PSHM];
    int nnames = r->nnames[IOLAB_IPC_PMQ - IOLAB_IPC_PSHM];
    if (access("/dev/mqueue", F_OK) == 0)
        return leftovers_posix("/dev/mqueue", prefix, names, nnames, uid);
    if (geteuid() != 0) {
        int n = 0;
        for (int i = 0; i < nnames; i++) {
            char name[IOLAB_IPC_NAME_MAX + 2];
            snprintf(name, sizeof name, "/%s", names[i]);
            n += mq_unlink(name) == 0;
        }
        return n;
    }
    pid_t pid = fork();
    if (pid == 0) {
        if (unshare(CLONE_NEWNS) < 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
            mount("mqueue", "/tmp", "mqueue", 0, NULL) < 0)
            _exit(0);
        _exit(leftovers_posix("/tmp", prefix, names, nnames, uid) & 0x7f);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0)
        return 0;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 0;
}

int leftovers_ipc(const struct leftovers *s, uid_t uid, const char *prefix)
{
    /* About 45 KiB: on the heap, so that a small stack never decides what is swept. */
    struct leftovers_reg *r = calloc(1, sizeof *r);
    if (!r)
        return 0;
    if (s->log[0])
        leftovers_read(s->log, r);
    struct leftovers_ctx x = {.reg = r, .uid = uid};
    for (x.kind = 0; x.kind < 3; x.kind++)
        if (r->nids[x.kind])
            leftovers_list(&leftovers_kinds[x.kind], leftovers_one, &x);
    if (prefix && !*prefix)
        prefix = NULL;
    x.removed += leftovers_posix("/dev/shm", prefix, r->names[0], r->nnames[0], uid);
    if (prefix || r->nnames[1])
        x.removed += leftovers_mqueue(prefix, r, uid);
    if (s->log[0])
        unlink(s->log);
    free(r);
    return x.removed;
}

static int leftovers_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

int leftovers_tree(const char *path)
{
    return nftw(path, leftovers_rm, 16, FTW_DEPTH | FTW_PHYS) < 0 ? -errno : 0;
}
