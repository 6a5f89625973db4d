/*
 * sweepview: see sweepview.h. The runner's result is read in place while it runs (the runner
 * outlives every frame), and copied when it ends; a frame never waits on anything.
 */
#include "sweepview.h"

#include "chart.h"
#include "engine/benchmath.h"
#include "engine/sweepio.h"
#include "engine/sweeprun.h"
#include "lesson/record.h"
#include "widgets.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum sweepview_show { SWEEPVIEW_OFF, SWEEPVIEW_CHART, SWEEPVIEW_TABLE };

struct sweepview {
    struct stepview_env env;
    const struct lesson_scenario *sc;
    const struct lesson_sweep *sw;
    struct view_ctx *c;
    struct sweeprun *run;    /* while a sweep runs (and until the next starts) */
    struct sweep_result res; /* the last result: the running one is copied in as it grows */
    bool have_res;
    enum sweepview_show show;
    uv_timer_t tick; /* redraws the progress bar while a point runs */
    bool tick_open;
    struct sweep_derived plain; /* the default value's scenario, for a plain run */
    bool have_plain;
};

/* Markers per series in ASCII, and colours (pairs above the screen roles' ones). */
static const char sweepview_marks[] = "*o+x#@%&";
static const short sweepview_colours[] = {COLOR_GREEN, COLOR_YELLOW, COLOR_MAGENTA, COLOR_CYAN,
                                          COLOR_RED,   COLOR_BLUE,   COLOR_WHITE,   COLOR_GREEN};
#define SWEEPVIEW_PAIR0 32

/* The seed's headline takes at most this many rows under the chart, and only rows the chart can
   spare: below SWEEPVIEW_CHART_MIN_ROWS the curves stop being readable, and they come first. */
#define SWEEPVIEW_HEADLINE_ROWS  3
#define SWEEPVIEW_CHART_MIN_ROWS 10

static attr_t sweepview_series_attr(const struct screen_caps *c, size_t s)
{
    if (!c->colour)
        return s % 2 ? A_NORMAL : A_BOLD;
    short pair = (short)(SWEEPVIEW_PAIR0 + s % 8);
    init_pair(pair, sweepview_colours[s % 8], -1);
    return (attr_t)COLOR_PAIR(pair) | A_BOLD;
}

static void sweepview_save(struct sweepview *s)
{
    if (!s->c->progress || !s->res.done)
        return;
    char *json = sweepio_json_text(&s->res);
    if (!json)
        return;
    if (progress_field_set(s->c->progress, s->env.pack->id, s->env.lesson->id, s->env.step->id,
                           SWEEP_RECORD_FIELD, json) == 0)
        view_save_progress(s->c);
    free(json);
}

static void sweepview_on_point(void *data, const struct sweep_result *res, size_t series,
                               size_t value)
{
    struct sweepview *s = data;
    s->res = *res;
    s->have_res = true;
    s->c->dirty = true;
    const struct sweep_point *p = &res->points[series][value];
    if (p->problem[0])
        view_status(s->c, !p->measured, "%s %s=%s: %s", res->mode_ids[series], s->sw->param,
                    s->sw->text[value], p->problem);
}

static void sweepview_on_done(void *data, const struct sweep_result *res)
{
    struct sweepview *s = data;
    s->res = *res;
    s->have_res = true;
    s->c->dirty = true;
    if (s->tick_open)
        uv_timer_stop(&s->tick);
    sweepview_save(s);
    if (res->stopped)
        view_status(s->c, false, "Sweep stopped: %zu of %zu points kept; w runs it again.",
                    res->done, res->nmodes * res->nvalues);
    else
        view_status(s->c, false, "Sweep done: %zu points. v shows the table.", res->done);
}

static void sweepview_on_tick(uv_timer_t *t)
{
    struct sweepview *s = t->data;
    s->c->dirty = true;
}

struct sweepview *sweepview_open(const struct stepview_env *env, struct view_ctx *c)
{
    const struct lesson_scenario *sc = lesson_step_scenario(env->step);
    if (!sc || !sc->sweep)
        return NULL;
    struct sweepview *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->env = *env;
    s->sc = sc;
    s->sw = sc->sweep;
    s->c = c;
    s->have_plain =
        sweep_derive(lesson_step_scenario(env->step), s->sw->default_value, &s->plain) == 0;
    uv_timer_init(c->loop, &s->tick);
    s->tick.data = s;
    s->tick_open = true;
    const char *rec = c->progress ? progress_field_get(c->progress, env->pack->id, env->lesson->id,
                                                       env->step->id, SWEEP_RECORD_FIELD)
                                  : NULL;
    if (rec && sweepio_parse(rec, sc, &s->res) == 0 && s->res.done) {
        s->have_res = true;
        s->show = SWEEPVIEW_CHART;
    }
    return s;
}

static void sweepview_timer_closed(uv_handle_t *h)
{
    struct sweepview *s = h->data;
    if (s->have_plain)
        sweep_derived_free(&s->plain);
    free(s);
}

void sweepview_close(struct sweepview *s)
{
    if (!s)
        return;
    if (s->run) {
        bool was = sweeprun_running(s->run);
        sweeprun_free(s->run); /* a running point is dropped: it is not measured */
        s->run = NULL;
        if (was && s->res.done)
            sweepview_save(s);
    }
    /* The plain step may still be in use by the run view's engine until its handles close:
       those close before this timer's callback runs (they were closed first). */
    uv_close((uv_handle_t *)&s->tick, sweepview_timer_closed);
}

void sweepview_toggle(struct sweepview *s, struct view_ctx *c)
{
    if (s->run && sweeprun_running(s->run)) {
        sweeprun_stop(s->run); /* on_done keeps and saves the finished points */
        return;
    }
    if (s->run) {
        sweeprun_free(s->run);
        s->run = NULL;
    }
    struct sweeprun_options o = {.tick_hz = c->tick_hz, .tier = IOLAB_TIER_AUTO};
    struct sweeprun_callbacks cb = {
        .data = s, .on_point = sweepview_on_point, .on_done = sweepview_on_done};
    if (sweeprun_create(&s->run, c->loop, lesson_step_scenario(s->env.step), &o, &cb) < 0) {
        view_status(c, true, "The sweep could not be prepared (out of memory?).");
        return;
    }
    memset(&s->res, 0, sizeof s->res);
    s->res = *sweeprun_result(s->run);
    s->have_res = true;
    s->show = s->show == SWEEPVIEW_OFF ? SWEEPVIEW_CHART : s->show;
    if (sweeprun_start(s->run) < 0) {
        view_status(c, true, "The sweep could not start.");
        return;
    }
    uv_timer_start(&s->tick, sweepview_on_tick, 250, 250);
    const struct sweep_result *r = sweeprun_result(s->run);
    char what[128];
    view_status(c, false, "Sweeping %s: %zu points of %.3g s; w stops (finished points stay).",
                sweep_title(s->sw, what, sizeof what), r->nmodes * r->nvalues, r->seconds);
}

void sweepview_cycle(struct sweepview *s, struct view_ctx *c)
{
    s->show = s->show == SWEEPVIEW_CHART   ? SWEEPVIEW_TABLE
              : s->show == SWEEPVIEW_TABLE ? SWEEPVIEW_OFF
                                           : SWEEPVIEW_CHART;
    if (s->show != SWEEPVIEW_OFF && !s->have_res)
        view_status(c, false, "No sweep yet: w runs one.");
}

bool sweepview_shown(const struct sweepview *s)
{
    return s && s->show != SWEEPVIEW_OFF;
}

bool sweepview_running(const struct sweepview *s)
{
    return s && s->run && sweeprun_running(s->run);
}

bool sweepview_has_result(const struct sweepview *s)
{
    return s && s->have_res && s->res.finished;
}

const struct lesson_scenario *sweepview_plain_scenario(struct sweepview *s)
{
    return s && s->have_plain ? &s->plain.sc : NULL;
}

/* The sweep's figures at the value a plain run uses, for an expected outcome. */
struct sweepview_at {
    const struct sweep_result *res;
    size_t value;
};

static bool sweepview_expect_figure(void *data, const struct lesson_expect_side *side, double *out)
{
    const struct sweepview_at *at = data;
    const struct sweep_result *r = at->res;
    for (size_t m = 0; m < r->nmodes; m++)
        if (r->modes[m] == side->mode)
            return at->value * r->nmodes + m < r->done &&
                   sweep_point_expect_figure(r->sw, &r->points[m][at->value], side, out);
    return false;
}

bool sweepview_expect(const struct sweepview *s, size_t i, const struct expect_context *ctx,
                      struct expect_verdict *v, char *buf, size_t len)
{
    if (!s || !s->have_res || i >= s->sc->nexpects || s->sw->default_value >= s->res.nvalues)
        return false;
    const struct lesson_expect *e = &s->sc->expects[i];
    struct sweepview_at at = {&s->res, s->sw->default_value};
    struct expect_verdict ev = expect_judge_with(e, sweepview_expect_figure, &at);
    if (ev.state == EXPECT_UNDECIDED)
        return false;
    *v = ev;
    /* Which points were compared comes first: the sweep's, not a run the learner watched. */
    int n = snprintf(buf, len, "sweep at %s=%s: ", s->sw->param, s->sw->text[at.value]);
    if (n > 0 && (size_t)n < len)
        expect_describe(s->sc, e, &ev, ctx, buf + n, len - (size_t)n);
    return true;
}

size_t sweepview_footer(const struct sweepview *s, struct keys_item *out, size_t max)
{
    size_t n = 0;
    if (!s)
        return 0;
    if (n < max)
        out[n++] = (struct keys_item){"w", sweepview_running(s) ? "stop sweep" : "sweep", 95};
    if (n < max)
        out[n++] = (struct keys_item){"v",
                                      s->show == SWEEPVIEW_CHART   ? "table"
                                      : s->show == SWEEPVIEW_TABLE ? "counters"
                                                                   : "chart",
                                      75};
    return n;
}

/* ---- drawing ---- */

/* The right side of the run layout: every program pane and the counters pane. */
static struct layout_rect sweepview_area(const struct layout *L)
{
    struct layout_rect r = L->counters;
    for (size_t i = 0; i < L->nprogs; i++) {
        struct layout_rect p = L->progs[i];
        int x0 = p.x < r.x ? p.x : r.x, y0 = p.y < r.y ? p.y : r.y;
        int x1 = p.x + p.w > r.x + r.w ? p.x + p.w : r.x + r.w;
        int y1 = p.y + p.h > r.y + r.h ? p.y + p.h : r.y + r.h;
        r = (struct layout_rect){x0, y0, x1 - x0, y1 - y0};
    }
    return r;
}

static bool sweepview_point_ok(const struct sweep_result *r, size_t s, size_t v)
{
    return v * r->nmodes + s < r->done && r->points[s][v].has_figure;
}

static const char *sweepview_mode(const struct sweep_result *r, size_t s)
{
    return r->mode_ids[s][0] ? r->mode_ids[s] : "run";
}

/* The progress bar and what runs now, on one row. */
static void sweepview_progress(struct sweepview *s, const struct screen_caps *c, int x, int y,
                               int w)
{
    size_t series, value;
    if (!s->run || !sweeprun_current(s->run, &series, &value))
        return;
    const struct sweep_result *r = sweeprun_result(s->run);
    char label[96];
    snprintf(label, sizeof label, " %zu/%zu %s=%s %s", r->done + 1, r->nmodes * r->nvalues,
             s->sw->param, s->sw->text[value], sweepview_mode(r, series));
    int lw = (int)strlen(label);
    int bw = w - lw > 10 ? w - lw : 10;
    widgets_text(c, x, y, 1, A_NORMAL, "[");
    widgets_bar(c, x + 1, y, bw - 2, sweeprun_progress(s->run), 1);
    widgets_text(c, x + bw - 1, y, 1, A_NORMAL, "]");
    widgets_text(c, x + bw, y, w - bw, A_BOLD, label);
}

/*
 * The step's headline beside this sweep's own ratio, in the sentence `iolab bench` prints
 * (benchmath.h), into buf; false, and nothing to say, when the step has no headline, or its mode
 * or base was not swept, or either lacks a measured point at a value the headline compares (its
 * "at", or every value for the median). A sweep is one round, so the ratio is the points' own.
 */
static bool sweepview_headline(const struct sweepview *s, char *buf, size_t len)
{
    const struct lesson_headline *h = s->sc->headline;
    const struct sweep_result *r = &s->res;
    if (!h || h->mode < 0 || h->base < 0)
        return false;
    size_t mi = SIZE_MAX, bi = SIZE_MAX;
    for (size_t m = 0; m < r->nmodes; m++) {
        if (r->modes[m] == h->mode)
            mi = m;
        if (r->modes[m] == h->base)
            bi = m;
    }
    if (mi == SIZE_MAX || bi == SIZE_MAX)
        return false;
    double mode[SWEEP_MAX_VALUES], base[SWEEP_MAX_VALUES];
    for (size_t v = 0; v < r->nvalues; v++) {
        const struct sweep_point *pm = &r->points[mi][v], *pb = &r->points[bi][v];
        bool ok_m = v * r->nmodes + mi < r->done && pm->measured && pm->has_figure;
        bool ok_b = v * r->nmodes + bi < r->done && pb->measured && pb->has_figure;
        mode[v] = ok_m ? pm->figure : NAN;
        base[v] = ok_b ? pb->figure : NAN;
        /* Half a comparison is none: a median over the values measured so far would change as
           the sweep runs and is not the seed's claim. */
        if ((h->at < 0 || (size_t)h->at == v) && !(ok_m && ok_b))
            return false;
    }
    double here = benchmath_headline_ratio(mode, base, r->nvalues, 1, h->at);
    if (isnan(here))
        return false; /* the base measured nothing to divide by */
    benchmath_headline_sentence(h, s->sc->modes[h->mode].id, s->sc->modes[h->base].id, here, buf,
                                len);
    return true;
}

/*
 * The headline wrapped into the rows from y, at most maxrows; a sentence longer than that ends
 * with the "more" glyph, so a cut is seen as one.
 */
static void sweepview_draw_headline(const struct screen_caps *c, const struct wrap_doc *d, int x,
                                    int y, int w, int maxrows)
{
    int n = (int)d->nlines < maxrows ? (int)d->nlines : maxrows;
    for (int i = 0; i < n; i++) {
        const struct wrap_line *l = &d->lines[i];
        bool cut = i == n - 1 && n < (int)d->nlines;
        int used = widgets_text(c, x, y + i, cut ? w - 1 : w, A_NORMAL, l->text);
        /* A row as wide as the area was already cut and marked by widgets_text(). */
        if (cut && l->width < w)
            widgets_text(c, x + used, y + i, 1, A_NORMAL, c->g->more);
    }
}

static void sweepview_draw_chart(struct sweepview *s, const struct screen_caps *c,
                                 struct layout_rect in, int rows)
{
    const struct sweep_result *r = &s->res;
    const struct lesson_sweep *sw = s->sw;
    double ys[SWEEP_MAX_MODES][SWEEP_MAX_VALUES];
    bool have[SWEEP_MAX_MODES][SWEEP_MAX_VALUES];
    struct chart_series ser[SWEEP_MAX_MODES];
    for (size_t m = 0; m < r->nmodes; m++) {
        for (size_t v = 0; v < r->nvalues; v++) {
            have[m][v] = sweepview_point_ok(r, m, v);
            ys[m][v] = have[m][v] ? r->points[m][v].figure : 0;
        }
        ser[m] = (struct chart_series){ys[m], have[m]};
    }
    double ymax = chart_ymax(ser, r->nmodes, r->nvalues);
    /* Crossings of the first series with each other one, named under the chart. */
    char cross[3][128];
    size_t ncross = 0;
    for (size_t m = 1; m < r->nmodes && ncross < 3; m++) {
        size_t at[4];
        size_t k = chart_crossings(&ser[0], &ser[m], r->nvalues, at, 4);
        for (size_t i = 0; i < k && ncross < 3; i++) {
            size_t a = at[i], b = a + 1;
            while (b < r->nvalues && !(have[0][b] && have[m][b]))
                b++;
            if (b >= r->nvalues)
                continue;
            bool first_wins_after = ys[0][b] > ys[m][b];
            bool hb = figure_at(sw->figure)->better == FIGURE_HIGHER;
            snprintf(cross[ncross++], sizeof cross[0], "%s %s %s between %s=%s and %s",
                     sweepview_mode(r, first_wins_after == hb ? 0 : m), "overtakes",
                     sweepview_mode(r, first_wins_after == hb ? m : 0), sw->param, sw->text[a],
                     sw->text[b]);
        }
    }
    /* The seed's headline under the crossings, in the rows the chart can spare. */
    char head[768];
    struct wrap_doc hd = {0};
    int head_rows = 0;
    if (sweepview_headline(s, head, sizeof head) && wrap_plain(head, in.w, c->utf8, &hd) == 0) {
        int spare = rows - (int)ncross - SWEEPVIEW_CHART_MIN_ROWS;
        head_rows =
            (int)hd.nlines < SWEEPVIEW_HEADLINE_ROWS ? (int)hd.nlines : SWEEPVIEW_HEADLINE_ROWS;
        head_rows = head_rows < spare ? head_rows : spare > 0 ? spare : 0;
    }
    int chart_h = rows - (int)ncross - head_rows;
    char lab[32];
    int label_w = 1;
    struct chart_geom g;
    chart_compute(&g, in.x, in.y, in.w, chart_h, sw->x, r->nvalues, sw->log_x, ymax, 1);
    for (size_t k = 0; k < g.nticks; k++) {
        int lw = (int)strlen(sweepio_figure_text(sw->figure, g.tick_v[k], lab, sizeof lab));
        label_w = lw > label_w ? lw : label_w;
    }
    chart_compute(&g, in.x, in.y, in.w, chart_h, sw->x, r->nvalues, sw->log_x, ymax, label_w);
    if (!g.ok) {
        widgets_text(c, in.x, in.y, in.w, screen_attr(SCREEN_DIM),
                     "(too small for the chart: v shows the table)");
        wrap_doc_free(&hd);
        return;
    }
    /* Legend on the top row. */
    int x = in.x;
    for (size_t m = 0; m < r->nmodes && x < in.x + in.w; m++) {
        char item[64];
        snprintf(item, sizeof item, "%c %s  ", sweepview_marks[m % 8], sweepview_mode(r, m));
        x += widgets_text(c, x, in.y, in.x + in.w - x, sweepview_series_attr(c, m), item);
    }
    if (x < in.x + in.w - 4) {
        char unit[64];
        snprintf(unit, sizeof unit, "(%s%s)", figure_at(sw->figure)->unit,
                 sw->log_x ? ", x log" : "");
        widgets_text(c, x, in.y, in.x + in.w - x, screen_attr(SCREEN_DIM), unit);
    }
    /* Axes and their labels. */
    attr_t axis = screen_attr(SCREEN_BORDER);
    for (int row = g.plot_y; row < g.axis_row; row++)
        widgets_text(c, g.axis_col, row, 1, axis, "|");
    for (int col = g.axis_col; col < g.plot_x + g.plot_w; col++)
        widgets_text(c, col, g.axis_row, 1, axis, col == g.axis_col ? "+" : "-");
    for (size_t k = 0; k < g.nticks; k++) {
        sweepio_figure_text(sw->figure, g.tick_v[k], lab, sizeof lab);
        int lw = (int)strlen(lab);
        widgets_text(c, in.x + label_w - lw, g.tick_row[k], lw, screen_attr(SCREEN_DIM), lab);
    }
    int last_end = -1;
    for (size_t v = 0; v < r->nvalues; v++) {
        widgets_text(c, g.xcol[v], g.axis_row, 1, axis, "+");
        sweep_x_label(sw, sw->x[v], lab, sizeof lab);
        int lw = (int)strlen(lab), lx = g.xcol[v] - lw / 2;
        if (lx <= last_end)
            continue; /* labels that would touch are left out; the table has them all */
        if (lx + lw > in.x + in.w)
            lx = in.x + in.w - lw;
        widgets_text(c, lx, g.axis_row + 1, lw, A_NORMAL, lab);
        last_end = lx + lw;
    }
    /* Lines first (dots between points), then the points over them. */
    for (size_t m = 0; m < r->nmodes; m++) {
        attr_t a = sweepview_series_attr(c, m);
        for (size_t v = 0; v + 1 < r->nvalues; v++) {
            if (!have[m][v] || !have[m][v + 1])
                continue;
            int x0 = g.xcol[v], x1 = g.xcol[v + 1];
            int r0 = chart_row(&g, ys[m][v]), r1 = chart_row(&g, ys[m][v + 1]);
            for (int col = x0 + 1; col < x1; col++) {
                int row = r0 + (int)lround((double)(r1 - r0) * (col - x0) / (x1 - x0));
                widgets_text(c, col, row, 1, a, ".");
            }
        }
    }
    for (size_t m = 0; m < r->nmodes; m++) {
        attr_t a = sweepview_series_attr(c, m);
        char mk[2] = {sweepview_marks[m % 8], 0};
        for (size_t v = 0; v < r->nvalues; v++)
            if (have[m][v])
                widgets_text(c, g.xcol[v], chart_row(&g, ys[m][v]), 1, a, mk);
    }
    for (size_t k = 0; k < ncross; k++)
        widgets_text(c, in.x, in.y + chart_h + (int)k, in.w, A_BOLD, cross[k]);
    if (head_rows > 0)
        sweepview_draw_headline(c, &hd, in.x, in.y + chart_h + (int)ncross, in.w, head_rows);
    wrap_doc_free(&hd);
}

/*
 * The table's rows under each value, after the sweep's own figure: each is named in the left
 * column and explained in one legend line under the table, in the words a learner reads the
 * figure by. A row repeats no figure the sweep already shows, and the bytes per read call only
 * appear when some point has them (a scenario whose server reads nothing has none).
 */
enum sweepview_extra { SWEEPVIEW_P99, SWEEPVIEW_BYTES_READ, SWEEPVIEW_NEXTRA };
static const struct {
    const char *tag;    /* in the left column, under the value */
    const char *legend; /* one row at 80 columns */
} sweepview_extras[SWEEPVIEW_NEXTRA] = {
    [SWEEPVIEW_P99] = {"p99", "p99: 99 in 100 requests answered within this"},
    [SWEEPVIEW_BYTES_READ] = {"B/read", "B/read: bytes per read call the kernel counted"},
};
/* The mark of a point that counted errors or whose program died, and what it means. */
#define SWEEPVIEW_MARK        "!"
#define SWEEPVIEW_MARK_LEGEND "! errors here: refused, reset or failed requests"
#define SWEEPVIEW_TABLE_LEFT  8 /* the values' column */

/* One extra row's cell for point p: "1.2 ms", "16", or "-" without a figure. */
static void sweepview_extra_cell(enum sweepview_extra e, const struct sweep_point *p, char *buf,
                                 size_t len)
{
    if (e == SWEEPVIEW_P99 && p->p99_ms > 0)
        widgets_ns_fixed(p->p99_ms * 1e6, buf, len);
    else if (e == SWEEPVIEW_BYTES_READ && p->bytes_per_syscr > 0)
        snprintf(buf, len, "%.3g", p->bytes_per_syscr);
    else
        snprintf(buf, len, "-");
}

/* Whether the table shows extra row e for this result. */
static bool sweepview_extra_wanted(const struct sweep_result *r, enum sweepview_extra e)
{
    if (e == SWEEPVIEW_P99)
        return r->sw->figure != FIGURE_P99_MS;
    if (r->sw->figure == FIGURE_BYTES_PER_SYSCR)
        return false;
    for (size_t k = 0; k < r->done && k < r->nmodes * r->nvalues; k++)
        if (r->points[k % r->nmodes][k / r->nmodes].bytes_per_syscr > 0)
            return true;
    return false;
}

static void sweepview_draw_table(struct sweepview *s, const struct screen_caps *c,
                                 struct layout_rect in, int rows)
{
    const struct sweep_result *r = &s->res;
    const struct lesson_sweep *sw = s->sw;
    const int left = SWEEPVIEW_TABLE_LEFT;
    /* The extra rows that fit with the legend: the last ones go first when rows are short. */
    enum sweepview_extra shown[SWEEPVIEW_NEXTRA];
    int nshown = 0;
    for (int e = 0; e < SWEEPVIEW_NEXTRA; e++)
        if (sweepview_extra_wanted(r, (enum sweepview_extra)e))
            shown[nshown++] = (enum sweepview_extra)e;
    while (nshown > 0 && 1 + (int)r->nvalues * (1 + nshown) + nshown + 1 > rows)
        nshown--;
    int y = in.y;
    int colw = r->nmodes ? (in.w - left) / (int)r->nmodes : in.w;
    if (colw > 22)
        colw = 22;
    widgets_printf(c, in.x, y, left - 1, screen_attr(SCREEN_HEADING), "%s", sw->param);
    for (size_t m = 0; m < r->nmodes; m++)
        widgets_text(c, in.x + left + (int)m * colw, y, colw - 1,
                     sweepview_series_attr(c, m) | A_UNDERLINE, sweepview_mode(r, m));
    y++;
    /* Each value: the sweep's figure, marked when the point is not clean; under it the extra
       rows in dim, each named in the left column. */
    for (size_t v = 0; v < r->nvalues && y < in.y + rows; v++) {
        widgets_text(c, in.x, y, left - 1, A_BOLD, sw->text[v]);
        for (int e = 0; e < nshown && y + 1 + e < in.y + rows; e++)
            widgets_printf(c, in.x, y + 1 + e, left - 1, screen_attr(SCREEN_DIM), " %s",
                           sweepview_extras[shown[e]].tag);
        for (size_t m = 0; m < r->nmodes; m++) {
            const struct sweep_point *p = &r->points[m][v];
            char cell[64] = "-", fig[32];
            bool done = v * r->nmodes + m < r->done;
            if (done && p->has_figure)
                snprintf(cell, sizeof cell, "%s%s",
                         sweepio_figure_text(sw->figure, p->figure, fig, sizeof fig),
                         p->problem[0] ? " " SWEEPVIEW_MARK : "");
            else if (done)
                snprintf(cell, sizeof cell, "%s", p->measured ? "no requests" : "failed");
            int x = in.x + left + (int)m * colw;
            widgets_text(c, x, y, colw - 1, p->problem[0] ? screen_attr(SCREEN_BAD) : A_NORMAL,
                         cell);
            for (int e = 0; done && e < nshown && y + 1 + e < in.y + rows; e++) {
                char more[32];
                sweepview_extra_cell(shown[e], p, more, sizeof more);
                widgets_text(c, x, y + 1 + e, colw - 1, screen_attr(SCREEN_DIM), more);
            }
        }
        y += 1 + nshown;
    }
    /* The legend: what each row and the mark mean, as many lines as are left. */
    for (int e = 0; e < nshown && y < in.y + rows; e++)
        widgets_text(c, in.x, y++, in.w, screen_attr(SCREEN_DIM),
                     sweepview_extras[shown[e]].legend);
    if (y < in.y + rows)
        widgets_text(c, in.x, y, in.w, screen_attr(SCREEN_DIM), SWEEPVIEW_MARK_LEGEND);
}

void sweepview_draw(struct sweepview *s, struct view_ctx *vc)
{
    const struct screen_caps *c = vc->caps;
    struct layout_rect area = sweepview_area(&vc->layout);
    widgets_clear(area);
    char title[160], what[128];
    snprintf(title, sizeof title, "%s%s", sweep_title(s->sw, what, sizeof what),
             sweepview_running(s)             ? ", running"
             : s->res.stopped                 ? ", stopped"
             : s->have_res && s->res.finished ? ", done"
                                              : "");
    struct layout_rect in = widgets_box(c, area, title, false);
    int rows = in.h;
    if (sweepview_running(s)) {
        sweepview_progress(s, c, in.x, in.y + in.h - 1, in.w);
        rows--;
    }
    if (s->run && sweeprun_running(s->run))
        s->res = *sweeprun_result(s->run);
    if (!s->have_res || !s->res.nmodes) {
        widgets_text(c, in.x, in.y, in.w, screen_attr(SCREEN_DIM),
                     "No sweep yet: w runs every point, v switches chart and table.");
        return;
    }
    if (s->show == SWEEPVIEW_TABLE)
        sweepview_draw_table(s, c, in, rows);
    else
        sweepview_draw_chart(s, c, in, rows);
}
