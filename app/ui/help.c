/*
 * help: the overlay listing every key, generated from tui_keys[] and the step's mode keys, so
 * that it cannot drift from what the keys do.
 */
#include "tui.h"
#include "widgets.h"

void help_draw(struct tui *t)
{
    const struct screen_caps *c = &t->caps;
    const struct lesson_step *st = t->screen == TUI_LESSON ? tui_step(t) : NULL;
    size_t nmodes = st && st->run ? st->run->nmodes : 0;
    int h = (int)(tui_nkeys + nmodes) + 6;
    struct layout_rect r = layout_center(COLS, LINES, 76, h);
    widgets_clear(r);
    struct layout_rect in = widgets_box(c, r, "Keys (any key closes this help)", true);
    int y = in.y;
    for (size_t i = 0; i < tui_nkeys && y < in.y + in.h; i++, y++) {
        widgets_text(c, in.x + 1, y, 10, screen_attr(SCREEN_HEADING), tui_keys[i].name);
        widgets_text(c, in.x + 12, y, in.w - 13, A_NORMAL, tui_keys[i].help);
    }
    for (size_t i = 0; i < nmodes && y < in.y + in.h; i++, y++) {
        const struct lesson_mode *m = &st->run->modes[i];
        char k[2] = {m->key, 0};
        widgets_text(c, in.x + 1, y, 10, screen_attr(SCREEN_HEADING), k);
        widgets_printf(c, in.x + 12, y, in.w - 13, A_NORMAL, "mode %s: %s", m->id,
                       m->title ? m->title : "");
    }
    y++;
    widgets_text(c, in.x + 1, y++, in.w - 2, screen_attr(SCREEN_DIM),
                 "In a program pane that takes input, keys go to the program: Enter sends");
    widgets_text(c, in.x + 1, y++, in.w - 2, screen_attr(SCREEN_DIM),
                 "the line, Ctrl-D ends its input, Tab or Esc leaves. Mouse: click to select.");
}
