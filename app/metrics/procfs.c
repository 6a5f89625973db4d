/*
 * procfs: see procfs.h. The stat line is "pid (comm) state ppid ...", where comm is whatever
 * the program set (up to 15 bytes, spaces and parentheses allowed), so the parser finds the
 * LAST ')' and counts fields from there; everything after comm is numbers.
 */
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Parses one unsigned decimal at *p, skipping leading blanks; advances *p past it. */
static int procfs_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    while (s < end && (*s == ' ' || *s == '\t'))
        s++;
    if (s >= end || *s < '0' || *s > '9')
        return -EINVAL;
    uint64_t v = 0;
    while (s < end && *s >= '0' && *s <= '9')
        v = v * 10 + (uint64_t)(*s++ - '0');
    *p = s;
    *out = v;
    return 0;
}

/* Skips one space-separated field (numbers may be negative: "-1"). */
static int procfs_skip(const char **p, const char *end)
{
    const char *s = *p;
    while (s < end && *s == ' ')
        s++;
    if (s >= end)
        return -EINVAL;
    while (s < end && *s != ' ' && *s != '\n')
        s++;
    *p = s;
    return 0;
}

int procfs_parse_stat(const char *buf, size_t len, struct procfs_stat *out)
{
    const char *end = buf + len, *open = memchr(buf, '(', len), *close = NULL;
    for (const char *s = end; s-- > buf;)
        if (*s == ')') {
            close = s;
            break;
        }
    if (!open || !close || close < open)
        return -EINVAL;
    memset(out, 0, sizeof *out);
    const char *p = buf;
    uint64_t v;
    if (procfs_u64(&p, open, &v) < 0)
        return -EINVAL;
    out->pid = (int)v;
    size_t n = (size_t)(close - open - 1);
    if (n >= sizeof out->comm)
        n = sizeof out->comm - 1;
    memcpy(out->comm, open + 1, n);
    p = close + 1;
    while (p < end && *p == ' ')
        p++;
    if (p >= end)
        return -EINVAL;
    out->state = *p++;
    /* Fields 4..24 into f[] by their proc(5) number; negative ones (tty_nr, tpgid, priority,
       nice) are not used and read as 0. */
    uint64_t f[25] = {0};
    for (int field = 4; field <= 24; field++) {
        while (p < end && *p == ' ')
            p++;
        if (p < end && *p == '-') {
            if (procfs_skip(&p, end) < 0)
                return -EINVAL;
        } else if (procfs_u64(&p, end, &f[field]) < 0) {
            return -EINVAL;
        }
    }
    out->ppid = (int)f[4];
    out->utime = f[14];
    out->stime = f[15];
    out->cutime = f[16];
    out->cstime = f[17];
    out->num_threads = f[20];
    out->starttime = f[22];
    out->rss_pages = f[24];
    return 0;
}

/* The value of "Key:\t value" lines in status-like files; fields absent stay untouched. */
struct procfs_key {
    const char *key;
    size_t offset; /* of a uint64_t in the output struct */
};

static int procfs_parse_keys(const char *buf, size_t len, const struct procfs_key *keys,
                             size_t nkeys, void *out)
{
    const char *p = buf, *end = buf + len;
    size_t found = 0;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *colon = memchr(p, ':', (size_t)(eol - p));
        if (colon) {
            for (size_t k = 0; k < nkeys; k++) {
                size_t kl = strlen(keys[k].key);
                if ((size_t)(colon - p) == kl && !memcmp(p, keys[k].key, kl)) {
                    const char *v = colon + 1;
                    if (procfs_u64(&v, eol, (uint64_t *)((char *)out + keys[k].offset)) < 0)
                        return -EINVAL;
                    found++;
                    break;
                }
            }
        }
        p = eol + 1;
    }
    return found ? 0 : -EINVAL;
}

int procfs_parse_status(const char *buf, size_t len, struct procfs_status *out)
{
    /* PPid is an int in the struct; read it through a u64 temporary. */
    struct {
        uint64_t ppid, threads, rss, vol, invol;
    } raw = {0};
    static const struct procfs_key keys[] = {
        {"PPid", 0},
        {"Threads", sizeof(uint64_t)},
        {"VmRSS", 2 * sizeof(uint64_t)},
        {"voluntary_ctxt_switches", 3 * sizeof(uint64_t)},
        {"nonvoluntary_ctxt_switches", 4 * sizeof(uint64_t)},
    };
    int rc = procfs_parse_keys(buf, len, keys, sizeof keys / sizeof *keys, &raw);
    if (rc < 0)
        return rc;
    *out = (struct procfs_status){.ppid = (int)raw.ppid,
                                  .threads = raw.threads,
                                  .vm_rss_kb = raw.rss,
                                  .ctx_voluntary = raw.vol,
                                  .ctx_involuntary = raw.invol};
    return 0;
}

int procfs_parse_io(const char *buf, size_t len, struct procfs_io *out)
{
    static const struct procfs_key keys[] = {
        {"rchar", offsetof(struct procfs_io, rchar)},
        {"wchar", offsetof(struct procfs_io, wchar)},
        {"syscr", offsetof(struct procfs_io, syscr)},
        {"syscw", offsetof(struct procfs_io, syscw)},
        {"read_bytes", offsetof(struct procfs_io, read_bytes)},
        {"write_bytes", offsetof(struct procfs_io, write_bytes)},
    };
    memset(out, 0, sizeof *out);
    return procfs_parse_keys(buf, len, keys, sizeof keys / sizeof *keys, out);
}

ssize_t procfs_read(int fd, int dirfd, const char *path, char *buf, size_t len)
{
    int own = -1;
    if (fd < 0) {
        own = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
        if (own < 0)
            return -errno;
        fd = own;
    }
    /* /proc files are generated whole on the first read at offset 0; one pread suffices for
       the small ones read here, and a short buffer just truncates what we do not parse. */
    ssize_t n = pread(fd, buf, len - 1, 0);
    int err = errno;
    if (own >= 0)
        close(own);
    if (n < 0)
        return -err;
    buf[n] = '\0';
    return n;
}

int procfs_file_has(int dirfd, const char *path, const char *needle)
{
    size_t nlen = strlen(needle);
    if (nlen == 0 || nlen > 255)
        return -EINVAL;
    int fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    /* Each read lands after the last nlen - 1 bytes of the one before: a match split between
       two reads is still whole in buf. */
    char buf[4096 + 256];
    size_t keep = 0;
    int found = 0;
    for (;;) {
        ssize_t n = read(fd, buf + keep, sizeof buf - 256);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            found = -errno;
            break;
        }
        if (n == 0)
            break;
        size_t have = keep + (size_t)n;
        if (memmem(buf, have, needle, nlen)) {
            found = 1;
            break;
        }
        keep = have < nlen - 1 ? have : nlen - 1;
        memmove(buf, buf + have - keep, keep);
    }
    close(fd);
    return found;
}

long procfs_tick_hz(void)
{
    static long hz;
    if (!hz) {
        hz = sysconf(_SC_CLK_TCK);
        if (hz <= 0)
            hz = 100;
    }
    return hz;
}
