/*
 * help: the `?` overlay, generated from the key tables in force and the lines a step adds (its
 * mode keys), so that it cannot drift from what the keys do.
 */
#ifndef IOLAB_HELP_H
#define IOLAB_HELP_H

#include "keys.h"
#include "screen.h"

#include <stdbool.h>
#include <stddef.h>

/* Draws the help from its row *top on (clamped to what there is), in a box that fits the
   terminal; its title says which rows show when they do not all fit. Returns whether they do
   not (the help then scrolls). */
bool help_draw(const struct screen_caps *c, const struct keytable *const *tables, size_t ntables,
               char extra[][128], size_t nextra, int *top);

/* How far a key scrolls the help (j/k, arrows, space and pages, g/G, Home/End), in rows; 0 for a
   key that does not scroll (it closes the help). page is the rows one screen holds. */
int help_scroll(int key, int page);

#endif
