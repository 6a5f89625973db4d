/*
 * wrap: Markdown blocks are parsed line by line into a "run": bytes with a style per byte (the
 * inline markers removed), which is then filled greedily into lines of the width. Keeping a
 * style per byte makes the filling ignorant of Markdown and the spans trivial to rebuild.
 */
#include "wrap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

/* Text with a style per byte, built by the inline parser. */
struct wrap_run {
    char *text;
    unsigned char *style;
    size_t len, cap;
};

static int wrap_run_put(struct wrap_run *r, const char *s, size_t n, unsigned style)
{
    if (r->len + n + 1 > r->cap) {
        size_t cap = (r->len + n + 1) * 2;
        char *t = realloc(r->text, cap);
        if (!t)
            return -ENOMEM;
        r->text = t;
        unsigned char *st = realloc(r->style, cap);
        if (!st)
            return -ENOMEM;
        r->style = st;
        r->cap = cap;
    }
    memcpy(r->text + r->len, s, n);
    memset(r->style + r->len, (int)style, n);
    r->len += n;
    r->text[r->len] = '\0';
    return 0;
}

static void wrap_run_free(struct wrap_run *r)
{
    free(r->text);
    free(r->style);
    memset(r, 0, sizeof *r);
}

/* Bytes in the UTF-8 character at s (1 for a stray byte, so that bad input still advances). */
static size_t wrap_charlen(const char *s, size_t left)
{
    unsigned char c = (unsigned char)*s;
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 1;
    if (n > left)
        return 1;
    for (size_t i = 1; i < n; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80)
            return 1;
    return n;
}

static int wrap_charwidth(const char *s, size_t n, bool utf8)
{
    if (!utf8 || n == 1)
        return 1;
    wchar_t wc = 0;
    unsigned char c = (unsigned char)s[0];
    /* Decode by hand: the locale may not be UTF-8 even though the text is. */
    wc = n == 2 ? c & 0x1F : n == 3 ? c & 0x0F : c & 0x07;
    for (size_t i = 1; i < n; i++)
        wc = (wc << 6) | ((unsigned char)s[i] & 0x3F);
    int w = wcwidth(wc);
    if (w >= 0)
        return w;
    /* wcwidth() knows nothing outside a UTF-8 locale: assume one column, two for CJK. */
    return wc >= 0x1100 && wc <= 0xFFDC && (wc <= 0x115F || wc >= 0x2E80) ? 2 : 1;
}

int wrap_width(const char *s, size_t len, bool utf8)
{
    int w = 0;
    for (size_t i = 0; i < len;) {
        size_t n = wrap_charlen(s + i, len - i);
        w += wrap_charwidth(s + i, n, utf8);
        i += n;
    }
    return w;
}

/* Appends one output line made of run[from, to) after a prefix (bullet or indent). */
static int wrap_emit(struct wrap_doc *doc, const char *prefix, unsigned prefix_style,
                     const struct wrap_run *r, size_t from, size_t to, bool utf8)
{
    if (doc->nlines == doc->cap) {
        size_t cap = doc->cap ? doc->cap * 2 : 32;
        struct wrap_line *v = realloc(doc->lines, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        doc->lines = v;
        doc->cap = cap;
    }
    size_t plen = strlen(prefix), n = plen + (to - from);
    struct wrap_line *ln = &doc->lines[doc->nlines];
    memset(ln, 0, sizeof *ln);
    ln->text = malloc(n + 1);
    ln->spans = malloc((n + 1) * sizeof *ln->spans);
    if (!ln->text || !ln->spans) {
        free(ln->text);
        free(ln->spans);
        return -ENOMEM;
    }
    memcpy(ln->text, prefix, plen);
    if (r)
        memcpy(ln->text + plen, r->text + from, to - from);
    ln->text[n] = '\0';
    /* Without UTF-8 the terminal shows ASCII only: replace each non-ASCII character. */
    if (!utf8) {
        size_t o = 0;
        for (size_t i = 0; i < n;) {
            size_t cl = wrap_charlen(ln->text + i, n - i);
            ln->text[o++] = cl == 1 && (unsigned char)ln->text[i] < 0x80 ? ln->text[i] : '?';
            i += cl;
        }
        /* Styles are per source byte; keep them aligned by rebuilding from the mapping. */
        if (o != n) {
            size_t sp = 0, i = 0, j = 0;
            unsigned cur = 0;
            for (; i < n; j++) {
                size_t cl = wrap_charlen(i < plen ? prefix + i : r->text + from + (i - plen),
                                         i < plen ? plen - i : to - from - (i - plen));
                unsigned st = i < plen ? prefix_style : r->style[from + i - plen];
                if (j == 0 || st != cur) {
                    ln->spans[sp++] = (struct wrap_span){.off = j, .len = 0, .style = st};
                    cur = st;
                }
                ln->spans[sp - 1].len++;
                i += cl;
            }
            ln->text[o] = '\0';
            ln->nspans = sp;
            ln->width = (int)o;
            doc->nlines++;
            return 0;
        }
    }
    size_t sp = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned st = i < plen ? prefix_style : r->style[from + i - plen];
        if (sp == 0 || st != ln->spans[sp - 1].style)
            ln->spans[sp++] = (struct wrap_span){.off = i, .len = 0, .style = st};
        ln->spans[sp - 1].len++;
    }
    ln->nspans = sp;
    ln->width = wrap_width(ln->text, n, utf8);
    doc->nlines++;
    return 0;
}

/*
 * Fills a run into lines: the first after first_prefix, the others after an indent of the
 * same width (a hanging indent for list items).
 */
static int wrap_fill(struct wrap_doc *doc, const struct wrap_run *r, int width,
                     const char *first_prefix, unsigned prefix_style, bool utf8)
{
    char indent[32];
    int pw = wrap_width(first_prefix, strlen(first_prefix), utf8);
    if (pw > (int)sizeof indent - 1 || pw > width / 2)
        pw = 0;
    memset(indent, ' ', (size_t)pw);
    indent[pw] = '\0';
    const char *prefix = first_prefix;
    int avail = width - pw;
    size_t i = 0;
    while (i < r->len && r->text[i] == ' ')
        i++;
    if (i >= r->len)
        return wrap_emit(doc, prefix, prefix_style, NULL, 0, 0, utf8);
    while (i < r->len) {
        size_t start = i, end = i, last_break = 0;
        int w = 0;
        bool broke = false;
        while (end < r->len) {
            size_t cl = wrap_charlen(r->text + end, r->len - end);
            int cw = wrap_charwidth(r->text + end, cl, utf8);
            if (r->text[end] == ' ')
                last_break = end;
            if (w + cw > avail) {
                broke = true;
                break;
            }
            w += cw;
            end += cl;
        }
        size_t cut = end, next = end;
        if (broke && end < r->len && r->text[end] == ' ') {
            cut = end;
        } else if (broke && last_break > start) {
            cut = last_break;
        }
        /* Trailing spaces of a line are not drawn; the next line starts at a word. */
        while (cut > start && r->text[cut - 1] == ' ')
            cut--;
        next = broke ? (cut > start ? cut : end) : end;
        if (cut == start) {
            cut = next = end; /* one word wider than the line: break it */
            if (cut == start)
                cut = next = start + wrap_charlen(r->text + start, r->len - start);
        }
        int rc = wrap_emit(doc, prefix, prefix_style, r, start, cut, utf8);
        if (rc < 0)
            return rc;
        prefix = indent;
        prefix_style = WRAP_PLAIN;
        i = next;
        while (i < r->len && r->text[i] == ' ')
            i++;
    }
    return 0;
}

/* Parses inline markup of s[0, n) into r with base style base. */
static int wrap_inline(struct wrap_run *r, const char *s, size_t n, unsigned base)
{
    unsigned st = base;
    for (size_t i = 0; i < n;) {
        int rc;
        if (s[i] == '`') {
            const char *close = memchr(s + i + 1, '`', n - i - 1);
            if (close) {
                rc = wrap_run_put(r, s + i + 1, (size_t)(close - s - i - 1), st | WRAP_CODE);
                if (rc < 0)
                    return rc;
                i = (size_t)(close - s) + 1;
                continue;
            }
        }
        if (s[i] == '*' && i + 1 < n && s[i + 1] == '*') {
            st ^= WRAP_STRONG;
            i += 2;
            continue;
        }
        /* Emphasis markers only at word edges, so that snake_case and a*b stay as written. */
        if ((s[i] == '*' || s[i] == '_') &&
            (((i == 0 || s[i - 1] == ' ' || s[i - 1] == '(') && i + 1 < n && s[i + 1] != ' ') ||
             ((st & WRAP_EMPH) && i > 0 && s[i - 1] != ' '))) {
            st ^= WRAP_EMPH;
            i++;
            continue;
        }
        size_t cl = wrap_charlen(s + i, n - i);
        rc = wrap_run_put(r, s + i, cl, st);
        if (rc < 0)
            return rc;
        i += cl;
    }
    return 0;
}

/* Is the line a list item? Returns the length of its marker ("- ", "12. ") or 0. */
static size_t wrap_list_marker(const char *s, size_t n)
{
    if (n >= 2 && (s[0] == '-' || s[0] == '*' || s[0] == '+') && s[1] == ' ')
        return 2;
    size_t i = 0;
    while (i < n && i < 3 && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i > 0 && i + 1 < n && (s[i] == '.' || s[i] == ')') && s[i + 1] == ' ')
        return i + 2;
    return 0;
}

/* A pending paragraph or list item, flushed when the block ends. */
struct wrap_block {
    struct wrap_run run;
    char prefix[16];
    unsigned prefix_style;
    bool open;
};

static int wrap_flush(struct wrap_doc *doc, struct wrap_block *b, int width, bool utf8)
{
    if (!b->open)
        return 0;
    int rc = wrap_fill(doc, &b->run, width, b->prefix, b->prefix_style, utf8);
    b->run.len = 0;
    b->open = false;
    b->prefix[0] = '\0';
    return rc;
}

static int wrap_blank(struct wrap_doc *doc, bool utf8)
{
    /* Runs of blank lines collapse into one, and a document never starts with one. */
    if (doc->nlines == 0 || doc->lines[doc->nlines - 1].text[0] == '\0')
        return 0;
    return wrap_emit(doc, "", WRAP_PLAIN, NULL, 0, 0, utf8);
}

/*
 * A code line wider than the width is cut, never re-flowed: spaces in code matter. It is cut
 * after the last space that fits (a word is cut only when no space is left to cut at), and each
 * continuation starts with a mark, then the line's own indentation, so that a reader never takes
 * it for a line of its own.
 */
static int wrap_code_line(struct wrap_doc *doc, const char *s, size_t n, int width, bool utf8)
{
    struct wrap_run r = {0};
    int rc = wrap_run_put(&r, s, n, WRAP_CODE);
    size_t indent = 0;
    while (indent < r.len && r.text[indent] == ' ')
        indent++;
    if ((int)indent > (width - 4) / 2)
        indent = (size_t)((width - 4) / 2);
    char cont[64];
    snprintf(cont, sizeof cont, "%s %*s", utf8 ? "\u21aa" : ">", (int)indent, "");
    size_t i = 0;
    while (rc == 0) {
        const char *prefix = i == 0 ? "  " : cont;
        int room = width - (i == 0 ? 2 : 2 + (int)indent);
        size_t end = i, cut = 0; /* cut: the last space that fits, after some text */
        int w = 0;
        while (end < r.len) {
            size_t cl = wrap_charlen(r.text + end, r.len - end);
            int cw = wrap_charwidth(r.text + end, cl, utf8);
            if (w + cw > room)
                break;
            w += cw;
            end += cl;
            if (r.text[end - 1] == ' ' && end - 1 > (i == 0 ? indent : i))
                cut = end - 1;
        }
        if (end < r.len && cut > i)
            end = cut;
        if (end == i && i < r.len)
            end = i + wrap_charlen(r.text + i, r.len - i);
        rc = wrap_emit(doc, prefix, WRAP_CODE, &r, i, end, utf8);
        i = end;
        /* The spaces a cut falls on would only push the continuation to the right. */
        while (i > 0 && i < r.len && r.text[i] == ' ')
            i++;
        if (i >= r.len)
            break;
    }
    wrap_run_free(&r);
    return rc;
}

int wrap_markdown(const char *md, int width, bool utf8, struct wrap_doc *doc)
{
    if (width < 8)
        width = 8;
    struct wrap_block b = {0};
    bool in_code = false;
    int rc = 0;
    for (const char *line = md; rc == 0 && line && *line;) {
        const char *nl = strchr(line, '\n');
        size_t n = nl ? (size_t)(nl - line) : strlen(line);
        const char *next = nl ? nl + 1 : NULL;
        if (n > 0 && line[n - 1] == '\r')
            n--;
        size_t lead = 0;
        while (lead < n && line[lead] == ' ')
            lead++;
        const char *s = line + lead;
        size_t sn = n - lead;
        if (sn >= 3 && !strncmp(s, "```", 3)) {
            rc = wrap_flush(doc, &b, width, utf8);
            in_code = !in_code;
        } else if (in_code) {
            rc = wrap_code_line(doc, line, n, width, utf8);
        } else if (sn == 0) {
            rc = wrap_flush(doc, &b, width, utf8);
            if (rc == 0)
                rc = wrap_blank(doc, utf8);
        } else if (s[0] == '#') {
            size_t h = 0;
            while (h < sn && s[h] == '#')
                h++;
            while (h < sn && s[h] == ' ')
                h++;
            rc = wrap_flush(doc, &b, width, utf8);
            if (rc == 0)
                rc = wrap_inline(&b.run, s + h, sn - h, WRAP_HEADING | WRAP_STRONG);
            b.open = true;
            if (rc == 0)
                rc = wrap_flush(doc, &b, width, utf8);
        } else if (wrap_list_marker(s, sn)) {
            size_t m = wrap_list_marker(s, sn);
            rc = wrap_flush(doc, &b, width, utf8);
            /* Nested items (indented in the source) keep their indentation. */
            int depth = lead >= 2 ? 2 : 0;
            if (s[0] == '-' || s[0] == '*' || s[0] == '+')
                snprintf(b.prefix, sizeof b.prefix, "%*s%s ", depth, "", utf8 ? "\u2022" : "-");
            else
                snprintf(b.prefix, sizeof b.prefix, "%*s%.*s", depth, "", (int)m, s);
            b.prefix_style = WRAP_BULLET;
            b.open = true;
            if (rc == 0)
                rc = wrap_inline(&b.run, s + m, sn - m, WRAP_PLAIN);
        } else {
            /* A source line continues the open paragraph or item: join with one space. */
            if (b.open && b.run.len > 0)
                rc = wrap_run_put(&b.run, " ", 1, WRAP_PLAIN);
            b.open = true;
            if (rc == 0)
                rc = wrap_inline(&b.run, s, sn, WRAP_PLAIN);
        }
        line = next;
    }
    if (rc == 0)
        rc = wrap_flush(doc, &b, width, utf8);
    wrap_run_free(&b.run);
    /* A trailing blank line is noise at the end of a pane. */
    if (rc == 0 && doc->nlines > 0 && doc->lines[doc->nlines - 1].text[0] == '\0') {
        doc->nlines--;
        free(doc->lines[doc->nlines].text);
        free(doc->lines[doc->nlines].spans);
    }
    return rc;
}

int wrap_plain(const char *text, int width, bool utf8, struct wrap_doc *doc)
{
    if (width < 8)
        width = 8;
    struct wrap_run r = {0};
    int rc = wrap_run_put(&r, text, strlen(text), WRAP_PLAIN);
    for (size_t i = 0; rc == 0 && i < r.len; i++)
        if (r.text[i] == '\t' || r.text[i] == '\n' || (unsigned char)r.text[i] < 0x20)
            r.text[i] = ' ';
    if (rc == 0)
        rc = wrap_fill(doc, &r, width, "", WRAP_PLAIN, utf8);
    wrap_run_free(&r);
    return rc;
}

void wrap_doc_free(struct wrap_doc *doc)
{
    for (size_t i = 0; i < doc->nlines; i++) {
        free(doc->lines[i].text);
        free(doc->lines[i].spans);
    }
    free(doc->lines);
    memset(doc, 0, sizeof *doc);
}
