/*
 * benchmath: the arithmetic of `iolab bench`, pure and unit-tested: the median, minimum and
 * maximum of a mode's figures over the rounds, and the ratio of a mode to the first mode as the
 * median of the per-round ratios (each round ran the modes one after the other, so a machine
 * that drifts moves both figures of a round together and the ratio of the round stays fair).
 * A figure that is NaN (the round measured nothing) is left out; a ratio needs both figures of
 * its round and a base above zero.
 */
#ifndef IOLAB_BENCHMATH_H
#define IOLAB_BENCHMATH_H

#include <stdbool.h>
#include <stddef.h>

struct benchmath_summary {
    size_t n;                /* figures that counted (not NaN) */
    double median, min, max; /* NaN when n is 0 */
};

/* The median of v[0..n) without NaNs (the mean of the middle two for an even count). */
double benchmath_median(const double *v, size_t n);

void benchmath_summarize(const double *v, size_t n, struct benchmath_summary *out);

/* The median over rounds of mode[i] / base[i]; NaN when no round has both figures. */
double benchmath_ratio(const double *mode, const double *base, size_t nrounds);

/* Whether two ratios differ enough to say so: by more than tol (0.2: 20%) of the larger. */
bool benchmath_differs(double a, double b, double tol);

#endif
