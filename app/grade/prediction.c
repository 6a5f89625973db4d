/*
 * prediction: see prediction.h. The figures are expect_figure()'s, so a prediction reads a
 * figure exactly as the step's expected outcomes do: through the figure table over the mode's
 * span.
 */
#include "prediction.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* 16.2, 182k, 0.0213: the figure table's formatter (metrics/figure.h). */
static const char *prediction_num(double v, char *buf, size_t len)
{
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

struct prediction_verdict prediction_judge(const struct lesson_scenario *sc,
                                           const struct lesson_predict *p,
                                           const struct prediction *a,
                                           const struct mode_span *modes, size_t nmodes)
{
    struct prediction_verdict v = {.state = EXPECT_UNDECIDED, .best = -1};
    bool ok;
    if (p->kind == LESSON_PREDICT_NUMBER) {
        v.measured = prediction_value(sc, p, p->figure.mode, modes, nmodes, &ok);
        if (!ok || !a->given)
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
    if (a->given && p->kind == LESSON_PREDICT_NUMBER)
        snprintf(said, sizeof said, "you said %s", prediction_num(a->number, n1, sizeof n1));
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
                        prediction_num(v->measured, n2, sizeof n2), p->unit ? " " : "",
                        p->unit ? p->unit : "", verdict, tol);
    }
    return snprintf(
        buf, len, "%s; the %s: %s (%s)%s", said, p->kind == LESSON_PREDICT_MOST ? "most" : "least",
        prediction_mode_id(sc, v->best), prediction_num(v->best_value, n1, sizeof n1), verdict);
}
