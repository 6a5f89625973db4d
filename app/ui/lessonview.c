/*
 * lessonview: the lesson screen. It draws what every step has (the title bar, the step's text
 * with its title, scrolled with j/k) and moves between steps (n, p, back to the list); the rest
 * is the step's kind's view (stepview.h), opened when the step opens and closed when it is left:
 * its panes, its keys, its rows under the text and what makes the step done. The screen never
 * asks which kind a step is.
 *
 * Done: a kind whose steps are done once read (done_when_read) is marked done when the learner
 * moves on with n; any other is marked done when its view says so, checked before every frame.
 */
#include "lessonview.h"

#include "footrows.h"
#include "stepview.h"
#include "widgets.h"
#include "wrap.h"

#include <stdlib.h>
#include <string.h>

struct lessonview {
    const struct lesson_pack *pack;
    size_t lesson, step;
    const struct stepview_kind *kind; /* the step's view, or NULL when the kind has none */
    void *kv;                         /* its state */
    struct wrap_doc text;
    int text_width;
    size_t text_scroll;
    int text_shown; /* rows of the text last shown: j moves it by a page less one row */
    bool done;      /* this step is done (marked in progress) */
    /* A key asked to leave the step while its scenario runs: the action waits for a y. */
    bool confirm;
    struct view_action pending;
    /* The open step's own context (see lessonview_in), and those of the steps closed before:
       kept until the screen goes, since a closed step's callbacks may still write there. */
    struct lessonview_ctx *sc, *closed;
    unsigned sc_seen; /* the step's status_gen last shown */
};

/*
 * A step's view gets a view_ctx of its own, a copy of the screen's: its status line and dirty
 * mark are its own, and reach the screen's only while it is the open step. A step's callbacks
 * can run after it was left (an engine's or a sweep's last words, a build's verdict); what they
 * say then goes where no screen shows it, never onto another step or the lesson list.
 */
struct lessonview_ctx {
    struct view_ctx c;
    struct lessonview_ctx *next;
};

/* The step's context, brought up to date with the screen's (layout, terminal) before a call. */
static struct view_ctx *lessonview_in(struct lessonview *v, struct view_ctx *c)
{
    if (!v->sc)
        return c;
    struct view_ctx *sc = &v->sc->c, keep = *sc;
    *sc = *c;
    memcpy(sc->status, keep.status, sizeof sc->status);
    sc->status_bad = keep.status_bad;
    sc->status_gen = keep.status_gen;
    sc->dirty = keep.dirty;
    return sc;
}

/* What the open step said or changed since: onto the screen's status line and dirty mark. */
static void lessonview_out(struct lessonview *v, struct view_ctx *c)
{
    if (!v->sc)
        return;
    struct view_ctx *sc = &v->sc->c;
    if (sc->dirty)
        c->dirty = true;
    sc->dirty = false;
    if (sc->status_gen == v->sc_seen)
        return;
    v->sc_seen = sc->status_gen;
    memcpy(c->status, sc->status, sizeof c->status);
    c->status_bad = sc->status_bad;
    c->status_gen++;
    c->dirty = true;
}

static const struct lesson_step *lessonview_step(const struct lessonview *v)
{
    const struct lesson *l = &v->pack->lessons[v->lesson];
    return &l->steps[v->step];
}

static void lessonview_close_step(struct lessonview *v, struct view_ctx *c)
{
    /* What the step says as it closes is not shown: the screen moves on. */
    if (v->kind && v->kv)
        v->kind->close(v->kv, lessonview_in(v, c));
    v->kind = NULL;
    v->kv = NULL;
    if (v->sc) {
        v->sc->next = v->closed;
        v->closed = v->sc;
        v->sc = NULL;
    }
}

struct lessonview *lessonview_new(void)
{
    struct lessonview *v = calloc(1, sizeof *v);
    if (v)
        v->text_width = -1;
    return v;
}

void lessonview_free(struct lessonview *v, struct view_ctx *c)
{
    if (!v)
        return;
    lessonview_close_step(v, c);
    while (v->closed) {
        struct lessonview_ctx *next = v->closed->next;
        free(v->closed);
        v->closed = next;
    }
    wrap_doc_free(&v->text);
    free(v);
}

int lessonview_open(struct lessonview *v, struct view_ctx *c, const struct lesson_pack *pack,
                    size_t lesson, size_t step)
{
    if (lesson >= pack->nlessons || step >= pack->lessons[lesson].nsteps)
        return -1;
    lessonview_close_step(v, c);
    /* n on a lesson's last step goes on to the next lesson: said, since nothing else does. */
    bool next_lesson = v->pack == pack && lesson == v->lesson + 1 && step == 0 &&
                       v->step + 1 == pack->lessons[v->lesson].nsteps;
    v->confirm = false;
    v->pack = pack;
    v->lesson = lesson;
    v->step = step;
    v->text_width = -1;
    v->text_scroll = 0;
    const struct lesson *l = &pack->lessons[lesson];
    const struct lesson_step *st = &l->steps[step];
    v->done = c->progress && progress_is_done(c->progress, pack->id, l->id, st->id);
    v->kind = stepview_find(lesson_step_kind_name(st));
    /* The step's own context starts with a blank status line: nothing said elsewhere. */
    v->sc = calloc(1, sizeof *v->sc);
    v->sc_seen = 0;
    struct view_ctx *sc = lessonview_in(v, c);
    if (v->sc) {
        sc->status[0] = '\0';
        sc->status_bad = false;
    }
    if (v->kind) {
        struct stepview_env env = {.pack = pack, .lesson = l, .step = st, .done = v->done};
        v->kv = v->kind->open(&env, sc);
        if (!v->kv)
            v->kind = NULL;
    }
    if (c->progress) {
        progress_set_last(c->progress, pack->id, l->id, st->id);
        view_save_progress(c);
    }
    const char *hint = !v->kind ? "This step's kind cannot be shown; n goes on to the next step."
                       : v->kind->open_hint ? v->kind->open_hint
                                            : "n: next step, p: previous, h: back to the lessons.";
    if (next_lesson)
        view_status(sc, !v->kind, "Next lesson: %s (%zu of %zu). %s", l->title, lesson + 1,
                    pack->nlessons, hint);
    else
        view_status(sc, !v->kind, "%s", hint);
    lessonview_out(v, c);
    view_log(c, "open %s/%s", l->id, st->id);
    c->dirty = true;
    return 0;
}

static void lessonview_mark_done(struct lessonview *v, struct view_ctx *c)
{
    const struct lesson *l = &v->pack->lessons[v->lesson];
    v->done = true;
    if (c->progress) {
        progress_mark_done(c->progress, v->pack->id, l->id, lessonview_step(v)->id);
        view_save_progress(c);
    }
}

static void lessonview_settle(void *self, struct view_ctx *c)
{
    struct lessonview *v = self;
    /* Once a loop turn: what the step's callbacks said since (a snapshot, a build's end). */
    lessonview_out(v, c);
    if (v->done || !v->kind || !v->kind->done || !v->kind->done(v->kv))
        return;
    lessonview_mark_done(v, c);
    view_status(c, false, "Step done %s  n goes on to the next step.", c->caps->g->done);
}

/* ---- keys ---- */

static int lessonview_goto(struct lessonview *v, struct view_ctx *c, int delta,
                           struct view_action *act)
{
    const struct lesson *l = &v->pack->lessons[v->lesson];
    if (delta > 0 && !v->done && (!v->kind || v->kind->done_when_read) && c->progress) {
        /* A step that is done once read: the learner moved on from it. */
        progress_mark_done(c->progress, v->pack->id, l->id, lessonview_step(v)->id);
    }
    if (delta < 0 && v->step == 0) {
        view_status(c, false, "This is the first step of the lesson.");
        return 0;
    }
    *act = (struct view_action){.kind = VIEW_OPEN, .pack = v->pack, .lesson = v->lesson};
    if (delta > 0 && v->step + 1 >= l->nsteps) {
        if (v->lesson + 1 < v->pack->nlessons) {
            act->lesson = v->lesson + 1;
            act->step = 0;
            return 0;
        }
        *act = (struct view_action){.kind = VIEW_HOME,
                                    .status = "That was the last step of the last lesson."};
        return 0;
    }
    act->step = delta > 0 ? v->step + 1 : v->step - 1;
    return 0;
}

static int lessonview_key_next(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    (void)key;
    return lessonview_goto(self, c, 1, act);
}

static int lessonview_key_prev(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    (void)key;
    return lessonview_goto(self, c, -1, act);
}

static int lessonview_key_back(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    (void)self;
    (void)c;
    (void)key;
    *act = (struct view_action){.kind = VIEW_HOME};
    return 0;
}

static int lessonview_key_scroll(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct lessonview *v = self;
    (void)c;
    (void)act;
    size_t last = v->text.nlines ? v->text.nlines - 1 : 0;
    /* j and k move by what is shown less one row, kept for context (footrows_page), so that a
       text in a small pane passes by in a few presses; the arrows move by one row. */
    size_t page = (size_t)footrows_page(v->text_shown);
    size_t full =
        v->text.nlines > (size_t)v->text_shown ? v->text.nlines - (size_t)v->text_shown : 0;
    /* The rows under the text that do not fit (checks with their advice) scroll too: down once
       the text has passed by, up before the text does, so j reads on and k reads back. */
    bool down = key == 'j' || key == KEY_DOWN || key == KEY_NPAGE;
    bool up = key == 'k' || key == KEY_UP || key == KEY_PPAGE;
    int (*foot)(void *, int) = v->kind ? v->kind->foot_scroll : NULL;
    if (foot &&
        ((down && v->text_scroll >= full && foot(v->kv, 1) == 0) || (up && foot(v->kv, -1) == 0)))
        return 0;
    if (key == KEY_UP)
        v->text_scroll -= v->text_scroll > 0;
    else if (key == KEY_DOWN)
        v->text_scroll += v->text_scroll < last;
    else if (key == 'k')
        v->text_scroll = v->text_scroll > page ? v->text_scroll - page : 0;
    else if (key == 'j')
        v->text_scroll = v->text_scroll + page < full ? v->text_scroll + page
                         : full > v->text_scroll      ? full
                                                      : v->text_scroll;
    else if (key == KEY_PPAGE)
        v->text_scroll = v->text_scroll > 10 ? v->text_scroll - 10 : 0;
    else if (key == KEY_NPAGE)
        v->text_scroll = v->text_scroll + 10 < last ? v->text_scroll + 10 : last;
    return 0;
}

static const struct keybind lessonview_bindings[] = {
    {.key = 'n',
     .name = "n",
     .label = "next",
     .help = "next step",
     .priority = 95,
     .fn = lessonview_key_next},
    {.key = 'p',
     .name = "p",
     .label = "prev",
     .help = "previous step",
     .priority = 30,
     .fn = lessonview_key_prev},
    {.key = KEY_LEFT,
     .alt = 'h',
     .name = "Left/h",
     .label = "lessons",
     .help = "back to the lesson list (Esc too)",
     .priority = 20,
     .fn = lessonview_key_back},
    {.key = 27, .name = "Esc", .fn = lessonview_key_back},
    {.key = KEY_UP,
     .alt = 'k',
     .name = "Up/k",
     .help = "scroll the text up (k: by what is shown less one row); checks scrolled down "
             "go back first",
     .fn = lessonview_key_scroll},
    {.key = KEY_DOWN,
     .alt = 'j',
     .name = "Down/j",
     .label = "scroll",
     .help = "scroll the text down (j: by what is shown less one row), then the checks when "
             "their advice does not fit under it",
     .priority = 10,
     .fn = lessonview_key_scroll},
    {.key = KEY_PPAGE,
     .alt = KEY_NPAGE,
     .name = "PgUp/PgDn",
     .help = "scroll the text by ten lines",
     .fn = lessonview_key_scroll},
};
const struct keytable lessonview_keys = KEYTABLE("Lesson", lessonview_bindings);

static bool lessonview_busy(void *self)
{
    struct lessonview *v = self;
    return v->kind && v->kind->busy && v->kind->busy(v->kv);
}

static int lessonview_key(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct lessonview *v = self;
    if (v->confirm) {
        /* y leaves (and stops the scenario); any other key stays, and does nothing else. */
        v->confirm = false;
        if (key == 'y' || key == 'Y')
            *act = v->pending;
        else
            view_status(c, false, "Stayed in the step; the scenario keeps running.");
        return 0;
    }
    if (v->kind && v->kind->key) {
        int rc = v->kind->key(v->kv, lessonview_in(v, c), key);
        lessonview_out(v, c);
        if (rc == 0)
            return 0;
    }
    const struct keybind *b = v->kind && v->kind->keys ? keys_find(v->kind->keys, key) : NULL;
    if (b) {
        int rc = b->fn(v->kv, lessonview_in(v, c), key, act);
        lessonview_out(v, c);
        return rc;
    }
    if (!(b = keys_find(&lessonview_keys, key)))
        return -1;
    int rc = b->fn(v, c, key, act);
    if ((act->kind == VIEW_OPEN || act->kind == VIEW_HOME) && lessonview_busy(v)) {
        /* Leaving stops the scenario: a stray key must not do that unasked. */
        v->pending = *act;
        v->confirm = true;
        *act = (struct view_action){.kind = VIEW_STAY};
    }
    return rc;
}

static size_t lessonview_keytables(void *self, const struct keytable **out, size_t max)
{
    struct lessonview *v = self;
    size_t n = 0;
    if (v->kind && v->kind->keys && n < max)
        out[n++] = v->kind->keys;
    if (n < max)
        out[n++] = &lessonview_keys;
    return n;
}

const struct lesson_pack *lessonview_place(const struct lessonview *v, size_t *lesson)
{
    *lesson = v->lesson;
    return v->pack;
}

size_t lessonview_footer_extra(struct lessonview *v, int width, struct keys_item *out, size_t max)
{
    return v->kind && v->kind->footer ? v->kind->footer(v->kv, width, out, max) : 0;
}

size_t lessonview_help_extra(struct lessonview *v, char lines[][128], size_t max)
{
    return v->kind && v->kind->help ? v->kind->help(v->kv, lines, max) : 0;
}

static void lessonview_click(void *self, struct view_ctx *c, int x, int y, struct view_action *act)
{
    struct lessonview *v = self;
    (void)act;
    if (v->kind && v->kind->click) {
        v->kind->click(v->kv, lessonview_in(v, c), x, y);
        lessonview_out(v, c);
    }
}

static void lessonview_leave(void *self, struct view_ctx *c)
{
    lessonview_close_step(self, c);
}

static enum layout_kind lessonview_layout(void *self, size_t *nprogs)
{
    struct lessonview *v = self;
    *nprogs = 0;
    return v->kind ? v->kind->layout(v->kv, nprogs) : LAYOUT_TEXT;
}

/* ---- drawing ---- */

static void lessonview_draw_text(struct lessonview *v, struct view_ctx *vc)
{
    const struct screen_caps *c = vc->caps;
    const struct lesson *l = &v->pack->lessons[v->lesson];
    const struct lesson_step *st = lessonview_step(v);
    char title[128];
    snprintf(title, sizeof title, "Step %zu/%zu", v->step + 1, l->nsteps);
    bool focused = !v->kind || !v->kind->text_focused || v->kind->text_focused(v->kv);
    struct layout_rect in = widgets_box(c, vc->layout.text, title, focused);
    int bw = in.w - 2;
    if (bw != v->text_width) {
        wrap_doc_free(&v->text);
        char *md = NULL;
        /* The step's title heads its text, unless the text opens with its own heading. */
        const char *text = st->text ? st->text : "";
        if (asprintf(&md, "%s%s%s%s", text[0] == '#' ? "" : "# ", text[0] == '#' ? "" : st->title,
                     text[0] == '#' ? "" : "\n\n", text) >= 0) {
            wrap_markdown(md, bw, c->utf8, &v->text);
            free(md);
        }
        v->text_width = bw;
    }
    int foot = v->kind && v->kind->text_foot_rows ? v->kind->text_foot_rows(v->kv, in.h) : 0;
    const char *first = v->kind && v->kind->foot_first ? v->kind->foot_first(v->kv) : NULL;
    if (v->kind && v->kind->text_room)
        /* The foot keeps at least its first rows (the files, the first check's name). */
        foot = footrows_split(in.h, (int)v->text.nlines, foot, 4, first != NULL);
    struct layout_rect body = {in.x + 1, in.y, bw, in.h - foot};
    size_t n = v->text.nlines;
    if (v->text_scroll >= n)
        v->text_scroll = n ? n - 1 : 0;
    /* A text longer than its rows says so on its last row, after the last word when there is
       room, else on a row of its own: never over a word. Under a build error j scrolls the
       compiler's messages, and the hint says so. */
    const char *hint = first ? first : "(more: j)";
    int hw = (int)strlen(hint);
    int shown = body.h;
    bool more = body.h > 0 && v->text_scroll + (size_t)body.h < n;
    if (more && body.h > 1 &&
        !footrows_more_fits(v->text.lines[v->text_scroll + (size_t)body.h - 1].width, hw, body.w))
        shown--;
    v->text_shown = shown;
    widgets_doc(c, (struct layout_rect){body.x, body.y, body.w, shown}, &v->text, v->text_scroll);
    if (more)
        widgets_text(c, body.x + body.w - hw, body.y + body.h - 1, hw, screen_attr(SCREEN_DIM),
                     hint);
    if (foot)
        v->kind->draw_text_foot(v->kv, lessonview_in(v, vc),
                                (struct layout_rect){in.x + 1, in.y + in.h - foot, in.w - 2, foot});
}

static void lessonview_draw(void *self, struct view_ctx *vc)
{
    struct lessonview *v = self;
    const struct screen_caps *c = vc->caps;
    const struct lesson *l = &v->pack->lessons[v->lesson];
    const struct lesson_step *st = lessonview_step(v);
    attron(screen_attr(SCREEN_TITLE));
    mvhline(0, 0, ' ', COLS);
    attroff(screen_attr(SCREEN_TITLE));
    char right[160] = "";
    if (v->kind && v->kind->title_right)
        v->kind->title_right(v->kv, right, sizeof right);
    int rw = (int)strlen(right);
    /* "(done)" comes first: a long title is cut at its end, and the pass must not be. A step
       done on an earlier visit whose run now fails a check is "done before": the title must not
       call the run on screen done while its checks say otherwise. */
    bool failing = v->done && v->kind && v->kind->done && v->kind->busy && v->kind->busy(v->kv) &&
                   !v->kind->done(v->kv);
    widgets_printf(c, 1, 0, COLS - rw - 2, screen_attr(SCREEN_TITLE) | A_BOLD, "iolab%s - %s - %s",
                   !v->done  ? ""
                   : failing ? " (done before)"
                             : " (done)",
                   l->title, st->title);
    widgets_text(c, COLS - rw, 0, rw, screen_attr(SCREEN_TITLE), right);
    lessonview_draw_text(v, vc);
    if (v->kind && v->kind->draw)
        v->kind->draw(v->kv, lessonview_in(v, vc));
    /* Drawing may set the status line (a figure first seen): shown next frame. */
    lessonview_out(v, vc);
    if (v->confirm) {
        struct layout_rect r = layout_center(COLS, LINES, 56, 5);
        widgets_clear(r);
        struct layout_rect in = widgets_box(c, r, "Leave the step?", true);
        widgets_text(c, in.x + 1, in.y, in.w - 2, A_BOLD,
                     "The scenario is running. Leave and stop it?");
        widgets_text(c, in.x + 1, in.y + 2, in.w - 2, A_NORMAL,
                     "y: leave and stop    any other key: stay");
    }
}

const struct view_ops lessonview_ops = {
    .draw = lessonview_draw,
    .key = lessonview_key,
    .click = lessonview_click,
    .settle = lessonview_settle,
    .leave = lessonview_leave,
    .layout = lessonview_layout,
    .keytables = lessonview_keytables,
    .busy = lessonview_busy,
};
