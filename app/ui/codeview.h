/*
 * codeview: a program's source with, in the margin of each line that made counted calls, how
 * many since a base snapshot, how many a second lately, and which call (the program's call
 * sites, resolved to lines by metrics/siteline.c). The exercise's `L` shows the learner's files
 * (or the reference's, in the reference mode) with it, a run step's `L` the demo's.
 *
 * Lifecycle: codeview_open() names the files (or none: the files the sites name, busiest
 * first) and where their text comes from; codeview_update() takes the sites between two
 * snapshots of the program on every draw and resolves them at most once a second of the
 * snapshots' clock (a look-up opens the program's DWARF: a cold path, never per tick);
 * codeview_draw() draws the files over a rectangle; codeview_key() scrolls; codeview_close()
 * frees everything. A closed view takes no updates and costs nothing.
 *
 * The rate of a line is its count's growth between the last two look-ups over the snapshots'
 * time between them: "-" until there are two, and again after the base moves back (a new mode).
 */
#ifndef IOLAB_CODEVIEW_H
#define IOLAB_CODEVIEW_H

#include "layout.h"
#include "screen.h"

#include <stdbool.h>
#include <stddef.h>

struct tally_sites;

/* Where a file's text comes from: *text malloc'ed, 0 or a negative errno. `file` is the base
   name the line table gives ("echo-server.c"), `dwarf_path` the path it names ("" when the
   view's files were named at open). */
typedef int (*codeview_source_fn)(void *data, const char *file, const char *dwarf_path,
                                  char **text);

#define CODEVIEW_FILES 8 /* files shown at most */

struct codeview;

/* Opens a view titled `title` on files[0, n) (n 0: the files the sites name); NULL: no memory. */
struct codeview *codeview_open(const char *title, const char *const *files, size_t n,
                               codeview_source_fn source, void *data);
void codeview_close(struct codeview *cv);

/* The program's sites between a (NULL: its start) and b, as of the snapshots' clock t seconds.
   Re-resolved when a second of t has passed since the last look-up, or on the first call. */
void codeview_update(struct codeview *cv, const struct tally_sites *a, const struct tally_sites *b,
                     double t);

/* Draws the view in a box over r. */
void codeview_draw(struct codeview *cv, const struct screen_caps *c, struct layout_rect r);

/* j/k, the arrows, the page keys, g/G scroll: 0. Esc: 1 (the caller closes the view). Any
   other key: -1. */
int codeview_key(struct codeview *cv, int key);

#endif
