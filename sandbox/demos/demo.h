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
 * - The command line: options and modes are const tables, parsed by one call that also writes
 *   --help; every bad argument ends the program with one sentence on stderr and status 2.
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

/*
 * The command line. A program describes itself once, as data: a table of options (what each
 * takes, where its value goes, its line in --help) and a table of modes (a name, a line of help
 * and the program's own functions). demo_cli_parse() reads argv against them in one call, prints
 * the --help it generates from them, and ends the program on a bad argument, so that main() is
 * left with the I/O: parse, set up, run the mode.
 */

/* How an option's value is read and checked, and which member of `to` receives it. */
enum demo_opt_kind {
    DEMO_OPT_FLAG,    /* no value: *to.flag = 1 */
    DEMO_OPT_TEXT,    /* any text: *to.text (argv's own string) */
    DEMO_OPT_U64,     /* a whole number in [min, max]: *to.u64 */
    DEMO_OPT_SIZE,    /* bytes with an optional K, M or G suffix, in [1, max]: *to.u64 */
    DEMO_OPT_SECONDS, /* seconds, fractional, > 0: *to.seconds */
    DEMO_OPT_HOST,    /* an IPv4 address: *to.host (checked once the other options are read) */
    DEMO_OPT_MODE,    /* a name from the program's mode table: demo_cli_parse() returns its row */
};

/* --host as given (for messages and the ready line) and as an address. */
struct demo_host {
    const char *name; /* the default goes here: {.name = "127.0.0.1"} */
    struct in_addr addr;
};

struct demo_opt {
    const char *name;        /* "port" for --port */
    enum demo_opt_kind kind; /* how its value is read */
    union {
        int *flag;
        const char **text;
        uint64_t *u64;
        double *seconds;
        struct demo_host *host;
    } to;                 /* where the value goes */
    uint64_t min, max;    /* DEMO_OPT_U64: the range; DEMO_OPT_SIZE: max */
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

struct demo_cli {
    const char *prog;            /* the program's name: in --help and in every error */
    const char *usage;           /* the synopsis after "usage: PROG " */
    const char *about;           /* what the program does (lines ending in '\n'), or NULL */
    const struct demo_opt *opts; /* the options, ending with {0}; --help is added */
    const void *modes;           /* the mode table: rows that start with a struct demo_mode */
    size_t nmodes, mode_size;    /* set by DEMO_MODES(table) */
    const char *footer;          /* printed after the options, or NULL */
    void (*check)(void);         /* if set, checks options that depend on each other */
};

/* The --port and --host rows of a server's option table (--port 0: any free port). */
#define DEMO_OPTS_LISTEN(port_p, host_p)                                                           \
    {.name = "port",                                                                               \
     .kind = DEMO_OPT_U64,                                                                         \
     .to.u64 = (port_p),                                                                           \
     .max = 65535,                                                                                 \
     .required = 1,                                                                                \
     .arg = "P",                                                                                   \
     .help = "TCP port to listen on (0: any free port, printed at start)"},                        \
    {                                                                                              \
        .name = "host", .kind = DEMO_OPT_HOST, .to.host = (host_p), .arg = "H",                    \
        .help = "IPv4 address to listen on (default 127.0.0.1)"                                    \
    }

/* The --port and --host rows of a client's option table: where its server is. */
#define DEMO_OPTS_CONNECT(port_p, host_p)                                                          \
    {.name = "port",                                                                               \
     .kind = DEMO_OPT_U64,                                                                         \
     .to.u64 = (port_p),                                                                           \
     .min = 1,                                                                                     \
     .max = 65535,                                                                                 \
     .required = 1,                                                                                \
     .arg = "P",                                                                                   \
     .help = "the server's TCP port"},                                                             \
    {                                                                                              \
        .name = "host", .kind = DEMO_OPT_HOST, .to.host = (host_p), .arg = "H",                    \
        .help = "the server's IPv4 address (default 127.0.0.1)"                                    \
    }

/* The --seconds row of a program that runs until a time limit, or else until SIGTERM. */
#define DEMO_OPT_SECONDS(seconds_p)                                                                \
    {                                                                                              \
        .name = "seconds", .kind = DEMO_OPT_SECONDS, .to.seconds = (seconds_p), .arg = "T",        \
        .help = "stop after T seconds (default: run until SIGTERM or SIGINT)"                      \
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
 * For an option naming a directory to create files in: ends the program (status 2) unless the
 * directory exists and has need bytes plus 256 MiB free, so a demo never fills the disk.
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

/*
 * pthread_create() of a detached thread running fn(arg), started with SIGTERM and SIGINT blocked
 * so that they always reach the thread that accepts (and whose accept() they must interrupt).
 * 0, or a negative errno after saying why on stderr.
 */
int demo_thread_detached(const char *prog, void *(*fn)(void *), void *arg);

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
