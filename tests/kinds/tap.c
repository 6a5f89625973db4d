/*
 * tap: a step kind that exists only in the tests, to show that a kind is new files plus a row
 * on each side and nothing else: a "tap" step shows its text and one line under it, and is done
 * once the learner presses t. This file registers both halves (lesson/kind.h, ui/stepview.h)
 * and then runs iolab's own command line; no file of iolab knows of it.
 */
#include "cmd.h"
#include "lesson/kind.h"
#include "ui/stepview.h"
#include "ui/widgets.h"

#include <stdio.h>
#include <stdlib.h>

static const struct lesson_kind tap_kind = {.name = "tap"};

struct tap {
    bool tapped;
};

static void *tap_open(const struct stepview_env *env, struct view_ctx *c)
{
    (void)env;
    (void)c;
    return calloc(1, sizeof(struct tap));
}

static void tap_close(void *self, struct view_ctx *c)
{
    (void)c;
    free(self);
}

static enum layout_kind tap_layout(void *self, size_t *nprogs)
{
    (void)self;
    *nprogs = 0;
    return LAYOUT_TEXT;
}

static int tap_foot_rows(void *self, int inner_h)
{
    (void)self;
    return inner_h > 2 ? 1 : 0;
}

static void tap_draw_foot(void *self, struct view_ctx *c, struct layout_rect r)
{
    struct tap *t = self;
    widgets_text(c->caps, r.x, r.y, r.w, A_BOLD, t->tapped ? "Tapped." : "Press t to tap.");
}

static int tap_key_t(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct tap *t = self;
    (void)key;
    (void)act;
    t->tapped = true;
    c->dirty = true;
    return 0;
}

static bool tap_done(void *self)
{
    return ((struct tap *)self)->tapped;
}

static const struct keybind tap_bindings[] = {
    {.key = 't', .name = "t", .label = "tap", .help = "tap", .priority = 97, .fn = tap_key_t},
};
static const struct keytable tap_keys = KEYTABLE("Tap step", tap_bindings);

static const struct stepview_kind tap_view = {
    .name = "tap",
    .open = tap_open,
    .close = tap_close,
    .layout = tap_layout,
    .text_foot_rows = tap_foot_rows,
    .draw_text_foot = tap_draw_foot,
    .keys = &tap_keys,
    .done = tap_done,
    .open_hint = "Press t to tap.",
};

int main(int argc, char **argv)
{
    if (lesson_kind_register(&tap_kind) < 0 || stepview_register(&tap_view) < 0) {
        fputs("iolab-tap: cannot register the tap kind\n", stderr);
        return 1;
    }
    return cli_main(argc, argv);
}
