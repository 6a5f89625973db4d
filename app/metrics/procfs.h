/*
 * procfs: parsers for the /proc files the sampler reads, and small readers around them.
 *
 * Parsers work on a buffer the caller read (so tests feed recorded files from tests/data/proc/)
 * and never allocate. Readers take the /proc root as a directory descriptor, so the sampler keeps
 * /proc open once and tests point it at a recorded tree. Times are in clock ticks as the kernel
 * prints them (procfs_tick_hz() converts); sizes in bytes.
 */
#ifndef IOLAB_PROCFS_H
#define IOLAB_PROCFS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROCFS_COMM_LEN 64

/* /proc/PID/stat, the fields iolab uses (proc(5) numbering in the comments). */
struct procfs_stat {
    int pid;                    /* 1 */
    char comm[PROCFS_COMM_LEN]; /* 2, without the parentheses; may contain spaces and ')' */
    char state;                 /* 3: R, S, D, T, Z, ... */
    int ppid;                   /* 4 */
    uint64_t utime, stime;      /* 14, 15: ticks, this process (all its threads) */
    uint64_t cutime, cstime;    /* 16, 17: ticks, children it has waited for (and theirs) */
    uint64_t num_threads;       /* 20 */
    uint64_t starttime;         /* 22: ticks after boot; with pid, identifies the process */
    uint64_t rss_pages;         /* 24 */
};

/* /proc/PID/status and /proc/PID/task/TID/status: the fields iolab uses. */
struct procfs_status {
    int ppid;                 /* PPid */
    uint64_t threads;         /* Threads (of the whole process) */
    uint64_t vm_rss_kb;       /* VmRSS; 0 for kernel threads and zombies */
    uint64_t ctx_voluntary;   /* voluntary_ctxt_switches: this task only */
    uint64_t ctx_involuntary; /* nonvoluntary_ctxt_switches */
};

/* /proc/PID/io. */
struct procfs_io {
    uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes;
};

/* Each returns 0, or -EINVAL when the text is not what the kernel writes. */
int procfs_parse_stat(const char *buf, size_t len, struct procfs_stat *out);
int procfs_parse_status(const char *buf, size_t len, struct procfs_status *out);
int procfs_parse_io(const char *buf, size_t len, struct procfs_io *out);

/*
 * Reads a whole small file into buf (NUL-terminated): with pread at offset 0 when fd >= 0 (a
 * file kept open), else by opening path relative to dirfd. Returns the length or -errno.
 */
ssize_t procfs_read(int fd, int dirfd, const char *path, char *buf, size_t len);

/*
 * Whether the file at path (relative to dirfd) contains needle (at most 255 bytes) anywhere:
 * 1 yes, 0 no, or -errno. Reads it to the end in fixed chunks, for files of no bounded size
 * such as /proc/PID/maps (is the counting shim mapped into that process?).
 */
int procfs_file_has(int dirfd, const char *path, const char *needle);

/* Clock ticks per second (sysconf(_SC_CLK_TCK)). */
long procfs_tick_hz(void);

#endif
