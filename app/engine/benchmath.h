/*
 * benchmath: the arithmetic of `iolab bench`, pure and unit-tested: the median, minimum and
 * maximum of a mode's figures over the rounds, and the ratio of a mode to the first mode as the
 * median of the per-round ratios (each round ran the modes one after the other, so a machine
 * that drifts moves both figures of a round together and the ratio of the round stays fair).
 * A figure that is NaN (the round measured nothing) is left out; a ratio needs both figures of
 * its round and a base above zero.
 *
 * It also sets a step's seed headline beside this machine's ratio, in one sentence shared by
 * `iolab bench` and the TUI's sweep view, so that the two never word or compute it differently.
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

/* How far this machine's ratio may be from the seed's (a fifth) before the sentence says why. */
#define BENCHMATH_HEADLINE_DIFFERS 0.2

/*
 * A headline's mode / base on this machine over a sweep measured in rounds: mode[v * nrounds + r]
 * and base[v * nrounds + r] are value v's figures in round r (NaN: not measured). With at >= 0,
 * value at's ratio (benchmath_ratio over its rounds); with at < 0, the median of the values'
 * ratios, as the headline's "at" says. NaN when no value could be compared.
 */
double benchmath_headline_ratio(const double *mode, const double *base, size_t nvalues,
                                size_t nrounds, int at);

struct lesson_headline;

/*
 * "seed 000: sendfile 1.94x faster than read+send (sendfile/read-send 1.94x); here 1.2x (why)":
 * the headline (its mode's and base's ids given) beside `here`, ending ", as in the seed" when
 * the two do not differ and with the headline's why when they do; with here NaN, that it was
 * not measured. Into buf.
 */
void benchmath_headline_sentence(const struct lesson_headline *h, const char *mode_id,
                                 const char *base_id, double here, char *buf, size_t len);

#endif
