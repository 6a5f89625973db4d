/*
 * expect: see expect.h. Figures are computed through the figure table (metrics/figure.h) over the
 * grader's span of each mode (grade/session.c, the span the checks read), so every second a mode
 * ran in this step (across restarts) counts, and nothing of the start-up or the switches does.
 */
#include "expect.h"

#include <stdio.h>
#include <string.h>

/* The words beside a figure's value in the sentences: the table's (metrics/figure.h). */
static const char *expect_unit(enum figure_id f)
{
    const struct figure_def *d = figure_at(f);
    return !d ? "?" : d->said ? d->said : d->unit;
}

static bool expect_is_latency(enum figure_id f)
{
    const struct figure_def *d = figure_at(f);
    return d && d->show == FIGURE_SHOW_MS;
}

/* The span of the mode a side names (mode -1: the scenario's, when it has no modes); NULL
   when that mode has not run. */
static const struct span *expect_span(const struct lesson_scenario *sc, int mode,
                                      const struct mode_span *modes, size_t nmodes)
{
    if (mode >= 0 ? (size_t)mode >= sc->nmodes : sc->nmodes > 0)
        return NULL;
    for (size_t i = 0; i < nmodes; i++)
        if (modes[i].mode == mode)
            return &modes[i].span;
    return NULL;
}

bool expect_figure(const struct lesson_scenario *sc, const struct lesson_expect_side *side,
                   const struct mode_span *modes, size_t nmodes, double *out)
{
    const struct span *sp = expect_span(sc, side->mode, modes, nmodes);
    if (!sp || sp->seconds < EXPECT_MIN_SECONDS)
        return false;
    /* A latency counts the requests still waiting as long as they had waited, so a server
       that left every client waiting is judged too (the table's fig_latency). */
    struct figure_arg arg = {.role = figure_role(side->role), .call = side->call};
    return figure_value(side->figure, sp, &arg, out);
}

/* Whether a figure is made of counted calls (the counter page's), rather than of the kernel's
   figures, time or what the load saw. */
static bool expect_counts_calls(enum figure_id f)
{
    return f == FIGURE_ONE_CALL_PER_REQ || f == FIGURE_ALL_CALLS_PER_REQ || f == FIGURE_CALLS ||
           f == FIGURE_CHECK_CALL_PER_REQ || f == FIGURE_SPAWNS;
}

/* Whether a side's call figure stands on calls iolab did not count: its role made no counted call
   at all in the mode (no program that serves or loads makes none: the shim is not in it, or its
   calls go where the shim cannot see them, io_uring, raw syscall(), a static binary). Its zero is
   not a measured zero, so the outcome is not judged, whatever the system time. Sets v's
   uncounted fields when it does. */
static bool expect_uncounted(const struct lesson_scenario *sc, const struct lesson_expect_side *s,
                             const struct mode_span *modes, size_t nmodes, struct expect_verdict *v)
{
    if (!expect_counts_calls(s->figure))
        return false;
    const struct span *sp = expect_span(sc, s->mode, modes, nmodes);
    int role = figure_role(s->role);
    if (!sp || sp->seconds < EXPECT_MIN_SECONDS || sp->roles[role].calls_total)
        return false;
    v->uncounted = true;
    v->uncounted_mode = s->mode;
    v->uncounted_sys_pct = 100 * sp->roles[role].cpu_sys_s / sp->seconds;
    return true;
}

struct expect_verdict expect_judge_with(const struct lesson_expect *e, expect_figure_fn figure,
                                        void *data)
{
    struct expect_verdict v = {.state = EXPECT_UNDECIDED, .right = e->value};
    if (!figure(data, &e->left, &v.left))
        return v;
    if (e->has_right && !figure(data, &e->right, &v.right))
        return v;
    bool holds = e->op == LESSON_CMP_GT ? v.left > v.right : v.left < v.right;
    v.state = holds ? EXPECT_AGREES : EXPECT_DIFFERS;
    return v;
}

struct expect_modes {
    const struct lesson_scenario *sc;
    const struct mode_span *modes;
    size_t nmodes;
};

static bool expect_modes_figure(void *data, const struct lesson_expect_side *side, double *out)
{
    const struct expect_modes *m = data;
    return expect_figure(m->sc, side, m->modes, m->nmodes, out);
}

struct expect_verdict expect_judge(const struct lesson_scenario *sc, const struct lesson_expect *e,
                                   const struct mode_span *modes, size_t nmodes)
{
    struct expect_verdict v = {.state = EXPECT_UNDECIDED, .right = e->value};
    /* Never "as expected" on a figure of calls that were not counted. */
    if (expect_uncounted(sc, &e->left, modes, nmodes, &v) ||
        (e->has_right && expect_uncounted(sc, &e->right, modes, nmodes, &v)))
        return v;
    struct expect_modes m = {sc, modes, nmodes};
    return expect_judge_with(e, expect_modes_figure, &m);
}

/* 182k, 4.07M, 0.53: the table's formatter, without the unit the sentence words itself. */
static const char *expect_num(double v, char *buf, size_t len)
{
    return figure_format_si(v, "", "", false, buf, len);
}

/* A value of figure f: latencies (in ms) with the unit that keeps three figures ("812 ms",
   "1.5 s", "41 us"), since an SI suffix on milliseconds would read as "1.5k ms". */
static const char *expect_value(enum figure_id f, double v, char *buf, size_t len)
{
    return expect_is_latency(f) ? figure_format(f, v, buf, len) : expect_num(v, buf, len);
}

/* "epoll 182k requests/s" or "iterative p99 latency 1.5 s" for one side (the mode's name left
   out without modes). */
static void expect_side_text(const struct lesson_scenario *sc, const struct lesson_expect_side *s,
                             double v, char *buf, size_t len)
{
    char num[32];
    const char *mode = s->mode >= 0 && (size_t)s->mode < sc->nmodes ? sc->modes[s->mode].id : "";
    if (s->figure == FIGURE_ROLE_CPU_PCT)
        /* "fork's server CPU 98%": whose CPU, since the step's other figures are everyone's. */
        snprintf(buf, len, "%s%s%s CPU %.0f%%", mode, *mode ? "'s " : "",
                 lesson_role_name((enum lesson_role)(s->role >= 0 ? s->role : 0)), v);
    else if (expect_is_latency(s->figure))
        snprintf(buf, len, "%s%s%s %s", mode, *mode ? " " : "", expect_unit(s->figure),
                 expect_value(s->figure, v, num, sizeof num));
    else if (s->figure == FIGURE_ONE_CALL_PER_REQ)
        snprintf(buf, len, "%s%s%s %s/request", mode, *mode ? " " : "",
                 expect_num(v, num, sizeof num),
                 s->call < IOLAB_NCALLS ? iolab_call_info[s->call].label : "?");
    else
        snprintf(buf, len, "%s%s%s %s", mode, *mode ? " " : "", expect_num(v, num, sizeof num),
                 expect_unit(s->figure));
}

int expect_describe(const struct lesson_scenario *sc, const struct lesson_expect *e,
                    const struct expect_verdict *v, const struct expect_context *ctx, char *buf,
                    size_t len)
{
    if (v->state == EXPECT_UNDECIDED && v->uncounted) {
        const char *m = v->uncounted_mode >= 0 && (size_t)v->uncounted_mode < sc->nmodes
                            ? sc->modes[v->uncounted_mode].id
                            : "the scenario";
        if (v->uncounted_sys_pct >= 100 * SPAN_UNCOUNTED_SYS)
            return snprintf(buf, len,
                            "cannot judge: in %s the program made no counted call yet spent "
                            "%.0f%% of a core in the kernel, so its calls are ones iolab does not "
                            "count",
                            m, v->uncounted_sys_pct);
        return snprintf(buf, len,
                        "cannot judge: in %s the program made no call iolab counts, so a figure "
                        "of its calls would be a zero nobody measured",
                        m);
    }
    if (v->state == EXPECT_UNDECIDED) {
        const char *a = e->left.mode >= 0 ? sc->modes[e->left.mode].id : NULL;
        const char *b = e->has_right && e->right.mode >= 0 ? sc->modes[e->right.mode].id : NULL;
        if (a && b && strcmp(a, b))
            return snprintf(buf, len, "not measured yet: run %s and %s for a few seconds", a, b);
        if (a)
            return snprintf(buf, len, "not measured yet: run %s for a few seconds", a);
        return snprintf(buf, len, "not measured yet: run the scenario for a few seconds");
    }
    char l[96], r[96];
    expect_side_text(sc, &e->left, v->left, l, sizeof l);
    if (e->has_right)
        expect_side_text(sc, &e->right, v->right, r, sizeof r);
    else if (e->left.figure == FIGURE_ROLE_CPU_PCT) /* 100%: one core */
        snprintf(r, sizeof r, "%.0f%% (%s)", v->right,
                 v->right == 100 ? "one core" : "of one core");
    else /* a bound is in the left figure's unit */
        expect_value(e->left.figure, v->right, r, sizeof r);
    const char *op = e->op == LESSON_CMP_GT ? ">" : "<";
    if (v->state == EXPECT_AGREES)
        return snprintf(buf, len, "%s %s %s, as expected", l, op, r);
    /* Not this time: say what on this machine may explain it. */
    char why[256] = "";
    size_t n = 0;
    if (ctx && ctx->ncpus)
        n += (size_t)snprintf(why + n, sizeof why - n, "%u core%s", ctx->ncpus,
                              ctx->ncpus == 1 ? "" : "s");
    if (ctx && ctx->loadavg >= 0 && n < sizeof why)
        n += (size_t)snprintf(why + n, sizeof why - n, "%sload average %.1f%s", n ? ", " : "",
                              ctx->loadavg,
                              ctx->ncpus && ctx->loadavg > 0.7 * ctx->ncpus ? " (busy)" : "");
    if (ctx && ctx->tier && n < sizeof why)
        snprintf(why + n, sizeof why - n, "%ssandbox %s", n ? ", " : "", ctx->tier);
    /* The outcome's own why last: what in the scenario can turn the order round. */
    return snprintf(buf, len, "not this time: %s against %s (expected %s); this machine: %s%s%s", l,
                    r, op, why[0] ? why : "unknown", e->why ? ". Why: " : "", e->why ? e->why : "");
}
