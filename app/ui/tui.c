/*
 * tui: the loop, the key table and the engine's callbacks. The order of a key press: uv_poll
 * wakes, getch() drains every pending key (curses decodes escape sequences), each key is looked
 * up in the help overlay / confirm dialog / focused input first, then in the screen's own
 * handler, then in tui_keys[]; the uv_prepare draws afterwards, once.
 *
 * Exit paths: q (confirmed while a scenario runs), SIGINT/SIGTERM/SIGHUP. All end in tui_quit(),
 * which frees the engine (it kills the scenario's programs) and closes the loop's handles; the
 * loop then runs dry and tui_run() restores the screen. Crashes restore it through screen.c.
 */
#include "tui.h"

#include "widgets.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define TUI_CTRL(c) ((c)&0x1f)

const struct lesson_step *tui_step(const struct tui *t)
{
    if (t->lesson >= t->pack->nlessons)
        return NULL;
    const struct lesson *l = &t->pack->lessons[t->lesson];
    return t->step < l->nsteps ? &l->steps[t->step] : NULL;
}

void tui_log(struct tui *t, const char *fmt, ...)
{
    if (!t->opts.log)
        return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", localtime_r(&now.tv_sec, &tm));
    fprintf(t->opts.log, "%s.%03ld ", stamp, now.tv_nsec / 1000000);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(t->opts.log, fmt, ap);
    va_end(ap);
    fputc('\n', t->opts.log);
    fflush(t->opts.log);
}

void tui_status(struct tui *t, bool bad, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->status, sizeof t->status, fmt, ap);
    va_end(ap);
    t->status_bad = bad;
    t->dirty = true;
    tui_log(t, "status: %s", t->status);
}

void tui_save_progress(struct tui *t)
{
    if (!t->progress)
        return;
    int rc = progress_save(t->progress);
    if (rc < 0)
        tui_status(t, true, "Could not save progress to %s: %s", t->progress->path, strerror(-rc));
}

static void tui_close_cb(uv_handle_t *h)
{
    (void)h;
}

void tui_quit(struct tui *t, int code)
{
    if (t->quitting)
        return;
    t->quitting = true;
    t->exit_code = code;
    tui_log(t, "quit (status %d)", code);
    lessonview_leave(t);
    uv_close((uv_handle_t *)&t->keys, tui_close_cb);
    for (size_t i = 0; i < sizeof t->signals / sizeof *t->signals; i++)
        uv_close((uv_handle_t *)&t->signals[i], tui_close_cb);
    uv_close((uv_handle_t *)&t->draw, tui_close_cb);
}

/* ---- key handlers shared by every screen ---- */

static void tui_key_help(struct tui *t, int key)
{
    (void)key;
    t->help = !t->help;
    t->dirty = true;
}

static void tui_key_quit(struct tui *t, int key)
{
    (void)key;
    enum engine_state s = t->engine ? engine_state(t->engine) : ENGINE_IDLE;
    if (s == ENGINE_STARTING || s == ENGINE_RUNNING || s == ENGINE_STOPPING) {
        t->confirm_quit = true;
        t->dirty = true;
        return;
    }
    tui_quit(t, 0);
}

static void tui_key_redraw(struct tui *t, int key)
{
    (void)key;
    clearok(curscr, TRUE);
    t->dirty = true;
}

static void tui_key_lesson(struct tui *t, int key)
{
    if (t->screen == TUI_LESSON)
        lessonview_key(t, key);
}

/*
 * Every key iolab knows, in the order the help overlay lists them. Screen-specific handling
 * (start screen selection, scrolling a pane) happens in the screen's *_key first; these are the
 * keys with one meaning everywhere, plus entries that only document what the screens do.
 */
const struct tui_key tui_keys[] = {
    {.key = KEY_UP, .alt = 'k', .name = "Up/k", .label = "up", .help = "move up, scroll up"},
    {.key = KEY_DOWN,
     .alt = 'j',
     .name = "Down/j",
     .label = "down",
     .help = "move down, scroll down"},
    {.key = KEY_LEFT,
     .alt = 'h',
     .name = "Left/h",
     .label = "back",
     .help = "back to the lesson list"},
    {.key = KEY_RIGHT,
     .alt = 'l',
     .name = "Right/l",
     .label = "open",
     .help = "open the selected lesson"},
    {.key = '\r',
     .alt = KEY_ENTER,
     .name = "Enter",
     .label = "open/start",
     .footer = true,
     .help = "open a lesson; start the scenario of a run step"},
    {.key = '\t',
     .alt = KEY_BTAB,
     .name = "Tab",
     .label = "pane",
     .footer = true,
     .help = "focus the next pane (Shift-Tab: previous); type into a program that takes input"},
    {.key = 'n',
     .name = "n",
     .label = "next",
     .footer = true,
     .help = "next step",
     .fn = tui_key_lesson},
    {.key = 'p', .name = "p", .label = "prev", .help = "previous step", .fn = tui_key_lesson},
    {.key = ' ',
     .name = "space",
     .label = "pause",
     .footer = true,
     .help = "pause or resume the load (the clients)",
     .fn = tui_key_lesson},
    {.key = 'r',
     .name = "r",
     .label = "restart",
     .help = "restart the scenario",
     .fn = tui_key_lesson},
    {.key = 'c',
     .name = "c",
     .label = "compare",
     .footer = true,
     .help = "comparison of the modes tried in this session",
     .fn = tui_key_lesson},
    {.key = '1',
     .name = "1-9",
     .label = "mode",
     .help = "switch the server to that mode (the footer lists them); the load keeps running"},
    {.key = 27,
     .name = "Esc",
     .label = "close",
     .help = "close help or a dialog; leave a program's input"},
    {.key = TUI_CTRL('l'),
     .name = "Ctrl-L",
     .label = "redraw",
     .help = "redraw the screen",
     .fn = tui_key_redraw},
    {.key = '?',
     .name = "?",
     .label = "help",
     .footer = true,
     .help = "this help",
     .fn = tui_key_help},
    {.key = 'q',
     .name = "q",
     .label = "quit",
     .footer = true,
     .help = "quit (asks first while a scenario runs)",
     .fn = tui_key_quit},
};
const size_t tui_nkeys = sizeof tui_keys / sizeof *tui_keys;

static void tui_key(struct tui *t, int key)
{
    t->dirty = true;
    if (key == KEY_RESIZE) {
        screen_resize();
        return;
    }
    if (t->confirm_quit) {
        if (key == 'y' || key == 'Y' || key == 'q')
            tui_quit(t, 0);
        else
            t->confirm_quit = false;
        return;
    }
    if (t->help) {
        /* Any key closes the help; ? and Esc are the documented ones. */
        t->help = false;
        return;
    }
    if (key == KEY_MOUSE) {
        MEVENT ev;
        if (getmouse(&ev) != OK)
            return;
        if (ev.bstate & BUTTON4_PRESSED)
            key = KEY_UP;
        else if (ev.bstate & BUTTON5_PRESSED)
            key = KEY_DOWN;
        else if (t->screen == TUI_START) {
            start_click(t, ev.x, ev.y);
            return;
        } else {
            lessonview_click(t, ev.x, ev.y);
            return;
        }
    }
    int handled = t->screen == TUI_START ? start_key(t, key) : lessonview_key(t, key);
    if (handled == 0)
        return;
    for (size_t i = 0; i < tui_nkeys; i++) {
        if ((tui_keys[i].key == key || (tui_keys[i].alt && tui_keys[i].alt == key)) &&
            tui_keys[i].fn) {
            tui_keys[i].fn(t, key);
            return;
        }
    }
}

static void tui_on_input(uv_poll_t *h, int status, int events)
{
    struct tui *t = h->data;
    (void)events;
    if (status < 0) {
        /* The terminal went away (hung up): nothing more can be shown. */
        tui_quit(t, 1);
        return;
    }
    int key;
    while (!t->quitting && (key = getch()) != ERR)
        tui_key(t, key);
}

static void tui_on_signal(uv_signal_t *h, int signum)
{
    struct tui *t = h->data;
    if (signum == SIGWINCH) {
        screen_resize();
        t->dirty = true;
        return;
    }
    tui_log(t, "signal %d: stopping the scenario and quitting", signum);
    tui_quit(t, 128 + signum);
}

static void tui_draw_frame(struct tui *t)
{
    erase();
    enum layout_kind kind = LAYOUT_START;
    size_t nprogs = 0;
    if (t->screen == TUI_LESSON) {
        const struct lesson_step *st = tui_step(t);
        kind = st && st->run ? LAYOUT_RUN : LAYOUT_TEXT;
        nprogs = st && st->run ? st->run->nprograms : 0;
        if (nprogs > LAYOUT_MAX_PROGS)
            nprogs = LAYOUT_MAX_PROGS;
    }
    layout_compute(kind, COLS, LINES, nprogs, &t->layout);
    if (t->layout.too_small) {
        const char *msg[] = {"Please enlarge the terminal", "(iolab needs at least 80x24)"};
        char need[64];
        snprintf(need, sizeof need, "(iolab needs %dx%d; this is %dx%d)",
                 kind == LAYOUT_RUN && 30 + (int)nprogs * LAYOUT_MIN_PANE_W > LAYOUT_MIN_COLS
                     ? 30 + (int)nprogs * LAYOUT_MIN_PANE_W
                     : LAYOUT_MIN_COLS,
                 LAYOUT_MIN_ROWS, COLS, LINES);
        msg[1] = need;
        for (int i = 0; i < 2; i++) {
            int w = (int)strlen(msg[i]);
            int x = COLS > w ? (COLS - w) / 2 : 0;
            widgets_text(&t->caps, x, LINES / 2 - 1 + i, COLS, A_BOLD, msg[i]);
        }
        return;
    }
    if (t->screen == TUI_START)
        start_draw(t);
    else
        lessonview_draw(t);

    /* Status and footer, the same on every screen. */
    struct layout_rect s = t->layout.status, f = t->layout.footer;
    widgets_text(&t->caps, s.x, s.y, s.w, screen_attr(t->status_bad ? SCREEN_BAD : SCREEN_DIM),
                 t->status);
    attron(screen_attr(SCREEN_TITLE));
    mvhline(f.y, f.x, ' ', f.w);
    attroff(screen_attr(SCREEN_TITLE));
    char foot[512];
    size_t n = 0;
    const struct lesson_step *st = t->screen == TUI_LESSON ? tui_step(t) : NULL;
    if (st && st->run)
        for (size_t i = 0; i < st->run->nmodes && n < sizeof foot - 64; i++)
            n += (size_t)snprintf(foot + n, sizeof foot - n, "%c %s  ", st->run->modes[i].key,
                                  st->run->modes[i].id);
    for (size_t i = 0; i < tui_nkeys && n < sizeof foot - 32; i++)
        if (tui_keys[i].footer)
            n += (size_t)snprintf(foot + n, sizeof foot - n, "%s %s  ", tui_keys[i].name,
                                  tui_keys[i].label);
    widgets_text(&t->caps, f.x + 1, f.y, f.w - 1, screen_attr(SCREEN_TITLE), foot);

    if (t->help)
        help_draw(t);
    if (t->confirm_quit) {
        struct layout_rect r = layout_center(COLS, LINES, 50, 5);
        widgets_clear(r);
        struct layout_rect in = widgets_box(&t->caps, r, "Quit", true);
        widgets_text(&t->caps, in.x + 1, in.y, in.w - 2, A_BOLD,
                     "A scenario is running. Stop it and quit?");
        widgets_text(&t->caps, in.x + 1, in.y + 2, in.w - 2, A_NORMAL,
                     "y: stop and quit    any other key: stay");
    }
}

static void tui_on_draw(uv_prepare_t *h)
{
    struct tui *t = h->data;
    if (!t->dirty || t->quitting)
        return;
    t->dirty = false;
    tui_draw_frame(t);
    refresh();
    if (!t->frame_drawn) {
        t->frame_drawn = true;
        if (t->opts.log_first_frame) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            double ms = (double)(now.tv_sec - t->opts.t0.tv_sec) * 1e3 +
                        (double)(now.tv_nsec - t->opts.t0.tv_nsec) / 1e6;
            struct timespec wall;
            clock_gettime(CLOCK_REALTIME, &wall);
            /* The wall-clock time lets a benchmark measure from before exec (bench_tui.sh). */
            tui_log(t, "first frame %.2f ms after main, at %lld.%09ld", ms, (long long)wall.tv_sec,
                    wall.tv_nsec);
        }
    }
}

int tui_run(const struct lesson_pack *pack, struct progress *progress,
            const struct tui_options *opts)
{
    struct tui *t = calloc(1, sizeof *t);
    uv_loop_t loop;
    char why[256] = "";
    if (!t)
        return 1;
    int rc = uv_loop_init(&loop);
    if (rc < 0) {
        free(t);
        fprintf(stderr, "iolab: cannot start the event loop: %s\n", uv_strerror(rc));
        return 1;
    }
    t->loop = &loop;
    t->primary = t->pack = pack;
    t->progress = progress;
    t->opts = *opts;
    t->dirty = true;
    t->est = ENGINE_IDLE;

    rc = screen_init(&t->caps, why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "iolab: %s.\n", why);
        uv_loop_close(&loop);
        free(t);
        return 1;
    }
    tui_log(t, "tui started: %dx%d, %s, %s", COLS, LINES, t->caps.utf8 ? "UTF-8" : "ASCII",
            t->caps.colour ? "colour" : "no colour");
    uv_poll_init(&loop, &t->keys, STDIN_FILENO);
    t->keys.data = t;
    uv_poll_start(&t->keys, UV_READABLE, tui_on_input);
    static const int sigs[] = {SIGWINCH, SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < 4; i++) {
        uv_signal_init(&loop, &t->signals[i]);
        t->signals[i].data = t;
        uv_signal_start(&t->signals[i], tui_on_signal, sigs[i]);
    }
    uv_prepare_init(&loop, &t->draw);
    t->draw.data = t;
    uv_prepare_start(&t->draw, tui_on_draw);

    if (progress && progress->damaged)
        tui_status(t, true, "Your progress file was damaged; it was kept as %s.",
                   progress->damaged);
    else if (!progress)
        tui_status(t, true, "Progress cannot be read or saved this time (see iolab.log).");
    else
        tui_status(t, false, "Welcome. Enter opens a lesson, ? lists every key.");

    if (opts->start_at) {
        const struct lesson *l = NULL;
        const struct lesson_step *s = NULL;
        char reason[200];
        if (lesson_resolve(pack, opts->start_at, &l, &s, reason, sizeof reason) == 0)
            tui_open_step(t, (size_t)(l - pack->lessons), (size_t)(s - l->steps));
        else
            tui_status(t, true, "%s", reason);
    }

    uv_run(&loop, UV_RUN_DEFAULT);
    screen_restore();
    rc = uv_loop_close(&loop);
    if (rc < 0)
        tui_log(t, "event loop closed with handles still open: %s", uv_strerror(rc));
    wrap_doc_free(&t->text);
    int code = t->exit_code;
    free(t);
    return code;
}

void tui_open_step(struct tui *t, size_t lesson, size_t step)
{
    lessonview_leave(t);
    if (lesson >= t->pack->nlessons || step >= t->pack->lessons[lesson].nsteps)
        return;
    const struct lesson *l = &t->pack->lessons[lesson];
    t->lesson = lesson;
    t->step = step;
    t->screen = TUI_LESSON;
    t->text_width = -1;
    t->text_scroll = 0;
    t->focus = 0;
    t->nresults = 0;
    session_reset(&t->session);
    t->npast_modes = 0;
    const struct lesson_step *st = &l->steps[step];
    t->step_done = t->progress && progress_is_done(t->progress, t->pack->id, l->id, st->id);
    if (t->progress) {
        progress_set_last(t->progress, t->pack->id, l->id, st->id);
        tui_save_progress(t);
    }
    tui_status(t, false, "%s",
               st->run ? "Enter starts the scenario; ? lists every key."
                       : "n: next step, p: previous, h: back to the lessons.");
    tui_log(t, "open %s/%s", l->id, st->id);
    t->dirty = true;
}
