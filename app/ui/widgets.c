/*
 * widgets: every string goes through widgets_text(), which clips by display columns (so a
 * UTF-8 line never spills over a border) and replaces non-ASCII characters when the terminal
 * is not UTF-8.
 */
#include "widgets.h"
#include "metrics/figure.h"

#include <stdarg.h>
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
        int cw = ch < 0x20 ? 1 : wrap_width(s + i, cl, c->utf8);
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
        size_t n = i - start < sizeof buf - 1 ? i - start : sizeof buf - 1;
        memcpy(buf, s + start, n);
        for (size_t k = 0; k < n; k++)
            if ((unsigned char)buf[k] < 0x20 || buf[k] == 0x7f)
                buf[k] = '?';
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
