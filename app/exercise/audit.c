/*
 * audit: the graded run's second run, judged on the kernel's counts (audit.h).
 */
#include "audit.h"

#include "iolab_audit.h"
#include "lesson/check.h"
#include "metrics/figure.h"
#include "exercise.h"
#include "session.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define AUDIT_STARTUP_GRACE_S 10 /* a loaded machine's start-up, beyond the run's own time */

bool judge_audit_check(const struct lesson_check *ck)
{
    const struct figure_def *f = figure_at(ck->figure);
    if (!f || !f->per_call || ck->call >= IOLAB_NCALLS)
        return false;
    return ck->call != IOLAB_CALL_SEM_WAIT && ck->call != IOLAB_CALL_SEM_POST &&
           ck->call != IOLAB_CALL_RECVMSG_RIGHTS;
}

size_t judge_audit_calls(const struct lesson_scenario *sc, char *buf, size_t len)
{
    bool want[IOLAB_NCALLS] = {0};
    for (size_t i = 0; i < sc->nchecks; i++)
        if (judge_audit_check(&sc->checks[i]))
            want[sc->checks[i].call] = true;
    size_t n = 0, used = 0;
    if (len)
        buf[0] = '\0';
    for (unsigned k = 0; k < IOLAB_NCALLS; k++) {
        if (!want[k])
            continue;
        int w = snprintf(buf + used, len - used, "%s%s", n ? "," : "", iolab_call_info[k].label);
        if (w < 0 || (size_t)w >= len - used)
            break;
        used += (size_t)w;
        n++;
    }
    return n;
}

/* b - a, never below zero (a base newer than a page made again is no reason to wrap). */
static uint64_t audit_sub(uint64_t b, uint64_t a)
{
    return b > a ? b - a : 0;
}

/* Sets *fig to v and moves the role's sum by the same difference. */
static void audit_set(uint64_t *fig, uint64_t *sum, uint64_t v)
{
    *sum = *sum - *fig + v;
    *fig = v;
}

void judge_audit_substitute(const struct lesson_scenario *sc, const struct iolab_audit_page *page,
                            const struct iolab_audit_page *base, struct snapshot *snap)
{
    if (!page || page->state != IOLAB_AUDIT_TRACING || !sc->has_learner ||
        sc->learner >= snap->nprogs)
        return;
    struct snapshot_prog *p = &snap->progs[sc->learner];
    if ((unsigned)p->role >= LESSON_NROLES)
        return;
    struct snapshot_figures *f = &p->f, *r = &snap->roles[p->role];
    /* Before its ready text, nothing it called is a check's (base is zero until then). */
    static const struct iolab_audit_page zero;
    const struct iolab_audit_page *b = base ? base : &zero;
    for (unsigned id = 0; id < IOLAB_NCALLS; id++) {
        if (!iolab_audit_traced(page, id))
            continue;
        const struct iolab_audit_call *c = &page->calls[id], *c0 = &b->calls[id];
        audit_set(&f->calls[id].count, &r->calls[id].count, audit_sub(c->count, c0->count));
        audit_set(&f->calls[id].bytes, &r->calls[id].bytes, audit_sub(c->bytes, c0->bytes));
        int one = iolab_split_one_index(id), two = iolab_split_two_index(id);
        for (int k = 0; k < IOLAB_NFDKINDS; k++) {
            if (one >= 0)
                audit_set(&f->fd.one[one][k], &r->fd.one[one][k],
                          audit_sub(c->kind[k], c0->kind[k]));
            for (int d = 0; two >= 0 && d < IOLAB_NFDKINDS; d++)
                audit_set(&f->fd.two[two][k][d], &r->fd.two[two][k][d],
                          audit_sub(c->pair[k][d], c0->pair[k][d]));
        }
    }
    /* Its call figures are the kernel's now, whatever its counter page held. */
    p->counts_forged = false;
}

/* What the kernel counted since the ready text, in words. */
static void audit_say_counts(struct judge_audit *au, const struct iolab_audit_page *page,
                             const struct iolab_audit_page *base)
{
    static const struct iolab_audit_page zero;
    const struct iolab_audit_page *b = base ? base : &zero;
    size_t used = 0;
    au->counts[0] = '\0';
    for (unsigned id = 0; id < IOLAB_NCALLS; id++) {
        if (!iolab_audit_traced(page, id))
            continue;
        const struct iolab_audit_call *c = &page->calls[id], *c0 = &b->calls[id];
        uint64_t n = audit_sub(c->count, c0->count), bytes = audit_sub(c->bytes, c0->bytes),
                 files = audit_sub(c->kind[IOLAB_FD_FILE], c0->kind[IOLAB_FD_FILE]);
        bool family = id == IOLAB_CALL_READ || id == IOLAB_CALL_WRITE;
        bool split = iolab_split_one_index(id) >= 0 || iolab_split_two_index(id) >= 0;
        char one[256];
        int w = snprintf(one, sizeof one, "%llu %s%s calls", (unsigned long long)n,
                         iolab_call_info[id].label, family ? "-family" : "()");
        if (split && w > 0 && (size_t)w < sizeof one)
            w += snprintf(one + w, sizeof one - (size_t)w, " (%llu on files)",
                          (unsigned long long)files);
        if (split && w > 0 && (size_t)w < sizeof one)
            snprintf(one + w, sizeof one - (size_t)w, " moving %llu bytes",
                     (unsigned long long)bytes);
        int x =
            snprintf(au->counts + used, sizeof au->counts - used, "%s%s", used ? ", " : "", one);
        if (x < 0 || (size_t)x >= sizeof au->counts - used)
            break;
        used += (size_t)x;
    }
}

/* The run is over: the verdict of the call-count checks on the kernel's counts. */
static void audit_conclude(struct judge_audit *au)
{
    const struct iolab_audit_page *base = NULL,
                                  *page = au->engine ? engine_audit(au->engine, &base) : NULL;
    if (!page) {
        snprintf(au->why, sizeof au->why, "your program never started in the audit run");
        return;
    }
    if (page->state == IOLAB_AUDIT_REFUSED) {
        snprintf(au->why, sizeof au->why, "the sandbox could not trace your program: %.400s",
                 page->why);
        return;
    }
    if (page->state != IOLAB_AUDIT_TRACING) {
        snprintf(au->why, sizeof au->why,
                 "the sandbox never reported tracing your program (no seccomp or ptrace here?)");
        return;
    }
    au->audited = true;
    audit_say_counts(au, page, base);
    if (au->judge.why[0]) {
        /* Traced, the program did not do in the audit run what it did in the ordinary one (it
           never got ready, a limit stopped it): a graded run needs the audit's say, and a
           program that behaves otherwise when it is watched must not pass by it. */
        snprintf(au->failure, sizeof au->failure,
                 "the audit run said nothing about your program: %.800s [audited: %.600s]",
                 au->judge.why, au->counts);
        au->failed = true;
        return;
    }
    for (size_t i = 0; i < au->sc->nchecks; i++) {
        if (!judge_audit_check(&au->sc->checks[i]) || grade_state(&au->grader, i) != GRADE_FAIL)
            continue;
        char msg[512];
        grade_message(&au->grader, i, msg, sizeof msg);
        /* The message carries the check's own "fail" advice already. */
        snprintf(au->failure, sizeof au->failure,
                 "\"%s\" fails on the kernel's count of your program's calls (the audit): %s "
                 "[audited: %.600s]",
                 au->sc->checks[i].text, msg, au->counts);
        au->failed = true;
        return;
    }
}

static void audit_closed(uv_handle_t *h)
{
    struct judge_audit *au = h->data;
    au->timer_ready = false;
    if (au->done)
        au->done(au->data);
}

static void audit_end(struct judge_audit *au)
{
    au->run_s = (double)(uv_hrtime() - au->t0) / 1e9;
    if (!au->grader.over)
        grade_finish(&au->grader);
    audit_conclude(au);
    engine_free(au->engine);
    au->engine = NULL;
    uv_timer_stop(&au->timer);
    uv_close((uv_handle_t *)&au->timer, audit_closed);
}

static void audit_stop_engine(struct judge_audit *au)
{
    /* engine_stop() publishes a last snapshot, which comes back here through on_snapshot. */
    if (au->stopping)
        return;
    au->stopping = true;
    if (au->engine &&
        (engine_state(au->engine) == ENGINE_RUNNING || engine_state(au->engine) == ENGINE_STARTING))
        engine_stop(au->engine);
}

static void audit_on_snapshot(void *data, const struct snapshot *snap)
{
    struct judge_audit *au = data;
    const struct iolab_audit_page *base = NULL, *page = engine_audit(au->engine, &base);
    *au->snap = *snap;
    judge_audit_substitute(au->sc, page, base, au->snap);
    judge_snapshot(&au->judge, au->engine, au->snap);
}

static void audit_on_line(void *data, size_t prog, enum engine_stream stream, const char *line,
                          size_t len)
{
    struct judge_audit *au = data;
    (void)stream;
    (void)len;
    judge_line(&au->judge, prog, line);
}

static void audit_on_exit(void *data, size_t prog, int status, bool expected)
{
    struct judge_audit *au = data;
    judge_exit(&au->judge, au->engine, prog, status, expected);
}

static void audit_on_state(void *data, enum engine_state state)
{
    struct judge_audit *au = data;
    judge_state(&au->judge, au->engine, state);
    if (state == ENGINE_STOPPED || state == ENGINE_FAILED)
        audit_end(au);
}

/* Seconds the learner's program has run in its mode (its start-up excluded). */
static double audit_mode_seconds(const struct judge_audit *au)
{
    struct check_facts f;
    session_facts(&au->grader.session, &f);
    for (size_t i = 0; i < f.nmodes; i++)
        if (f.modes[i].mode == EXERCISE_MODE_YOURS)
            return f.modes[i].span.seconds;
    return 0;
}

static void audit_time_up(uv_timer_t *t)
{
    struct judge_audit *au = t->data;
    double left = au->seconds - audit_mode_seconds(au);
    double since = (double)(uv_hrtime() - au->t0) / 1e9;
    if (au->engine && au->grader.measured && left > 0.05 &&
        since < au->seconds + AUDIT_STARTUP_GRACE_S) {
        uv_timer_start(&au->timer, audit_time_up, (uint64_t)(left * 1000) + 200, 0);
        return;
    }
    audit_stop_engine(au);
}

int judge_audit_start(struct judge_audit *au, uv_loop_t *loop, const struct lesson_scenario *sc,
                      double seconds, judge_audit_done_fn done, void *data)
{
    *au = (struct judge_audit){.loop = loop, .sc = sc, .seconds = seconds};
    if (!judge_audit_calls(sc, au->calls, sizeof au->calls)) {
        snprintf(au->why, sizeof au->why, "the step has no call-count check to audit");
        return -ENOENT;
    }
    if (!(au->snap = malloc(sizeof *au->snap)) ||
        judge_init(&au->judge, &au->grader, sc, seconds) < 0) {
        snprintf(au->why, sizeof au->why, "out of memory");
        return -ENOMEM;
    }
    au->judge_ready = true;
    struct engine_options eo = {.mode = "yours",
                                .seconds = seconds,
                                .tick_hz = 10,
                                .tier = IOLAB_TIER_AUTO,
                                .audit = au->calls};
    struct engine_callbacks cb = {.data = au,
                                  .on_snapshot = audit_on_snapshot,
                                  .on_state = audit_on_state,
                                  .on_line = audit_on_line,
                                  .on_exit = audit_on_exit};
    int rc = engine_create(&au->engine, loop, sc, &eo, &cb);
    if (rc == 0)
        rc = engine_start(au->engine);
    if (rc < 0) {
        snprintf(au->why, sizeof au->why, "the audit run could not start: %s",
                 au->engine ? engine_error(au->engine) : strerror(-rc));
        engine_free(au->engine);
        au->engine = NULL;
        return rc;
    }
    au->ran = true;
    au->t0 = uv_hrtime();
    au->done = done;
    au->data = data;
    uv_timer_init(loop, &au->timer);
    au->timer.data = au;
    au->timer_ready = true;
    uv_timer_start(&au->timer, audit_time_up, (uint64_t)(seconds * 1000) + 500, 0);
    return 0;
}

void judge_audit_stop(struct judge_audit *au)
{
    audit_stop_engine(au);
}

bool judge_audit_holds(const struct judge_audit *au, size_t i)
{
    return !au->audited || !au->judge_ready || i >= au->sc->nchecks ||
           !judge_audit_check(&au->sc->checks[i]) || grade_state(&au->grader, i) != GRADE_FAIL;
}

void judge_audit_free(struct judge_audit *au)
{
    if (au->judge_ready)
        judge_free(&au->judge);
    au->judge_ready = false;
    free(au->snap);
    au->snap = NULL;
}
