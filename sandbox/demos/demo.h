/*
 * demo: the plumbing every demo program shares, kept out of the programs so that what a learner
 * reads there is the I/O itself.
 *
 * - Signals: SIGTERM and SIGINT set demo_stop and nothing else. They are installed without
 *   SA_RESTART on purpose: a blocking accept(), read() or epoll_wait() then returns EINTR, and
 *   the program sees demo_stop and winds down. (A signal that lands between the check of
 *   demo_stop and the blocking call is noticed only when that call returns; the demos accept that
 *   window rather than hide their loops behind signalfd or ppoll.) SIGPIPE is ignored, so a write
 * to a closed peer fails with EPIPE instead of killing the program.
 * - Arguments: every bad argument ends the program with one sentence on stderr and status 2.
 * - A latency histogram with 1 µs buckets (exact enough to print p50..max in µs) and the one
 *   summary line the clients print at the end.
 *
 * Functions return 0 (or a descriptor) on success and a negative errno on failure.
 */
#ifndef IOLAB_DEMO_H
#define IOLAB_DEMO_H

#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Set by SIGTERM/SIGINT; every loop in the demos checks it after EINTR. */
extern volatile sig_atomic_t demo_stop;

/* Installs the SIGTERM/SIGINT handler (no SA_RESTART) and ignores SIGPIPE. */
void demo_signals_init(void);

/* Blocks (how = SIG_BLOCK) or unblocks SIGTERM/SIGINT in the calling thread; threads inherit it. */
void demo_signals_mask(int how);

/* Prints "PROG: MESSAGE; see PROG --help." to stderr and exits with status 2. */
void demo_usage_error(const char *prog, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* Parses a decimal number in [min, max] for option NAME, or ends the program (status 2). */
uint64_t demo_parse_u64(const char *prog, const char *name, const char *s, uint64_t min,
                        uint64_t max);

/* The longest line the line-based demos carry (ordered-*): longer ones are cut. */
#define DEMO_LINE_MAX 1024

/* Bytes read from a descriptor but not yet handed out as a line. */
struct demo_line_buf {
    char buf[DEMO_LINE_MAX];
    size_t have;
};

/*
 * The next line from fd into line (DEMO_LINE_MAX + 1 bytes; without its newline): recv() for a
 * socket, read() for anything else, so the counters tell them apart (plain read() rather than
 * fgets(), whose read() happens inside glibc where the counting shim cannot see it). 1 for a
 * line, 0 at the end of input, -1 on an error or SIGTERM. A stream has no message boundaries,
 * so one call may bring half a line or two lines: the rest stays in lb for the next call.
 */
int demo_get_line(int fd, int is_socket, struct demo_line_buf *lb, char *line);

/* Parses BYTES with an optional K, M or G suffix (powers of 1024), in [1, max], for option NAME,
   or ends the program (status 2). */
uint64_t demo_parse_size(const char *prog, const char *name, const char *s, uint64_t max);

/* Parses seconds (may be fractional, > 0) for option NAME, or ends the program (status 2). */
double demo_parse_seconds(const char *prog, const char *name, const char *s);

/* Parses an IPv4 address, or ends the program (status 2). */
struct in_addr demo_parse_host(const char *prog, const char *s);

/*
 * A listening TCP socket on host:port (port 0: any free port), SO_REUSEADDR set so a restarted
 * server can bind at once. Stores the bound port in *bound. A descriptor or a negative errno.
 */
int demo_listen(struct in_addr host, unsigned port, unsigned *bound);

/*
 * Writes all of buf, looping over short writes and EINTR. 0 or a negative errno; -EINTR only
 * when demo_stop is set, so a program stuck writing to a slow reader still stops on SIGTERM.
 */
int demo_write_all(int fd, const void *buf, size_t len);

/*
 * accept4(lfd, ..., SOCK_CLOEXEC | flags) that survives EINTR, aborted connections and a
 * transient shortage of descriptors (it backs off 10 ms rather than spin). Returns the
 * connection, or -1 once the server is told to stop or, on a non-blocking listener, when nothing
 * is waiting (EAGAIN).
 */
int demo_accept(const char *prog, int lfd, int flags);

/*
 * The children of a fork-per-connection server, kept so that none outlives it. kids_begin
 * makes SIGCHLD interrupt a blocked accept() (so exited children are reaped at once);
 * kids_reserve makes room before fork() (-1 when out of memory: do not fork); kids_add records
 * a child; kids_reap collects the exited ones without blocking; kids_end passes SIGTERM on to
 * every child still running and waits for all of them.
 */
void demo_kids_begin(void);
int demo_kids_reserve(void);
void demo_kids_add(pid_t pid);
void demo_kids_reap(void);
void demo_kids_end(void);

/* Sends all of buf with send(MSG_NOSIGNAL), looping likewise. 0 or a negative errno. */
int demo_send_all(int fd, const void *buf, size_t len);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t demo_now_ns(void);

/* Request latencies in 1 µs buckets up to DEMO_HIST_US; slower ones share the last bucket. */
#define DEMO_HIST_US 1000000u
struct demo_hist {
    uint64_t count;  /* samples */
    uint64_t max_ns; /* the slowest sample, exact */
    uint64_t *us;    /* DEMO_HIST_US + 1 buckets; pages are touched only where samples land */
};

int demo_hist_init(struct demo_hist *h);
void demo_hist_free(struct demo_hist *h);
void demo_hist_add(struct demo_hist *h, uint64_t ns);
/* Adds every sample of src into dst. */
void demo_hist_merge(struct demo_hist *dst, const struct demo_hist *src);
/* The latency in µs below which a fraction q (0..1) of the samples lie; 0 when empty. */
uint64_t demo_hist_percentile_us(const struct demo_hist *h, double q);

/* The client's closing figures: one line, key=value pairs, readable by people and by scripts. */
struct demo_summary {
    uint64_t requests;
    double seconds;
    uint64_t bytes;
    uint64_t errors;
    const struct demo_hist *hist;
};

/* Prints the summary line to stdout; with_byte_rate adds bytes_per_s (the file client). */
void demo_summary_print(const struct demo_summary *s, int with_byte_rate);

#endif
