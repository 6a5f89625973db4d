/*
 * start: the start screen. Entry 0 is "continue where I left off" (selected by default), then one
 * entry per lesson with its progress mark: done (every step done), in progress, new. The right
 * pane shows the selected lesson's summary and steps.
 */
#include "tui.h"
#include "widgets.h"

#include <string.h>

enum start_mark {
    START_NEW,
    START_PARTIAL,
    START_DONE,
};

static enum start_mark start_mark_of(const struct tui *t, const struct lesson *l)
{
    size_t done = t->progress ? progress_lesson_done(t->progress, t->pack->id, l->id) : 0;
    return done == 0 ? START_NEW : done >= l->nsteps ? START_DONE : START_PARTIAL;
}

/* Where "continue" leads: the last place, or the first step not done. */
static void start_continue_target(const struct tui *t, size_t *lesson, size_t *step)
{
    *lesson = 0;
    *step = 0;
    const struct progress_pack *pk =
        t->progress ? progress_pack_find(t->progress, t->pack->id) : NULL;
    if (pk && pk->last_lesson) {
        for (size_t i = 0; i < t->pack->nlessons; i++) {
            const struct lesson *l = &t->pack->lessons[i];
            if (strcmp(l->id, pk->last_lesson))
                continue;
            *lesson = i;
            for (size_t s = 0; s < l->nsteps; s++)
                if (pk->last_step && !strcmp(l->steps[s].id, pk->last_step))
                    *step = s;
            return;
        }
    }
    for (size_t i = 0; i < t->pack->nlessons; i++) {
        const struct lesson *l = &t->pack->lessons[i];
        for (size_t s = 0; s < l->nsteps; s++) {
            if (!t->progress ||
                !progress_is_done(t->progress, t->pack->id, l->id, l->steps[s].id)) {
                *lesson = i;
                *step = s;
                return;
            }
        }
    }
}

static void start_open(struct tui *t)
{
    if (t->pack->nlessons == 0)
        return;
    size_t lesson = 0, step = 0;
    if (t->start_sel == 0)
        start_continue_target(t, &lesson, &step);
    else
        lesson = t->start_sel - 1;
    tui_open_step(t, lesson, step);
}

void start_draw(struct tui *t)
{
    const struct screen_caps *c = &t->caps;
    const struct layout *L = &t->layout;
    attron(screen_attr(SCREEN_TITLE));
    mvhline(0, 0, ' ', COLS);
    attroff(screen_attr(SCREEN_TITLE));
    widgets_printf(c, 1, 0, COLS - 2, screen_attr(SCREEN_TITLE) | A_BOLD, "iolab - %s (%s)",
                   t->pack->title, t->pack->id);

    struct layout_rect in = widgets_box(c, L->list, "Lessons", true);
    size_t nentries = t->pack->nlessons + 1;
    size_t first = t->start_sel >= (size_t)in.h ? t->start_sel - (size_t)in.h + 1 : 0;
    for (size_t e = first; e < nentries && (int)(e - first) < in.h; e++) {
        int y = in.y + (int)(e - first);
        bool sel = e == t->start_sel;
        attr_t a = sel ? screen_attr(SCREEN_FOCUS) | A_REVERSE : A_NORMAL;
        if (sel) {
            attron(a);
            mvhline(y, in.x, ' ', in.w);
            attroff(a);
        }
        if (e == 0) {
            size_t l, s;
            start_continue_target(t, &l, &s);
            const struct lesson *ls = t->pack->nlessons ? &t->pack->lessons[l] : NULL;
            widgets_printf(c, in.x + 1, y, in.w - 2, a | A_BOLD, "%s Continue: %s", c->g->cursor,
                           ls ? ls->title : "(no lessons)");
            continue;
        }
        const struct lesson *l = &t->pack->lessons[e - 1];
        enum start_mark m = start_mark_of(t, l);
        const char *mark = m == START_DONE ? c->g->done : m == START_PARTIAL ? c->g->partial : " ";
        int x = in.x + 1;
        x += widgets_text(c, x, y, 2, a | screen_attr(m == START_DONE ? SCREEN_GOOD : SCREEN_DIM),
                          mark);
        x += 1;
        widgets_printf(c, x, y, in.x + in.w - x - 1, a, "%2zu. %s", e, l->title);
    }

    struct layout_rect d = widgets_box(c, L->detail, NULL, false);
    size_t li = t->start_sel == 0 ? 0 : t->start_sel - 1;
    size_t cont_step = 0;
    if (t->start_sel == 0)
        start_continue_target(t, &li, &cont_step);
    if (li >= t->pack->nlessons)
        return;
    const struct lesson *l = &t->pack->lessons[li];
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
        bool done =
            t->progress && progress_is_done(t->progress, t->pack->id, l->id, l->steps[s].id);
        widgets_text(c, d.x + 1, y, 2, screen_attr(done ? SCREEN_GOOD : SCREEN_DIM),
                     done ? c->g->done : "-");
        widgets_printf(c, d.x + 4, y, d.w - 5,
                       t->start_sel == 0 && s == cont_step ? A_BOLD : A_NORMAL, "%s%s",
                       l->steps[s].title, l->steps[s].run ? "  (run)" : "");
    }
}

int start_key(struct tui *t, int key)
{
    size_t nentries = t->pack->nlessons + 1;
    switch (key) {
    case KEY_UP:
    case 'k':
        t->start_sel = t->start_sel ? t->start_sel - 1 : nentries - 1;
        return 0;
    case KEY_DOWN:
    case 'j':
        t->start_sel = (t->start_sel + 1) % nentries;
        return 0;
    case KEY_HOME:
        t->start_sel = 0;
        return 0;
    case KEY_END:
        t->start_sel = nentries - 1;
        return 0;
    case '\r':
    case '\n':
    case KEY_ENTER:
    case KEY_RIGHT:
    case 'l':
        start_open(t);
        return 0;
    default:
        return -1;
    }
}

void start_click(struct tui *t, int x, int y)
{
    struct layout_rect list = t->layout.list;
    if (!layout_contains(list, x, y) || y <= list.y || y >= list.y + list.h - 1)
        return;
    int inner_h = list.h - 2;
    size_t first = t->start_sel >= (size_t)inner_h ? t->start_sel - (size_t)inner_h + 1 : 0;
    size_t e = first + (size_t)(y - list.y - 1);
    if (e > t->pack->nlessons)
        return;
    /* A click selects; a click on the selected entry opens it. */
    if (e == t->start_sel)
        start_open(t);
    else
        t->start_sel = e;
}
