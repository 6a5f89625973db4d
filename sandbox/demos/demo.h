/*
 * demo: the plumbing every demo program shares, kept out of the programs so that what a learner
 * reads there is the I/O itself.
 *
 * - Signals: SIGTERM and SIGINT set demo_stop and nothing else. They are installed without
 *   SA_RESTART on purpose: a blocking accept(), read() or epoll_wait() then returns EINTR, and
 *   the program sees demo_stop and winds down. A signal that lands between the check of
 *   demo_stop and the blocking call would interrupt nothing, so the first one also starts a
 *   20 ms timer whose SIGALRM interrupts the next blocking call, until the program is gone
 *   (rather than hide the loops behind signalfd or ppoll). SIGPIPE is ignored, so a write
 *   to a closed peer fails with EPIPE instead of killing the program.
 * - The command line: options and modes are const tables, parsed by one call that also writes
 *   --help; every bad argument ends the program with one sentence on stderr and status 2.
 * - Starting up: a server's listen and ready line, a client's connect.
 * - Servers: what is not the lesson around the calls that are. Each server of the concurrency
 *   and file lessons writes its own accept loop, fork(), pthread_create() and epoll loop (and
 *   file-server its sendfile()), in its own file, even where two servers then repeat a loop:
 *   here are what an accept4() failure costs (the reserve descriptor), the list of a fork
 *   server's children, the list of an epoll server's connections, and one thread per
 *   connection (demo_thread_per_connection) for ipc-proxy's front end, whose lesson is the
 *   IPC behind it, not its threads.
 * - A latency histogram with 1 µs buckets (exact enough to print p50..max in µs), the one
 *   summary line the clients print at the end, and publishing a request into the counter page.
 *
 * Functions return 0 (or a descriptor) on success and a negative errno on failure.
 */
#ifndef IOLAB_DEMO_H
#define IOLAB_DEMO_H

#include "iolab_counters.h"

#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Set by SIGTERM/SIGINT; every loop in the demos checks it after EINTR. */
extern volatile sig_atomic_t demo_stop;

/* Installs the SIGTERM/SIGINT handler (no SA_RESTART) and ignores SIGPIPE. */
void demo_signals_init(void);

/* Blocks (how = SIG_BLOCK) or unblocks SIGTERM/SIGINT/SIGALRM in the calling thread; threads
 * inherit it. */
void demo_signals_mask(int how);

/*
 * The command line. A program describes itself once, as data: a table of options (what each
 * takes, where its value goes, its line in --help) and a table of modes (a name, a line of help
 * and the program's own functions). demo_cli_parse() reads argv against them in one call, prints
 * the --help it generates from them, and ends the program on a bad argument, so that main() is
 * left with the I/O: parse, set up, run the mode.
 */

/* How an option's value is read and checked, and which member of `to` receives it. */
enum demo_kind {
    DEMO_KIND_FLAG,    /* no value: *to.flag = 1 */
    DEMO_KIND_TEXT,    /* any text: *to.text (argv's own string) */
    DEMO_KIND_U64,     /* a whole number in [min, max]: *to.u64 */
    DEMO_KIND_SIZE,    /* bytes with an optional K, M or G suffix, in [1, max]: *to.u64 */
    DEMO_KIND_SECONDS, /* seconds, fractional, > 0: *to.seconds */
    DEMO_KIND_HOST,    /* an IPv4 address: *to.host (checked once the other options are read) */
    DEMO_KIND_MODE,    /* a name from the program's mode table: demo_cli_parse() returns its row */
};

/* --host as given (for messages and the ready line) and as an address. */
struct demo_host {
    const char *name; /* the default goes here: {.name = "127.0.0.1"} */
    struct in_addr addr;
};

struct demo_opt {
    const char *name;    /* "port" for --port */
    enum demo_kind kind; /* how its value is read */
    union {
        int *flag;
        const char **text;
        uint64_t *u64;
        double *seconds;
        struct demo_host *host;
    } to;                 /* where the value goes */
    uint64_t min, max;    /* DEMO_KIND_U64: the range; DEMO_KIND_SIZE: max */
    int required;         /* absent: "--NAME is required" */
    const char *not_with; /* the option it excludes: "give --A or --B, not both" */
    const char *arg;      /* the value's name in --help ("P", "BYTES"); none for a flag */
    const char *help;     /* its text in --help; '\n' continues it on the next line */
    void (*after)(void);  /* if set, runs each time the option is read: more checks, or
                             collecting an option given several times */
};

/* The first member of every row of a program's mode table: what the command line sees. */
struct demo_mode {
    const char *name; /* the value of --mode */
    const char *help; /* its line in --help */
};

/* The row type of a server's mode table: the mode runs the server on a listening socket. */
struct demo_server_mode {
    struct demo_mode cli;   /* name and help */
    void (*serve)(int lfd); /* serves until SIGTERM */
};

struct demo_cli {
    const char *prog;            /* the program's name: in --help and in every error */
    const char *usage;           /* the synopsis after "usage: PROG " */
    const char *about;           /* what the program does (lines ending in '\n'), or NULL */
    const struct demo_opt *opts; /* the options, ending with {0}; --help is added */
    const void *modes;           /* the mode table: rows that start with a struct demo_mode */
    size_t nmodes, mode_size;    /* set by DEMO_MODES(table) */
    const char *footer;          /* printed after the options, or NULL; --help then ends with
                                    the line every demo shares: it stops cleanly on SIGTERM */
    void (*check)(void);         /* if set, checks options that depend on each other */
};

/*
 * The rows of an option table, one macro per kind: the name (without "--"), where the value
 * goes, what it accepts, the value's name in --help and the help text. Further fields may follow:
 * DEMO_OPT_U64("requests", &max, 1, 1000, "M", "stop after M", .not_with = "seconds").
 */
#define DEMO_OPT_FLAG(name_, flag_, help_, ...)                                                    \
    {                                                                                              \
        .name = (name_), .kind = DEMO_KIND_FLAG, .to.flag = (flag_), .help = (help_), __VA_ARGS__  \
    }
#define DEMO_OPT_TEXT(name_, text_, arg_, help_, ...)                                              \
    {                                                                                              \
        .name = (name_), .kind = DEMO_KIND_TEXT, .to.text = (text_), .arg = (arg_),                \
        .help = (help_), __VA_ARGS__                                                               \
    }
#define DEMO_OPT_U64(name_, u64_, min_, max_, arg_, help_, ...)                                    \
    {                                                                                              \
        .name = (name_), .kind = DEMO_KIND_U64, .to.u64 = (u64_), .min = (min_), .max = (max_),    \
        .arg = (arg_), .help = (help_), __VA_ARGS__                                                \
    }
#define DEMO_OPT_SIZE(name_, u64_, max_, arg_, help_, ...)                                         \
    {                                                                                              \
        .name = (name_), .kind = DEMO_KIND_SIZE, .to.u64 = (u64_), .max = (max_), .arg = (arg_),   \
        .help = (help_), __VA_ARGS__                                                               \
    }

/* --mode M, required; its values and their help come from the program's mode table. */
#define DEMO_OPT_MODE                                                                              \
    {                                                                                              \
        .name = "mode", .kind = DEMO_KIND_MODE, .required = 1, .arg = "M"                          \
    }

/* --seconds T: run until T seconds have passed, or else until SIGTERM. */
#define DEMO_OPT_SECONDS(seconds_)                                                                 \
    {                                                                                              \
        .name = "seconds", .kind = DEMO_KIND_SECONDS, .to.seconds = (seconds_), .arg = "T",        \
        .help = "stop after T seconds (default: run until SIGTERM or SIGINT)"                      \
    }

/* --port P and --host H of a server (--port 0: any free port). */
#define DEMO_OPTS_LISTEN(port_, host_)                                                             \
    DEMO_OPT_U64("port", (port_), 0, 65535, "P",                                                   \
                 "TCP port to listen on (0: any free port, printed at start)", .required = 1),     \
    {                                                                                              \
        .name = "host", .kind = DEMO_KIND_HOST, .to.host = (host_), .arg = "H",                    \
        .help = "IPv4 address to listen on (default 127.0.0.1)"                                    \
    }

/* --port P and --host H of a client: where its server is. */
#define DEMO_OPTS_CONNECT(port_, host_)                                                            \
    DEMO_OPT_U64("port", (port_), 1, 65535, "P", "the server's TCP port", .required = 1),          \
    {                                                                                              \
        .name = "host", .kind = DEMO_KIND_HOST, .to.host = (host_), .arg = "H",                    \
        .help = "the server's IPv4 address (default 127.0.0.1)"                                    \
    }

/* A number macro as a string, for help texts: DEMO_STR(NAME_MAX_LEN) is "24". */
#define DEMO_STR(x)  DEMO_STR_(x)
#define DEMO_STR_(x) #x

/* The .modes, .nmodes and .mode_size of a demo_cli, from the program's own mode table. */
#define DEMO_MODES(table)                                                                          \
    .modes = (table), .nmodes = sizeof(table) / sizeof(table)[0], .mode_size = sizeof(table)[0]

/*
 * Reads argv against cli: stores every value, then checks required options, cli->check,
 * not_with and the host. --help prints the generated usage and exits 0; a bad argument prints one
 * sentence ("PROG: ...; see PROG --help.") to stderr and exits 2. Returns the chosen mode's row
 * of the mode table (NULL for a program without modes).
 */
const void *demo_cli_parse(const struct demo_cli *cli, int argc, char **argv);

/* Prints "PROG: MESSAGE; see PROG --help." to stderr and exits with status 2. */
void demo_usage_error(const char *prog, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* Prints one line to stdout and flushes it at once: a ready line ("listening on ...") that
   whoever started the program waits for, through a pipe. */
void demo_ready(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * For --dir, where a demo creates its files: ends the program (status 2) unless the directory
 * exists and has need bytes plus 256 MiB free, so that a demo never fills the disk.
 */
void demo_check_room(const char *prog, const char *dir, uint64_t need);

/* The socket address of --host and --port. */
struct sockaddr_in demo_sockaddr(const struct demo_host *host, uint64_t port);

/* A blocking TCP socket connect()ed to --host:--port, or -1 after saying why on stderr
   ("cannot connect to HOST:PORT: ..."). */
int demo_connect(const char *prog, const struct demo_host *host, uint64_t port);

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

/*
 * A listening TCP socket on host:port (port 0: any free port), SO_REUSEADDR set so a restarted
 * server can bind at once. Stores the bound port in *bound. A descriptor or a negative errno.
 */
int demo_listen(struct in_addr host, unsigned port, unsigned *bound);

/* demo_listen() on --host and --port for a server, or one sentence ("cannot listen on ...") and
   exit status 1. Stores the bound port in *bound. */
int demo_listen_or_exit(const char *prog, const struct demo_host *host, uint64_t port,
                        unsigned *bound);

/*
 * How a server starts: demo_signals_init(), demo_listen_or_exit(), then the ready line
 * "listening on HOST:PORT", followed by a space and what fmt makes unless fmt is NULL. Returns
 * the listening socket.
 */
int demo_server_start(const char *prog, const struct demo_host *host, uint64_t port,
                      const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Writes all of buf, looping over short writes and EINTR. 0 or a negative errno; -EINTR only
 * when demo_stop is set, so a program stuck writing to a slow reader still stops on SIGTERM.
 */
int demo_write_all(int fd, const void *buf, size_t len);

/*
 * What a server does when its accept4() on lfd failed with err, so that its accept loop stays
 * three lines. EINTR (a signal) and ECONNABORTED (a client gave up in the backlog): nothing.
 * EAGAIN: nothing, the backlog is empty. EMFILE or ENFILE (no descriptor left): it sheds the
 * newest connection with a descriptor kept in reserve (see demo.c), so that the server keeps
 * serving the connections it has and an event loop does not wake up for the same connection
 * for ever. Anything else (out of memory): a 10 ms pause instead of a spin. Every failure for
 * want of a resource is published and said (demo_fail). Returns 1 when accept4() may be called
 * again at once, 0 when a non-blocking listener's backlog is empty (or it cannot shed) or the
 * server is to stop.
 */
int demo_accept_failed(const char *prog, int lfd, int err);

/*
 * accept4(lfd, ..., SOCK_CLOEXEC | flags) retried through demo_accept_failed(): the connection,
 * or -1 once the server is to stop or a non-blocking listener's backlog is empty. The servers
 * of the concurrency lessons call accept4() themselves; this is for ipc-proxy.c's front end.
 */
int demo_accept(const char *prog, int lfd, int flags);

/*
 * Limits, said out loud. A call that fails for want of a resource (accept at the open-file limit,
 * fork or pthread_create at the process limit or out of address space) costs a connection:
 * demo_fail() counts it in the calling thread's app.failed[call][cause] and says on stderr which
 * limit was reached and its value, read with getrlimit(): "echo-server: fork failed: the sandbox
 * allows 264 processes and threads (RLIMIT_NPROC) (Resource temporarily unavailable)". At most
 * one line a second per call; the lines skipped are counted in the next one.
 */
void demo_fail(const char *prog, enum iolab_fail_call call, int err);
/* The cause of err for call (see iolab_counters.h). */
enum iolab_fail_cause demo_fail_cause(enum iolab_fail_call call, int err);
/* The sentence demo_fail() prints, without its newline. */
void demo_fail_say(const char *prog, enum iolab_fail_call call, int err, char *buf, size_t len);

/*
 * The stack of a thread per connection: 512 KiB rather than glibc's default (RLIMIT_STACK, 8 MiB),
 * so that 1,000 connections take 512 MiB of address space, not 8 GiB (the sandbox allows 4 GiB
 * per process by default). The demos keep their big buffers off the stack (thread-local or
 * 16 KiB at most), so this is ample.
 */
#define DEMO_THREAD_STACK (512u << 10)

/*
 * The children of a fork-per-connection server, remembered so that none outlives it. The server
 * forks and reaps (waitpid) in its own file; these keep the list.
 *
 * demo_children_watch: a SIGCHLD handler without SA_RESTART, so that a child's exit interrupts
 * a blocked accept() and the server reaps it at once.
 * demo_children_add: remembers a child. Out of memory for the list, it ends that child (its
 * connection goes unserved) and counts a failed fork (demo_fail).
 * demo_children_forget: the child was reaped.
 * demo_children_end: SIGTERM to every child still running, and waits for them all.
 */
void demo_children_watch(void);
void demo_children_add(const char *prog, pid_t pid);
void demo_children_forget(pid_t pid);
void demo_children_end(void);

/*
 * A thread per connection for ipc-proxy.c's front end: take(lfd) returns the next connection or
 * -1 once the server is to stop; serve(fd) runs in a detached thread with a DEMO_THREAD_STACK
 * stack and SIGTERM/SIGINT blocked. The servers of the concurrency lessons write this loop,
 * pthread_create() included, in their own file.
 */
void demo_thread_per_connection(const char *prog, int lfd, int (*take)(int lfd),
                                void (*serve)(int fd));

/*
 * A connection of an epoll server, the first member of the program's own connection struct.
 * epoll cannot list its set, so the server keeps its connections in a list (open), to close
 * them when it stops. These only link and unlink; the server itself calloc()s, epoll_ctl()s,
 * close()s and free()s.
 */
struct demo_conn {
    struct demo_conn *prev, *next; /* the list of open connections */
    int fd;
};

/* Puts c at the front of *open. */
void demo_conn_link(struct demo_conn **open, struct demo_conn *c);
/* Takes c out of *open. */
void demo_conn_unlink(struct demo_conn **open, struct demo_conn *c);

/* Sends all of buf with send(MSG_NOSIGNAL), looping likewise. 0 or a negative errno. */
int demo_send_all(int fd, const void *buf, size_t len);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t demo_now_ns(void);

/* nanosleep() for ns nanoseconds; SIGTERM cuts it short (the caller checks demo_stop). */
void demo_sleep_ns(uint64_t ns);

/* 1 once a second has passed since *since, which then becomes now: the pace of a once-a-second
   line. 0 before that. */
int demo_second_passed(uint64_t *since);

/*
 * Publishes one request of bytes bytes that took ns into the calling thread's slot of the
 * counter page (requests, bytes, latency histogram); nothing when app is NULL (no counting
 * shim). No system call.
 */
void demo_publish_request(struct iolab_app *app, uint64_t bytes, uint64_t ns);

/*
 * Who is waiting, for a client whose connections are threads: each thread stores in its `since`
 * (a uint64_t, atomically) the demo_now_ns() at which its request went out, and 0 once it is
 * answered; the main thread calls this about every DEMO_WAITING_EVERY_NS with the first
 * thread's `since` and the distance between two threads' (stride), and it publishes into the
 * main thread's slot what iolab counts: requests in flight, the ones out for
 * DEMO_WAITING_AFTER_NS or more (waiting), the oldest age and every age. Returns the waiting
 * count and the oldest age in *oldest_ns.
 */
#define DEMO_WAITING_EVERY_NS 100000000ull /* as often as iolab samples */
#define DEMO_WAITING_AFTER_NS 100000000ull
uint64_t demo_waiting_publish(const uint64_t *since, size_t n, size_t stride, uint64_t *oldest_ns);

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
    uint64_t waiting;        /* connections still waiting for an answer at the end */
    uint64_t oldest_wait_ns; /* how long the oldest of them had waited */
};

/* Prints the summary line to stdout; with_byte_rate adds bytes_per_s (the file client). The
   percentiles are the answered requests'; waiting=W oldest_wait_us=A follow at the end when a
   client was still waiting. */
void demo_summary_print(const struct demo_summary *s, int with_byte_rate);

#endif
