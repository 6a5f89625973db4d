/*
 * landlock: the rights handled are the write-type ones only, so reading and executing stay
 * allowed everywhere (a program needs its libraries and the learner's files to be readable),
 * while creating, changing or removing anything needs a rule beneath an allowed directory.
 */
#include "landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

struct landlock_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct landlock_path_rule {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct landlock_port_rule {
    uint64_t allowed_access;
    uint64_t port;
};

enum {
    LL_RULE_PATH = 1,
    LL_RULE_PORT = 2,
    LL_VERSION = 1,
};

#define LL_FS_WRITE_FILE  (1ULL << 1)
#define LL_FS_REMOVE_DIR  (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR   (1ULL << 6)
#define LL_FS_MAKE_DIR    (1ULL << 7)
#define LL_FS_MAKE_REG    (1ULL << 8)
#define LL_FS_MAKE_SOCK   (1ULL << 9)
#define LL_FS_MAKE_FIFO   (1ULL << 10)
#define LL_FS_MAKE_BLOCK  (1ULL << 11)
#define LL_FS_MAKE_SYM    (1ULL << 12)
#define LL_FS_REFER       (1ULL << 13) /* ABI 2 */
#define LL_FS_TRUNCATE    (1ULL << 14) /* ABI 3 */
#define LL_FS_IOCTL_DEV   (1ULL << 15) /* ABI 5: ioctl on character and block devices */
#define LL_NET_BIND_TCP   (1ULL << 0)  /* ABI 4 */
#define LL_NET_CONNECT    (1ULL << 1)
#define LL_SCOPE_SIGNAL   (1ULL << 1) /* ABI 6 */

#define LL_FS_WRITE_V1                                                                             \
    (LL_FS_WRITE_FILE | LL_FS_REMOVE_DIR | LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR |  \
     LL_FS_MAKE_REG | LL_FS_MAKE_SOCK | LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM)

/* Where a program may write besides its work directory, and what it may do there. */
struct landlock_place {
    const char *path;
    uint64_t access; /* 0: every handled right */
};

static const struct landlock_place landlock_places[] = {
    {.path = "/dev/shm"},
    {.path = "/dev/mqueue"},
    {.path = "/dev/null", .access = LL_FS_WRITE_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV},
    {.path = "/dev/zero", .access = LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV},
    {.path = "/dev/full", .access = LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV},
    /* Terminals may be written (a program's output may go to one it was handed) but never
       ioctl'd: TIOCSTI on a terminal the program opened would type into the person's shell.
       The seccomp filter refuses that one request too; this right refuses every other. */
    {.path = "/dev/tty", .access = LL_FS_WRITE_FILE},
    {.path = "/dev/pts", .access = LL_FS_WRITE_FILE},
};

static int landlock_create(const struct landlock_attr *a, size_t size, uint32_t flags)
{
    return (int)syscall(SYS_landlock_create_ruleset, a, size, flags);
}

static int landlock_abi(void)
{
    int abi = landlock_create(NULL, 0, LL_VERSION);
    return abi < 0 ? 0 : abi;
}

static bool landlock_try(const struct landlock_attr *a)
{
    int fd = landlock_create(a, sizeof *a, 0);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

void landlock_probe(int *abi, bool *fs, bool *net, bool *signal, bool *ioctl_dev)
{
    *abi = landlock_abi();
    *fs = *abi >= 1 && landlock_try(&(struct landlock_attr){.handled_access_fs = LL_FS_WRITE_V1});
    *net = *abi >= 4 && landlock_try(&(struct landlock_attr){.handled_access_fs = LL_FS_WRITE_V1,
                                                             .handled_access_net =
                                                                 LL_NET_BIND_TCP | LL_NET_CONNECT});
    *signal = *abi >= 6 && landlock_try(&(struct landlock_attr){.handled_access_fs = LL_FS_WRITE_V1,
                                                                .scoped = LL_SCOPE_SIGNAL});
    *ioctl_dev = *abi >= 5 && landlock_try(&(struct landlock_attr){
                                  .handled_access_fs = LL_FS_WRITE_V1 | LL_FS_IOCTL_DEV});
}

static int landlock_allow_path(int ruleset, const char *path, uint64_t access)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -errno;
    struct landlock_path_rule r = {.allowed_access = access, .parent_fd = fd};
    int rc = (int)syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH, &r, 0);
    rc = rc < 0 ? -errno : 0;
    close(fd);
    return rc;
}

int landlock_apply(const char *workdir, bool private_tmp, int port, bool net)
{
    int abi = landlock_abi();
    if (abi < 1)
        return -EOPNOTSUPP;
    uint64_t fs = LL_FS_WRITE_V1 | (abi >= 2 ? LL_FS_REFER : 0) | (abi >= 3 ? LL_FS_TRUNCATE : 0) |
                  (abi >= 5 ? LL_FS_IOCTL_DEV : 0);
    /* The writable places hold files, not devices: device ioctls are granted by name only. */
    uint64_t files = fs & ~LL_FS_IOCTL_DEV;
    struct landlock_attr a = {.handled_access_fs = fs};
    size_t size = 8;
    if (net && abi >= 4) {
        a.handled_access_net = LL_NET_BIND_TCP | LL_NET_CONNECT;
        size = 16;
    }
    if (abi >= 6) {
        a.scoped = LL_SCOPE_SIGNAL;
        size = 24;
    }
    int ruleset = landlock_create(&a, size, 0);
    if (ruleset < 0)
        return -errno;
    int rc = landlock_allow_path(ruleset, workdir, files);
    /* A bind mount is its own hierarchy for Landlock: the rule above does not reach it. */
    if (rc == 0 && private_tmp)
        rc = landlock_allow_path(ruleset, "/tmp", files);
    if (rc == 0 && private_tmp)
        rc = landlock_allow_path(ruleset, "/tmp/.mqueue", files);
    for (size_t i = 0; rc == 0 && i < sizeof landlock_places / sizeof *landlock_places; i++) {
        const struct landlock_place *p = &landlock_places[i];
        rc = landlock_allow_path(ruleset, p->path, (p->access ? p->access : files) & fs);
    }
    if (rc == 0 && a.handled_access_net && port > 0) {
        struct landlock_port_rule r = {.allowed_access = LL_NET_BIND_TCP | LL_NET_CONNECT,
                                       .port = (uint64_t)port};
        if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PORT, &r, 0) < 0)
            rc = -errno;
    }
    if (rc == 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
        rc = -errno;
    if (rc == 0 && syscall(SYS_landlock_restrict_self, ruleset, 0) < 0)
        rc = -errno;
    close(ruleset);
    return rc;
}
