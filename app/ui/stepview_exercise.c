/*
 * stepview_exercise: the view of an exercise step. The learner's files live in their workspace
 * (exercise.h), shown with its path; `e` asks the TUI (VIEW_EDIT, tui.c) to open the files in
 * $VISUAL or $EDITOR with the screen handed over, and editing in another window works too: the
 * workspace is watched (uv_fs_event, with a uv_fs_poll of every file as the fallback where events
 * do not arrive), changes are debounced, and every save builds the program again (build.h, in the
 * sandbox) and, when it builds, runs the scenario with it. Nothing advances by itself: the learner
 * reads the verdicts and presses n.
 *
 * Once built, the step is a run step on the exercise's scenario (exercise_run): this view opens
 * stepview_run on it and hands it the panes, the keys and the checks, so the counters, the
 * comparison of "yours" and "reference" and the grader are the run step's own. Before that (or
 * when the build fails) the compiler's messages stand under the text, with the learner's
 * file:line:col.
 *
 * Beside them, under the text: which files the workspace holds, the build's warnings (a build
 * that succeeds can still have something to say, with the learner's file:line:col), and when
 * the learner's program dies with a sanitizer's report, the lines of that report about the
 * learner's own code, under the checks that say "the sanitizer's report is below". The
 * report is condensed, and the compiler's lines shortened, by exercise/buildmsg.c.
 *
 * Keys of its own: e edit (every file with a TODO, in one editor), b build now, H the next hint,
 * S the reference solution's code (after a pass, or after a confirmation), drawn over the text
 * pane at the screen's full width and scrolled with the text's keys until Esc or S closes it, R
 * reset the workspace (after a confirmation; the old files are kept aside).
 */
#include "exercise.h"
#include "exercise/build.h"
#include "exercise/judge.h"
#include "lesson/record.h"
#include "exercise/buildmsg.h"
#include "codeview.h"
#include "grade.h"
#include "human.h"
#include "metrics/siteline.h"
#include "paths.h"
#include "util/fileread.h"
#include "stepview.h"
#include "widgets.h"
#include "wrap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EXVIEW_DEBOUNCE_MS 200
#define EXVIEW_POLL_MS     1000
#define EXVIEW_WARNINGS    3    /* warnings drawn under the checks; the rest are counted */
#define EXVIEW_BRIEF_MAX   4096 /* the sanitizer report's lines about the learner's code */

enum stepview_exercise_state { EXVIEW_BUILDING, EXVIEW_FAILED, EXVIEW_READY };

struct exview {
    struct stepview_env env;
    const struct lesson_exercise *ex;
    struct view_ctx *c;
    char dir[PATH_MAX];
    char cache[PATH_MAX];
    char sandbox[PATH_MAX];
    enum stepview_exercise_state state;
    struct judge_builder builder; /* the reference once, then each save (exercise/judge.h) */
    char mine_exe[PATH_MAX];
    char *log; /* the last build's messages (mapped to the workspace's files) */
    bool log_cut;
    /* A failed build's messages as drawn: each line with the learner's own file names, wrapped
       at the pane's width (the compiler's source and caret lines cut instead, so that the caret
       stays under its column), and the first row shown (j/k scroll them). */
    struct wrap_doc log_doc;
    int log_w;
    size_t log_top;
    int log_h;
    char status[1024]; /* one line about the build */
    unsigned builds;   /* builds of the learner's program so far */
    /* The content key of the learner's files last built (build_key), so that a save that changes
       nothing (an editor's second write, the poll seeing the same save again) neither builds nor
       restarts nor counts as an attempt; and whether the build under way follows a save. */
    char built_key[32];
    bool build_after_save;
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
    bool confirm_solution, confirm_reset;
    bool edit_told; /* how the editor moves between several files was said (e's first press) */
    bool solution_recorded; /* in the progress record already */
    bool build_counted;     /* the build now running was recorded as an attempt */
    bool build_on_open;     /* the build now running is the one made on opening the step */
    const char *edit[BUILD_MAX_FILES]; /* the files e opens: those with a TODO */
    size_t nedit;
    unsigned warnings; /* of the last successful build (its log has them) */
    /* The reference solution, drawn over the text pane at full width while open: its Markdown,
       wrapped at the width it was last drawn at, and the first line shown. */
    bool sheet;
    char sheet_prev[256]; /* the status line the viewer's hint replaced */
    bool sheet_prev_bad;
    char *sheet_md;
    struct wrap_doc sheet_doc;
    int sheet_w, sheet_h;
    size_t sheet_top;
    bool sheet_seek; /* scroll to the first TODO at the next draw */
    /* The width and terminal the rows under the text were last drawn at: they wrap, and the
       lesson screen asks how many rows they take before they are drawn. */
    int foot_w, inner_h;
    const struct screen_caps *foot_caps;
    /* The code view (L, codeview.h) over the text pane while open, and the mode whose files
       it shows (EXERCISE_MODE_*): a switch opens it again on the other mode's files. */
    struct codeview *code;
    int code_mode;
};

/* Applies one event to the step's progress record ("exercise", exercise.h); 0 or -errno. */
static int stepview_exercise_event(struct exview *v, enum exercise_event ev)
{
    struct progress *p = v->c->progress;
    const char *pack = v->env.pack->id, *lesson = v->env.lesson->id, *step = v->env.step->id;
    char json[4096];
    int rc = exercise_progress(progress_field_get(p, pack, lesson, step, EXERCISE_RECORD_FIELD), ev,
                               (long long)time(NULL), json, sizeof json);
    return rc < 0 ? rc : progress_field_set(p, pack, lesson, step, EXERCISE_RECORD_FIELD, json);
}

/* Notes the pack's version (for exports) and saves the progress. */
static void stepview_exercise_save(struct exview *v)
{
    progress_set_version(v->c->progress, v->env.pack->id, v->env.pack->version);
    view_save_progress(v->c);
}

/* Applies one event to the step's progress record and saves it. */
static void stepview_exercise_progress(struct exview *v, enum exercise_event ev)
{
    if (v->c->progress && stepview_exercise_event(v, ev) == 0)
        stepview_exercise_save(v);
}

/*
 * A run of the learner's program was judged (the run view's stepview_env.judged). As `iolab
 * check` records a check, a run is recorded when it is an attempt: its build counted as one (a
 * save of changed content), or it passed, for every pass is an attempt; then its score is kept
 * when it is the learner's best, counted by judge_score() as `iolab check` counts it (only the
 * checks decided to hold earn their points), and a pass is recorded. A pass of a build not
 * counted yet (the build made on opening the step, b, a return to content built before) adds the
 * attempt, once per build; but the build made on opening a step whose record has a pass already
 * is the learner looking again, not trying. A run that says nothing of the learner's code (a
 * limit of the jail, a program that never printed its ready text) keeps no score: `iolab check`
 * calls it an error.
 */
static void stepview_exercise_judged(void *data, const struct judge *j)
{
    struct exview *v = data;
    struct progress *p = v->c->progress;
    bool pass = grade_done(j->grader);
    if (!p || v->closing || (!pass && !v->build_counted))
        return;
    const char *pack = v->env.pack->id, *lesson = v->env.lesson->id, *step = v->env.step->id;
    struct exercise_record old;
    char json[4096], why[160];
    bool passed =
        exercise_record_parse(progress_field_get(p, pack, lesson, step, EXERCISE_RECORD_FIELD),
                              &old, why, sizeof why) == 0 &&
        old.passed;
    int rc = 0;
    if (pass && !v->build_counted && !(v->build_on_open && passed))
        rc = stepview_exercise_event(v, EXERCISE_ATTEMPT);
    v->build_counted |= pass;
    struct record_score score;
    judge_score(j, (double)time(NULL), &score);
    if (rc == 0 && score.has)
        rc = exercise_record_score(progress_field_get(p, pack, lesson, step, EXERCISE_RECORD_FIELD),
                                   &score, json, sizeof json);
    if (rc == 0 && score.has)
        rc = progress_field_set(p, pack, lesson, step, EXERCISE_RECORD_FIELD, json);
    if (rc == 0 && pass)
        rc = stepview_exercise_event(v, EXERCISE_PASS);
    if (rc == 0)
        stepview_exercise_save(v);
}

/* The reference solution as Markdown: each file the learner writes (the ones with a TODO), its
   solution as it runs in a code block. NULL when out of memory. */
static char *stepview_exercise_solution_md(const struct exview *v)
{
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    if (!f)
        return NULL;
    fprintf(f, "# The reference solution: `%s`\n\n", v->ex->dir);
    fprintf(f, "Each TODO comment stands above its answer. j and k scroll, Esc or S closes "
               "this.\n\n");
    for (size_t i = 0; i < v->nedit; i++) {
        char *code = NULL;
        int rc = exercise_solution_text(v->ex, v->edit[i], &code);
        fprintf(f, "## %s\n\n", v->edit[i]);
        if (rc < 0)
            fprintf(f, "(cannot be read: %s)\n\n", strerror(-rc));
        else
            fprintf(f, "```\n%s%s```\n\n", code,
                    code[0] && code[strlen(code) - 1] != '\n' ? "\n" : "");
        free(code);
    }
    if (fclose(f) != 0) {
        free(md);
        return NULL;
    }
    return md;
}

#define EXVIEW_SHEET_HINT "The reference solution: j/k and PgUp/PgDn scroll, Esc or S closes."

/* The sources the code view (L) shows: the learner's files from the workspace, or in the
   reference mode the reference's as it was built, its marker lines included (S shows it without
   them), so that the line numbers are the ones its line table gives. */
static int stepview_exercise_code_source(void *data, const char *file, const char *dwarf_path,
                                         char **text)
{
    struct exview *v = data;
    (void)dwarf_path;
    size_t len;
    return fileread_beneath(v->code_mode == EXERCISE_MODE_REFERENCE ? v->ex->dir : v->dir, file,
                            1 << 20, text, &len, NULL);
}

/* The code view over the text pane, on the files of the mode that runs now (the learner's
   program's calls since that mode began, live). */
static void stepview_exercise_show_lines(struct exview *v, int mode)
{
    codeview_close(v->code);
    v->code_mode = mode;
    v->code = codeview_open(mode == EXERCISE_MODE_REFERENCE ? "The reference's calls by line"
                                                            : "Your calls by line",
                            v->edit, v->nedit, stepview_exercise_code_source, v);
    v->c->dirty = true;
}

static void stepview_exercise_close_sheet(struct exview *v)
{
    bool was_open = v->sheet;
    v->sheet = false;
    free(v->sheet_md);
    v->sheet_md = NULL;
    wrap_doc_free(&v->sheet_doc);
    v->sheet_w = -1;
    v->c->dirty = true;
    /* The viewer's own hint ("Esc or S closes") is stale once it is closed: what the status
       line said before it comes back, unless something newer was said meanwhile. */
    if (was_open && !strcmp(v->c->status, EXVIEW_SHEET_HINT))
        view_status(v->c, v->sheet_prev_bad, "%s", v->sheet_prev);
}

/* The solution is on screen (recorded once), its code over the text pane. */
static void stepview_exercise_show_solution(struct exview *v)
{
    stepview_exercise_close_sheet(v);
    v->sheet_md = stepview_exercise_solution_md(v);
    if (!v->sheet_md) {
        view_status(v->c, true, "The reference solution cannot be shown (out of memory): %s",
                    v->ex->dir);
        return;
    }
    v->sheet = true;
    v->sheet_top = 0;
    v->sheet_seek = true; /* opens at the first TODO, once it is wrapped */
    if (strcmp(v->c->status, EXVIEW_SHEET_HINT)) {
        snprintf(v->sheet_prev, sizeof v->sheet_prev, "%s", v->c->status);
        v->sheet_prev_bad = v->c->status_bad;
    }
    view_status(v->c, false, "%s", EXVIEW_SHEET_HINT);
    if (!v->solution_recorded)
        stepview_exercise_progress(v, EXERCISE_SOLUTION);
    v->solution_recorded = true;
}

static void stepview_exercise_rebuild(struct exview *v);

/* ---- builds ---- */

static void stepview_exercise_stop_run(struct exview *v)
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

static void stepview_exercise_ready(struct exview *v)
{
    stepview_exercise_stop_run(v);
    if (exercise_run_init(&v->run, v->ex, v->env.step, v->mine_exe, v->builder.ref_exe) < 0) {
        snprintf(v->status, sizeof v->status, "out of memory");
        v->state = EXVIEW_FAILED;
        return;
    }
    v->run_ready = true;
    v->renv = v->env;
    v->renv.step = &v->run.step;
    v->renv.judged =
        stepview_exercise_judged; /* each judged run's score goes to the progress record */
    v->renv.judged_data = v;
    v->rv = stepview_run.open(&v->renv, v->c);
    v->state = v->rv ? EXVIEW_READY : EXVIEW_FAILED;
    if (v->rv)
        /* Every save runs again: the learner sees the verdicts of the file just written. */
        keys_find(stepview_run.keys, '\r')->fn(v->rv, v->c, '\r', &(struct view_action){0});
}

static void stepview_exercise_mine_built(struct exview *v, const struct build_result *r)
{
    free(v->log);
    v->log = strdup(r->log ? r->log : "");
    v->log_cut = r->log_cut;
    wrap_doc_free(&v->log_doc);
    v->log_w = 0;
    v->log_top = 0;
    v->builds++;
    /* An attempt is the build of content the learner changed by a save: not the build of what
       the step opened with, nor what exercise_build_is_attempt() rules out. */
    v->build_counted = v->build_after_save && exercise_build_is_attempt(r);
    v->build_on_open = v->builds == 1 && !v->build_after_save;
    if (v->build_counted)
        stepview_exercise_progress(v, EXERCISE_ATTEMPT);
    v->build_after_save = false;
    v->c->dirty = true;
    v->warnings = r->status == BUILD_OK ? r->warnings : 0;
    if (r->status == BUILD_OK) {
        char warned[48] = "";
        if (r->warnings)
            snprintf(warned, sizeof warned, ", %u warning%s", r->warnings,
                     r->warnings == 1 ? "" : "s");
        snprintf(v->mine_exe, sizeof v->mine_exe, "%s", r->exe);
        snprintf(v->status, sizeof v->status, "Build %u: ok%s%s (%.2f s). Running your program.",
                 v->builds, r->cached ? ", unchanged" : "", warned, r->seconds);
        view_status(v->c, false, "%s", v->status);
        stepview_exercise_ready(v);
        return;
    }
    v->state = EXVIEW_FAILED;
    if (r->status == BUILD_FAILED)
        snprintf(
            v->status, sizeof v->status,
            "Build %u failed: the compiler's messages are below (j/k scroll them); fix and save.",
            v->builds);
    else
        snprintf(v->status, sizeof v->status, "Build %u: %.400s", v->builds, r->message);
    view_status(v->c, true, "%s", v->status);
}

/* The reference did not build (nothing more is), or the learner's files were built. */
static void stepview_exercise_built(void *data, enum judge_built which,
                                    const struct build_result *r)
{
    struct exview *v = data;
    if (which == JUDGE_YOURS) {
        stepview_exercise_mine_built(v, r);
        return;
    }
    v->state = EXVIEW_FAILED;
    snprintf(v->status, sizeof v->status,
             "The exercise's reference solution does not build; tell the pack's author.");
    view_status(v->c, true, "%s", v->status);
}

static void stepview_exercise_rebuild(struct exview *v)
{
    if (v->closing)
        return;
    judge_build_cancel(&v->builder);
    stepview_exercise_stop_run(v);
    v->state = EXVIEW_BUILDING;
    snprintf(v->status, sizeof v->status, "Building %.400s...", v->dir);
    int rc = judge_build(&v->builder, v->dir);
    if (rc == -ESTALE) { /* a workspace of an older starter: told so, never built and judged */
        v->state = EXVIEW_FAILED;
        snprintf(v->status, sizeof v->status, "%s", v->builder.why);
        view_status(v->c, true, "%s", v->status);
        return;
    }
    view_status(v->c, false, "%s", v->status);
    if (rc < 0) {
        v->state = EXVIEW_FAILED;
        snprintf(v->status, sizeof v->status, "The build could not start: %s", strerror(-rc));
    }
}

/* ---- watching the workspace ---- */

/* Records the workspace's content as built; false when it is what was built last. A file that
   cannot be read (mid-rename) counts as new content: the build then says what is wrong. */
static bool stepview_exercise_note_content(struct exview *v)
{
    const char *cmd[BUILD_MAX_ARGS];
    struct build_spec spec;
    char key[32];
    if (!judge_spec(&v->builder, v->dir, &spec, cmd) || build_key(&spec, key, sizeof key) < 0) {
        v->built_key[0] = '\0';
        return true;
    }
    if (!strcmp(key, v->built_key))
        return false;
    snprintf(v->built_key, sizeof v->built_key, "%s", key);
    return true;
}

static void stepview_exercise_debounced(uv_timer_t *t)
{
    struct exview *v = t->data;
    /* Rename-on-save editors and the poll each report one save twice or more: only content that
       differs from the last build's starts a build. */
    if (!stepview_exercise_note_content(v))
        return;
    v->build_after_save = true;
    stepview_exercise_rebuild(v);
}

static void stepview_exercise_changed(struct exview *v)
{
    /* Editors save in bursts (a rename, a write, a chmod): build once the burst is over. */
    uv_timer_start(&v->debounce, stepview_exercise_debounced, EXVIEW_DEBOUNCE_MS, 0);
}

static void stepview_exercise_on_event(uv_fs_event_t *h, const char *name, int events, int status)
{
    struct exview *v = h->data;
    (void)events;
    if (status < 0 || !name)
        return;
    for (size_t i = 0; i < v->ex->nfiles; i++)
        if (!strcmp(name, v->ex->files[i])) {
            stepview_exercise_changed(v);
            return;
        }
}

static void stepview_exercise_on_poll(uv_fs_poll_t *h, int status, const uv_stat_t *prev,
                                      const uv_stat_t *curr)
{
    struct exview *v = h->data;
    (void)status;
    (void)prev;
    (void)curr;
    stepview_exercise_changed(v);
}

static void stepview_exercise_close_cb(uv_handle_t *h)
{
    struct exview *v = h->data;
    if (--v->open_handles == 0) {
        free(v->log);
        free(v->sheet_md);
        wrap_doc_free(&v->sheet_doc);
        wrap_doc_free(&v->log_doc);
        free(v);
    }
}

static void stepview_exercise_watch(struct exview *v)
{
    uv_timer_init(v->c->loop, &v->debounce);
    v->debounce.data = v;
    v->open_handles = 1;
    if (uv_fs_event_init(v->c->loop, &v->watch) == 0) {
        v->watch.data = v;
        v->have_watch = true;
        v->open_handles++;
        uv_fs_event_start(&v->watch, stepview_exercise_on_event, v->dir, 0);
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
        uv_fs_poll_start(p, stepview_exercise_on_poll, path, EXVIEW_POLL_MS);
    }
}

/* ---- the row ---- */

static void *stepview_exercise_open(const struct stepview_env *env, struct view_ctx *c)
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
    v->sheet_w = -1;
    v->nedit = exercise_edit_files(ex, v->edit, BUILD_MAX_FILES);
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
    judge_builder_init(&v->builder, c->loop, ex, v->cache, v->sandbox, stepview_exercise_built, v);
    stepview_exercise_watch(v);
    stepview_exercise_note_content(v);
    stepview_exercise_rebuild(v);
    return v;
}

static void stepview_exercise_close(void *self, struct view_ctx *c)
{
    struct exview *v = self;
    (void)c;
    v->closing = true;
    codeview_close(v->code);
    v->code = NULL;
    judge_build_cancel(&v->builder);
    stepview_exercise_stop_run(v);
    uv_close((uv_handle_t *)&v->debounce, stepview_exercise_close_cb);
    if (v->have_watch)
        uv_close((uv_handle_t *)&v->watch, stepview_exercise_close_cb);
    for (size_t i = 0; i < v->npolls; i++)
        uv_close((uv_handle_t *)&v->polls[i], stepview_exercise_close_cb);
}

static enum layout_kind stepview_exercise_layout(void *self, size_t *nprogs)
{
    struct exview *v = self;
    /* Code needs the width: the solution takes the whole body while the learner reads it, and
       the run goes on behind it. */
    if (v->sheet || v->code) {
        *nprogs = 0;
        return LAYOUT_TEXT;
    }
    if (v->rv) {
        enum layout_kind k = stepview_run.layout(v->rv, nprogs);
        /* While a check fails, its sentence is what the learner reads: the text column widens. */
        return k == LAYOUT_RUN && !stepview_run.done(v->rv) ? LAYOUT_RUN_VERDICT : k;
    }
    *nprogs = 0;
    return LAYOUT_TEXT;
}

/* ---- the rows under the text ---- */

/* Where the rows under the text go: counted always, drawn only when draw is set (the lesson
   screen asks how many there are before it lays the text out). compact: the rows are fewer than
   wanted (the task keeps its room), so the workspace's path goes (the title of e's editor and
   iolab check name it) and the build's status takes one row, cut: the checks get the rest. */
struct stepview_exercise_pen {
    const struct screen_caps *c;
    int x, y, w, end;
    bool draw, compact;
};

/* One paragraph, wrapped with a hanging indent; rows past the end are counted, not drawn. */
static void stepview_exercise_para(struct stepview_exercise_pen *p, attr_t attr, const char *s)
{
    int room = p->draw && p->end > p->y ? p->end - p->y : 0;
    p->y += widgets_wrapped(p->c, p->x, p->y, p->w, 2, room, attr, s);
}

/* The learner's program's sanitizer report, condensed into buf; NULL when there is none. */
static const char *stepview_exercise_report(const struct exview *v, char *buf, size_t len)
{
    const char *report = v->rv ? stepview_run_sanitizer_report(v->rv) : NULL;
    if (!report || !*report)
        return NULL;
    exercise_sanitizer_brief(v->ex, report, buf, len);
    return buf;
}

/* One row, cut at the pane's edge. */
static void stepview_exercise_row(struct stepview_exercise_pen *p, attr_t attr, const char *s)
{
    if (p->draw && p->y < p->end)
        widgets_text(p->c, p->x, p->y, p->w, attr, s);
    p->y++;
}

/* The end of s that fits in w columns, after an ellipsis when cut: a path's last parts are the
   ones that tell one exercise's workspace from another's. */
static const char *stepview_exercise_tail(const struct screen_caps *c, const char *s, int w,
                                          char *buf, size_t len)
{
    if (wrap_width(s, strlen(s), c->utf8) <= w)
        return s;
    const char *dots = c->utf8 ? "\u2026" : "...";
    int dw = c->utf8 ? 1 : 3;
    const char *t = s;
    while (*t && wrap_width(t, strlen(t), c->utf8) > w - dw)
        t++;
    while (((unsigned char)*t & 0xC0) == 0x80) /* not in the middle of a character */
        t++;
    snprintf(buf, len, "%s%s", dots, t);
    return buf;
}

/* Which files the learner has and which of them `e` opens (those with a TODO). */
static void stepview_exercise_foot_files(struct exview *v, struct stepview_exercise_pen *p)
{
    char line[PATH_MAX + 256];
    size_t n = (size_t)snprintf(line, sizeof line, "Your files:");
    for (size_t i = 0; i < v->ex->nfiles && n < sizeof line; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s %s", i ? "," : "", v->ex->files[i]);
    if (n < sizeof line && v->nedit == v->ex->nfiles)
        snprintf(line + n, sizeof line - n, " (e opens %s)",
                 v->nedit == 1   ? "it"
                 : v->nedit == 2 ? "both"
                                 : "them all");
    for (size_t i = 0; n < sizeof line && v->nedit < v->ex->nfiles && i < v->nedit; i++)
        n += (size_t)snprintf(line + n, sizeof line - n, "%s%s%s", i ? ", " : " (e opens ",
                              v->edit[i], i + 1 == v->nedit ? ": the TODOs)" : "");
    stepview_exercise_para(p, screen_attr(SCREEN_DIM), line);
}

/* The workspace and its files, the build's status, hints, confirmations; compact: the status
   only (the files go under the checks, as far as the rows go). */
static void stepview_exercise_foot_top(struct exview *v, struct stepview_exercise_pen *p)
{
    /* A pass first: hints and warnings below may push the checks out of a small pane, never
       this. */
    if (v->rv && stepview_run.done(v->rv)) {
        char done[64];
        snprintf(done, sizeof done, "%s Step done. n: next step", p->c->g->done);
        stepview_exercise_row(p, screen_attr(SCREEN_GOOD) | A_BOLD, done);
    }
    /* The files, then where they are, on one row. */
    char line[PATH_MAX + 256], tail[PATH_MAX + 8];
    if (p->compact) {
        stepview_exercise_row(
            p, screen_attr(v->state == EXVIEW_FAILED ? SCREEN_BAD : SCREEN_NORMAL), v->status);
    } else {
        stepview_exercise_foot_files(v, p);
        snprintf(line, sizeof line, "  in %s",
                 stepview_exercise_tail(p->c, v->dir, p->w - 5, tail, sizeof tail));
        stepview_exercise_row(p, screen_attr(SCREEN_DIM), line);
        stepview_exercise_para(
            p, screen_attr(v->state == EXVIEW_FAILED ? SCREEN_BAD : SCREEN_NORMAL), v->status);
    }
    /* The newest hint whole; the ones before it on a row each, so that the checks stay in
       sight in a narrow pane. */
    for (size_t i = 0; i < v->hints; i++) {
        snprintf(line, sizeof line, "Hint %zu: %s", i + 1, v->ex->hints[i]);
        if (i + 1 < v->hints)
            stepview_exercise_row(p, screen_attr(SCREEN_HEADING), line);
        else
            stepview_exercise_para(p, screen_attr(SCREEN_HEADING), line);
    }
}

/* A confirmation drawn as tui.c draws its quit dialog: a box in the middle of the screen, the
   question in bold, the keys under it. */
static void stepview_exercise_draw_confirm(const struct exview *v, const struct screen_caps *c)
{
    if (!v->confirm_solution && !v->confirm_reset)
        return;
    const char *title = v->confirm_solution ? "Solution" : "Reset";
    const char *question = v->confirm_solution ? "See the solution before your program passes?"
                                               : "Reset your files to the starter?";
    const char *more = v->confirm_solution ? "(it is noted in your progress)"
                                           : "(yours are kept aside, not deleted)";
    const char *keys = v->confirm_solution ? "y: show it    any other key: not yet"
                                           : "y: reset    any other key: keep them";
    int w = COLS < 56 ? COLS : 56;
    struct layout_rect r = layout_center(COLS, LINES, w, 6);
    widgets_clear(r);
    struct layout_rect in = widgets_box(c, r, title, true);
    widgets_text(c, in.x + 1, in.y, in.w - 2, A_BOLD, question);
    widgets_text(c, in.x + 1, in.y + 1, in.w - 2, A_NORMAL, more);
    widgets_text(c, in.x + 1, in.y + 3, in.w - 2, A_NORMAL, keys);
}

/* A successful build's warnings, as the compiler wrote them, at the learner's own lines (the
   failed build's messages are drawn whole instead). */
static void stepview_exercise_foot_warnings(struct exview *v, struct stepview_exercise_pen *p)
{
    if (v->state == EXVIEW_FAILED || !v->warnings || !v->log)
        return;
    char line[1024];
    unsigned shown = 0;
    /* "file:line:col: message" under a heading that says they are warnings: the location then
       fits on the first row even when the text pane is at its narrowest. */
    stepview_exercise_para(
        p, A_BOLD, v->warnings == 1 ? "The compiler's warning:" : "The compiler's warnings:");
    for (const char *s = v->log; *s && shown < EXVIEW_WARNINGS;) {
        const char *nl = strchr(s, '\n');
        int len = nl ? (int)(nl - s) : (int)strlen(s);
        char raw[1024];
        snprintf(raw, sizeof raw, "%.*s", len, s);
        s += len + (nl != NULL);
        char *w = strstr(raw, ": warning: ");
        if (!w)
            continue;
        memmove(w + 2, w + 11, strlen(w + 11) + 1);
        exercise_shorten(v->ex, raw, line, sizeof line);
        stepview_exercise_para(p, screen_attr(SCREEN_STDERR), line);
        shown++;
    }
    if (v->warnings > shown) {
        snprintf(line, sizeof line, "and %u more warning%s (iolab check lists them)",
                 v->warnings - shown, v->warnings - shown == 1 ? "" : "s");
        stepview_exercise_para(p, screen_attr(SCREEN_DIM), line);
    }
}

/* The report's rows: its heading and its lines. */
static void stepview_exercise_foot_report(struct stepview_exercise_pen *p, const char *brief)
{
    stepview_exercise_para(
        p, screen_attr(SCREEN_BAD) | A_BOLD,
        "Your program's sanitizer report, the lines about your code (iolab check prints "
        "it whole):");
    for (const char *s = brief; *s;) {
        const char *nl = strchr(s, '\n');
        int len = nl ? (int)(nl - s) : (int)strlen(s);
        char line[640];
        snprintf(line, sizeof line, "%.*s", len, s);
        s += len + (nl != NULL);
        stepview_exercise_para(p, screen_attr(SCREEN_STDERR), line);
    }
}

/*
 * From the top: the files, the status, hints; the run's checks; then what the run and the
 * build had to say: a sanitizer's report, which the checks say is below, and the warnings. The
 * checks come first because they say whether the program does its job; a report, when there is
 * one, may take the pane's height, since it says why the program did not.
 */
static int stepview_exercise_text_foot_rows(void *self, int inner_h)
{
    struct exview *v = self;
    int most = inner_h * 2 / 3;
    v->inner_h = inner_h;
    /* The compiler's messages are what the learner must read now: they take the pane, but for
       two rows of the step's text, which j/k give back once the build succeeds. */
    if (v->state == EXVIEW_FAILED && v->log)
        return inner_h > 4 ? inner_h - 2 : inner_h;
    /* While a check fails, the checks and their sentences say what to do next: the lesson's text
       keeps two rows (j scrolls it) and the rest is theirs. */
    bool failing = v->rv && !stepview_run.done(v->rv);
    if (failing)
        most = inner_h > 6 ? inner_h - 2 : inner_h;
    if (!v->foot_caps) { /* not drawn yet: one row each, until the first frame says better */
        int run = v->rv ? 1 + stepview_run.text_foot_rows(v->rv, inner_h) : 0;
        return 3 + (int)v->hints + run < most ? 3 + (int)v->hints + run : most;
    }
    struct stepview_exercise_pen p = {.c = v->foot_caps, .w = v->foot_w};
    stepview_exercise_foot_top(v, &p);
    if (v->rv)
        p.y += 1 + stepview_run_foot_rows_in(v->rv, most - p.y - 1);
    static char brief[EXVIEW_BRIEF_MAX];
    if (stepview_exercise_report(v, brief, sizeof brief)) {
        most = inner_h - 2;
        stepview_exercise_foot_report(&p, brief);
    }
    stepview_exercise_foot_warnings(v, &p);
    return p.y < most ? p.y : most;
}

/* Appends one row to doc; false when out of memory. */
static bool stepview_exercise_doc_add(struct wrap_doc *doc, const char *text, int width)
{
    if (doc->nlines == doc->cap) {
        size_t cap = doc->cap ? 2 * doc->cap : 32;
        struct wrap_line *l = realloc(doc->lines, cap * sizeof *l);
        if (!l)
            return false;
        doc->lines = l;
        doc->cap = cap;
    }
    char *t = strdup(text);
    if (!t)
        return false;
    doc->lines[doc->nlines++] = (struct wrap_line){.text = t, .width = width};
    return true;
}

/* The failed build's messages as rows of width w: file names shortened to the learner's own,
   messages wrapped under themselves, source excerpts kept whole. */
static void stepview_exercise_log_rows(struct exview *v, const struct screen_caps *c, int w)
{
    wrap_doc_free(&v->log_doc);
    v->log_w = w;
    for (const char *s = v->log; *s;) {
        const char *nl = strchr(s, '\n');
        int len = nl ? (int)(nl - s) : (int)strlen(s);
        char raw[1024], line[1024];
        snprintf(raw, sizeof raw, "%.*s", len, s);
        s += len + (nl != NULL);
        exercise_shorten(v->ex, raw, line, sizeof line);
        if (exercise_compiler_excerpt(line) || wrap_width(line, strlen(line), c->utf8) <= w) {
            if (!stepview_exercise_doc_add(&v->log_doc, line,
                                           wrap_width(line, strlen(line), c->utf8)))
                return;
            continue;
        }
        struct wrap_doc d = {0};
        if (wrap_plain(line, w - 2, c->utf8, &d) == 0)
            for (size_t i = 0; i < d.nlines; i++) {
                char row[1100];
                snprintf(row, sizeof row, "%s%s", i ? "  " : "", d.lines[i].text);
                if (!stepview_exercise_doc_add(&v->log_doc, row, d.lines[i].width + (i ? 2 : 0)))
                    break;
            }
        wrap_doc_free(&d);
    }
    if (v->log_cut)
        stepview_exercise_doc_add(&v->log_doc, "(the rest was cut; iolab check prints it whole)",
                                  46);
}

/* The failed build's messages in r, from the row the learner scrolled to. */
static void stepview_exercise_draw_log(struct exview *v, const struct screen_caps *c,
                                       struct layout_rect r)
{
    if (r.h <= 0)
        return;
    if (r.w != v->log_w || !v->log_doc.nlines)
        stepview_exercise_log_rows(v, c, r.w);
    v->log_h = r.h;
    size_t n = v->log_doc.nlines, h = (size_t)r.h;
    if (v->log_top + h > n)
        v->log_top = n > h ? n - h : 0;
    for (size_t i = 0; i < h && v->log_top + i < n; i++) {
        const char *t = v->log_doc.lines[v->log_top + i].text;
        attr_t a = strstr(t, ": error: ")     ? screen_attr(SCREEN_BAD) | A_BOLD
                   : strstr(t, ": warning: ") ? screen_attr(SCREEN_STDERR)
                                              : A_NORMAL;
        widgets_text(c, r.x, r.y + (int)i, r.w, a, t);
    }
    char more[48];
    if (v->log_top + h < n) {
        snprintf(more, sizeof more, "(%zu more: j)", n - v->log_top - h);
        int mw = (int)strlen(more);
        widgets_text(c, r.x + r.w - mw, r.y + r.h - 1, mw, screen_attr(SCREEN_DIM), more);
    }
}

/* Scrolls a failed build's messages; 0 when the key was one of the scrolling keys. */
static int stepview_exercise_log_key(struct exview *v, int key)
{
    size_t page = v->log_h > 2 ? (size_t)v->log_h - 2 : 1;
    if (key == KEY_UP || key == 'k')
        v->log_top -= v->log_top > 0;
    else if (key == KEY_DOWN || key == 'j')
        v->log_top++; /* the draw keeps the last page full */
    else if (key == KEY_PPAGE)
        v->log_top = v->log_top > page ? v->log_top - page : 0;
    else if (key == KEY_NPAGE)
        v->log_top += page;
    else if (key == 'g' || key == KEY_HOME)
        v->log_top = 0;
    else if (key == 'G' || key == KEY_END)
        v->log_top = v->log_doc.nlines;
    else
        return -1;
    v->c->dirty = true;
    return 0;
}

static void stepview_exercise_draw_text_foot(void *self, struct view_ctx *vc, struct layout_rect r)
{
    struct exview *v = self;
    const struct screen_caps *c = vc->caps;
    if (r.w != v->foot_w || c != v->foot_caps)
        vc->dirty = true; /* the rows were counted at another width: count again next frame */
    v->foot_w = r.w;
    v->foot_caps = c;
    int end = r.y + r.h;
    struct stepview_exercise_pen p = {
        .c = c, .x = r.x, .y = r.y, .w = r.w, .end = end, .draw = true};
    /* Fewer rows than wanted: the lesson screen kept the task its room (footrows.h). */
    p.compact = v->inner_h > 0 && r.h < stepview_exercise_text_foot_rows(v, v->inner_h) &&
                !(v->state == EXVIEW_FAILED && v->log);
    stepview_exercise_foot_top(v, &p);
    if (v->state == EXVIEW_FAILED && v->log) {
        stepview_exercise_draw_log(v, c, (struct layout_rect){r.x, p.y, r.w, end - p.y});
        return;
    }
    static char brief[EXVIEW_BRIEF_MAX];
    const char *report = stepview_exercise_report(v, brief, sizeof brief);
    if (v->rv && p.y + 1 < end) {
        /* The checks; a report below them keeps a few rows whatever the checks take. */
        int run = stepview_run.text_foot_rows(v->rv, v->inner_h);
        int gap = !p.compact; /* a blank row above the checks when there is room for it */
        int room = end - p.y - gap - (report ? 4 : 0);
        if (run > room)
            run = room;
        if (p.compact) {
            /* The files under the checks, when the checks leave them room or have their first
               rows (a heading, a name, a few rows of its advice) without it. */
            struct stepview_exercise_pen f = {.c = c, .w = r.w};
            stepview_exercise_foot_files(v, &f);
            if (run + f.y > room && room - f.y >= 6)
                run = room - f.y;
        }
        if (run > 0)
            stepview_run.draw_text_foot(v->rv, vc, (struct layout_rect){r.x, p.y + gap, r.w, run});
        p.y += gap + (run > 0 ? run : 0);
    }
    if (p.compact)
        stepview_exercise_foot_files(v, &p);
    if (report)
        stepview_exercise_foot_report(&p, report);
    stepview_exercise_foot_warnings(v, &p);
}

/* The reference solution over the text pane, from its first line shown. */
static void stepview_exercise_draw_sheet(struct exview *v, struct view_ctx *vc)
{
    const struct screen_caps *c = vc->caps;
    widgets_clear(vc->layout.text);
    struct layout_rect in =
        widgets_box(c, vc->layout.text, "The reference solution: j/k scroll, Esc closes", true);
    struct layout_rect body = {in.x + 1, in.y, in.w - 2, in.h};
    if (body.w != v->sheet_w) {
        wrap_doc_free(&v->sheet_doc);
        wrap_markdown(v->sheet_md, body.w, c->utf8, &v->sheet_doc);
        v->sheet_w = body.w;
    }
    /* The answer the learner looks for is under a TODO: the sheet opens there, one line of
       context above it (j/k and the page keys go anywhere from there). */
    for (size_t i = 0; v->sheet_seek && i < v->sheet_doc.nlines; i++)
        if (strstr(v->sheet_doc.lines[i].text, "/* TODO ")) {
            v->sheet_top = i > 0 ? i - 1 : 0;
            v->sheet_seek = false;
        }
    v->sheet_seek = false;
    v->sheet_h = body.h;
    size_t last = v->sheet_doc.nlines > (size_t)body.h ? v->sheet_doc.nlines - (size_t)body.h : 0;
    if (v->sheet_top > last)
        v->sheet_top = last;
    widgets_doc(c, body, &v->sheet_doc, v->sheet_top);
    if (v->sheet_top < last)
        widgets_text(c, in.x + in.w - 10, in.y + in.h - 1, 9, screen_attr(SCREEN_DIM), "(more: j)");
}

/* Scrolls the solution with the text's keys; 0 when the key was one of them. */
static int stepview_exercise_sheet_key(struct exview *v, int key)
{
    size_t page = v->sheet_h > 2 ? (size_t)v->sheet_h - 2 : 1;
    size_t n = v->sheet_doc.nlines;
    if (key == KEY_UP || key == 'k')
        v->sheet_top -= v->sheet_top > 0;
    else if (key == KEY_DOWN || key == 'j')
        v->sheet_top += v->sheet_top + 1 < n; /* the draw keeps the last page full */
    else if (key == KEY_PPAGE)
        v->sheet_top = v->sheet_top > page ? v->sheet_top - page : 0;
    else if (key == KEY_NPAGE)
        v->sheet_top = v->sheet_top + page < n ? v->sheet_top + page : n;
    else if (key == 27)
        stepview_exercise_close_sheet(v);
    else
        return -1;
    v->c->dirty = true;
    return 0;
}

static void stepview_exercise_draw(void *self, struct view_ctx *vc)
{
    struct exview *v = self;
    const struct tally_sites *a, *b;
    double t;
    int mode = v->rv ? stepview_run_mode(v->rv) : -1;
    if (v->code && mode >= 0 && mode != v->code_mode)
        stepview_exercise_show_lines(v, mode);
    if (v->code && v->rv && v->run.sc.has_learner &&
        stepview_run_sites(v->rv, v->run.sc.learner, &a, &b, &t))
        codeview_update(v->code, a, b, t);
    if (v->code)
        codeview_draw(v->code, vc->caps, vc->layout.text);
    else if (v->sheet)
        stepview_exercise_draw_sheet(v, vc);
    else if (v->rv)
        stepview_run.draw(v->rv, vc);
    stepview_exercise_draw_confirm(v, vc->caps);
}

static void stepview_exercise_title_right(void *self, char *buf, size_t len)
{
    struct exview *v = self;
    if (v->rv)
        stepview_run.title_right(v->rv, buf, len);
    else
        snprintf(buf, len, "%s ", v->state == EXVIEW_BUILDING ? "building" : "not built");
}

/*
 * After the editor (tui.c hands it the terminal): what it saved is built like any other save
 * (once, and only when it changed). Nothing saved, or no editor at all, is no reason to stop the
 * exercise: the run that e stopped starts again on the program already built, whose verdicts
 * then come from a run the editor did not hold up.
 */
static void stepview_exercise_edited(void *self, struct view_ctx *c, bool ran)
{
    struct exview *v = self;
    if (stepview_exercise_note_content(v)) {
        v->build_after_save = true;
        stepview_exercise_rebuild(v);
        return;
    }
    /* A build under way goes on to its run; a failed one keeps its messages on screen. */
    if (v->state != EXVIEW_READY || v->rv)
        return;
    stepview_exercise_ready(v);
    /* The status line moves on to the run; the line under the files keeps what happened. */
    if (!ran)
        snprintf(v->status, sizeof v->status, "%s", c->status);
    else
        snprintf(v->status, sizeof v->status,
                 "Nothing changed in your files: your program (build %u) runs again.", v->builds);
    view_status(v->c, !ran, "%s", v->status);
}

/*
 * What an editor that holds several files in one session needs to be told: how to go from one
 * to the next, and how to leave (vi closes one file per :q, and says only "1 more file to
 * edit"). Matched on the command's name; NULL for an editor that needs no word (or one unknown).
 */
static const char *stepview_exercise_editor_keys(const char *ed)
{
    static const struct {
        const char *name; /* the command's name, or its start when prefix */
        bool prefix;
        const char *keys;
    } editors[] = {
        {.name = "vi", .keys = ":n next file, :N back, :wqa saves and quits"},
        {.name = "vim", .prefix = true, .keys = ":n next file, :N back, :wqa saves and quits"},
        {.name = "nvim", .keys = ":n next file, :N back, :wqa saves and quits"},
        {.name = "nvi", .keys = ":n next file, :wq each one"},
        {.name = "nano", .keys = "Alt-> next file, Ctrl-X closes each"},
    };
    size_t len = strcspn(ed, " \t");
    const char *base = ed;
    for (const char *s = ed; s < ed + len; s++)
        if (*s == '/')
            base = s + 1;
    size_t n = (size_t)(ed + len - base);
    for (size_t i = 0; i < sizeof editors / sizeof *editors; i++) {
        size_t k = strlen(editors[i].name);
        if (editors[i].prefix ? n >= k && !strncmp(base, editors[i].name, k)
                              : n == k && !strncmp(base, editors[i].name, k))
            return editors[i].keys;
    }
    return NULL;
}

/* Hands the terminal to the learner's editor on every file they have to write (one invocation,
   `$EDITOR a.c b.h`, as vi, nano, emacs and code all take), then builds what they saved. With
   several files in an editor that holds them in one session, the first e says how to move
   between them and leave, since nothing does once the editor has the screen; e again opens. */
static int stepview_exercise_key_edit(void *self, struct view_ctx *c, int key,
                                      struct view_action *act)
{
    struct exview *v = self;
    (void)key;
    const char *ed = view_editor(), *keys = v->nedit > 1 ? stepview_exercise_editor_keys(ed) : NULL;
    if (keys && !v->edit_told) {
        char n[32];
        snprintf(n, sizeof n, "all %zu files", v->nedit);
        view_status(c, false, "e again opens %s: %s.", v->nedit == 2 ? "both files" : n, keys);
        v->edit_told = true;
        return 0;
    }
    stepview_exercise_stop_run(
        v); /* nothing runs unseen while the editor has the screen (see edited) */
    *act = (struct view_action){.kind = VIEW_EDIT,
                                .dir = v->dir,
                                .files = v->edit,
                                .nfiles = v->nedit,
                                .edited = stepview_exercise_edited,
                                .self = v};
    return 0;
}

static int stepview_exercise_key_build(void *self, struct view_ctx *c, int key,
                                       struct view_action *act)
{
    (void)c;
    (void)key;
    (void)act;
    stepview_exercise_rebuild(self);
    return 0;
}

static int stepview_exercise_key_hint(void *self, struct view_ctx *c, int key,
                                      struct view_action *act)
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

/* The pass is recorded as the run is judged (stepview_exercise_judged). */
static bool stepview_exercise_done(void *self)
{
    struct exview *v = self;
    return v->rv && stepview_run.done(v->rv);
}

static int stepview_exercise_key_solution(void *self, struct view_ctx *c, int key,
                                          struct view_action *act)
{
    struct exview *v = self;
    (void)c;
    (void)key;
    (void)act;
    if (v->sheet)
        stepview_exercise_close_sheet(v);
    else if (stepview_exercise_done(v) || v->env.done)
        stepview_exercise_show_solution(v);
    else
        v->confirm_solution = true;
    return 0;
}

/* The results box is the run view's (a): listed here for the help, which shows the exercise's
   table. */
static int stepview_exercise_key_results(void *self, struct view_ctx *c, int key,
                                         struct view_action *act)
{
    struct exview *v = self;
    const struct keybind *b = v->rv ? keys_find(stepview_run.keys, key) : NULL;
    if (!b) {
        view_status(c, false, "Nothing is judged yet: your program runs once it builds.");
        return 0;
    }
    return b->fn(v->rv, c, key, act);
}

static int stepview_exercise_key_lines(void *self, struct view_ctx *c, int key,
                                       struct view_action *act)
{
    (void)c;
    (void)key;
    (void)act;
    struct exview *v = self;
    if (v->code) {
        codeview_close(v->code);
        v->code = NULL;
        v->c->dirty = true;
        return 0;
    }
    int mode = v->rv ? stepview_run_mode(v->rv) : -1;
    stepview_exercise_show_lines(v, mode == EXERCISE_MODE_REFERENCE ? mode : EXERCISE_MODE_YOURS);
    return 0;
}

static int stepview_exercise_key_reset(void *self, struct view_ctx *c, int key,
                                       struct view_action *act)
{
    struct exview *v = self;
    (void)c;
    (void)key;
    (void)act;
    v->confirm_reset = true;
    return 0;
}

static const struct keytable stepview_exercise_keys;

/* Answers to the confirmations, then the run view's own keys. */
static int stepview_exercise_key(void *self, struct view_ctx *c, int key)
{
    struct exview *v = self;
    if (v->confirm_solution || v->confirm_reset) {
        bool yes = key == 'y' || key == 'Y';
        if (v->confirm_solution && yes)
            stepview_exercise_show_solution(v);
        if (v->confirm_reset && yes) {
            char moved[PATH_MAX + 32];
            stepview_exercise_stop_run(v);
            int rc = exercise_reset(v->ex, v->dir, moved, sizeof moved);
            stepview_exercise_note_content(
                v); /* the starter again: built now, and not an attempt */
            stepview_exercise_rebuild(v);
            if (rc == 0)
                view_status(c, false, "The starter is back; your files were kept as %s.", moved);
            else
                view_status(c, true, "The workspace could not be reset: %s.", strerror(-rc));
        }
        v->confirm_solution = v->confirm_reset = false;
        return 0;
    }
    if (v->code && key != 'L') {
        int k = codeview_key(v->code, key);
        if (k == 1) {
            codeview_close(v->code);
            v->code = NULL;
        }
        if (k >= 0) {
            c->dirty = true;
            return 0;
        }
    }
    if (v->sheet && stepview_exercise_sheet_key(v, key) == 0)
        return 0;
    /* A failed build's messages have the screen: the text's scrolling keys scroll them. */
    if (!v->sheet && v->state == EXVIEW_FAILED && v->log && stepview_exercise_log_key(v, key) == 0)
        return 0;
    /* The exercise's other keys (edit, build, hint, reset) act on what the solution covers: it
       makes way for them. Mode keys and help leave it open; the run goes on behind it. */
    if (v->sheet && key != 'S' && key != 'L' && keys_find(&stepview_exercise_keys, key))
        stepview_exercise_close_sheet(v);
    if (v->code && key != 'L' && keys_find(&stepview_exercise_keys, key)) {
        codeview_close(v->code);
        v->code = NULL;
    }
    if (v->rv && stepview_run.key(v->rv, c, key) == 0)
        return 0;
    if (v->rv && key != 'L') { /* L is the exercise's own code view, on its files */
        const struct keybind *b = keys_find(stepview_run.keys, key);
        if (b)
            return b->fn(v->rv, c, key, &(struct view_action){0});
    }
    return -1;
}

static const struct keybind stepview_exercise_bindings[] = {
    {.key = 'e',
     .name = "e",
     .label = "edit",
     .help = "edit your files in $VISUAL or $EDITOR, each one with a TODO (saving builds and "
             "runs it)",
     .priority = 96,
     .fn = stepview_exercise_key_edit},
    {.key = 'b',
     .name = "b",
     .label = "build",
     .help = "build and run again now",
     .priority = 35,
     .fn = stepview_exercise_key_build},
    {.key = 'H',
     .name = "H",
     .label = "hint",
     .help = "the next hint",
     .priority = 80,
     .fn = stepview_exercise_key_hint},
    {.key = 'a',
     .name = "a",
     /* In the footer through the run view's entries, once there is a run. */
     .help = "all the checks whole, failing ones first with what to do, as iolab check prints "
             "them (j/k scroll, another key closes)",
     .fn = stepview_exercise_key_results},
    {.key = 'S',
     .name = "S",
     .help = "the reference solution's code (asks first before you pass); S or Esc closes it",
     .fn = stepview_exercise_key_solution},
    {.key = 'R',
     .name = "R",
     .help = "reset your files to the starter (asks first; yours are kept aside)",
     .fn = stepview_exercise_key_reset},
    {.key = 'L',
     .name = "L",
     .help = "your files (the reference's, in its mode) with each line's counted calls and calls "
             "a second in the margin, live (L or Esc closes)",
     .fn = stepview_exercise_key_lines},
};
static const struct keytable stepview_exercise_keys =
    KEYTABLE("Exercise", stepview_exercise_bindings);

static size_t stepview_exercise_footer(void *self, int width, struct keys_item *out, size_t max)
{
    struct exview *v = self;
    return v->rv ? stepview_run.footer(v->rv, width, out, max) : 0;
}

static size_t stepview_exercise_help(void *self, char lines[][128], size_t max)
{
    struct exview *v = self;
    size_t n = 0;
    if (n < max)
        snprintf(lines[n++], 128, "%s\tthe run step's keys work once your program builds", "Run");
    /* The run step's table is not this step's: the keys that read a program's pane are named
       here, since its pane is narrow at 80 columns. */
    if (n < max)
        snprintf(lines[n++], 128,
                 "z\ta program's pane on the whole screen (j/k scroll it; z or "
                 "Esc returns)");
    if (n < max)
        snprintf(lines[n++], 128, "o\tpick the next program: z shows it whole");
    if (v->rv)
        n += stepview_run.help(v->rv, lines + n, max - n);
    return n;
}

static void stepview_exercise_click(void *self, struct view_ctx *c, int x, int y)
{
    struct exview *v = self;
    if (v->rv)
        stepview_run.click(v->rv, c, x, y);
}

static bool stepview_exercise_busy(void *self)
{
    struct exview *v = self;
    return v->rv && stepview_run.busy(v->rv);
}

/* A failed build's messages are what the learner reads now, and j/k scroll them; a sanitizer's
   report says why the program did not do its job, and takes the rows it needs. */
static const char *stepview_exercise_foot_first(void *self)
{
    struct exview *v = self;
    if (v->sheet || v->code)
        return NULL;
    if (v->state == EXVIEW_FAILED && v->log)
        return "(more; j scrolls the errors)";
    const char *report = v->rv ? stepview_run_sanitizer_report(v->rv) : NULL;
    return report && *report ? "(more: j)" : NULL;
}

/* The checks are the run's: they scroll as the run view's do. */
static int stepview_exercise_foot_scroll(void *self, int dir)
{
    struct exview *v = self;
    return v->rv ? stepview_run_foot_scroll(v->rv, dir) : -1;
}

static bool stepview_exercise_text_focused(void *self)
{
    struct exview *v = self;
    return v->sheet || v->code || !v->rv || stepview_run.text_focused(v->rv);
}

const struct stepview_kind stepview_exercise = {
    .name = "exercise",
    .open = stepview_exercise_open,
    .close = stepview_exercise_close,
    .layout = stepview_exercise_layout,
    .text_foot_rows = stepview_exercise_text_foot_rows,
    .draw_text_foot = stepview_exercise_draw_text_foot,
    .text_room = true,
    .foot_first = stepview_exercise_foot_first,
    .draw = stepview_exercise_draw,
    .title_right = stepview_exercise_title_right,
    .key = stepview_exercise_key,
    .keys = &stepview_exercise_keys,
    .footer = stepview_exercise_footer,
    .help = stepview_exercise_help,
    .click = stepview_exercise_click,
    .done = stepview_exercise_done,
    .busy = stepview_exercise_busy,
    .text_focused = stepview_exercise_text_focused,
    .foot_scroll = stepview_exercise_foot_scroll,
    .open_hint = "e edits your file; every save builds and runs it. ? lists every key.",
};
