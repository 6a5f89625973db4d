/*
 * widgets: every string goes through widgets_text(), which clips by display columns (so a
 * UTF-8 line never spills over a border) and replaces non-ASCII characters when the terminal
 * is not UTF-8. Controls (and the bidi controls, which would reorder the line) are drawn as '?'.
 */
#include "widgets.h"
#include "metrics/figure.h"
#include "termsafe.h"

#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

void widgets_clear(struct layout_rect r)
{
    for (int y = r.y; y < r.y + r.h; y++)
        mvhline(y, r.x, ' ', r.w);
}

int widgets_text(const struct screen_caps *c, int x, int y, int w, attr_t attr, const char *s)
{
    if (w <= 0 || !s)
        return 0;
    int used = 0;
    size_t len = strlen(s), start = 0, i = 0;
    char ascii[512];
    size_t na = 0;
    /* A text that does not fit is cut one column early and ends with the "more" mark, so a
       reader can tell a cut title or output line from a short one. */
    bool cut = wrap_width(s, len, c->utf8) > w;
    int room = cut ? w - 1 : w;
    while (i < len) {
        unsigned char ch = (unsigned char)s[i];
        size_t cl = ch < 0x80 ? 1 : (ch >> 5) == 6 ? 2 : (ch >> 4) == 14 ? 3 : 4;
        if (i + cl > len)
            cl = len - i;
        /* A bidi control (termsafe.h) is drawn as '?', one column: it would reorder the line. */
        int cw = ch < 0x20 || termsafe_is_bidi((const unsigned char *)s + i, (int)cl)
                     ? 1
                     : wrap_width(s + i, cl, c->utf8);
        if (used + cw > room)
            break;
        if (!c->utf8 && na < sizeof ascii - 1)
            ascii[na++] = ch < 0x80 && ch >= 0x20 ? (char)ch : '?';
        used += cw;
        i += cl;
    }
    attron(attr);
    if (c->utf8) {
        /* Control characters in program output must not reach the terminal. */
        char buf[2048];
        size_t n = 0;
        for (size_t k = start; k < i && n < sizeof buf - 1; k++) {
            unsigned char b = (unsigned char)s[k];
            if (k + 3 <= i && termsafe_is_bidi((const unsigned char *)s + k, 3)) {
                buf[n++] = '?';
                k += 2;
            } else {
                buf[n++] = b < 0x20 || b == 0x7f ? '?' : (char)b;
            }
        }
        buf[n] = '\0';
        mvaddstr(y, x, buf);
    } else {
        ascii[na] = '\0';
        mvaddstr(y, x, ascii);
    }
    if (cut && room >= 0) {
        mvaddstr(y, x + used, c->g->more);
        used++;
    }
    attroff(attr);
    return used;
}

int widgets_para(const struct screen_caps *c, int x, int *y, int end, int w, attr_t attr,
                 const char *text)
{
    struct wrap_doc d = {0};
    int rows = 0;
    if (wrap_plain(text ? text : "", w > 8 ? w : 8, c->utf8, &d) == 0)
        for (size_t i = 0; i < d.nlines && *y < end; i++, rows++)
            widgets_text(c, x, (*y)++, w, attr, d.lines[i].text);
    wrap_doc_free(&d);
    return rows;
}

int widgets_wrapped(const struct screen_caps *c, int x, int y, int w, int indent, int maxrows,
                    attr_t attr, const char *s)
{
    if (w <= 0 || !s)
        return 0;
    if (indent < 0 || indent > w / 2)
        indent = 0;
    /* A text that fits is drawn as it is: wrapping would collapse its runs of spaces. */
    if (!strchr(s, '\n') && wrap_width(s, strlen(s), c->utf8) <= w) {
        if (maxrows > 0)
            widgets_text(c, x, y, w, attr, s);
        return 1;
    }
    /* Every line is wrapped at the indented width, the first included, so that each line's
       words are where the wrapping put them. */
    struct wrap_doc d = {0};
    if (wrap_plain(s, w - indent, c->utf8, &d) < 0 || d.nlines == 0) {
        wrap_doc_free(&d);
        if (maxrows > 0)
            widgets_text(c, x, y, w, attr, s);
        return 1;
    }
    int rows = (int)d.nlines;
    for (int i = 0; i < rows && i < maxrows; i++)
        widgets_text(c, x + (i ? indent : 0), y + i, w - (i ? indent : 0), attr, d.lines[i].text);
    wrap_doc_free(&d);
    return rows;
}

int widgets_printf(const struct screen_caps *c, int x, int y, int w, attr_t attr, const char *fmt,
                   ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return widgets_text(c, x, y, w, attr, buf);
}

struct layout_rect widgets_box(const struct screen_caps *c, struct layout_rect r, const char *title,
                               bool focused)
{
    const struct screen_glyphs *g = c->g;
    attr_t a = screen_attr(focused ? SCREEN_FOCUS : SCREEN_BORDER);
    attron(a);
    for (int x = r.x + 1; x < r.x + r.w - 1; x++) {
        mvaddstr(r.y, x, g->hline);
        mvaddstr(r.y + r.h - 1, x, g->hline);
    }
    for (int y = r.y + 1; y < r.y + r.h - 1; y++) {
        mvaddstr(y, r.x, g->vline);
        mvaddstr(y, r.x + r.w - 1, g->vline);
    }
    mvaddstr(r.y, r.x, g->tl);
    mvaddstr(r.y, r.x + r.w - 1, g->tr);
    mvaddstr(r.y + r.h - 1, r.x, g->bl);
    mvaddstr(r.y + r.h - 1, r.x + r.w - 1, g->br);
    attroff(a);
    if (title && title[0]) {
        char t[256];
        snprintf(t, sizeof t, " %s ", title);
        widgets_text(c, r.x + 2, r.y, r.w - 4, a | A_BOLD, t);
    }
    return (struct layout_rect){.x = r.x + 1, .y = r.y + 1, .w = r.w - 2, .h = r.h - 2};
}

static attr_t widgets_style_attr(unsigned style)
{
    attr_t a = A_NORMAL;
    if (style & WRAP_HEADING)
        a |= screen_attr(SCREEN_HEADING);
    if (style & WRAP_STRONG)
        a |= A_BOLD;
    if (style & WRAP_EMPH)
        a |= A_UNDERLINE;
    if (style & WRAP_CODE)
        a |= screen_attr(SCREEN_CODE);
    if (style & WRAP_BULLET)
        a |= screen_attr(SCREEN_HEADING);
    return a;
}

void widgets_doc(const struct screen_caps *c, struct layout_rect r, const struct wrap_doc *d,
                 size_t first)
{
    for (int row = 0; row < r.h && first + (size_t)row < d->nlines; row++) {
        const struct wrap_line *ln = &d->lines[first + (size_t)row];
        int x = r.x;
        for (size_t s = 0; s < ln->nspans; s++) {
            char piece[1024];
            size_t n = ln->spans[s].len < sizeof piece - 1 ? ln->spans[s].len : sizeof piece - 1;
            memcpy(piece, ln->text + ln->spans[s].off, n);
            piece[n] = '\0';
            x += widgets_text(c, x, r.y + row, r.x + r.w - x,
                              widgets_style_attr(ln->spans[s].style), piece);
        }
    }
}

void widgets_bar(const struct screen_caps *c, int x, int y, int w, double value, double max)
{
    if (w <= 0)
        return;
    double frac = max > 0 && value > 0 ? value / max : 0;
    if (frac > 1)
        frac = 1;
    int eighths = (int)(frac * w * 8 + 0.5);
    /* Never draw a measured non-zero value as an empty bar. */
    if (eighths == 0 && value > 0)
        eighths = 1;
    attr_t a = screen_attr(SCREEN_BAR);
    attron(a);
    move(y, x);
    for (int i = 0; i < w; i++) {
        int cell = eighths - i * 8;
        addstr(c->g->eighths[cell >= 8 ? 8 : cell <= 0 ? 0 : cell]);
    }
    attroff(a);
}

void widgets_sparkline(const struct screen_caps *c, int x, int y, int w, const double *v, size_t n)
{
    size_t from = n > (size_t)w ? n - (size_t)w : 0;
    double max = 0;
    for (size_t i = from; i < n; i++)
        if (v[i] > max)
            max = v[i];
    attr_t a = screen_attr(SCREEN_BAR);
    attron(a);
    move(y, x);
    for (size_t i = from; i < n; i++) {
        int level = max > 0 ? (int)(v[i] / max * 7 + 0.5) : 0;
        addstr(v[i] > 0 || max == 0 ? c->g->spark[level] : " ");
    }
    attroff(a);
}

/* The fixed-width forms of the figure table's one formatter (metrics/figure.h). */
const char *widgets_si_fixed(double v, char *buf, size_t len)
{
    return figure_format_si(v, "", "", true, buf, len);
}

const char *widgets_bytes_fixed(double v, char *buf, size_t len)
{
    return figure_format_si(v, "", "B", true, buf, len);
}

const char *widgets_ns_fixed(double ns, char *buf, size_t len)
{
    if (ns < 1e3)
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.1f us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.1f ms", ns / 1e6);
    else
        snprintf(buf, len, "%.2f s", ns / 1e9);
    return buf;
}

/* ---- the scrolling box ---- */

static void widgets_sheet_clear_rows(struct widgets_sheet *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->rows[i].text);
    s->n = 0;
}

void widgets_sheet_begin(struct widgets_sheet *s, struct layout_rect box)
{
    widgets_sheet_clear_rows(s);
    s->box = box;
    s->w = s->box.w - 4; /* the border and a margin on each side */
}

static void widgets_sheet_add(struct widgets_sheet *s, const char *text, const char *mark,
                              attr_t mark_attr, attr_t attr, int x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        struct widgets_sheet_row *r = realloc(s->rows, cap * sizeof *r);
        if (!r)
            return;
        s->rows = r;
        s->cap = cap;
    }
    char *t = strdup(text);
    if (!t)
        return;
    s->rows[s->n++] = (struct widgets_sheet_row){
        .text = t, .mark = mark, .attr = attr, .mark_attr = mark_attr, .x = x};
}

void widgets_sheet_para(struct widgets_sheet *s, const struct screen_caps *c, int indent,
                        const char *mark, attr_t mark_attr, attr_t attr, const char *text)
{
    struct wrap_doc d = {0};
    int w = s->w - indent;
    if (!*text) {
        widgets_sheet_add(s, "", NULL, 0, attr, indent);
        return;
    }
    if (wrap_plain(text, w > 8 ? w : 8, c->utf8, &d) == 0)
        for (size_t i = 0; i < d.nlines; i++)
            widgets_sheet_add(s, d.lines[i].text, i ? NULL : mark, mark_attr, attr, indent);
    wrap_doc_free(&d);
}

void widgets_sheet_draw(struct widgets_sheet *s, const struct screen_caps *c, const char *title)
{
    widgets_clear(s->box);
    struct layout_rect in = widgets_box(c, s->box, title, true);
    s->page = in.h;
    int last = (int)s->n > in.h ? (int)s->n - in.h : 0;
    if (s->top > last)
        s->top = last;
    if (s->top < 0)
        s->top = 0;
    for (int r = 0; r < in.h && s->top + r < (int)s->n; r++) {
        const struct widgets_sheet_row *row = &s->rows[s->top + r];
        int x = in.x + 1 + row->x;
        if (row->mark)
            widgets_text(c, x - 2, in.y + r, 2, row->mark_attr, row->mark);
        widgets_text(c, x, in.y + r, in.x + in.w - 1 - x, row->attr, row->text);
    }
    const char *hint = s->top < last ? "(more: j)" : s->top > 0 ? "(top: k)" : NULL;
    if (hint) {
        int hw = (int)strlen(hint);
        widgets_text(c, in.x + in.w - hw - 1, in.y + in.h, hw, screen_attr(SCREEN_DIM), hint);
    }
}

int widgets_sheet_key(struct widgets_sheet *s, int key)
{
    int page = s->page > 1 ? s->page - 1 : 1;
    if (key == KEY_DOWN || key == 'j')
        s->top++;
    else if (key == KEY_UP || key == 'k')
        s->top--;
    else if (key == KEY_NPAGE || key == ' ')
        s->top += page;
    else if (key == KEY_PPAGE)
        s->top -= page;
    else if (key == KEY_HOME || key == 'g')
        s->top = 0;
    else if (key == KEY_END || key == 'G')
        s->top = 1 << 20; /* the drawing keeps the last page full */
    else
        return -1;
    return 0;
}

void widgets_sheet_free(struct widgets_sheet *s)
{
    widgets_sheet_clear_rows(s);
    free(s->rows);
    *s = (struct widgets_sheet){0};
}
