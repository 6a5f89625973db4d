/*
 * stepview: the UI's half of a step kind's row (the model's half is lesson/kind.h, found by the
 * same name). A kind's view owns whatever the step needs while it is open (a run step: its
 * engine, its latest snapshot, its grader), lays out its panes, draws them, has its own key
 * table, and says what "done" means for it. The lesson screen (lessonview.c) draws what every
 * step has (title, text) and hands the rest to the view; it never asks which kind a step is.
 *
 * Built-in views are the table in stepview.c; stepview_register() adds one before the TUI
 * starts (a test's kind, for example). A new kind is new files plus a row on each side.
 */
#ifndef IOLAB_STEPVIEW_H
#define IOLAB_STEPVIEW_H

#include "keys.h"
#include "view.h"

#define STEPVIEW_MAX      16
#define LESSON_KIND_MODES 16 /* mode keys a view lists in the footer */

/* What a kind's view is told about the step it shows. */
struct judge;
struct stepview_env {
    const struct lesson_pack *pack;
    const struct lesson *lesson;
    const struct lesson_step *step;
    bool done; /* the step was already done when it was opened (progress) */
    /* A run view tells judged(judged_data, its judge) once each time a run is judged (every
       check decided, or the run ended and decided the rest): an exercise's view keeps the score
       in the learner's progress. NULL: nobody asks. */
    void (*judged)(void *data, const struct judge *j);
    void *judged_data;
};

struct stepview_kind {
    const char *name; /* the lesson kind's name: "text", "run" */
    /* Opens the step: the view's state, or NULL when out of memory (the screen then shows the
       text only). */
    void *(*open)(const struct stepview_env *env, struct view_ctx *c);
    void (*close)(void *self, struct view_ctx *c); /* stops whatever runs, frees the state */
    /* The layout the step needs, and how many program panes. */
    enum layout_kind (*layout)(void *self, size_t *nprogs);
    /* Rows the view wants at the bottom of the text pane (for its checks), given its inner
       height; the view draws them in draw_text_foot. NULL: none. */
    int (*text_foot_rows)(void *self, int inner_h);
    void (*draw_text_foot)(void *self, struct view_ctx *c, struct layout_rect r);
    /* The step's text keeps the rows it needs to pass by in three presses of j, whatever the
       rows under it want (an exercise's task: footrows.h), unless foot_first says the rows
       under it come first now (a build error's messages, a sanitizer's report): then it returns
       the hint that stands for the rest of the text, which says what j scrolls ("(more: j)",
       or the errors when they take the text's scrolling keys); NULL otherwise. */
    bool text_room;
    const char *(*foot_first)(void *self);
    /* Draws the panes beyond the text (programs, counters). NULL: none. */
    void (*draw)(void *self, struct view_ctx *c);
    /* Text for the right end of the title bar (state, mode, sandbox); NULL: none. */
    void (*title_right)(void *self, char *buf, size_t len);
    /* Keys the view handles before its table: typing into a program, its mode keys. 0 taken. */
    int (*key)(void *self, struct view_ctx *c, int key);
    const struct keytable *keys; /* the view's key table; NULL: none */
    /* Dynamic footer entries (a run step's modes), for a footer width columns wide; returns how
       many were written. */
    size_t (*footer)(void *self, int width, struct keys_item *out, size_t max);
    /* Help lines the table cannot hold (the lesson's mode keys); returns how many. */
    size_t (*help)(void *self, char lines[][128], size_t max);
    void (*click)(void *self, struct view_ctx *c, int x, int y);
    /* What "done" means: true once the step is done. done_when_read: the learner moving on
       with `n` is what makes it done (a text step). */
    bool (*done)(void *self);
    bool done_when_read;
    /* Something runs that leaving the step would stop. NULL: never. */
    bool (*busy)(void *self);
    /* The text pane has the focus (drawn highlighted). NULL: always. */
    bool (*text_focused)(void *self);
    /* Scrolls the rows under the text by a page (dir 1: down, -1: up) when they do not fit
       there (checks whose advice is longer than their rows): j does once the text has passed
       by, k before it moves the text back. 0 when they moved; -1 when there is nothing that
       way. NULL: they never scroll. */
    int (*foot_scroll)(void *self, int dir);
    const char *open_hint; /* the status line when the step opens */
};

/* Adds a view. 0; -EEXIST when its name is taken; -ENOSPC past STEPVIEW_MAX. */
int stepview_register(const struct stepview_kind *kind);

/* The i-th view (built-in ones first), or NULL past the last. */
const struct stepview_kind *stepview_at(size_t i);

/* The view of the kind with this name, or NULL. */
const struct stepview_kind *stepview_find(const char *name);

extern const struct stepview_kind stepview_text;
extern const struct stepview_kind stepview_run;
/* The sanitizer's report of a run view's programs so far (its grader's, grade_sanitizer_report()),
   or NULL: an exercise's view shows it under the checks. self is what stepview_run.open returned.
 */
/* The rows a run step's checks (and expectations, predictions) take under the text when given at
   most room rows: all failing sentences when they fit, else the first failing one's. */
int stepview_run_foot_rows_in(void *rv, int room);
/* A run view's foot_scroll, for an exercise's view whose checks are the run's. */
int stepview_run_foot_scroll(void *self, int dir);
const char *stepview_run_sanitizer_report(void *self);
/* A run view's grader (the exercise's code view reads the call sites it keeps). */
struct grader;
const struct grader *stepview_run_grader(void *self);
/* The call sites of a run view's program prog since its mode began (a; NULL: since its start)
   and as of its latest snapshot (b), at that snapshot's clock t: false before a snapshot. */
struct tally_sites;
/* The mode of a run view's latest snapshot (-1: none yet). */
int stepview_run_mode(void *self);
bool stepview_run_sites(void *self, size_t prog, const struct tally_sites **a,
                        const struct tally_sites **b, double *t);
extern const struct stepview_kind stepview_exercise;
extern const struct stepview_kind stepview_quiz;

#endif
