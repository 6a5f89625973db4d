/*
 * start: the start screen. The list's rows are a table built from the packs: row 0 is "continue
 * where I left off" in the pack iolab opened (selected by default; it reads "Start: <first
 * lesson>" while that pack has no progress, since there is nothing to continue yet), then each
 * pack's lessons with their progress marks (done: every step done; in progress; new), under a
 * heading per pack when there is more than one (the packs installed under
 * $XDG_DATA_HOME/iolab/packs/ follow the first). Headings are never selected. The right pane shows
 * the selected lesson's summary and steps, or a pack's description.
 */
#include "start.h"

#include "widgets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct startview {
    const struct lesson_pack *primary; /* the pack iolab opened: the title and "continue" */
    const struct lesson_pack *const *extra;
    size_t nextra;
    struct progress *progress;
    size_t sel; /* the selected row; 0 is "continue" */
};

enum start_mark {
    START_NEW,
    START_PARTIAL,
    START_DONE,
};

enum start_kind {
    START_CONTINUE,
    START_HEADING,
    START_LESSON,
};

struct start_row {
    enum start_kind kind;
    const struct lesson_pack *pack;
    size_t lesson; /* START_LESSON: index in pack->lessons */
};

#define START_MAX_ROWS 1024

static const struct lesson_pack *start_pack(const struct startview *t, size_t i)
{
    return i == 0 ? t->primary : t->extra[i - 1];
}

/* The rows of the list, in order; returns how many. */
static size_t start_rows(const struct startview *t, struct start_row *rows)
{
    size_t n = 0, npacks = 1 + t->nextra;
    rows[n++] = (struct start_row){.kind = START_CONTINUE, .pack = t->primary};
    for (size_t p = 0; p < npacks && n < START_MAX_ROWS; p++) {
        const struct lesson_pack *pk = start_pack(t, p);
        if (npacks > 1)
            rows[n++] = (struct start_row){.kind = START_HEADING, .pack = pk};
        for (size_t l = 0; l < pk->nlessons && n < START_MAX_ROWS; l++)
            rows[n++] = (struct start_row){.kind = START_LESSON, .pack = pk, .lesson = l};
    }
    return n;
}

static enum start_mark start_mark_of(const struct startview *t, const struct lesson_pack *pk,
                                     const struct lesson *l)
{
    size_t done = t->progress ? progress_lesson_done(t->progress, pk->id, l->id) : 0;
    return done == 0 ? START_NEW : done >= l->nsteps ? START_DONE : START_PARTIAL;
}

/* Where "continue" leads in the first pack: the last place, or the first step not done. */
static void start_continue_target(const struct startview *t, size_t *lesson, size_t *step)
{
    const struct lesson_pack *pk = t->primary;
    *lesson = 0;
    *step = 0;
    const struct progress_pack *pp = t->progress ? progress_pack_find(t->progress, pk->id) : NULL;
    if (pp && pp->last_lesson) {
        for (size_t i = 0; i < pk->nlessons; i++) {
            const struct lesson *l = &pk->lessons[i];
            if (strcmp(l->id, pp->last_lesson))
                continue;
            *lesson = i;
            for (size_t s = 0; s < l->nsteps; s++)
                if (pp->last_step && !strcmp(l->steps[s].id, pp->last_step))
                    *step = s;
            return;
        }
    }
    for (size_t i = 0; i < pk->nlessons; i++) {
        const struct lesson *l = &pk->lessons[i];
        for (size_t s = 0; s < l->nsteps; s++) {
            if (!t->progress || !progress_is_done(t->progress, pk->id, l->id, l->steps[s].id)) {
                *lesson = i;
                *step = s;
                return;
            }
        }
    }
}

/* Whether the learner has been in the first pack before: a last place or a step done. */
static bool start_has_progress(const struct startview *t)
{
    const struct progress_pack *pp =
        t->progress ? progress_pack_find(t->progress, t->primary->id) : NULL;
    return pp && (pp->last_lesson || pp->ndone > 0);
}

static int start_open(struct startview *t, struct view_action *act)
{
    struct start_row rows[START_MAX_ROWS];
    size_t n = start_rows(t, rows);
    if (t->sel >= n || rows[t->sel].kind == START_HEADING)
        return 0;
    const struct start_row *r = &rows[t->sel];
    size_t lesson = r->lesson, step = 0;
    if (r->kind == START_CONTINUE) {
        if (t->primary->nlessons == 0)
            return 0;
        start_continue_target(t, &lesson, &step);
    }
    *act = (struct view_action){.kind = VIEW_OPEN, .pack = r->pack, .lesson = lesson, .step = step};
    return 0;
}

void start_select(struct startview *t, const struct lesson_pack *pack, size_t lesson)
{
    struct start_row rows[START_MAX_ROWS];
    size_t n = start_rows(t, rows);
    for (size_t i = 0; i < n; i++)
        if (rows[i].kind == START_LESSON && rows[i].pack == pack && rows[i].lesson == lesson)
            t->sel = i;
}

/* Moves the selection by dir (+1, -1) over the selectable rows, wrapping around. */
static void start_move(struct startview *t, int dir)
{
    struct start_row rows[START_MAX_ROWS];
    size_t n = start_rows(t, rows), sel = t->sel;
    do
        sel = (sel + n + (size_t)(dir < 0 ? -1 : 1)) % n;
    while (rows[sel].kind == START_HEADING);
    t->sel = sel;
}

/* The right pane for a lesson: its title, summary and steps (cont_step in bold, or none). */
static void start_draw_lesson(struct startview *t, const struct screen_caps *c,
                              struct layout_rect d, const struct lesson_pack *pk,
                              const struct lesson *l, long cont_step)
{
    int y = d.y;
    widgets_text(c, d.x + 1, y++, d.w - 2, screen_attr(SCREEN_HEADING), l->title);
    struct wrap_doc doc = {0};
    if (l->summary && wrap_plain(l->summary, d.w - 2, c->utf8, &doc) == 0) {
        widgets_doc(c, (struct layout_rect){d.x + 1, y + 1, d.w - 2, d.h - 3}, &doc, 0);
        y += 2 + (int)doc.nlines;
    }
    wrap_doc_free(&doc);
    widgets_text(c, d.x + 1, y++, d.w - 2, A_BOLD, "Steps");
    for (size_t s = 0; s < l->nsteps && y < d.y + d.h; s++, y++) {
        bool done = t->progress && progress_is_done(t->progress, pk->id, l->id, l->steps[s].id);
        widgets_text(c, d.x + 1, y, 2, screen_attr(done ? SCREEN_GOOD : SCREEN_DIM),
                     done ? c->g->done : "-");
        /* The kind's label stays whole: a long title is cut to make room for it. */
        char label[32];
        snprintf(label, sizeof label, "  (%s)", lesson_step_label(&l->steps[s]));
        int lw = (int)strlen(label), w = d.w - 5;
        int used = widgets_text(c, d.x + 4, y, w > lw ? w - lw : w,
                                (long)s == cont_step ? A_BOLD : A_NORMAL, l->steps[s].title);
        if (w > lw)
            widgets_text(c, d.x + 4 + used, y, lw, screen_attr(SCREEN_DIM), label);
    }
}

static void start_draw(void *self, struct view_ctx *vc)
{
    struct startview *t = self;
    const struct screen_caps *c = vc->caps;
    const struct layout *L = &vc->layout;
    attron(screen_attr(SCREEN_TITLE));
    mvhline(0, 0, ' ', COLS);
    attroff(screen_attr(SCREEN_TITLE));
    widgets_printf(c, 1, 0, COLS - 2, screen_attr(SCREEN_TITLE) | A_BOLD, "iolab - %s (%s)%s",
                   t->primary->title, t->primary->id, t->nextra ? ", and installed packs" : "");

    struct start_row rows[START_MAX_ROWS];
    size_t nrows = start_rows(t, rows);
    if (t->sel >= nrows)
        t->sel = 0;
    struct layout_rect in = widgets_box(c, L->list, "Lessons", true);
    size_t first = t->sel >= (size_t)in.h ? t->sel - (size_t)in.h + 1 : 0;
    size_t number = 0; /* lessons are numbered within their pack */
    for (size_t e = 0; e < nrows; e++) {
        const struct start_row *r = &rows[e];
        number = r->kind == START_LESSON ? number + 1 : 0;
        if (e < first || (int)(e - first) >= in.h)
            continue;
        int y = in.y + (int)(e - first);
        bool sel = e == t->sel;
        attr_t a = sel ? screen_attr(SCREEN_FOCUS) | A_REVERSE : A_NORMAL;
        if (sel) {
            attron(a);
            mvhline(y, in.x, ' ', in.w);
            attroff(a);
        }
        if (r->kind == START_CONTINUE) {
            size_t l, s;
            start_continue_target(t, &l, &s);
            const struct lesson *ls = t->primary->nlessons ? &t->primary->lessons[l] : NULL;
            widgets_printf(c, in.x + 1, y, in.w - 2, a | A_BOLD, "%s %s: %s", c->g->cursor,
                           start_has_progress(t) ? "Continue" : "Start",
                           ls ? ls->title : "(no lessons)");
            continue;
        }
        if (r->kind == START_HEADING) {
            widgets_printf(c, in.x + 1, y, in.w - 2, screen_attr(SCREEN_HEADING), "%s",
                           r->pack->title);
            continue;
        }
        const struct lesson *l = &r->pack->lessons[r->lesson];
        enum start_mark m = start_mark_of(t, r->pack, l);
        const char *mark = m == START_DONE ? c->g->done : m == START_PARTIAL ? c->g->partial : " ";
        int x = in.x + 1;
        x += widgets_text(c, x, y, 2, a | screen_attr(m == START_DONE ? SCREEN_GOOD : SCREEN_DIM),
                          mark);
        x += 1;
        widgets_printf(c, x, y, in.x + in.w - x - 1, a, "%2zu. %s", number, l->title);
    }

    struct layout_rect d = widgets_box(c, L->detail, NULL, false);
    const struct start_row *r = &rows[t->sel];
    if (r->kind == START_CONTINUE) {
        size_t li, step;
        start_continue_target(t, &li, &step);
        if (li < t->primary->nlessons)
            start_draw_lesson(t, c, d, t->primary, &t->primary->lessons[li], (long)step);
    } else if (r->kind == START_LESSON) {
        start_draw_lesson(t, c, d, r->pack, &r->pack->lessons[r->lesson], -1);
    }
}

static int start_key_move(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct startview *t = self;
    struct start_row rows[START_MAX_ROWS];
    size_t n = start_rows(t, rows);
    (void)c;
    (void)act;
    if (key == KEY_HOME)
        t->sel = 0;
    else if (key == KEY_END)
        t->sel = n - 1;
    else
        start_move(t, key == KEY_UP || key == 'k' ? -1 : +1);
    return 0;
}

static int start_key_open(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    (void)c;
    (void)key;
    return start_open(self, act);
}

static const struct keybind start_bindings[] = {
    {.key = '\r',
     .alt = KEY_ENTER,
     .name = "Enter",
     .label = "open",
     .help = "open the selected lesson",
     .priority = 90,
     .fn = start_key_open},
    {.key = '\n',
     .alt = KEY_RIGHT,
     .name = "Right/l",
     .help = "open the selected lesson",
     .fn = start_key_open},
    {.key = 'l', .name = "l", .fn = start_key_open},
    {.key = KEY_UP,
     .alt = 'k',
     .name = "Up/k",
     .label = "up",
     .help = "select the lesson above",
     .priority = 40,
     .fn = start_key_move},
    {.key = KEY_DOWN,
     .alt = 'j',
     .name = "Down/j",
     .label = "down",
     .help = "select the lesson below",
     .priority = 40,
     .fn = start_key_move},
    {.key = KEY_HOME,
     .alt = KEY_END,
     .name = "Home/End",
     .help = "select the first or the last entry",
     .fn = start_key_move},
};
const struct keytable start_keys = KEYTABLE("Lesson list", start_bindings);

static int start_key(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    const struct keybind *b = keys_find(&start_keys, key);
    return b ? b->fn(self, c, key, act) : -1;
}

static void start_click(void *self, struct view_ctx *c, int x, int y, struct view_action *act)
{
    struct startview *t = self;
    struct layout_rect list = c->layout.list;
    if (!layout_contains(list, x, y) || y <= list.y || y >= list.y + list.h - 1)
        return;
    struct start_row rows[START_MAX_ROWS];
    size_t n = start_rows(t, rows);
    int inner_h = list.h - 2;
    size_t first = t->sel >= (size_t)inner_h ? t->sel - (size_t)inner_h + 1 : 0;
    size_t e = first + (size_t)(y - list.y - 1);
    if (e >= n || rows[e].kind == START_HEADING)
        return;
    /* A click selects; a click on the selected entry opens it. */
    if (e == t->sel)
        start_open(t, act);
    else
        t->sel = e;
}

static enum layout_kind start_layout(void *self, size_t *nprogs)
{
    (void)self;
    *nprogs = 0;
    return LAYOUT_START;
}

static size_t start_keytables(void *self, const struct keytable **out, size_t max)
{
    (void)self;
    if (!max)
        return 0;
    out[0] = &start_keys;
    return 1;
}

const struct view_ops start_ops = {
    .draw = start_draw,
    .key = start_key,
    .click = start_click,
    .layout = start_layout,
    .keytables = start_keytables,
};

struct startview *start_new(const struct lesson_pack *primary,
                            const struct lesson_pack *const *extra, size_t nextra,
                            struct progress *progress)
{
    struct startview *t = calloc(1, sizeof *t);
    if (t)
        *t = (struct startview){
            .primary = primary, .extra = extra, .nextra = nextra, .progress = progress};
    return t;
}

void start_free(struct startview *t)
{
    free(t);
}
