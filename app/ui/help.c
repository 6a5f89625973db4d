/*
 * help: see help.h. A binding appears once per table, with its help line; bindings without one
 * (a second Enter, a plain alias) are aliases already named by another line.
 */
#include "help.h"

#include "layout.h"
#include "widgets.h"
#include "wrap.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The help's width: 76 columns fit an 80-column terminal; a wide one gets room for long lines. */
static int help_width(void)
{
    return COLS >= 124 ? 116 : 76;
}

/* Where the help's rows go: row counts every row, drawn or not; only rows top..top+in.h-1 are
 * drawn, at in.y onwards, so the help scrolls as one list of rows. */
struct help_pen {
    const struct screen_caps *c;
    struct layout_rect in;
    bool draw;
    int row, top;
};

static bool help_visible(const struct help_pen *p)
{
    return p->draw && p->row >= p->top && p->row - p->top < p->in.h;
}

/* One entry: name (may be empty) in the key column and text wrapped beside it, or text across
   the whole width when col is 1. */
static void help_entry(struct help_pen *p, int col, attr_t name_attr, const char *name, attr_t attr,
                       const char *text)
{
    int w = p->in.w - col - 1;
    struct wrap_doc d = {0};
    bool wrapped = wrap_plain(text, w > 8 ? w : 8, p->c->utf8, &d) == 0 && d.nlines > 0;
    size_t n = wrapped ? d.nlines : 1;
    for (size_t i = 0; i < n; i++, p->row++) {
        if (!help_visible(p))
            continue;
        int y = p->in.y + p->row - p->top;
        if (i == 0 && name && name[0])
            widgets_text(p->c, p->in.x + 2, y, 11, name_attr, name);
        widgets_text(p->c, p->in.x + col, y, w, attr, wrapped ? d.lines[i].text : text);
    }
    wrap_doc_free(&d);
}

/* Draws (or, with draw false, only counts) the help's rows; returns how many there are. */
static int help_lines(struct help_pen *p, const struct keytable *const *tables, size_t ntables,
                      char extra[][128], size_t nextra)
{
    p->row = 0;
    attr_t key_attr = screen_attr(SCREEN_HEADING);
    for (size_t t = 0; t < ntables; t++) {
        help_entry(p, 1, 0, NULL, A_BOLD, tables[t]->title);
        for (size_t i = 0; i < tables[t]->n; i++) {
            const struct keybind *b = &tables[t]->v[i];
            if (b->help)
                help_entry(p, 14, key_attr, b->name, A_NORMAL, b->help);
        }
    }
    /* The step's own lines: "KEY\tTEXT". */
    for (size_t i = 0; i < nextra; i++) {
        char key[128];
        snprintf(key, sizeof key, "%s", extra[i]);
        char *tab = strchr(key, '\t');
        if (tab)
            *tab = '\0';
        help_entry(p, 14, key_attr, key, A_NORMAL, tab ? extra[i] + (tab - key) + 1 : "");
    }
    help_entry(p, 1, 0, NULL, screen_attr(SCREEN_DIM),
               "In a program pane that takes input, keys go to the program: Enter sends the line, "
               "Ctrl-D ends its input, Tab or Esc leaves. Mouse: click to select.");
    return p->row;
}

bool help_draw(const struct screen_caps *c, const struct keytable *const *tables, size_t ntables,
               char extra[][128], size_t nextra, int *top)
{
    int w = help_width();
    /* Count the rows at the inside's width first (the box less its border). */
    struct help_pen p = {.c = c, .in = {.x = 1, .y = 1, .w = w - 2, .h = 0}};
    int rows = help_lines(&p, tables, ntables, extra, nextra);
    int h = rows + 2 < LINES - 2 ? rows + 2 : LINES - 2;
    int visible = h - 2 > 1 ? h - 2 : 1;
    if (*top > rows - visible)
        *top = rows - visible;
    if (*top < 0)
        *top = 0;
    struct layout_rect r = layout_center(COLS, LINES, w, h);
    widgets_clear(r);
    char title[96];
    if (rows > visible)
        snprintf(title, sizeof title, "Keys (any key closes; j/k scroll) %d-%d of %d", *top + 1,
                 *top + visible, rows);
    else
        snprintf(title, sizeof title, "Keys (any key closes this help)");
    p.in = widgets_box(c, r, title, true);
    p.draw = true;
    p.top = *top;
    help_lines(&p, tables, ntables, extra, nextra);
    return rows > visible;
}

int help_scroll(int key, int page)
{
    switch (key) {
    case 'j':
    case KEY_DOWN:
        return 1;
    case 'k':
    case KEY_UP:
        return -1;
    case ' ':
    case KEY_NPAGE:
        return page;
    case KEY_PPAGE:
        return -page;
    case 'G':
    case KEY_END:
        return 1 << 20;
    case 'g':
    case KEY_HOME:
        return -(1 << 20);
    default:
        return 0;
    }
}
