/*
 * layout: where every pane goes, as a pure function of the terminal size, the screen kind and
 * the number of program panes (the tmux layout.c idea, without a tree: iolab has three fixed
 * arrangements). No curses here, so the geometry is unit-tested on its own.
 *
 * Every screen has a title row at the top and a status row and a key footer at the bottom; the
 * body in between is split by kind:
 *   LAYOUT_START  list of lessons on the left, the selected lesson's summary on the right;
 *   LAYOUT_TEXT   the step's text across the whole body;
 *   LAYOUT_RUN    the step's text in a left column; on the right a row of program panes (one
 *                 per program, side by side) above the counters pane; when the programs do not
 *                 all fit at LAYOUT_MIN_PANE_W columns each (chat's server and six clients at 80
 *                 columns), the last pane is shared by the programs from it on (nfolded of them,
 *                 shown one at a time as tabs), so that every step is shown at 80x24;
 *   LAYOUT_RUN_VERDICT  the same with the text column at half the width (giving way only as far
 *                 as four program panes of 13 columns need; more share the last): an exercise
 *                 whose checks fail, whose sentences say what to do next and need the width even
 *                 at 80 columns.
 * Only the terminal's size decides too_small (LAYOUT_MIN_COLS x LAYOUT_MIN_ROWS), never the
 * number of programs. Invariants when too_small is false: every rectangle lies inside the screen,
 * the body's panes do not overlap and together cover the body exactly, and no pane is narrower than
 * LAYOUT_MIN_PANE_W columns or shorter than 3 rows (a border and one line).
 */
#ifndef IOLAB_LAYOUT_H
#define IOLAB_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>

#define LAYOUT_MIN_COLS   80 /* below this, or LAYOUT_MIN_ROWS, "enlarge the terminal" */
#define LAYOUT_MIN_ROWS   24
#define LAYOUT_MIN_PANE_W 12
#define LAYOUT_MIN_TEXT_W 28 /* the text column's narrowest, beside program panes */
#define LAYOUT_MAX_PROGS  8

enum layout_kind {
    LAYOUT_START,
    LAYOUT_TEXT,
    LAYOUT_RUN,
    LAYOUT_RUN_VERDICT,
};

struct layout_rect {
    int x, y, w, h;
};

struct layout {
    bool too_small; /* the terminal is below the minimum: only the message is drawn */
    int cols, rows;
    struct layout_rect title, body, status, footer;
    struct layout_rect list, detail;            /* LAYOUT_START */
    struct layout_rect text;                    /* LAYOUT_TEXT and both LAYOUT_RUN kinds */
    struct layout_rect counters;                /* both LAYOUT_RUN kinds */
    struct layout_rect progs[LAYOUT_MAX_PROGS]; /* both LAYOUT_RUN kinds, nprogs of them */
    size_t nprogs;  /* program panes: pane i shows program i, but for a folded last pane */
    size_t nfolded; /* 0, or the programs (from nprogs - 1 on, at least 2) the last pane holds */
};

/* Computes the layout for nprogs programs; 0, or -EINVAL for a bad kind or more than
   LAYOUT_MAX_PROGS programs. */
int layout_compute(enum layout_kind kind, int cols, int rows, size_t nprogs, struct layout *out);

/* A w x h box centred in the screen, shrunk to fit it (help overlay, dialogs). */
struct layout_rect layout_center(int cols, int rows, int w, int h);

/* The pane that shows program prog (a folded one shares the last), or nprogs when none does. */
size_t layout_pane_of(const struct layout *l, size_t prog);

/* Whether the point is inside the rectangle (mouse clicks). */
bool layout_contains(struct layout_rect r, int x, int y);

#endif
