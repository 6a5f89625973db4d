/*
 * stepview_text: the view of a text step. The lesson screen draws its text; the view has no
 * state, no panes and no keys of its own. It is done once read: when the learner moves on.
 */
#include "stepview.h"

static void *stepview_text_open(const struct stepview_env *env, struct view_ctx *c)
{
    (void)env;
    (void)c;
    /* Any non-NULL pointer: the view keeps nothing. */
    static char nothing;
    return &nothing;
}

static void stepview_text_close(void *self, struct view_ctx *c)
{
    (void)self;
    (void)c;
}

static enum layout_kind stepview_text_layout(void *self, size_t *nprogs)
{
    (void)self;
    *nprogs = 0;
    return LAYOUT_TEXT;
}

const struct stepview_kind stepview_text = {
    .name = "text",
    .open = stepview_text_open,
    .close = stepview_text_close,
    .layout = stepview_text_layout,
    .done_when_read = true,
    .open_hint = "n: next step, p: previous, h: back to the lessons.",
};
