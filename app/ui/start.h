/*
 * start: the start screen (see start.c): the packs' lessons and "continue where I left off".
 */
#ifndef IOLAB_START_H
#define IOLAB_START_H

#include "keys.h"
#include "view.h"

struct startview;

extern const struct view_ops start_ops;
extern const struct keytable start_keys;

/* The screen over the pack iolab opened and the installed ones listed after it. */
struct startview *start_new(const struct lesson_pack *primary,
                            const struct lesson_pack *const *extra, size_t nextra,
                            struct progress *progress);
void start_free(struct startview *t);

/* Puts the list's cursor on a lesson (the one just left); a lesson not listed leaves it. */
void start_select(struct startview *t, const struct lesson_pack *pack, size_t lesson);

#endif
