/*
 * sweeprun: see sweeprun.h. One engine at a time; the runner moves to the next point from a
 * zero-delay timer, never from inside the engine's own callbacks, so an engine is always freed
 * from outside itself. The clients get a {seconds} longer than the point so that the load never
 * ends by itself before the point is measured.
 */
#include "sweeprun.h"

#include "engine.h"
#include "metrics/figure.h"
#include "metrics/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEPRUN_LOAD_MARGIN_S 30 /* extra {seconds} for the clients beyond the point */

struct sweeprun {
    uv_loop_t *loop;
    const struct lesson_scenario *sc;
    struct sweeprun_options opts;
    struct sweeprun_callbacks cb;
    struct sweep_result res;
    /* The scenarios of the running point and of the one before: an engine keeps pointers into
       its scenario until its handles have closed, a loop turn or two after engine_free(). */
    struct sweep_derived derived[2];
    bool have_derived[2];
    struct engine *engine;
    uv_timer_t point_timer; /* the point's length, from its first running snapshot */
    uv_timer_t next_timer;  /* moves on to the next point from outside the engine's callbacks */
    size_t k;               /* run-order index of the running point */
    bool running, started, measuring, point_over;
    uint64_t t0_ms;                  /* when the point started measuring (loop time) */
    uint64_t start_ms, last_done_ms; /* when the sweep started, and its last point ended */
    struct snapshot first, last;
    int closing; /* handles still to close after sweeprun_free */
    bool freeing;
};

/* ---- pure ---- */

const struct sweep_kept sweep_kept[] = {
    {FIGURE_REQUESTS_PER_S, "requests_per_s", 2, false, true},
    {FIGURE_BYTES_PER_S, "bytes_per_s", 0, false, true},
    {FIGURE_ALL_CALLS_PER_REQ, "calls_per_request", 4, true, true},
    {FIGURE_SYSCR_PER_REQ, "syscr_per_request", 4, true, true},
    {FIGURE_BYTES_PER_SYSCR, "bytes_per_syscr", 1, true, true},
    {FIGURE_RCHAR_PER_BYTE, "rchar_per_byte", 4, true, false},
    {FIGURE_CTX_PER_REQ, "ctx_per_request", 4, false, true},
    {FIGURE_CPU_PCT, "cpu_pct", 1, false, true},
    {FIGURE_P50_MS, "p50_ms", 4, false, true},
    {FIGURE_P99_MS, "p99_ms", 4, false, true},
};
const size_t sweep_nkept = sizeof sweep_kept / sizeof *sweep_kept;

static const struct sweep_kept *sweep_kept_find(enum figure_id id)
{
    for (size_t i = 0; i < sweep_nkept; i++)
        if (sweep_kept[i].id == id)
            return &sweep_kept[i];
    return NULL;
}

void sweep_point_measure(const struct lesson_sweep *sw, const struct snapshot *a,
                         const struct snapshot *b, struct sweep_point *p)
{
    struct span sp;
    span_between(a, b, NULL, &sp);
    const struct span_role *load = &sp.roles[sp.load_role];
    p->seconds = sp.seconds;
    p->requests = sp.requests;
    p->bytes = sp.bytes;
    p->conns = load->conns;
    p->errors = 0;
    p->failed = 0;
    for (int r = 0; r < LESSON_NROLES; r++) {
        p->errors += sp.roles[r].errors;
        p->failed += sp.roles[r].failed;
    }
    /* The figures a point keeps (for its table, its JSON and the outcomes judged on it), as
       the figure table computes them over the point's span. The clients still waiting at the
       end count in the latencies as long as they waited, capped at the point's length (a fresh
       run per point: none can have waited longer), so a server that answers one client in a
       thousand never shows a small p99; the chart leaves out a point that answered nothing. */
    struct figure_arg arg = {.role = figure_role(sw ? sw->role : -1), .call = sw ? sw->call : 0};
    for (size_t i = 0; i < sweep_nkept; i++) {
        enum figure_id id = sweep_kept[i].id;
        p->fig[id] = 0;
        p->has[id] = figure_value(id, &sp, &arg, &p->fig[id]);
        if (!p->has[id])
            p->fig[id] = 0;
    }
    /* No payload: its reads moved none of it. */
    p->has[FIGURE_RCHAR_PER_BYTE] = true;
    p->waiting = sp.roles[LESSON_ROLE_CLIENT].waiting;
    /* The y axis: the sweep's figure over the point's span, as the figure table computes it. */
    p->figure = 0;
    p->has_figure = sw && p->seconds > 0 && figure_value(sw->figure, &sp, &arg, &p->figure);
    if (!p->has_figure)
        p->figure = 0;
}

bool sweep_point_expect_figure(const struct lesson_sweep *sw, const struct sweep_point *p,
                               const struct lesson_expect_side *side, double *out)
{
    if (!sw || !p->measured)
        return false;
    int role = figure_role(side->role);
    if (side->figure == FIGURE_ONE_CALL_PER_REQ) {
        /* A point counts one call only when that call is the sweep's figure. */
        *out = p->figure;
        return p->has_figure && role == figure_role(sw->role) &&
               sw->figure == FIGURE_ONE_CALL_PER_REQ && side->call == sw->call;
    }
    const struct sweep_kept *k = sweep_kept_find(side->figure);
    /* A point counts the calls of the sweep's role only. */
    if (!k || !p->has[k->id] || (k->of_role && role != figure_role(sw->role)))
        return false;
    *out = p->fig[k->id];
    return true;
}

/* ---- running ---- */

static size_t sweeprun_total(const struct sweeprun *r)
{
    return r->res.nmodes * r->res.nvalues;
}

static void sweeprun_end(struct sweeprun *r, bool stopped)
{
    if (!r->running)
        return;
    r->running = false;
    r->res.stopped = stopped;
    r->res.finished = !stopped && r->res.done == sweeprun_total(r);
    if (r->cb.on_done)
        r->cb.on_done(r->cb.data, &r->res);
}

static void sweeprun_point_start(struct sweeprun *r);

static void sweeprun_release_point(struct sweeprun *r)
{
    if (r->engine) {
        engine_free(r->engine);
        r->engine = NULL;
    }
    /* The engine keeps pointers into the derived scenario until its handles close: the derived
       scenario is freed when the next one replaces it, or with the runner, after the loop ran. */
}

static void sweeprun_next(uv_timer_t *t)
{
    struct sweeprun *r = t->data;
    sweeprun_release_point(r);
    if (!r->running)
        return;
    if (++r->k >= sweeprun_total(r)) {
        sweeprun_end(r, false);
        return;
    }
    sweeprun_point_start(r);
}

/* The running point is over (measured, failed or cut short): record it, move on. */
static void sweeprun_point_done(struct sweeprun *r, const char *problem)
{
    if (r->point_over)
        return;
    r->point_over = true;
    uv_timer_stop(&r->point_timer);
    size_t series = r->k % r->res.nmodes, value = r->k / r->res.nmodes;
    struct sweep_point *p = &r->res.points[series][value];
    memset(p, 0, sizeof *p);
    /* A point of this build knows how its bytes moved (none, when it did not run). */
    p->has[FIGURE_RCHAR_PER_BYTE] = true;
    if (r->measuring) {
        sweep_point_measure(r->sc->sweep, &r->first, &r->last, p);
        /* A point whose program died was not measured, whatever it managed before. */
        p->measured = p->seconds > 0 && !(problem && problem[0]);
    }
    if (problem && problem[0])
        snprintf(p->problem, sizeof p->problem, "%s", problem);
    else if (p->errors || p->failed)
        snprintf(p->problem, sizeof p->problem,
                 "%llu error%s counted (refused, reset or failed), %llu call%s failed at a limit, "
                 "%llu still waiting at the end",
                 (unsigned long long)p->errors, p->errors == 1 ? "" : "s",
                 (unsigned long long)p->failed, p->failed == 1 ? "" : "s",
                 (unsigned long long)p->waiting);
    r->res.done++;
    r->last_done_ms = uv_now(r->loop);
    if (r->cb.on_point)
        r->cb.on_point(r->cb.data, &r->res, series, value);
    if (r->engine &&
        (engine_state(r->engine) == ENGINE_RUNNING || engine_state(r->engine) == ENGINE_STARTING))
        engine_stop(r->engine); /* ENGINE_STOPPED then moves on */
    else
        uv_timer_start(&r->next_timer, sweeprun_next, 0, 0);
}

static void sweeprun_point_timeout(uv_timer_t *t)
{
    sweeprun_point_done(t->data, NULL);
}

static void sweeprun_on_snapshot(void *data, const struct snapshot *snap)
{
    struct sweeprun *r = data;
    if (r->point_over)
        return;
    if (snap->mode_running && !r->measuring) {
        r->measuring = true;
        r->first = *snap;
        r->t0_ms = uv_now(r->loop);
        uv_timer_start(&r->point_timer, sweeprun_point_timeout, (uint64_t)(r->res.seconds * 1000),
                       0);
    }
    if (r->measuring)
        r->last = *snap;
    if (r->cb.on_tick)
        r->cb.on_tick(r->cb.data, snap);
}

static void sweeprun_on_exit(void *data, size_t prog, int status, bool expected)
{
    struct sweeprun *r = data;
    if (expected || r->point_over)
        return;
    const struct lesson_program *p = prog < r->sc->nprograms ? &r->sc->programs[prog] : NULL;
    /* A client that finished its work ends the point early; anything else is a failure. */
    if (status == 0 && p && p->role == LESSON_ROLE_CLIENT)
        return;
    char why[200];
    size_t n = engine_lines(r->engine, prog);
    const char *last = n ? engine_line(r->engine, prog, n - 1, NULL) : "(no output)";
    snprintf(why, sizeof why, "%s exited with status %d: %s", p ? p->name : "a program", status,
             last);
    sweeprun_point_done(r, why);
}

static void sweeprun_on_state(void *data, enum engine_state state)
{
    struct sweeprun *r = data;
    if (state == ENGINE_RUNNING && engine_jail(r->engine))
        snprintf(r->res.tier, sizeof r->res.tier, "%s",
                 iolab_tier_name(jail_tier(engine_jail(r->engine))));
    if (state == ENGINE_FAILED) {
        sweeprun_point_done(r, engine_error(r->engine));
        uv_timer_start(&r->next_timer, sweeprun_next, 0, 0);
    } else if (state == ENGINE_STOPPED) {
        /* every program exited by itself, or the stop after the point */
        sweeprun_point_done(r, NULL);
        uv_timer_start(&r->next_timer, sweeprun_next, 0, 0);
    }
}

static void sweeprun_point_start(struct sweeprun *r)
{
    size_t series = r->k % r->res.nmodes, value = r->k / r->res.nmodes;
    r->measuring = r->point_over = false;
    struct sweep_derived *d = &r->derived[r->k % 2];
    if (r->have_derived[r->k % 2])
        sweep_derived_free(d);
    r->have_derived[r->k % 2] = false;
    int rc = sweep_derive(r->sc, value, d);
    char why[160];
    if (rc < 0) {
        snprintf(why, sizeof why, "could not prepare the point: %s", strerror(-rc));
        sweeprun_point_done(r, why);
        return;
    }
    r->have_derived[r->k % 2] = true;
    int mode = r->res.modes[series];
    struct engine_options eo = {
        .mode = mode >= 0 ? r->sc->modes[mode].id : NULL,
        .seconds = r->res.seconds + SWEEPRUN_LOAD_MARGIN_S,
        .tick_hz = r->opts.tick_hz,
        .tier = r->opts.tier,
    };
    struct engine_callbacks cb = {
        .data = r,
        .on_exit = sweeprun_on_exit,
        .on_snapshot = sweeprun_on_snapshot,
        .on_state = sweeprun_on_state,
    };
    rc = engine_create(&r->engine, r->loop, &d->sc, &eo, &cb);
    if (rc < 0) {
        r->engine = NULL;
        snprintf(why, sizeof why, "could not prepare the point: %s", strerror(-rc));
        sweeprun_point_done(r, why);
        return;
    }
    if (engine_start(r->engine) < 0)
        sweeprun_point_done(r, engine_error(r->engine));
}

int sweeprun_create(struct sweeprun **out, uv_loop_t *loop, const struct lesson_scenario *sc,
                    const struct sweeprun_options *opts, const struct sweeprun_callbacks *cb)
{
    *out = NULL;
    if (!sc || !sc->sweep)
        return -EINVAL;
    struct sweeprun *r = calloc(1, sizeof *r);
    if (!r)
        return -ENOMEM;
    r->loop = loop;
    r->sc = sc;
    if (opts)
        r->opts = *opts;
    if (cb)
        r->cb = *cb;
    const struct lesson_sweep *sw = sc->sweep;
    r->res.sw = sw;
    r->res.nvalues = sw->nvalues;
    r->res.seconds = r->opts.seconds > 0 ? r->opts.seconds : sw->seconds;
    const int *modes = r->opts.modes && r->opts.nmodes ? r->opts.modes : sw->modes;
    size_t nmodes = r->opts.modes && r->opts.nmodes ? r->opts.nmodes : sw->nmodes;
    for (size_t i = 0; i < nmodes && i < SWEEP_MAX_MODES; i++) {
        r->res.modes[i] = modes[i];
        snprintf(r->res.mode_ids[i], sizeof r->res.mode_ids[i], "%s",
                 modes[i] >= 0 && (size_t)modes[i] < sc->nmodes ? sc->modes[modes[i]].id : "");
        r->res.nmodes++;
    }
    snprintf(r->res.tier, sizeof r->res.tier, "-");
    uv_timer_init(loop, &r->point_timer);
    uv_timer_init(loop, &r->next_timer);
    r->point_timer.data = r->next_timer.data = r;
    *out = r;
    return 0;
}

int sweeprun_start(struct sweeprun *r)
{
    if (r->running || r->started)
        return -EBUSY;
    if (!sweeprun_total(r))
        return -EINVAL;
    r->started = r->running = true;
    r->k = 0;
    r->start_ms = r->last_done_ms = uv_now(r->loop);
    sweeprun_point_start(r);
    return 0;
}

void sweeprun_stop(struct sweeprun *r)
{
    if (!r->running)
        return;
    uv_timer_stop(&r->point_timer);
    uv_timer_stop(&r->next_timer);
    r->point_over = true; /* the point that was running is dropped */
    sweeprun_release_point(r);
    sweeprun_end(r, true);
}

bool sweeprun_running(const struct sweeprun *r)
{
    return r && r->running;
}

const struct sweep_result *sweeprun_result(const struct sweeprun *r)
{
    return &r->res;
}

double sweeprun_progress(const struct sweeprun *r)
{
    size_t total = sweeprun_total(r);
    if (!total)
        return 0;
    double part = 0;
    if (r->running && r->measuring && !r->point_over && r->res.seconds > 0)
        part = fmin(1, (double)(uv_now(r->loop) - r->t0_ms) / 1000.0 / r->res.seconds);
    return fmin(1, ((double)r->res.done + part) / (double)total);
}

double sweeprun_estimate(size_t done, size_t total, double done_s, double running_s, double point_s,
                         bool *at_least)
{
    *at_least = false;
    if (done >= total)
        return 0;
    size_t left = total - done;
    if (!done) {
        *at_least = true;
        return fmax((double)left * point_s - running_s, (double)(left - 1) * point_s);
    }
    double pace = done_s / (double)done;
    return fmax((double)left * pace - running_s, (double)(left - 1) * pace);
}

bool sweeprun_time_left(const struct sweeprun *r, double *seconds, bool *at_least)
{
    if (!r->running)
        return false;
    uint64_t now = uv_now(r->loop);
    *seconds = sweeprun_estimate(
        r->res.done, sweeprun_total(r), (double)(r->last_done_ms - r->start_ms) / 1000.0,
        (double)(now - r->last_done_ms) / 1000.0, r->res.seconds, at_least);
    return true;
}

bool sweeprun_current(const struct sweeprun *r, size_t *series, size_t *value)
{
    if (!r->running || !r->res.nmodes)
        return false;
    *series = r->k % r->res.nmodes;
    *value = r->k / r->res.nmodes;
    return true;
}

static void sweeprun_closed(uv_handle_t *h)
{
    struct sweeprun *r = h->data;
    if (--r->closing == 0) {
        for (int i = 0; i < 2; i++)
            if (r->have_derived[i])
                sweep_derived_free(&r->derived[i]);
        free(r);
    }
}

void sweeprun_free(struct sweeprun *r)
{
    if (!r || r->freeing)
        return;
    r->freeing = true;
    r->running = false;
    sweeprun_release_point(r);
    r->closing = 2;
    uv_close((uv_handle_t *)&r->point_timer, sweeprun_closed);
    uv_close((uv_handle_t *)&r->next_timer, sweeprun_closed);
}
