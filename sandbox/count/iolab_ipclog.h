/*
 * The IPC registry: the second ABI between the counting shim and iolab-sandbox, beside the
 * counter page. Outside the full tier no IPC namespace takes a scenario's IPC objects away, and
 * the host's tables cannot tell them from the objects of the learner's other programs running
 * under the same uid (a desktop's MIT-SHM segments, a database, another iolab session). So the
 * shim, preloaded into every scenario program, appends one line to the file named by
 * IOLAB_IPC_LOG for each object a program really created, and the holder removes exactly those.
 *
 * The file lives in the scenario's work directory, the one place every tier lets a program
 * write. One line per object, written with a single O_APPEND write(): the kernel appends it
 * whole even when several processes write at once, and a line stays far below PIPE_BUF.
 *
 *     shm 32769        System V segment id (shmget)
 *     msg 5            System V message queue id (msgget)
 *     sem 7            System V semaphore set id (semget)
 *     pshm NAME        POSIX shared memory, the name without its leading '/' (shm_open)
 *     pmq NAME         POSIX message queue, likewise (mq_open)
 *
 * The programs can write anything into the file, so the reader trusts nothing in it: a line is
 * taken only when it parses exactly, a name only when it is one path component, and the removal
 * of leftovers still checks each object's owner before removing it (see
 * sandbox/launcher/leftovers.c).
 */
#ifndef IOLAB_IPCLOG_H
#define IOLAB_IPCLOG_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define IOLAB_ENV_IPC_LOG  "IOLAB_IPC_LOG" /* absolute path of the registry, set by the launcher */
#define IOLAB_IPC_LOG_NAME ".iolab-ipc"    /* its name in the work directory */
#define IOLAB_IPC_NAME_MAX 255             /* NAME_MAX: one entry of /dev/shm or /dev/mqueue */
#define IOLAB_IPC_LINE_MAX (8 + IOLAB_IPC_NAME_MAX)

enum iolab_ipc_kind {
    IOLAB_IPC_SHM, /* the System V kinds first, in /proc/sysvipc order: shm, msg, sem */
    IOLAB_IPC_MSG,
    IOLAB_IPC_SEM,
    IOLAB_IPC_PSHM, /* then the POSIX ones, known by name */
    IOLAB_IPC_PMQ,
    IOLAB_IPC_KINDS,
};

static const char *const iolab_ipc_kind_names[IOLAB_IPC_KINDS] = {
    [IOLAB_IPC_SHM] = "shm",   [IOLAB_IPC_MSG] = "msg", [IOLAB_IPC_SEM] = "sem",
    [IOLAB_IPC_PSHM] = "pshm", [IOLAB_IPC_PMQ] = "pmq",
};

struct iolab_ipc_rec {
    enum iolab_ipc_kind kind;
    int id;                            /* System V kinds: the id */
    char name[IOLAB_IPC_NAME_MAX + 1]; /* POSIX kinds: the name, without a leading '/' */
};

static inline int iolab_ipc_is_sysv(enum iolab_ipc_kind k)
{
    return k <= IOLAB_IPC_SEM;
}

/*
 * The part of a POSIX IPC name that names the object: glibc drops the leading slashes. NULL
 * when the rest is not exactly one path component (empty, "." or "..", a '/' or a control
 * character or space in it), which no successful shm_open()/mq_open() creates and which must
 * never reach an unlinkat().
 */
static inline const char *iolab_ipc_name(const char *name)
{
    while (*name == '/')
        name++;
    size_t n = 0;
    for (; name[n]; n++)
        if (name[n] == '/' || (unsigned char)name[n] <= ' ' || name[n] == 0x7f)
            return NULL;
    if (n == 0 || n > IOLAB_IPC_NAME_MAX ||
        (name[0] == '.' && (n == 1 || (n == 2 && name[1] == '.'))))
        return NULL;
    return name;
}

/*
 * Formats one record, newline included, into buf (IOLAB_IPC_LINE_MAX bytes at least); returns
 * its length, or 0 when the record cannot be written (a negative id, a bad name). No libc
 * formatting: the shim calls this from wrappers that must not allocate or lock.
 */
static inline size_t iolab_ipclog_format(char *buf, enum iolab_ipc_kind kind, int id,
                                         const char *name)
{
    if ((unsigned)kind >= IOLAB_IPC_KINDS)
        return 0;
    size_t n = 0;
    for (const char *k = iolab_ipc_kind_names[kind]; *k; k++)
        buf[n++] = *k;
    buf[n++] = ' ';
    if (iolab_ipc_is_sysv(kind)) {
        if (id < 0)
            return 0;
        char digits[12];
        size_t d = 0;
        do {
            digits[d++] = (char)('0' + id % 10);
            id /= 10;
        } while (id);
        while (d)
            buf[n++] = digits[--d];
    } else {
        const char *s = name ? iolab_ipc_name(name) : NULL;
        if (!s)
            return 0;
        while (*s)
            buf[n++] = *s++;
    }
    buf[n++] = '\n';
    return n;
}

/*
 * Parses one line (len bytes, a trailing newline allowed). 0, or -1 when it is not exactly a
 * record as iolab_ipclog_format() writes it: such a line is skipped, not guessed at.
 */
static inline int iolab_ipclog_parse(const char *line, size_t len, struct iolab_ipc_rec *out)
{
    if (len && line[len - 1] == '\n')
        len--;
    int kind = -1;
    size_t klen = 0;
    for (int k = 0; k < IOLAB_IPC_KINDS && kind < 0; k++) {
        const char *name = iolab_ipc_kind_names[k];
        size_t i = 0;
        while (name[i] && i < len && line[i] == name[i])
            i++;
        if (!name[i] && i < len && line[i] == ' ') {
            kind = k;
            klen = i + 1;
        }
    }
    if (kind < 0 || klen == len)
        return -1;
    const char *v = line + klen;
    size_t vlen = len - klen;
    out->kind = (enum iolab_ipc_kind)kind;
    out->id = -1;
    out->name[0] = '\0';
    if (iolab_ipc_is_sysv(out->kind)) {
        long long id = 0;
        for (size_t i = 0; i < vlen; i++) {
            if (v[i] < '0' || v[i] > '9' || (i == 0 && v[i] == '0' && vlen > 1))
                return -1;
            id = id * 10 + (v[i] - '0');
            if (id > 0x7fffffff)
                return -1;
        }
        out->id = (int)id;
        return 0;
    }
    if (vlen > IOLAB_IPC_NAME_MAX)
        return -1;
    for (size_t i = 0; i < vlen; i++)
        if ((out->name[i] = v[i]) == '\0')
            return -1;
    out->name[vlen] = '\0';
    /* The name must already be in its canonical form: no leading '/', one component. */
    return out->name[0] != '/' && iolab_ipc_name(out->name) == out->name ? 0 : -1;
}

#ifdef __cplusplus
}
#endif

#endif
