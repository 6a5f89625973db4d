/*
 * predictview: see predictview.h. The progress record (field "predict", typed in
 * lesson/record.h, which reads and writes its JSON) is
 * {"predictions":[{"number":16,"verdict":"right","measured":16.2}, {"mode":"fork"}, {}]}: one
 * object per question in the step's order, empty when not answered; "verdict" ("right" or
 * "wrong") and "measured" are the last judged, kept so that the learner's export says how the
 * prediction fared.
 */
#include "predictview.h"

#include "human.h"

#include "grade/prediction.h"
#include "lesson/quiz.h"
#include "lesson/record.h"
#include "widgets.h"
#include "wrap.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct predictview {
    struct stepview_env env;
    struct view_ctx *c;
    const struct lesson_scenario *sc;
    struct prediction *answers;
    enum expect_state *saved; /* the verdict last kept in the progress store */
    double *saved_measured;
    int asking;   /* the question asked now, or -1 */
    bool skipped; /* Esc: not asked again while the step is open */
    char input[32];
    size_t ninput;
};

static void predictview_save(struct predictview *pv)
{
    if (!pv->c->progress)
        return;
    size_t n = pv->sc->npredicts;
    struct predict_record rec = {.entries = calloc(n, sizeof *rec.entries), .n = n};
    for (size_t i = 0; rec.entries && i < n; i++) {
        const struct prediction *a = &pv->answers[i];
        struct predict_record_entry *e = &rec.entries[i];
        if (!a->given)
            continue;
        if (pv->sc->predicts[i].kind == LESSON_PREDICT_NUMBER) {
            e->has_number = true;
            e->number = a->number;
        } else {
            e->mode = pv->sc->modes[a->mode].id; /* borrowed: not freed below */
        }
        if (pv->saved[i] != EXPECT_UNDECIDED) {
            e->verdict =
                pv->saved[i] == EXPECT_AGREES ? PREDICT_RECORD_RIGHT : PREDICT_RECORD_WRONG;
            e->measured = pv->saved_measured[i];
        }
    }
    char *json = rec.entries ? predict_record_write(&rec) : NULL;
    free(rec.entries);
    int rc = json ? progress_field_set(pv->c->progress, pv->env.pack->id, pv->env.lesson->id,
                                       pv->env.step->id, PREDICT_RECORD_FIELD, json)
                  : -ENOMEM;
    free(json);
    if (rc < 0)
        view_status(pv->c, true, "Your prediction could not be kept in the progress store.");
    else
        view_save_progress(pv->c);
}

static void predictview_load(struct predictview *pv)
{
    const char *json =
        pv->c->progress ? progress_field_get(pv->c->progress, pv->env.pack->id, pv->env.lesson->id,
                                             pv->env.step->id, PREDICT_RECORD_FIELD)
                        : NULL;
    struct predict_record rec;
    char why[160];
    /* A record that is not one of predictions is as good as none: the questions are asked. */
    if (predict_record_parse(json, &rec, why, sizeof why) < 0)
        return;
    for (size_t i = 0; i < rec.n && i < pv->sc->npredicts; i++) {
        struct prediction *a = &pv->answers[i];
        const struct predict_record_entry *e = &rec.entries[i];
        if (pv->sc->predicts[i].kind == LESSON_PREDICT_NUMBER && e->has_number) {
            a->given = true;
            a->number = e->number;
        } else if (e->mode) {
            a->mode = lesson_mode_find(pv->sc, e->mode);
            a->given = a->mode >= 0;
        }
        if (a->given && e->verdict != PREDICT_RECORD_UNJUDGED) {
            pv->saved[i] = e->verdict == PREDICT_RECORD_RIGHT ? EXPECT_AGREES : EXPECT_DIFFERS;
            pv->saved_measured[i] = e->measured;
        }
    }
    predict_record_free(&rec);
}

struct predictview *predictview_new(const struct stepview_env *env, struct view_ctx *c,
                                    const struct lesson_scenario *sc)
{
    if (!sc || !sc->npredicts)
        return NULL;
    struct predictview *pv = calloc(1, sizeof *pv);
    if (!pv)
        return NULL;
    pv->answers = calloc(sc->npredicts, sizeof *pv->answers);
    pv->saved = calloc(sc->npredicts, sizeof *pv->saved);
    pv->saved_measured = calloc(sc->npredicts, sizeof *pv->saved_measured);
    if (!pv->answers || !pv->saved || !pv->saved_measured) {
        predictview_free(pv);
        return NULL;
    }
    pv->env = *env;
    pv->c = c;
    pv->sc = sc;
    pv->asking = -1;
    predictview_load(pv);
    return pv;
}

void predictview_free(struct predictview *pv)
{
    if (!pv)
        return;
    free(pv->answers);
    free(pv->saved);
    free(pv->saved_measured);
    free(pv);
}

/* The next question not answered, from i on; -1 when none. */
static int predictview_next(const struct predictview *pv, size_t i)
{
    for (; i < pv->sc->npredicts; i++)
        if (!pv->answers[i].given)
            return (int)i;
    return -1;
}

bool predictview_ask(struct predictview *pv)
{
    if (!pv || pv->skipped || pv->asking >= 0)
        return pv && pv->asking >= 0;
    pv->asking = predictview_next(pv, 0);
    pv->ninput = 0;
    if (pv->asking < 0)
        return false;
    view_status(pv->c, false, "Predict first: what will this machine measure?");
    pv->c->dirty = true;
    return true;
}

/* The question is answered: on to the next, or 1 to start. */
static int predictview_answered(struct predictview *pv)
{
    predictview_save(pv);
    pv->ninput = 0;
    pv->asking = predictview_next(pv, (size_t)pv->asking + 1);
    pv->c->dirty = true;
    if (pv->asking >= 0)
        return 0;
    view_status(pv->c, false, "Prediction kept. Starting: watch the figure it names.");
    return 1;
}

int predictview_key(struct predictview *pv, int key)
{
    if (!pv || pv->asking < 0)
        return -1;
    const struct lesson_predict *p = &pv->sc->predicts[pv->asking];
    struct prediction *a = &pv->answers[pv->asking];
    if (key == 27) {
        pv->asking = -1;
        pv->skipped = true;
        view_status(pv->c, false, "Predictions skipped; Enter on this step next time asks again.");
        pv->c->dirty = true;
        return 1;
    }
    pv->c->dirty = true;
    if (p->kind != LESSON_PREDICT_NUMBER) {
        for (size_t i = 0; i < p->nmodes; i++)
            if (pv->sc->modes[p->modes[i]].key == key) {
                a->given = true;
                a->mode = p->modes[i];
                return predictview_answered(pv);
            }
        view_status(pv->c, false, "Press the key of the mode you predict (Esc skips).");
        return 0;
    }
    if (key == '\r' || key == '\n' || key == KEY_ENTER) {
        pv->input[pv->ninput] = '\0';
        double x;
        char why[160];
        if (human_parse(pv->input, &x, why, sizeof why) < 0) {
            view_status(pv->c, true, "%s", why);
            return 0;
        }
        a->given = true;
        a->number = x;
        return predictview_answered(pv);
    }
    if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        pv->ninput -= pv->ninput > 0;
        return 0;
    }
    /* Digits and the units the screen writes figures in (16.5k, 4.07M, 64 KiB): human_parse
       judges the whole on Enter. */
    if (key > 0 && key < 128 && strchr("0123456789.ekKMGiB ", key) &&
        pv->ninput < sizeof pv->input - 1) {
        pv->input[pv->ninput++] = (char)key;
        return 0;
    }
    /* Everything else is swallowed while a number is typed: a stray n must not leave. */
    view_status(pv->c, false, "Type a number, Enter confirms it, Esc skips.");
    return 0;
}

bool predictview_draw_ask(struct predictview *pv, struct view_ctx *vc, struct layout_rect r)
{
    if (!pv || pv->asking < 0)
        return false;
    const struct screen_caps *c = vc->caps;
    const struct lesson_predict *p = &pv->sc->predicts[pv->asking];
    widgets_clear(r);
    struct layout_rect in = widgets_box(c, r, "Predict before you run", true);
    int x = in.x + 1, w = in.w - 2, y = in.y, end = in.y + in.h;
    widgets_printf(c, x, y++, w, screen_attr(SCREEN_HEADING) | A_BOLD, "Prediction %d of %zu",
                   pv->asking + 1, pv->sc->npredicts);
    widgets_para(vc->caps, x, &y, end, w, A_BOLD, p->question);
    y += y < end;
    if (p->kind == LESSON_PREDICT_NUMBER) {
        if (y < end)
            widgets_printf(c, x, y++, w, screen_attr(SCREEN_FOCUS), "Your prediction: %.*s_%s%s",
                           (int)pv->ninput, pv->input, p->unit ? " " : "", p->unit ? p->unit : "");
        y += y < end;
        widgets_para(vc->caps, x, &y, end, w, screen_attr(SCREEN_DIM),
                     "Type a number; Enter confirms it. It is judged against what this "
                     "machine measures.");
    } else {
        for (size_t i = 0; i < p->nmodes && y < end; i++) {
            const struct lesson_mode *m = &pv->sc->modes[p->modes[i]];
            char label[200];
            widgets_printf(c, x, y++, w, A_NORMAL, "%c  %s", m->key,
                           lesson_mode_label(m, label, sizeof label));
        }
        y += y < end;
        widgets_para(vc->caps, x, &y, end, w, screen_attr(SCREEN_DIM),
                     "Press the key of the mode you predict. It is judged when every mode "
                     "listed has run.");
    }
    widgets_para(vc->caps, x, &y, end, w, screen_attr(SCREEN_DIM),
                 "Esc skips the predictions and starts the scenario.");
    return true;
}

/* Three rows per prediction (the verdict wraps in a narrow text pane), and a heading. */
int predictview_foot_rows(const struct predictview *pv)
{
    return pv ? 1 + 3 * (int)pv->sc->npredicts : 0;
}

struct layout_rect predictview_draw_foot(struct predictview *pv, struct view_ctx *vc,
                                         struct layout_rect r, int others,
                                         const struct mode_span *modes, size_t nmodes)
{
    if (!pv)
        return r;
    /* The checks and outcomes above come first (they say what makes the step done); the
       predictions take what they leave, and at least their heading and one line. */
    int want = predictview_foot_rows(pv), share = r.h - others;
    if (share < 2)
        share = r.h < 2 ? r.h : 2;
    int h = want < share ? want : share;
    struct layout_rect left = {r.x, r.y, r.w, r.h - h};
    const struct screen_caps *c = vc->caps;
    int y = r.y + r.h - h, end = r.y + r.h;
    if (y < end)
        widgets_text(c, r.x, y++, r.w, A_BOLD, "Your predictions:");
    for (size_t i = 0; i < pv->sc->npredicts && y < end; i++) {
        const struct lesson_predict *p = &pv->sc->predicts[i];
        const struct prediction *a = &pv->answers[i];
        struct prediction_verdict v = prediction_judge(pv->sc, p, a, modes, nmodes);
        char msg[512];
        prediction_describe(pv->sc, p, a, &v, msg, sizeof msg);
        const char *mark = !a->given                   ? "-"
                           : v.state == EXPECT_AGREES  ? c->g->done
                           : v.state == EXPECT_DIFFERS ? c->g->todo
                                                       : "?";
        widgets_text(c, r.x, y, 2,
                     screen_attr(v.state == EXPECT_AGREES    ? SCREEN_GOOD
                                 : v.state == EXPECT_DIFFERS ? SCREEN_BAD
                                                             : SCREEN_DIM),
                     mark);
        int top = y, stop = y + 3 < end ? y + 3 : end;
        widgets_para(vc->caps, r.x + 2, &y, stop, r.w - 2, A_NORMAL, msg);
        y = y > top ? y : top + 1;
    }
    return left;
}

void predictview_sheet(const struct predictview *pv, struct widgets_sheet *s,
                       const struct screen_caps *c, const struct mode_span *modes, size_t nmodes)
{
    if (!pv)
        return;
    widgets_sheet_para(s, c, 0, NULL, 0, A_BOLD, "Your predictions:");
    for (size_t i = 0; i < pv->sc->npredicts; i++) {
        const struct lesson_predict *p = &pv->sc->predicts[i];
        const struct prediction *a = &pv->answers[i];
        struct prediction_verdict v = prediction_judge(pv->sc, p, a, modes, nmodes);
        char msg[512], head[640];
        prediction_describe(pv->sc, p, a, &v, msg, sizeof msg);
        const char *mark = !a->given                   ? "-"
                           : v.state == EXPECT_AGREES  ? c->g->done
                           : v.state == EXPECT_DIFFERS ? c->g->todo
                                                       : "?";
        attr_t ma = screen_attr(v.state == EXPECT_AGREES    ? SCREEN_GOOD
                                : v.state == EXPECT_DIFFERS ? SCREEN_BAD
                                                            : SCREEN_DIM);
        snprintf(head, sizeof head, "%zu. %s", i + 1, p->question ? p->question : "");
        widgets_sheet_para(s, c, 2, mark, ma, A_BOLD, head);
        widgets_sheet_para(s, c, 4, NULL, 0, A_NORMAL, msg);
        /* The explanation once this run judged it: before, it would give the answer away. */
        if (p->explanation && a->given && v.state != EXPECT_UNDECIDED)
            widgets_sheet_para(s, c, 4, NULL, 0, screen_attr(SCREEN_DIM), p->explanation);
    }
}

void predictview_update(struct predictview *pv, const struct mode_span *modes, size_t nmodes)
{
    if (!pv)
        return;
    bool changed = false;
    for (size_t i = 0; i < pv->sc->npredicts; i++) {
        if (!pv->answers[i].given)
            continue;
        struct prediction_verdict v =
            prediction_judge(pv->sc, &pv->sc->predicts[i], &pv->answers[i], modes, nmodes);
        if (v.state == EXPECT_UNDECIDED || v.state == pv->saved[i])
            continue;
        pv->saved[i] = v.state;
        pv->saved_measured[i] = v.measured;
        changed = true;
        const struct lesson_predict *p = &pv->sc->predicts[i];
        if (p->explanation)
            view_status(pv->c, v.state != EXPECT_AGREES, "Prediction %zu %s (a: whole): %s", i + 1,
                        v.state == EXPECT_AGREES ? "right" : "off", p->explanation);
    }
    if (changed)
        predictview_save(pv);
}
