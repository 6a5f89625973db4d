/*
 * help: the `?` overlay, generated from the key tables in force and the lines a step adds (its
 * mode keys), so that it cannot drift from what the keys do.
 */
#ifndef IOLAB_HELP_H
#define IOLAB_HELP_H

#include "keys.h"
#include "screen.h"

#include <stddef.h>

void help_draw(const struct screen_caps *c, const struct keytable *const *tables, size_t ntables,
               char extra[][128], size_t nextra);

#endif
