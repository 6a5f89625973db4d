/*
 * engine: see engine.h for the lifecycle. Structure:
 *  - one struct engine_child per lesson program: a uv_process_t and four pipes (stdin, stdout,
 *    stderr, and the sandbox's report: the run's wait4() rusage, one JSON line), a kill timer, the
 * partial line of each stream and a ring of recent lines. The handles of a child share one count
 * (`open`): the child is "done" when it has exited and every handle's close callback has run, which
 * is also when its output is fully drained. Only then may the same handles be spawned again
 * (restart, mode switch).
 *  - the engine: the work directory, the jail, the start sequence (one index: programs before it
 *    are spawned; a program with a `ready` text holds it), a sampler timer.
 *
 * Counter pages: every start of every program gets a page of its own (engine_child_page), handed
 * to it alone as descriptor 3, so what a program writes there can only ever be its own figures,
 * and no program can write another's (where the sandbox applies Landlock, in the full and reduced
 * tiers, one program cannot reach another's page through /proc either: jail_counts_protected). The
 * sampler reads each program's page as that program's whatever its slots say, and when a program
 * starts again it reads the old page one last time and carries its totals, so the figures of a
 * session run on across restarts and mode switches.
 *
 * Process trees: each program is spawned detached (setsid), so it leads its own process group
 * and every child it forks is in it; signals go to the group, then to any member of its tree
 * (from the sampler's /proc view) that left the group. The interim jail does no more; the real
 * one also kills whatever is left in the jail when it closes.
 *
 * Memory: the engine and its children are freed only after the last handle close callback
 * (libuv's rule), counted in `closing`.
 */
#include "engine.h"
#include "sandbox_line.h"
#include "metrics/sampler.h"

#include "iolab_audit.h"
#include "iolab_page.h"
#include "paths.h"

#include <errno.h>
#include <stdarg.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Threads of one program alive at once that can each have a slot (a dead thread's slot is
   reused). Each program has its own page of this many; a memfd is backed only where written. */
#define ENGINE_PAGE_SLOTS   1024
#define ENGINE_ARG_MAX      4096
#define ENGINE_TREE_MAX     1024
#define ENGINE_REPORT_FD    4 /* the child's descriptor for iolab-sandbox --report-fd */
#define ENGINE_AUDIT_FD     5 /* and for --audit-fd, the learner's program's under the audit */
#define ENGINE_AUDIT_FD_STR "5"
#define ENGINE_REPORT_MAX   256 /* one line of six numbers */

extern char **environ;

struct engine_line {
    enum engine_stream stream;
    char text[ENGINE_LINE_MAX];
};

struct engine_child {
    struct engine *e;
    size_t idx;
    const struct lesson_program *prog;
    uv_process_t proc;
    uv_pipe_t in, out, err, rep;
    uv_timer_t kill_timer;
    int open;      /* handles of this run not yet closed (process and pipes) */
    bool spawned;  /* a process of this run exists or existed */
    bool exited;   /* its exit has been seen */
    bool stopping; /* the engine asked it to stop: its exit is expected */
    bool ready;    /* printed its ready text (or has none) */
    bool restart;  /* spawn again when done (restart or mode switch) */
    bool paused;   /* SIGSTOPped by engine_pause */
    int pid;
    /* This start's counter page, its own: no other program holds it. Made again for every
       start; the sampler carries the last one's totals (sampler_set_page). */
    int page_fd;
    struct iolab_page *page;
    uint32_t run;
    int status;                       /* exit code or 128+signal */
    char partial[2][ENGINE_LINE_MAX]; /* unterminated tail of stdout, stderr */
    size_t partial_len[2];
    char report[ENGINE_REPORT_MAX]; /* the sandbox's report line of this run, as received */
    size_t report_len;
    /* A limit of the jail the sandbox named while this run went on (its interim line): kept
       until the program is spawned again. "": none yet. */
    char limit[16];
    struct engine_line *ring; /* ENGINE_LINE_RING lines, oldest at ring_head when full */
    size_t ring_len, ring_head;
};

struct engine {
    uv_loop_t *loop;
    const struct lesson_scenario *sc;
    struct engine_options opts;
    struct engine_callbacks cb;
    enum engine_state state;
    char error[1024];
    char workdir[PATH_MAX];
    char seconds[32];
    char portstr[16];
    int mode;          /* current mode, -1 without modes */
    bool switching;    /* a mode switch is under way */
    bool mode_up;      /* the current mode's server is up: its interval is being measured */
    bool span_pending; /* a switch waits for the old mode's program to be reaped (its span) */
    int span_mode;     /* that old mode, which the sampler carries until then */
    bool paused;
    bool freeing;      /* engine_free() was called: nothing new starts */
    size_t next_start; /* the start sequence: programs below it are spawned */
    uint32_t nslots;   /* slots of every program's page */
    struct jail *jail;
    struct sampler *sampler;
    uv_timer_t tick, start_timer;
    int closing; /* handles with a close callback still to come */
    uint64_t t0_ns;
    struct snapshot empty;
    /* The audit's page of the learner's program (--audit), made again for each of its starts
       with the counts so far; base: the page when it was ready. NULL without an audit. */
    struct iolab_audit_page *audit, *audit_base;
    size_t nchildren;
    struct engine_child children[];
};

static void engine_spawn_next(struct engine *e);
static void engine_child_signal(struct engine_child *c, int sig);
static void engine_maybe_stopped(struct engine *e);
static void engine_release_run(struct engine *e);
static void engine_page_close(struct engine *e, struct engine_child *c);

static const char *const engine_state_names[] = {
    [ENGINE_IDLE] = "idle",         [ENGINE_STARTING] = "starting", [ENGINE_RUNNING] = "running",
    [ENGINE_STOPPING] = "stopping", [ENGINE_STOPPED] = "stopped",   [ENGINE_FAILED] = "failed",
};

const char *engine_state_name(enum engine_state s)
{
    return s <= ENGINE_FAILED ? engine_state_names[s] : "?";
}

static double engine_now(const struct engine *e)
{
    return (double)(uv_hrtime() - e->t0_ns) / 1e9;
}

static void engine_set_state(struct engine *e, enum engine_state s)
{
    if (e->state == s)
        return;
    e->state = s;
    if (e->cb.on_state && !e->freeing)
        e->cb.on_state(e->cb.data, s);
}

static void engine_publish(struct engine *e)
{
    if (!e->sampler)
        return;
    const struct snapshot *snap = sampler_sample(e->sampler, engine_now(e));
    if (e->cb.on_snapshot && !e->freeing)
        e->cb.on_snapshot(e->cb.data, snap);
}

/* ---- output lines ---- */

static void engine_line_push(struct engine_child *c, enum engine_stream stream, const char *text,
                             size_t len)
{
    struct engine_line *l;
    if (c->ring_len < ENGINE_LINE_RING) {
        l = &c->ring[(c->ring_head + c->ring_len++) % ENGINE_LINE_RING];
    } else {
        l = &c->ring[c->ring_head];
        c->ring_head = (c->ring_head + 1) % ENGINE_LINE_RING;
    }
    l->stream = stream;
    memcpy(l->text, text, len);
    l->text[len] = '\0';
}

/* The last n lines of a child joined with " | ", for error messages. */
static void engine_last_lines(const struct engine_child *c, size_t n, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t from = c->ring_len > n ? c->ring_len - n : 0, used = 0;
    for (size_t i = from; i < c->ring_len && used + 1 < len; i++) {
        const char *t = c->ring[(c->ring_head + i) % ENGINE_LINE_RING].text;
        int w = snprintf(buf + used, len - used, "%s%s", used ? " | " : "", t);
        if (w < 0)
            break;
        used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
    if (!buf[0])
        snprintf(buf, len, "(nothing)");
}

static void engine_fail(struct engine *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* text is the child's partial-line buffer (ENGINE_LINE_MAX bytes, len < ENGINE_LINE_MAX): it is
   terminated here, so that every reader of the line stops at its end and never reads on into
   what a longer earlier line left in the buffer. */
/* Whether program c runs under the audit (the learner's program, with --audit). */
static bool engine_audited(const struct engine *e, const struct engine_child *c)
{
    return e->opts.audit && e->opts.audit[0] && e->sc->has_learner && c->idx == e->sc->learner;
}

/*
 * A new page for the audit of the start about to be spawned, holding the counts so far: the
 * launcher maps it and closes it before the program runs, and iolab closes its descriptor once
 * the launcher is spawned, so that no process finds it in iolab's /proc/PID/fd. The fd, or a
 * negative errno.
 */
static int engine_audit_page(struct engine *e)
{
    int fd = memfd_create("iolab-audit", MFD_CLOEXEC);
    if (fd < 0)
        return -errno;
    struct iolab_audit_page *p = MAP_FAILED;
    if (ftruncate(fd, sizeof *p) == 0)
        p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int err = errno;
        close(fd);
        return -err;
    }
    if (e->audit) {
        *p = *e->audit;
        munmap(e->audit, sizeof *e->audit);
    }
    p->magic = IOLAB_AUDIT_MAGIC;
    p->state = IOLAB_AUDIT_WAITING;
    e->audit = p;
    if (!e->audit_base)
        e->audit_base = calloc(1, sizeof *e->audit_base);
    return fd;
}

const struct iolab_audit_page *engine_audit(const struct engine *e,
                                            const struct iolab_audit_page **base)
{
    if (base)
        *base = e->audit_base;
    return e->audit;
}

static void engine_on_line(struct engine_child *c, enum engine_stream stream, char *text,
                           size_t len)
{
    struct engine *e = c->e;
    text[len] = '\0';
    engine_line_push(c, stream, text, len);
    if (e->cb.on_line && !e->freeing)
        e->cb.on_line(e->cb.data, c->idx, stream, text, len);
    if (!c->ready && c->prog->ready && !c->stopping) {
        if (strstr(text, c->prog->ready)) {
            c->ready = true;
            if (e->audit && e->audit_base && engine_audited(e, c))
                *e->audit_base = *e->audit;
            uv_timer_stop(&e->start_timer);
            if (e->sampler)
                sampler_set_state(e->sampler, (uint32_t)c->idx, SNAPSHOT_PROG_RUNNING, -1);
            engine_spawn_next(e);
        }
    }
}

/* Splits a chunk of output into lines; a line longer than ENGINE_LINE_MAX - 1 is cut. */
static void engine_feed(struct engine_child *c, enum engine_stream stream, const char *data,
                        size_t n)
{
    char *part = c->partial[stream];
    size_t *plen = &c->partial_len[stream];
    for (size_t i = 0; i < n; i++) {
        if (data[i] == '\n' || *plen == ENGINE_LINE_MAX - 1) {
            size_t len = *plen;
            if (len && part[len - 1] == '\r')
                len--;
            engine_on_line(c, stream, part, len);
            *plen = 0;
            if (data[i] == '\n')
                continue;
        }
        part[(*plen)++] = data[i];
    }
}

static void engine_flush(struct engine_child *c, enum engine_stream stream)
{
    if (c->partial_len[stream]) {
        engine_on_line(c, stream, c->partial[stream], c->partial_len[stream]);
        c->partial_len[stream] = 0;
    }
}

/* ---- handles ---- */

static void engine_free_now(struct engine *e)
{
    if (e->audit)
        munmap(e->audit, sizeof *e->audit);
    free(e->audit_base);
    for (size_t i = 0; i < e->nchildren; i++)
        free(e->children[i].ring);
    free(e);
}

static void engine_closed(uv_handle_t *h)
{
    struct engine *e = h->data;
    if (--e->closing == 0 && e->freeing)
        engine_free_now(e);
}

static void engine_close(struct engine *e, uv_handle_t *h)
{
    if (!h->loop || uv_is_closing(h))
        return;
    h->data = e;
    e->closing++;
    uv_close(h, engine_closed);
}

static void engine_child_done(struct engine_child *c);

static void engine_child_closed(uv_handle_t *h)
{
    struct engine_child *c = h->data;
    struct engine *e = c->e;
    e->closing--;
    if (--c->open == 0)
        engine_child_done(c);
    else if (e->closing == 0 && e->freeing)
        engine_free_now(e);
}

static void engine_child_close(struct engine_child *c, uv_handle_t *h)
{
    if (!h->loop || uv_is_closing(h))
        return;
    h->data = c;
    c->e->closing++;
    uv_close(h, engine_child_closed);
}

static void engine_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    static char chunk[65536]; /* one loop thread and the data is consumed before the next read */
    (void)suggested;
    *buf = uv_buf_init(chunk, sizeof chunk);
}

static void engine_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct engine_child *c = s->data;
    enum engine_stream stream = s == (uv_stream_t *)&c->out ? ENGINE_STDOUT : ENGINE_STDERR;
    if (n > 0) {
        engine_feed(c, stream, buf->base, (size_t)n);
        return;
    }
    if (n < 0) { /* EOF or error: the stream is finished */
        engine_flush(c, stream);
        engine_child_close(c, (uv_handle_t *)s);
    }
}

/*
 * Takes the sandbox's interim lines out of the report buffer: {"limit":"pids","running":true},
 * written as soon as the jail's pids.events rose while the program still runs. Their limit is
 * kept (engine_limit); the final line, the only one with "status", stays whole for the end.
 */
static void engine_take_interim(struct engine_child *c)
{
    char *nl;
    while ((nl = memchr(c->report, '\n', c->report_len))) {
        *nl = '\0';
        struct sandbox_line *r = sandbox_line_parse(c->report);
        bool running = false;
        char limit[sizeof c->limit];
        bool interim = r && sandbox_line_bool(r, "running", &running) && running;
        if (interim && sandbox_line_string(r, "limit", limit, sizeof limit) && !c->limit[0])
            snprintf(c->limit, sizeof c->limit, "%s", limit);
        sandbox_line_free(r);
        if (!interim) {
            *nl = '\n';
            return;
        }
        size_t used = (size_t)(nl + 1 - c->report);
        memmove(c->report, nl + 1, c->report_len - used);
        c->report_len -= used;
        c->report[c->report_len] = '\0';
    }
}

/* The sandbox's report: kept whole until the pipe's end, parsed when the child is done; an
   interim line is taken out as soon as it is complete. */
static void engine_read_report(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct engine_child *c = s->data;
    if (n > 0) {
        size_t room = sizeof c->report - 1 - c->report_len,
               take = (size_t)n < room ? (size_t)n : room;
        memcpy(c->report + c->report_len, buf->base, take);
        c->report_len += take;
        c->report[c->report_len] = '\0';
        engine_take_interim(c);
    } else if (n < 0) {
        engine_child_close(c, (uv_handle_t *)s);
    }
}

/*
 * Hands the run's kernel totals to the sampler, which tops up what its samples missed. No
 * report (the sandbox could not start the program, or was killed) leaves the samples as they are.
 */
static void engine_reconcile(struct engine_child *c)
{
    struct engine *e = c->e;
    struct sampler_exit x = {0};
    struct sandbox_line *r = e->sampler && c->report_len ? sandbox_line_parse(c->report) : NULL;
    bool ok = r && sandbox_line_u64(r, "utime_us", &x.utime_us) &&
              sandbox_line_u64(r, "stime_us", &x.stime_us) &&
              sandbox_line_u64(r, "nvcsw", &x.nvcsw) && sandbox_line_u64(r, "nivcsw", &x.nivcsw);
    /* The read and write totals, when the launcher could read them for every process. */
    x.has_io = ok && sandbox_line_u64(r, "rchar", &x.rchar) &&
               sandbox_line_u64(r, "wchar", &x.wchar) && sandbox_line_u64(r, "syscr", &x.syscr) &&
               sandbox_line_u64(r, "syscw", &x.syscw) &&
               sandbox_line_u64(r, "read_bytes", &x.read_bytes) &&
               sandbox_line_u64(r, "write_bytes", &x.write_bytes);
    sandbox_line_free(r);
    if (!ok)
        return;
    sampler_set_exit(e->sampler, (uint32_t)c->idx, c->run, &x);
}

/* ---- process exit ---- */

static void engine_exit(uv_process_t *p, int64_t exit_status, int term_signal)
{
    struct engine_child *c = p->data;
    c->exited = true;
    c->status = term_signal ? 128 + term_signal : (int)exit_status;
    uv_timer_stop(&c->kill_timer);
    /* Whatever the program left running in its group goes with it: a stray child would keep
       the output pipes open, and the scenario's programs never outlive their leader. */
    engine_child_signal(c, SIGKILL);
    engine_child_close(c, (uv_handle_t *)&c->in);
    engine_child_close(c, (uv_handle_t *)&c->proc);
}

/* All of a child's handles are closed: its output is drained and its exit known. */
static void engine_child_done(struct engine_child *c)
{
    struct engine *e = c->e;
    c->spawned = false;
    if (!e->freeing)
        engine_reconcile(c);
    if (e->sampler) {
        sampler_set_root(e->sampler, (uint32_t)c->idx, 0, c->run);
        sampler_set_state(e->sampler, (uint32_t)c->idx, SNAPSHOT_PROG_EXITED, c->status);
    }
    if (e->freeing) {
        if (e->closing == 0)
            engine_free_now(e);
        return;
    }
    bool expected = c->stopping;
    /* While the scenario runs, its figures show the exit at once (with the top-up); a stop
       publishes once everything is done (engine_maybe_stopped). */
    if (e->state == ENGINE_RUNNING)
        engine_publish(e);
    if (e->cb.on_exit)
        e->cb.on_exit(e->cb.data, c->idx, c->status, expected);
    /* A program that printed its ready text was up: its end is the run's to judge (a client
       that found the learner's server hanging up), and the start goes on with the programs
       after it. One without a ready text, or that never printed it, did not start. */
    bool was_up = c->prog->ready && c->ready;
    if (e->state == ENGINE_STARTING && !expected && !was_up) {
        char last[512];
        engine_last_lines(c, 4, last, sizeof last);
        /* A program that cannot start under a lesser sandbox tier often fails for what that
           tier lacks: say it beside the program's own words. */
        const char *lacks = e->jail ? jail_missing(e->jail) : NULL;
        engine_fail(e,
                    "the %s (%s) exited with status %d before the scenario was up; its last "
                    "lines were: %s%s%s%s%s%s",
                    c->prog->name, c->prog->program, c->status, last,
                    lacks ? " (the sandbox here is the " : "",
                    lacks ? iolab_tier_name(jail_tier(e->jail)) : "", lacks ? " tier: " : "",
                    lacks ? lacks : "", lacks ? ")" : "");
        engine_maybe_stopped(e);
        return;
    }
    /* The snapshot above, the first after the old mode's program was reaped, closed its span:
       from here on, growth is the new mode's. */
    if (e->span_pending && e->state == ENGINE_RUNNING && e->mode >= 0 &&
        e->sc->modes[e->mode].program == c->idx) {
        e->span_pending = false;
        sampler_set_mode(e->sampler, e->mode, false);
    }
    if (c->restart && e->state == ENGINE_RUNNING) {
        c->restart = false;
        c->stopping = false;
        e->next_start = c->idx;
        engine_spawn_next(e);
        return;
    }
    engine_maybe_stopped(e);
}

/* STOPPING ends when every child is done; RUNNING ends when every program has exited. */
static void engine_maybe_stopped(struct engine *e)
{
    if (e->state != ENGINE_STOPPING && e->state != ENGINE_RUNNING && e->state != ENGINE_FAILED)
        return;
    for (size_t i = 0; i < e->nchildren; i++)
        if (e->children[i].spawned)
            return;
    uv_timer_stop(&e->tick);
    uv_timer_stop(&e->start_timer);
    engine_release_run(e);
    if (e->state != ENGINE_FAILED && e->sampler && !e->freeing) {
        /* The final figures, reconciled with every program's exit. Marked as outside any mode's
           interval: shutting down is not part of what a mode is measured on. A stop in the middle
           of a switch leaves them with the old mode, whose program's exit they hold. */
        int m = e->span_pending ? e->span_mode : e->mode;
        e->span_pending = false;
        sampler_set_mode(e->sampler, m, false);
        engine_publish(e);
    }
    if (e->state != ENGINE_FAILED)
        engine_set_state(e, ENGINE_STOPPED);
}

/* ---- signals to a program's tree ---- */

static void engine_child_signal(struct engine_child *c, int sig)
{
    struct engine *e = c->e;
    if (c->pid <= 0)
        return;
    /* The group first: it is one system call for the common case (fork-mode children). */
    kill(-c->pid, sig);
    if (!c->exited)
        kill(c->pid, sig);
    if (e->sampler) {
        int pids[ENGINE_TREE_MAX];
        size_t n = sampler_tree(e->sampler, (uint32_t)c->idx, pids, ENGINE_TREE_MAX);
        for (size_t i = 0; i < n && i < ENGINE_TREE_MAX; i++)
            if (pids[i] != c->pid || !c->exited)
                kill(pids[i], sig);
    }
}

static void engine_kill_timeout(uv_timer_t *t)
{
    struct engine_child *c = t->data;
    engine_child_signal(c, SIGKILL);
}

static void engine_child_stop(struct engine_child *c, double grace_s)
{
    if (!c->spawned || c->exited)
        return;
    c->stopping = true;
    if (c->e->sampler)
        sampler_set_state(c->e->sampler, (uint32_t)c->idx, SNAPSHOT_PROG_STOPPING, -1);
    engine_child_signal(c, SIGTERM);
    if (c->paused) {
        engine_child_signal(c, SIGCONT); /* a stopped process cannot act on SIGTERM */
        c->paused = false;
    }
    c->kill_timer.data = c;
    uv_timer_start(&c->kill_timer, engine_kill_timeout, (uint64_t)(grace_s * 1000), 0);
}

/* ---- starting ---- */

static void engine_fail(struct engine *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->error, sizeof e->error, fmt, ap);
    va_end(ap);
    bool any = false;
    for (size_t i = 0; i < e->nchildren; i++)
        if (e->children[i].spawned) {
            engine_child_stop(&e->children[i], e->opts.grace_s);
            any = true;
        }
    uv_timer_stop(&e->start_timer);
    uv_timer_stop(&e->tick);
    engine_set_state(e, ENGINE_FAILED);
    (void)any;
}

static void engine_ready_timeout(uv_timer_t *t)
{
    struct engine *e = t->data;
    for (size_t i = 0; i < e->nchildren; i++) {
        struct engine_child *c = &e->children[i];
        if (c->spawned && !c->ready && !c->exited) {
            char last[512];
            engine_last_lines(c, 4, last, sizeof last);
            engine_fail(e, "the %s did not print '%s' within %g s; its last lines were: %s",
                        c->prog->name, c->prog->ready, e->opts.ready_timeout_s, last);
            return;
        }
    }
}

/* The mode that changes program c now, or NULL. */
static const struct lesson_mode *engine_child_mode(const struct engine *e,
                                                   const struct engine_child *c)
{
    if (e->mode >= 0 && e->sc->modes[e->mode].program == c->idx)
        return &e->sc->modes[e->mode];
    return NULL;
}

/* AddressSanitizer in a counted program: the shim is preloaded before its runtime, and an error
   aborts, so that the run names the signal and the report stands in the program's stderr. */
#define ENGINE_ASAN_OPTIONS                                                                        \
    "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0:abort_on_error=1:halt_on_error=1"
/* UndefinedBehaviorSanitizer reports with its stack and carries on, as the build's default is:
   a memory error that follows still gets AddressSanitizer's fuller report. Fixed here, so that a
   UBSAN_OPTIONS of the caller's (CI's halt_on_error=1, say) does not change what a learner sees. */
#define ENGINE_UBSAN_OPTIONS "UBSAN_OPTIONS=print_stacktrace=1"

/* One "NAME=value" of the child's environment, or NULL when it cannot be made (asprintf leaves
   its pointer undefined then), which engine_env's last loop turns into a failure. */
__attribute__((format(printf, 1, 2))) static char *engine_env_printf(const char *fmt, ...)
{
    char *s;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    return n < 0 ? NULL : s;
}

/* Builds the child's environment: ours, plus the counter page and the shim. */
static char **engine_env(const struct engine *e, struct engine_child *c, const char *shim)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 8, sizeof *env); /* ours, 7 of iolab's at most, the NULL */
    if (!env)
        return NULL;
    size_t k = 0;
    const struct lesson_mode *m = engine_child_mode(e, c);
    bool asan = m && m->sanitized;
    for (size_t i = 0; i < n; i++) {
        if (!strncmp(environ[i], "IOLAB_", 6) ||
            (asan && (!strncmp(environ[i], "ASAN_OPTIONS=", 13) ||
                      !strncmp(environ[i], "UBSAN_OPTIONS=", 14))))
            continue;
        env[k++] = strdup(environ[i]);
    }
    /* The sandbox launcher appends the shim to LD_PRELOAD for the program's exec only. */
    env[k++] = engine_env_printf("%s=%s", IOLAB_ENV_PRELOAD, shim);
    env[k++] = engine_env_printf("%s=3", IOLAB_ENV_FD);
    env[k++] = engine_env_printf("%s=%zu", IOLAB_ENV_PROG, c->idx);
    env[k++] = engine_env_printf("%s=%u", IOLAB_ENV_RUN, c->run);
    /* Fault injection, for the one program whose lesson asks for it (iolab_counters.h). */
    if (c->prog->faults)
        env[k++] = engine_env_printf("%s=%s", IOLAB_ENV_FAULTS, c->prog->faults);
    if (asan) {
        env[k++] = strdup(ENGINE_ASAN_OPTIONS);
        env[k++] = strdup(ENGINE_UBSAN_OPTIONS);
    }
    for (size_t i = 0; i < k; i++)
        if (!env[i]) {
            for (size_t j = 0; j < k; j++)
                free(env[j]);
            free(env);
            return NULL;
        }
    return env;
}

static void engine_strv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

/* The program's argv with placeholders replaced, mode arguments appended. */
static char **engine_argv(struct engine *e, struct engine_child *c)
{
    const struct lesson_program *p = c->prog;
    const struct lesson_mode *m = NULL;
    if (e->mode >= 0 && e->sc->modes[e->mode].program == c->idx)
        m = &e->sc->modes[e->mode];
    size_t n = 1 + p->nargs + (m ? m->nargs : 0);
    char **argv = calloc(n + 1, sizeof *argv);
    if (!argv)
        return NULL;
    struct lesson_vars vars = {
        .port = e->portstr, .host = "127.0.0.1", .workdir = e->workdir, .seconds = e->seconds};
    /* A mode may run another executable in the program's place (an exercise's "yours"). */
    const char *exe = m && m->path ? m->path : p->path;
    argv[0] = strdup(exe);
    sampler_set_exe(e->sampler, (uint32_t)c->idx, exe);
    char buf[ENGINE_ARG_MAX];
    for (size_t i = 1; i < n; i++) {
        const char *arg = i <= p->nargs ? p->args[i - 1] : m->args[i - 1 - p->nargs];
        if (lesson_arg_expand(arg, &vars, buf, sizeof buf) < 0) {
            engine_strv_free(argv);
            return NULL;
        }
        argv[i] = strdup(buf);
    }
    for (size_t i = 0; i < n; i++)
        if (!argv[i]) {
            engine_strv_free(argv);
            return NULL;
        }
    return argv;
}

/*
 * Gives program c a new page for the start about to be spawned. Its previous start has been
 * reaped by now (a child is spawned again only once done): the sampler reads that page one last
 * time and carries its totals before it is unmapped, so nothing counted there is lost.
 */
static int engine_child_page(struct engine *e, struct engine_child *c)
{
    int fd;
    struct iolab_page *page;
    int rc = iolab_page_create(e->nslots, &fd, &page);
    if (rc < 0)
        return rc;
    if (e->sampler)
        sampler_set_page(e->sampler, (uint32_t)c->idx, page, e->nslots);
    engine_page_close(e, c);
    c->page_fd = fd;
    c->page = page;
    return 0;
}

static int engine_spawn(struct engine *e, struct engine_child *c)
{
    char shim[PATH_MAX];
    int rc = paths_get(PATHS_SHIM, shim, sizeof shim);
    if (rc < 0)
        return rc;
    char **argv = engine_argv(e, c), **env = engine_env(e, c, shim), **jargv = NULL;
    if (!argv || !env) {
        rc = -ENOMEM;
        goto out;
    }
    if ((rc = engine_child_page(e, c)) < 0)
        goto out;
    int keep[] = {3};
    const char *opts[8];
    size_t nopts = 0;
    const struct lesson_mode *m = engine_child_mode(e, c);
    /* AddressSanitizer reserves terabytes of address space: no RLIMIT_AS for its programs. */
    if (m && m->sanitized) {
        opts[nopts++] = "--as";
        opts[nopts++] = "0";
    }
    int audit_fd = -1;
    if (engine_audited(e, c)) {
        if ((audit_fd = engine_audit_page(e)) < 0) {
            rc = audit_fd;
            goto out;
        }
        opts[nopts++] = "--audit";
        opts[nopts++] = e->opts.audit;
        opts[nopts++] = "--audit-fd";
        opts[nopts++] = ENGINE_AUDIT_FD_STR;
        /* The launcher never sees iolab's IOLAB_ variables (engine_env): this one, which
           shows a run that could not be audited, is passed on as an option. */
        const char *off = getenv("IOLAB_SANDBOX_AUDIT");
        if (off && !strcmp(off, "off"))
            opts[nopts++] = "--audit-off";
    }
    opts[nopts] = NULL;
    jargv = jail_argv_opts(e->jail, argv, keep, 1, ENGINE_REPORT_FD, nopts ? opts : NULL);
    if (!jargv) {
        rc = -ENOMEM;
        goto out;
    }
    uv_pipe_init(e->loop, &c->in, 0);
    uv_pipe_init(e->loop, &c->out, 0);
    uv_pipe_init(e->loop, &c->err, 0);
    uv_pipe_init(e->loop, &c->rep, 0);
    c->in.data = c->out.data = c->err.data = c->rep.data = c->proc.data = c;
    uv_stdio_container_t stdio[ENGINE_AUDIT_FD + 1] = {
        {.flags = UV_CREATE_PIPE | UV_READABLE_PIPE, .data.stream = (uv_stream_t *)&c->in},
        {.flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream = (uv_stream_t *)&c->out},
        {.flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE, .data.stream = (uv_stream_t *)&c->err},
        {.flags = UV_INHERIT_FD, .data.fd = c->page_fd},
        [ENGINE_REPORT_FD] = {.flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE,
                              .data.stream = (uv_stream_t *)&c->rep},
        [ENGINE_AUDIT_FD] = {.flags = UV_INHERIT_FD, .data.fd = audit_fd},
    };
    uv_process_options_t po = {
        .exit_cb = engine_exit,
        .file = jargv[0],
        .args = jargv,
        .env = env,
        .cwd = e->workdir,
        /* Detached: a new session, so the program leads a process group that holds its
           children, and a terminal's ^C reaches iolab only (iolab stops the programs). */
        .flags = UV_PROCESS_DETACHED,
        .stdio_count = audit_fd >= 0 ? ENGINE_AUDIT_FD + 1 : ENGINE_REPORT_FD + 1,
        .stdio = stdio,
    };
    c->exited = c->stopping = c->paused = false;
    c->ready = !c->prog->ready;
    c->status = -1;
    c->partial_len[0] = c->partial_len[1] = 0;
    c->report_len = 0;
    c->report[0] = '\0';
    c->limit[0] = '\0';
    rc = uv_spawn(e->loop, &c->proc, &po);
    /* The program holds its page now; iolab reads it through its mapping and keeps no descriptor
       another process could find in its /proc/PID/fd. */
    close(c->page_fd);
    c->page_fd = -1;
    if (audit_fd >= 0)
        close(audit_fd);
    c->open = 5;
    c->spawned = true;
    if (rc < 0) {
        /* A failed spawn still leaves the process handle to close (libuv's rule). */
        c->exited = c->stopping = true;
        c->status = 127;
        engine_child_close(c, (uv_handle_t *)&c->proc);
        engine_child_close(c, (uv_handle_t *)&c->in);
        engine_child_close(c, (uv_handle_t *)&c->out);
        engine_child_close(c, (uv_handle_t *)&c->err);
        engine_child_close(c, (uv_handle_t *)&c->rep);
        goto out;
    }
    c->pid = c->proc.pid;
    uv_read_start((uv_stream_t *)&c->out, engine_alloc, engine_read);
    uv_read_start((uv_stream_t *)&c->err, engine_alloc, engine_read);
    uv_read_start((uv_stream_t *)&c->rep, engine_alloc, engine_read_report);
    if (e->sampler) {
        sampler_set_root(e->sampler, (uint32_t)c->idx, c->pid, c->run);
        sampler_set_state(e->sampler, (uint32_t)c->idx,
                          c->ready ? SNAPSHOT_PROG_RUNNING : SNAPSHOT_PROG_STARTING, -1);
    }
out:
    jail_argv_free(jargv);
    engine_strv_free(argv);
    engine_strv_free(env);
    return rc;
}

/*
 * Continues the start sequence: spawns programs from next_start on until one must first print
 * its ready text. When all are up, the scenario (or the new mode) is running.
 */
/* The current mode's server is up: the mode's measured interval starts with this snapshot. */
static void engine_mode_up(struct engine *e)
{
    if (e->mode_up)
        return;
    e->mode_up = true;
    e->switching = false;
    if (e->sampler)
        sampler_set_mode(e->sampler, e->mode, true);
    engine_publish(e);
}

static void engine_spawn_next(struct engine *e)
{
    while (e->next_start < e->nchildren) {
        struct engine_child *c = &e->children[e->next_start];
        if (!c->spawned) {
            c->run++;
            int rc = engine_spawn(e, c);
            if (rc < 0) {
                engine_fail(e, "could not start the %s (%s): %s", c->prog->name, c->prog->path,
                            uv_strerror(rc));
                return;
            }
        }
        if (!c->ready) {
            e->start_timer.data = e;
            uv_timer_start(&e->start_timer, engine_ready_timeout,
                           (uint64_t)(e->opts.ready_timeout_s * 1000), 0);
            return; /* engine_on_line() calls again when its ready text shows */
        }
        /* Marked before the programs after it start, so that the load's first requests fall
           inside the interval, not before its first snapshot. */
        if (e->mode >= 0 && e->sc->modes[e->mode].program == c->idx)
            engine_mode_up(e);
        e->next_start++;
    }
    engine_mode_up(e);
    if (e->state == ENGINE_STARTING)
        engine_set_state(e, ENGINE_RUNNING);
}

static void engine_tick(uv_timer_t *t)
{
    engine_publish(t->data);
}

static int engine_rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path);
    return 0;
}

/* Ends a run: the jail and the work directory go; page and sampler stay for the last figures. */
static void engine_release_run(struct engine *e)
{
    if (e->jail) {
        jail_close(e->jail);
        e->jail = NULL;
    }
    if (e->workdir[0]) {
        nftw(e->workdir, engine_rm_entry, 16, FTW_DEPTH | FTW_PHYS);
        e->workdir[0] = '\0';
    }
}

static void engine_page_close(struct engine *e, struct engine_child *c)
{
    if (c->page) {
        iolab_page_unmap(c->page, e->nslots);
        c->page = NULL;
    }
    if (c->page_fd >= 0) {
        close(c->page_fd);
        c->page_fd = -1;
    }
}

static void engine_release_metrics(struct engine *e)
{
    sampler_close(e->sampler);
    e->sampler = NULL;
    for (size_t i = 0; i < e->nchildren; i++)
        engine_page_close(e, &e->children[i]);
}

/* The directories of the step's programs (and of its modes' own), NULL-terminated, allocated;
   NULL when out of memory, and the jail then shows only iolab's own tree. */
static char **engine_program_dirs(const struct engine *e)
{
    size_t max = e->sc->nprograms + e->sc->nmodes, n = 0;
    char **dirs = calloc(max + 1, sizeof *dirs);
    for (size_t i = 0; dirs && i < max; i++) {
        const char *p = i < e->sc->nprograms ? e->sc->programs[i].path
                                             : e->sc->modes[i - e->sc->nprograms].path;
        const char *slash = p && p[0] == '/' ? strrchr(p, '/') : NULL;
        if (slash && slash != p)
            dirs[n] = strndup(p, (size_t)(slash - p));
        n += dirs[n] != NULL;
    }
    return dirs;
}

static int engine_make_file(const char *dir, const struct lesson_file *f)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", dir, f->name) >= (int)sizeof path)
        return -ENAMETOOLONG;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    static unsigned char buf[65536];
    int rc = 0;
    for (uint64_t off = 0; off < f->size && rc == 0;) {
        size_t n = f->size - off < sizeof buf ? (size_t)(f->size - off) : sizeof buf;
        for (size_t i = 0; i < n; i++)
            buf[i] = lesson_file_byte(off + i);
        ssize_t w = write(fd, buf, n);
        if (w < 0)
            rc = -errno;
        else
            off += (uint64_t)w;
    }
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    return rc;
}

int engine_create(struct engine **out, uv_loop_t *loop, const struct lesson_scenario *sc,
                  const struct engine_options *opts, const struct engine_callbacks *cb)
{
    if (!sc || sc->nprograms == 0)
        return -EINVAL;
    if (sc->nprograms > SNAPSHOT_MAX_PROGS)
        return -E2BIG;
    int mode = -1;
    if (sc->nmodes) {
        mode = opts && opts->mode ? lesson_mode_find(sc, opts->mode) : (int)sc->default_mode;
        if (mode < 0)
            return -ENOENT;
    }
    struct engine *e = calloc(1, sizeof *e + sc->nprograms * sizeof e->children[0]);
    if (!e)
        return -ENOMEM;
    e->loop = loop;
    e->sc = sc;
    if (opts)
        e->opts = *opts;
    if (e->opts.tick_hz <= 0)
        e->opts.tick_hz = 10;
    if (e->opts.tick_hz > 20)
        e->opts.tick_hz = 20;
    if (e->opts.tick_hz < 1)
        e->opts.tick_hz = 1;
    if (e->opts.grace_s <= 0)
        e->opts.grace_s = 2;
    if (e->opts.ready_timeout_s <= 0)
        e->opts.ready_timeout_s = 5;
    if (cb)
        e->cb = *cb;
    e->mode = mode;
    e->nchildren = sc->nprograms;
    e->t0_ns = uv_hrtime();
    uv_timer_init(loop, &e->tick);
    uv_timer_init(loop, &e->start_timer);
    e->tick.data = e->start_timer.data = e;
    for (size_t i = 0; i < e->nchildren; i++) {
        struct engine_child *c = &e->children[i];
        c->e = e;
        c->idx = i;
        c->prog = &sc->programs[i];
        c->status = -1;
        c->page_fd = -1;
        uv_timer_init(loop, &c->kill_timer);
        c->kill_timer.data = c;
        c->ring = calloc(ENGINE_LINE_RING, sizeof *c->ring);
        if (!c->ring) {
            engine_free(e);
            return -ENOMEM;
        }
    }
    *out = e;
    return 0;
}

int engine_start(struct engine *e)
{
    if (e->state != ENGINE_IDLE && e->state != ENGINE_STOPPED && e->state != ENGINE_FAILED)
        return -EBUSY;
    for (size_t i = 0; i < e->nchildren; i++)
        if (e->children[i].spawned)
            return -EBUSY;
    e->error[0] = '\0';
    engine_release_run(e);
    engine_release_metrics(e);
    const char *tmp = getenv("TMPDIR");
    snprintf(e->workdir, sizeof e->workdir, "%s/iolab-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int rc = 0;
    const char *what = "";
    char why[256] = "";
    if (!mkdtemp(e->workdir)) {
        rc = -errno;
        e->workdir[0] = '\0';
        what = "could not create a work directory";
        goto fail;
    }
    for (size_t i = 0; i < e->sc->nfiles; i++)
        if ((rc = engine_make_file(e->workdir, &e->sc->files[i])) < 0) {
            what = "could not create the scenario's files";
            goto fail;
        }
    e->nslots = ENGINE_PAGE_SLOTS;
#ifdef IOLAB_TEST_HOOKS
    /* A test-only hook, compiled in only where the tests are built (IOLAB_TESTS):
       IOLAB_PAGE_SLOTS (2 to 4096) shrinks every program's page, so that a test can fill it. */
    const char *env_slots = getenv("IOLAB_PAGE_SLOTS");
    if (env_slots) {
        unsigned long n = strtoul(env_slots, NULL, 10);
        if (n >= 2 && n <= IOLAB_PAGE_MAX_SLOTS)
            e->nslots = (uint32_t)n;
    }
#endif
    char sandbox[PATH_MAX];
    if ((rc = paths_get(PATHS_SANDBOX, sandbox, sizeof sandbox)) < 0) {
        what = "could not locate iolab-sandbox";
        goto fail;
    }
    /* Every program's directory stays visible under the jail's private /tmp (a pack there). */
    char **visible = engine_program_dirs(e);
    /* The step's own limits (lesson_limits), for each of its programs; 0: the sandbox's own. */
    struct jail_options jo = {.sandbox_path = sandbox,
                              .tmp_mb = e->sc->limits.tmp_mb,
                              .visible = (const char *const *)visible,
                              .workdir = e->workdir,
                              .tier = e->opts.tier,
                              .open_files = e->sc->limits.open_files,
                              .processes = e->sc->limits.processes,
                              .address_space_mb = e->sc->limits.address_space_mb};
    rc = jail_open(&e->jail, &jo, why, sizeof why);
    for (char **v = visible; v && *v; v++)
        free(*v);
    free(visible);
    if (rc < 0) {
        e->jail = NULL;
        what = "could not set up the sandbox";
        goto fail;
    }
    snprintf(e->portstr, sizeof e->portstr, "%d", jail_port(e->jail));
    double secs = e->opts.seconds > 0 ? e->opts.seconds : e->sc->seconds;
    snprintf(e->seconds, sizeof e->seconds, "%g", secs);
    e->t0_ns = uv_hrtime();
    if ((rc = sampler_open(&e->sampler, "/proc", (uint32_t)e->nchildren, e->opts.tick_hz, 0.0)) <
        0) {
        what = "could not open /proc";
        goto fail;
    }
    for (size_t i = 0; i < e->nchildren; i++) {
        const struct lesson_program *p = e->children[i].prog;
        sampler_set_prog(e->sampler, (uint32_t)i, p->name, p->role);
        sampler_set_exe(e->sampler, (uint32_t)i, p->path);
        e->children[i].run = 0;
    }
    sampler_set_mode(e->sampler, e->mode, false);
    uint64_t period = (uint64_t)(1000.0 / e->opts.tick_hz);
    uv_timer_start(&e->tick, engine_tick, period, period);
    e->next_start = 0;
    e->switching = false;
    e->span_pending = false;
    e->mode_up = false;
    e->paused = false;
    engine_set_state(e, ENGINE_STARTING);
    engine_spawn_next(e);
    return e->state == ENGINE_FAILED ? -ECHILD : 0;
fail:
    snprintf(e->error, sizeof e->error, "%s: %s", what, why[0] ? why : strerror(-rc));
    engine_release_run(e);
    engine_release_metrics(e);
    engine_set_state(e, ENGINE_FAILED);
    return rc;
}

int engine_stop(struct engine *e)
{
    if (e->state != ENGINE_STARTING && e->state != ENGINE_RUNNING)
        return e->state == ENGINE_STOPPING ? 0 : -EALREADY;
    /* The figures of the run end here: what the programs do while they shut down is not part
       of the measurement. */
    engine_publish(e);
    uv_timer_stop(&e->tick);
    uv_timer_stop(&e->start_timer);
    engine_set_state(e, ENGINE_STOPPING);
    for (size_t i = 0; i < e->nchildren; i++) {
        e->children[i].restart = false;
        engine_child_stop(&e->children[i], e->opts.grace_s);
    }
    engine_maybe_stopped(e);
    return 0;
}

static int engine_restart_child(struct engine *e, struct engine_child *c)
{
    if (c->spawned) {
        c->restart = true;
        engine_child_stop(c, e->opts.grace_s);
        return 0;
    }
    e->next_start = c->idx;
    engine_spawn_next(e);
    return e->state == ENGINE_FAILED ? -ECHILD : 0;
}

int engine_switch_mode(struct engine *e, size_t mode)
{
    if (mode >= e->sc->nmodes)
        return -ENOENT;
    if (e->state != ENGINE_RUNNING || e->switching)
        return -EBUSY;
    /* Close the old mode's interval with a snapshot, then stop counting time for any mode
       until the new server is ready. */
    engine_publish(e);
    int old = e->mode;
    e->mode = (int)mode;
    e->switching = true;
    e->mode_up = false;
    struct engine_child *c = &e->children[e->sc->modes[mode].program];
    /* The old mode's span stays open, out of its measured time, until the program that made it
       has been reaped: what that program does while it stops (the rest of a read loop, its last
       counters, its exit's top-up) is the old mode's, never the new one's. engine_child_done
       publishes that final snapshot, then hands the span to the new mode. */
    if (c->spawned && old >= 0) {
        sampler_set_mode(e->sampler, old, false);
        e->span_pending = true;
        e->span_mode = old;
    } else {
        sampler_set_mode(e->sampler, e->mode, false);
    }
    return engine_restart_child(e, c);
}

int engine_pause(struct engine *e, bool paused)
{
    if (e->state != ENGINE_RUNNING)
        return -EBUSY;
    for (size_t i = 0; i < e->nchildren; i++) {
        struct engine_child *c = &e->children[i];
        if (c->prog->role != LESSON_ROLE_CLIENT || !c->spawned || c->exited || c->paused == paused)
            continue;
        engine_child_signal(c, paused ? SIGSTOP : SIGCONT);
        c->paused = paused;
        sampler_set_state(e->sampler, (uint32_t)i,
                          paused ? SNAPSHOT_PROG_PAUSED : SNAPSHOT_PROG_RUNNING, -1);
    }
    e->paused = paused;
    sampler_set_paused(e->sampler, paused);
    return 0;
}

struct engine_write_req {
    uv_write_t req;
    char data[];
};

static void engine_written(uv_write_t *req, int status)
{
    (void)status; /* a program that stopped reading is reported by its exit, not here */
    free(req);
}

int engine_write(struct engine *e, size_t prog, const char *buf, size_t len)
{
    if (prog >= e->nchildren)
        return -ENOENT;
    struct engine_child *c = &e->children[prog];
    if (!c->spawned || c->exited || uv_is_closing((uv_handle_t *)&c->in))
        return -EPIPE;
    struct engine_write_req *w = malloc(sizeof *w + len);
    if (!w)
        return -ENOMEM;
    memcpy(w->data, buf, len);
    uv_buf_t b = uv_buf_init(w->data, (unsigned)len);
    int rc = uv_write(&w->req, (uv_stream_t *)&c->in, &b, 1, engine_written);
    if (rc < 0)
        free(w);
    return rc;
}

int engine_close_stdin(struct engine *e, size_t prog)
{
    if (prog >= e->nchildren)
        return -ENOENT;
    struct engine_child *c = &e->children[prog];
    if (!c->spawned || c->exited)
        return -EPIPE;
    engine_child_close(c, (uv_handle_t *)&c->in);
    return 0;
}

enum engine_state engine_state(const struct engine *e)
{
    return e->state;
}

const char *engine_error(const struct engine *e)
{
    return e->error;
}

int engine_mode(const struct engine *e)
{
    return e->mode;
}

const struct jail *engine_jail(const struct engine *e)
{
    return e->jail;
}

bool engine_limit(const struct engine *e, size_t prog, char *out, size_t len)
{
    if (prog >= e->nchildren)
        return false;
    const struct engine_child *c = &e->children[prog];
    struct sandbox_line *r = c->report_len ? sandbox_line_parse(c->report) : NULL;
    bool hit = r && sandbox_line_string(r, "limit", out, len);
    sandbox_line_free(r);
    /* The final line names the limit when the run has ended; before it, the interim line. */
    if (!hit && c->limit[0]) {
        snprintf(out, len, "%s", c->limit);
        hit = true;
    }
    return hit;
}

bool engine_running(const struct engine *e, size_t prog)
{
    return prog < e->nchildren && e->children[prog].spawned && !e->children[prog].exited;
}

struct engine_limit_words engine_limit_say(const char *limit)
{
    static const struct {
        const char *name;
        struct engine_limit_words words;
    } table[] = {
        {"pids", {"process", "its cgroup's pids.max: a fork or a new thread failed with EAGAIN"}},
        {"memory", {"memory", "its cgroup's memory cap: the kernel's OOM killer ended a process"}},
        {"tmp",
         {"/tmp", "the jail's private /tmp was full: a write failed with ENOSPC; a step may ask "
                  "for more with \"limits\": {\"tmp_mb\": N}"}},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (limit && !strcmp(limit, table[i].name))
            return table[i].words;
    return (struct engine_limit_words){"resource", "a limit of the jail"};
}

size_t engine_lines(const struct engine *e, size_t prog)
{
    return prog < e->nchildren ? e->children[prog].ring_len : 0;
}

const char *engine_line(const struct engine *e, size_t prog, size_t i, enum engine_stream *stream)
{
    if (prog >= e->nchildren || i >= e->children[prog].ring_len)
        return NULL;
    const struct engine_child *c = &e->children[prog];
    const struct engine_line *l = &c->ring[(c->ring_head + i) % ENGINE_LINE_RING];
    if (stream)
        *stream = l->stream;
    return l->text;
}

void engine_free(struct engine *e)
{
    if (!e)
        return;
    e->freeing = true;
    for (size_t i = 0; i < e->nchildren; i++) {
        struct engine_child *c = &e->children[i];
        if (c->spawned && !c->exited) {
            engine_child_signal(c, SIGCONT);
            engine_child_signal(c, SIGKILL);
            /* Closing the handle stops libuv from reaping it: reap it here. It was sent
               SIGKILL, so the wait is short. */
            if (c->pid > 0 && !uv_is_closing((uv_handle_t *)&c->proc))
                waitpid(c->pid, NULL, 0);
        }
        engine_child_close(c, (uv_handle_t *)&c->proc);
        engine_child_close(c, (uv_handle_t *)&c->in);
        engine_child_close(c, (uv_handle_t *)&c->out);
        engine_child_close(c, (uv_handle_t *)&c->err);
        engine_child_close(c, (uv_handle_t *)&c->rep);
        engine_close(e, (uv_handle_t *)&c->kill_timer);
    }
    engine_close(e, (uv_handle_t *)&e->tick);
    engine_close(e, (uv_handle_t *)&e->start_timer);
    engine_release_run(e);
    engine_release_metrics(e);
    if (e->closing == 0)
        engine_free_now(e);
}
