/*
 * lessonview: the lesson screen (see lessonview.c). The TUI owns one and opens steps in it.
 */
#ifndef IOLAB_LESSONVIEW_H
#define IOLAB_LESSONVIEW_H

#include "keys.h"
#include "view.h"

struct lessonview;

extern const struct view_ops lessonview_ops;
extern const struct keytable lessonview_keys;

struct lessonview *lessonview_new(void);
void lessonview_free(struct lessonview *v, struct view_ctx *c);

/* Opens a step (closing the one open before). 0, or -1 for an index out of range. */
int lessonview_open(struct lessonview *v, struct view_ctx *c, const struct lesson_pack *pack,
                    size_t lesson, size_t step);

/* The pack and lesson of the step open last (NULL before the first). */
const struct lesson_pack *lessonview_place(const struct lessonview *v, size_t *lesson);

/* Footer entries and help lines the open step adds (its modes). */
size_t lessonview_footer_extra(struct lessonview *v, int width, struct keys_item *out, size_t max);
size_t lessonview_help_extra(struct lessonview *v, char lines[][128], size_t max);

#endif
