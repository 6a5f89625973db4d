/*
 * benchmath: see benchmath.h. Inputs are small (a few rounds), so the median sorts a copy.
 */
#include "benchmath.h"

#include "lesson/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int benchmath_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

double benchmath_median(const double *v, size_t n)
{
    double buf[256];
    size_t k = 0;
    for (size_t i = 0; i < n && k < sizeof buf / sizeof *buf; i++)
        if (!isnan(v[i]))
            buf[k++] = v[i];
    if (!k)
        return NAN;
    qsort(buf, k, sizeof *buf, benchmath_cmp);
    return k % 2 ? buf[k / 2] : (buf[k / 2 - 1] + buf[k / 2]) / 2;
}

void benchmath_summarize(const double *v, size_t n, struct benchmath_summary *out)
{
    out->n = 0;
    out->min = out->max = NAN;
    for (size_t i = 0; i < n; i++) {
        if (isnan(v[i]))
            continue;
        if (!out->n || v[i] < out->min)
            out->min = v[i];
        if (!out->n || v[i] > out->max)
            out->max = v[i];
        out->n++;
    }
    out->median = benchmath_median(v, n);
}

double benchmath_ratio(const double *mode, const double *base, size_t nrounds)
{
    double r[256];
    size_t k = 0;
    for (size_t i = 0; i < nrounds && k < sizeof r / sizeof *r; i++)
        if (!isnan(mode[i]) && !isnan(base[i]) && base[i] > 0)
            r[k++] = mode[i] / base[i];
    return benchmath_median(r, k);
}

bool benchmath_differs(double a, double b, double tol)
{
    if (isnan(a) || isnan(b))
        return false;
    double big = fmax(fabs(a), fabs(b));
    return big > 0 && fabs(a - b) > tol * big;
}

double benchmath_headline_ratio(const double *mode, const double *base, size_t nvalues,
                                size_t nrounds, int at)
{
    double r[256];
    size_t n = 0;
    for (size_t v = 0; v < nvalues && n < sizeof r / sizeof *r; v++) {
        if (at >= 0 && (size_t)at != v)
            continue;
        r[n++] = benchmath_ratio(mode + v * nrounds, base + v * nrounds, nrounds);
    }
    /* A value whose ratio is NaN (nothing to compare) is left out of the median. */
    return benchmath_median(r, n);
}

void benchmath_headline_sentence(const struct lesson_headline *h, const char *mode_id,
                                 const char *base_id, double here, char *buf, size_t len)
{
    if (isnan(here)) {
        snprintf(buf, len,
                 "seed %s: %s (ratio %.3gx); not measured here (its modes %s and %s "
                 "were not both run)",
                 h->seed, h->text, h->ratio, mode_id, base_id);
        return;
    }
    bool differs = benchmath_differs(here, h->ratio, BENCHMATH_HEADLINE_DIFFERS);
    snprintf(buf, len, "seed %s: %s (%s/%s %.3gx); here %.3gx%s%s%s%s", h->seed, h->text, mode_id,
             base_id, h->ratio, here, differs ? "" : ", as in the seed",
             differs && h->why ? " (" : "", differs && h->why ? h->why : "",
             differs && h->why ? ")" : "");
}
