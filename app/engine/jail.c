/*
 * jail: the engine's side of iolab-sandbox. jail_open() starts one holder per scenario
 * (`iolab-sandbox --hold STATUS_FD,LIFE_FD`), which builds the best jail the machine allows and
 * reports it as one JSON line; every program then runs as `iolab-sandbox --join PID ...`.
 *
 * Lifetime: the holder lives exactly as long as the life pipe's write end, which only this
 * process holds (close-on-exec, so no program inherits it). jail_close() closes it; so does the
 * kernel when iolab dies in any way, SIGKILL included, and the holder then kills what is left,
 * sweeps the IPC objects and removes the work directory. The holder runs in its own session so
 * that a ^C at the terminal reaches iolab, which stops the programs in order, and not the jail.
 */
#include "jail.h"
#include "paths.h"
#include "sandbox_line.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define JAIL_FULL_PORT   8000 /* in the private network namespace nothing else can hold it */
#define JAIL_REPORT_WAIT 5000 /* ms for the holder's report; it normally takes a few */
#define JAIL_MAX_VISIBLE 24   /* paths shown read-only under the private /tmp (--ro) */

struct jail {
    pid_t holder;          /* iolab-sandbox --hold */
    pid_t join_pid;        /* what --join names: the holder's init (full tier) or the holder */
    int life_fd;           /* write end of the life pipe; closing it ends the jail */
    int port;              /* the scenario's TCP port */
    enum iolab_tier tier;  /* in force */
    double timeout_s;      /* per-program wall-clock limit; 0: none */
    char *sandbox;         /* iolab-sandbox */
    char *workdir;         /* the scenario's work directory */
    char session[64];      /* IOLAB_SESSION, the IPC name prefix */
    char describe[4096];   /* the holder's `sandbox` JSON object */
    char missing[768];     /* one line for the status bar; "" when nothing is missing */
    char cgroup[2][4096];  /* the jail's cgroup directories (pids, memory); "": none */
    char uid[16];          /* the uid the programs run as (--uid); "": the sandbox's default */
    long limits[3];        /* --nofile, --nproc, --as of every program; 0: the default */
    bool counts_protected; /* no program can reach another's counter page (jail.h) */
};

static const char *const jail_limit_flags[3] = {"--nofile", "--nproc", "--as"};

/* The whole jail's processes and threads (its cgroup's pids.max): every program's own budget
   several times over, since a scenario runs a server and its clients side by side. */
#define JAIL_PIDS_PER_PROGRAM 4
#define JAIL_PIDS_SLACK       64
#define JAIL_DEFAULT_NPROC    256 /* iolab-sandbox's --nproc default */

/* What the status line says the jail's budget lacks, by the holder's "budget" field. */
static const char *jail_budget_lacks(const char *budget, bool memory)
{
    if (!strcmp(budget, "per_process"))
        return "no process or memory budget of its own: its programs share their uid's process "
               "count with other sessions (per-process limits only)";
    if (!memory)
        return "no memory cap for the whole jail (per-process limits only)";
    return "";
}

/* What the status line says each lower tier lacks (the advice sentence follows it). */
static const char *const jail_tier_lacks[] = {
    [IOLAB_TIER_FULL] = "",
    [IOLAB_TIER_REDUCED] = "no private network, IPC or PID namespace, and /tmp is the host's "
                           "(not private, not capped)",
    [IOLAB_TIER_MINIMAL] = "no namespaces and no Landlock: only rlimits and reaping; /tmp is "
                           "the host's (not private, not capped)",
    [IOLAB_TIER_AUTO] = "",
};

static int jail_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof sa;
    int rc = bind(fd, (struct sockaddr *)&sa, sizeof sa);
    if (rc == 0)
        rc = getsockname(fd, (struct sockaddr *)&sa, &len);
    rc = rc < 0 ? -errno : ntohs(sa.sin_port);
    close(fd);
    return rc;
}

/* Copies the string value of "key" in a flat JSON text into out; 0 or -ENOENT. */
/* Reads the holder's first line (its report, or its error message) within the time limit. */
static int jail_read_line(int fd, char *buf, size_t len)
{
    size_t used = 0;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (used + 1 < len && !memchr(buf, '\n', used)) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
        struct pollfd p = {.fd = fd, .events = POLLIN};
        int r = poll(&p, 1, (int)(JAIL_REPORT_WAIT - ms));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return r == 0 ? -ETIMEDOUT : -errno;
        ssize_t n = read(fd, buf + used, len - 1 - used);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        used += (size_t)n;
        buf[used] = '\0';
    }
    buf[used] = '\0';
    char *nl = strchr(buf, '\n');
    if (nl)
        *nl = '\0';
    return used ? 0 : -EPIPE;
}

static pid_t jail_spawn_holder(struct jail *j, const struct jail_options *opts, int status_w,
                               int life_r)
{
    char fds[32], tmp_mb[32];
    snprintf(fds, sizeof fds, "%d,%d", status_w, life_r);
    snprintf(tmp_mb, sizeof tmp_mb, "%ld", opts->tmp_mb);
    char pids[32];
    long each = opts->processes > 0 ? opts->processes : JAIL_DEFAULT_NPROC;
    snprintf(pids, sizeof pids, "%ld", each * JAIL_PIDS_PER_PROGRAM + JAIL_PIDS_SLACK);
    const char *argv[20 + 2 * JAIL_MAX_VISIBLE] = {
        j->sandbox, "--hold",           fds,      "--workdir", j->workdir, "--session",
        j->session, "--remove-workdir", "--pids", pids};
    size_t n = 10;
    if (opts->tier != IOLAB_TIER_AUTO) {
        argv[n++] = "--tier";
        argv[n++] = iolab_tier_name(opts->tier);
    }
    if (opts->tmp_mb > 0) {
        argv[n++] = "--tmp-size";
        argv[n++] = tmp_mb;
    }
    /* The holder builds the mount namespace every program joins: what must stay visible under
       the private /tmp (iolab's tree, the pack) is named here, once per scenario. */
    char *visible[JAIL_MAX_VISIBLE];
    size_t nvisible = 0;
    paths_jail_tree(visible, &nvisible, JAIL_MAX_VISIBLE);
    for (const char *const *v = opts->visible; v && *v; v++)
        paths_jail_add(*v, 0, visible, &nvisible, JAIL_MAX_VISIBLE);
    for (size_t i = 0; i < nvisible; i++) {
        argv[n++] = "--ro";
        argv[n++] = visible[i];
    }
    argv[n] = NULL;
    pid_t pid = fork();
    for (size_t i = 0; pid != 0 && i < nvisible; i++)
        free(visible[i]);
    if (pid != 0)
        return pid < 0 ? -errno : pid;
    setsid();
    /* The holder keeps only its two pipe ends; its error messages go to iolab as the report. */
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(devnull, 1);
    dup2(status_w, 2);
    fcntl(status_w, F_SETFD, 0);
    fcntl(life_r, F_SETFD, 0);
    execv(j->sandbox, (char **)argv);
    dprintf(2, "cannot run %s: %s\n", j->sandbox, strerror(errno));
    _exit(127);
}

/*
 * Whether one program of the jail can reach another's counter page, and the `sandbox` object of
 * `iolab run --json` saying so. Each program holds only its own page (engine.c), but every
 * program runs under the same uid and sees the host's /proc (the full tier's PID namespaces do
 * not remount it), so /proc/PID/fd/3 and /proc/PID/mem of another program are a way in unless
 * the kernel refuses that access. Landlock does: each program is sandboxed in a domain of its
 * own, and a sandboxed process may not even read-trace (PTRACE_MODE_READ, what opening another
 * process's fd or mem needs) a process outside its domain. The full and reduced tiers apply
 * Landlock when the kernel has it (landlock_abi > 0); the minimal tier has none, and there a
 * program can write any other program's page (tests/hostile/slotforge.c does).
 */
static void jail_note_counts(struct jail *j, uint64_t abi)
{
    j->counts_protected = j->tier != IOLAB_TIER_MINIMAL && abi > 0;
    size_t n = strlen(j->describe);
    if (n > 1 && j->describe[n - 1] == '}' &&
        n + sizeof ",\"counts_protected\":false" < sizeof j->describe)
        snprintf(j->describe + n - 1, sizeof j->describe - (n - 1), ",\"counts_protected\":%s}",
                 j->counts_protected ? "true" : "false");
}

int jail_open(struct jail **out, const struct jail_options *opts, char *why, size_t whylen)
{
    static unsigned serial;
    int status[2] = {-1, -1}, life[2] = {-1, -1}, rc = -ENOMEM;
    struct jail *j = calloc(1, sizeof *j);
    if (!j || !(j->sandbox = strdup(opts->sandbox_path)) || !(j->workdir = strdup(opts->workdir))) {
        snprintf(why, whylen, "out of memory");
        goto fail;
    }
    j->life_fd = -1;
    j->holder = -1;
    j->timeout_s = opts->timeout_s;
    j->limits[0] = opts->open_files;
    j->limits[1] = opts->processes;
    j->limits[2] = opts->address_space_mb;
    snprintf(j->session, sizeof j->session, "iolab-%d-%u-", (int)getpid(), serial++);
    if (pipe2(status, O_CLOEXEC) < 0 || pipe2(life, O_CLOEXEC) < 0) {
        rc = -errno;
        snprintf(why, whylen, "cannot create the sandbox pipes: %s", strerror(-rc));
        goto fail;
    }
    j->holder = jail_spawn_holder(j, opts, status[1], life[0]);
    close(status[1]);
    close(life[0]);
    status[1] = life[0] = -1;
    if (j->holder < 0) {
        rc = j->holder;
        snprintf(why, whylen, "cannot start %s: %s", j->sandbox, strerror(-rc));
        goto fail;
    }
    j->life_fd = life[1];
    life[1] = -1;
    char line[12800];
    rc = jail_read_line(status[0], line, sizeof line);
    if (rc == 0 && line[0] != '{') {
        snprintf(why, whylen, "the sandbox could not be built: %s", line);
        rc = -EPERM;
        goto fail;
    }
    if (rc < 0) {
        snprintf(why, whylen, "the sandbox (%s) did not report: %s", j->sandbox, strerror(-rc));
        goto fail;
    }
    /* The line is read once: the `sandbox` object is kept as text for `iolab run --json`, and
       what the jail can do is read from its typed fields; the sentences beside them (missing,
       advice) are for people, and only advice is passed on, whole. */
    struct sandbox_line *rl = sandbox_line_parse(line);
    if (!sandbox_line_json(rl, "sandbox", j->describe, sizeof j->describe))
        snprintf(j->describe, sizeof j->describe, "{}");
    char tier[16] = "", advice[400] = "";
    bool cgroup_memory = false, mqueue = true;
    uint64_t abi = 0;
    sandbox_line_string(rl, "sandbox.tier", tier, sizeof tier);
    sandbox_line_string(rl, "sandbox.advice", advice, sizeof advice);
    sandbox_line_bool(rl, "sandbox.features.cgroup_memory", &cgroup_memory);
    sandbox_line_bool(rl, "sandbox.posix_mqueue", &mqueue);
    sandbox_line_u64(rl, "sandbox.features.landlock_abi", &abi);
    int t = iolab_tier_parse(tier);
    j->tier = t >= 0 && t != IOLAB_TIER_AUTO ? (enum iolab_tier)t : IOLAB_TIER_MINIMAL;
    jail_note_counts(j, abi);
    uint64_t pid = 0;
    j->join_pid = sandbox_line_u64(rl, "pid", &pid) && pid > 0 ? (pid_t)pid : -1;
    /* The jail's own budget: its cgroup (each program joins it) or its own uid. */
    uint64_t uid = 0;
    if (sandbox_line_u64(rl, "uid", &uid))
        snprintf(j->uid, sizeof j->uid, "%llu", (unsigned long long)uid);
    sandbox_line_string(rl, "cgroup.pids", j->cgroup[0], sizeof j->cgroup[0]);
    sandbox_line_string(rl, "cgroup.memory", j->cgroup[1], sizeof j->cgroup[1]);
    if (!strcmp(j->cgroup[0], j->cgroup[1]))
        j->cgroup[1][0] = '\0'; /* cgroup v2: one directory for both */
    char budget[32] = "";
    sandbox_line_string(rl, "sandbox.budget", budget, sizeof budget);
    const char *lacks = jail_budget_lacks(budget, cgroup_memory);
    sandbox_line_free(rl);
    /* posix_mqueue is false when the launcher's Landlock rules cannot allow the queues. */
    bool no_mq = !mqueue;
    if (j->tier != IOLAB_TIER_FULL)
        snprintf(j->missing, sizeof j->missing, "%s%s%s%s. %s", jail_tier_lacks[j->tier],
                 no_mq ? "; no POSIX message queues until /dev/mqueue is mounted" : "",
                 lacks[0] ? "; " : "", lacks, advice);
    else if (lacks[0])
        snprintf(j->missing, sizeof j->missing, "%s.", lacks);
    j->port = j->tier == IOLAB_TIER_FULL ? JAIL_FULL_PORT : jail_free_port();
    if (j->port < 0 || j->join_pid <= 0) {
        rc = j->port < 0 ? j->port : -EPROTO;
        snprintf(why, whylen, "the sandbox report is unusable: %s", line);
        goto fail;
    }
    close(status[0]);
    *out = j;
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (status[i] >= 0)
            close(status[i]);
        if (life[i] >= 0)
            close(life[i]);
    }
    jail_close(j);
    return rc;
}

char **jail_argv(struct jail *j, char *const *prog_argv, const int *keep_fds, size_t nkeep)
{
    return jail_argv_report(j, prog_argv, keep_fds, nkeep, -1);
}

char **jail_argv_report(struct jail *j, char *const *prog_argv, const int *keep_fds, size_t nkeep,
                        int report_fd)
{
    return jail_argv_opts(j, prog_argv, keep_fds, nkeep, report_fd, NULL);
}

char **jail_argv_opts(struct jail *j, char *const *prog_argv, const int *keep_fds, size_t nkeep,
                      int report_fd, const char *const *opts)
{
    size_t n = 0, nopts = 0;
    while (prog_argv[n])
        n++;
    while (opts && opts[nopts])
        nopts++;
    char **argv = calloc(n + nopts + 2 * nkeep + 34, sizeof *argv);
    if (!argv)
        return NULL;
    size_t k = 0;
    char pid[16], port[16], timeout[32];
    snprintf(pid, sizeof pid, "%d", (int)j->join_pid);
    snprintf(port, sizeof port, "%d", j->port);
    snprintf(timeout, sizeof timeout, "%g", j->timeout_s);
    const char *fixed[] = {j->sandbox,  "--join",    pid,      "--tier", iolab_tier_name(j->tier),
                           "--workdir", j->workdir,  "--port", port,     "--session",
                           j->session,  "--timeout", timeout};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        if (!(argv[k++] = strdup(fixed[i])))
            goto fail;
    /* The jail's budget: its cgroup directories, and the uid when it is the jail's own. */
    for (size_t i = 0; i < 2; i++)
        if (j->cgroup[i][0] &&
            (!(argv[k++] = strdup("--cgroup")) || !(argv[k++] = strdup(j->cgroup[i]))))
            goto fail;
    if (j->uid[0] && (!(argv[k++] = strdup("--uid")) || !(argv[k++] = strdup(j->uid))))
        goto fail;
    for (size_t i = 0; i < nkeep; i++) {
        if (!(argv[k++] = strdup("--keep-fd")) || asprintf(&argv[k++], "%d", keep_fds[i]) < 0) {
            argv[k - 1] = NULL;
            goto fail;
        }
    }
    if (report_fd >= 0 &&
        (!(argv[k++] = strdup("--report-fd")) || asprintf(&argv[k++], "%d", report_fd) < 0)) {
        argv[k - 1] = NULL;
        goto fail;
    }
    for (size_t i = 0; i < 3; i++)
        if (j->limits[i] > 0 && (!(argv[k++] = strdup(jail_limit_flags[i])) ||
                                 asprintf(&argv[k++], "%ld", j->limits[i]) < 0)) {
            argv[k - 1] = NULL;
            goto fail;
        }
    /* The caller's own options last: they win over the step's limits (a sanitizer build's
       "--as 0", say). */
    for (size_t i = 0; i < nopts; i++)
        if (!(argv[k++] = strdup(opts[i])))
            goto fail;
    if (!(argv[k++] = strdup("--")))
        goto fail;
    for (size_t i = 0; i < n; i++)
        if (!(argv[k++] = strdup(prog_argv[i])))
            goto fail;
    return argv;
fail:
    jail_argv_free(argv);
    return NULL;
}

void jail_argv_free(char **argv)
{
    if (!argv)
        return;
    for (char **a = argv; *a; a++)
        free(*a);
    free(argv);
}

int jail_port(const struct jail *j)
{
    return j->port;
}

enum iolab_tier jail_tier(const struct jail *j)
{
    return j->tier;
}

const char *jail_missing(const struct jail *j)
{
    return j->missing[0] ? j->missing : NULL;
}

const char *jail_session(const struct jail *j)
{
    return j->session;
}

int jail_describe_json(const struct jail *j, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s", j->describe);
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool jail_counts_protected(const struct jail *j)
{
    return j && j->counts_protected;
}

/* Waits up to ms for the holder; true when it has been reaped. */
static bool jail_reap(pid_t pid, int ms)
{
    for (int waited = 0;; waited += 5) {
        pid_t r = waitpid(pid, NULL, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR))
            return true;
        if (waited >= ms)
            return false;
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
}

void jail_close(struct jail *j)
{
    if (!j)
        return;
    if (j->life_fd >= 0)
        close(j->life_fd);
    /* The holder normally needs a few ms; past 2 s it is stuck, and SIGKILL still ends the
     * full tier's namespace (its init dies with it). */
    if (j->holder > 0 && !jail_reap(j->holder, 2000)) {
        kill(j->holder, SIGKILL);
        jail_reap(j->holder, 1000);
    }
    free(j->sandbox);
    free(j->workdir);
    free(j);
}
