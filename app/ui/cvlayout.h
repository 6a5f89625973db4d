/*
 * cvlayout: the choices behind the counters pane and the comparison that depend only on numbers
 * (which calls come first, how many fit, how wide each column is), kept apart from the drawing
 * in counterview.c so that they are unit-tested without curses. Nothing here reads a snapshot.
 */
#ifndef IOLAB_CVLAYOUT_H
#define IOLAB_CVLAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The order a role's calls are listed in: the calls of watch (the ones the step is about) that
 * the role made, in watch's order, then every other call it made, the busiest (by rate, then
 * count) first. A call with count 0 is never listed. Writes the call ids to out (room for
 * ncalls) and how many of them are watched ones to *nwatched; returns how many there are.
 */
size_t cvlayout_order(const uint64_t *count, const double *rate, size_t ncalls,
                      const unsigned *watch, size_t nwatch, unsigned *out, size_t *nwatched);

/*
 * How many of n items of widths w[] fit, in order, on `lines` lines of linew columns, with gap
 * columns between two items on a line; an item is never split, and one wider than a line takes
 * a line of its own (cut when drawn).
 */
size_t cvlayout_pack(const int *w, size_t n, int linew, int gap, int lines);

/* The rows the first n items of w[] take when packed like that (0 for none). */
int cvlayout_pack_rows(const int *w, size_t n, int linew, int gap);

/*
 * The comparison's columns in w columns: the mode names' column (name_need: the longest name
 * and its mark) and ncols figure columns, each as wide as its widest value or header plus a
 * space. The headers are full (full[k] columns each) when they fit beside whole names, else
 * short (brief[k]). Room left over widens the figures' columns (longer bars); when even short
 * headers leave too little, the names are cut. Returns whether the short headers are used.
 */
bool cvlayout_compare_cols(int w, int name_need, const int *value_w, const int *full,
                           const int *brief, int ncols, int *namew, int *colw);

/*
 * Rows per mode in avail rows for n modes: 3 (figures, bars, a blank row) when all fit so, else
 * 2 (figures, bars), else 1 (figures only).
 */
int cvlayout_compare_rows(int avail, int n);

/*
 * Which of n rows to show when only fit do, in order: the first ones, and the row of the mode
 * running now (now, or -1) in place of the last of them when it would not be shown. Writes
 * their indices to out; returns how many.
 */
size_t cvlayout_compare_pick(size_t n, size_t fit, int now, size_t *out);

#endif
