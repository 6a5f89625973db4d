/*
 * cost: see cost.h. The helper's own share is read from /proc because wait4() has no way to
 * leave a process's own figures out of its rusage; a zombie still shows them (stat: utime,
 * stime in clock ticks; status: the context switches of its one thread).
 */
#include "cost.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static uint64_t cost_us(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

static uint64_t cost_sub(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

void cost_add(struct cost *r, const struct rusage *ru)
{
    r->utime_us += cost_us(ru->ru_utime);
    r->stime_us += cost_us(ru->ru_stime);
    r->nvcsw += (uint64_t)ru->ru_nvcsw;
    r->nivcsw += (uint64_t)ru->ru_nivcsw;
    if ((uint64_t)ru->ru_maxrss > r->maxrss_kb)
        r->maxrss_kb = (uint64_t)ru->ru_maxrss;
}

static ssize_t cost_read(pid_t pid, const char *file, char *buf, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    ssize_t n = read(fd, buf, len - 1);
    int err = errno;
    close(fd);
    if (n < 0)
        return -err;
    buf[n] = '\0';
    return n;
}

static uint64_t cost_field(const char *text, const char *name)
{
    const char *p = strstr(text, name);
    unsigned long long v = 0;
    if (p)
        sscanf(p + strlen(name), " %llu", &v);
    return v;
}

/* Parses /proc/PID/io text ("rchar: N" lines); 0, or -1 when a field is missing. */
static int cost_parse_io(const char *buf, struct cost_io *io)
{
    static const char *const names[] = {
        "rchar:", "wchar:", "syscr:", "syscw:", "read_bytes:", "write_bytes:"};
    uint64_t *fields[] = {&io->rchar, &io->wchar,      &io->syscr,
                          &io->syscw, &io->read_bytes, &io->write_bytes};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *p = strstr(buf, names[i]);
        unsigned long long v;
        if (!p || sscanf(p + strlen(names[i]), " %llu", &v) != 1)
            return -1;
        *fields[i] = v;
    }
    return 0;
}

static void cost_io_add(struct cost_io *a, const struct cost_io *b)
{
    a->rchar += b->rchar;
    a->wchar += b->wchar;
    a->syscr += b->syscr;
    a->syscw += b->syscw;
    a->read_bytes += b->read_bytes;
    a->write_bytes += b->write_bytes;
}

void cost_add_io(struct cost *r, pid_t pid)
{
    char buf[1024];
    struct cost_io io;
    if (cost_read(pid, "io", buf, sizeof buf) > 0 && cost_parse_io(buf, &io) == 0)
        cost_io_add(&r->io, &io);
    else
        r->io_missing++;
}

void cost_sub_helper(struct cost *r, pid_t pid)
{
    char buf[2048];
    /* Its own thread's io (task/PID/io: the task alone, without what it reaped). */
    char path[64];
    snprintf(path, sizeof path, "task/%d/io", (int)pid);
    if (cost_read(pid, path, buf, sizeof buf) > 0)
        cost_parse_io(buf, &r->own_io);
    /* stat: the name may hold spaces and parentheses; fields count from the last ')'. */
    if (cost_read(pid, "stat", buf, sizeof buf) > 0) {
        const char *p = strrchr(buf, ')');
        unsigned long long ut = 0, st = 0;
        if (p &&
            sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) == 2) {
            long hz = sysconf(_SC_CLK_TCK);
            uint64_t us_per_tick = hz > 0 ? 1000000u / (uint64_t)hz : 10000u;
            r->own_utime_us = ut * us_per_tick;
            r->own_stime_us = st * us_per_tick;
        }
    }
    if (cost_read(pid, "status", buf, sizeof buf) > 0) {
        r->own_nvcsw = cost_field(buf, "\nvoluntary_ctxt_switches:");
        r->own_nivcsw = cost_field(buf, "\nnonvoluntary_ctxt_switches:");
    }
}

/* The whole of line to fd, through short writes and EINTR. */
static int cost_write_all(int fd, const char *line, int n)
{
    int rc = 0;
    for (int off = 0; off < n && rc == 0;) {
        ssize_t w = write(fd, line + off, (size_t)(n - off));
        if (w < 0 && errno != EINTR)
            rc = -errno;
        else if (w > 0)
            off += (int)w;
    }
    return rc;
}

int cost_write_interim(int fd, const char *limit)
{
    char line[96];
    int n = snprintf(line, sizeof line, "{\"limit\":\"%s\",\"running\":true}\n", limit);
    return n > 0 && n < (int)sizeof line ? cost_write_all(fd, line, n) : -EINVAL;
}

int cost_write(int fd, const struct cost *r, int status)
{
    char line[600], io[256] = "", limit[48] = "";
    if (r->limit)
        snprintf(limit, sizeof limit, ",\"limit\":\"%s\"", r->limit);
    const struct cost_io *a = &r->io, *b = &r->own_io;
    if (!r->io_missing)
        snprintf(io, sizeof io,
                 ",\"rchar\":%" PRIu64 ",\"wchar\":%" PRIu64 ",\"syscr\":%" PRIu64
                 ",\"syscw\":%" PRIu64 ",\"read_bytes\":%" PRIu64 ",\"write_bytes\":%" PRIu64,
                 cost_sub(a->rchar, b->rchar), cost_sub(a->wchar, b->wchar),
                 cost_sub(a->syscr, b->syscr), cost_sub(a->syscw, b->syscw),
                 cost_sub(a->read_bytes, b->read_bytes), cost_sub(a->write_bytes, b->write_bytes));
    int n = snprintf(line, sizeof line,
                     "{\"utime_us\":%" PRIu64 ",\"stime_us\":%" PRIu64 ",\"nvcsw\":%" PRIu64
                     ",\"nivcsw\":%" PRIu64 ",\"maxrss_kb\":%" PRIu64 "%s%s,\"status\":%d}\n",
                     cost_sub(r->utime_us, r->own_utime_us), cost_sub(r->stime_us, r->own_stime_us),
                     cost_sub(r->nvcsw, r->own_nvcsw), cost_sub(r->nivcsw, r->own_nivcsw),
                     r->maxrss_kb, io, limit, status);
    int rc = cost_write_all(fd, line, n);
    close(fd);
    return rc;
}
