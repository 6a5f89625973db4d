/*
 * demo: shared plumbing of the demo programs (see demo.h). The calls a lesson teaches (accept4,
 * fork, pthread_create, epoll_wait, sendfile) are made in the demos' own files, not here; what
 * is here is what surrounds them: the command line, listening, what a failed accept4() costs,
 * the write loops, publishing figures, the histogram. Figures are published only by
 * demo_publish_request(), into the slot of the thread that calls it.
 */
#include "demo.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void demo_reserve_make(int lfd);

volatile sig_atomic_t demo_stop;

/*
 * A SIGTERM that lands after a loop checked demo_stop but before its accept() or read() went to
 * sleep interrupts nothing: that call would sleep until a client came, and the program would be
 * killed instead of ending. So the first stop signal also starts a 20 ms timer, and its SIGALRM
 * (this handler again, also without SA_RESTART) interrupts whatever call we block in next, until
 * we are gone. setitimer() is one system call; the timer is not inherited by fork()'s children,
 * which arm their own when their SIGTERM comes.
 */
static void demo_on_signal(int sig)
{
    if (sig != SIGALRM && !demo_stop) {
        struct itimerval kick = {.it_interval = {0, 20000}, .it_value = {0, 20000}};
        setitimer(ITIMER_REAL, &kick, NULL);
    }
    demo_stop = 1;
}

void demo_signals_init(void)
{
    /* No SA_RESTART: blocking calls must return EINTR so the loops notice demo_stop. */
    struct sigaction sa = {.sa_handler = demo_on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGALRM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
}

void demo_signals_mask(int how)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGALRM);
    pthread_sigmask(how, &set, NULL);
}

int demo_get_line(int fd, int is_socket, struct demo_line_buf *lb, char *line)
{
    for (;;) {
        char *nl = memchr(lb->buf, '\n', lb->have);
        if (nl || lb->have == sizeof lb->buf) { /* a full buffer without newline: cut it here */
            size_t len = nl ? (size_t)(nl - lb->buf) : lb->have;
            memcpy(line, lb->buf, len);
            line[len] = '\0';
            size_t used = nl ? len + 1 : len;
            memmove(lb->buf, lb->buf + used, lb->have - used);
            lb->have -= used;
            return 1;
        }
        ssize_t n = is_socket ? recv(fd, lb->buf + lb->have, sizeof lb->buf - lb->have, 0)
                              : read(fd, lb->buf + lb->have, sizeof lb->buf - lb->have);
        if (n < 0 && errno == EINTR && !demo_stop)
            continue; /* blocked, and a signal other than SIGTERM came: wait on */
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        lb->have += (size_t)n;
    }
}

/* ---- the command line ---- */

void demo_usage_error(const char *prog, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "; see %s --help.\n", prog);
    exit(2);
}

static uint64_t demo_parse_u64(const char *prog, const char *name, const char *s, uint64_t min,
                               uint64_t max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || errno || v < min || v > max)
        demo_usage_error(prog, "%s wants a whole number from %llu to %llu, not '%s'", name,
                         (unsigned long long)min, (unsigned long long)max, s);
    return v;
}

/* A size as a person writes it: "64M", "8K", "1000" (the largest unit that divides it). */
static void demo_size_text(uint64_t v, char *buf, size_t len)
{
    static const char units[] = "GMK";
    for (int i = 0; i < 3; i++) {
        unsigned shift = 30 - 10 * (unsigned)i;
        if (v >= (1ull << shift) && v % (1ull << shift) == 0) {
            snprintf(buf, len, "%llu%c", (unsigned long long)(v >> shift), units[i]);
            return;
        }
    }
    snprintf(buf, len, "%llu", (unsigned long long)v);
}

static uint64_t demo_parse_size(const char *prog, const char *name, const char *s, uint64_t max)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    unsigned shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
    if (shift)
        end++;
    if (*s < '0' || *s > '9' || *end || errno || v == 0 || v > (max >> shift)) {
        char most[32];
        demo_size_text(max, most, sizeof most);
        demo_usage_error(prog,
                         "%s wants a size from 1 byte to %s, in bytes or with K, M or G (such as "
                         "4096 or 4K), not '%s'",
                         name, most, s);
    }
    return (uint64_t)v << shift;
}

static double demo_parse_seconds(const char *prog, const char *name, const char *s)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v <= 0 || v > 1e6)
        demo_usage_error(prog, "%s wants a number of seconds greater than 0, not '%s'", name, s);
    return v;
}

static struct in_addr demo_parse_host(const char *prog, const char *s)
{
    struct in_addr a;
    if (inet_pton(AF_INET, s, &a) != 1)
        demo_usage_error(prog, "--host wants an IPv4 address such as 127.0.0.1, not '%s'", s);
    return a;
}

/* The row of mode i: rows are the program's own type, mode_size bytes apart. */
static const struct demo_mode *demo_cli_mode(const struct demo_cli *cli, size_t i)
{
    return (const struct demo_mode *)((const char *)cli->modes + i * cli->mode_size);
}

/* "a, b or c": the mode names as a sentence, for the error and the synopsis's sake. */
static void demo_cli_mode_list(const struct demo_cli *cli, char *out, size_t size)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < cli->nmodes && len < size; i++) {
        const char *sep = i == 0 ? "" : i + 1 == cli->nmodes ? " or " : ", ";
        len += (size_t)snprintf(out + len, size - len, "%s%s", sep, demo_cli_mode(cli, i)->name);
    }
}

/* Prints text (lines separated by '\n') starting at the current column, later lines at col. */
static void demo_cli_print_at(const char *text, int col)
{
    for (const char *nl; (nl = strchr(text, '\n')) != NULL; text = nl + 1)
        printf("%.*s\n%*s", (int)(nl - text), text, col, "");
    printf("%s\n", text);
}

static void demo_cli_help(const struct demo_cli *cli)
{
    printf("usage: %s %s\n\n", cli->prog, cli->usage);
    if (cli->about)
        printf("%s", cli->about);
    int col = (int)strlen("  --help");
    for (const struct demo_opt *o = cli->opts; o->name; o++) {
        int w = 2 + 2 + (int)strlen(o->name) + (o->arg ? 1 + (int)strlen(o->arg) : 0);
        col = w > col ? w : col;
    }
    col += 2;
    for (const struct demo_opt *o = cli->opts; o->name; o++) {
        int w = printf("  --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        printf("%*s", col - w, "");
        if (o->kind != DEMO_KIND_MODE) {
            demo_cli_print_at(o->help ? o->help : "", col);
            continue;
        }
        /* The modes, one a line: the name, then its help in a column of their own. */
        int name_w = 0;
        for (size_t i = 0; i < cli->nmodes; i++) {
            int n = (int)strlen(demo_cli_mode(cli, i)->name);
            name_w = n > name_w ? n : name_w;
        }
        if (o->help)
            printf("%s\n%*s", o->help, col, "");
        for (size_t i = 0; i < cli->nmodes; i++) {
            const struct demo_mode *m = demo_cli_mode(cli, i);
            printf("%-*s  ", name_w, m->name);
            demo_cli_print_at(m->help, col + name_w + 2);
            if (i + 1 < cli->nmodes)
                printf("%*s", col, "");
        }
    }
    printf("  --help%*sshow this help\n", col - (int)strlen("  --help"), "");
    if (cli->footer)
        printf("%s", cli->footer);
    printf("Stops cleanly (status 0) on SIGTERM or SIGINT.\n"); /* every demo does */
}

/* The mode named s, or the end of the program with the list of the names. */
static const struct demo_mode *demo_cli_find_mode(const struct demo_cli *cli, const char *s)
{
    for (size_t i = 0; i < cli->nmodes; i++)
        if (strcmp(demo_cli_mode(cli, i)->name, s) == 0)
            return demo_cli_mode(cli, i);
    char names[512];
    demo_cli_mode_list(cli, names, sizeof names);
    demo_usage_error(cli->prog, "--mode must be %s, not '%s'", names, s);
}

static const struct demo_opt *demo_cli_find_opt(const struct demo_cli *cli, const char *name)
{
    for (const struct demo_opt *o = cli->opts; o->name; o++)
        if (strcmp(o->name, name) == 0)
            return o;
    return NULL;
}

/* Options a program may have. getopt_long() returns an option's index in the table, so these
 * stay below the '?' and ':' it returns for errors; --help gets the next value. */
#define DEMO_CLI_MAX_OPTS 32
#define DEMO_CLI_HELP     DEMO_CLI_MAX_OPTS

const void *demo_cli_parse(const struct demo_cli *cli, int argc, char **argv)
{
    /* getopt_long() does the reading, so --opt=value and unambiguous abbreviations work as in
     * any GNU program; the table says what each value means. */
    struct option longopts[DEMO_CLI_MAX_OPTS + 2] = {{0}};
    unsigned char seen[DEMO_CLI_MAX_OPTS] = {0};
    size_t n = 0;
    for (const struct demo_opt *o = cli->opts; o->name && n < DEMO_CLI_MAX_OPTS; o++, n++)
        longopts[n] = (struct option){
            o->name, o->kind == DEMO_KIND_FLAG ? no_argument : required_argument, NULL, (int)n};
    longopts[n] = (struct option){"help", no_argument, NULL, DEMO_CLI_HELP};
    const struct demo_mode *mode = NULL;
    const char *p = cli->prog;
    int c;
    opterr = 0; /* we print our own one-sentence errors */
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        if (c == DEMO_CLI_HELP) {
            demo_cli_help(cli);
            exit(0);
        }
        if (c < 0 || (size_t)c >= n)
            demo_usage_error(p, "unknown option or missing value in '%s'", argv[optind - 1]);
        const struct demo_opt *o = &cli->opts[c];
        char name[64];
        snprintf(name, sizeof name, "--%s", o->name);
        seen[c] = 1;
        switch (o->kind) {
        case DEMO_KIND_FLAG:
            *o->to.flag = 1;
            break;
        case DEMO_KIND_TEXT:
            *o->to.text = optarg;
            break;
        case DEMO_KIND_U64:
            *o->to.u64 = demo_parse_u64(p, name, optarg, o->min, o->max);
            break;
        case DEMO_KIND_SIZE:
            *o->to.u64 = demo_parse_size(p, name, optarg, o->max);
            break;
        case DEMO_KIND_SECONDS:
            *o->to.seconds = demo_parse_seconds(p, name, optarg);
            break;
        case DEMO_KIND_HOST:
            o->to.host->name = optarg;
            break;
        case DEMO_KIND_MODE:
            mode = demo_cli_find_mode(cli, optarg);
            break;
        }
        if (o->after)
            o->after();
    }
    if (optind < argc)
        demo_usage_error(p, "unexpected argument '%s'", argv[optind]);
    for (size_t i = 0; i < n; i++)
        if (cli->opts[i].required && !seen[i])
            demo_usage_error(p, "--%s is required", cli->opts[i].name);
    if (cli->check)
        cli->check();
    for (size_t i = 0; i < n; i++) {
        const struct demo_opt *o = &cli->opts[i], *other;
        if (seen[i] && o->not_with && (other = demo_cli_find_opt(cli, o->not_with)) != NULL &&
            seen[other - cli->opts])
            demo_usage_error(p, "give --%s or --%s, not both", o->name, o->not_with);
    }
    for (size_t i = 0; i < n; i++)
        if (cli->opts[i].kind == DEMO_KIND_HOST)
            cli->opts[i].to.host->addr = demo_parse_host(p, cli->opts[i].to.host->name);
    return mode;
}

/* ---- starting up ---- */

void demo_ready(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

void demo_check_room(const char *prog, const char *dir, uint64_t need)
{
    struct statvfs vfs;
    if (statvfs(dir, &vfs) < 0)
        demo_usage_error(prog, "--dir '%s' cannot be used (%s)", dir, strerror(errno));
    need += 256u << 20; /* a margin: never fill the disk */
    if ((uint64_t)vfs.f_bavail * vfs.f_frsize < need)
        demo_usage_error(prog, "--dir '%s' has less than %llu MiB free; use a smaller --size", dir,
                         (unsigned long long)(need >> 20));
}

struct sockaddr_in demo_sockaddr(const struct demo_host *host, uint64_t port)
{
    return (struct sockaddr_in){
        .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr = host->addr};
}

int demo_connect(const char *prog, const struct demo_host *host, uint64_t port)
{
    struct sockaddr_in sa = demo_sockaddr(host, port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0)
        return fd;
    fprintf(stderr, "%s: cannot connect to %s:%llu: %s\n", prog, host->name,
            (unsigned long long)port, strerror(errno));
    if (fd >= 0)
        close(fd);
    return -1;
}

int demo_listen(struct in_addr host, unsigned port, unsigned *bound)
{
    int err, one = 1;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    /* A restarted server (the learner switched modes) must not wait for TIME_WAIT to expire. */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = host};
    socklen_t len = sizeof sa;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, SOMAXCONN) < 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
        goto fail;
    *bound = ntohs(sa.sin_port);
    return fd;
fail:
    err = -errno;
    close(fd);
    return err;
}

int demo_listen_or_exit(const char *prog, const struct demo_host *host, uint64_t port,
                        unsigned *bound)
{
    int lfd = demo_listen(host->addr, (unsigned)port, bound);
    if (lfd < 0) {
        fprintf(stderr, "%s: cannot listen on %s:%llu: %s\n", prog, host->name,
                (unsigned long long)port, strerror(-lfd));
        exit(1);
    }
    demo_reserve_make(lfd); /* before any accept() can find the descriptors all taken */
    return lfd;
}

int demo_server_start(const char *prog, const struct demo_host *host, uint64_t port,
                      const char *fmt, ...)
{
    demo_signals_init();
    unsigned bound;
    int lfd = demo_listen_or_exit(prog, host, port, &bound);
    char extra[256] = "";
    va_list ap;
    va_start(ap, fmt);
    if (fmt)
        vsnprintf(extra, sizeof extra, fmt, ap);
    va_end(ap);
    demo_ready("listening on %s:%u%s%s", host->name, bound, extra[0] ? " " : "", extra);
    return lfd;
}

/* ---- limits, said out loud ---- */

/* The rlimit behind each cause, and how to say its value; RLIM_NLIMITS: none. */
static const struct {
    int resource;
    const char *what; /* "the sandbox allows N <what>" */
    rlim_t unit;      /* the value is shown in these */
} demo_cause_limit[IOLAB_FAIL_NCAUSES] = {
    [IOLAB_CAUSE_OPEN_FILES] = {RLIMIT_NOFILE, "open files per process (RLIMIT_NOFILE)", 1},
    [IOLAB_CAUSE_SYSTEM_FILES] = {RLIM_NLIMITS, NULL, 1},
    [IOLAB_CAUSE_PROCESSES] = {RLIMIT_NPROC, "processes and threads (RLIMIT_NPROC)", 1},
    [IOLAB_CAUSE_MEMORY] = {RLIMIT_AS, "MiB of address space per process (RLIMIT_AS)", 1 << 20},
    [IOLAB_CAUSE_OTHER] = {RLIM_NLIMITS, NULL, 1},
};

enum iolab_fail_cause demo_fail_cause(enum iolab_fail_call call, int err)
{
    switch (err) {
    case EMFILE:
        return IOLAB_CAUSE_OPEN_FILES;
    case ENFILE:
        return IOLAB_CAUSE_SYSTEM_FILES;
    case ENOMEM:
        return IOLAB_CAUSE_MEMORY;
    case EAGAIN:
        /* fork() and clone() say EAGAIN when RLIMIT_NPROC is reached; glibc's pthread_create()
           says it too when the new thread's stack cannot be mapped: try a mapping that size. */
        if (call == IOLAB_FAIL_THREAD) {
            void *p = mmap(NULL, DEMO_THREAD_STACK, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED)
                return IOLAB_CAUSE_MEMORY;
            munmap(p, DEMO_THREAD_STACK);
        }
        return call == IOLAB_FAIL_ACCEPT ? IOLAB_CAUSE_OTHER : IOLAB_CAUSE_PROCESSES;
    default:
        return IOLAB_CAUSE_OTHER;
    }
}

void demo_fail_say(const char *prog, enum iolab_fail_call call, int err, char *buf, size_t len)
{
    enum iolab_fail_cause cause = demo_fail_cause(call, err);
    struct rlimit rl;
    int res = demo_cause_limit[cause].resource;
    /* A jail with a cgroup of its own counts processes there (pids.max, which iolab-sandbox
       passes in IOLAB_JAIL_PIDS), unless a tighter RLIMIT_NPROC was set inside it. */
    const char *jail = cause == IOLAB_CAUSE_PROCESSES ? getenv("IOLAB_JAIL_PIDS") : NULL;
    if (jail && getrlimit(RLIMIT_NPROC, &rl) == 0 &&
        (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > strtoull(jail, NULL, 10)))
        snprintf(buf, len,
                 "%s: %s failed: the sandbox allows %llu processes and threads in the whole jail "
                 "(cgroup pids.max) (%s)",
                 prog, iolab_fail_call_name[call], strtoull(jail, NULL, 10), strerror(err));
    else if (res != RLIM_NLIMITS && getrlimit(res, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        snprintf(buf, len, "%s: %s failed: the sandbox allows %llu %s (%s)", prog,
                 iolab_fail_call_name[call],
                 (unsigned long long)(rl.rlim_cur / demo_cause_limit[cause].unit),
                 demo_cause_limit[cause].what, strerror(err));
    else
        snprintf(buf, len, "%s: %s failed: %s", prog, iolab_fail_call_name[call], strerror(err));
}

void demo_fail(const char *prog, enum iolab_fail_call call, int err)
{
    /* One line a second at most: a server at its limit fails for every new connection. The
       client threads may fail at once: the bookkeeping is atomic, and a race costs one line. */
    static uint64_t said_at[IOLAB_FAIL_NCALLS], unsaid[IOLAB_FAIL_NCALLS];
    struct iolab_app *app = iolab_app();
    if (app)
        iolab_add(&app->failed[call][demo_fail_cause(call, err)], 1);
    uint64_t now = demo_now_ns(), last = __atomic_load_n(&said_at[call], __ATOMIC_RELAXED);
    if ((last && now - last < 1000000000u) ||
        !__atomic_compare_exchange_n(&said_at[call], &last, now, 0, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED)) {
        __atomic_add_fetch(&unsaid[call], 1, __ATOMIC_RELAXED);
        return;
    }
    char line[256];
    demo_fail_say(prog, call, err, line, sizeof line);
    uint64_t more = __atomic_exchange_n(&unsaid[call], 0, __ATOMIC_RELAXED);
    if (more)
        fprintf(stderr, "%s; %llu more since the last such line\n", line, (unsigned long long)more);
    else
        fprintf(stderr, "%s\n", line);
}

/*
 * The descriptor kept in reserve for EMFILE and ENFILE (a copy of the listening socket, so it
 * needs no file system): when accept() finds no descriptor left, the connection would stay in
 * the backlog, the listener would stay readable, and an event loop would wake up for it again at
 * once, for ever. Closing the reserve makes room to accept the newest connection and close it at
 * once (the client sees the connection closed, and may try again later), then the reserve is
 * taken back: the server keeps serving what it has. libuv and others do the same. It is made
 * when the server starts listening; a forked child, which never accepts, drops its copy.
 */
static int demo_reserve = -1;

static void demo_reserve_drop(void)
{
    if (demo_reserve >= 0)
        close(demo_reserve);
    demo_reserve = -1;
}

static void demo_reserve_atfork(void)
{
    pthread_atfork(NULL, NULL, demo_reserve_drop); /* a child runs it right after fork() */
}

static void demo_reserve_make(int lfd)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (demo_reserve >= 0)
        return;
    demo_reserve = fcntl(lfd, F_DUPFD_CLOEXEC, 0);
    pthread_once(&once, demo_reserve_atfork); /* before the first fork() */
}

static int demo_accept_shed(const char *prog, int lfd, int err)
{
    demo_fail(prog, IOLAB_FAIL_ACCEPT, err);
    if (demo_reserve < 0)
        return -1;
    close(demo_reserve);
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        struct iolab_app *app = iolab_app();
        if (app)
            iolab_add(&app->shed, 1);
    }
    demo_reserve = fcntl(lfd, F_DUPFD_CLOEXEC, 0);
    return fd >= 0 ? 0 : -1;
}

int demo_accept_failed(const char *prog, int lfd, int err)
{
    if (err == EINTR || err == ECONNABORTED)
        return !demo_stop;
    if (err == EAGAIN)
        return 0; /* non-blocking listener (epoll): nothing more to accept now */
    if ((err == EMFILE || err == ENFILE) && demo_accept_shed(prog, lfd, err) == 0)
        return !demo_stop; /* shed the newest; an event loop goes on until the backlog is empty */
    if (err == EMFILE || err == ENFILE) {
        /* No reserve either: back off, without stalling an event loop for longer. */
        if (fcntl(lfd, F_GETFL) & O_NONBLOCK)
            return 0;
    } else {
        demo_fail(prog, IOLAB_FAIL_ACCEPT, err);
    }
    usleep(10000); /* out of memory: back off instead of spinning */
    return !demo_stop;
}

int demo_accept(const char *prog, int lfd, int flags)
{
    demo_reserve_make(lfd);
    while (!demo_stop) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | flags);
        if (fd >= 0)
            return fd;
        if (!demo_accept_failed(prog, lfd, errno))
            break;
    }
    return -1;
}

/* ---- the children of a fork server ---- */

static pid_t *demo_kids; /* live children of a fork-per-connection server */
static size_t demo_nkids, demo_kids_cap;

static void demo_on_child(int sig)
{
    (void)sig; /* only here to interrupt accept(), so the loop reaps at once */
}

void demo_children_watch(void)
{
    struct sigaction sa = {.sa_handler = demo_on_child}; /* no SA_RESTART, see demo.h */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
}

void demo_children_add(const char *prog, pid_t pid)
{
    if (demo_nkids == demo_kids_cap) {
        size_t cap = demo_kids_cap ? 2 * demo_kids_cap : 64;
        pid_t *kids = realloc(demo_kids, cap * sizeof *kids);
        if (!kids) { /* a child we could not stop later must not run: end it, say why */
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            demo_fail(prog, IOLAB_FAIL_FORK, ENOMEM);
            return;
        }
        demo_kids = kids;
        demo_kids_cap = cap;
    }
    demo_kids[demo_nkids++] = pid;
}

void demo_children_forget(pid_t pid)
{
    for (size_t i = 0; i < demo_nkids; i++)
        if (demo_kids[i] == pid) {
            demo_kids[i] = demo_kids[--demo_nkids];
            return;
        }
}

void demo_children_end(void)
{
    for (size_t i = 0; i < demo_nkids; i++)
        kill(demo_kids[i], SIGTERM);
    while (demo_nkids > 0) {
        pid_t pid = waitpid(-1, NULL, 0);
        if (pid < 0 && errno != EINTR)
            break;
        if (pid > 0)
            demo_children_forget(pid);
    }
    free(demo_kids);
    demo_kids = NULL;
    demo_nkids = demo_kids_cap = 0;
}

/* ---- ipc-proxy's thread per connection ---- */

static void (*demo_thread_serve)(int fd); /* serve() of demo_thread_per_connection */

static void *demo_thread_main(void *arg)
{
    demo_thread_serve((int)(intptr_t)arg);
    return NULL;
}

void demo_thread_per_connection(const char *prog, int lfd, int (*take)(int lfd),
                                void (*serve)(int fd))
{
    demo_thread_serve = serve;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, DEMO_THREAD_STACK);
    int fd;
    while ((fd = take(lfd)) >= 0) {
        pthread_t t;
        demo_signals_mask(SIG_BLOCK); /* the new thread inherits the mask */
        int err = pthread_create(&t, &attr, demo_thread_main, (void *)(intptr_t)fd);
        demo_signals_mask(SIG_UNBLOCK);
        if (err) { /* the connection is closed unserved: say why, and count it */
            demo_fail(prog, IOLAB_FAIL_THREAD, err);
            close(fd);
        }
    }
    pthread_attr_destroy(&attr);
}

/* ---- the list of an epoll server's connections ---- */

void demo_conn_link(struct demo_conn **open, struct demo_conn *c)
{
    c->prev = NULL;
    c->next = *open;
    if (*open)
        (*open)->prev = c;
    *open = c;
}

void demo_conn_unlink(struct demo_conn **open, struct demo_conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        *open = c->next;
    if (c->next)
        c->next->prev = c->prev;
}

/* ---- I/O loops, time, figures ---- */

int demo_write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR && !demo_stop)
            continue;
        if (n < 0)
            return -errno;
        p += n; /* a short write: the socket buffer filled up; send the rest */
        len -= (size_t)n;
    }
    return 0;
}

int demo_send_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR && !demo_stop)
            continue;
        if (n < 0)
            return -errno;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

uint64_t demo_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void demo_sleep_ns(uint64_t ns)
{
    struct timespec ts = {.tv_sec = (time_t)(ns / 1000000000u),
                          .tv_nsec = (long)(ns % 1000000000u)};
    nanosleep(&ts, NULL);
}

int demo_second_passed(uint64_t *since)
{
    uint64_t now = demo_now_ns();
    if (now - *since < 1000000000u)
        return 0;
    *since = now;
    return 1;
}

uint64_t demo_waiting_publish(const uint64_t *since, size_t n, size_t stride, uint64_t *oldest_ns)
{
    static uint64_t hist[IOLAB_HIST_BUCKETS];
    uint64_t now = demo_now_ns(), in_flight = 0, waiting = 0;
    *oldest_ns = 0;
    memset(hist, 0, sizeof hist);
    for (size_t i = 0; i < n; i++) {
        const uint64_t *p = (const uint64_t *)((const char *)since + i * stride);
        uint64_t t = __atomic_load_n(p, __ATOMIC_RELAXED);
        if (!t || t > now)
            continue;
        uint64_t age = now - t;
        hist[iolab_hist_bucket(age)]++;
        in_flight++;
        waiting += age >= DEMO_WAITING_AFTER_NS;
        if (age > *oldest_ns)
            *oldest_ns = age;
    }
    struct iolab_app *app = iolab_app();
    if (app) {
        for (unsigned b = 0; b < IOLAB_HIST_BUCKETS; b++)
            __atomic_store_n(&app->in_flight_hist[b], hist[b], __ATOMIC_RELAXED);
        __atomic_store_n(&app->in_flight, in_flight, __ATOMIC_RELAXED);
        __atomic_store_n(&app->waiting, waiting, __ATOMIC_RELAXED);
        __atomic_store_n(&app->in_flight_oldest_ns, *oldest_ns, __ATOMIC_RELAXED);
    }
    return waiting;
}

void demo_publish_request(struct iolab_app *app, uint64_t bytes, uint64_t ns)
{
    if (!app)
        return;
    iolab_add(&app->requests, 1);
    iolab_add(&app->bytes, bytes);
    iolab_app_latency(app, ns);
}

int demo_hist_init(struct demo_hist *h)
{
    /* 8 MB of address space, but an anonymous mapping costs memory only where samples land. */
    size_t size = (DEMO_HIST_US + 1) * sizeof(uint64_t);
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return -errno;
    *h = (struct demo_hist){.us = p};
    return 0;
}

void demo_hist_free(struct demo_hist *h)
{
    if (h->us)
        munmap(h->us, (DEMO_HIST_US + 1) * sizeof(uint64_t));
    h->us = NULL;
}

void demo_hist_add(struct demo_hist *h, uint64_t ns)
{
    uint64_t us = ns / 1000;
    h->us[us < DEMO_HIST_US ? us : DEMO_HIST_US]++;
    h->count++;
    if (ns > h->max_ns)
        h->max_ns = ns;
}

void demo_hist_merge(struct demo_hist *dst, const struct demo_hist *src)
{
    for (size_t i = 0; i <= DEMO_HIST_US; i++)
        if (src->us[i])
            dst->us[i] += src->us[i];
    dst->count += src->count;
    if (src->max_ns > dst->max_ns)
        dst->max_ns = src->max_ns;
}

uint64_t demo_hist_percentile_us(const struct demo_hist *h, double q)
{
    if (h->count == 0)
        return 0;
    /* The smallest bucket at which at least ceil(q * count) samples have been seen. */
    uint64_t want = (uint64_t)ceil(q * (double)h->count), seen = 0;
    if (want == 0)
        want = 1;
    for (size_t i = 0; i <= DEMO_HIST_US; i++) {
        seen += h->us[i];
        if (seen >= want)
            return i;
    }
    return DEMO_HIST_US;
}

void demo_summary_print(const struct demo_summary *s, int with_byte_rate)
{
    double secs = s->seconds > 0 ? s->seconds : 1e-9;
    printf("requests=%llu seconds=%.2f req_per_s=%.0f bytes=%llu", (unsigned long long)s->requests,
           s->seconds, (double)s->requests / secs, (unsigned long long)s->bytes);
    if (with_byte_rate)
        printf(" bytes_per_s=%.0f", (double)s->bytes / secs);
    printf(" p50_us=%llu p99_us=%llu p999_us=%llu max_us=%llu errors=%llu",
           (unsigned long long)demo_hist_percentile_us(s->hist, 0.50),
           (unsigned long long)demo_hist_percentile_us(s->hist, 0.99),
           (unsigned long long)demo_hist_percentile_us(s->hist, 0.999),
           (unsigned long long)(s->hist->max_ns / 1000), (unsigned long long)s->errors);
    if (s->waiting)
        printf(" waiting=%llu oldest_wait_us=%llu", (unsigned long long)s->waiting,
               (unsigned long long)(s->oldest_wait_ns / 1000));
    printf("\n");
    fflush(stdout);
}
