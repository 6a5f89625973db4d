/*
 * codeview: see codeview.h. The view keeps two look-ups (rows now, rows a second or more
 * before) and writes the files as Markdown afresh from them: a line's margin sums every counted
 * call the program's executable made there, names the most frequent, and divides its growth by
 * the time between the look-ups. A row of a library, or of the page's overflow, names no line of
 * these files and is not shown. The Markdown is wrapped again only when it or the width changed.
 */
#include "codeview.h"
#include "human.h"
#include "iolab_counters.h"
#include "metrics/siteline.h"
#include "metrics/tally.h"
#include "widgets.h"
#include "wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CODEVIEW_ROWS (TALLY_SITES + IOLAB_NCALLS)

struct codeview {
    char title[96];
    codeview_source_fn source;
    void *data;
    bool fixed;                 /* the files were named at open */
    char *name[CODEVIEW_FILES]; /* each file's base name as the line table gives it */
    char *text[CODEVIEW_FILES]; /* its text (NULL: not read yet or unreadable) */
    int err[CODEVIEW_FILES];    /* why it could not be read (negative errno), or 0 */
    size_t nfiles;
    struct siteline_row *rows, *prev; /* the last look-up and the one before */
    size_t nrows, nprev;
    double t, prev_t; /* their clocks; prev_t < 0: no look-up before */
    bool looked;      /* a look-up was made */
    char *md;         /* the files as drawn, NULL before the first draw */
    bool md_stale;
    struct wrap_doc doc;
    int w, h;   /* width the doc is wrapped at, rows last shown */
    size_t top; /* first row shown */
    bool seek;  /* the first look-up with calls scrolls to the busiest line, once */
};

struct codeview *codeview_open(const char *title, const char *const *files, size_t n,
                               codeview_source_fn source, void *data)
{
    struct codeview *cv = calloc(1, sizeof *cv);
    if (!cv)
        return NULL;
    cv->rows = calloc(CODEVIEW_ROWS, sizeof *cv->rows);
    cv->prev = calloc(CODEVIEW_ROWS, sizeof *cv->prev);
    if (!cv->rows || !cv->prev) {
        codeview_close(cv);
        return NULL;
    }
    snprintf(cv->title, sizeof cv->title, "%s", title);
    cv->source = source;
    cv->data = data;
    cv->prev_t = -1;
    cv->w = -1;
    cv->md_stale = true;
    cv->seek = true;
    cv->fixed = n > 0;
    for (size_t i = 0; i < n && i < CODEVIEW_FILES; i++) {
        cv->name[i] = strdup(files[i]);
        if (!cv->name[i]) {
            codeview_close(cv);
            return NULL;
        }
        cv->nfiles++;
    }
    return cv;
}

void codeview_close(struct codeview *cv)
{
    if (!cv)
        return;
    for (size_t i = 0; i < cv->nfiles; i++) {
        free(cv->name[i]);
        free(cv->text[i]);
    }
    free(cv->rows);
    free(cv->prev);
    free(cv->md);
    wrap_doc_free(&cv->doc);
    free(cv);
}

/* Reads file i's text once: a file that could not be read says why in its place. */
static void codeview_read(struct codeview *cv, size_t i, const char *dwarf_path)
{
    if (cv->text[i] || cv->err[i])
        return;
    int rc = cv->source(cv->data, cv->name[i], dwarf_path, &cv->text[i]);
    if (rc < 0) {
        cv->text[i] = NULL;
        cv->err[i] = rc;
    }
}

/* Without named files, the sites name them: each file of the executable's rows with a line,
   in the order of the rows (the busiest first), as far as CODEVIEW_FILES goes. */
static void codeview_find_files(struct codeview *cv)
{
    for (size_t k = 0; k < cv->nrows && cv->nfiles < CODEVIEW_FILES; k++) {
        const struct siteline_row *r = &cv->rows[k];
        if (!r->exe || !r->src.line || !r->src.file[0])
            continue;
        size_t i = 0;
        while (i < cv->nfiles && strcmp(cv->name[i], r->src.file))
            i++;
        if (i < cv->nfiles)
            continue;
        cv->name[i] = strdup(r->src.file);
        if (!cv->name[i])
            return;
        cv->nfiles++;
        codeview_read(cv, i, r->src.path);
    }
}

void codeview_update(struct codeview *cv, const struct tally_sites *a, const struct tally_sites *b,
                     double t)
{
    if (!cv || !b || (cv->looked && t < cv->t + 1.0 && t >= cv->t))
        return;
    struct siteline_row *old = cv->prev;
    cv->prev = cv->rows;
    cv->nprev = cv->nrows;
    cv->prev_t = cv->looked && t > cv->t ? cv->t : -1;
    cv->rows = old;
    size_t n = siteline_rows(a, b, cv->rows, CODEVIEW_ROWS);
    cv->nrows = n < CODEVIEW_ROWS ? n : CODEVIEW_ROWS;
    cv->t = t;
    cv->looked = true;
    if (!cv->fixed)
        codeview_find_files(cv);
    for (size_t i = 0; i < cv->nfiles; i++)
        codeview_read(cv, i, "");
    cv->md_stale = true;
}

/* Calls on line `line` of `file` in rows, and the most frequent call among them. */
static uint64_t codeview_line(const struct siteline_row *rows, size_t n, const char *file, int line,
                              unsigned *call)
{
    uint64_t sum = 0, top = 0;
    for (size_t k = 0; k < n; k++)
        if (rows[k].exe && rows[k].src.line == line && !strcmp(rows[k].src.file, file)) {
            sum += rows[k].count;
            if (rows[k].count > top && call)
                top = rows[k].count, *call = rows[k].call;
        }
    return sum;
}

/* The margin of one line: "9.61M  43k/s read      " (count, calls a second, call), blank
   without calls. */
#define CODEVIEW_MARGIN 24
static void codeview_margin(const struct codeview *cv, const char *file, int line, char *buf,
                            size_t len)
{
    unsigned call = 0;
    const char *base = strrchr(file, '/');
    file = base ? base + 1 : file; /* the line table gives base names */
    uint64_t n = codeview_line(cv->rows, cv->nrows, file, line, &call);
    if (!n) {
        snprintf(buf, len, "%*s", CODEVIEW_MARGIN, "");
        return;
    }
    char count[16], rate[24] = "-";
    human_si((double)n, count, sizeof count);
    if (cv->prev_t >= 0 && cv->t > cv->prev_t) {
        uint64_t before = codeview_line(cv->prev, cv->nprev, file, line, NULL);
        if (n >= before) {
            char r[16];
            human_si((double)(n - before) / (cv->t - cv->prev_t), r, sizeof r);
            snprintf(rate, sizeof rate, "%s/s", r);
        }
    }
    snprintf(buf, len, "%5s %7s %-10.10s", count, rate, iolab_call_info[call].label);
}

/* Bytes of s (one line) that fit in cols columns, cut at a character's start. */
static size_t codeview_cut(const char *s, size_t len, int cols, bool utf8)
{
    size_t n = 0;
    while (n < len) {
        size_t next = n + 1;
        while (next < len && ((unsigned char)s[next] & 0xc0) == 0x80)
            next++;
        if (wrap_width(s, next, utf8) > cols)
            break;
        n = next;
    }
    return n;
}

/* One file as a code block, each line cut to what the width leaves beside its margin: a line
   that wrapped would split the margin's column and take rows the view has few of. */
static void codeview_file_md(const struct codeview *cv, FILE *f, size_t i, int width, bool utf8)
{
    int cols = width - 2 - CODEVIEW_MARGIN - 6; /* the block's indent, margin, " %3d  " */
    fprintf(f, "## %s\n\n```\n", cv->name[i]);
    const char *s = cv->text[i];
    for (int line = 1; s && *s; line++) {
        size_t len = strcspn(s, "\n");
        char margin[64];
        codeview_margin(cv, cv->name[i], line, margin, sizeof margin);
        fprintf(f, "%s %3d  %.*s\n", margin, line, (int)codeview_cut(s, len, cols, utf8), s);
        s += len + (s[len] == '\n');
    }
    if (!cv->text[i])
        fprintf(f, "(cannot be read: %s)\n", strerror(-cv->err[i]));
    fprintf(f, "```\n\n");
}

/* The files as Markdown at a width, from the last two look-ups. NULL when out of memory. */
static char *codeview_md(const struct codeview *cv, int width, bool utf8)
{
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    if (!f)
        return NULL;
    uint64_t exe = 0, elsewhere = 0;
    for (size_t k = 0; k < cv->nrows; k++)
        *(cv->rows[k].exe && cv->rows[k].src.line ? &exe : &elsewhere) += cv->rows[k].count;
    if (!cv->looked)
        fprintf(f, "Nothing counted yet: the program has not run.\n\n");
    else {
        char a[16], b[16];
        human_si((double)exe, a, sizeof a);
        human_si((double)elsewhere, b, sizeof b);
        fprintf(f,
                "Counted calls beside the line that made them: count, calls a second over the "
                "last second or more, the call. %s on these lines%s%s%s.\n\n",
                a, elsewhere ? "; " : "", elsewhere ? b : "",
                elsewhere ? " elsewhere (a library, a line unknown)" : "");
    }
    for (size_t i = 0; i < cv->nfiles; i++)
        codeview_file_md(cv, f, i, width, utf8);
    if (cv->looked && !cv->nfiles)
        fprintf(f, "No call of the program's own code has a line (no debug information).\n");
    if (fclose(f) != 0) {
        free(md);
        return NULL;
    }
    return md;
}

/* The busiest line of the program's own files: the row of the doc that shows it, with a few
   rows of context above, or top unchanged when none has calls. */
static size_t codeview_busiest_row(const struct codeview *cv, size_t top)
{
    const struct siteline_row *best = NULL;
    for (size_t k = 0; k < cv->nrows; k++) /* rows are sorted: the first of these files wins */
        if (cv->rows[k].exe && cv->rows[k].src.line) {
            for (size_t i = 0; i < cv->nfiles && !best; i++) {
                const char *base = strrchr(cv->name[i], '/');
                if (!strcmp(base ? base + 1 : cv->name[i], cv->rows[k].src.file))
                    best = &cv->rows[k];
            }
            if (best)
                break;
        }
    if (!best)
        return top;
    /* A code line of the doc is "  " (the block's indent), the margin, then " %3d  ". */
    char mark[16];
    snprintf(mark, sizeof mark, " %3d  ", best->src.line);
    bool in_file = false;
    for (size_t i = 0; i < cv->doc.nlines; i++) {
        const char *t = cv->doc.lines[i].text;
        if (!strcmp(t, best->src.file) ||
            (strrchr(t, '/') && !strcmp(strrchr(t, '/') + 1, best->src.file)))
            in_file = true;
        if (in_file && strlen(t) > 2 + CODEVIEW_MARGIN + strlen(mark) &&
            !strncmp(t + 2 + CODEVIEW_MARGIN, mark, strlen(mark)))
            return i > 3 ? i - 3 : 0;
    }
    return top;
}

void codeview_draw(struct codeview *cv, const struct screen_caps *c, struct layout_rect r)
{
    widgets_clear(r);
    char title[160];
    snprintf(title, sizeof title, "%s: j/k scroll, Esc closes", cv->title);
    struct layout_rect in = widgets_box(c, r, title, true);
    struct layout_rect body = {in.x + 1, in.y, in.w - 2, in.h};
    if (cv->md_stale || body.w != cv->w) {
        char *md = codeview_md(cv, body.w, c->utf8);
        if (md) {
            free(cv->md);
            cv->md = md;
            wrap_doc_free(&cv->doc);
            wrap_markdown(cv->md, body.w, c->utf8, &cv->doc);
            cv->w = body.w;
            cv->md_stale = false;
            if (cv->seek && cv->nrows) {
                size_t at = codeview_busiest_row(cv, cv->top);
                cv->seek = at == cv->top && !cv->top;
                cv->top = at;
            }
        }
    }
    cv->h = body.h;
    size_t last = cv->doc.nlines > (size_t)body.h ? cv->doc.nlines - (size_t)body.h : 0;
    if (cv->top > last)
        cv->top = last;
    widgets_doc(c, body, &cv->doc, cv->top);
    if (cv->top < last)
        widgets_text(c, in.x + in.w - 10, in.y + in.h - 1, 9, screen_attr(SCREEN_DIM), "(more: j)");
}

int codeview_key(struct codeview *cv, int key)
{
    size_t page = cv->h > 2 ? (size_t)cv->h - 2 : 1;
    size_t n = cv->doc.nlines;
    if (key == KEY_UP || key == 'k')
        cv->top -= cv->top > 0;
    else if (key == KEY_DOWN || key == 'j')
        cv->top += cv->top + 1 < n; /* the draw keeps the last page full */
    else if (key == KEY_PPAGE)
        cv->top = cv->top > page ? cv->top - page : 0;
    else if (key == KEY_NPAGE)
        cv->top = cv->top + page < n ? cv->top + page : n;
    else if (key == KEY_HOME || key == 'g')
        cv->top = 0;
    else if (key == KEY_END || key == 'G')
        cv->top = n;
    else if (key == 27)
        return 1;
    else
        return -1;
    cv->seek = false; /* the learner scrolled: the view stays where they put it */
    return 0;
}
