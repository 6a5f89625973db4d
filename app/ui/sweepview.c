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
    const struct sweep_point *p = &r->points[s][v];
    const struct figure_def *f = figure_at(r->sw->figure);
    return v * r->nmodes + s < r->done &&
           chart_point_drawn(p->has_figure, f && f->show == FIGURE_SHOW_MS, p->requests);
}

static const char *sweepview_mode(const struct sweep_result *r, size_t s)
{
    return r->mode_ids[s][0] ? r->mode_ids[s] : "run";
}

/* "~40 s left", "~3 min left"; ">18 s left" while no point has ended (a lower bound). */
static void sweepview_eta_text(double sec, bool at_least, char *buf, size_t len)
{
    const char *pre = at_least ? ">" : "~";
    if (sec < 90)
        snprintf(buf, len, "%s%.0f s", pre, ceil(sec));
    else
        snprintf(buf, len, "%s%.0f min", pre, ceil(sec / 60));
}

/* The progress bar and what runs now, with the time the sweep still needs, on one row: the
   label loses its words before the bar goes under ten columns. */
static void sweepview_progress(struct sweepview *s, const struct screen_caps *c, int x, int y,
                               int w)
{
    size_t series, value;
    if (!s->run || !sweeprun_current(s->run, &series, &value))
        return;
    const struct sweep_result *r = sweeprun_result(s->run);
    char eta[32] = "";
    double left;
    bool at_least;
    if (sweeprun_time_left(s->run, &left, &at_least))
        sweepview_eta_text(left, at_least, eta, sizeof eta);
    const char *mode = sweepview_mode(r, series), *val = s->sw->text[value];
    size_t total = r->nmodes * r->nvalues;
    size_t now = r->done < total ? r->done + 1 : total; /* the last point ends before the sweep */
    char label[4][128];
    snprintf(label[0], sizeof label[0], " %zu/%zu %s=%s %s, %s left", now, total, s->sw->param, val,
             mode, eta);
    snprintf(label[1], sizeof label[1], " %zu/%zu %s %s, %s left", now, total, val, mode, eta);
    snprintf(label[2], sizeof label[2], " %zu/%zu %s %s %s", now, total, val, mode, eta);
    snprintf(label[3], sizeof label[3], " %zu/%zu %s left", now, total, eta);
    size_t k = 0;
    while (k < 3 && (int)strlen(label[k]) > w - 12)
        k++;
    int lw = (int)strlen(label[k]);
    int bw = w - lw > 12 ? w - lw : 12;
    widgets_text(c, x, y, 1, A_NORMAL, "[");
    widgets_bar(c, x + 1, y, bw - 2, sweeprun_progress(s->run), 1);
    widgets_text(c, x + bw - 1, y, 1, A_NORMAL, "]");
    widgets_text(c, x + bw, y, w - bw, A_BOLD, label[k]);
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

/*
 * The legend: each series' mark and mode whole, on as many rows as they need, then the unit and
 * which axes are logarithmic (in words: a bare "x" would read as a series' mark). Returns the
 * rows it takes; draws them when draw is set.
 */
static int sweepview_legend(const struct sweepview *s, const struct screen_caps *c,
                            struct layout_rect in, bool log_y, bool draw)
{
    const struct sweep_result *r = &s->res;
    const struct figure_def *f = figure_at(s->sw->figure);
    const char *unit = f ? f->label : "?";
    int x = in.x, y = in.y;
    for (size_t m = 0; m < r->nmodes; m++) {
        char item[80];
        snprintf(item, sizeof item, "%c %s", sweepview_marks[m % 8], sweepview_mode(r, m));
        int iw = (int)strlen(item);
        if (x > in.x && x + iw > in.x + in.w) {
            x = in.x;
            y++;
        }
        if (draw)
            widgets_text(c, x, y, in.x + in.w - x, sweepview_series_attr(c, m), item);
        x += iw + 2;
    }
    /* The unit is in the title and on every tick: the note says only which axes are
       logarithmic, in words (a bare "x" would read as a series' mark). */
    char note[128] = "";
    if (s->sw->log_x && log_y)
        snprintf(note, sizeof note, "(%s and %s: log scales)", s->sw->param, unit);
    else if (s->sw->log_x)
        snprintf(note, sizeof note, "(%s: log scale)", s->sw->param);
    else if (log_y)
        snprintf(note, sizeof note, "(%s: log scale)", unit);
    int nw = (int)strlen(note);
    if (!nw)
        return y - in.y + 1;
    if (x > in.x && x + nw > in.x + in.w) {
        x = in.x;
        y++;
    }
    if (draw)
        widgets_text(c, x, y, in.x + in.w - x, screen_attr(SCREEN_DIM), note);
    return y - in.y + 1;
}

/*
 * What the chart says under it about the first series against each other one: where one
 * overtakes the other, only when the points agree on one place (chart_crossover), or that the
 * two are within noise of each other where the order changes back and forth. Returns how many
 * sentences, at most max.
 */
static size_t sweepview_crossings(const struct sweepview *s, const struct chart_series *ser, int w,
                                  char (*out)[160], size_t max)
{
    const struct sweep_result *r = &s->res;
    const struct lesson_sweep *sw = s->sw;
    bool higher = figure_at(sw->figure)->better != FIGURE_LOWER;
    size_t n = 0;
    char noisy[160] = "";
    size_t nnoisy = 0;
    for (size_t m = 1; m < r->nmodes; m++) {
        size_t a, b;
        bool first_after;
        enum chart_order o =
            chart_crossover(&ser[0], &ser[m], r->nvalues, CHART_NOISE_SHARE, &a, &b, &first_after);
        if (o == CHART_NOISE) {
            size_t at = strlen(noisy);
            snprintf(noisy + at, sizeof noisy - at, "%s%s", nnoisy++ ? ", " : "",
                     sweepview_mode(r, m));
        } else if (o == CHART_OVERTAKES && n < max) {
            /* "Overtakes" is the better one coming ahead: for a figure where lower is better
               (latency, calls) the series that is now below. */
            bool first_wins = first_after == higher;
            const char *who = sweepview_mode(r, first_wins ? 0 : m);
            const char *whom = sweepview_mode(r, first_wins ? m : 0);
            int len = snprintf(out[n], sizeof out[0], "%s overtakes %s between %s=%s and %s", who,
                               whom, sw->param, sw->text[a], sw->text[b]);
            if (len > w) /* the parameter is in the title: one row is worth more */
                snprintf(out[n], sizeof out[0], "%s overtakes %s between %s and %s", who, whom,
                         sw->text[a], sw->text[b]);
            n++;
        }
    }
    /* The pairs whose order flips back and forth, in one sentence: no crossing can be named. */
    if (nnoisy && n < max)
        snprintf(out[n++], sizeof out[0], "%s against %s: within noise, the order flips",
                 sweepview_mode(r, 0), noisy);
    return n;
}

/* Draws a series' mark for every measured point; a mark whose cell another series' mark took
   moves sideways (never up or down: its height is its figure), so that no point hides another. */
static void sweepview_marks_draw(const struct sweepview *s, const struct screen_caps *c,
                                 const struct chart_geom *g, double (*ys)[SWEEP_MAX_VALUES],
                                 bool (*have)[SWEEP_MAX_VALUES])
{
    const struct sweep_result *r = &s->res;
    unsigned char *taken = calloc((size_t)g->plot_w * (size_t)g->plot_h, 1);
    static const int shift[] = {0, 1, -1, 2, -2};
    for (size_t m = 0; m < r->nmodes; m++) {
        attr_t a = sweepview_series_attr(c, m);
        char mk[2] = {sweepview_marks[m % 8], 0};
        for (size_t v = 0; v < r->nvalues; v++) {
            if (!have[m][v])
                continue;
            int row = chart_row(g, ys[m][v]), col = g->xcol[v];
            for (size_t k = 0; taken && k < sizeof shift / sizeof *shift; k++) {
                int cc = g->xcol[v] + shift[k];
                if (cc < g->plot_x || cc >= g->plot_x + g->plot_w)
                    continue;
                size_t at =
                    (size_t)(row - g->plot_y) * (size_t)g->plot_w + (size_t)(cc - g->plot_x);
                if (!taken[at]) {
                    col = cc;
                    taken[at] = 1;
                    break;
                }
            }
            widgets_text(c, col, row, 1, a, mk);
        }
    }
    free(taken);
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
    bool log_y = chart_wants_log_y(ser, r->nmodes, r->nvalues);
    double ymin = log_y ? chart_ymin(ser, r->nmodes, r->nvalues) : 0;
    int legend = sweepview_legend(s, c, in, log_y, false);
    /* Under the chart, in the rows it can spare: the crossings, each whole, then the seed's
       headline. */
    int spare = rows - SWEEPVIEW_CHART_MIN_ROWS - (legend - 1);
    char cross[3][160];
    size_t ncross = sweepview_crossings(s, ser, in.w, cross, 3);
    struct wrap_doc cd[3] = {{0}};
    int cross_rows = 0;
    size_t nshown = 0;
    for (size_t k = 0; k < ncross; k++) {
        if (wrap_plain(cross[k], in.w, c->utf8, &cd[nshown]) != 0)
            continue;
        if (cross_rows + (int)cd[nshown].nlines > spare) {
            wrap_doc_free(&cd[nshown]);
            break;
        }
        cross_rows += (int)cd[nshown++].nlines;
    }
    char head[768];
    struct wrap_doc hd = {0};
    int head_rows = 0;
    if (sweepview_headline(s, head, sizeof head) && wrap_plain(head, in.w, c->utf8, &hd) == 0) {
        int left = spare - cross_rows;
        head_rows =
            (int)hd.nlines < SWEEPVIEW_HEADLINE_ROWS ? (int)hd.nlines : SWEEPVIEW_HEADLINE_ROWS;
        head_rows = head_rows < left ? head_rows : left > 0 ? left : 0;
    }
    int chart_h = rows - cross_rows - head_rows - (legend - 1);
    int top = in.y + legend - 1; /* chart_compute keeps one row for the legend */
    char lab[32];
    int label_w = 1;
    struct chart_geom g;
    for (int pass = 0; pass < 2; pass++) {
        chart_compute(&g, in.x, top, in.w, chart_h, sw->x, r->nvalues, sw->log_x, ymax, label_w);
        if (log_y)
            chart_log_y(&g, ymin, ymax);
        for (size_t k = 0; pass == 0 && k < g.nticks; k++) {
            int lw = (int)strlen(sweepio_figure_text(sw->figure, g.tick_v[k], lab, sizeof lab));
            label_w = lw > label_w ? lw : label_w;
        }
    }
    if (!g.ok) {
        widgets_text(c, in.x, in.y, in.w, screen_attr(SCREEN_DIM),
                     "(too small for the chart: v shows the table)");
        for (size_t k = 0; k < nshown; k++)
            wrap_doc_free(&cd[k]);
        wrap_doc_free(&hd);
        return;
    }
    sweepview_legend(s, c, in, log_y, true);
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
    sweepview_marks_draw(s, c, &g, ys, have);
    int y = in.y + legend - 1 + chart_h;
    for (size_t k = 0; k < nshown; k++) {
        for (size_t i = 0; i < cd[k].nlines; i++)
            widgets_text(c, in.x, y++, in.w, A_BOLD, cd[k].lines[i].text);
        wrap_doc_free(&cd[k]);
    }
    if (head_rows > 0)
        sweepview_draw_headline(c, &hd, in.x, y, in.w, head_rows);
    wrap_doc_free(&hd);
}

/*
 * The table: the sweep's own figure for every point, and under it the rows the step's text sends
 * the learner to (the sweep's "table"; without one, p99 and the bytes per read call where the
 * kernel counted reads), each named in the left column and explained in one legend line, in the
 * words a learner reads it by. A cell always keeps its unit or drops digits, never cut: "4.51
 * GB/s" becomes "4.51G" (the title names the unit) and a latency keeps "ms" or "us".
 *
 * Values are rows and modes columns where that fits; where it does not (six sizes in five modes
 * at 80x24), modes are rows and values columns. A figure that does not apply to a point shows
 * "-", and the legend says why.
 */
static const struct {
    enum figure_id fig;
    const char *tag;    /* in the left column, at most 6 columns */
    const char *legend; /* one row at 80 columns; %s is the unit, plural or one */
    int unit;           /* 0: no unit in the legend, 1: plural, 2: one */
} sweepview_rowdefs[] = {
    {FIGURE_REQUESTS_PER_S, "req/s", "req/s: %s completed per second", 1},
    {FIGURE_BYTES_PER_S, "B/s", "B/s: payload bytes per second", 0},
    {FIGURE_ALL_CALLS_PER_REQ, "calls", "calls: counted system calls per %s", 2},
    {FIGURE_SYSCR_PER_REQ, "syscr", "syscr: the kernel's read calls per %s", 2},
    {FIGURE_BYTES_PER_SYSCR, "B/read", "B/read: bytes per read call the kernel counted", 0},
    {FIGURE_CTX_PER_REQ, "ctx", "ctx: context switches per %s", 2},
    {FIGURE_CPU_PCT, "CPU", "CPU: all programs', % of one core", 0},
    {FIGURE_P50_MS, "p50", "p50: half the %s answered within this", 1},
    {FIGURE_P99_MS, "p99", "p99: 99 in 100 %s answered within this", 1},
};
#define SWEEPVIEW_NROWDEFS (sizeof sweepview_rowdefs / sizeof *sweepview_rowdefs)
/* The mark of a point that counted errors or whose program died, and what it means. */
#define SWEEPVIEW_MARK        "!"
#define SWEEPVIEW_MARK_LEGEND "! errors here: refused, reset or failed requests"
/* A bytes-per-read cell where the read calls moved under this share of the bytes: splice and
   mmap copy without read calls, and a few reads of something else would make a huge figure. */
#define SWEEPVIEW_NOREAD_SHARE  0.1
#define SWEEPVIEW_NOREAD_LEGEND "- under B/read: the bytes moved without read calls"
#define SWEEPVIEW_TABLE_LEFT    8 /* the values' column */

static size_t sweepview_rowdef(enum figure_id f)
{
    for (size_t i = 0; i < SWEEPVIEW_NROWDEFS; i++)
        if (sweepview_rowdefs[i].fig == f)
            return i;
    return SIZE_MAX;
}

/* "copies" -> "copy", "passes" -> "pass", "requests" -> "request". */
static void sweepview_one(const char *plural, char *buf, size_t len)
{
    size_t n = strlen(plural);
    if (n > 3 && !strcmp(plural + n - 3, "ies"))
        snprintf(buf, len, "%.*sy", (int)(n - 3), plural);
    else if (n > 4 && !strcmp(plural + n - 4, "sses"))
        snprintf(buf, len, "%.*s", (int)(n - 2), plural);
    else if (n > 1 && plural[n - 1] == 's')
        snprintf(buf, len, "%.*s", (int)(n - 1), plural);
    else
        snprintf(buf, len, "%s", plural);
}

/* Whether a done point's bytes moved without read calls (its bytes per read means nothing). */
static bool sweepview_noread(const struct sweep_point *p)
{
    return p->has[FIGURE_RCHAR_PER_BYTE] && p->fig[FIGURE_RCHAR_PER_BYTE] < SWEEPVIEW_NOREAD_SHARE;
}

/* The figure of row f for point p; false when it has none (shown as "-"): one the table left
   undefined, or a size of reads where the reads moved almost none of the bytes. */
static bool sweepview_cell_value(const struct sweep_point *p, enum figure_id f, double *out)
{
    if ((unsigned)f >= FIGURE_NIDS || !p->has[f])
        return false;
    *out = p->fig[f];
    return f != FIGURE_BYTES_PER_SYSCR || !sweepview_noread(p);
}

/* v with sig significant digits and no exponent: "4.51", "131", "0.0104". */
static void sweepview_digits(double v, int sig, const char *unit, char *buf, size_t len)
{
    int mag = v > 0 ? (int)floor(log10(v)) : 0;
    int dec = sig - 1 - mag;
    dec = dec < 0 ? 0 : dec > 4 ? 4 : dec;
    snprintf(buf, len, "%.*f%s", dec, v, unit);
}

/* v scaled by base (1000 or 1024) with its suffix: 4.51e9 -> 4.51 and "G". */
static double sweepview_scale(double v, double base, const char **sfx, const char *const *names)
{
    int i = 0;
    while (v >= (base == 1024 ? 1000 : base) && i < 4) {
        v /= base;
        i++;
    }
    *sfx = names[i];
    return v;
}

/*
 * Figure f's value v in at most w columns: the most digits and the fullest unit that fit, from
 * "4.51 GB/s" down to "5G"; latencies always keep their unit ("983us", "18.9ms").
 */
static void sweepview_fit(enum figure_id f, double v, int w, char *buf, size_t len)
{
    static const char *const si[] = {"", "k", "M", "G", "T"};
    static const char *const bin[] = {"", "K", "M", "G", "T"};
    const struct figure_def *d = figure_at(f);
    char cand[12][64];
    size_t n = 0;
    const char *sfx;
    for (int sig = 3; sig >= 1; sig--) {
        char num[24], unit[16];
        if (f == FIGURE_BYTES_PER_SYSCR) {
            double a = sweepview_scale(v, 1024, &sfx, bin);
            sweepview_digits(a, sig, sfx, cand[n++], sizeof cand[0]);
        } else if (d && d->show == FIGURE_SHOW_MS) {
            double a = v;
            const char *u = "ms";
            if (a < 1) {
                a *= 1000;
                u = "us";
            } else if (a >= 1000) {
                a /= 1000;
                u = "s";
            }
            sweepview_digits(a, sig, "", num, sizeof num);
            snprintf(cand[n++], sizeof cand[0], "%s %s", num, u);
            snprintf(cand[n++], sizeof cand[0], "%s%s", num, u);
        } else if (d && d->show == FIGURE_SHOW_PCT) {
            snprintf(cand[n++], sizeof cand[0], "%.0f%%", v);
        } else {
            double a = sweepview_scale(v, 1000, &sfx, si);
            sweepview_digits(a, sig, "", num, sizeof num);
            if (d && d->show == FIGURE_SHOW_BYTES_PER_S) {
                snprintf(unit, sizeof unit, " %sB/s", sfx);
                snprintf(cand[n++], sizeof cand[0], "%s%s", num, unit);
            } else if (d && d->show == FIGURE_SHOW_PER_S) {
                snprintf(cand[n++], sizeof cand[0], "%s%s/s", num, sfx);
            }
            snprintf(cand[n++], sizeof cand[0], "%s%s", num, sfx);
        }
    }
    for (size_t i = 0; i < n; i++)
        if ((int)strlen(cand[i]) <= w) {
            snprintf(buf, len, "%s", cand[i]);
            return;
        }
    snprintf(buf, len, "%s", n ? cand[n - 1] : "?");
}

/* The rows under the sweep's own figure, in order: the step's, or the table's own choice. */
static size_t sweepview_extras(const struct sweep_result *r, enum figure_id *out)
{
    const struct lesson_sweep *sw = r->sw;
    size_t n = 0;
    if (sw->has_table) {
        for (size_t i = 0; i < sw->ntable; i++)
            if (sweepview_rowdef(sw->table[i]) != SIZE_MAX)
                out[n++] = sw->table[i];
        return n;
    }
    if (sw->figure != FIGURE_P99_MS)
        out[n++] = FIGURE_P99_MS;
    if (sw->figure == FIGURE_BYTES_PER_SYSCR)
        return n;
    for (size_t k = 0; k < r->done && k < r->nmodes * r->nvalues; k++)
        if (sweep_point_fig(&r->points[k % r->nmodes][k / r->nmodes], FIGURE_BYTES_PER_SYSCR) > 0) {
            out[n++] = FIGURE_BYTES_PER_SYSCR;
            break;
        }
    return n;
}

/* One legend line for row f, with the step's unit. */
static void sweepview_row_legend(const struct sweepview *s, enum figure_id f, char *buf, size_t len)
{
    size_t i = sweepview_rowdef(f);
    const char *units = s->sc->unit ? s->sc->unit : "requests";
    char one[64];
    sweepview_one(units, one, sizeof one);
    const char *u = sweepview_rowdefs[i].unit == 2 ? one : units;
    snprintf(buf, len, sweepview_rowdefs[i].legend, u);
}

static bool sweepview_done(const struct sweep_result *r, size_t m, size_t v)
{
    return v * r->nmodes + m < r->done;
}

/* The table's arrangement: which rows, which way round, how many legend lines. */
struct sweepview_grid {
    enum figure_id extra[SWEEP_MAX_TABLE + 2];
    size_t nx;      /* rows under the sweep's figure */
    bool by_mode;   /* a block per mode, values as columns; else a block per value */
    int legends;    /* the extra rows' legend lines shown */
    bool noread;    /* a bytes-per-read cell says "-" for a point that read nothing */
    bool marked;    /* a point is marked "!" */
    int left, colw; /* the left column's width and each column's */
    size_t nblocks, ncols;
};

static void sweepview_grid_widths(const struct sweepview *s, int w, struct sweepview_grid *g)
{
    const struct sweep_result *r = &s->res;
    g->nblocks = g->by_mode ? r->nmodes : r->nvalues;
    g->ncols = g->by_mode ? r->nvalues : r->nmodes;
    g->left = SWEEPVIEW_TABLE_LEFT;
    if (!g->by_mode) {
        /* The parameter's name heads the values' column: whole where the columns keep room for
           their modes' names and "20.0k/s" (the title names the parameter too, so it gives
           way first). */
        int col = 8;
        for (size_t m = 0; m < r->nmodes; m++) {
            int l = (int)strlen(sweepview_mode(r, m)) + 1;
            col = l > col ? l : col;
        }
        int want = (int)strlen(s->sw->param) + 1;
        int most = w - (int)g->ncols * col;
        g->left = want < most ? want : most;
        g->left = g->left < SWEEPVIEW_TABLE_LEFT ? SWEEPVIEW_TABLE_LEFT : g->left;
    } else {
        int longest = 0;
        for (size_t m = 0; m < r->nmodes; m++) {
            int l = (int)strlen(sweepview_mode(r, m));
            longest = l > longest ? l : longest;
        }
        int most = w - (int)g->ncols * 5; /* a cell keeps 4 columns and a space */
        g->left = longest + 1 < most ? longest + 1 : most;
        g->left = g->left < SWEEPVIEW_TABLE_LEFT ? SWEEPVIEW_TABLE_LEFT : g->left;
    }
    g->colw = g->ncols ? (w - g->left) / (int)g->ncols : w;
    if (g->colw > (g->by_mode ? 12 : 22))
        g->colw = g->by_mode ? 12 : 22;
}

/* Chooses the arrangement for rows: every named row and its legend when they fit either way,
   values as rows first; else the legends the rows leave room for; else fewer rows. */
static void sweepview_grid_plan(const struct sweepview *s, int w, int rows,
                                struct sweepview_grid *g)
{
    const struct sweep_result *r = &s->res;
    *g = (struct sweepview_grid){0};
    size_t all = sweepview_extras(r, g->extra);
    for (size_t k = 0; k < r->done && k < r->nmodes * r->nvalues; k++)
        g->marked |= r->points[k % r->nmodes][k / r->nmodes].problem[0] != 0;
    for (size_t nx = all + 1; nx-- > 0;) {
        g->nx = nx;
        g->noread = false;
        for (size_t e = 0; e < nx; e++)
            for (size_t k = 0;
                 g->extra[e] == FIGURE_BYTES_PER_SYSCR && k < r->done && k < r->nmodes * r->nvalues;
                 k++) {
                const struct sweep_point *p = &r->points[k % r->nmodes][k / r->nmodes];
                g->noread |= p->measured && sweepview_noread(p);
            }
        int marks = (g->noread ? 1 : 0) + (g->marked ? 1 : 0);
        for (int terse = 0; terse < 2; terse++)
            for (int by_mode = 0; by_mode < 2; by_mode++) {
                size_t blocks = by_mode ? r->nmodes : r->nvalues;
                int need = 1 + (int)(blocks * (1 + nx)) + marks;
                int room = rows - need;
                if (room < (terse ? 0 : (int)nx))
                    continue;
                g->by_mode = by_mode;
                g->legends = room < (int)nx ? room : (int)nx;
                sweepview_grid_widths(s, w, g);
                return;
            }
    }
    g->nx = 0;
    sweepview_grid_widths(s, w, g);
}

/* The cell of row e (-1: the sweep's figure) for point (m, v), into buf; its attribute. */
static attr_t sweepview_cell(const struct sweepview *s, int e, const struct sweepview_grid *g,
                             size_t m, size_t v, char *buf, size_t len)
{
    const struct sweep_result *r = &s->res;
    const struct sweep_point *p = &r->points[m][v];
    int w = g->colw - 1;
    snprintf(buf, len, "-");
    if (!sweepview_done(r, m, v))
        return A_NORMAL;
    if (e < 0) {
        bool mark = p->problem[0] != 0;
        if (p->has_figure) {
            char num[40];
            sweepview_fit(s->sw->figure, p->figure, mark ? w - 2 : w, num, sizeof num);
            snprintf(buf, len, "%s%s", num, mark ? " " SWEEPVIEW_MARK : "");
        } else {
            const char *what = p->measured ? "no requests" : "failed";
            snprintf(buf, len, "%s", (int)strlen(what) <= w ? what : p->measured ? "none" : "fail");
        }
        return mark ? screen_attr(SCREEN_BAD) : A_NORMAL;
    }
    double val;
    if (p->measured && sweepview_cell_value(p, g->extra[e], &val))
        sweepview_fit(g->extra[e], val, w, buf, len);
    return screen_attr(SCREEN_DIM);
}

static void sweepview_draw_table(struct sweepview *s, const struct screen_caps *c,
                                 struct layout_rect in, int rows)
{
    const struct sweep_result *r = &s->res;
    const struct lesson_sweep *sw = s->sw;
    struct sweepview_grid g;
    sweepview_grid_plan(s, in.w, rows, &g);
    int y = in.y, end = in.y + rows;
    widgets_printf(c, in.x, y, g.left - 1, screen_attr(SCREEN_HEADING), "%s", sw->param);
    for (size_t k = 0; k < g.ncols; k++) {
        int x = in.x + g.left + (int)k * g.colw;
        if (g.by_mode)
            widgets_text(c, x, y, g.colw - 1, A_BOLD | A_UNDERLINE, sw->text[k]);
        else
            widgets_text(c, x, y, g.colw - 1, sweepview_series_attr(c, k) | A_UNDERLINE,
                         sweepview_mode(r, k));
    }
    y++;
    /* Each block: the sweep's figure, marked when the point is not clean; under it the extra
       rows in dim, each named in the left column. */
    for (size_t b = 0; b < g.nblocks && y < end; b++) {
        if (g.by_mode)
            widgets_text(c, in.x, y, g.left - 1, sweepview_series_attr(c, b), sweepview_mode(r, b));
        else
            widgets_text(c, in.x, y, g.left - 1, A_BOLD, sw->text[b]);
        for (int e = -1; e < (int)g.nx && y < end; e++, y++) {
            if (e >= 0)
                widgets_printf(c, in.x, y, g.left - 1, screen_attr(SCREEN_DIM), " %s",
                               sweepview_rowdefs[sweepview_rowdef(g.extra[e])].tag);
            for (size_t k = 0; k < g.ncols; k++) {
                size_t m = g.by_mode ? b : k, v = g.by_mode ? k : b;
                char cell[64];
                attr_t a = sweepview_cell(s, e, &g, m, v, cell, sizeof cell);
                widgets_text(c, in.x + g.left + (int)k * g.colw, y, g.colw - 1, a, cell);
            }
        }
    }
    /* The legend: what each row and each mark means, as the plan left room for. */
    char line[160];
    for (int e = 0; e < g.legends && y < end; e++) {
        sweepview_row_legend(s, g.extra[e], line, sizeof line);
        widgets_text(c, in.x, y++, in.w, screen_attr(SCREEN_DIM), line);
    }
    if (g.noread && y < end)
        widgets_text(c, in.x, y++, in.w, screen_attr(SCREEN_DIM), SWEEPVIEW_NOREAD_LEGEND);
    if (g.marked && y < end)
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
