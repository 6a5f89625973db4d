/*
 * prediction: see prediction.h. The figures are expect_figure()'s, so a prediction reads a
 * figure exactly as the step's expected outcomes do: through the figure table over the mode's
 * span.
 */
#include "prediction.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * A count as the question asks it: every figure a prediction can ask that the table writes plain
 * is a count of something per request (calls, context switches), and a learner who works out
 * 64 MiB / 4 KiB expects to read 16,385, not "16.4k". So a count of 100 or more is a whole number
 * with thousands separators, a smaller one keeps three significant figures ("1.02", "0.26"),
 * and a whole one none. A rate, a size, a share or a latency is written with an SI suffix
 * ("182k", "4.07M"), its unit after it as the question names it.
 */
static const char *prediction_count(double v, char *buf, size_t len)
{
    double a = fabs(v);
    if (a < 100 && v != (double)(long long)v) {
        snprintf(buf, len, "%.3g", v);
        return buf;
    }
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%.0f", a);
    if (n < 0 || (size_t)n >= sizeof digits || a >= 1e18) {
        snprintf(buf, len, "%.3g", v); /* beyond any count a run makes */
        return buf;
    }
    char out[48];
    size_t o = 0;
    if (v < 0 && lround(a) != 0)
        out[o++] = '-';
    for (int i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    snprintf(buf, len, "%s", out);
    return buf;
}

/* A value of the prediction's figure as the question asks it (prediction_count, or SI for a
   rate, a size, a share or a latency). */
static const char *prediction_num(const struct lesson_predict *p, double v, char *buf, size_t len)
{
    const struct figure_def *f = figure_at(p->figure.figure);
    if (!f || f->show == FIGURE_SHOW_PLAIN)
        return prediction_count(v, buf, len);
    return figure_format_si(v, "", "", false, buf, len);
}

static double prediction_value(const struct lesson_scenario *sc, const struct lesson_predict *p,
                               int mode, const struct mode_span *modes, size_t nmodes, bool *ok)
{
    struct lesson_expect_side side = p->figure;
    side.mode = mode;
    double v = 0;
    *ok = expect_figure(sc, &side, modes, nmodes, &v);
    return v;
}

/*
 * Whether a count per request has settled in a mode: the calls of the request still under way
 * when the figure is taken are counted, its request is not, so the average runs high by up to
 * one request's calls over the requests done (three 64 MiB copies of 16,385 reads each and most
 * of a fourth read as 20,754). A number is judged once that error is at most half the author's
 * tolerance: 2 / tolerance requests done (20 at 10%), and never fewer than 4.
 */
static bool prediction_settled(const struct lesson_predict *p, const struct mode_span *modes,
                               size_t nmodes)
{
    const struct figure_def *f = figure_at(p->figure.figure);
    if (!f || f->show != FIGURE_SHOW_PLAIN)
        return true; /* a rate, a share or a latency: no request's calls are left over */
    double t = p->tolerance > 0.02 ? p->tolerance : 0.02;
    double need = ceil(2 / t);
    for (size_t i = 0; i < nmodes; i++)
        if (modes[i].mode == p->figure.mode)
            return (double)modes[i].span.requests >= (need > 4 ? need : 4);
    return false;
}

struct prediction_verdict prediction_judge(const struct lesson_scenario *sc,
                                           const struct lesson_predict *p,
                                           const struct prediction *a,
                                           const struct mode_span *modes, size_t nmodes)
{
    struct prediction_verdict v = {.state = EXPECT_UNDECIDED, .best = -1};
    bool ok;
    if (p->kind == LESSON_PREDICT_NUMBER) {
        v.measured = prediction_value(sc, p, p->figure.mode, modes, nmodes, &ok);
        if (!ok || !prediction_settled(p, modes, nmodes) || !a->given)
            return v;
        v.state = fabs(a->number - v.measured) <= p->tolerance * fabs(v.measured) ? EXPECT_AGREES
                                                                                  : EXPECT_DIFFERS;
        return v;
    }
    /* A choice: every candidate must have been measured. */
    for (size_t i = 0; i < p->nmodes; i++) {
        double x = prediction_value(sc, p, p->modes[i], modes, nmodes, &ok);
        if (!ok)
            return (struct prediction_verdict){.state = EXPECT_UNDECIDED, .best = -1};
        bool better = p->kind == LESSON_PREDICT_MOST ? x > v.best_value : x < v.best_value;
        if (v.best < 0 || better) {
            v.best = p->modes[i];
            v.best_value = x;
        }
        if (a->given && p->modes[i] == a->mode)
            v.measured = x;
    }
    if (!a->given)
        return v;
    double slack = p->tolerance * fabs(v.best_value);
    bool right =
        a->mode == v.best || (p->kind == LESSON_PREDICT_MOST ? v.measured >= v.best_value - slack
                                                             : v.measured <= v.best_value + slack);
    /* A mode that is not a candidate is never right. */
    bool candidate = false;
    for (size_t i = 0; i < p->nmodes; i++)
        candidate |= p->modes[i] == a->mode;
    v.state = right && candidate ? EXPECT_AGREES : EXPECT_DIFFERS;
    return v;
}

static const char *prediction_mode_id(const struct lesson_scenario *sc, int m)
{
    return m >= 0 && (size_t)m < sc->nmodes ? sc->modes[m].id : "?";
}

int prediction_describe(const struct lesson_scenario *sc, const struct lesson_predict *p,
                        const struct prediction *a, const struct prediction_verdict *v, char *buf,
                        size_t len)
{
    char said[96] = "not predicted";
    char n1[32], n2[32];
    /* What the learner typed, as typed: a fraction keeps its digits ("you said 1.25"). */
    if (a->given && p->kind == LESSON_PREDICT_NUMBER && a->number != (double)(long long)a->number)
        snprintf(said, sizeof said, "you said %g", a->number);
    else if (a->given && p->kind == LESSON_PREDICT_NUMBER)
        snprintf(said, sizeof said, "you said %s", prediction_num(p, a->number, n1, sizeof n1));
    else if (a->given)
        snprintf(said, sizeof said, "you chose %s", prediction_mode_id(sc, a->mode));
    if (!a->given && v->state == EXPECT_UNDECIDED)
        return snprintf(buf, len, "not predicted yet: Enter asks before the start");
    if (v->state == EXPECT_UNDECIDED && p->kind == LESSON_PREDICT_NUMBER) {
        const char *m = p->figure.mode >= 0 ? prediction_mode_id(sc, p->figure.mode) : NULL;
        return snprintf(buf, len, "%s; not measured yet: run %s for a few seconds", said,
                        m ? m : "the scenario");
    }
    if (v->state == EXPECT_UNDECIDED) {
        char missing[256] = "";
        size_t used = 0;
        for (size_t i = 0; i < p->nmodes && used < sizeof missing; i++)
            used += (size_t)snprintf(missing + used, sizeof missing - used, "%s%s",
                                     used ? ", " : "", prediction_mode_id(sc, p->modes[i]));
        return snprintf(buf, len, "%s; measured once each has run: %s", said, missing);
    }
    const char *verdict = !a->given ? "" : v->state == EXPECT_AGREES ? ": right" : ": wrong";
    if (p->kind == LESSON_PREDICT_NUMBER) {
        int tol = (int)lround(p->tolerance * 100);
        return snprintf(buf, len, "%s, measured %s%s%s%s (within %d%% counts)", said,
                        prediction_num(p, v->measured, n2, sizeof n2), p->unit ? " " : "",
                        p->unit ? p->unit : "", verdict, tol);
    }
    return snprintf(
        buf, len, "%s; the %s: %s (%s)%s", said, p->kind == LESSON_PREDICT_MOST ? "most" : "least",
        prediction_mode_id(sc, v->best), prediction_num(p, v->best_value, n1, sizeof n1), verdict);
}
