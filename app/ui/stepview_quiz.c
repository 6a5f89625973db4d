/*
 * stepview_quiz: the view of a quiz step (lesson/quiz.h). One question is shown at a time under
 * the step's short introduction: its answers numbered 1-9, the learner's choice marked, and
 * after Enter a clear mark for right or wrong with the feedback of every chosen answer (a wrong
 * answer's feedback explains the misconception it stands for) or, once right, the question's
 * explanation. A wrong check is never final: the learner changes the choice and checks again.
 * Several answers may be correct: then the digits toggle, and the choice is right when it is
 * exactly the correct set.
 *
 * Progress keeps, per question, the last choice checked, the number of tries and whether it was
 * answered right (the record "quiz", typed in lesson/record.h, which also writes its JSON),
 * saved at every check, so a restart shows the quiz as it was left. The step is done when every
 * question has been answered right.
 */
#include "lesson/quiz.h"
#include "lesson/record.h"
#include "stepview.h"
#include "widgets.h"
#include "wrap.h"

#include <stdlib.h>
#include <string.h>

/* What the learner did with one question. */
struct stepview_quiz_q {
    unsigned chosen;  /* bit k: answer k is chosen now */
    unsigned checked; /* the choice of the last check (what the marks and feedback show) */
    bool has_checked; /* a check was made since the question was shown or loaded */
    unsigned tries;   /* checks made, over every session */
    bool right;       /* answered right (stays so) */
};

struct quizview {
    struct stepview_env env;
    const struct lesson_quiz *quiz;
    struct view_ctx *c;
    size_t cur; /* the question shown */
    struct stepview_quiz_q *q;
    /* Where each answer of the current question was drawn, for clicks. */
    int answer_y[QUIZ_MAX_ANSWERS], answer_h[QUIZ_MAX_ANSWERS];
};

static const struct lesson_question *stepview_quiz_question(const struct quizview *v)
{
    return &v->quiz->questions[v->cur];
}

static unsigned stepview_quiz_correct_set(const struct lesson_question *q)
{
    unsigned set = 0;
    for (size_t k = 0; k < q->nanswers; k++)
        if (q->answers[k].correct)
            set |= 1u << k;
    return set;
}

/* ---- progress ---- */

static void stepview_quiz_load(struct quizview *v)
{
    const struct lesson_step *st = v->env.step;
    const char *json = v->c->progress
                           ? progress_field_get(v->c->progress, v->env.pack->id, v->env.lesson->id,
                                                st->id, QUIZ_RECORD_FIELD)
                           : NULL;
    struct quiz_record rec;
    char why[160];
    /* A record that is not a quiz's is as good as none: the learner starts the quiz afresh. */
    if (quiz_record_parse(json, &rec, why, sizeof why) < 0)
        return;
    for (size_t i = 0; i < rec.nquestions && i < v->quiz->nquestions; i++) {
        struct stepview_quiz_q *q = &v->q[i];
        const struct lesson_question *lq = &v->quiz->questions[i];
        q->tries = rec.questions[i].tries;
        q->chosen = rec.questions[i].chosen & ((1u << lq->nanswers) - 1);
        /* Right only when it still is: an author may have changed the answers since. */
        q->right = rec.questions[i].right && q->chosen == stepview_quiz_correct_set(lq);
        q->checked = q->chosen;
        q->has_checked = q->tries > 0;
    }
    quiz_record_free(&rec);
}

static void stepview_quiz_save(struct quizview *v)
{
    if (!v->c->progress)
        return;
    struct quiz_record rec = {.questions = calloc(v->quiz->nquestions, sizeof *rec.questions),
                              .nquestions = v->quiz->nquestions};
    for (size_t i = 0; rec.questions && i < v->quiz->nquestions; i++)
        rec.questions[i] = (struct quiz_record_answer){
            .chosen = v->q[i].checked, .tries = v->q[i].tries, .right = v->q[i].right};
    /* The best score reached so far stays in the record: an answer changed for the worse later
       does not lower it (record.h). */
    struct quiz_record old;
    char why[160];
    if (quiz_record_parse(progress_field_get(v->c->progress, v->env.pack->id, v->env.lesson->id,
                                             v->env.step->id, QUIZ_RECORD_FIELD),
                          &old, why, sizeof why) == 0) {
        rec.best = old.best;
        quiz_record_free(&old);
    }
    char *json = rec.questions ? quiz_record_write(&rec) : NULL;
    quiz_record_free(&rec);
    int rc = json ? progress_field_set(v->c->progress, v->env.pack->id, v->env.lesson->id,
                                       v->env.step->id, QUIZ_RECORD_FIELD, json)
                  : -1;
    free(json);
    if (rc == 0) /* exports name the version the answers were given with */
        rc = progress_set_version(v->c->progress, v->env.pack->id, v->env.pack->version);
    if (rc < 0)
        view_status(v->c, true, "Your answer could not be kept in the progress store.");
    else
        view_save_progress(v->c);
}

/* ---- the row's functions ---- */

static void *stepview_quiz_open(const struct stepview_env *env, struct view_ctx *c)
{
    const struct lesson_quiz *quiz = lesson_step_quiz(env->step);
    if (!quiz || !quiz->nquestions)
        return NULL;
    struct quizview *v = calloc(1, sizeof *v);
    if (!v || !(v->q = calloc(quiz->nquestions, sizeof *v->q))) {
        free(v);
        return NULL;
    }
    v->env = *env;
    v->quiz = quiz;
    v->c = c;
    stepview_quiz_load(v);
    /* Open on the first question not answered right yet. */
    while (v->cur + 1 < quiz->nquestions && v->q[v->cur].right)
        v->cur++;
    return v;
}

static void stepview_quiz_close(void *self, struct view_ctx *c)
{
    struct quizview *v = self;
    (void)c;
    free(v->q);
    free(v);
}

static enum layout_kind stepview_quiz_layout(void *self, size_t *nprogs)
{
    (void)self;
    *nprogs = 0;
    return LAYOUT_TEXT;
}

static bool stepview_quiz_done(void *self)
{
    struct quizview *v = self;
    for (size_t i = 0; i < v->quiz->nquestions; i++)
        if (!v->q[i].right)
            return false;
    return true;
}

/* ---- keys ---- */

static void stepview_quiz_choose(struct quizview *v, size_t k)
{
    const struct lesson_question *lq = stepview_quiz_question(v);
    struct stepview_quiz_q *q = &v->q[v->cur];
    if (k >= lq->nanswers)
        return;
    if (lq->ncorrect > 1)
        q->chosen ^= 1u << k; /* several answers: each is toggled */
    else
        q->chosen = 1u << k;
    v->c->dirty = true;
    view_status(v->c, false, "Enter checks your choice.");
}

static int stepview_quiz_check(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct quizview *v = self;
    (void)key;
    (void)act;
    const struct lesson_question *lq = stepview_quiz_question(v);
    struct stepview_quiz_q *q = &v->q[v->cur];
    if (!q->chosen) {
        view_status(c, false, "Choose an answer first (1-%zu or a click).", lq->nanswers);
        return 0;
    }
    q->checked = q->chosen;
    q->has_checked = true;
    q->tries++;
    bool right = q->chosen == stepview_quiz_correct_set(lq);
    q->right = q->right || right;
    stepview_quiz_save(v);
    if (right && v->cur + 1 < v->quiz->nquestions)
        view_status(c, false, "Right %s  Tab: the next question.", c->caps->g->done);
    else if (right)
        view_status(c, false, "Right %s", c->caps->g->done);
    else
        view_status(c, true, "Not yet %s  Read why, change your choice and press Enter again.",
                    c->caps->g->todo);
    c->dirty = true;
    return 0;
}

static int stepview_quiz_move(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct quizview *v = self;
    (void)act;
    size_t n = v->quiz->nquestions;
    if (n == 1) {
        view_status(c, false, "This quiz has one question.");
        return 0;
    }
    v->cur = key == KEY_BTAB ? (v->cur + n - 1) % n : (v->cur + 1) % n;
    view_status(c, false, "Question %zu of %zu.", v->cur + 1, n);
    c->dirty = true;
    return 0;
}

/* The digits choose answers; everything else goes to the table and the lesson. */
static int stepview_quiz_key(void *self, struct view_ctx *c, int key)
{
    struct quizview *v = self;
    (void)c;
    if (key >= '1' && key <= '9') {
        stepview_quiz_choose(v, (size_t)(key - '1'));
        return 0;
    }
    return -1;
}

static const struct keybind stepview_quiz_bindings[] = {
    {.key = '1',
     .name = "1-9",
     .label = "choose",
     .help = "choose that answer (a click too); with several right answers, toggle it",
     .priority = 90},
    {.key = '\r',
     .alt = KEY_ENTER,
     .name = "Enter",
     .label = "check",
     .help = "check your choice; when it is wrong, change it and check again",
     .priority = 88,
     .fn = stepview_quiz_check},
    {.key = '\n', .name = "Enter", .fn = stepview_quiz_check},
    {.key = '\t',
     .alt = KEY_BTAB,
     .name = "Tab",
     .label = "question",
     .help = "the next question (Shift-Tab: the previous one)",
     .priority = 60,
     .fn = stepview_quiz_move},
};
static const struct keytable stepview_quiz_keys = KEYTABLE("Quiz", stepview_quiz_bindings);

static void stepview_quiz_click(void *self, struct view_ctx *c, int x, int y)
{
    struct quizview *v = self;
    (void)c;
    (void)x;
    const struct lesson_question *lq = stepview_quiz_question(v);
    for (size_t k = 0; k < lq->nanswers; k++)
        if (v->answer_h[k] > 0 && y >= v->answer_y[k] && y < v->answer_y[k] + v->answer_h[k])
            stepview_quiz_choose(v, k);
}

/* ---- drawing ---- */

/* The quiz takes the text pane but a few rows for the introduction above it. */
static int stepview_quiz_text_foot_rows(void *self, int inner_h)
{
    (void)self;
    int intro = inner_h / 4 > 4 ? inner_h / 4 : 4;
    return inner_h - intro > 6 ? inner_h - intro : inner_h / 2;
}

static void stepview_quiz_draw_text_foot(void *self, struct view_ctx *vc, struct layout_rect r)
{
    struct quizview *v = self;
    const struct screen_caps *c = vc->caps;
    const struct lesson_question *lq = stepview_quiz_question(v);
    const struct stepview_quiz_q *q = &v->q[v->cur];
    int y = r.y, end = r.y + r.h;
    for (int row = r.y; row < end; row++)
        mvhline(row, r.x, ' ', r.w);
    char head[160];
    snprintf(head, sizeof head, "Question %zu of %zu%s", v->cur + 1, v->quiz->nquestions,
             lq->ncorrect > 1 ? "  (several answers are right: choose them all)" : "");
    widgets_text(c, r.x, y, r.w, screen_attr(SCREEN_HEADING) | A_BOLD, head);
    if (q->tries) {
        char tries[64];
        snprintf(tries, sizeof tries, "%s%s %u tr%s", q->right ? "answered right " : "",
                 q->right ? c->g->done : "", q->tries, q->tries == 1 ? "y" : "ies");
        int tw = (int)strlen(tries);
        if (tw < r.w / 2)
            widgets_text(c, r.x + r.w - tw, y, tw, screen_attr(q->right ? SCREEN_GOOD : SCREEN_DIM),
                         tries);
    }
    y++;
    widgets_para(vc->caps, r.x, &y, end, r.w, A_BOLD, lq->question);
    y += y < end;
    bool shown = q->has_checked;
    for (size_t k = 0; k < lq->nanswers; k++) {
        const struct lesson_answer *a = &lq->answers[k];
        bool chosen = q->chosen & (1u << k);
        bool checked = shown && (q->checked & (1u << k)) && q->checked == q->chosen;
        /* [x] for a choice among several, (*) for a single one. */
        char box[8];
        snprintf(box, sizeof box, lq->ncorrect > 1 ? "[%c]" : "(%c)", chosen ? '*' : ' ');
        v->answer_y[k] = y;
        if (y >= end) {
            v->answer_h[k] = 0;
            continue;
        }
        if (checked)
            widgets_text(c, r.x, y, 1, screen_attr(a->correct ? SCREEN_GOOD : SCREEN_BAD),
                         a->correct ? c->g->done : c->g->todo);
        widgets_printf(c, r.x + 2, y, 6, chosen ? A_BOLD : A_NORMAL, "%zu %s", k + 1, box);
        v->answer_h[k] =
            widgets_para(vc->caps, r.x + 8, &y, end, r.w - 8, chosen ? A_BOLD : A_NORMAL, a->text);
    }
    if (!shown || q->checked != q->chosen || y + 1 >= end)
        return;
    /* The verdict of the last check, while the choice is still the one checked. */
    y++;
    unsigned correct = stepview_quiz_correct_set(lq);
    bool right = q->checked == correct;
    widgets_text(c, r.x, y, r.w, screen_attr(right ? SCREEN_GOOD : SCREEN_BAD) | A_BOLD,
                 right ? "Right." : "Not yet: change your choice and press Enter again.");
    y++;
    for (size_t k = 0; k < lq->nanswers && y < end; k++) {
        const struct lesson_answer *a = &lq->answers[k];
        if (!(q->checked & (1u << k)) || !a->feedback || (right && !a->correct))
            continue;
        char line[2048];
        snprintf(line, sizeof line, "%zu: %s", k + 1, a->feedback);
        widgets_para(vc->caps, r.x + 2, &y, end, r.w - 2,
                     screen_attr(a->correct ? SCREEN_NORMAL : SCREEN_BAD), line);
    }
    if (!right && !(q->checked & ~correct) && y < end) {
        /* Only right answers chosen, but not all of them. */
        unsigned missing = (unsigned)__builtin_popcount(correct & ~q->checked);
        char line[160];
        snprintf(line, sizeof line, "What you chose is right, but %u more answer%s right as well.",
                 missing, missing == 1 ? " is" : "s are");
        widgets_para(vc->caps, r.x + 2, &y, end, r.w - 2, screen_attr(SCREEN_BAD), line);
    }
    if (right && y < end)
        widgets_para(vc->caps, r.x, &y, end, r.w, A_NORMAL, lq->explanation);
}

static void stepview_quiz_title_right(void *self, char *buf, size_t len)
{
    struct quizview *v = self;
    size_t right = 0;
    for (size_t i = 0; i < v->quiz->nquestions; i++)
        right += v->q[i].right;
    snprintf(buf, len, "%zu of %zu right ", right, v->quiz->nquestions);
}

const struct stepview_kind stepview_quiz = {
    .name = "quiz",
    .open = stepview_quiz_open,
    .close = stepview_quiz_close,
    .layout = stepview_quiz_layout,
    .text_foot_rows = stepview_quiz_text_foot_rows,
    .draw_text_foot = stepview_quiz_draw_text_foot,
    .title_right = stepview_quiz_title_right,
    .key = stepview_quiz_key,
    .keys = &stepview_quiz_keys,
    .click = stepview_quiz_click,
    .done = stepview_quiz_done,
    .open_hint = "1-9 choose an answer, Enter checks it; ? lists every key.",
};
