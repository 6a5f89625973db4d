/*
 * stepview_exercise: the view of an exercise step. The learner's files live in their workspace
 * (exercise.h), shown with its path; `e` opens the file in $VISUAL or $EDITOR with the screen
 * handed over, and editing in another window works too: the workspace is watched (uv_fs_event,
 * with a uv_fs_poll of every file as the fallback where events do not arrive), changes are
 * debounced, and every save builds the program again (build.h, in the sandbox) and, when it
 * builds, runs the scenario with it. Nothing advances by itself: the learner reads the verdicts
 * and presses n.
 *
 * Once built, the step is a run step on the exercise's scenario (exercise_run): this view opens
 * stepview_run on it and hands it the panes, the keys and the checks, so the counters, the
 * comparison of "yours" and "reference" and the grader are the run step's own. Before that (or
 * when the build fails) the compiler's messages stand under the text, with the learner's
 * file:line:col.
 *
 * Keys of its own: e edit, b build now, H the next hint, S the solution (after a pass, or after
 * a confirmation), R reset the workspace (after a confirmation; the old files are kept aside).
 */
#include "exercise.h"
#include "exercise/build.h"
#include "paths.h"
#include "stepview.h"
#include "widgets.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EXVIEW_DEBOUNCE_MS 200
#define EXVIEW_POLL_MS     1000

enum exview_state { EXVIEW_BUILDING, EXVIEW_FAILED, EXVIEW_READY };

struct exview {
    struct stepview_env env;
    const struct lesson_exercise *ex;
    struct view_ctx *c;
    char dir[PATH_MAX];
    char cache[PATH_MAX];
    char sandbox[PATH_MAX];
    enum exview_state state;
    struct build *build;
    bool building_ref;
    char ref_exe[PATH_MAX], mine_exe[PATH_MAX];
    char *log; /* the last build's messages (mapped to the workspace's files) */
    bool log_cut;
    char status[512]; /* one line about the build */
    unsigned builds;  /* builds of the learner's program so far */
    struct exercise_run run;
    bool run_ready;
    void *rv; /* the run view on run.step, once built */
    struct stepview_env renv;
    uv_fs_event_t watch;
    uv_fs_poll_t polls[BUILD_MAX_FILES];
    size_t npolls;
    uv_timer_t debounce;
    bool have_watch;
    int open_handles;
    bool closing;
    size_t hints; /* hints shown so far */
    bool solution, confirm_solution, confirm_reset;
    bool pass_recorded, solution_recorded; /* in the progress record already */
};

/* Applies one event to the step's progress record ("exercise", exercise.h) and saves it. */
static void exview_progress(struct exview *v, enum exercise_event ev)
{
    struct progress *p = v->c->progress;
    if (!p)
        return;
    const char *pack = v->env.pack->id, *lesson = v->env.lesson->id, *step = v->env.step->id;
    char json[512];
    if (exercise_progress(progress_field_get(p, pack, lesson, step, "exercise"), ev,
                          (long long)time(NULL), json, sizeof json) == 0 &&
        progress_field_set(p, pack, lesson, step, "exercise", json) == 0)
        view_save_progress(v->c);
}

/* The solution is on screen: recorded once. */
static void exview_show_solution(struct exview *v)
{
    v->solution = true;
    if (!v->solution_recorded)
        exview_progress(v, EXERCISE_SOLUTION);
    v->solution_recorded = true;
}

static void exview_rebuild(struct exview *v);

/* ---- builds ---- */

static void exview_stop_run(struct exview *v)
{
    if (v->rv) {
        stepview_run.close(v->rv, v->c);
        v->rv = NULL;
    }
    if (v->run_ready) {
        exercise_run_free(&v->run);
        v->run_ready = false;
    }
}

static void exview_ready(struct exview *v)
{
    exview_stop_run(v);
    if (exercise_run_init(&v->run, v->ex, v->env.step, v->mine_exe, v->ref_exe) < 0) {
        snprintf(v->status, sizeof v->status, "out of memory");
        v->state = EXVIEW_FAILED;
        return;
    }
    v->run_ready = true;
    v->renv = v->env;
    v->renv.step = &v->run.step;
    v->rv = stepview_run.open(&v->renv, v->c);
    v->state = v->rv ? EXVIEW_READY : EXVIEW_FAILED;
    if (v->rv)
        /* Every save runs again: the learner sees the verdicts of the file just written. */
        keys_find(stepview_run.keys, '\r')->fn(v->rv, v->c, '\r', &(struct view_action){0});
}

static int exview_start_build(struct exview *v, const char *src, build_done_fn done)
{
    const char *cmd[BUILD_MAX_ARGS];
    struct build_spec spec = {
        .command = exercise_command(v->ex, cmd, BUILD_MAX_ARGS),
        .src_dir = src,
        .files = (const char *const *)v->ex->files,
        .nfiles = v->ex->nfiles,
        .sources = (const char *const *)v->ex->sources,
        .nsources = v->ex->nsources,
        .cache_dir = v->cache,
        .sandbox = v->sandbox,
    };
    if (!spec.command)
        return -E2BIG; /* a build command of more than BUILD_MAX_ARGS words */
    return build_start(v->c->loop, &spec, done, v, &v->build);
}

static void exview_mine_built(void *data, const struct build_result *r)
{
    struct exview *v = data;
    v->build = NULL;
    free(v->log);
    v->log = strdup(r->log ? r->log : "");
    v->log_cut = r->log_cut;
    v->builds++;
    exview_progress(v, EXERCISE_ATTEMPT);
    v->c->dirty = true;
    if (r->status == BUILD_OK) {
        snprintf(v->mine_exe, sizeof v->mine_exe, "%s", r->exe);
        snprintf(v->status, sizeof v->status, "Build %u: ok%s (%.2f s). Running your program.",
                 v->builds, r->cached ? ", unchanged" : "", r->seconds);
        view_status(v->c, false, "%s", v->status);
        exview_ready(v);
        return;
    }
    v->state = EXVIEW_FAILED;
    if (r->status == BUILD_FAILED)
        snprintf(v->status, sizeof v->status,
                 "Build %u failed: the compiler's messages are below; fix and save.", v->builds);
    else
        snprintf(v->status, sizeof v->status, "Build %u: %.400s", v->builds, r->message);
    view_status(v->c, true, "%s", v->status);
}

static void exview_ref_built(void *data, const struct build_result *r)
{
    struct exview *v = data;
    v->build = NULL;
    if (r->status != BUILD_OK) {
        v->state = EXVIEW_FAILED;
        snprintf(v->status, sizeof v->status,
                 "The exercise's reference solution does not build; tell the pack's author.");
        view_status(v->c, true, "%s", v->status);
        return;
    }
    snprintf(v->ref_exe, sizeof v->ref_exe, "%s", r->exe);
    if (exview_start_build(v, v->dir, exview_mine_built) < 0) {
        v->state = EXVIEW_FAILED;
        snprintf(v->status, sizeof v->status, "The build could not start.");
    }
}

static void exview_rebuild(struct exview *v)
{
    if (v->closing)
        return;
    if (v->build) {
        build_cancel(v->build);
        v->build = NULL;
    }
    exview_stop_run(v);
    v->state = EXVIEW_BUILDING;
    snprintf(v->status, sizeof v->status, "Building %.400s...", v->dir);
    view_status(v->c, false, "%s", v->status);
    int rc = v->ref_exe[0] ? exview_start_build(v, v->dir, exview_mine_built)
                           : exview_start_build(v, v->ex->dir, exview_ref_built);
    if (rc < 0) {
        v->state = EXVIEW_FAILED;
        snprintf(v->status, sizeof v->status, "The build could not start: %s", strerror(-rc));
    }
}

/* ---- watching the workspace ---- */

static void exview_debounced(uv_timer_t *t)
{
    exview_rebuild(t->data);
}

static void exview_changed(struct exview *v)
{
    /* Editors save in bursts (a rename, a write, a chmod): build once the burst is over. */
    uv_timer_start(&v->debounce, exview_debounced, EXVIEW_DEBOUNCE_MS, 0);
}

static void exview_on_event(uv_fs_event_t *h, const char *name, int events, int status)
{
    struct exview *v = h->data;
    (void)events;
    if (status < 0 || !name)
        return;
    for (size_t i = 0; i < v->ex->nfiles; i++)
        if (!strcmp(name, v->ex->files[i])) {
            exview_changed(v);
            return;
        }
}

static void exview_on_poll(uv_fs_poll_t *h, int status, const uv_stat_t *prev,
                           const uv_stat_t *curr)
{
    struct exview *v = h->data;
    (void)status;
    (void)prev;
    (void)curr;
    exview_changed(v);
}

static void exview_close_cb(uv_handle_t *h)
{
    struct exview *v = h->data;
    if (--v->open_handles == 0) {
        free(v->log);
        free(v);
    }
}

static void exview_watch(struct exview *v)
{
    uv_timer_init(v->c->loop, &v->debounce);
    v->debounce.data = v;
    v->open_handles = 1;
    if (uv_fs_event_init(v->c->loop, &v->watch) == 0) {
        v->watch.data = v;
        v->have_watch = true;
        v->open_handles++;
        uv_fs_event_start(&v->watch, exview_on_event, v->dir, 0);
    }
    /* Polling catches what events miss (network file systems, WSL); it stats each file once a
       second, which costs nothing measurable. */
    for (size_t i = 0; i < v->ex->nfiles && v->npolls < BUILD_MAX_FILES; i++) {
        char path[PATH_MAX * 2];
        snprintf(path, sizeof path, "%s/%s", v->dir, v->ex->files[i]);
        uv_fs_poll_t *p = &v->polls[v->npolls];
        if (uv_fs_poll_init(v->c->loop, p) < 0)
            continue;
        p->data = v;
        v->npolls++;
        v->open_handles++;
        uv_fs_poll_start(p, exview_on_poll, path, EXVIEW_POLL_MS);
    }
}

/* ---- the row ---- */

static void *exview_open(const struct stepview_env *env, struct view_ctx *c)
{
    const struct lesson_exercise *ex = lesson_step_exercise(env->step);
    if (!ex)
        return NULL;
    struct exview *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->env = *env;
    v->ex = ex;
    v->c = c;
    char why[512] = "";
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (xdg && xdg[0] == '/')
        snprintf(v->cache, sizeof v->cache, "%s/iolab/build", xdg);
    else
        snprintf(v->cache, sizeof v->cache, "%s/.cache/iolab/build",
                 home && home[0] == '/' ? home : "/tmp");
    if (paths_get(PATHS_SANDBOX, v->sandbox, sizeof v->sandbox) < 0 ||
        exercise_workspace(env->pack->id, env->lesson->id, env->step->id, v->dir, sizeof v->dir) <
            0 ||
        exercise_prepare(ex, v->dir, why, sizeof why) < 0) {
        view_status(c, true, "Your workspace cannot be prepared: %s", why[0] ? why : "no HOME");
        free(v);
        return NULL;
    }
    exview_watch(v);
    exview_rebuild(v);
    return v;
}

static void exview_close(void *self, struct view_ctx *c)
{
    struct exview *v = self;
    (void)c;
    v->closing = true;
    if (v->build)
        build_cancel(v->build);
    exview_stop_run(v);
    uv_close((uv_handle_t *)&v->debounce, exview_close_cb);
    if (v->have_watch)
        uv_close((uv_handle_t *)&v->watch, exview_close_cb);
    for (size_t i = 0; i < v->npolls; i++)
        uv_close((uv_handle_t *)&v->polls[i], exview_close_cb);
}

static enum layout_kind exview_layout(void *self, size_t *nprogs)
{
    struct exview *v = self;
    if (v->rv)
        return stepview_run.layout(v->rv, nprogs);
    *nprogs = 0;
    return LAYOUT_TEXT;
}

/* Rows under the text: the workspace, the build, hints and the log (or the run view's). */
static int exview_text_foot_rows(void *self, int inner_h)
{
    struct exview *v = self;
    int mine = 3 + (int)v->hints;
    if (v->state == EXVIEW_FAILED && v->log)
        mine = inner_h * 2 / 3;
    int run = v->rv ? stepview_run.text_foot_rows(v->rv, inner_h) : 0;
    int rows = mine + run;
    return rows > inner_h * 2 / 3 ? inner_h * 2 / 3 : rows;
}

static void exview_draw_text_foot(void *self, struct view_ctx *vc, struct layout_rect r)
{
    struct exview *v = self;
    const struct screen_caps *c = vc->caps;
    int y = r.y, end = r.y + r.h;
    widgets_printf(c, r.x, y++, r.w, screen_attr(SCREEN_DIM), "Your files: %s", v->dir);
    widgets_text(c, r.x, y++, r.w,
                 screen_attr(v->state == EXVIEW_FAILED ? SCREEN_BAD : SCREEN_NORMAL), v->status);
    for (size_t i = 0; i < v->hints && y < end; i++)
        widgets_printf(c, r.x, y++, r.w, screen_attr(SCREEN_HEADING), "Hint %zu: %s", i + 1,
                       v->ex->hints[i]);
    if (v->solution && y < end)
        widgets_printf(c, r.x, y++, r.w, screen_attr(SCREEN_HEADING), "The reference solution: %s",
                       v->ex->dir);
    if (v->confirm_solution && y < end)
        widgets_text(c, r.x, y++, r.w, A_BOLD,
                     "See the solution before your program passes? y: show it, any key: not yet");
    if (v->confirm_reset && y < end)
        widgets_text(c, r.x, y++, r.w, A_BOLD,
                     "Reset your files to the starter (yours are kept aside)? y: reset");
    if (v->state == EXVIEW_FAILED && v->log) {
        /* The compiler's messages, line by line, as many as fit. */
        const char *s = v->log;
        while (*s && y < end) {
            const char *nl = strchr(s, '\n');
            int len = nl ? (int)(nl - s) : (int)strlen(s);
            widgets_printf(c, r.x, y++, r.w, A_NORMAL, "%.*s", len, s);
            s = nl ? nl + 1 : s + len;
        }
        if (*s && y == end)
            widgets_text(c, r.x + r.w - 24, end - 1, 24, screen_attr(SCREEN_DIM),
                         "(more: iolab check)");
        return;
    }
    if (v->rv && y < end)
        stepview_run.draw_text_foot(v->rv, vc, (struct layout_rect){r.x, y + 1, r.w, end - y - 1});
}

static void exview_draw(void *self, struct view_ctx *vc)
{
    struct exview *v = self;
    if (v->rv)
        stepview_run.draw(v->rv, vc);
}

static void exview_title_right(void *self, char *buf, size_t len)
{
    struct exview *v = self;
    if (v->rv)
        stepview_run.title_right(v->rv, buf, len);
    else
        snprintf(buf, len, "%s ", v->state == EXVIEW_BUILDING ? "building" : "not built");
}

/* Hands the terminal to the learner's editor on their file, then builds what they saved. */
static int exview_key_edit(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct exview *v = self;
    (void)key;
    (void)act;
    const char *ed = getenv("VISUAL");
    if (!ed || !*ed)
        ed = getenv("EDITOR");
    if (!ed || !*ed)
        ed = access("/usr/bin/sensible-editor", X_OK) == 0 ? "sensible-editor" : "vi";
    char path[PATH_MAX * 2];
    snprintf(path, sizeof path, "%s/%s", v->dir,
             v->ex->nsources ? v->ex->sources[0] : v->ex->files[0]);
    exview_stop_run(v); /* nothing runs unseen while the editor has the screen */
    screen_suspend();
    pid_t pid = fork();
    if (pid == 0) {
        /* $EDITOR may carry arguments ("code -w"): let the shell split it. */
        execl("/bin/sh", "sh", "-c", "exec $0 \"$1\"", ed, path, (char *)NULL);
        _exit(127);
    }
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    screen_resume();
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) == 127)
        view_status(c, true,
                    "The editor (%s) could not be started; set $EDITOR, or edit %s in "
                    "another window.",
                    ed, path);
    exview_rebuild(v);
    return 0;
}

static int exview_key_build(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    (void)c;
    (void)key;
    (void)act;
    exview_rebuild(self);
    return 0;
}

static int exview_key_hint(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct exview *v = self;
    (void)key;
    (void)act;
    if (v->hints < v->ex->nhints)
        v->hints++;
    else
        view_status(c, false,
                    v->ex->nhints ? "That was the last hint."
                                  : "This exercise has "
                                    "no hints.");
    return 0;
}

static bool exview_done(void *self)
{
    struct exview *v = self;
    bool done = v->rv && stepview_run.done(v->rv);
    if (done && !v->pass_recorded) {
        v->pass_recorded = true;
        exview_progress(v, EXERCISE_PASS); /* kept only the first time, by the record */
    }
    return done;
}

static int exview_key_solution(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct exview *v = self;
    (void)c;
    (void)key;
    (void)act;
    if (exview_done(v) || v->env.done)
        exview_show_solution(v);
    else
        v->confirm_solution = true;
    return 0;
}

static int exview_key_reset(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct exview *v = self;
    (void)c;
    (void)key;
    (void)act;
    v->confirm_reset = true;
    return 0;
}

/* Answers to the confirmations, then the run view's own keys. */
static int exview_key(void *self, struct view_ctx *c, int key)
{
    struct exview *v = self;
    if (v->confirm_solution || v->confirm_reset) {
        bool yes = key == 'y' || key == 'Y';
        if (v->confirm_solution && yes)
            exview_show_solution(v);
        if (v->confirm_reset && yes) {
            char moved[PATH_MAX + 32];
            exview_stop_run(v);
            int rc = exercise_reset(v->ex, v->dir, moved, sizeof moved);
            exview_rebuild(v);
            if (rc == 0)
                view_status(c, false, "The starter is back; your files were kept as %s.", moved);
            else
                view_status(c, true, "The workspace could not be reset: %s.", strerror(-rc));
        }
        v->confirm_solution = v->confirm_reset = false;
        return 0;
    }
    if (v->rv && stepview_run.key(v->rv, c, key) == 0)
        return 0;
    if (v->rv) {
        const struct keybind *b = keys_find(stepview_run.keys, key);
        if (b)
            return b->fn(v->rv, c, key, &(struct view_action){0});
    }
    return -1;
}

static const struct keybind exview_bindings[] = {
    {.key = 'e',
     .name = "e",
     .label = "edit",
     .help = "edit your file in $VISUAL or $EDITOR (saving builds and runs it)",
     .priority = 96,
     .fn = exview_key_edit},
    {.key = 'b', .name = "b", .help = "build and run again now", .fn = exview_key_build},
    {.key = 'H',
     .name = "H",
     .label = "hint",
     .help = "the next hint",
     .priority = 80,
     .fn = exview_key_hint},
    {.key = 'S',
     .name = "S",
     .help = "where the reference solution is (asks first before you pass)",
     .fn = exview_key_solution},
    {.key = 'R',
     .name = "R",
     .help = "reset your files to the starter (asks first; yours are kept aside)",
     .fn = exview_key_reset},
};
static const struct keytable exview_keys = KEYTABLE("Exercise", exview_bindings);

static size_t exview_footer(void *self, int width, struct keys_item *out, size_t max)
{
    struct exview *v = self;
    return v->rv ? stepview_run.footer(v->rv, width, out, max) : 0;
}

static size_t exview_help(void *self, char lines[][128], size_t max)
{
    struct exview *v = self;
    size_t n = 0;
    if (n < max)
        snprintf(lines[n++], 128, "%s\tthe run step's keys work once your program builds", "Run");
    if (v->rv)
        n += stepview_run.help(v->rv, lines + n, max - n);
    return n;
}

static void exview_click(void *self, struct view_ctx *c, int x, int y)
{
    struct exview *v = self;
    if (v->rv)
        stepview_run.click(v->rv, c, x, y);
}

static bool exview_busy(void *self)
{
    struct exview *v = self;
    return v->rv && stepview_run.busy(v->rv);
}

static bool exview_text_focused(void *self)
{
    struct exview *v = self;
    return !v->rv || stepview_run.text_focused(v->rv);
}

const struct stepview_kind stepview_exercise = {
    .name = "exercise",
    .open = exview_open,
    .close = exview_close,
    .layout = exview_layout,
    .text_foot_rows = exview_text_foot_rows,
    .draw_text_foot = exview_draw_text_foot,
    .draw = exview_draw,
    .title_right = exview_title_right,
    .key = exview_key,
    .keys = &exview_keys,
    .footer = exview_footer,
    .help = exview_help,
    .click = exview_click,
    .done = exview_done,
    .busy = exview_busy,
    .text_focused = exview_text_focused,
    .open_hint = "e edits your file; every save builds and runs it. ? lists every key.",
};
