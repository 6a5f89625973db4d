/*
 * predict: a run step's prediction questions ("predict", quiz.h), parsed and checked when the
 * pack loads. A question is tied to a figure the grader measures (the names of expected
 * outcomes: calls:read/request, ctx_per_request, ...) of modes the step has, so that it can
 * always be judged against this machine's measurement; lint reports anything else at its
 * file:line:col. kind_run.c calls load_predicts() for the "predict" key.
 */
#include "kind.h"
#include "load.h"
#include "quiz.h"

#include <stdlib.h>
#include <string.h>

#define PREDICT_DEFAULT_TOLERANCE 0.25 /* a number within 25% of the measurement is right */

enum { P_QUESTION, P_ANSWER, P_FIGURE, P_MODES, P_TOLERANCE, P_UNIT, P_EXPLANATION, P_NFIELDS };
static const struct load_field predict_fields[] = {
    [P_QUESTION] = {"question", LOAD_TEXT, 1},       [P_ANSWER] = {"answer", LOAD_STRING, 1},
    [P_FIGURE] = {"figure", LOAD_OBJECT, 1},         [P_MODES] = {"modes", LOAD_STRINGS, 0},
    [P_TOLERANCE] = {"tolerance", LOAD_NUMBER, 0},   [P_UNIT] = {"unit", LOAD_STRING, 0},
    [P_EXPLANATION] = {"explanation", LOAD_TEXT, 0},
};

enum { F_MODE, F_FIGURE, F_ROLE, F_NFIELDS };
static const struct load_field predict_figure_fields[] = {
    [F_MODE] = {"mode", LOAD_STRING, 0},
    [F_FIGURE] = {"figure", LOAD_STRING, 1},
    [F_ROLE] = {"role", LOAD_STRING, 0},
};

/* The step's mode with this id, or -1 after reporting it. */
static int predict_mode(struct load *ld, const cJSON *v, const struct lesson_scenario *sc)
{
    int m = lesson_mode_find(sc, v->valuestring);
    if (m >= 0)
        return m;
    const char *ids[LOAD_MAX_CANDIDATES];
    size_t k = 0;
    for (; k < sc->nmodes && k < LOAD_MAX_CANDIDATES; k++)
        ids[k] = sc->modes[k].id;
    char why[128];
    load_diag(ld, v, 0, "this prediction names mode \"%s\", which this step does not have; %s",
              v->valuestring,
              load_suggest(why, sizeof why, v->valuestring, ids, k, "name one of its modes."));
    return -1;
}

static void predict_figure(struct load *ld, const cJSON *obj, const struct lesson_scenario *sc,
                           struct lesson_predict *p)
{
    const cJSON *f[F_NFIELDS];
    p->figure = (struct lesson_expect_side){.mode = -1, .role = LESSON_ROLE_SERVER};
    load_fields(ld, obj, predict_figure_fields, F_NFIELDS, "a prediction's figure", NULL, f);
    if (f[F_FIGURE])
        load_expect_figure(ld, f[F_FIGURE], &p->figure);
    if (f[F_ROLE]) {
        enum lesson_role role;
        if (load_role(ld, f[F_ROLE], &role) == 0) {
            p->figure.role = (int)role;
            size_t k = 0;
            while (k < sc->nprograms && sc->programs[k].role != role)
                k++;
            if (k == sc->nprograms)
                load_diag(ld, f[F_ROLE], 0,
                          "this prediction reads the %s's figures but the step has no %s "
                          "program; change the role.",
                          f[F_ROLE]->valuestring, f[F_ROLE]->valuestring);
        }
    }
    if (p->kind != LESSON_PREDICT_NUMBER) {
        if (f[F_MODE])
            load_diag(ld, f[F_MODE], 0,
                      "a choice compares the figure across modes; remove \"mode\" (\"modes\" "
                      "lists the candidates).");
        return;
    }
    if (f[F_MODE])
        p->figure.mode = predict_mode(ld, f[F_MODE], sc);
    else if (sc->nmodes && cJSON_IsObject(obj))
        load_diag(ld, obj, 0,
                  "this step has modes: say which one's figure is predicted with "
                  "\"mode\".");
}

/* A choice's candidates: the listed modes, or every mode of the step. */
static void predict_modes(struct load *ld, const cJSON *v, const cJSON *obj,
                          const struct lesson_scenario *sc, struct lesson_predict *p)
{
    size_t n = v ? (size_t)cJSON_GetArraySize(v) : sc->nmodes;
    p->modes = calloc(n + 1, sizeof *p->modes);
    if (!p->modes) {
        ld->nomem = 1;
        return;
    }
    if (!v) {
        for (size_t i = 0; i < sc->nmodes; i++)
            p->modes[p->nmodes++] = (int)i;
    } else {
        const cJSON *e;
        cJSON_ArrayForEach(e, v)
        {
            int m = predict_mode(ld, e, sc);
            for (size_t k = 0; m >= 0 && k < p->nmodes; k++)
                if (p->modes[k] == m) {
                    load_diag(ld, e, 0, "mode \"%s\" is listed twice; list each once.",
                              e->valuestring);
                    m = -1;
                }
            if (m >= 0)
                p->modes[p->nmodes++] = m;
        }
    }
    if (!v && sc->nmodes < 2 && cJSON_IsObject(obj))
        load_diag(ld, obj, 0,
                  "a prediction that picks a mode needs at least two modes to choose from; this "
                  "step has %zu.",
                  sc->nmodes);
    else if (v && n < 2)
        load_diag(ld, v, 0, "a prediction that picks a mode needs at least two in \"modes\".");
}

static void predict_one(struct load *ld, const cJSON *obj, struct lesson_scenario *sc,
                        struct lesson_predict *p)
{
    const cJSON *f[P_NFIELDS];
    load_fields(ld, obj, predict_fields, P_NFIELDS, "a prediction", NULL, f);
    p->question = load_text(ld, f[P_QUESTION]);
    p->explanation = load_text(ld, f[P_EXPLANATION]);
    p->unit = f[P_UNIT] ? load_strdup(ld, f[P_UNIT]->valuestring) : NULL;
    p->kind = LESSON_PREDICT_NUMBER;
    if (f[P_ANSWER]) {
        const char *a = f[P_ANSWER]->valuestring;
        if (!strcmp(a, "most"))
            p->kind = LESSON_PREDICT_MOST;
        else if (!strcmp(a, "least"))
            p->kind = LESSON_PREDICT_LEAST;
        else if (strcmp(a, "number"))
            load_diag(ld, f[P_ANSWER], 0,
                      "\"answer\" is \"number\" (a figure to guess), \"most\" or \"least\" (the "
                      "mode with the largest or smallest figure), not \"%s\".",
                      a);
    }
    if (f[P_FIGURE])
        predict_figure(ld, f[P_FIGURE], sc, p);
    if (p->kind == LESSON_PREDICT_NUMBER) {
        if (f[P_MODES])
            load_diag(ld, f[P_MODES], 0,
                      "\"modes\" lists a choice's candidates; a number predicts one mode's "
                      "figure: name it in \"figure\" and remove \"modes\".");
        p->tolerance = PREDICT_DEFAULT_TOLERANCE;
        if (f[P_TOLERANCE]) {
            p->tolerance = f[P_TOLERANCE]->valuedouble;
            if (!(p->tolerance > 0 && p->tolerance <= 10))
                load_diag(ld, f[P_TOLERANCE], 0,
                          "\"tolerance\" is a share of the measured figure, above 0 and at most "
                          "10 (0.25: within 25%%); change it.");
        }
    } else {
        predict_modes(ld, f[P_MODES], obj, sc, p);
        if (f[P_TOLERANCE]) {
            p->tolerance = f[P_TOLERANCE]->valuedouble;
            if (!(p->tolerance >= 0 && p->tolerance < 1))
                load_diag(ld, f[P_TOLERANCE], 0,
                          "a choice's \"tolerance\" (how close to the extreme counts as a tie) "
                          "is at least 0 and below 1; change it.");
        }
    }
}

void load_predicts(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (!n) {
        load_diag(ld, arr, 0, "\"predict\" is empty; remove it or add a question.");
        return;
    }
    /* Figures are measured per mode (the grader's rows); a step without modes has none to
       judge a prediction against. */
    if (!sc->nmodes) {
        load_diag(ld, arr, 0,
                  "predictions are judged against a mode's measured figures, and this step has "
                  "no \"modes\"; add at least one mode or remove \"predict\".");
        return;
    }
    sc->predicts = calloc(n, sizeof *sc->predicts);
    if (!sc->predicts) {
        ld->nomem = 1;
        return;
    }
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr) predict_one(ld, obj, sc, &sc->predicts[sc->npredicts++]);
}

void lesson_predicts_free(struct lesson_scenario *sc)
{
    for (size_t i = 0; i < sc->npredicts; i++) {
        struct lesson_predict *p = &sc->predicts[i];
        free(p->question);
        free(p->explanation);
        free(p->unit);
        free(p->modes);
    }
    free(sc->predicts);
    sc->predicts = NULL;
    sc->npredicts = 0;
}
