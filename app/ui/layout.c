/*
 * layout: the arithmetic behind layout.h. Widths are shares of the body with clamps, and the
 * last pane of a row takes the remainder, so rounding never leaves a gap or an overlap.
 */
#include "layout.h"

#include <errno.h>
#include <string.h>

static int layout_clamp(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static struct layout_rect layout_rect(int x, int y, int w, int h)
{
    return (struct layout_rect){.x = x, .y = y, .w = w, .h = h};
}

/* Splits r into n side-by-side panes of nearly equal width; the last one takes the rest. */
static void layout_split_columns(struct layout_rect r, size_t n, struct layout_rect *out)
{
    int x = r.x;
    for (size_t i = 0; i < n; i++) {
        int w = i + 1 == n ? r.x + r.w - x : r.w / (int)n;
        out[i] = layout_rect(x, r.y, w, r.h);
        x += w;
    }
}

int layout_compute(enum layout_kind kind, int cols, int rows, size_t nprogs, struct layout *out)
{
    memset(out, 0, sizeof *out);
    if (kind > LAYOUT_RUN_VERDICT || nprogs > LAYOUT_MAX_PROGS)
        return -EINVAL;
    bool run = kind == LAYOUT_RUN || kind == LAYOUT_RUN_VERDICT;
    out->cols = cols;
    out->rows = rows;
    /* Programs that do not fit fold into one pane: the size alone decides "too small". */
    if (cols < LAYOUT_MIN_COLS || rows < LAYOUT_MIN_ROWS) {
        out->too_small = true;
        return 0;
    }
    out->title = layout_rect(0, 0, cols, 1);
    out->status = layout_rect(0, rows - 2, cols, 1);
    out->footer = layout_rect(0, rows - 1, cols, 1);
    struct layout_rect b = out->body = layout_rect(0, 1, cols, rows - 3);

    if (kind == LAYOUT_START) {
        int lw = layout_clamp(b.w * 2 / 5, 30, 60);
        out->list = layout_rect(b.x, b.y, lw, b.h);
        out->detail = layout_rect(b.x + lw, b.y, b.w - lw, b.h);
    } else if (kind == LAYOUT_TEXT || nprogs == 0) {
        out->text = b;
        if (run) {
            /* A run step without programs still gets its counters pane. */
            int th = b.h / 2;
            out->text = layout_rect(b.x, b.y, b.w, th);
            out->counters = layout_rect(b.x, b.y + th, b.w, b.h - th);
        }
    } else {
        /* The text stays readable (about 45 columns) and the counters get the rest; a verdict
           takes half. Either gives way so that each program pane keeps its minimum width: the
           text down to LAYOUT_MIN_TEXT_W, a verdict only as far as four panes need (its
           sentences say what to fix; z shows a program whole); programs beyond that share the
           last pane, which keeps a column more than the others for its title ("ben 1/4"). */
        int want = kind == LAYOUT_RUN_VERDICT ? layout_clamp(b.w / 2, LAYOUT_MIN_TEXT_W, 70)
                                              : layout_clamp(b.w * 3 / 10, LAYOUT_MIN_TEXT_W, 52);
        int least = kind == LAYOUT_RUN_VERDICT ? b.w - 4 * (LAYOUT_MIN_PANE_W + 1) : 0;
        least = layout_clamp(least, LAYOUT_MIN_TEXT_W, want);
        int tw = layout_clamp(b.w - (int)nprogs * LAYOUT_MIN_PANE_W, least, want);
        out->text = layout_rect(b.x, b.y, tw, b.h);
        struct layout_rect right = layout_rect(b.x + tw, b.y, b.w - tw, b.h);
        size_t fit = (size_t)(right.w / LAYOUT_MIN_PANE_W), npanes = nprogs;
        if (fit < 1)
            fit = 1;
        if (nprogs > fit) {
            fit = (size_t)((right.w - 1) / LAYOUT_MIN_PANE_W);
            npanes = fit > 1 ? fit : 1;
            out->nfolded = nprogs - npanes + 1;
        }
        int ph = layout_clamp(right.h * 3 / 10, 5, 14);
        layout_split_columns(layout_rect(right.x, right.y, right.w, ph), npanes, out->progs);
        out->nprogs = npanes;
        out->counters = layout_rect(right.x, right.y + ph, right.w, right.h - ph);
    }
    return 0;
}

struct layout_rect layout_center(int cols, int rows, int w, int h)
{
    w = layout_clamp(w, 1, cols > 2 ? cols - 2 : cols);
    h = layout_clamp(h, 1, rows > 2 ? rows - 2 : rows);
    return layout_rect((cols - w) / 2, (rows - h) / 2, w, h);
}

size_t layout_pane_of(const struct layout *l, size_t prog)
{
    if (l->nfolded && prog + 1 >= l->nprogs)
        return prog < l->nprogs - 1 + l->nfolded ? l->nprogs - 1 : l->nprogs;
    return prog < l->nprogs ? prog : l->nprogs;
}

bool layout_contains(struct layout_rect r, int x, int y)
{
    return x >= r.x && x < r.x + r.w && y >= r.y && y < r.y + r.h;
}
