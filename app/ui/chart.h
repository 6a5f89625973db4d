/*
 * chart: the geometry of a line chart in a terminal rectangle, as a pure function (like
 * layout.c: no curses here, unit-tested on its own). The caller gives the rectangle, the x
 * values (log or linear), and series of y values that may have holes; chart_compute() decides
 * where the plot area, the y ticks and each x value's column go, and chart_cell() where a
 * series' point lands. chart_crossings() finds where one series overtakes another, which the
 * sweep view names under the chart.
 *
 * Picture (w columns, h rows; the legend row on top, the x labels at the bottom):
 *
 *     legend: * read  o fread  + fread-setvbuf
 *   2.0G |            *  *
 *   1.0G |      o  o *
 *      0 +--+--+--+--+--+
 *         8 64 512 4K 8K 64K
 *
 * Invariants after chart_compute() with ok set: the plot area lies inside the rectangle, every
 * x column is inside the plot area and strictly increasing, ymax > 0 is a "nice" number (1, 2
 * or 5 times a power of ten) at least as large as every y, every tick row is in the plot area.
 */
#ifndef IOLAB_CHART_H
#define IOLAB_CHART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHART_MAX_X     32
#define CHART_MAX_TICKS 6

struct chart_series {
    const double *y;  /* n values */
    const bool *have; /* which are measured; NULL: all */
};

struct chart_geom {
    bool ok;            /* false: the rectangle is too small for a plot */
    int plot_x, plot_y; /* the plot area's top-left cell (inside the axes) */
    int plot_w, plot_h; /* its size */
    int label_w;        /* columns of the y labels, left of the axis */
    int axis_row;       /* the x axis row (under the plot area) */
    int axis_col;       /* the y axis column (left of the plot area) */
    double ymax;        /* the top of the y axis; the bottom is 0, or ymin on a log axis */
    bool log_y;         /* the y axis is logarithmic (chart_log_y) */
    double ymin;        /* its bottom then, a power of ten */
    size_t nticks;      /* y ticks, bottom first */
    double tick_v[CHART_MAX_TICKS];
    int tick_row[CHART_MAX_TICKS];
    size_t n;              /* x values */
    int xcol[CHART_MAX_X]; /* the column of each x value */
};

/*
 * Lays the chart out in the rectangle (x, y, w, h) for n x values (increasing, > 0 for a log
 * axis), the series' largest y, and y labels at most label_w columns wide. Leaves one row at the
 * top for the legend and one at the bottom for the x labels.
 */
void chart_compute(struct chart_geom *g, int x, int y, int w, int h, const double *xs, size_t n,
                   bool log_x, double ymax_data, int label_w);

/*
 * Whether a point is drawn: its figure is defined and, for a latency, the run answered a request.
 * The figure table defines a latency over the requests answered and those still waiting, so a run
 * that answered nothing has one, made of its waits alone: a value the length of the run, not of a
 * request, which a line between the other points would present as one. Its table cell and the
 * outcomes judged on it keep the value; the chart leaves the point out.
 */
bool chart_point_drawn(bool defined, bool latency, uint64_t answered);

/* The row of a y value in the plot area (clamped to it). */
int chart_row(const struct chart_geom *g, double y);

/* The largest measured y over the series (0 when none). */
double chart_ymax(const struct chart_series *s, size_t nseries, size_t n);

/* The "nice" number at or above v: 1, 2 or 5 times a power of ten (1 for v <= 0). */
double chart_nice(double v);

/*
 * Whether the y axis should be logarithmic: the measured values above zero span more than
 * CHART_LOG_SPAN, so that on a linear axis from zero the small ones would lie along the bottom
 * row, where neither their differences nor the points of other series they cover can be seen.
 */
#define CHART_LOG_SPAN 20.0
bool chart_wants_log_y(const struct chart_series *s, size_t nseries, size_t n);
/* The smallest measured y above zero over the series (0 when none). */
double chart_ymin(const struct chart_series *s, size_t nseries, size_t n);
/*
 * Makes a computed chart's y axis logarithmic, from the power of ten at or below ymin_data to the
 * nice number at or above ymax_data (both > 0), with a tick at every power of ten (every second
 * or third when more would not fit the rows). A y of zero or less goes on the bottom row.
 */
void chart_log_y(struct chart_geom *g, double ymin_data, double ymax_data);

/* How two series compare over the x values, once differences within the noise are ties. */
enum chart_order {
    CHART_SAME_ORDER, /* one stays ahead, or every difference is within the noise */
    CHART_OVERTAKES,  /* exactly one change of order, each side beyond the noise */
    CHART_NOISE,      /* the order changes back and forth: no crossing can be named */
};
/*
 * Where series a and b change order, when the runs agree on one place: differences smaller than
 * `noise` times the larger figure count as ties (a sweep measures each point once, so a lead
 * that small says nothing); the rest must change sign exactly once. On CHART_OVERTAKES, *from
 * and *to are the last x value where the old leader was ahead and the first where the other
 * one is, and *a_after tells whether a leads after the change.
 */
#define CHART_NOISE_SHARE 0.10
enum chart_order chart_crossover(const struct chart_series *a, const struct chart_series *b,
                                 size_t n, double noise, size_t *from, size_t *to, bool *a_after);

/*
 * Where series a and b swap order: crossings[k] = i means a-b changes sign between x value i and
 * i+1 (both measured in both series). Returns how many were found (at most max).
 */
size_t chart_crossings(const struct chart_series *a, const struct chart_series *b, size_t n,
                       size_t *crossings, size_t max);

#endif
