/*
 * grade: see grade.h. Verdicts are recomputed from the session's facts on every update; a check
 * is a handful of additions over at most SNAPSHOT_MAX_MODES + 1 entries, so there is nothing to
 * gain from doing it incrementally.
 */
#include "grade.h"
#include "human.h"
#include "metrics/siteline.h"

#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GRADE_REPORT_MAX 4096 /* bytes of a sanitizer's report kept */

static void grade_settle(struct grader *g);

/*
 * The FNV-1a (64-bit) digest of the scenario file `name` as the engine makes it
 * (lesson_file_byte), computed from the step alone: a program that prints it has read the file,
 * byte for byte and in order, or copied it whole. 0 when the step has no such file.
 */
static uint64_t grade_file_digest(const struct lesson_scenario *sc, const char *name)
{
    for (size_t i = 0; i < sc->nfiles; i++)
        if (!strcmp(sc->files[i].name, name)) {
            uint64_t h = 0xcbf29ce484222325ull;
            for (uint64_t off = 0; off < sc->files[i].size; off++)
                h = (h ^ lesson_file_byte(off)) * 0x100000001b3ull;
            return h;
        }
    return 0;
}

int grade_init(struct grader *g, const struct lesson_scenario *sc)
{
    *g = (struct grader){.sc = sc,
                         .ctx = {.loadavg = -1},
                         .mode = sc->nmodes ? (int)sc->default_mode : -1,
                         .crash_prog = -1,
                         .report_prog = -1,
                         .suspect_at = -1,
                         .page_at = -1,
                         .looked_at = -1};
    session_reset(&g->session);
    if (!sc->nchecks)
        return 0;
    g->sites = calloc(1, sizeof *g->sites);
    g->results = calloc(sc->nchecks, sizeof *g->results);
    g->observed = calloc(sc->nchecks, sizeof *g->observed);
    g->cut = calloc(sc->nchecks, sizeof *g->cut);
    regex_t *re = calloc(sc->nchecks, sizeof *re);
    g->regexes = re;
    if (!g->results || !g->observed || !g->cut || !re) {
        grade_free(g);
        return -ENOMEM;
    }
    g->digests = calloc(sc->nchecks, sizeof *g->digests);
    if (!g->digests) {
        grade_free(g);
        return -ENOMEM;
    }
    for (size_t i = 0; i < sc->nchecks; i++) {
        const struct lesson_check *c = &sc->checks[i];
        if (c->figure != FIGURE_OUTPUT || !c->match)
            continue;
        /* A digest check reads the match's first group; the others need no groups. */
        if (regcomp(&re[i], c->match, REG_EXTENDED | (c->digest ? 0 : REG_NOSUB)) != 0) {
            grade_free(g); /* the loader compiled it already: only memory can fail here */
            return -ENOMEM;
        }
        if (c->digest)
            g->digests[i] = grade_file_digest(sc, c->digest);
    }
    return 0;
}

void grade_free(struct grader *g)
{
    regex_t *re = g->regexes;
    for (size_t i = 0; re && i < g->sc->nchecks; i++)
        if (g->sc->checks[i].figure == FIGURE_OUTPUT && g->sc->checks[i].match)
            regfree(&re[i]);
    free(re);
    free(g->digests);
    free(g->sites);
    g->sites = NULL;
    g->digests = NULL;
    free(g->results);
    free(g->observed);
    free(g->cut);
    free(g->report);
    g->cut = NULL;
    g->regexes = NULL;
    g->results = NULL;
    g->observed = NULL;
    g->report = NULL;
}

/*
 * Whether a check's figure comes from the counter page, which every program of the scenario can
 * write: counted calls, published requests and bytes (and any figure made of them). The kernel's
 * figures (syscr, syscw, bytes per syscr, processes, descriptors), time, and what iolab saw itself
 * (output, exit) are not.
 */
static bool grade_reads_page(const struct lesson_check *c)
{
    switch (c->figure) {
    case FIGURE_SECONDS:
    case FIGURE_EXIT:
    case FIGURE_OUTPUT:
    case FIGURE_SYSCR:
    case FIGURE_SYSCW:
    case FIGURE_RCHAR_PER_SYSCR:
    case FIGURE_PEAK_PROCS:
    case FIGURE_PEAK_FDS:
        return false;
    default:
        return true;
    }
}

/* Evaluates every check again on the session's facts and what was observed. */
static void grade_eval(struct grader *g)
{
    struct check_facts facts;
    session_facts(&g->session, &facts);
    facts.observed = g->observed;
    facts.over = g->over;
    g->nholding = g->sc->nchecks ? check_eval_all(g->sc, &facts, g->results) : 0;
    if (!g->untrusted[0])
        return;
    /* Counts that cannot be believed decide nothing in the learner's favour. */
    for (size_t i = 0; i < g->sc->nchecks; i++)
        if (grade_reads_page(&g->sc->checks[i])) {
            g->nholding -= g->results[i].holds;
            g->results[i].holds = false;
            g->results[i].decided = true;
        }
}

/*
 * The calls of the read (or write) family the kernel counts one for one in /proc/PID/io's syscr
 * (syscw), as the counter page has them for a program: read, readv, pread64, preadv (write,
 * writev, pwrite64, pwritev) and sendfile, which adds to both. Calls on a descriptor of kind
 * "other" are left out: a call on a descriptor that is not open is counted by the shim and
 * refused by the kernel before it counts it.
 */
static const enum iolab_call_id grade_syscr_calls[] = {IOLAB_CALL_READ, IOLAB_CALL_READV,
                                                       IOLAB_CALL_PREAD64, IOLAB_CALL_PREADV};
static const enum iolab_call_id grade_syscw_calls[] = {IOLAB_CALL_WRITE, IOLAB_CALL_WRITEV,
                                                       IOLAB_CALL_PWRITE64, IOLAB_CALL_PWRITEV};

static uint64_t grade_family(const struct snapshot_figures *f, const enum iolab_call_id *ids,
                             size_t n, bool reads, double *rate)
{
    uint64_t sum = 0;
    *rate = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t c = f->calls[ids[i]].count,
                 other = iolab_fdsplit_count(&f->fd, ids[i], IOLAB_FD_OTHER, -1);
        sum += c > other ? c - other : 0;
        *rate += f->calls[ids[i]].count_rate;
    }
    uint64_t c = f->calls[IOLAB_CALL_SENDFILE].count, other = 0;
    for (int k = 0; k < IOLAB_NFDKINDS; k++)
        other += reads ? f->fd.two[IOLAB_TWO_SENDFILE][IOLAB_FD_OTHER][k]
                       : f->fd.two[IOLAB_TWO_SENDFILE][k][IOLAB_FD_OTHER];
    sum += c > other ? c - other : 0;
    *rate += f->calls[IOLAB_CALL_SENDFILE].count_rate;
    return sum;
}

/*
 * How many more calls than the kernel's the page may honestly show: the calls the shim failed
 * itself without making them (injected EINTR and EAGAIN), the calls made between the moment the
 * kernel's figure was read and the moment the page was (the /proc figures may be a tick or more
 * older: proc_age_s), and a margin.
 */
static double grade_slack(const struct snapshot *snap, const struct snapshot_figures *f,
                          uint64_t counted, double rate)
{
    double skew = snap->dt_s + f->proc_age_s + 0.1;
    return 64.0 + (double)counted / 8 + rate * skew + (double)f->fd.faults[IOLAB_FAULT_EINTR] +
           (double)f->fd.faults[IOLAB_FAULT_EAGAIN];
}

/*
 * Sets g->untrusted when the counter page cannot be believed: a program wrote values on it that
 * no counting makes (tally marks them), or the learner's program's counted calls of a family the
 * kernel counts too are more than the kernel saw it make. Fewer is normal (libc makes calls the
 * shim cannot see: the read inside fread, syscall(SYS_read)), more is not: the shim counts only
 * calls that reach the kernel, so only a program writing its own slot makes them.
 *
 * The kernel's figures can lag the page by more than the slack on a loaded machine (a process
 * read late in a tick whose budget ran out), so one snapshot showing more is a suspicion, not a
 * verdict: the counts are disbelieved only when a later snapshot, whose kernel figures were all
 * read after the suspicious one was taken, still shows more. An honest program's kernel figure
 * has caught up by then; a forged slot has not.
 */
static void grade_trust(struct grader *g, const struct snapshot *snap)
{
    if (g->untrusted[0])
        return;
    char why[sizeof g->suspect] = "";
    double age = 0;
    bool unread = false;
    for (uint32_t i = 0; i < snap->nprogs && i < SNAPSHOT_MAX_PROGS && !why[0]; i++) {
        const struct snapshot_prog *p = &snap->progs[i];
        if (p->counts_forged) {
            /* Which program wrote it is unknown: any of them can write any slot. */
            snprintf(g->untrusted, sizeof g->untrusted,
                     "the counter page was tampered with; counts from this run cannot be "
                     "trusted");
            return;
        }
        /* The comparison is the learner's program's: a reference program is iolab's own, and
           the kernel's figures of a process tree lag its page when children come and go (a
           child's io reaches its parent's only once reaped), which the slack covers for one
           program, not for every demo of every lesson. */
        if (!g->sc->has_learner || i != g->sc->learner)
            continue;
        if (p->counted != 1) {
            /* Not counted (yet, or at all): the page holds nothing of it for the kernel to
               confirm, and its checks read zero. */
            if (snap->elapsed_s > g->looked_at)
                g->looked_at = snap->elapsed_s;
            continue;
        }
        unread = p->f.proc_unread > 0;
        age = p->f.proc_age_s;
        for (int w = 0; w < 2; w++) {
            double rate;
            uint64_t counted = w ? grade_family(&p->f, grade_syscw_calls, 4, false, &rate)
                                 : grade_family(&p->f, grade_syscr_calls, 4, true, &rate);
            uint64_t kernel = w ? p->f.syscw : p->f.syscr;
            if ((double)counted <= (double)kernel + grade_slack(snap, &p->f, counted, rate))
                continue;
            snprintf(why, sizeof why,
                     "the counts could not be trusted: %s's counter page shows %llu %s calls, "
                     "and the kernel saw it make %llu (%s)",
                     p->name, (unsigned long long)counted, w ? "write" : "read",
                     (unsigned long long)kernel, w ? "syscw" : "syscr");
            break;
        }
    }
    if (!why[0]) {
        if (!unread) { /* every figure was read and none is short: the suspicion is over */
            g->suspect_at = -1;
            /* The kernel's figures of this look were read no earlier than this. */
            if (snap->elapsed_s - age > g->looked_at)
                g->looked_at = snap->elapsed_s - age;
        }
        return;
    }
    if (g->suspect_at < 0) {
        g->suspect_at = snap->elapsed_s;
        snprintf(g->suspect, sizeof g->suspect, "%s", why);
        return;
    }
    /* Still short, with every figure read since the first look: believed forged. */
    if (!unread && snap->elapsed_s - age > g->suspect_at)
        snprintf(g->untrusted, sizeof g->untrusted, "%s", why);
}

/*
 * Notes when a check that reads the counter page was last decided to hold. Its figure may have
 * been written by the learner's program itself (its own slot), and only a look at the kernel's
 * figures taken after it can say the page was not ahead of what the kernel saw (grade_trust):
 * until then nothing is final. Only the learner's program is compared, so a step without one
 * has nothing to wait for.
 */
static void grade_note_page(struct grader *g, const struct snapshot *snap)
{
    if (!g->sc->has_learner)
        return;
    size_t n = 0;
    for (size_t i = 0; i < g->sc->nchecks; i++)
        n += grade_reads_page(&g->sc->checks[i]) && g->results[i].decided && g->results[i].holds;
    if (n > g->page_holding)
        g->page_at = snap->elapsed_s;
    g->page_holding = n;
}

/* Whether check c reads what happens in the mode now running. */
static bool grade_in_mode(const struct grader *g, const struct lesson_check *c)
{
    return c->mode < 0 || c->mode == g->mode;
}

/* Whether the first group m[1] of a line is the hexadecimal number want (any case, any width). */
static bool grade_digest_is(const char *line, const regmatch_t *m, uint64_t want)
{
    if (m[1].rm_so < 0 || m[1].rm_eo <= m[1].rm_so || m[1].rm_eo - m[1].rm_so > 16)
        return false;
    uint64_t v = 0;
    for (regoff_t k = m[1].rm_so; k < m[1].rm_eo; k++) {
        char ch = line[k];
        int d = ch >= '0' && ch <= '9'   ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                         : -1;
        if (d < 0)
            return false;
        v = v << 4 | (uint64_t)d;
    }
    return v == want;
}

bool grade_sanitizer_error(const char *line)
{
    if (strstr(line, "runtime error:"))
        return true;
    for (const char *e = strstr(line, "ERROR: "); e; e = strstr(e + 1, "ERROR: ")) {
        const char *name = e + 7;
        size_t n = strcspn(name, ": ");
        if (n > 9 && !strncmp(name + n - 9, "Sanitizer", 9))
            return true;
    }
    return false;
}

void grade_line(struct grader *g, size_t prog, const char *line)
{
    regex_t *re = g->regexes;
    bool counted = false;
    for (size_t i = 0; i < g->sc->nchecks; i++) {
        const struct lesson_check *c = &g->sc->checks[i];
        if (c->figure != FIGURE_OUTPUT || c->program != (int)prog || !c->match ||
            !grade_in_mode(g, c) || g->over)
            continue;
        regmatch_t m[2];
        if (regexec(&re[i], line, c->digest ? 2 : 0, c->digest ? m : NULL, 0) != 0)
            continue;
        struct check_observed *o = &g->observed[i];
        if (c->digest && !grade_digest_is(line, m, g->digests[i])) {
            /* The line has the shape the check wants, but not the bytes: say so. */
            if (!o->wrong++)
                snprintf(o->wrong_first, sizeof o->wrong_first, "%s", line);
            counted = true;
            continue;
        }
        if (!o->value++)
            snprintf(o->first, sizeof o->first, "%s", line);
        counted = true;
    }
    /* A sanitizer report starts with a line we know and runs to the end of the output; only the
       first report is kept (later ones are usually its consequences). */
    if (grade_sanitizer_error(line) && g->report_prog < 0) {
        g->report_prog = (int)prog;
        g->report_open = g->report_live = true;
    }
    if (g->report_open && g->report_prog == (int)prog) {
        size_t n = strlen(line);
        if (g->report_len + n + 2 > GRADE_REPORT_MAX) {
            g->report_open = false;
        } else {
            char *r = realloc(g->report, g->report_len + n + 2);
            if (r) {
                memcpy(r + g->report_len, line, n);
                r[g->report_len + n] = '\n';
                g->report_len += n + 1;
                r[g->report_len] = '\0';
                g->report = r;
            }
        }
    }
    if (counted)
        grade_eval(g);
    grade_settle(g);
}

void grade_exit(struct grader *g, size_t prog, int status, bool expected)
{
    if (g->report_prog == (int)prog)
        g->report_open = g->report_live = false;
    /* SIGTERM and SIGKILL are how iolab stops a program; any other signal is the program's own,
       whenever it comes. */
    int sig = status > 128 ? status - 128 : 0;
    bool own = sig && sig != SIGTERM && !(expected && sig == SIGKILL);
    if (own && g->crash_prog < 0) {
        g->crash_prog = (int)prog;
        g->crash_signal = sig;
    }
    if (expected || g->over)
        return;
    for (size_t i = 0; i < g->sc->nchecks; i++) {
        const struct lesson_check *c = &g->sc->checks[i];
        if (c->figure == FIGURE_EXIT && c->program == (int)prog && grade_in_mode(g, c) &&
            !g->observed[i].seen)
            g->observed[i] = (struct check_observed){.value = status, .seen = true};
    }
    g->exit_unread = true;
    grade_eval(g);
}

/* A check failed for certain (a maximum passed, a minimum missed at the end of its window, a
   wrong exit status, an output check's forbidden line): the step cannot pass in this run, so
   the run is judged now rather than at the end of its time. A check on a page the kernel
   contradicts is not failed but not judged: the run goes on to the checks on what the kernel
   and the other programs saw, which say what went wrong. Only a learner's program is judged
   to its first failure: a step without one shows how programs behave, mode after mode, and its
   checks are judged over the whole run, each mode's in its turn; there only a forbidden line
   (a client that rejected a download) ends the judging at once. */
static bool grade_failed(const struct grader *g)
{
    for (size_t i = 0; i < g->sc->nchecks; i++) {
        const struct lesson_check *c = &g->sc->checks[i];
        if (!g->results[i].decided || g->results[i].holds)
            continue;
        if (g->sc->has_learner ? !(g->untrusted[0] && grade_reads_page(c))
                               : c->figure == FIGURE_OUTPUT && c->has_max)
            return true;
    }
    return false;
}

/* Whether every check is decided by its own figure: the rest decided, and what is left only
   maxima and ratios that hold, which are decided with the rest once something has run. */
static bool grade_all_decided(const struct grader *g)
{
    size_t open_max = 0;
    for (size_t i = 0; i < g->sc->nchecks; i++) {
        const struct lesson_check *c = &g->sc->checks[i];
        if (g->results[i].decided)
            continue;
        bool ratio = !check_monotonic(c) && c->figure != FIGURE_EXIT;
        /* A child counts as left unreaped only after a second as a zombie: "no zombie" has
           shown nothing before the run has lasted long enough for one to be seen. */
        if (c->figure == FIGURE_ZOMBIES && g->results[i].seconds < CHECK_ZOMBIE_WATCH_S)
            return false;
        if (ratio && g->results[i].holds)
            open_max++; /* a ratio that holds now: decided with the rest */
        else if (!ratio && c->has_max && !c->has_min && c->figure != FIGURE_EXIT)
            open_max++; /* holds so far; decided with the rest */
        else
            return false;
    }
    return !open_max || g->measured;
}

void grade_finish(struct grader *g)
{
    /* A suspicion nothing cleared stands: the run gave the kernel's figure no later look. */
    if (!g->untrusted[0] && g->suspect_at >= 0)
        snprintf(g->untrusted, sizeof g->untrusted, "%s", g->suspect);
    /* A run judged at its first failure, before the others' figures settled them: those were
       cut short and are "not judged", neither failed with a sentence that may point at another
       fix nor passed on a window that did not run out. */
    if (!g->over && g->cut && grade_failed(g) && !grade_all_decided(g))
        for (size_t i = 0; i < g->sc->nchecks; i++)
            g->cut[i] = !g->results[i].decided;
    g->over = true;
    grade_eval(g);
}

void grade_void(struct grader *g, const char *why)
{
    if (g->voided[0])
        return;
    snprintf(g->voided, sizeof g->voided, "%s", why && why[0] ? why : "the run was void");
    g->over = true;
}

bool grade_decided(const struct grader *g)
{
    if (g->over)
        return true;
    if (g->exit_unread)
        return false; /* judged with the lines it left: a client's "problem: ..." explains it */
    if (g->suspect_at >= 0 && !g->untrusted[0])
        return false; /* the counts are in doubt until a later look settles it */
    if (g->page_at >= 0 && g->looked_at <= g->page_at && !g->untrusted[0])
        return false; /* a pass on the page, not yet confirmed by the kernel's figures */
    return grade_failed(g) || grade_all_decided(g);
}

/* The one pass rule's moment: once every check is decided, the verdicts become final, whoever
   feeds the grader (the TUI, `iolab check`, `iolab run`). A holding check is never final before
   this: a pass read off an instant where every check held (a zombie not yet a second old, a
   server that has not been asked yet) is not a pass. */
static void grade_settle(struct grader *g)
{
    if (!g->over && g->sc->nchecks && grade_decided(g))
        grade_finish(g);
}

bool grade_sanitizer_reporting(const struct grader *g)
{
    return g->report_live;
}

const char *grade_sanitizer_report(const struct grader *g)
{
    return g->report;
}

void grade_new_run(struct grader *g)
{
    session_new_run(&g->session);
}

void grade_update(struct grader *g, const struct snapshot *snap)
{
    if (g->sites) {
        g->sites->n = snap->nprogs < SNAPSHOT_MAX_PROGS ? snap->nprogs : SNAPSHOT_MAX_PROGS;
        for (uint32_t p = 0; p < g->sites->n; p++)
            g->sites->t[p] = snap->progs[p].sites;
    }
    session_update(&g->session, g->sc, snap);
    if (snap->mode_running)
        g->measured = true;
    if (snap->ncpus)
        g->ctx.ncpus = snap->ncpus;
    g->ctx.loadavg = snap->loadavg;
    g->mode = snap->mode;
    if (g->over)
        return; /* verdicts are final */
    /* A program's exit was told in an earlier turn of the loop: its last lines are read. */
    g->exit_unread = false;
    grade_trust(g, snap);
    grade_eval(g);
    grade_note_page(g, snap);
    grade_settle(g);
}

enum grade_state grade_state(const struct grader *g, size_t i)
{
    if (i >= g->sc->nchecks)
        return GRADE_UNJUDGED;
    if (g->voided[0] || (g->cut && g->cut[i]) ||
        (g->untrusted[0] && grade_reads_page(&g->sc->checks[i])))
        return GRADE_UNJUDGED;
    const struct check_result *r = &g->results[i];
    if (!r->decided)
        return g->over ? GRADE_UNJUDGED : GRADE_OPEN;
    return r->holds ? GRADE_PASS : GRADE_FAIL;
}

/* Each state's name (the JSON's "state", the text's words) and its tag in a text listing. */
static const struct {
    const char *name, *tag;
} grade_states[] = {
    [GRADE_OPEN] = {"open", ".."},
    [GRADE_PASS] = {"pass", "ok"},
    [GRADE_FAIL] = {"fail", "--"},
    [GRADE_UNJUDGED] = {"not judged", "  "},
};

const char *grade_state_name(enum grade_state s)
{
    return (unsigned)s < sizeof grade_states / sizeof *grade_states ? grade_states[s].name : "?";
}

const char *grade_state_tag(enum grade_state s)
{
    return (unsigned)s < sizeof grade_states / sizeof *grade_states ? grade_states[s].tag : "??";
}

size_t grade_count(const struct grader *g, enum grade_state s)
{
    size_t n = 0;
    for (size_t i = 0; i < g->sc->nchecks; i++)
        n += grade_state(g, i) == s;
    return n;
}

bool grade_done(const struct grader *g)
{
    if (g->sc->nchecks == 0)
        return g->measured;
    return g->over && grade_count(g, GRADE_PASS) == g->sc->nchecks;
}

int grade_message(const struct grader *g, size_t i, char *buf, size_t len)
{
    if (i >= g->sc->nchecks)
        return snprintf(buf, len, "no such check");
    const struct lesson_check *c = &g->sc->checks[i];
    const struct check_result *r = &g->results[i];
    /* A check not judged carries no figure: what it would show was never measured in full. */
    if (g->voided[0])
        return snprintf(buf, len, "not judged: %s", g->voided);
    if (g->cut && g->cut[i])
        return snprintf(buf, len, "not judged: the run stopped at a check that failed");
    if (g->untrusted[0] && grade_reads_page(c))
        return snprintf(buf, len, "not judged: %s", g->untrusted);
    if (grade_state(g, i) == GRADE_UNJUDGED)
        return snprintf(buf, len, "not judged: the run ended before it was decided");
    bool explain = r->decided && !r->holds && (c->fail || c->within > 0 || g->crash_prog >= 0);
    if (!explain)
        return check_describe(c, g->sc, r, buf, len);
    int n = check_explain(c, g->sc, r, buf, len);
    /* The lines of code that made the calls the check is about. */
    char where[384];
    if (n >= 0 && (size_t)n < len && grade_sites(g, i, where, sizeof where, NULL, 0))
        n += snprintf(buf + n, len - (size_t)n, " (%s)", where);
    /* A line that must not appear did: quote it, it usually says what went wrong and where. */
    if (c->figure == FIGURE_OUTPUT && c->has_max && g->observed[i].first[0] && n >= 0 &&
        (size_t)n < len) {
        const char *who = c->program >= 0 && (size_t)c->program < g->sc->nprograms
                              ? g->sc->programs[c->program].name
                              : "a program";
        n += snprintf(buf + n, len - (size_t)n, " (%s said: \"%s\")", who, g->observed[i].first);
    }
    /* Lines of the wanted shape whose digest was wrong: the bytes the program had differ. */
    if (c->digest && g->observed[i].wrong && n >= 0 && (size_t)n < len) {
        const char *who = c->program >= 0 && (size_t)c->program < g->sc->nprograms
                              ? g->sc->programs[c->program].name
                              : "a program";
        n += snprintf(buf + n, len - (size_t)n,
                      " (%u line%s of %s carried a digest that is not %s's, so the bytes differ "
                      "from the file; the first: \"%s\")",
                      g->observed[i].wrong, g->observed[i].wrong == 1 ? "" : "s", who, c->digest,
                      g->observed[i].wrong_first);
    }
    if (g->crash_prog >= 0 && n >= 0 && (size_t)n < len) {
        const char *who = (size_t)g->crash_prog < g->sc->nprograms
                              ? g->sc->programs[g->crash_prog].name
                              : "a program";
        const char *abbrev = sigabbrev_np(g->crash_signal);
        n += snprintf(buf + n, len - (size_t)n, " (%s was killed by signal %d, SIG%s: %s%s)", who,
                      g->crash_signal, abbrev ? abbrev : "?", strsignal(g->crash_signal),
                      g->report ? "; the sanitizer's report is below" : "");
    }
    return n;
}

void grade_json(const struct grader *g, struct json_out *j, const char *key)
{
    json_array(j, key);
    for (size_t i = 0; i < g->sc->nchecks; i++) {
        char msg[768];
        grade_message(g, i, msg, sizeof msg);
        enum grade_state st = grade_state(g, i);
        json_object(j, NULL);
        json_string(j, "text", g->sc->checks[i].text);
        json_string(j, "state", grade_state_name(st));
        if (st == GRADE_PASS || st == GRADE_FAIL)
            json_bool(j, "ok", st == GRADE_PASS);
        else
            json_null(j, "ok");
        json_string(j, "message", msg);
        json_bool(j, "decided", st == GRADE_PASS || st == GRADE_FAIL);
        grade_sites_json(g, i, j);
        json_end(j);
    }
    json_end(j);
}

const char *grade_untrusted(const struct grader *g)
{
    return g->untrusted[0] ? g->untrusted : NULL;
}

void grade_set_tier(struct grader *g, const char *tier)
{
    g->ctx.tier = tier;
}

struct expect_verdict grade_expect(const struct grader *g, size_t i, char *buf, size_t len)
{
    struct expect_verdict v =
        expect_judge(g->sc, &g->sc->expects[i], g->session.modes, g->session.nmodes);
    if (buf)
        expect_describe(g->sc, &g->sc->expects[i], &v, &g->ctx, buf, len);
    return v;
}

void grade_expect_json(const struct grader *g, struct json_out *j, const char *key)
{
    json_array(j, key);
    for (size_t i = 0; i < g->sc->nexpects; i++) {
        char msg[512];
        struct expect_verdict v = grade_expect(g, i, msg, sizeof msg);
        json_object(j, NULL);
        json_string(j, "text", g->sc->expects[i].text);
        if (v.state == EXPECT_UNDECIDED)
            json_null(j, "ok");
        else
            json_bool(j, "ok", v.state == EXPECT_AGREES);
        json_string(j, "message", msg);
        json_end(j);
    }
    json_end(j);
}

/* The calls the kernel counts in syscr and syscw (as sampler.c sets them beside it). */
static const unsigned grade_read_family[] = {IOLAB_CALL_READ,     IOLAB_CALL_READV,
                                             IOLAB_CALL_PREAD64,  IOLAB_CALL_PREADV,
                                             IOLAB_CALL_SENDFILE, IOLAB_CALL_COPY_FILE_RANGE};
static const unsigned grade_write_family[] = {IOLAB_CALL_WRITE,    IOLAB_CALL_WRITEV,
                                              IOLAB_CALL_PWRITE64, IOLAB_CALL_PWRITEV,
                                              IOLAB_CALL_SENDFILE, IOLAB_CALL_COPY_FILE_RANGE};
/* What moves data, when the call a check wanted was never made: how the bytes went instead. */
static const unsigned grade_data_family[] = {
    IOLAB_CALL_READ,     IOLAB_CALL_READV,          IOLAB_CALL_PREAD64, IOLAB_CALL_PREADV,
    IOLAB_CALL_RECVFROM, IOLAB_CALL_WRITE,          IOLAB_CALL_WRITEV,  IOLAB_CALL_PWRITE64,
    IOLAB_CALL_PWRITEV,  IOLAB_CALL_SENDTO,         IOLAB_CALL_SENDMSG, IOLAB_CALL_SENDFILE,
    IOLAB_CALL_SPLICE,   IOLAB_CALL_COPY_FILE_RANGE};

/* The family of calls check c's figure is about, or 0 calls when it is about none. */
static size_t grade_site_family(const struct lesson_check *c, unsigned *calls, size_t max)
{
    const unsigned *f = NULL;
    size_t n = 0;
    switch (c->figure) {
    case FIGURE_CALLS:
    case FIGURE_CHECK_CALL_PER_REQ:
    case FIGURE_CALL_BYTES_PER_BYTE:
        calls[0] = c->call;
        return 1;
    case FIGURE_SYSCR:
    case FIGURE_RCHAR_PER_SYSCR:
    case FIGURE_READ_FILL:
    case FIGURE_RCHAR_PER_BYTE:
        f = grade_read_family, n = sizeof grade_read_family / sizeof *f;
        break;
    case FIGURE_SYSCW:
    case FIGURE_WCHAR_PER_BYTE:
        f = grade_write_family, n = sizeof grade_write_family / sizeof *f;
        break;
    default:
        return 0;
    }
    n = n < max ? n : max;
    memcpy(calls, f, n * sizeof *calls);
    return n;
}

static bool grade_in(const unsigned *calls, size_t n, unsigned call)
{
    for (size_t k = 0; k < n; k++)
        if (calls[k] == call)
            return true;
    return false;
}

/* The programs check c is about: the learner's in an exercise, else those of its role. */
static bool grade_site_prog(const struct grader *g, const struct lesson_check *c, size_t p)
{
    if (g->sc->has_learner)
        return p == g->sc->learner;
    return p < g->sc->nprograms && (c->role < 0 || (int)g->sc->programs[p].role == c->role);
}

static void grade_site_where(const struct siteline_row *r, char *buf, size_t len);

#define GRADE_SITES_NAMED 3  /* lines named in one message: the rest are said as a number */
#define GRADE_SITES_KEPT  16 /* lines a check's JSON lists */

size_t grade_sites(const struct grader *g, size_t i, char *buf, size_t len,
                   struct siteline_row *out, size_t max)
{
    if (len)
        buf[0] = 0;
    if (!g->sites || i >= g->sc->nchecks)
        return 0;
    const struct lesson_check *c = &g->sc->checks[i];
    unsigned family[16];
    size_t nf = grade_site_family(c, family, 16);
    if (!nf)
        return 0;
    static struct siteline_row rows[TALLY_SITES + IOLAB_NCALLS];
    struct siteline_row kept[GRADE_SITES_KEPT];
    size_t nkept = 0, more = 0;
    for (int pass = 0; pass < 2 && !nkept; pass++) {
        /* First the check's own calls; when it found none, the calls that moved the data. */
        const unsigned *want = pass ? grade_data_family : family;
        size_t nwant = pass ? sizeof grade_data_family / sizeof *grade_data_family : nf;
        if (pass && nf != 1)
            break;
        for (size_t p = 0; p < g->sites->n; p++) {
            if (!grade_site_prog(g, c, p))
                continue;
            size_t n = siteline_rows(NULL, &g->sites->t[p], rows, sizeof rows / sizeof *rows);
            for (size_t k = 0; k < n && k < sizeof rows / sizeof *rows; k++) {
                if (!grade_in(want, nwant, rows[k].call) || !rows[k].exe)
                    continue;
                if (nkept < GRADE_SITES_KEPT)
                    kept[nkept++] = rows[k];
                else
                    more++;
            }
        }
    }
    size_t at = 0, named = nkept < GRADE_SITES_NAMED ? nkept : GRADE_SITES_NAMED;
    more += nkept - named;
    for (size_t k = 0; k < named && at < len; k++) {
        const struct siteline_row *r = &kept[k];
        char count[32], where[192];
        human_count(r->count, count, sizeof count);
        grade_site_where(r, where, sizeof where);
        at += (size_t)snprintf(buf + at, len - at, "%s%s() at %s ran %s time%s", k ? ", " : "",
                               iolab_call_info[r->call].label, where, count,
                               r->count == 1 ? "" : "s");
    }
    if (more && at < len)
        snprintf(buf + at, len - at, ", and %zu more line%s", more, more == 1 ? "" : "s");
    for (size_t k = 0; out && k < nkept && k < max; k++)
        out[k] = kept[k];
    return nkept;
}

/* Where a row is, for a sentence: file:line, else function+offset, else object+offset. */
static void grade_site_where(const struct siteline_row *r, char *buf, size_t len)
{
    if (r->src.line)
        snprintf(buf, len, "%s:%d", r->src.file, r->src.line);
    else if (r->src.function[0])
        snprintf(buf, len, "%s+0x%llx", r->src.function, (unsigned long long)r->src.fn_offset);
    else
        snprintf(buf, len, "%s+0x%llx", r->object, (unsigned long long)r->offset);
}

void grade_sites_json(const struct grader *g, size_t i, struct json_out *j)
{
    struct siteline_row rows[GRADE_SITES_KEPT];
    char text[384];
    size_t n = grade_sites(g, i, text, sizeof text, rows, GRADE_SITES_KEPT);
    json_array(j, "sites");
    for (size_t k = 0; k < n && k < GRADE_SITES_KEPT; k++) {
        json_object(j, NULL);
        json_string(j, "file", rows[k].src.file);
        json_int(j, "line", rows[k].src.line);
        json_string(j, "function", rows[k].src.function);
        json_string(j, "call", iolab_call_info[rows[k].call].label);
        json_u64(j, "count", rows[k].count);
        json_end(j);
    }
    json_end(j);
}
