/*
 * wrap: a lesson's light Markdown turned into display lines of a given width, ready to draw.
 * No curses: a line is text plus styled spans, so the wrapping is unit-tested on its own.
 *
 * Understood: headings (#, ##, ###), paragraphs (source lines joined, re-wrapped at spaces),
 * list items (-, *, 1.) with a hanging indent, fenced code blocks (```, kept verbatim, indented,
 * cut into continuation lines when too wide), inline `code`, **strong** and *emphasis* or
 * _emphasis_, and blank lines between blocks (runs of them collapse to one).
 *
 * Invariants: no line is wider than the width in display columns (UTF-8 aware: wide characters
 * count two, combining marks zero); a word is broken only when it alone is wider than the line;
 * spans cover each line's text exactly, in order; with utf8 false the output is pure ASCII
 * (bullets become '-', other non-ASCII characters '?').
 */
#ifndef IOLAB_WRAP_H
#define IOLAB_WRAP_H

#include <stdbool.h>
#include <stddef.h>

enum wrap_style {
    WRAP_PLAIN = 0,
    WRAP_STRONG = 1 << 0,
    WRAP_EMPH = 1 << 1,
    WRAP_CODE = 1 << 2,    /* inline code or a code block line */
    WRAP_HEADING = 1 << 3, /* a heading line */
    WRAP_BULLET = 1 << 4,  /* the bullet or number of a list item */
};

struct wrap_span {
    size_t off, len; /* bytes of wrap_line.text */
    unsigned style;  /* enum wrap_style bits */
};

struct wrap_line {
    char *text; /* NUL-terminated */
    int width;  /* display columns */
    struct wrap_span *spans;
    size_t nspans;
};

struct wrap_doc {
    struct wrap_line *lines;
    size_t nlines, cap;
};

/* Wraps md to width columns (at least 8) into doc (empty it first with wrap_doc_free); 0 or
 * -ENOMEM. */
int wrap_markdown(const char *md, int width, bool utf8, struct wrap_doc *doc);

/* Plain text (program output): wrapped at spaces like a paragraph, no Markdown. */
int wrap_plain(const char *text, int width, bool utf8, struct wrap_doc *doc);

void wrap_doc_free(struct wrap_doc *doc);

/* Display columns of len bytes of UTF-8 (ASCII rendering counts one per character). */
int wrap_width(const char *s, size_t len, bool utf8);

#endif
