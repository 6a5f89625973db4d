/*
 * lessonview: the lesson screen. A text step is its wrapped text; a run step adds a pane per
 * program (its output as it comes, from the engine's line ring) and the counters pane, and owns
 * the step's engine: Enter starts the scenario, the lesson's mode keys switch the server while
 * the load keeps running, space pauses the load, r restarts, leaving the step stops everything.
 *
 * Focus cycles with Tab: 0 the text, 1..nprogs the program panes, nprogs+1 the counters. A
 * focused program pane that takes input (lesson_program.interactive) gets the typed keys; Enter
 * sends the line to the program's stdin, Esc leaves the pane.
 */
#include "tui.h"
#include "metrics/stats.h"
#include "widgets.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static size_t lessonview_nprogs(const struct tui *t)
{
    const struct lesson_step *st = tui_step(t);
    if (!st || !st->run)
        return 0;
    return st->run->nprograms < LAYOUT_MAX_PROGS ? st->run->nprograms : LAYOUT_MAX_PROGS;
}

static const struct lesson_program *lessonview_focused_prog(const struct tui *t)
{
    const struct lesson_step *st = tui_step(t);
    size_t n = lessonview_nprogs(t);
    if (t->focus < 1 || (size_t)t->focus > n)
        return NULL;
    return &st->run->programs[t->focus - 1];
}

/* ---- engine callbacks ---- */

static void lessonview_on_line(void *data, size_t prog, enum engine_stream stream, const char *line,
                               size_t len)
{
    struct tui *t = data;
    (void)prog;
    (void)stream;
    (void)line;
    (void)len;
    /* While the sampler ticks, output is drawn with the next snapshot: a chatty program must not
       make iolab redraw for every line. */
    if (t->est != ENGINE_RUNNING)
        t->dirty = true;
}

static void lessonview_on_exit(void *data, size_t prog, int status, bool expected)
{
    struct tui *t = data;
    const struct lesson_step *st = tui_step(t);
    const char *name =
        st && st->run && prog < st->run->nprograms ? st->run->programs[prog].name : "a program";
    tui_log(t, "%s exited with status %d%s", name, status, expected ? " (stopped)" : "");
    if (!expected && status != 0)
        tui_status(t, true, "%s exited with status %d%s; r restarts the scenario.", name, status,
                   status > 128 ? " (killed by a signal)" : "");
    else if (!expected)
        tui_status(t, false, "%s finished; r runs the scenario again.", name);
    t->dirty = true;
}

static void lessonview_check_done(struct tui *t)
{
    const struct lesson_step *st = tui_step(t);
    if (!st || !st->run || t->step_done)
        return;
    bool all = t->nresults == st->run->nchecks;
    for (size_t i = 0; i < t->nresults; i++)
        all = all && t->results[i].holds;
    /* A run step without checks is done once its scenario has run and been measured. */
    if (!all || (st->run->nchecks == 0 && !t->have_snap))
        return;
    t->step_done = true;
    if (t->progress) {
        const struct lesson *l = &t->pack->lessons[t->lesson];
        progress_mark_done(t->progress, t->pack->id, l->id, st->id);
        tui_save_progress(t);
    }
    tui_status(t, false, "Step done %s  n goes on to the next step.", t->caps.g->done);
}

void lessonview_on_snapshot(struct tui *t, const struct snapshot *snap)
{
    const struct lesson_step *st = tui_step(t);
    t->snap = *snap;
    t->have_snap = true;
    t->dirty = true;
    if (!st || !st->run)
        return;
    session_update(&t->session, st->run, snap);
    struct check_facts facts;
    session_facts(&t->session, &facts);
    size_t n = st->run->nchecks < 16 ? st->run->nchecks : 16;
    for (size_t i = 0; i < n; i++)
        if (check_eval(&st->run->checks[i], &facts, &t->results[i]) < 0)
            t->results[i] = (struct check_result){0};
    t->nresults = n;
    lessonview_check_done(t);
}

static void lessonview_snapshot_cb(void *data, const struct snapshot *snap)
{
    lessonview_on_snapshot(data, snap);
}

static void lessonview_on_state(void *data, enum engine_state state)
{
    struct tui *t = data;
    t->est = state;
    t->dirty = true;
    tui_log(t, "engine %s", engine_state_name(state));
    if (state == ENGINE_FAILED && t->engine)
        tui_status(t, true, "The scenario could not start: %s", engine_error(t->engine));
    else if (state == ENGINE_RUNNING)
        tui_status(t, false, "Running. The footer's number keys switch the server's mode.");
}

void lessonview_leave(struct tui *t)
{
    if (t->engine) {
        /* engine_free kills whatever still runs; its handles close on the next loop turns. */
        engine_free(t->engine);
        t->engine = NULL;
    }
    t->est = ENGINE_IDLE;
    if (t->have_snap)
        stats_mode_rows_merge(t->past_modes, &t->npast_modes, SNAPSHOT_MAX_MODES, t->snap.modes,
                              t->snap.nmodes);
    t->have_snap = false;
    t->paused = false;
    t->compare = false;
    t->ninput = 0;
}

void lessonview_start(struct tui *t, int mode)
{
    const struct lesson_step *st = tui_step(t);
    if (!st || !st->run)
        return;
    lessonview_leave(t);
    session_new_run(&t->session);
    struct engine_options eo = {
        .mode = mode >= 0 ? st->run->modes[mode].id : NULL,
        .tick_hz = t->opts.tick_hz,
        .tier = JAIL_TIER_AUTO,
    };
    struct engine_callbacks cb = {
        .data = t,
        .on_line = lessonview_on_line,
        .on_exit = lessonview_on_exit,
        .on_snapshot = lessonview_snapshot_cb,
        .on_state = lessonview_on_state,
    };
    int rc = engine_create(&t->engine, t->loop, st, &eo, &cb);
    if (rc < 0) {
        t->engine = NULL;
        tui_status(t, true, "The scenario could not be prepared: %s", strerror(-rc));
        return;
    }
    rc = engine_start(t->engine);
    if (rc < 0) {
        tui_status(t, true, "The scenario could not start: %s", engine_error(t->engine));
        return;
    }
    tui_status(t, false, "Starting %s...", st->title);
}

static void lessonview_switch(struct tui *t, size_t mode)
{
    const struct lesson_step *st = tui_step(t);
    enum engine_state s = t->engine ? engine_state(t->engine) : ENGINE_IDLE;
    if (s != ENGINE_RUNNING) {
        lessonview_start(t, (int)mode);
        return;
    }
    int rc = engine_switch_mode(t->engine, mode);
    if (rc == -EBUSY)
        tui_status(t, false, "Still switching; try again in a moment.");
    else if (rc < 0)
        tui_status(t, true, "Cannot switch to %s: %s", st->run->modes[mode].id, strerror(-rc));
    else
        tui_status(t, false, "Switching the server to %s; the load keeps running.",
                   st->run->modes[mode].id);
}

static void lessonview_goto(struct tui *t, int delta)
{
    const struct lesson *l = &t->pack->lessons[t->lesson];
    const struct lesson_step *st = tui_step(t);
    if (delta > 0 && st && !st->run && t->progress) {
        /* A text step is done once read: the learner moved on from it. */
        progress_mark_done(t->progress, t->pack->id, l->id, st->id);
    }
    if (delta < 0 && t->step == 0) {
        tui_status(t, false, "This is the first step of the lesson.");
        return;
    }
    if (delta > 0 && t->step + 1 >= l->nsteps) {
        if (t->lesson + 1 < t->pack->nlessons) {
            tui_open_step(t, t->lesson + 1, 0);
            return;
        }
        lessonview_leave(t);
        tui_save_progress(t);
        t->screen = TUI_START;
        tui_status(t, false, "That was the last step of the last lesson.");
        return;
    }
    tui_open_step(t, t->lesson, delta > 0 ? t->step + 1 : t->step - 1);
}

/* Keys typed into a focused interactive program pane. 0 when taken. */
static int lessonview_type(struct tui *t, int key)
{
    size_t prog = (size_t)t->focus - 1;
    if (key == '\r' || key == '\n' || key == KEY_ENTER) {
        char line[sizeof t->input + 1];
        memcpy(line, t->input, t->ninput);
        line[t->ninput] = '\n';
        int rc = t->engine ? engine_write(t->engine, prog, line, t->ninput + 1) : -EPIPE;
        if (rc < 0)
            tui_status(t, true, "The program is not running (Enter in the text pane starts it).");
        t->ninput = 0;
        return 0;
    }
    if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        /* Remove one whole UTF-8 character. */
        while (t->ninput > 0 && ((unsigned char)t->input[--t->ninput] & 0xC0) == 0x80) {
        }
        return 0;
    }
    if (key == 4) { /* Ctrl-D: end of input, as in a shell */
        if (t->engine)
            engine_close_stdin(t->engine, prog);
        return 0;
    }
    if (key >= 0x20 && key < 0x100 && key != 0x7f && t->ninput < sizeof t->input - 1) {
        t->input[t->ninput++] = (char)key;
        return 0;
    }
    return -1;
}

int lessonview_key(struct tui *t, int key)
{
    const struct lesson_step *st = tui_step(t);
    size_t nprogs = lessonview_nprogs(t);
    int nfocus = st && st->run ? (int)nprogs + 2 : 1;
    const struct lesson_program *fp = lessonview_focused_prog(t);
    if (key == '\t' || key == KEY_BTAB) {
        t->focus = (t->focus + (key == '\t' ? 1 : nfocus - 1)) % nfocus;
        t->ninput = 0;
        fp = lessonview_focused_prog(t);
        if (fp && fp->interactive)
            tui_status(t, false, "Typing goes to %s; Enter sends the line, Esc leaves.", fp->name);
        return 0;
    }
    if (key == 27) {
        if (t->focus != 0 || t->compare) {
            t->focus = 0;
            t->compare = false;
            return 0;
        }
        key = KEY_LEFT;
    }
    if (fp && fp->interactive && lessonview_type(t, key) == 0)
        return 0;
    switch (key) {
    case 'n':
        lessonview_goto(t, 1);
        return 0;
    case 'p':
        lessonview_goto(t, -1);
        return 0;
    case KEY_LEFT:
    case 'h':
        lessonview_leave(t);
        tui_save_progress(t);
        t->screen = TUI_START;
        return 0;
    case KEY_UP:
    case 'k':
        if (t->text_scroll > 0)
            t->text_scroll--;
        return 0;
    case KEY_DOWN:
    case 'j':
        if (t->text_scroll + 1 < t->text.nlines)
            t->text_scroll++;
        return 0;
    case KEY_PPAGE:
        t->text_scroll = t->text_scroll > 10 ? t->text_scroll - 10 : 0;
        return 0;
    case KEY_NPAGE:
        t->text_scroll += 10;
        if (t->text_scroll >= t->text.nlines)
            t->text_scroll = t->text.nlines ? t->text.nlines - 1 : 0;
        return 0;
    default:
        break;
    }
    if (!st || !st->run)
        return -1;
    enum engine_state s = t->engine ? engine_state(t->engine) : ENGINE_IDLE;
    bool live = s == ENGINE_STARTING || s == ENGINE_RUNNING;
    switch (key) {
    case '\r':
    case '\n':
    case KEY_ENTER:
    case KEY_RIGHT:
    case 'l':
        if (!live)
            lessonview_start(t, t->engine ? engine_mode(t->engine) : -1);
        return 0;
    case 'r':
        lessonview_start(t, t->engine ? engine_mode(t->engine) : -1);
        return 0;
    case ' ':
        if (s != ENGINE_RUNNING) {
            tui_status(t, false, "Nothing to pause: Enter starts the scenario.");
            return 0;
        }
        if (engine_pause(t->engine, !t->paused) == 0) {
            t->paused = !t->paused;
            tui_status(t, false, t->paused ? "Load paused: space resumes it." : "Load resumed.");
        }
        return 0;
    case 'c':
        t->compare = !t->compare;
        return 0;
    default:
        break;
    }
    for (size_t i = 0; i < st->run->nmodes; i++) {
        if (st->run->modes[i].key == key) {
            lessonview_switch(t, i);
            return 0;
        }
    }
    return -1;
}

void lessonview_click(struct tui *t, int x, int y)
{
    const struct layout *L = &t->layout;
    if (layout_contains(L->text, x, y))
        t->focus = 0;
    for (size_t i = 0; i < L->nprogs; i++)
        if (layout_contains(L->progs[i], x, y))
            t->focus = (int)i + 1;
    if (L->counters.w && layout_contains(L->counters, x, y))
        t->focus = (int)L->nprogs + 1;
    t->ninput = 0;
}

/* ---- drawing ---- */

static const char *lessonview_prog_state(enum snapshot_prog_state s)
{
    static const char *const names[] = {
        [SNAPSHOT_PROG_IDLE] = "idle",         [SNAPSHOT_PROG_STARTING] = "starting",
        [SNAPSHOT_PROG_RUNNING] = "running",   [SNAPSHOT_PROG_PAUSED] = "paused",
        [SNAPSHOT_PROG_STOPPING] = "stopping", [SNAPSHOT_PROG_EXITED] = "exited",
    };
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

static void lessonview_draw_text(struct tui *t, const struct lesson_step *st)
{
    const struct screen_caps *c = &t->caps;
    const struct lesson *l = &t->pack->lessons[t->lesson];
    char title[128];
    snprintf(title, sizeof title, "Step %zu/%zu", t->step + 1, l->nsteps);
    struct layout_rect in = widgets_box(c, t->layout.text, title, t->focus == 0);
    size_t nchecks = st->run ? st->run->nchecks : 0;
    int check_rows = nchecks ? (int)nchecks + 2 : 0;
    if (check_rows > in.h / 2)
        check_rows = in.h / 2;
    struct layout_rect body = {in.x + 1, in.y, in.w - 2, in.h - check_rows};
    if (body.w != t->text_width) {
        wrap_doc_free(&t->text);
        char *md = NULL;
        /* The step's title heads its text, unless the text opens with its own heading. */
        const char *text = st->text ? st->text : "";
        if (asprintf(&md, "%s%s%s%s", text[0] == '#' ? "" : "# ", text[0] == '#' ? "" : st->title,
                     text[0] == '#' ? "" : "\n\n", text) >= 0) {
            wrap_markdown(md, body.w, c->utf8, &t->text);
            free(md);
        }
        t->text_width = body.w;
    }
    widgets_doc(c, body, &t->text, t->text_scroll);
    if (t->text_scroll + (size_t)body.h < t->text.nlines)
        widgets_text(c, in.x + in.w - 10, in.y + in.h - check_rows - 1, 9, screen_attr(SCREEN_DIM),
                     "(more: j)");
    if (!check_rows)
        return;
    int y = in.y + in.h - check_rows;
    widgets_text(c, in.x + 1, y++, in.w - 2, A_BOLD, "To complete this step:");
    for (size_t i = 0; i < nchecks && y < in.y + in.h; i++, y++) {
        const struct lesson_check *ck = &st->run->checks[i];
        struct check_result r =
            i < t->nresults ? t->results[i] : (struct check_result){.min = ck->min};
        char desc[160];
        check_describe(ck, &r, desc, sizeof desc);
        widgets_text(c, in.x + 1, y, 2, screen_attr(r.holds ? SCREEN_GOOD : SCREEN_BAD),
                     r.holds ? c->g->done : c->g->todo);
        /* The measured figure first: it is what changes while the learner watches. */
        widgets_printf(c, in.x + 3, y, in.w - 4, A_NORMAL, "%s  (%s)", desc, ck->text);
    }
}

static void lessonview_draw_prog(struct tui *t, const struct lesson_step *st, size_t i)
{
    const struct screen_caps *c = &t->caps;
    const struct lesson_program *p = &st->run->programs[i];
    const struct snapshot_prog *sp = t->have_snap && i < t->snap.nprogs ? &t->snap.progs[i] : NULL;
    char title[128];
    if (sp && sp->pid)
        snprintf(title, sizeof title, "%s [%s %d]", p->name, lessonview_prog_state(sp->state),
                 sp->pid);
    else
        snprintf(title, sizeof title, "%s (%s)", p->name, p->program);
    bool focused = t->focus == (int)i + 1;
    struct layout_rect in = widgets_box(c, t->layout.progs[i], title, focused);
    int rows = in.h;
    bool prompt = focused && p->interactive;
    if (prompt)
        rows--;
    size_t n = t->engine ? engine_lines(t->engine, i) : 0;
    size_t first = n > (size_t)rows ? n - (size_t)rows : 0;
    for (size_t k = first; k < n; k++) {
        enum engine_stream stream = ENGINE_STDOUT;
        const char *line = engine_line(t->engine, i, k, &stream);
        widgets_text(c, in.x, in.y + (int)(k - first), in.w,
                     stream == ENGINE_STDERR ? screen_attr(SCREEN_STDERR) : A_NORMAL, line);
    }
    if (n == 0 && !t->engine)
        widgets_text(c, in.x, in.y, in.w, screen_attr(SCREEN_DIM), "Enter starts it");
    if (prompt) {
        char shown[sizeof t->input + 4];
        snprintf(shown, sizeof shown, "> %.*s_", (int)t->ninput, t->input);
        /* Show the end of a long line: that is where the learner is typing. */
        int w = wrap_width(shown, strlen(shown), c->utf8);
        const char *s = shown;
        while (w > in.w && *s) {
            s++;
            w = wrap_width(s, strlen(s), c->utf8);
        }
        widgets_text(c, in.x, in.y + in.h - 1, in.w, screen_attr(SCREEN_FOCUS), s);
    }
}

void lessonview_draw(struct tui *t)
{
    const struct screen_caps *c = &t->caps;
    const struct lesson_step *st = tui_step(t);
    const struct lesson *l = &t->pack->lessons[t->lesson];
    attron(screen_attr(SCREEN_TITLE));
    mvhline(0, 0, ' ', COLS);
    attroff(screen_attr(SCREEN_TITLE));
    if (!st)
        return;
    char right[160] = "";
    if (t->engine) {
        int mode = engine_mode(t->engine);
        const struct jail *j = engine_jail(t->engine);
        snprintf(right, sizeof right, "%s%s%s  sandbox: %s%s ",
                 engine_state_name(engine_state(t->engine)), mode >= 0 ? "  mode: " : "",
                 mode >= 0 ? st->run->modes[mode].id : "", j ? jail_tier_name(jail_tier(j)) : "-",
                 t->paused ? "  PAUSED" : "");
    }
    int rw = (int)strlen(right);
    widgets_printf(c, 1, 0, COLS - rw - 2, screen_attr(SCREEN_TITLE) | A_BOLD, "iolab - %s - %s%s",
                   l->title, st->title, t->step_done ? "  (done)" : "");
    widgets_text(c, COLS - rw, 0, rw, screen_attr(SCREEN_TITLE), right);
    lessonview_draw_text(t, st);
    if (!st->run)
        return;
    for (size_t i = 0; i < t->layout.nprogs; i++)
        lessonview_draw_prog(t, st, i);
    if (t->compare)
        counterview_compare(t, t->layout.counters);
    else
        counterview_draw(t, t->layout.counters);
}
