/*
 * chart: see chart.h. The y axis starts at zero, so that two lines' heights compare as their
 * figures do (a chart that starts at the smallest value makes a 5% gap look like a factor),
 * unless the figures span more than CHART_LOG_SPAN: then a linear axis would flatten the small
 * ones onto its bottom row, and a log axis (its ticks say so) shows every one.
 */
#include "chart.h"

#include <math.h>

double chart_nice(double v)
{
    if (!(v > 0))
        return 1;
    double p = pow(10, floor(log10(v)));
    static const double steps[] = {1, 2, 5, 10};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if (steps[i] * p >= v * (1 - 1e-12))
            return steps[i] * p;
    return 10 * p;
}

double chart_ymax(const struct chart_series *s, size_t nseries, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < nseries; k++)
        for (size_t i = 0; i < n; i++)
            if ((!s[k].have || s[k].have[i]) && isfinite(s[k].y[i]) && s[k].y[i] > m)
                m = s[k].y[i];
    return m;
}

void chart_compute(struct chart_geom *g, int x, int y, int w, int h, const double *xs, size_t n,
                   bool log_x, double ymax_data, int label_w)
{
    *g = (struct chart_geom){0};
    if (n > CHART_MAX_X)
        n = CHART_MAX_X;
    g->n = n;
    g->label_w = label_w;
    g->axis_col = x + label_w + 1;
    g->plot_x = g->axis_col + 1;
    g->plot_y = y + 1;                 /* the legend row */
    g->plot_w = x + w - g->plot_x - 2; /* room for the last x label to spill over */
    g->plot_h = h - 3;                 /* legend, axis, x labels */
    g->axis_row = g->plot_y + g->plot_h;
    g->ymax = chart_nice(ymax_data);
    if (!n || g->plot_w < (int)n * 2 || g->plot_h < 3)
        return;
    g->ok = true;
    /* x columns: the first value at the left edge, the last at the right one. */
    double lo = log_x ? log(xs[0]) : xs[0], hi = log_x ? log(xs[n - 1]) : xs[n - 1];
    for (size_t i = 0; i < n; i++) {
        double v = log_x ? log(xs[i]) : xs[i];
        double t = n == 1 || hi <= lo ? 0.5 : (v - lo) / (hi - lo);
        g->xcol[i] = g->plot_x + (int)lround(t * (g->plot_w - 1));
        /* Values too close for their columns still get one each, in order. */
        if (i && g->xcol[i] <= g->xcol[i - 1])
            g->xcol[i] = g->xcol[i - 1] + 1;
    }
    /* A value pushed past the edge pulls the ones before it back. */
    for (size_t i = n; i-- > 0;) {
        int limit = g->plot_x + g->plot_w - 1 - (int)(n - 1 - i);
        if (g->xcol[i] > limit)
            g->xcol[i] = limit;
    }
    /* y ticks: 0, and evenly up to ymax, as many as fit with a row or more between them. */
    size_t nt = g->plot_h >= 12 ? 5 : g->plot_h >= 6 ? 3 : 2;
    g->nticks = nt;
    for (size_t k = 0; k < nt; k++) {
        g->tick_v[k] = g->ymax * (double)k / (double)(nt - 1);
        g->tick_row[k] = chart_row(g, g->tick_v[k]);
    }
}

double chart_ymin(const struct chart_series *s, size_t nseries, size_t n)
{
    double m = 0;
    for (size_t k = 0; k < nseries; k++)
        for (size_t i = 0; i < n; i++)
            if ((!s[k].have || s[k].have[i]) && isfinite(s[k].y[i]) && s[k].y[i] > 0 &&
                (m == 0 || s[k].y[i] < m))
                m = s[k].y[i];
    return m;
}

bool chart_wants_log_y(const struct chart_series *s, size_t nseries, size_t n)
{
    double lo = chart_ymin(s, nseries, n), hi = chart_ymax(s, nseries, n);
    return lo > 0 && hi / lo > CHART_LOG_SPAN;
}

void chart_log_y(struct chart_geom *g, double ymin_data, double ymax_data)
{
    if (!(ymin_data > 0) || !(ymax_data > 0))
        return;
    /* The top is the nice number above the largest figure, not the next power of ten, which
       could leave most of a decade of rows empty. */
    int lo = (int)floor(log10(ymin_data) + 1e-9);
    double top = chart_nice(ymax_data);
    if (top <= pow(10, lo))
        top = pow(10, lo + 1);
    int hi = (int)floor(log10(top) + 1e-9);
    g->log_y = true;
    g->ymin = pow(10, lo);
    g->ymax = top;
    if (!g->ok)
        return;
    size_t fit = g->plot_h >= 12 ? 5 : g->plot_h >= 6 ? 3 : 2;
    int step = 1;
    while ((size_t)((hi - lo) / step + 1) > fit)
        step++;
    g->nticks = 0;
    for (int e = lo; e <= hi && g->nticks < CHART_MAX_TICKS; e += step) {
        g->tick_v[g->nticks] = pow(10, e);
        g->tick_row[g->nticks] = chart_row(g, g->tick_v[g->nticks]);
        g->nticks++;
    }
}

enum chart_order chart_crossover(const struct chart_series *a, const struct chart_series *b,
                                 size_t n, double noise, size_t *from, size_t *to, bool *a_after)
{
    int prev_sign = 0, changes = 0;
    size_t prev_i = 0;
    for (size_t i = 0; i < n; i++) {
        if ((a->have && !a->have[i]) || (b->have && !b->have[i]))
            continue;
        double d = a->y[i] - b->y[i];
        double big = fmax(fabs(a->y[i]), fabs(b->y[i]));
        if (!isfinite(d) || fabs(d) <= noise * big)
            continue; /* a tie, as far as one measurement can tell */
        int sign = d > 0 ? 1 : -1;
        if (prev_sign && sign != prev_sign) {
            if (++changes == 1) {
                *from = prev_i;
                *to = i;
                *a_after = sign > 0;
            }
        }
        prev_sign = sign;
        prev_i = i;
    }
    return changes == 0 ? CHART_SAME_ORDER : changes == 1 ? CHART_OVERTAKES : CHART_NOISE;
}

int chart_row(const struct chart_geom *g, double y)
{
    double t = g->ymax > 0 ? y / g->ymax : 0;
    if (g->log_y)
        t = y > 0 && g->ymax > g->ymin
                ? (log10(y) - log10(g->ymin)) / (log10(g->ymax) - log10(g->ymin))
                : 0;
    if (!(t >= 0))
        t = 0;
    if (t > 1)
        t = 1;
    /* Row plot_h-1 (bottom) is 0, row 0 (top) is ymax. */
    return g->plot_y + (g->plot_h - 1) - (int)lround(t * (g->plot_h - 1));
}

size_t chart_crossings(const struct chart_series *a, const struct chart_series *b, size_t n,
                       size_t *crossings, size_t max)
{
    size_t found = 0;
    int prev_sign = 0;
    size_t prev_i = 0;
    for (size_t i = 0; i < n; i++) {
        if ((a->have && !a->have[i]) || (b->have && !b->have[i]))
            continue;
        double d = a->y[i] - b->y[i];
        int sign = d > 0 ? 1 : d < 0 ? -1 : 0;
        if (!sign)
            continue;
        if (prev_sign && sign != prev_sign && found < max)
            crossings[found++] = prev_i;
        prev_sign = sign;
        prev_i = i;
    }
    return found;
}

bool chart_point_drawn(bool defined, bool latency, uint64_t answered)
{
    return defined && (!latency || answered > 0);
}
