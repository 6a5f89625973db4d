/*
 * widgets: drawing primitives on stdscr inside a layout rectangle: boxes, styled text lines,
 * bars and sparklines. They draw what they are given (plain structs), clip to their rectangle,
 * and never read anything else.
 */
#ifndef IOLAB_WIDGETS_H
#define IOLAB_WIDGETS_H

#include "layout.h"
#include "screen.h"
#include "wrap.h"

#include <stddef.h>

/* A border around r with a title in the top edge; returns the inside rectangle. */
struct layout_rect widgets_box(const struct screen_caps *c, struct layout_rect r, const char *title,
                               bool focused);

/* Clears the rectangle. */
void widgets_clear(struct layout_rect r);

/* Text clipped to at most w columns at (x, y), with attributes. Returns the columns used. */
int widgets_text(const struct screen_caps *c, int x, int y, int w, attr_t attr, const char *s);

/* printf into the clip; returns the columns used. */
int widgets_printf(const struct screen_caps *c, int x, int y, int w, attr_t attr, const char *fmt,
                   ...) __attribute__((format(printf, 6, 7)));

/*
 * Plain text wrapped at spaces into w columns (a word longer than w is broken), drawn from
 * (x, y) on at most maxrows rows, the lines after the first starting `indent` columns further
 * in (a hanging indent; w shrinks by as much). Returns the rows the whole text takes, drawn or
 * not, so a caller can size its area with maxrows 0 (which draws nothing) and then draw.
 */
int widgets_wrapped(const struct screen_caps *c, int x, int y, int w, int indent, int maxrows,
                    attr_t attr, const char *s);

/* A paragraph of plain text wrapped into w columns (at least 8) and drawn from (x, *y) down to
   the row before end, *y moved past it; returns the rows drawn. */
int widgets_para(const struct screen_caps *c, int x, int *y, int end, int w, attr_t attr,
                 const char *text);

/* Wrapped lines from `first`, one per row of r. */
void widgets_doc(const struct screen_caps *c, struct layout_rect r, const struct wrap_doc *d,
                 size_t first);

/*
 * A box of paragraphs that scrolls, drawn over the screen's body (a run step's results whole,
 * a): each frame the caller begins it in its box (the rows go, the width is the box's), adds its
 * paragraphs (a mark of two columns, then the text wrapped under itself), and draws it. j/k, the
 * arrows and the page keys scroll it (widgets_sheet_key), and the drawing keeps the last page full.
 */
struct widgets_sheet_row {
    char *text;
    const char *mark; /* drawn in the first two columns; NULL: none */
    attr_t attr, mark_attr;
    int x; /* columns in from the box's text edge */
};
struct widgets_sheet {
    struct widgets_sheet_row *rows;
    size_t n, cap;
    struct layout_rect box; /* where it is drawn, and in */
    int w;                  /* the width of its text */
    int top, page;          /* the first row shown, and the rows shown at once */
};
void widgets_sheet_begin(struct widgets_sheet *s, struct layout_rect box);
/* A paragraph: mark (or NULL) at indent - 2, the text wrapped at the rest of the width. */
void widgets_sheet_para(struct widgets_sheet *s, const struct screen_caps *c, int indent,
                        const char *mark, attr_t mark_attr, attr_t attr, const char *text);
void widgets_sheet_draw(struct widgets_sheet *s, const struct screen_caps *c, const char *title);
/* 0 when key scrolled it, -1 when it is not a scrolling key. */
int widgets_sheet_key(struct widgets_sheet *s, int key);
void widgets_sheet_free(struct widgets_sheet *s);

/* A horizontal bar of value/max over w cells (eighths of a cell with UTF-8). */
void widgets_bar(const struct screen_caps *c, int x, int y, int w, double value, double max);

/* The last n values (oldest first) as a sparkline of w cells, scaled to their maximum. */
void widgets_sparkline(const struct screen_caps *c, int x, int y, int w, const double *v, size_t n);

/* Figures for the TUI's columns and lines, with fixed decimals by magnitude so that a figure
   keeps its width from frame to frame: "12.3k", "4.56M", "4.07MB", "92.3 ms", "4.6 us" (one
   decimal for times). iolab's text reports use human.h, which keeps three significant digits
   instead ("4.56 us", "0.53"). Into buf, returns buf. */
const char *widgets_si_fixed(double v, char *buf, size_t len);
const char *widgets_bytes_fixed(double v, char *buf, size_t len);
const char *widgets_ns_fixed(double ns, char *buf, size_t len);

#endif
