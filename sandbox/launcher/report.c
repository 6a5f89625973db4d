/*
 * report: see report.h. The helper's own share is read from /proc because wait4() has no way to
 * leave a process's own figures out of its rusage; a zombie still shows them (stat: utime,
 * stime in clock ticks; status: the context switches of its one thread).
 */
#include "report.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static uint64_t report_us(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

static uint64_t report_sub(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

void report_add(struct report *r, const struct rusage *ru)
{
    r->utime_us += report_us(ru->ru_utime);
    r->stime_us += report_us(ru->ru_stime);
    r->nvcsw += (uint64_t)ru->ru_nvcsw;
    r->nivcsw += (uint64_t)ru->ru_nivcsw;
    if ((uint64_t)ru->ru_maxrss > r->maxrss_kb)
        r->maxrss_kb = (uint64_t)ru->ru_maxrss;
}

static ssize_t report_read(pid_t pid, const char *file, char *buf, size_t len)
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

static uint64_t report_field(const char *text, const char *name)
{
    const char *p = strstr(text, name);
    unsigned long long v = 0;
    if (p)
        sscanf(p + strlen(name), " %llu", &v);
    return v;
}

/* Parses /proc/PID/io text ("rchar: N" lines); 0, or -1 when a field is missing. */
static int report_parse_io(const char *buf, struct report_io *io)
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

static void report_io_add(struct report_io *a, const struct report_io *b)
{
    a->rchar += b->rchar;
    a->wchar += b->wchar;
    a->syscr += b->syscr;
    a->syscw += b->syscw;
    a->read_bytes += b->read_bytes;
    a->write_bytes += b->write_bytes;
}

void report_add_io(struct report *r, pid_t pid)
{
    char buf[1024];
    struct report_io io;
    if (report_read(pid, "io", buf, sizeof buf) > 0 && report_parse_io(buf, &io) == 0)
        report_io_add(&r->io, &io);
    else
        r->io_missing++;
}

void report_sub_helper(struct report *r, pid_t pid)
{
    char buf[2048];
    /* Its own thread's io (task/PID/io: the task alone, without what it reaped). */
    char path[64];
    snprintf(path, sizeof path, "task/%d/io", (int)pid);
    if (report_read(pid, path, buf, sizeof buf) > 0)
        report_parse_io(buf, &r->own_io);
    /* stat: the name may hold spaces and parentheses; fields count from the last ')'. */
    if (report_read(pid, "stat", buf, sizeof buf) > 0) {
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
    if (report_read(pid, "status", buf, sizeof buf) > 0) {
        r->own_nvcsw = report_field(buf, "\nvoluntary_ctxt_switches:");
        r->own_nivcsw = report_field(buf, "\nnonvoluntary_ctxt_switches:");
    }
}

int report_write(int fd, const struct report *r, int status)
{
    char line[600], io[256] = "", limit[48] = "";
    if (r->limit)
        snprintf(limit, sizeof limit, ",\"limit\":\"%s\"", r->limit);
    const struct report_io *a = &r->io, *b = &r->own_io;
    if (!r->io_missing)
        snprintf(io, sizeof io,
                 ",\"rchar\":%" PRIu64 ",\"wchar\":%" PRIu64 ",\"syscr\":%" PRIu64
                 ",\"syscw\":%" PRIu64 ",\"read_bytes\":%" PRIu64 ",\"write_bytes\":%" PRIu64,
                 report_sub(a->rchar, b->rchar), report_sub(a->wchar, b->wchar),
                 report_sub(a->syscr, b->syscr), report_sub(a->syscw, b->syscw),
                 report_sub(a->read_bytes, b->read_bytes),
                 report_sub(a->write_bytes, b->write_bytes));
    int n = snprintf(line, sizeof line,
                     "{\"utime_us\":%" PRIu64 ",\"stime_us\":%" PRIu64 ",\"nvcsw\":%" PRIu64
                     ",\"nivcsw\":%" PRIu64 ",\"maxrss_kb\":%" PRIu64 "%s%s,\"status\":%d}\n",
                     report_sub(r->utime_us, r->own_utime_us),
                     report_sub(r->stime_us, r->own_stime_us), report_sub(r->nvcsw, r->own_nvcsw),
                     report_sub(r->nivcsw, r->own_nivcsw), r->maxrss_kb, io, limit, status);
    int rc = 0;
    for (int off = 0; off < n && rc == 0;) {
        ssize_t w = write(fd, line + off, (size_t)(n - off));
        if (w < 0 && errno != EINTR)
            rc = -errno;
        else if (w > 0)
            off += (int)w;
    }
    close(fd);
    return rc;
}
