/*
 * footrows: how the text pane of a step is shared between the step's text (its task, for an
 * exercise) and the rows under it (the checks, the expected outcomes, a build's messages), and
 * which rows the checks get there. Pure arithmetic on row counts, no curses, so that it is
 * unit-tested on its own (tests/unit/test_footrows.cpp); the views wrap their text, count the
 * rows, and ask.
 *
 * The text: j moves it by a page less one row (the row kept is the context), so a text of N
 * rows shown R rows at a time passes by in (N - R) / (R - 1) presses (one of R may be the more
 * hint's, when it does not fit after the last word). Unless the rows under it
 * come first (a build error's messages, which the learner must read now), the text keeps the rows
 * that let it pass by in FOOTROWS_TEXT_PRESSES presses.
 *
 * The checks, in the order they are listed (failing, open, not judged, holding): each check
 * still to do (failing or open) is its name and its sentence wrapped under it; every failing
 * one is whole when they all fit, else the first ones whole and the rest as far as the room
 * goes, and every listed check keeps at least its name's row; among more checks than rows, the
 * first failing one keeps FOOTROWS_LEAD rows of its sentence before the others get a row. A check
 * not judged is one dim row and never folds into the holding row (when the room is short, the
 * checks not judged share one row of their own, after every sentence). Holding checks fold into one
 * row ("✓ 7 checks hold") unless the learner opened them, or nothing is left to do and they fit,
 * and then take a row each. When even one row each does not fit, the last rows give way to one row
 * that counts what is left out.
 */
#ifndef IOLAB_FOOTROWS_H
#define IOLAB_FOOTROWS_H

#include <stdbool.h>
#include <stddef.h>

#define FOOTROWS_TEXT_PRESSES 3
#define FOOTROWS_LEAD         3 /* rows of the first failing advice before the other checks */

/* Rows j moves a text by when shown rows of it are on screen: all but one, at least one. */
int footrows_page(int shown);

/* The rows a text of text_rows needs on screen to pass by in FOOTROWS_TEXT_PRESSES presses of j
   (all of it when it is shorter). */
int footrows_text_need(int text_rows);

/* The rows under the text in a pane of inner_h rows whose text wraps to text_rows rows, when
   the rows under it want `want`: all of them when both fit; else the text keeps
   footrows_text_need() rows (foot_first: two rows only) and the foot gets the rest, never less
   than its least (its heading and first check) while the pane has them. */
int footrows_split(int inner_h, int text_rows, int want, int least, bool foot_first);

/* Whether a "more" hint of hint_w columns fits after a last row of line_w columns in a row of w
   columns, one space between; else the hint takes a row of its own and the text one row less. */
bool footrows_more_fits(int line_w, int hint_w, int w);

enum footrows_state {
    FOOTROWS_FAIL,     /* decided, does not hold: name and advice */
    FOOTROWS_OPEN,     /* not decided yet: name and what it saw so far */
    FOOTROWS_UNJUDGED, /* never judged: one dim row, never folded */
    FOOTROWS_PASS,     /* decided, holds: folded into one row unless opened */
};

struct footrows_check {
    enum footrows_state state;
    int whole; /* rows it takes whole: its name and, still to do, its sentence; holding, its
                  name and figure wrapped (at least 1; a check not judged takes 1) */
    int rows;  /* out: the rows it gets; 0 when folded or left out */
};

struct footrows_plan {
    int rows;     /* every row the checks take, the heading included */
    bool fold;    /* the holding checks are one row ("✓ 7 checks hold"), on the first's */
    bool ufold;   /* the checks not judged are one row, on the first's (only when short of room) */
    size_t npass; /* how many hold */
    size_t left;  /* checks left out for lack of room, counted on a last row of their own */
    bool cut;     /* a sentence was cut short or left out: the whole is on the learner's key */
};

/* Plans n checks, in the order they are listed, in room rows (a heading row included) with the
   holding ones opened or not. Fills each check's rows and the plan. */
void footrows_checks(struct footrows_check *ck, size_t n, int room, bool open_passes,
                     struct footrows_plan *plan);

#endif
