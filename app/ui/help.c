/*
 * help: see help.h. A binding appears once per table, with its help line; bindings without one
 * (a second Enter, a plain alias) are aliases already named by another line.
 */
#include "help.h"

#include "layout.h"
#include "widgets.h"

#include <string.h>

void help_draw(const struct screen_caps *c, const struct keytable *const *tables, size_t ntables,
               char extra[][128], size_t nextra)
{
    int h = 4 + (int)nextra;
    for (size_t t = 0; t < ntables; t++) {
        h += 1;
        for (size_t i = 0; i < tables[t]->n; i++)
            h += tables[t]->v[i].help != NULL;
    }
    struct layout_rect r = layout_center(COLS, LINES, 76, h);
    widgets_clear(r);
    struct layout_rect in = widgets_box(c, r, "Keys (any key closes this help)", true);
    int y = in.y;
    for (size_t t = 0; t < ntables && y < in.y + in.h; t++) {
        widgets_text(c, in.x + 1, y++, in.w - 2, A_BOLD, tables[t]->title);
        for (size_t i = 0; i < tables[t]->n && y < in.y + in.h; i++) {
            const struct keybind *b = &tables[t]->v[i];
            if (!b->help)
                continue;
            widgets_text(c, in.x + 2, y, 11, screen_attr(SCREEN_HEADING), b->name);
            widgets_text(c, in.x + 14, y++, in.w - 15, A_NORMAL, b->help);
        }
    }
    /* The step's own lines: "KEY\tTEXT". */
    for (size_t i = 0; i < nextra && y < in.y + in.h; i++, y++) {
        char *tab = strchr(extra[i], '\t');
        if (tab)
            *tab = '\0';
        widgets_text(c, in.x + 2, y, 11, screen_attr(SCREEN_HEADING), extra[i]);
        widgets_text(c, in.x + 14, y, in.w - 15, A_NORMAL, tab ? tab + 1 : "");
    }
    if (y < in.y + in.h)
        widgets_text(c, in.x + 1, y++, in.w - 2, screen_attr(SCREEN_DIM),
                     "In a program pane that takes input, keys go to the program: Enter sends");
    if (y < in.y + in.h)
        widgets_text(c, in.x + 1, y++, in.w - 2, screen_attr(SCREEN_DIM),
                     "the line, Ctrl-D ends its input, Tab or Esc leaves. Mouse: click to select.");
}
