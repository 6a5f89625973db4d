/*
 * tui: the loop, the keys that mean the same everywhere, the overlays and the screens' actions.
 * The order of a key press: uv_poll wakes, screen_getch() drains every pending key (curses
 * decodes escape sequences; a terminal's report split across reads is dropped whole), each key
 * goes to the quit dialog or the help overlay when one is open, then to the current screen
 * (which tries its step's view first), then to tui_keys; the screen's action (open a step, go
 * home, quit) is carried out here; the uv_prepare draws afterwards, once.
 *
 * Exit paths: q (confirmed while a scenario runs), SIGINT/SIGTERM/SIGHUP. All end in tui_quit(),
 * which leaves the screen (stopping any scenario) and closes the loop's handles; the loop then
 * runs dry and tui_run() restores the screen. Crashes restore it through screen.c.
 */
#include "tui.h"

#include "help.h"
#include "lessonview.h"
#include "start.h"
#include "stepview.h"
#include "view.h"
#include "widgets.h"
#include "screen.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define TUI_CTRL(c)      ((c)&0x1f)
#define TUI_MAX_TABLES   8
#define TUI_MAX_FOOTER   64
#define TUI_MAX_HELPLINE 16

struct tui {
    uv_loop_t *loop;
    uv_poll_t keys; /* stdin readable: keys are waiting */
    uv_signal_t signals[4];
    uv_prepare_t draw;
    struct screen_caps caps;
    struct tui_options opts;
    const struct lesson_pack *primary; /* the pack iolab opened */
    struct view_ctx ctx;               /* what the screens may use */
    struct startview *start;
    struct lessonview *lesson;
    const struct view_ops *ops; /* the current screen: start_ops or lessonview_ops */
    void *self;                 /* its state */
    bool help, confirm_quit;
    bool help_scrolls; /* the help was taller than the screen when last drawn */
    int help_top;      /* the help's first row shown */
    bool quitting, frame_drawn;
    int exit_code;
};

static void tui_close_cb(uv_handle_t *h)
{
    (void)h;
}

static void tui_quit(struct tui *t, int code)
{
    if (t->quitting)
        return;
    t->quitting = true;
    t->exit_code = code;
    view_log(&t->ctx, "quit (status %d)", code);
    if (t->ops->leave)
        t->ops->leave(t->self, &t->ctx);
    uv_close((uv_handle_t *)&t->keys, tui_close_cb);
    for (size_t i = 0; i < sizeof t->signals / sizeof *t->signals; i++)
        uv_close((uv_handle_t *)&t->signals[i], tui_close_cb);
    uv_close((uv_handle_t *)&t->draw, tui_close_cb);
}

static void tui_home(struct tui *t, const char *status)
{
    /* The list opens on the lesson just left, not on "continue" or where it was before. */
    size_t lesson;
    const struct lesson_pack *pack =
        t->ops == &lessonview_ops ? lessonview_place(t->lesson, &lesson) : NULL;
    if (pack)
        start_select(t->start, pack, lesson);
    if (t->ops->leave)
        t->ops->leave(t->self, &t->ctx);
    view_save_progress(&t->ctx);
    t->ops = &start_ops;
    t->self = t->start;
    /* The step's last status ("Running...", a build's verdict) says nothing about the start
       screen: it is replaced, by what the step had to say on leaving or the screen's own hint. */
    view_status(&t->ctx, false, "%s", status ? status : "Enter opens a lesson, ? lists every key.");
}

static void tui_draw_frame(struct tui *t);

/*
 * Builds the pack's own programs before one of its lessons opens. A build that compiles (the
 * pack's first) is announced on the status line, drawn before it starts, because the build
 * holds the loop until it ends (keys wait in the terminal meanwhile). said keeps the sentence.
 */
static int tui_build_pack(struct tui *t, const struct lesson_pack *pack, char *said, size_t len)
{
    said[0] = '\0';
    if (!t->opts.pack_build)
        return 0;
    if (t->opts.pack_announce && t->opts.pack_announce(t->opts.pack_data, pack, said, len)) {
        view_status(&t->ctx, false, "%s", said);
        tui_draw_frame(t);
        refresh();
    }
    char why[512];
    if (t->opts.pack_build(t->opts.pack_data, pack, why, sizeof why) < 0) {
        view_status(&t->ctx, true, "%s", why);
        return -1;
    }
    return 0;
}

static void tui_open(struct tui *t, const struct lesson_pack *pack, size_t lesson, size_t step)
{
    char said[256];
    if (tui_build_pack(t, pack, said, sizeof said) < 0)
        return;
    if (t->ops != &lessonview_ops && t->ops->leave)
        t->ops->leave(t->self, &t->ctx);
    if (lessonview_open(t->lesson, &t->ctx, pack, lesson, step) == 0) {
        t->ops = &lessonview_ops;
        t->self = t->lesson;
        if (said[0]) {
            /* The step's own hint stays, after the word that the build is over. */
            char hint[sizeof t->ctx.status];
            snprintf(hint, sizeof hint, "%s", t->ctx.status);
            view_status(&t->ctx, t->ctx.status_bad, "%s Done. %s", said, hint);
        }
    }
}

/*
 * Hands the terminal to the learner's editor (view_editor(): $VISUAL, $EDITOR, sensible-editor,
 * vi) on the action's files, waits for it, takes the screen back and tells the screen that asked.
 */
static void tui_edit(struct tui *t, const struct view_action *act)
{
    const char *ed = view_editor();
    /* $EDITOR may carry arguments ("code -w"): the shell splits it, the files stay whole. */
    const char **argv = calloc(act->nfiles + 5, sizeof *argv);
    char **paths = calloc(act->nfiles + 1, sizeof *paths);
    size_t na = 4, np = 0;
    if (argv && paths) {
        argv[0] = "sh";
        argv[1] = "-c";
        argv[2] = "exec $0 \"$@\"";
        argv[3] = ed;
        for (; np < act->nfiles; np++) {
            if (asprintf(&paths[np], "%s/%s", act->dir, act->files[np]) < 0) {
                paths[np] = NULL;
                break;
            }
            argv[na++] = paths[np];
        }
        argv[na] = NULL;
    }
    screen_suspend();
    pid_t pid = np ? fork() : -1;
    if (pid == 0) {
        execv("/bin/sh", (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    screen_resume();
    bool ran = !(pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) == 127);
    if (!ran)
        view_status(&t->ctx, true,
                    "The editor (%s) could not be started; set $EDITOR, or edit the files in %s "
                    "in another window.",
                    ed, act->dir);
    for (size_t i = 0; paths && i < np; i++)
        free(paths[i]);
    free(paths);
    free(argv);
    if (act->edited)
        act->edited(act->self, &t->ctx, ran);
}

static void tui_act(struct tui *t, const struct view_action *act)
{
    switch (act->kind) {
    case VIEW_OPEN:
        tui_open(t, act->pack, act->lesson, act->step);
        break;
    case VIEW_HOME:
        tui_home(t, act->status);
        break;
    case VIEW_QUIT:
        tui_quit(t, 0);
        break;
    case VIEW_HELP:
        t->help = !t->help;
        t->help_top = 0;
        break;
    case VIEW_EDIT:
        tui_edit(t, act);
        break;
    case VIEW_STAY:
        break;
    }
}

/* ---- keys that mean the same everywhere ---- */

static int tui_key_help(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    (void)self;
    (void)c;
    (void)key;
    act->kind = VIEW_HELP;
    return 0;
}

static int tui_key_quit(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct tui *t = self;
    (void)c;
    (void)key;
    if (t->ops->busy && t->ops->busy(t->self))
        t->confirm_quit = true;
    else
        act->kind = VIEW_QUIT;
    return 0;
}

static int tui_key_redraw(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    (void)self;
    (void)c;
    (void)key;
    (void)act;
    clearok(curscr, TRUE);
    return 0;
}

static const struct keybind tui_bindings[] = {
    {.key = '?',
     .name = "?",
     .label = "help",
     .help = "this help",
     .priority = 99,
     .fn = tui_key_help},
    {.key = 'q',
     .name = "q",
     .label = "quit",
     .help = "quit (asks first while a scenario runs)",
     .priority = 98,
     .fn = tui_key_quit},
    {.key = TUI_CTRL('l'), .name = "Ctrl-L", .help = "redraw the screen", .fn = tui_key_redraw},
};
const struct keytable tui_keys = KEYTABLE("Everywhere", tui_bindings);

size_t tui_all_keytables(const struct keytable **out, size_t max)
{
    size_t n = 0;
    if (n < max)
        out[n++] = &start_keys;
    if (n < max)
        out[n++] = &lessonview_keys;
    const struct stepview_kind *k;
    for (size_t i = 0; (k = stepview_at(i)) && n < max; i++)
        if (k->keys)
            out[n++] = k->keys;
    if (n < max)
        out[n++] = &tui_keys;
    return n;
}

/* The key tables in force now: the screen's (most specific first), then tui_keys. */
static size_t tui_tables(struct tui *t, const struct keytable **out)
{
    size_t n = t->ops->keytables(t->self, out, TUI_MAX_TABLES - 1);
    out[n++] = &tui_keys;
    return n;
}

static void tui_key(struct tui *t, int key)
{
    t->ctx.dirty = true;
    if (key == KEY_RESIZE) {
        screen_resize();
        return;
    }
    if (t->confirm_quit) {
        t->confirm_quit = false;
        if (key == 'y' || key == 'Y' || key == 'q')
            tui_quit(t, 0);
        return;
    }
    if (t->ctx.layout.too_small && key != 'q') {
        /* Nothing of the screen is shown but the request to enlarge it: a key that acted here
           (e opening the editor, n leaving a step) would act unseen. q quits, and says so. */
        return;
    }
    if (t->help) {
        /* The scrolling keys scroll it when it is taller than the screen (its title then says
           so); any other key closes it, and every key does when it fits ("any key closes"). */
        int by = t->help_scrolls ? help_scroll(key, LINES > 6 ? LINES - 6 : 1) : 0;
        if (by)
            t->help_top += by > 1 << 19 ? 1 << 19 : by < -(1 << 19) ? -(1 << 19) : by;
        else
            t->help = false;
        t->ctx.dirty = true;
        return;
    }
    struct view_action act = {.kind = VIEW_STAY};
    if (key == KEY_MOUSE) {
        MEVENT ev;
        if (getmouse(&ev) != OK)
            return;
        if (ev.bstate & BUTTON4_PRESSED) {
            key = KEY_UP;
        } else if (ev.bstate & BUTTON5_PRESSED) {
            key = KEY_DOWN;
        } else {
            if (t->ops->click)
                t->ops->click(t->self, &t->ctx, ev.x, ev.y, &act);
            tui_act(t, &act);
            return;
        }
    }
    if (t->ops->key(t->self, &t->ctx, key, &act) < 0) {
        const struct keybind *b = keys_find(&tui_keys, key);
        if (b)
            b->fn(t, &t->ctx, key, &act);
    }
    tui_act(t, &act);
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
    while (!t->quitting && (key = screen_getch()) != ERR)
        tui_key(t, key);
}

static void tui_on_signal(uv_signal_t *h, int signum)
{
    struct tui *t = h->data;
    if (signum == SIGWINCH) {
        screen_resize();
        t->ctx.dirty = true;
        return;
    }
    view_log(&t->ctx, "signal %d: stopping the scenario and quitting", signum);
    tui_quit(t, 128 + signum);
}

/* ---- drawing ---- */

static void tui_draw_too_small(struct tui *t)
{
    /* Only the terminal's size makes it too small (programs that do not fit fold, layout.h);
       keys still act meanwhile, so the message says which one leaves, and asks as q does. */
    char msg[3][64];
    snprintf(msg[0], sizeof msg[0], "Please enlarge the terminal");
    snprintf(msg[1], sizeof msg[1], "(iolab needs %dx%d; this is %dx%d)", LAYOUT_MIN_COLS,
             LAYOUT_MIN_ROWS, COLS, LINES);
    snprintf(msg[2], sizeof msg[2], "%s",
             t->confirm_quit ? "A scenario is running: y stops it and quits" : "q quits");
    for (int i = 0; i < 3; i++) {
        int w = (int)strlen(msg[i]);
        int x = COLS > w ? (COLS - w) / 2 : 0;
        widgets_text(&t->caps, x, LINES / 2 - 1 + i, COLS, i < 2 ? A_BOLD : A_NORMAL, msg[i]);
    }
}

/* The footer: the step's own entries (its modes) and every table's labelled bindings, as many
   as fit, highest priority first. */
static void tui_draw_footer(struct tui *t, const struct keytable *const *tables, size_t ntables)
{
    struct layout_rect f = t->ctx.layout.footer;
    struct keys_item items[TUI_MAX_FOOTER];
    size_t n = 0;
    if (t->ops == &lessonview_ops)
        n = lessonview_footer_extra(t->lesson, f.w - 2, items, TUI_MAX_FOOTER);
    for (size_t k = 0; k < ntables; k++)
        for (size_t i = 0; i < tables[k]->n && n < TUI_MAX_FOOTER; i++)
            if (tables[k]->v[i].label)
                items[n++] = (struct keys_item){tables[k]->v[i].name, tables[k]->v[i].label,
                                                tables[k]->v[i].priority};
    char foot[512];
    keys_footer(items, n, f.w - 2, foot, sizeof foot);
    attron(screen_attr(SCREEN_TITLE));
    mvhline(f.y, f.x, ' ', f.w);
    attroff(screen_attr(SCREEN_TITLE));
    widgets_text(&t->caps, f.x + 1, f.y, f.w - 1, screen_attr(SCREEN_TITLE), foot);
}

static void tui_draw_frame(struct tui *t)
{
    erase();
    size_t nprogs = 0;
    enum layout_kind kind = t->ops->layout(t->self, &nprogs);
    if (nprogs > LAYOUT_MAX_PROGS)
        nprogs = LAYOUT_MAX_PROGS;
    layout_compute(kind, COLS, LINES, nprogs, &t->ctx.layout);
    if (t->ctx.layout.too_small) {
        tui_draw_too_small(t);
        return;
    }
    t->ops->draw(t->self, &t->ctx);

    /* Status and footer, the same on every screen. */
    struct layout_rect s = t->ctx.layout.status;
    widgets_text(&t->caps, s.x, s.y, s.w, screen_attr(t->ctx.status_bad ? SCREEN_BAD : SCREEN_DIM),
                 t->ctx.status);
    const struct keytable *tables[TUI_MAX_TABLES];
    size_t ntables = tui_tables(t, tables);
    tui_draw_footer(t, tables, ntables);

    if (t->help) {
        char lines[TUI_MAX_HELPLINE][128];
        size_t nlines = t->ops == &lessonview_ops
                            ? lessonview_help_extra(t->lesson, lines, TUI_MAX_HELPLINE)
                            : 0;
        t->help_scrolls = help_draw(&t->caps, tables, ntables, lines, nlines, &t->help_top);
    }
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

static void tui_log_first_frame(struct tui *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double ms = (double)(now.tv_sec - t->opts.t0.tv_sec) * 1e3 +
                (double)(now.tv_nsec - t->opts.t0.tv_nsec) / 1e6;
    struct timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    /* The wall-clock time lets a benchmark measure from before exec (bench_tui.sh). */
    view_log(&t->ctx, "first frame %.2f ms after main, at %lld.%09ld", ms, (long long)wall.tv_sec,
             wall.tv_nsec);
}

static void tui_on_draw(uv_prepare_t *h)
{
    struct tui *t = h->data;
    if (t->quitting)
        return;
    if (t->ops->settle)
        t->ops->settle(t->self, &t->ctx);
    if (!t->ctx.dirty)
        return;
    t->ctx.dirty = false;
    tui_draw_frame(t);
    refresh();
    if (!t->frame_drawn) {
        t->frame_drawn = true;
        if (t->opts.log_first_frame)
            tui_log_first_frame(t);
    }
}

/* ---- start and end ---- */

static void tui_handles_start(struct tui *t)
{
    uv_poll_init(t->loop, &t->keys, STDIN_FILENO);
    t->keys.data = t;
    uv_poll_start(&t->keys, UV_READABLE, tui_on_input);
    static const int sigs[] = {SIGWINCH, SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < 4; i++) {
        uv_signal_init(t->loop, &t->signals[i]);
        t->signals[i].data = t;
        uv_signal_start(&t->signals[i], tui_on_signal, sigs[i]);
    }
    uv_prepare_init(t->loop, &t->draw);
    t->draw.data = t;
    uv_prepare_start(&t->draw, tui_on_draw);
    /* A resize between the screen's start (which read the size) and the handler just installed
       sent its SIGWINCH to nobody: read the size once more now that none can be lost. */
    screen_resize();
    t->ctx.dirty = true;
}

static void tui_greet(struct tui *t, struct progress *progress)
{
    if (progress && progress->damaged)
        view_status(&t->ctx, true, "Your progress file was damaged; it was kept as %s.",
                    progress->damaged);
    else if (!progress)
        view_status(&t->ctx, true, "Progress cannot be read or saved this time (see iolab.log).");
    else
        view_status(&t->ctx, false, "Welcome. Enter opens a lesson, ? lists every key.");
    if (!t->opts.start_at)
        return;
    const struct lesson *l = NULL;
    const struct lesson_step *s = NULL;
    char reason[200];
    if (lesson_resolve(t->primary, t->opts.start_at, &l, &s, reason, sizeof reason) == 0)
        tui_open(t, t->primary, (size_t)(l - t->primary->lessons), (size_t)(s - l->steps));
    else
        view_status(&t->ctx, true, "%s", reason);
}

int tui_run(const struct lesson_pack *pack, struct progress *progress,
            const struct tui_options *opts)
{
    struct tui *t = calloc(1, sizeof *t);
    uv_loop_t loop;
    char why[256] = "";
    if (!t)
        return 1;
    t->start = start_new(pack, opts->extra_packs, opts->nextra, progress);
    t->lesson = lessonview_new();
    int rc = t->start && t->lesson ? uv_loop_init(&loop) : -ENOMEM;
    if (rc < 0) {
        fprintf(stderr, "iolab: cannot start the event loop: %s\n", uv_strerror(rc));
        goto out;
    }
    t->loop = &loop;
    t->primary = pack;
    t->opts = *opts;
    t->ops = &start_ops;
    t->self = t->start;
    t->ctx = (struct view_ctx){.loop = &loop,
                               .caps = &t->caps,
                               .progress = progress,
                               .tick_hz = opts->tick_hz,
                               .log = opts->log,
                               .dirty = true};
    rc = screen_init(&t->caps, why, sizeof why);
    if (rc < 0) {
        fprintf(stderr, "iolab: %s.\n", why);
        uv_loop_close(&loop);
        goto out;
    }
    view_log(&t->ctx, "tui started: %dx%d, %s, %s", COLS, LINES, t->caps.utf8 ? "UTF-8" : "ASCII",
             t->caps.colour ? "colour" : "no colour");
    tui_handles_start(t);
    tui_greet(t, progress);
    uv_run(&loop, UV_RUN_DEFAULT);
    screen_restore();
    rc = uv_loop_close(&loop);
    if (rc < 0)
        view_log(&t->ctx, "event loop closed with handles still open: %s", uv_strerror(rc));
    rc = t->exit_code;
out:
    lessonview_free(t->lesson, &t->ctx);
    start_free(t->start);
    free(t);
    return rc < 0 ? 1 : rc;
}
