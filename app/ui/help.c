/*
 * help: see help.h. A binding appears once per table, with its help line; bindings without one
 * (a second Enter, a plain alias) are aliases already named by another line.
 */
#include "help.h"

#include "layout.h"
#include "widgets.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The help's width: 76 columns fit an 80-column terminal; a wide one gets room for long lines. */
static int help_width(void)
{
    return COLS >= 124 ? 116 : 76;
}

/*
 * Draws (or, with draw false, only counts) the help's lines inside `in`, starting at y; returns
 * the rows they take. Long lines wrap under their text rather than lose their end.
 */
static int help_lines(const struct screen_caps *c, struct layout_rect in, bool draw,
                      const struct keytable *const *tables, size_t ntables, char extra[][128],
                      size_t nextra)
{
    int y = in.y, end = draw ? in.y + in.h : INT_MAX, tw = in.w - 15;
    for (size_t t = 0; t < ntables && y < end; t++) {
        if (draw)
            widgets_text(c, in.x + 1, y, in.w - 2, A_BOLD, tables[t]->title);
        y++;
        for (size_t i = 0; i < tables[t]->n && y < end; i++) {
            const struct keybind *b = &tables[t]->v[i];
            if (!b->help)
                continue;
            if (draw)
                widgets_text(c, in.x + 2, y, 11, screen_attr(SCREEN_HEADING), b->name);
            y += widgets_wrapped(c, in.x + 14, y, tw, 0, draw ? end - y : 0, A_NORMAL, b->help);
        }
    }
    /* The step's own lines: "KEY\tTEXT". */
    for (size_t i = 0; i < nextra && y < end; i++) {
        char key[128];
        snprintf(key, sizeof key, "%s", extra[i]);
        char *tab = strchr(key, '\t');
        if (tab)
            *tab = '\0';
        if (draw)
            widgets_text(c, in.x + 2, y, 11, screen_attr(SCREEN_HEADING), key);
        y += widgets_wrapped(c, in.x + 14, y, tw, 0, draw ? end - y : 0, A_NORMAL,
                             tab ? extra[i] + (tab - key) + 1 : "");
    }
    if (y < end)
        y += widgets_wrapped(c, in.x + 1, y, in.w - 2, 0, draw ? end - y : 0,
                             screen_attr(SCREEN_DIM),
                             "In a program pane that takes input, keys go to the program: Enter "
                             "sends the line, Ctrl-D ends its input, Tab or Esc leaves. Mouse: "
                             "click to select.");
    return y - in.y;
}

void help_draw(const struct screen_caps *c, const struct keytable *const *tables, size_t ntables,
               char extra[][128], size_t nextra)
{
    int w = help_width();
    /* The inside is the box less its border: count the rows at that width first. */
    struct layout_rect probe = {.x = 1, .y = 1, .w = w - 2, .h = 0};
    int h = 2 + help_lines(c, probe, false, tables, ntables, extra, nextra);
    struct layout_rect r = layout_center(COLS, LINES, w, h);
    widgets_clear(r);
    struct layout_rect in = widgets_box(c, r, "Keys (any key closes this help)", true);
    help_lines(c, in, true, tables, ntables, extra, nextra);
}
