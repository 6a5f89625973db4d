/*
 * build: see build.h. The steps: hash the inputs; a cache hit answers at once (on the next loop
 * turn, so the callback never runs inside build_start); otherwise copy the files into a fresh
 * work directory, spawn iolab-sandbox with the compiler, collect its output, and on success
 * move the program into the cache. Everything is released on one path (build_finish).
 */
#include "build.h"
#include "engine/sandbox_line.h"
#include "iolab_counters.h"
#include "paths.h"
#include "safeopen.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct build {
    uv_loop_t *loop;
    build_done_fn done;
    void *data;
    uv_process_t proc;
    uv_pipe_t out;
    uv_timer_t later; /* a cache hit or an early error answers on the next loop turn */
    int open_handles;
    bool have_pipe, spawned, exited, eof, cancelled, answered;
    int report_fd; /* the sandbox's --report-fd line (its "limit"), read at exit; -1: none */
    int64_t exit_status;
    int term_signal;
    char workdir[PATH_MAX];
    int wfd; /* the work directory, opened: the product is looked up in it, not by path */
    char keydir[PATH_MAX - 32]; /* room for "/prog" in the result's exe */
    char tmp[PATH_MAX];         /* keydir/prog.tmp: the product on its way into the cache */
    char src_dir[PATH_MAX];
    char *names[BUILD_MAX_FILES]; /* the sources' names, for mapping messages back */
    size_t nnames;
    char *raw; /* the compiler's output as it came */
    size_t raw_len;
    bool raw_cut;
    struct timespec t0;
    struct build_result r;
};

/* FNV-1a, 64 bits: a content key, not a defence against someone crafting collisions. */
static uint64_t build_fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

/* Where one of the spec's files is: its root directory, and its path relative to that root. */
static int build_source_path(const struct build_spec *spec, const char *name, char *root,
                             size_t rootlen, char *rel, size_t rellen)
{
    const char *sub = "";
    size_t n = spec->root ? strlen(spec->root) : 0;
    if (spec->root && !strncmp(spec->src_dir, spec->root, n) && spec->src_dir[n] == '/')
        sub = spec->src_dir + n + 1;
    snprintf(root, rootlen, "%s", *sub ? spec->root : spec->src_dir);
    return snprintf(rel, rellen, "%s%s%s", sub, *sub ? "/" : "", name) >= (int)rellen
               ? -ENAMETOOLONG
               : 0;
}

/* Opens one of the spec's files under its root, and only a regular file. fd or -errno. */
static int build_open_source(const struct build_spec *spec, const char *name)
{
    char root[PATH_MAX], rel[PATH_MAX];
    int rc = build_source_path(spec, name, root, sizeof root, rel, sizeof rel);
    if (rc < 0)
        return rc;
    int fd = safeopen_beneath(root, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return fd;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    return fd;
}

/* build_key, and which file could not be read (*bad) when it fails. */
static int build_hash(const struct build_spec *spec, char *hex, size_t len, size_t *bad)
{
    uint64_t h = 0xcbf29ce484222325ull;
    /* A program built against another layout of the counter page (iolab_counters.h, installed
       for pack programs) must be built again: its shim refuses the page. */
    const uint32_t page_version = IOLAB_PAGE_VERSION;
    h = build_fnv(h, &page_version, sizeof page_version);
    for (const char *const *a = spec->command; *a; a++)
        h = build_fnv(h, *a, strlen(*a) + 1);
    for (size_t i = 0; i < spec->nsources; i++)
        h = build_fnv(h, spec->sources[i], strlen(spec->sources[i]) + 1);
    for (size_t i = 0; i < spec->nfiles; i++) {
        *bad = i;
        int fd = build_open_source(spec, spec->files[i]);
        if (fd < 0)
            return fd;
        h = build_fnv(h, spec->files[i], strlen(spec->files[i]) + 1);
        char buf[8192];
        ssize_t n;
        while ((n = read(fd, buf, sizeof buf)) > 0)
            h = build_fnv(h, buf, (size_t)n);
        close(fd);
        if (n < 0)
            return -EIO;
    }
    snprintf(hex, len, "%016llx", (unsigned long long)h);
    return 0;
}

int build_key(const struct build_spec *spec, char *hex, size_t len)
{
    size_t bad = 0;
    return build_hash(spec, hex, len, &bad);
}

/* Copies the open file in into a new file to (created with mode); in is closed. */
static int build_copy_fd(int in, int todir, const char *to, int oflags, mode_t mode)
{
    int out = openat(todir, to, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | oflags, mode);
    if (out < 0) {
        int e = -errno;
        close(in);
        return e;
    }
    char buf[65536];
    ssize_t n;
    int rc = 0;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) {
            rc = -EIO;
            break;
        }
    if (n < 0)
        rc = -errno;
    if (fchmod(out, mode) < 0 && !rc)
        rc = -errno;
    close(in);
    if (close(out) < 0 && !rc)
        rc = -errno;
    return rc;
}

static void build_rmtree(const char *dir)
{
    if (dir[0])
        safeopen_rmtree(dir);
}

/*
 * Removes the work directories that an iolab which is gone left behind (killed during a build
 * at a moment the sandbox could not clean up after it). Each is named after its iolab's pid; one
 * whose iolab still runs is another build in progress and stays. Old names without a pid stay.
 */
static void build_sweep_stale(const char *tmp)
{
    DIR *d = opendir(tmp);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        char *end;
        if (strncmp(e->d_name, "iolab-build-", 12))
            continue;
        long pid = strtol(e->d_name + 12, &end, 10);
        if (end == e->d_name + 12 || *end != '-' || pid <= 0 || pid == getpid())
            continue;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        struct stat st;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", tmp, e->d_name);
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            safeopen_rmtree(path);
    }
    closedir(d);
}

static int build_mkdirs(const char *dir)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s", dir);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    return mkdir(p, 0755) < 0 && errno != EEXIST ? -errno : 0;
}

/* The compiler's messages as they came (names relative to the work directory, so that the same
   program built from another src_dir maps them there) beside the cached program: a cache hit
   still has its warnings to show. Written before the program, so a program found in the cache
   has its log. A failure only loses the warnings of later hits: 0 or a negative errno. */
static int build_save_log(const struct build *b)
{
    char tmp[PATH_MAX + 16], path[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s/log.tmp", b->keydir);
    snprintf(path, sizeof path, "%s/log", b->keydir);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    int rc = 0;
    if (b->raw_len && write(fd, b->raw, b->raw_len) != (ssize_t)b->raw_len)
        rc = -EIO;
    if (close(fd) < 0 && !rc)
        rc = -errno;
    if (!rc && rename(tmp, path) < 0)
        rc = -errno;
    return rc;
}

/* A cache hit's messages: the log kept beside the program, if any, up to BUILD_LOG_MAX. */
static void build_load_log(struct build *b)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/log", b->keydir);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return;
    char *raw = malloc(BUILD_LOG_MAX + 1);
    ssize_t n = raw ? read(fd, raw, BUILD_LOG_MAX) : -1;
    close(fd);
    if (n <= 0) {
        free(raw);
        return;
    }
    raw[n] = '\0';
    b->raw = raw;
    b->raw_len = (size_t)n;
    b->raw_cut = n == BUILD_LOG_MAX; /* it was kept as cut */
}

/* Lines of the log that are a warning ("file:line:col: warning: ..."), not its notes. */
static unsigned build_count_warnings(const char *log)
{
    unsigned n = 0;
    for (const char *s = log; s && *s;) {
        const char *nl = strchr(s, '\n');
        size_t len = nl ? (size_t)(nl - s) : strlen(s);
        const char *w = memmem(s, len, ": warning: ", 11);
        n += w != NULL;
        s += len + (nl != NULL);
    }
    return n;
}

/* The compiler's messages with every "NAME:" of a copied file at the start of a line (and
   after "In file included from ") written as src_dir/NAME. */
static void build_map_log(struct build *b)
{
    size_t cap = b->raw_len * 2 + 64 + b->raw_len / 8 * strlen(b->src_dir);
    char *o = malloc(cap + 1);
    if (!o) {
        b->r.log = b->raw;
        b->r.log_len = b->raw_len;
        b->raw = NULL;
        return;
    }
    size_t n = 0;
    bool bol = true;
    for (size_t i = 0; i < b->raw_len;) {
        bool mapped = false;
        if (bol || (i >= 5 && !strncmp(b->raw + i - 5, "from ", 5))) {
            for (size_t k = 0; k < b->nnames && !mapped; k++) {
                size_t l = strlen(b->names[k]);
                if (i + l < b->raw_len && !strncmp(b->raw + i, b->names[k], l) &&
                    b->raw[i + l] == ':' && n + strlen(b->src_dir) + l + 2 < cap) {
                    n += (size_t)snprintf(o + n, cap - n, "%s/%s", b->src_dir, b->names[k]);
                    i += l;
                    mapped = true;
                }
            }
        }
        if (mapped)
            continue;
        if (n + 1 >= cap)
            break;
        bol = b->raw[i] == '\n';
        o[n++] = b->raw[i++];
    }
    o[n] = '\0';
    b->r.log = o;
    b->r.log_len = n;
}

static void build_close_cb(uv_handle_t *h)
{
    struct build *b = h->data;
    if (--b->open_handles == 0) {
        if (b->wfd >= 0)
            close(b->wfd);
        if (b->report_fd >= 0)
            close(b->report_fd);
        build_rmtree(b->workdir);
        for (size_t i = 0; i < b->nnames; i++)
            free(b->names[i]);
        free(b->raw);
        free(b->r.log);
        free(b);
    }
}

static void build_release(struct build *b)
{
    b->open_handles = 1 + b->have_pipe + b->spawned; /* the timer is always initialised */
    if (b->spawned)
        uv_close((uv_handle_t *)&b->proc, build_close_cb);
    if (b->have_pipe)
        uv_close((uv_handle_t *)&b->out, build_close_cb);
    uv_close((uv_handle_t *)&b->later, build_close_cb);
}

/* Answers once: fills the timing, runs the callback (unless cancelled), releases. */
static void build_finish(struct build *b)
{
    if (b->answered)
        return;
    b->answered = true;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    b->r.seconds =
        (double)(now.tv_sec - b->t0.tv_sec) + (double)(now.tv_nsec - b->t0.tv_nsec) / 1e9;
    if (!b->r.log) {
        if (b->raw)
            build_map_log(b);
        if (!b->r.log)
            b->r.log = strdup("");
    }
    b->r.log_cut = b->raw_cut;
    b->r.warnings = build_count_warnings(b->r.log);
    if (!b->cancelled && b->done)
        b->done(b->data, &b->r);
    build_release(b);
}

static void build_later_cb(uv_timer_t *t)
{
    build_finish(t->data);
}

/* The build's processes and threads together (its jail's pids.max), as iolab-sandbox takes it. */
#define BUILD_PIDS "64"
/* The largest file a process of the build may write, MiB (its RLIMIT_FSIZE). */
#define BUILD_FSIZE "64"

/*
 * The limit of the build's own jail that stopped it, from the sandbox's final report line
 * (written before it exited, so it is in the pipe by now): "pids", "memory", or NULL.
 */
static const char *build_limit_hit(struct build *b)
{
    char line[1024];
    ssize_t n = b->report_fd >= 0 ? read(b->report_fd, line, sizeof line - 1) : -1;
    if (n <= 0)
        return NULL;
    line[n] = '\0';
    /* The final line is the last: an interim line may come before it ({"limit":"pids",
       "running":true}, as soon as the jail's process limit was reached), and the final one
       says which limit explains the end (memory before pids). */
    char *last = line;
    for (char *nl; (nl = strchr(last, '\n')) && nl[1];)
        last = nl + 1;
    char limit[16] = "";
    struct sandbox_line *r = sandbox_line_parse(last);
    sandbox_line_string(r, "limit", limit, sizeof limit);
    sandbox_line_free(r);
    return !strcmp(limit, "pids") ? "pids" : !strcmp(limit, "memory") ? "memory" : NULL;
}

/*
 * Whether a process of the build died of the file size limit: the build command itself (status
 * 128+SIGXFSZ), or a compiler's child, whose death the driver reports with the signal's own text
 * and an exit status of 1 ("cc: internal compiler error: File size limit exceeded signal
 * terminated program as"). No jail counts RLIMIT_FSIZE's hits, so the driver's sentence is the
 * evidence; a build command that prints it only earns itself a build that is not an attempt.
 */
static bool build_fsize_hit(const struct build *b)
{
    if (b->r.exit_status == 128 + SIGXFSZ)
        return true;
    const char *text = strsignal(SIGXFSZ);
    return b->raw && text && memmem(b->raw, b->raw_len, text, strlen(text));
}

/* Both the exit and the end of the output: decide and answer. */
static void build_maybe_done(struct build *b)
{
    if (!b->exited || !b->eof)
        return;
    b->r.exit_status = b->term_signal ? 128 + b->term_signal : (int)b->exit_status;
    /* The product as the build left it, never through a link: a build command that put a link to
       another file (or a second name of one) in its place must not have iolab copy that file. */
    int prog = -ENOENT;
    struct stat st;
    if (b->r.exit_status == 0) {
        prog = openat(b->wfd, "prog", O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
        prog = prog < 0 ? -errno : prog;
        if (prog >= 0 && fstat(prog, &st) < 0) {
            close(prog);
            prog = -EIO;
        }
    }
    const char *limit = build_limit_hit(b);
    if (!limit && b->r.exit_status != 0 && build_fsize_hit(b))
        limit = "fsize";
    if (limit && b->r.exit_status != 0) {
        /* The jail's limit, not the learner's code: said as such, and not an attempt. */
        b->r.status = BUILD_LIMIT;
        b->r.limit = limit;
        snprintf(b->r.message, sizeof b->r.message, "%s",
                 !strcmp(limit, "fsize")
                     ? "the build was stopped by its jail's file size limit (" BUILD_FSIZE
                       " MiB a file, RLIMIT_FSIZE): the compiler or the assembler was killed "
                       "writing a larger file; a huge initialised array or a generated source "
                       "makes one; this build is not counted as an attempt"
                 : !strcmp(limit, "pids")
                     ? "the build was stopped by its jail's process limit (" BUILD_PIDS
                       " processes and threads, cgroup pids.max), not by your code: a fork in the "
                       "compiler or the build command failed; this build is not counted as an "
                       "attempt"
                     : "the build was stopped by its jail's memory limit (cgroup memory cap), not "
                       "by your code: the kernel ended the compiler; this build is not counted as "
                       "an attempt");
    } else if (b->r.exit_status == 124 || b->r.exit_status == 128 + SIGTERM ||
               b->r.exit_status == 128 + SIGKILL || b->r.exit_status == 128 + SIGXCPU) {
        b->r.status = BUILD_TIMEOUT;
        snprintf(b->r.message, sizeof b->r.message,
                 "the compiler did not finish within its limits (status %d); look for an "
                 "#include of something that never ends, or a huge generated file",
                 b->r.exit_status);
    } else if (b->r.exit_status != 0 || prog == -ENOENT) {
        b->r.status = BUILD_FAILED;
    } else if (prog < 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
        b->r.status = BUILD_ERROR;
        snprintf(b->r.message, sizeof b->r.message,
                 "the build left %s where its program should be; iolab keeps only a regular "
                 "file the build wrote itself, so the build command must write {out} as a file, "
                 "not a link to one",
                 prog == -ELOOP         ? "a symbolic link"
                 : prog < 0             ? "something it cannot open"
                 : !S_ISREG(st.st_mode) ? "something that is not a regular file"
                                        : "a second name (a hard link) of another file");
    } else {
        /* Into the cache: a copy owned by iolab, executable by the sandbox's user. */
        build_mkdirs(b->keydir);
        snprintf(b->r.exe, sizeof b->r.exe, "%s/prog", b->keydir);
        build_save_log(b);
        int rc = build_copy_fd(prog, AT_FDCWD, b->tmp, O_TRUNC, 0755);
        prog = -1;
        if (rc == 0 && rename(b->tmp, b->r.exe) < 0)
            rc = -errno;
        if (rc < 0) {
            unlink(b->tmp);
            b->r.exe[0] = '\0';
            b->r.status = BUILD_ERROR;
            snprintf(b->r.message, sizeof b->r.message,
                     "cannot keep the built program in %.300s: %s", b->keydir, strerror(-rc));
        } else {
            b->r.status = BUILD_OK;
        }
    }
    if (prog >= 0)
        close(prog);
    build_finish(b);
}

static void build_on_exit(uv_process_t *p, int64_t status, int sig)
{
    struct build *b = p->data;
    b->exited = true;
    b->exit_status = status;
    b->term_signal = sig;
    build_maybe_done(b);
}

static void build_alloc(uv_handle_t *h, size_t want, uv_buf_t *buf)
{
    (void)h;
    static char chunk[16384];
    (void)want;
    *buf = uv_buf_init(chunk, sizeof chunk);
}

static void build_on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct build *b = s->data;
    if (n < 0) {
        b->eof = true;
        uv_read_stop(s);
        build_maybe_done(b);
        return;
    }
    size_t take = (size_t)n;
    if (b->raw_len + take > BUILD_LOG_MAX) {
        take = BUILD_LOG_MAX - b->raw_len;
        b->raw_cut = true;
    }
    if (take) {
        char *v = realloc(b->raw, b->raw_len + take + 1);
        if (!v) {
            b->raw_cut = true;
            return;
        }
        b->raw = v;
        memcpy(b->raw + b->raw_len, buf->base, take);
        b->raw_len += take;
        b->raw[b->raw_len] = '\0';
    }
}

/* An answer without a compiler run: a cache hit or an error found before spawning. */
static int build_answer_soon(struct build *b)
{
    uv_timer_start(&b->later, build_later_cb, 0, 0);
    return 0;
}

#define BUILD_MAX_VISIBLE 8 /* --ro paths: the fixed options and these leave BUILD_MAX_ARGS */

static int build_prepare(struct build *b, const struct build_spec *spec, const char **argv,
                         char *strs, size_t strs_len)
{
    const char *tmp = getenv("TMPDIR");
    tmp = tmp && *tmp ? tmp : "/tmp";
    build_sweep_stale(tmp);
    /* mkdtemp() makes it 0700: only iolab, and the jail's uid once the sandbox hands it over,
       may look in, since it holds the learner's sources. */
    snprintf(b->workdir, sizeof b->workdir, "%s/iolab-build-%ld-XXXXXX", tmp, (long)getpid());
    if (!mkdtemp(b->workdir)) {
        int e = -errno;
        b->workdir[0] = '\0';
        return e;
    }
    b->wfd = open(b->workdir, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (b->wfd < 0)
        return -errno;
    for (size_t i = 0; i < spec->nfiles; i++) {
        int in = build_open_source(spec, spec->files[i]);
        int rc = in < 0 ? in : build_copy_fd(in, b->wfd, spec->files[i], O_TRUNC, 0644);
        if (rc < 0)
            return rc;
    }
    /* The compiler's command, placeholders expanded; {sources} becomes one argument each. */
    size_t na = 0, used = 0;
    char tbuf[32];
    snprintf(tbuf, sizeof tbuf, "%.0f", spec->timeout_s > 0 ? spec->timeout_s : 30);
    const char *pre[] = {spec->sandbox,
                         "--workdir",
                         b->workdir,
                         "--timeout",
                         NULL,
                         "--cpu",
                         NULL,
                         "--fsize",
                         BUILD_FSIZE,
                         "--nproc",
                         "64",
                         "--pids",
                         BUILD_PIDS,
                         "--report-fd",
                         "3",
                         "--quiet",
                         "--remove-workdir"};
    size_t npre = sizeof pre / sizeof *pre;
    for (size_t i = 0; i < npre; i++) {
        const char *v = pre[i];
        if (i == 4 || i == 6) {
            snprintf(strs + used, strs_len - used, "%s", tbuf);
            v = strs + used;
            used += strlen(tbuf) + 1;
        }
        argv[na++] = v;
    }
    /* iolab's tree, its include directory and where their links lead stay visible to the
       compiler under the jail's private /tmp, read-only: an iolab tree under /tmp included.
       They do not change while iolab runs, so they are found once. */
    static char *visible[BUILD_MAX_VISIBLE];
    static size_t nvisible;
    static bool found;
    if (!found) {
        paths_jail_tree(visible, &nvisible, BUILD_MAX_VISIBLE);
        found = true;
    }
    for (size_t i = 0; i < nvisible; i++) {
        argv[na++] = "--ro";
        argv[na++] = visible[i];
    }
    argv[na++] = "--";
    /* The caller's array holds BUILD_MAX_ARGS + 40: room for the command's BUILD_MAX_ARGS after
       the launcher's options above, and the NULL. */
    for (const char *const *a = spec->command; *a && na < BUILD_MAX_ARGS + 39; a++) {
        if (!strcmp(*a, "{sources}")) {
            for (size_t k = 0; k < spec->nsources && na < BUILD_MAX_ARGS + 39; k++)
                argv[na++] = spec->sources[k];
        } else if (!strcmp(*a, "{out}")) {
            argv[na++] = "prog";
        } else {
            argv[na++] = *a;
        }
    }
    argv[na] = NULL;
    return 0;
}

int build_start(uv_loop_t *loop, const struct build_spec *spec, build_done_fn done, void *data,
                struct build **out)
{
    struct build *b = calloc(1, sizeof *b);
    if (!b)
        return -ENOMEM;
    b->loop = loop;
    b->wfd = -1;
    b->report_fd = -1;
    b->done = done;
    b->data = data;
    clock_gettime(CLOCK_MONOTONIC, &b->t0);
    snprintf(b->src_dir, sizeof b->src_dir, "%s", spec->src_dir);
    for (size_t i = 0; i < spec->nsources && b->nnames < BUILD_MAX_FILES; i++)
        b->names[b->nnames++] = strdup(spec->sources[i]);
    for (size_t i = 0; i < spec->nfiles && b->nnames < BUILD_MAX_FILES; i++)
        b->names[b->nnames++] = strdup(spec->files[i]);
    uv_timer_init(loop, &b->later);
    b->later.data = b;
    *out = b;

    char key[32];
    size_t bad = 0;
    int rc = build_hash(spec, key, sizeof key, &bad);
    if (rc == -EXDEV) {
        char root[PATH_MAX], rel[PATH_MAX], to[PATH_MAX];
        to[0] = '\0';
        if (build_source_path(spec, spec->files[bad], root, sizeof root, rel, sizeof rel) == 0)
            safeopen_escape(root, rel, to, sizeof to);
        b->r.status = BUILD_ERROR;
        snprintf(b->r.message, sizeof b->r.message,
                 "%.120s/%.60s is a link that leads out of %.120s%s%.120s%s; iolab does not "
                 "follow it: put the file itself there",
                 spec->src_dir, spec->files[bad], root, to[0] ? " (to " : "", to, to[0] ? ")" : "");
        return build_answer_soon(b);
    }
    if (rc == -EMLINK) {
        b->r.status = BUILD_ERROR;
        snprintf(b->r.message, sizeof b->r.message,
                 "%.120s/%.60s is a hard link (a second name of a file that may be anywhere); "
                 "iolab does not read it: put a copy of the file itself there",
                 spec->src_dir, spec->files[bad]);
        return build_answer_soon(b);
    }
    if (rc < 0) {
        b->r.status = BUILD_ERROR;
        snprintf(b->r.message, sizeof b->r.message,
                 "cannot read the program's files in %s (%s); is every file there and a regular "
                 "file?",
                 spec->src_dir, strerror(-rc));
        return build_answer_soon(b);
    }
    snprintf(b->keydir, sizeof b->keydir, "%s/%s", spec->cache_dir, key);
    snprintf(b->r.exe, sizeof b->r.exe, "%s/prog", b->keydir);
    snprintf(b->tmp, sizeof b->tmp, "%s/prog.tmp", b->keydir);
    if (access(b->r.exe, X_OK) == 0) {
        b->r.status = BUILD_OK;
        b->r.cached = true;
        build_load_log(b);
        return build_answer_soon(b);
    }
    b->r.exe[0] = '\0';
    const char *argv[BUILD_MAX_ARGS + 40];
    char strs[128];
    rc = build_prepare(b, spec, argv, strs, sizeof strs);
    if (rc < 0) {
        b->r.status = BUILD_ERROR;
        if (rc == -EXDEV)
            snprintf(b->r.message, sizeof b->r.message,
                     "a file of the program in %.300s became a link that leads out of its "
                     "directory while the build started; iolab does not follow it",
                     spec->src_dir);
        else
            snprintf(b->r.message, sizeof b->r.message, "cannot prepare the build: %s",
                     strerror(-rc));
        return build_answer_soon(b);
    }
    /* One pipe for stdout and stderr, so the messages keep their order. */
    int fds[2];
    /* And the sandbox's report (fd 3 in it): which limit of the jail, if any, stopped the build.
       Read once the build has exited, so only this end need not block. */
    int rep[2] = {-1, -1};
    if (pipe2(rep, O_CLOEXEC) < 0 || pipe2(fds, O_CLOEXEC) < 0) {
        if (rep[0] >= 0) {
            close(rep[0]);
            close(rep[1]);
        }
        b->r.status = BUILD_ERROR;
        snprintf(b->r.message, sizeof b->r.message, "cannot start the build: %s", strerror(errno));
        return build_answer_soon(b);
    }
    uv_pipe_init(loop, &b->out, 0);
    b->out.data = b;
    b->have_pipe = true;
    uv_pipe_open(&b->out, fds[0]);
    b->report_fd = rep[0];
    fcntl(rep[0], F_SETFL, O_NONBLOCK);
    uv_stdio_container_t stdio[4] = {
        {.flags = UV_IGNORE},
        {.flags = UV_INHERIT_FD, .data.fd = fds[1]},
        {.flags = UV_INHERIT_FD, .data.fd = fds[1]},
        {.flags = UV_INHERIT_FD, .data.fd = rep[1]},
    };
    /* Detached: the sandbox and the build start in a session of their own, without iolab's
       controlling terminal, so a pack's build cannot open /dev/tty and type into the person's
       shell (the sandbox also makes each program's own session; stdin is /dev/null). */
    uv_process_options_t po = {
        .exit_cb = build_on_exit,
        .file = argv[0],
        .args = (char **)argv,
        .flags = UV_PROCESS_DETACHED,
        .stdio_count = 4,
        .stdio = stdio,
    };
    b->proc.data = b;
    rc = uv_spawn(loop, &b->proc, &po);
    close(fds[1]); /* the child has it: end of output comes when the compiler's side closes */
    close(rep[1]);
    if (rc < 0) {
        /* The pipe was initialised: it closes with the timer. */
        b->r.status = BUILD_ERROR;
        snprintf(b->r.message, sizeof b->r.message, "cannot start %s: %s", spec->sandbox,
                 uv_strerror(rc));
        return build_answer_soon(b);
    }
    b->spawned = true;
    uv_read_start((uv_stream_t *)&b->out, build_alloc, build_on_read);
    return 0;
}

void build_cancel(struct build *b)
{
    if (!b || b->answered)
        return;
    b->cancelled = true;
    if (b->spawned && !b->exited) {
        /* The sandbox passes SIGTERM on to the compiler and ends everything it started. */
        uv_process_kill(&b->proc, SIGTERM);
        return; /* the exit and the end of output finish it, silently */
    }
    build_finish(b);
}
