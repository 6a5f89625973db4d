/*
 * stepview_run: the view of a run step. It owns the step's engine while the step is open: Enter
 * starts the scenario, the lesson's mode keys restart the program a mode changes (the server, or
 * the copy of a one-program step) while the others keep running, space pauses the load, r restarts,
 * c shows the comparison of the modes tried; closing the step stops everything. Every snapshot goes
 * to the grader (grade.h), which judges the step's checks exactly as `iolab run` does; the step is
 * done when the grader says so.
 *
 * Panes: one per program (its output as it comes, from the engine's line ring) and the counters
 * pane. Focus moves with Tab only between the panes that take typed keys: 0 the text (keys are
 * commands), and the panes of interactive programs (lesson_program.interactive), which get the
 * typed keys; Enter sends the line to the program's stdin, Esc leaves the pane. A learner who
 * types into the text pane by mistake is asked before a key leaves the running step.
 *
 * Programs beyond what fits share the last pane (layout.h), which shows one of them at a time
 * with its place among them in the title; o picks the next program (the shared pane turns to
 * it), and z shows the picked program's pane on the whole body, where j/k scroll its output and
 * Esc (or z) returns: a pane is 13 columns wide at 80, and a program's own sentence is read whole
 * only there.
 */
#include "codeview.h"
#include "counterview.h"
#include "engine/engine.h"
#include "exercise/judge.h"
#include "footrows.h"
#include "grade.h"
#include "metrics/stats.h"
#include "paths.h"
#include "util/fileread.h"
#include "predictview.h"
#include "stepview.h"
#include "sweepview.h"
#include "widgets.h"
#include "wrap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct runview {
    struct stepview_env env;
    const struct lesson_scenario *sc;
    struct view_ctx *c;    /* for the engine's callbacks: the TUI's context outlives the step */
    struct engine *engine; /* the running scenario; NULL before the first start */
    enum engine_state est;
    struct snapshot snap; /* a copy of the latest snapshot */
    bool have_snap;
    /* The first snapshot of the mode running now (of this run): the counters pane shows what
       happened since, so a mode's calls are never mixed with the previous mode's. */
    struct snapshot mode_base;
    bool have_base;
    bool totals; /* the counters pane shows the totals since the start instead (t) */
    bool paused, compare;
    bool legend;     /* the legend of the figures is open (i); a key that does not scroll it
                        closes it */
    int legend_top;  /* its first row shown: it scrolls when taller than the terminal */
    int legend_page; /* the rows it showed at once, last drawn */
    /* The width and terminal the checks were last drawn at: their lines wrap, and the layout
       asks how many rows they take before they are drawn. */
    int foot_w;
    const struct screen_caps *foot_caps;
    struct grader grader;
    struct judge judge; /* feeds the grader from the engine, names limits (exercise/judge.h) */
    bool judged;        /* the grader's verdicts were final when env.judged was last told */
    int focus;          /* 0 the text, 1..nprogs the pane of an interactive program */
    char input[256];
    size_t ninput;
    /* The program o picked (z shows it whole), the one the shared last pane shows when programs
       fold (layout.h), and the whole-body view of pick: on, and how many of its newest lines are
       scrolled below the bottom. npanes and nfolded are the last frame's layout. */
    size_t pick, tab;
    bool zoom;
    size_t zoom_back;
    size_t npanes, nfolded;
    struct predictview *pv;  /* the step's prediction questions; NULL: none */
    struct sweepview *sweep; /* the step's sweep (sweepview.h); NULL without one */
    /* The checks that hold: folded into one row until a click on it (fold_y, the row it was
       last drawn on, or -1) opens them. */
    bool passes_open;
    int fold_y;
    /* When the checks' advice does not fit under the text, the checks scroll: j past the
       text's end moves them (stepview_run_foot_scroll). checks_top is their first row shown;
       checks_total and checks_shown the rows they take whole and the rows of them shown, as
       last drawn (0: they fitted, nothing to scroll). */
    int checks_top, checks_total, checks_shown;
    /* The results box (a): every check, expected outcome and prediction whole, over the
       screen; a key that does not scroll it closes it. */
    bool results;
    struct widgets_sheet sheet;
    /* The code view (L): the studied program's source with its calls by line since its mode
       began, over the body; NULL while closed. */
    struct codeview *code;
};

static size_t stepview_run_nprogs(const struct runview *v)
{
    return v->sc->nprograms < LAYOUT_MAX_PROGS ? v->sc->nprograms : LAYOUT_MAX_PROGS;
}

static const struct lesson_program *stepview_run_focused_prog(const struct runview *v)
{
    if (v->focus < 1 || (size_t)v->focus > stepview_run_nprogs(v))
        return NULL;
    return &v->sc->programs[v->focus - 1];
}

/*
 * The program the step's modes restart, when they all restart the same one (the server, the copy
 * of a one-program step, an exercise's program); NULL when they restart different ones. What the
 * screen says about modes names it: a step with no server has no "server" to switch.
 */
static const struct lesson_program *stepview_run_switched(const struct runview *v)
{
    if (!v->sc->nmodes)
        return NULL;
    size_t p = v->sc->modes[0].program;
    for (size_t i = 1; i < v->sc->nmodes; i++)
        if (v->sc->modes[i].program != p)
            return NULL;
    return p < v->sc->nprograms ? &v->sc->programs[p] : NULL;
}

/* What keeps running while p restarts in another mode: "; the load keeps running" when p is a
   server with clients, "; the others keep running" when there are other programs, else "". */
static const char *stepview_run_kept(const struct runview *v, const struct lesson_program *p)
{
    if (v->sc->nprograms < 2)
        return "";
    for (size_t i = 0; p && p->role == LESSON_ROLE_SERVER && i < v->sc->nprograms; i++)
        if (v->sc->programs[i].role == LESSON_ROLE_CLIENT)
            return "; the load keeps running";
    return "; the others keep running";
}

/* ---- engine callbacks ---- */

/* A limit of the jail named by the judge, on the status line, starting with a capital. */
static void stepview_run_say_limit(struct runview *v, const char *limit)
{
    view_status(v->c, true, "%c%s; r restarts the scenario.",
                limit[0] >= 'a' && limit[0] <= 'z' ? limit[0] - 'a' + 'A' : limit[0], limit + 1);
}

/* Tells env.judged when the verdicts have just become final (an engine callback made them so);
   a restart that judges afresh makes the next verdicts news again. */
static void stepview_run_tell_judged(struct runview *v)
{
    bool judged = v->grader.over || grade_done(&v->grader);
    if (judged && !v->judged && v->env.judged)
        v->env.judged(v->env.judged_data, &v->judge);
    v->judged = judged;
}

static void stepview_run_on_line(void *data, size_t prog, enum engine_stream stream,
                                 const char *line, size_t len)
{
    struct runview *v = data;
    (void)stream;
    (void)len;
    judge_line(&v->judge, prog, line); /* output checks */
    stepview_run_tell_judged(v);
    /* While the sampler ticks, output is drawn with the next snapshot: a chatty program must not
       make iolab redraw for every line. */
    if (v->est != ENGINE_RUNNING)
        v->c->dirty = true;
}

/* Whether a program other than prog still runs, in the snapshot the engine published just before
   prog's exit was reported: a bot that leaves on purpose (chat's dee) does not end the scenario. */
static bool stepview_run_others_run(const struct runview *v, size_t prog)
{
    for (uint32_t i = 0; v->have_snap && i < v->snap.nprogs && i < SNAPSHOT_MAX_PROGS; i++)
        if (i != prog && (v->snap.progs[i].state == SNAPSHOT_PROG_RUNNING ||
                          v->snap.progs[i].state == SNAPSHOT_PROG_STARTING ||
                          v->snap.progs[i].state == SNAPSHOT_PROG_PAUSED))
            return true;
    return false;
}

static void stepview_run_on_exit(void *data, size_t prog, int status, bool expected)
{
    struct runview *v = data;
    const char *name = prog < v->sc->nprograms ? v->sc->programs[prog].name : "a program";
    /* Exit checks, and a limit of the jail named as `iolab check` names it. */
    const char *limit = judge_exit(&v->judge, v->engine, prog, status, expected);
    stepview_run_tell_judged(v);
    view_log(v->c, "%s exited with status %d%s", name, status, expected ? " (stopped)" : "");
    if (limit)
        stepview_run_say_limit(v, limit);
    else if (!expected && status != 0)
        view_status(v->c, true, "%s exited with status %d%s; r restarts the scenario.", name,
                    status, status > 128 ? " (killed by a signal)" : "");
    else if (!expected && stepview_run_others_run(v, prog))
        view_status(v->c, false, "%s finished; the other programs go on.", name);
    else if (!expected)
        view_status(v->c, false, "%s finished; r runs the scenario again.", name);
    v->c->dirty = true;
}

static void stepview_run_on_snapshot(void *data, const struct snapshot *snap)
{
    struct runview *v = data;
    /* A new mode's first running snapshot, or a new run's (its clock went back), is the base.
       A step without modes has nothing to start but the scenario: its counters are the totals
       since the start, calls made before the first sample (the clients' connects) included. */
    if (v->sc->nmodes > 0 && snap->mode_running &&
        (!v->have_base || snap->mode != v->mode_base.mode ||
         snap->elapsed_s < v->mode_base.elapsed_s)) {
        v->mode_base = *snap;
        v->have_base = true;
    }
    v->snap = *snap;
    v->have_snap = true;
    v->c->dirty = true;
    const char *limit = judge_snapshot(&v->judge, v->engine, snap);
    stepview_run_tell_judged(v);
    if (limit)
        stepview_run_say_limit(v, limit);
    if (v->pv)
        predictview_update(v->pv, v->grader.session.modes, v->grader.session.nmodes);
}

static void stepview_run_on_state(void *data, enum engine_state state)
{
    struct runview *v = data;
    v->est = state;
    v->c->dirty = true;
    view_log(v->c, "engine %s", engine_state_name(state));
    if (state == ENGINE_FAILED && v->engine)
        view_status(v->c, true, "The scenario could not start: %s", engine_error(v->engine));
    judge_state(&v->judge, v->engine, state); /* the tier; a run that ended is decided */
    stepview_run_tell_judged(v);
    /* One mode is nothing to switch between; several name the program they restart. */
    const struct lesson_program *p = stepview_run_switched(v);
    if (state == ENGINE_RUNNING && v->sc->nmodes > 1 && p)
        view_status(v->c, false, "Running. The footer's number keys switch the %s's mode%s.",
                    p->name, stepview_run_kept(v, p));
    else if (state == ENGINE_RUNNING && v->sc->nmodes > 1)
        view_status(v->c, false, "Running. The footer's number keys switch modes.");
    else if (state == ENGINE_RUNNING)
        view_status(v->c, false, "Running.");
}

/* ---- scenario control ---- */

static void stepview_run_stop(struct runview *v)
{
    if (v->engine) {
        /* engine_free kills whatever still runs; its handles close on the next loop turns. */
        engine_free(v->engine);
        v->engine = NULL;
    }
    v->est = ENGINE_IDLE;
    v->have_snap = false;
    v->have_base = false;
    v->paused = false;
}

static void stepview_run_start(struct runview *v, int mode)
{
    if (sweepview_running(v->sweep)) {
        view_status(v->c, false, "A sweep is running: w stops it first.");
        return;
    }
    stepview_run_stop(v);
    /* A verdict made final by a failure is judged afresh by the next run (r after a fix of the
       scenario's own making, a mode switch); a pass stays. */
    if (judge_new_run(&v->judge) < 0) {
        view_status(v->c, true, "out of memory");
        return;
    }
    struct engine_options eo = {
        .mode = mode >= 0 ? v->sc->modes[mode].id : NULL,
        .tick_hz = v->c->tick_hz,
        .tier = IOLAB_TIER_AUTO,
    };
    struct engine_callbacks cb = {
        .data = v,
        .on_line = stepview_run_on_line,
        .on_exit = stepview_run_on_exit,
        .on_snapshot = stepview_run_on_snapshot,
        .on_state = stepview_run_on_state,
    };
    /* A step with a sweep runs its default value when run plainly. */
    const struct lesson_scenario *sc = sweepview_plain_scenario(v->sweep);
    int rc = engine_create(&v->engine, v->c->loop, sc ? sc : v->sc, &eo, &cb);
    if (rc < 0) {
        v->engine = NULL;
        view_status(v->c, true, "The scenario could not be prepared: %s", strerror(-rc));
        return;
    }
    /* Said before the start: a step without a server is running when engine_start returns, and
       its "Running" must not be overwritten. */
    view_status(v->c, false, "Starting %s...", v->env.step->title);
    rc = engine_start(v->engine);
    if (rc < 0)
        view_status(v->c, true, "The scenario could not start: %s", engine_error(v->engine));
}

static void stepview_run_switch(struct runview *v, size_t mode)
{
    enum engine_state s = v->engine ? engine_state(v->engine) : ENGINE_IDLE;
    if (s != ENGINE_RUNNING) {
        stepview_run_start(v, (int)mode);
        return;
    }
    int rc = engine_switch_mode(v->engine, mode);
    if (rc == -EBUSY)
        view_status(v->c, false, "Still switching; try again in a moment.");
    else if (rc < 0)
        view_status(v->c, true, "Cannot switch to %s: %s", v->sc->modes[mode].id, strerror(-rc));
    else
        view_status(v->c, false, "Switching the %s to %s%s.",
                    v->sc->programs[v->sc->modes[mode].program].name, v->sc->modes[mode].id,
                    stepview_run_kept(v, &v->sc->programs[v->sc->modes[mode].program]));
}

static bool stepview_run_live(const struct runview *v)
{
    enum engine_state s = v->engine ? engine_state(v->engine) : ENGINE_IDLE;
    return s == ENGINE_STARTING || s == ENGINE_RUNNING;
}

/* ---- the row's functions ---- */

static void *stepview_run_open(const struct stepview_env *env, struct view_ctx *c)
{
    struct runview *v = calloc(1, sizeof *v);
    if (!v)
        return NULL;
    v->env = *env;
    v->sc = lesson_step_scenario(env->step);
    v->c = c;
    v->est = ENGINE_IDLE;
    if (!v->sc || judge_init(&v->judge, &v->grader, v->sc, 0) < 0) {
        free(v);
        return NULL;
    }
    v->pv = predictview_new(env, c, v->sc);
    v->sweep = sweepview_open(env, c);
    return v;
}

static void stepview_run_close(void *self, struct view_ctx *c)
{
    struct runview *v = self;
    (void)c;
    stepview_run_stop(v);
    predictview_free(v->pv);
    sweepview_close(v->sweep);
    judge_free(&v->judge);
    widgets_sheet_free(&v->sheet);
    codeview_close(v->code);
    free(v);
}

static enum layout_kind stepview_run_layout(void *self, size_t *nprogs)
{
    *nprogs = stepview_run_nprogs(self);
    return LAYOUT_RUN;
}

static bool stepview_run_done(void *self)
{
    struct runview *v = self;
    return grade_done(&v->grader) || sweepview_has_result(v->sweep);
}

static bool stepview_run_busy(void *self)
{
    struct runview *v = self;
    enum engine_state s = v->engine ? engine_state(v->engine) : ENGINE_IDLE;
    return s == ENGINE_STARTING || s == ENGINE_RUNNING || s == ENGINE_STOPPING ||
           sweepview_running(v->sweep);
}

/* Keys typed into a focused interactive program pane. 0 when taken. */
static int stepview_run_type(struct runview *v, int key)
{
    size_t prog = (size_t)v->focus - 1;
    if (key == '\r' || key == '\n' || key == KEY_ENTER) {
        char line[sizeof v->input + 1];
        memcpy(line, v->input, v->ninput);
        line[v->ninput] = '\n';
        int rc = v->engine ? engine_write(v->engine, prog, line, v->ninput + 1) : -EPIPE;
        if (rc < 0)
            view_status(v->c, true,
                        "The program is not running (Enter in the text pane starts it).");
        v->ninput = 0;
        return 0;
    }
    if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        /* Remove one whole UTF-8 character. */
        while (v->ninput > 0 && ((unsigned char)v->input[--v->ninput] & 0xC0) == 0x80) {
        }
        return 0;
    }
    if (key == 4) { /* Ctrl-D: end of input, as in a shell */
        if (v->engine)
            engine_close_stdin(v->engine, prog);
        return 0;
    }
    if (key >= 0x20 && key < 0x100 && key != 0x7f && v->ninput < sizeof v->input - 1) {
        v->input[v->ninput++] = (char)key;
        return 0;
    }
    return -1;
}

/* Keys before the table: focus, typing into a program, the lesson's mode keys. */
/* Whether a pane takes typed keys: the text pane (keys are commands there) and the program
   panes of interactive programs. Focus moves only between those. */
static bool stepview_run_focusable(const struct runview *v, int focus)
{
    return focus == 0 || (focus >= 1 && (size_t)focus <= stepview_run_nprogs(v) &&
                          v->sc->programs[focus - 1].interactive);
}

/* Keys while a program's pane has the whole body: scrolling its output, leaving. 0 taken. */
static int stepview_run_zoom_key(struct runview *v, struct view_ctx *c, int key)
{
    size_t n = v->engine && v->pick < v->sc->nprograms ? engine_lines(v->engine, v->pick) : 0;
    size_t page = LINES > 8 ? (size_t)LINES - 8 : 1;
    if (key == 27 || key == 'z') {
        v->zoom = false;
        view_status(c, false, "Back to every pane (z shows one whole again).");
    } else if (key == KEY_UP || key == 'k') {
        v->zoom_back += v->zoom_back < n;
    } else if (key == KEY_DOWN || key == 'j') {
        v->zoom_back -= v->zoom_back > 0;
    } else if (key == KEY_PPAGE) {
        v->zoom_back = v->zoom_back + page < n ? v->zoom_back + page : n;
    } else if (key == KEY_NPAGE) {
        v->zoom_back = v->zoom_back > page ? v->zoom_back - page : 0;
    } else if (key == KEY_HOME || key == 'g') {
        v->zoom_back = n;
    } else if (key == KEY_END || key == 'G') {
        v->zoom_back = 0;
    } else {
        return -1;
    }
    c->dirty = true;
    return 0;
}

/* Keys before the table: focus, typing into a program, the lesson's mode keys. */
static int stepview_run_key(void *self, struct view_ctx *c, int key)
{
    struct runview *v = self;
    if (v->code && !v->results && !v->legend) {
        int k = codeview_key(v->code, key);
        if (k == 1 || (k < 0 && key == 'L')) {
            codeview_close(v->code);
            v->code = NULL;
        }
        if (k >= 0 || key == 'L') {
            c->dirty = true;
            return 0;
        }
    }
    if (v->results) {
        if (widgets_sheet_key(&v->sheet, key) < 0)
            v->results = false;
        c->dirty = true;
        return 0;
    }
    if (v->legend) {
        /* The legend is taller than 80x24: these keys scroll it, any other closes it. */
        if (key == KEY_DOWN || key == 'j')
            v->legend_top++;
        else if (key == KEY_UP || key == 'k')
            v->legend_top--;
        else if (key == KEY_NPAGE)
            v->legend_top += v->legend_page > 1 ? v->legend_page - 1 : 1;
        else if (key == KEY_PPAGE)
            v->legend_top -= v->legend_page > 1 ? v->legend_page - 1 : 1;
        else if (key == KEY_HOME)
            v->legend_top = 0;
        else if (key == KEY_END)
            v->legend_top = 1 << 20; /* the drawing clamps it to the last page */
        else
            v->legend = false;
        c->dirty = true;
        return 0;
    }
    if (v->zoom && v->focus == 0 && stepview_run_zoom_key(v, c, key) == 0)
        return 0;
    int pk = predictview_key(v->pv, key); /* the predictions asked before a start */
    if (pk == 1)
        stepview_run_start(v, v->engine ? engine_mode(v->engine) : -1);
    if (pk >= 0)
        return 0;
    int nfocus = (int)stepview_run_nprogs(v) + 1;
    if (key == '\t' || key == KEY_BTAB) {
        int f = v->focus;
        do
            f = (f + (key == '\t' ? 1 : nfocus - 1)) % nfocus;
        while (!stepview_run_focusable(v, f));
        v->ninput = 0;
        if (f == v->focus)
            view_status(c, false, "No program here takes typed input; keys are commands.");
        v->focus = f;
        const struct lesson_program *fp = stepview_run_focused_prog(v);
        if (fp)
            view_status(c, false, "Typing goes to %s; Enter sends the line, Esc leaves.", fp->name);
        else if (f != 0 || key == KEY_BTAB || nfocus > 1)
            view_status(c, false, "Keys are commands again (the text pane has the focus).");
        return 0;
    }
    if (key == 27 && (v->focus != 0 || v->compare || v->zoom)) {
        v->zoom = false;
        v->focus = 0;
        v->compare = false;
        return 0;
    }
    const struct lesson_program *fp = stepview_run_focused_prog(v);
    if (fp && fp->interactive && stepview_run_type(v, key) == 0)
        return 0;
    for (size_t i = 0; i < v->sc->nmodes; i++)
        if (v->sc->modes[i].key == key) {
            stepview_run_switch(v, i);
            return 0;
        }
    return -1;
}

static int stepview_run_key_start(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct runview *v = self;
    (void)c;
    (void)key;
    (void)act;
    if (!stepview_run_live(v) && !predictview_ask(v->pv))
        stepview_run_start(v, v->engine ? engine_mode(v->engine) : -1);
    return 0;
}

static int stepview_run_key_restart(void *self, struct view_ctx *c, int key,
                                    struct view_action *act)
{
    struct runview *v = self;
    (void)c;
    (void)key;
    (void)act;
    stepview_run_start(v, v->engine ? engine_mode(v->engine) : -1);
    return 0;
}

static int stepview_run_key_pause(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct runview *v = self;
    (void)key;
    (void)act;
    if (!v->engine || engine_state(v->engine) != ENGINE_RUNNING) {
        view_status(c, false, "Nothing to pause: Enter starts the scenario.");
        return 0;
    }
    if (engine_pause(v->engine, !v->paused) == 0) {
        v->paused = !v->paused;
        view_status(c, false, v->paused ? "Load paused: space resumes it." : "Load resumed.");
    }
    return 0;
}

static int stepview_run_key_compare(void *self, struct view_ctx *c, int key,
                                    struct view_action *act)
{
    struct runview *v = self;
    (void)c;
    (void)key;
    (void)act;
    v->compare = !v->compare;
    return 0;
}

static int stepview_run_key_totals(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct runview *v = self;
    (void)key;
    (void)act;
    v->totals = !v->totals;
    view_status(c, false,
                v->totals ? "Counters: totals since the scenario started (t: this mode only)."
                          : "Counters: calls since the current mode started (t: totals).");
    return 0;
}

static int stepview_run_key_legend(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct runview *v = self;
    (void)c;
    (void)key;
    (void)act;
    v->legend = true;
    v->legend_top = 0;
    return 0;
}

/* The program whose source the code view shows: the one under study, else the first server,
   else the first program. */
static size_t stepview_run_code_prog(const struct runview *v)
{
    if (v->sc->study >= 0 && (size_t)v->sc->study < v->sc->nprograms)
        return (size_t)v->sc->study;
    for (size_t i = 0; i < v->sc->nprograms; i++)
        if (v->sc->programs[i].role == LESSON_ROLE_SERVER)
            return i;
    return 0;
}

/* The studied program's source. A demo (a program named without a '/' that iolab's libexec
   holds) is read from the copy iolab ships beside its lessons (PREFIX/share/iolab/demos, a link
   to sandbox/demos in the build tree), so that an installed or unpacked tree shows it; a pack's
   own from the pack's sources; any other from the file its line table names, when that is a
   regular file. */
static int stepview_run_code_source(void *data, const char *file, const char *dwarf_path,
                                    char **text)
{
    const struct runview *v = data;
    const char *prog = v->sc->programs[stepview_run_code_prog(v)].program;
    char dir[PATH_MAX], path[PATH_MAX * 2];
    size_t len;
    if (!strchr(prog, '/') && !strchr(file, '/') &&
        paths_get(PATHS_LIBEXEC, dir, sizeof dir) == 0) {
        snprintf(path, sizeof path, "%s/%s", dir, prog);
        if (access(path, X_OK) == 0 && paths_get(PATHS_PREFIX, dir, sizeof dir) == 0) {
            snprintf(path, sizeof path, "%s/share/iolab/demos/%s", dir, file);
            return fileread_regular(path, 1 << 20, text, &len, NULL);
        }
    }
    /* A pack's program: its sources are the pack's, beside the path the pack names it by (the
       build directory the line table names was the sandbox's, and is gone). */
    const struct lesson_pack *pack = v->env.pack;
    for (size_t i = 0; pack && i < pack->nbuilds; i++)
        for (size_t k = 0; k < pack->builds[i].nfiles; k++)
            if (!strcmp(pack->builds[i].files[k], file)) {
                const char *p = pack->builds[i].path, *slash = strrchr(p, '/');
                snprintf(path, sizeof path, "%.*s/%s", slash ? (int)(slash - p) : 0, p, file);
                return fileread_regular(path, 1 << 20, text, &len, NULL);
            }
    if (dwarf_path[0] != '/')
        return -ENOENT;
    return fileread_regular(dwarf_path, 1 << 20, text, &len, NULL);
}

/* The sites of program prog since its mode began (or the run's start), as of the latest
   snapshot; false before one. */
bool stepview_run_sites(void *self, size_t prog, const struct tally_sites **a,
                        const struct tally_sites **b, double *t)
{
    struct runview *v = self;
    if (!v->have_snap || prog >= v->snap.nprogs)
        return false;
    *a = v->have_base && prog < v->mode_base.nprogs ? &v->mode_base.progs[prog].sites : NULL;
    *b = &v->snap.progs[prog].sites;
    *t = v->snap.elapsed_s;
    return true;
}

int stepview_run_mode(void *self)
{
    struct runview *v = self;
    return v->have_snap ? v->snap.mode : -1;
}

static int stepview_run_key_code(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct runview *v = self;
    (void)key;
    (void)act;
    char title[96];
    snprintf(title, sizeof title, "%s's calls by line",
             v->sc->programs[stepview_run_code_prog(v)].name);
    codeview_close(v->code);
    v->code = codeview_open(title, NULL, 0, stepview_run_code_source, v);
    c->dirty = true;
    return 0;
}

static int stepview_run_key_results(void *self, struct view_ctx *c, int key,
                                    struct view_action *act)
{
    struct runview *v = self;
    (void)key;
    (void)act;
    v->results = true;
    v->sheet.top = 0;
    c->dirty = true;
    return 0;
}

static int stepview_run_key_sweep(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct runview *v = self;
    (void)key;
    (void)act;
    if (!v->sweep) {
        view_status(c, false, "This step has no sweep.");
        return 0;
    }
    stepview_run_stop(v); /* the sweep runs its own programs, point by point */
    sweepview_toggle(v->sweep, c);
    return 0;
}

static int stepview_run_key_sweep_show(void *self, struct view_ctx *c, int key,
                                       struct view_action *act)
{
    struct runview *v = self;
    (void)key;
    (void)act;
    if (!v->sweep)
        view_status(c, false, "This step has no sweep.");
    else
        sweepview_cycle(v->sweep, c);
    return 0;
}

/* The picked program's place: "ben (4 of 7)". */
static void stepview_run_say_pick(struct runview *v, struct view_ctx *c)
{
    const char *name = v->sc->programs[v->pick].name;
    if (v->zoom)
        view_status(c, false,
                    "%s (%zu of %zu) on the whole screen: j/k scroll, o the next, Esc "
                    "returns.",
                    name, v->pick + 1, stepview_run_nprogs(v));
    else
        view_status(c, false, "%s picked (%zu of %zu): z shows its pane on the whole screen.", name,
                    v->pick + 1, stepview_run_nprogs(v));
}

/* The shared last pane turns to the picked program when it is one of those it holds. */
static void stepview_run_pick(struct runview *v, size_t prog)
{
    v->pick = prog < stepview_run_nprogs(v) ? prog : 0;
    v->zoom_back = 0;
    if (v->nfolded && v->pick + 1 >= v->npanes)
        v->tab = v->pick;
}

static int stepview_run_key_other(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct runview *v = self;
    (void)key;
    (void)act;
    if (!stepview_run_nprogs(v)) {
        view_status(c, false, "This step has no programs to pick.");
        return 0;
    }
    stepview_run_pick(v, v->pick + 1);
    stepview_run_say_pick(v, c);
    return 0;
}

static int stepview_run_key_zoom(void *self, struct view_ctx *c, int key, struct view_action *act)
{
    struct runview *v = self;
    (void)key;
    (void)act;
    if (!stepview_run_nprogs(v)) {
        view_status(c, false, "This step has no program panes.");
        return 0;
    }
    v->zoom = true;
    v->zoom_back = 0;
    stepview_run_say_pick(v, c);
    return 0;
}

static const struct keybind stepview_run_bindings[] = {
    {.key = '\r',
     .alt = KEY_ENTER,
     .name = "Enter",
     .label = "start",
     .help = "start the scenario",
     .priority = 90,
     .fn = stepview_run_key_start},
    {.key = KEY_RIGHT,
     .alt = 'l',
     .name = "Right/l",
     .help = "start the scenario",
     .fn = stepview_run_key_start},
    {.key = '\n', .name = "Enter", .fn = stepview_run_key_start},
    {.key = '1',
     .name = "1-9",
     .help = "switch to that mode (the footer lists them): only the program it changes "
             "restarts"},
    {.key = ' ',
     .name = "space",
     .label = "pause",
     .help = "pause or resume the load (the clients)",
     .priority = 50,
     .fn = stepview_run_key_pause},
    {.key = 'r',
     .name = "r",
     .label = "restart",
     .help = "restart the scenario",
     .priority = 40,
     .fn = stepview_run_key_restart},
    {.key = 'c',
     .name = "c",
     .label = "compare",
     .help = "comparison of the modes tried in this session",
     .priority = 70,
     .fn = stepview_run_key_compare},
    {.key = 'i',
     .name = "i",
     .label = "info",
     .help = "what every figure and mark of the counters means",
     .priority = 45,
     .fn = stepview_run_key_legend},
    {.key = 'a',
     .name = "a",
     .help = "all the checks, expected outcomes and predictions whole, in a box (j/k scroll it, "
             "another key closes it)",
     .fn = stepview_run_key_results},
    {.key = 'L',
     .name = "L",
     .label = "lines",
     .help = "the studied program's source with its counted calls by line, and calls a second, "
             "since its mode began (L or Esc closes)",
     .priority = 14,
     .fn = stepview_run_key_code},
    {.key = 't',
     .name = "t",
     .label = "totals",
     .help = "counters since the mode started, or totals since the scenario started",
     .priority = 15,
     .fn = stepview_run_key_totals},
    {.key = '\t',
     .alt = KEY_BTAB,
     .name = "Tab",
     .label = "pane",
     .help = "focus the next pane (Shift-Tab: previous); type into a program that takes input",
     .priority = 60},
    /* z and o are in the footer through stepview_run_footer, which an exercise's view shares. */
    {.key = 'z',
     .name = "z",
     .help = "a program's pane on the whole screen (j/k scroll it; z or Esc returns)",
     .fn = stepview_run_key_zoom},
    {.key = 'o',
     .name = "o",
     .help = "pick the next program: z shows it whole; a pane shared by several programs turns "
             "to it",
     .fn = stepview_run_key_other},
    {.key = 27,
     .name = "Esc",
     .help = "leave a program's input, the comparison or the whole-screen pane"},
    {.key = 'w',
     .name = "w",
     .help = "a step with a sweep: run every point (w again stops; finished points stay)",
     .fn = stepview_run_key_sweep},
    {.key = 'v',
     .name = "v",
     .help = "a step with a sweep: its chart, its table, or the counters",
     .fn = stepview_run_key_sweep_show},
};
static const struct keytable stepview_run_keys = KEYTABLE("Run step", stepview_run_bindings);

/* The modes' entries (and the sweep's keys). */
static size_t stepview_run_footer_modes(struct runview *v, int width, struct keys_item *out,
                                        size_t max)
{
    static char names[LESSON_KIND_MODES][2];
    static char range[16];
    size_t nmodes = v->sc->nmodes < LESSON_KIND_MODES ? v->sc->nmodes : LESSON_KIND_MODES;
    int need = 0;
    for (size_t i = 0; i < nmodes; i++)
        need += 4 + (int)strlen(v->sc->modes[i].id);
    if (max == 0)
        return 0;
    /* The results box, after the modes: before the comparison where a prediction's explanation
       is read whole only there, after it elsewhere. */
    struct keys_item results = {"a", "all", v->pv ? 85 : 62};
    max--;
    size_t n = sweepview_footer(v->sweep, out, max);
    /* The modes are what a run step is about, but not at the cost of help, quit and next: when
       they would take more than half the footer, one entry stands for them all (? lists them). */
    if (nmodes > 1 && need > width / 2 && n < max) {
        snprintf(range, sizeof range, "%c-%c", v->sc->modes[0].key, v->sc->modes[nmodes - 1].key);
        out[n++] = (struct keys_item){range, "modes (? names them)", 100};
    } else {
        for (size_t i = 0; i < nmodes && n < max; i++) {
            names[i][0] = v->sc->modes[i].key;
            names[i][1] = '\0';
            out[n++] = (struct keys_item){names[i], v->sc->modes[i].id, 100};
        }
    }
    out[n++] = results;
    return n;
}

static size_t stepview_run_footer(void *self, int width, struct keys_item *out, size_t max)
{
    struct runview *v = self;
    if (v->zoom && max >= 3) {
        /* The whole-screen pane's own keys come before everything but help and quit. */
        out[0] = (struct keys_item){"Esc", "back", 101};
        out[1] = (struct keys_item){"o", "next program", 101};
        out[2] = (struct keys_item){"j/k", "scroll", 100};
        return 3;
    }
    /* A pane is narrow at 80 columns: z, which shows one whole, is offered after the keys a run
       step is about (start, compare) and before the rest; o when programs share a pane. */
    size_t extra = stepview_run_nprogs(v) ? 1 + (v->nfolded != 0) : 0;
    if (max <= extra)
        return stepview_run_footer_modes(v, width, out, max);
    size_t n = stepview_run_footer_modes(v, width, out, max - extra);
    if (extra)
        out[n++] = (struct keys_item){"z", "zoom", 65};
    if (extra > 1)
        out[n++] = (struct keys_item){"o", "other", 58};
    return n;
}

static size_t stepview_run_help(void *self, char lines[][128], size_t max)
{
    struct runview *v = self;
    size_t n = 0;
    /* What a mode key restarts, named from the step: the table's line cannot know it. */
    const struct lesson_program *p = stepview_run_switched(v);
    if (v->sc->nmodes > 1 && max > 0)
        snprintf(lines[n++], 128, "%c-%c\teach restarts the %s in that mode%s", v->sc->modes[0].key,
                 v->sc->modes[v->sc->nmodes - 1].key, p ? p->name : "program it changes",
                 stepview_run_kept(v, p));
    for (size_t i = 0; i < v->sc->nmodes && n < max; i++, n++) {
        char label[200];
        snprintf(lines[n], 128, "%c\tmode %s", v->sc->modes[i].key,
                 lesson_mode_label(&v->sc->modes[i], label, sizeof label));
    }
    return n;
}

static void stepview_run_click(void *self, struct view_ctx *c, int x, int y)
{
    struct runview *v = self;
    const struct layout *L = &c->layout;
    if (layout_contains(L->text, x, y))
        v->focus = 0;
    if (v->zoom)
        return; /* the whole-screen pane takes no clicks: Esc returns */
    for (size_t i = 0; i < L->nprogs; i++)
        if (layout_contains(L->progs[i], x, y)) {
            /* The shared last pane stands for the program it shows. */
            size_t prog = L->nfolded && i + 1 == L->nprogs ? v->tab : i;
            v->focus = (int)prog + 1;
            stepview_run_pick(v, prog);
        }
    if (!stepview_run_focusable(v, v->focus))
        v->focus = 0; /* a click on a pane that takes no input gives the focus back to the text */
    /* A click on the holding checks' row opens them (each with its name and figure), or folds
       them again. */
    if (v->fold_y > 0 && y == v->fold_y && layout_contains(L->text, x, y)) {
        v->passes_open = !v->passes_open;
        c->dirty = true;
    }
    v->ninput = 0;
}

/* ---- drawing ---- */

static const char *stepview_run_prog_state(enum snapshot_prog_state s)
{
    static const char *const names[] = {
        [SNAPSHOT_PROG_IDLE] = "idle",         [SNAPSHOT_PROG_STARTING] = "starting",
        [SNAPSHOT_PROG_RUNNING] = "running",   [SNAPSHOT_PROG_PAUSED] = "paused",
        [SNAPSHOT_PROG_STOPPING] = "stopping", [SNAPSHOT_PROG_EXITED] = "exited",
    };
    return (unsigned)s < sizeof names / sizeof *names ? names[s] : "?";
}

/*
 * The checks under the text, planned by footrows.h: failing ones first, each named by its text
 * with its sentence (the one `iolab check` prints) wrapped under it, every one whole when they
 * fit and the first ones whole before the next get a row more; then the checks still open, then
 * those not judged (a dim "-", never in the holding row), then the holding ones folded into one
 * row ("✓ 7 checks hold") until a click on it opens them, each then its name first and its
 * figure after. What does not fit is whole in the results box (a); and when a failing check
 * does not fit whole, the checks scroll in their rows instead (stepview_run_checks_scrolled), each
 * whole.
 */

/* Check i's state as footrows.h plans it. */
static enum footrows_state stepview_run_check_state(const struct runview *v, size_t i)
{
    switch (grade_state(&v->grader, i)) {
    case GRADE_FAIL:
        return FOOTROWS_FAIL;
    case GRADE_PASS:
        return FOOTROWS_PASS;
    case GRADE_UNJUDGED:
        return FOOTROWS_UNJUDGED;
    default:
        return FOOTROWS_OPEN;
    }
}

/* The order the checks are listed in: failing ones first, then open ones, then those not
   judged, then the passes, each group in the step's order. */
static size_t stepview_run_check_order(const struct runview *v, size_t *order)
{
    static const enum footrows_state groups[] = {FOOTROWS_FAIL, FOOTROWS_OPEN, FOOTROWS_UNJUDGED,
                                                 FOOTROWS_PASS};
    size_t n = 0;
    for (size_t gi = 0; gi < sizeof groups / sizeof *groups; gi++)
        for (size_t i = 0; i < v->sc->nchecks; i++)
            if (stepview_run_check_state(v, i) == groups[gi])
                order[n++] = i;
    return n;
}

/* The rows check i takes whole at width w: its name, and its sentence while it is to do. */
static int stepview_run_check_whole(const struct runview *v, const struct screen_caps *c, size_t i,
                                    int w)
{
    enum footrows_state st = stepview_run_check_state(v, i);
    if (st == FOOTROWS_UNJUDGED)
        return 1;
    char msg[768];
    grade_message(&v->grader, i, msg, sizeof msg);
    if (st == FOOTROWS_PASS) {
        /* Holding: "name: figure" on one row, or when it is wider the figure under the name. */
        char line[1024];
        snprintf(line, sizeof line, "%s: %s", v->sc->checks[i].text, msg);
        if (wrap_width(line, strlen(line), c->utf8) <= w - 2)
            return 1;
        snprintf(line, sizeof line, "%s:", v->sc->checks[i].text);
        return widgets_wrapped(c, 0, 0, w - 2, 2, 0, A_NORMAL, line) +
               widgets_wrapped(c, 0, 0, w - 4, 0, 0, A_NORMAL, msg);
    }
    return widgets_wrapped(c, 0, 0, w - 2, 2, 0, A_NORMAL, v->sc->checks[i].text) +
           widgets_wrapped(c, 0, 0, w - 4, 0, 0, A_NORMAL, msg);
}

/* Plans the checks in room rows at width w: order and ck (nchecks each) filled. */
static void stepview_run_check_plan(const struct runview *v, const struct screen_caps *c, int w,
                                    int room, size_t *order, struct footrows_check *ck,
                                    struct footrows_plan *plan)
{
    size_t n = stepview_run_check_order(v, order);
    for (size_t k = 0; k < n; k++)
        ck[k] = (struct footrows_check){.state = stepview_run_check_state(v, order[k]),
                                        .whole = stepview_run_check_whole(v, c, order[k], w)};
    footrows_checks(ck, n, room, v->passes_open, plan);
}

/* Rows the checks take, their heading included, in room rows. */
static int stepview_run_check_rows(struct runview *v, int room)
{
    size_t n = v->sc->nchecks;
    int one = n ? (int)n + 1 : 0;
    if (!n || !v->foot_caps || v->foot_w <= 6)
        return one < room ? one : room;
    size_t *order = malloc(n * sizeof *order);
    struct footrows_check *ck = malloc(n * sizeof *ck);
    struct footrows_plan plan = {.rows = one < room ? one : room};
    if (order && ck)
        stepview_run_check_plan(v, v->foot_caps, v->foot_w, room, order, ck, &plan);
    free(order);
    free(ck);
    return plan.rows;
}

/* A paragraph wrapped at w columns from (x, y) on at most rows rows; when it is longer, its
   last row shown ends with the "more" mark. */
static void stepview_run_para_cut(const struct screen_caps *c, int x, int y, int w, int rows,
                                  attr_t attr, const char *s)
{
    struct wrap_doc d = {0};
    if (rows <= 0 || wrap_plain(s, w, c->utf8, &d) < 0) {
        wrap_doc_free(&d);
        return;
    }
    for (int k = 0; k < rows && (size_t)k < d.nlines; k++) {
        bool cut = k == rows - 1 && (size_t)rows < d.nlines;
        int used = widgets_text(c, x, y + k, cut ? w - 1 : w, attr, d.lines[k].text);
        if (cut && d.lines[k].width < w) /* else widgets_text marked the cut itself */
            widgets_text(c, x + used, y + k, 1, screen_attr(SCREEN_DIM), c->g->more);
    }
    wrap_doc_free(&d);
}

/* Draws check i (listed with rows rows, as planned) from (x, y); fold: the row stands for the
   count of its kind (holding, or not judged). */
static void stepview_run_check_draw(struct runview *v, const struct screen_caps *c, size_t i, int x,
                                    int y, int w, const struct footrows_check *ck, size_t count,
                                    bool fold)
{
    const struct lesson_check *chk = &v->sc->checks[i];
    char msg[768], line[1024];
    grade_message(&v->grader, i, msg, sizeof msg);
    /* Only a decided pass has the pass mark; a check still open or never judged is dim, with
       no mark a learner could take for a verdict. */
    widgets_text(c, x, y, 2,
                 screen_attr(ck->state == FOOTROWS_PASS   ? SCREEN_GOOD
                             : ck->state == FOOTROWS_FAIL ? SCREEN_BAD
                                                          : SCREEN_DIM),
                 ck->state == FOOTROWS_PASS   ? c->g->done
                 : ck->state == FOOTROWS_FAIL ? c->g->todo
                                              : "-");
    if (ck->state == FOOTROWS_PASS && fold) {
        snprintf(line, sizeof line, "%zu check%s hold%s (click: each one)", count,
                 count == 1 ? "" : "s", count == 1 ? "s" : "");
        widgets_text(c, x + 2, y, w - 2, A_NORMAL, line);
        v->fold_y = y;
        return;
    }
    if (ck->state == FOOTROWS_UNJUDGED && fold) {
        /* They share the reason (the run stopped at a failure), which each one's says. */
        const char *why = strncmp(msg, "not judged: ", 12) ? msg : msg + 12;
        snprintf(line, sizeof line, "%zu checks not judged: %s", count, why);
        widgets_text(c, x + 2, y, w - 2, screen_attr(SCREEN_DIM), line);
        return;
    }
    if (ck->state == FOOTROWS_PASS || ck->state == FOOTROWS_UNJUDGED) {
        /* The name first: it says what the figure after it is about. */
        if (ck->state == FOOTROWS_PASS && v->fold_y < 0)
            v->fold_y = y;
        snprintf(line, sizeof line, "%s: %s", chk->text, msg);
        if (ck->rows > 1) {
            /* Its name, then its figure under it (the rows were counted so). */
            snprintf(line, sizeof line, "%s:", chk->text);
            int name = widgets_wrapped(c, x + 2, y, w - 2, 2, ck->rows, A_NORMAL, line);
            widgets_wrapped(c, x + 4, y + name, w - 4, 0, ck->rows - name, A_NORMAL, msg);
        } else
            widgets_text(c, x + 2, y, w - 2,
                         ck->state == FOOTROWS_PASS ? A_NORMAL : screen_attr(SCREEN_DIM), line);
        return;
    }
    /* To do: the name wrapped when the whole fits, else on its one row, cut; the sentence under
       it in the rows left. */
    int name = widgets_wrapped(c, x + 2, y, w - 2, 2, 0, A_BOLD, chk->text);
    if (ck->rows < ck->whole)
        name = 1;
    if (name == 1)
        widgets_text(c, x + 2, y, w - 2, A_BOLD, chk->text);
    else
        widgets_wrapped(c, x + 2, y, w - 2, 2, name, A_BOLD, chk->text);
    stepview_run_para_cut(c, x + 4, y + name, w - 4, ck->rows - name, A_NORMAL, msg);
}

/* One row of the checks' scrolled form: its text drawn from column x (0 is the mark's) in
   attr; mark, when set, stands in the first columns. */
struct stepview_run_row {
    int x;
    attr_t attr;
    const char *mark; /* the check's mark on its first row; NULL */
    attr_t mark_attr;
    char *text;
    bool fold; /* the holding checks' folded row: a click opens them */
};

struct stepview_run_rows {
    struct stepview_run_row *row;
    size_t n, cap;
};

static void stepview_run_rows_free(struct stepview_run_rows *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->row[i].text);
    free(r->row);
    *r = (struct stepview_run_rows){0};
}

static int stepview_run_rows_add(struct stepview_run_rows *r, struct stepview_run_row row,
                                 const char *text)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 32;
        struct stepview_run_row *g = realloc(r->row, cap * sizeof *g);
        if (!g)
            return -ENOMEM;
        r->row = g;
        r->cap = cap;
    }
    row.text = strdup(text);
    if (!row.text)
        return -ENOMEM;
    r->row[r->n++] = row;
    return 0;
}

/* A paragraph wrapped at w - x columns as rows from column x, the first with mark. */
static int stepview_run_rows_para(struct stepview_run_rows *r, const struct screen_caps *c, int w,
                                  int x, attr_t attr, const char *mark, attr_t mark_attr,
                                  const char *text)
{
    struct wrap_doc d = {0};
    int rc = wrap_plain(text, w - x, c->utf8, &d);
    for (size_t k = 0; rc == 0 && k < d.nlines; k++)
        rc = stepview_run_rows_add(
            r,
            (struct stepview_run_row){
                .x = x, .attr = attr, .mark = k ? NULL : mark, .mark_attr = mark_attr},
            d.lines[k].text);
    wrap_doc_free(&d);
    return rc;
}

/*
 * The checks whole, as rows, for a pane too short for them (the scrolled form): every check to
 * do with its name and its advice wrapped under it, as `iolab check` prints them, then the
 * checks not judged and the holding ones as the plan folds them, one row each. 0 or -ENOMEM.
 */
static int stepview_run_check_rows_whole(struct runview *v, const struct screen_caps *c, int w,
                                         const size_t *order, const struct footrows_check *ck,
                                         size_t n, const struct footrows_plan *plan,
                                         struct stepview_run_rows *out)
{
    size_t nunj = 0;
    for (size_t k = 0; k < n; k++)
        nunj += ck[k].state == FOOTROWS_UNJUDGED;
    bool unj_done = false, pass_done = false;
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        const struct lesson_check *chk = &v->sc->checks[order[k]];
        char msg[768], line[1024];
        grade_message(&v->grader, order[k], msg, sizeof msg);
        switch (ck[k].state) {
        case FOOTROWS_FAIL:
        case FOOTROWS_OPEN: {
            bool fail = ck[k].state == FOOTROWS_FAIL;
            rc = stepview_run_rows_para(out, c, w, 2, A_BOLD, fail ? c->g->todo : "-",
                                        screen_attr(fail ? SCREEN_BAD : SCREEN_DIM), chk->text);
            if (rc == 0)
                rc = stepview_run_rows_para(out, c, w, 4, A_NORMAL, NULL, 0, msg);
            break;
        }
        case FOOTROWS_UNJUDGED:
            if (unj_done)
                break;
            if (nunj > 1) {
                const char *why = strncmp(msg, "not judged: ", 12) ? msg : msg + 12;
                snprintf(line, sizeof line, "%zu checks not judged: %s", nunj, why);
                unj_done = true;
            } else {
                snprintf(line, sizeof line, "%s: %s", chk->text, msg);
            }
            rc = stepview_run_rows_add(
                out,
                (struct stepview_run_row){.x = 2,
                                          .attr = screen_attr(SCREEN_DIM),
                                          .mark = "-",
                                          .mark_attr = screen_attr(SCREEN_DIM)},
                line);
            break;
        case FOOTROWS_PASS:
            if (pass_done)
                break;
            if (!v->passes_open) {
                snprintf(line, sizeof line, "%zu check%s hold%s (click: each one)", plan->npass,
                         plan->npass == 1 ? "" : "s", plan->npass == 1 ? "s" : "");
                pass_done = true;
            } else {
                snprintf(line, sizeof line, "%s: %s", chk->text, msg);
            }
            rc = stepview_run_rows_add(
                out,
                (struct stepview_run_row){.x = 2,
                                          .attr = A_NORMAL,
                                          .mark = c->g->done,
                                          .mark_attr = screen_attr(SCREEN_GOOD),
                                          .fold = pass_done},
                line);
            break;
        }
    }
    return rc;
}

/* The hint on the last row of scrolled checks: its own row, so it never covers a word. */
#define RUNVIEW_CHECKS_MORE "(more advice: j)"

/*
 * Draws the checks whole from row checks_top, in the rows y..end, when a failing one does not
 * fit there (the heading drawn); false when they fit (or there is no room to scroll in), and
 * the plan's form is drawn instead. The text's j moves them once the text has passed by
 * (stepview_run_foot_scroll), so that every failing check's advice is read in the pane, not
 * only in the results box.
 */
static bool stepview_run_checks_scrolled(struct runview *v, const struct screen_caps *c, int x,
                                         int y, int w, int end, const size_t *order,
                                         const struct footrows_check *ck, size_t n,
                                         const struct footrows_plan *plan)
{
    int h = end - y;
    /* Only a failing check's advice is worth the scrolling: while checks are open the plan's
       row each (its progress, "slow: 3.2 s of 600 s") keeps every one in sight. */
    bool cut = false;
    for (size_t k = 0; k < n; k++)
        cut |= ck[k].state == FOOTROWS_FAIL && ck[k].rows < ck[k].whole;
    v->checks_total = v->checks_shown = 0;
    if (!cut || h < 3 || w <= 12)
        return false;
    struct stepview_run_rows rows = {0};
    if (stepview_run_check_rows_whole(v, c, w, order, ck, n, plan, &rows) < 0 ||
        rows.n <= (size_t)h) {
        stepview_run_rows_free(&rows);
        return false;
    }
    int total = (int)rows.n;
    /* The last page ends on the last row; every other one keeps its last row for the hint. */
    if (v->checks_top > total - h)
        v->checks_top = total - h > 0 ? total - h : 0;
    bool more = v->checks_top + h < total;
    int shown = more ? h - 1 : h;
    for (int i = 0; i < shown; i++) {
        const struct stepview_run_row *r = &rows.row[v->checks_top + i];
        if (r->mark)
            widgets_text(c, x, y + i, 2, r->mark_attr, r->mark);
        widgets_text(c, x + r->x, y + i, w - r->x, r->attr, r->text);
        if (r->fold)
            v->fold_y = y + i;
    }
    if (more) {
        int hw = (int)strlen(RUNVIEW_CHECKS_MORE);
        widgets_text(c, x + w - hw, y + h - 1, hw, screen_attr(SCREEN_DIM), RUNVIEW_CHECKS_MORE);
    }
    v->checks_total = total;
    v->checks_shown = shown;
    stepview_run_rows_free(&rows);
    return true;
}

int stepview_run_foot_scroll(void *self, int dir)
{
    struct runview *v = self;
    if (v->checks_total <= 0)
        return -1;
    /* A page less one row, the row kept for context, as j moves the text (footrows_page). */
    int page = footrows_page(v->checks_shown);
    if (dir > 0 && v->checks_top + v->checks_shown < v->checks_total)
        v->checks_top += page;
    else if (dir < 0 && v->checks_top > 0)
        v->checks_top = v->checks_top > page ? v->checks_top - page : 0;
    else
        return -1;
    v->c->dirty = true;
    return 0;
}

/* Draws the checks from (x, y) in the rows to end, their heading first. */
static void stepview_run_checks_draw(struct runview *v, const struct screen_caps *c, int x, int y,
                                     int w, int end)
{
    size_t n = v->sc->nchecks;
    size_t *order = malloc(n * sizeof *order);
    struct footrows_check *ck = malloc(n * sizeof *ck);
    v->fold_y = -1;
    if (!order || !ck || end <= y) {
        free(order);
        free(ck);
        return;
    }
    struct footrows_plan plan;
    stepview_run_check_plan(v, c, w, end - y, order, ck, &plan);
    /* A pass is unmistakable, and stays while the step is open (the status line moves on). */
    bool all = grade_done(&v->grader);
    char head[96];
    if (all)
        snprintf(head, sizeof head, "%s Step done. n: next step", c->g->done);
    else
        snprintf(head, sizeof head, "%s",
                 plan.cut ? "To complete this step: (a: whole)" : "To complete this step:");
    widgets_text(c, x, y++, w, all ? screen_attr(SCREEN_GOOD) | A_BOLD : A_BOLD, head);
    if ((plan.cut || plan.left) &&
        stepview_run_checks_scrolled(v, c, x, y, w, end, order, ck, n, &plan)) {
        free(order);
        free(ck);
        return;
    }
    v->checks_top = 0;
    size_t nunj = 0;
    for (size_t k = 0; k < n; k++)
        nunj += ck[k].state == FOOTROWS_UNJUDGED;
    for (size_t k = 0; k < n && y < end; k++) {
        if (ck[k].rows <= 0)
            continue;
        bool fold = (ck[k].state == FOOTROWS_PASS && plan.fold) ||
                    (ck[k].state == FOOTROWS_UNJUDGED && plan.ufold);
        stepview_run_check_draw(v, c, order[k], x, y, w, &ck[k],
                                ck[k].state == FOOTROWS_PASS ? plan.npass : nunj, fold);
        y += ck[k].rows;
    }
    if (plan.left && y < end) {
        char line[96];
        snprintf(line, sizeof line, "%s %zu more check%s: a shows every one", c->g->more, plan.left,
                 plan.left == 1 ? "" : "s");
        widgets_text(c, x, y, w, screen_attr(SCREEN_DIM), line);
    }
    free(order);
    free(ck);
}

/*
 * Expected outcome i with its sentence: the runs' verdict, or, while the runs have not decided
 * it, the step's sweep's at the value a plain run uses (sweepview_expect()).
 */
static struct expect_verdict stepview_run_expect(const struct runview *v, size_t i, char *msg,
                                                 size_t len)
{
    struct expect_verdict ev = grade_expect(&v->grader, i, msg, len);
    if (ev.state == EXPECT_UNDECIDED && !ev.uncounted)
        sweepview_expect(v->sweep, i, &v->grader.ctx, &ev, msg, len);
    return ev;
}

/* A differing outcome's why takes at most this many rows under it: the verdict's row is cut to
   the pane, and the why is what says that the step's text does not hold here, and why. */
#define RUNVIEW_WHY_ROWS 6

/*
 * The outcome whose why is shown: the first this run contradicts that has one. One only, so the
 * checks keep their rows under it (a second contradiction keeps its "!" row, and the why of
 * the first usually stands for both). SIZE_MAX when none.
 */
static size_t stepview_run_why_index(const struct runview *v)
{
    for (size_t i = 0; i < v->sc->nexpects; i++)
        if (v->sc->expects[i].why && stepview_run_expect(v, i, NULL, 0).state == EXPECT_DIFFERS)
            return i;
    return SIZE_MAX;
}

/* The why of outcome i ("Unlike the text: ...") wrapped at width w into d; false (and d
   empty) when there is no room. */
static bool stepview_run_why(const struct runview *v, size_t i, int w, const struct screen_caps *c,
                             struct wrap_doc *d)
{
    *d = (struct wrap_doc){0};
    if (!c || w <= 6)
        return false;
    char text[640];
    snprintf(text, sizeof text, "Unlike the text: %s", v->sc->expects[i].why);
    return wrap_plain(text, w, c->utf8, d) == 0;
}

/* The rows the why takes at the width last drawn, or before the first draw at the text pane's
   (its box and margins off): an idle screen draws no second frame. */
static int stepview_run_why_rows(const struct runview *v)
{
    size_t i = stepview_run_why_index(v);
    int w = v->foot_w ? v->foot_w : v->c->layout.text.w - 4;
    const struct screen_caps *c = v->foot_caps ? v->foot_caps : v->c->caps;
    struct wrap_doc d = {0};
    int rows = 0;
    if (i != SIZE_MAX && stepview_run_why(v, i, w - 2, c, &d))
        rows = (int)d.nlines < RUNVIEW_WHY_ROWS ? (int)d.nlines : RUNVIEW_WHY_ROWS;
    wrap_doc_free(&d);
    return rows;
}

int stepview_run_foot_rows_in(void *self, int room)
{
    struct runview *v = self;
    int expects = v->sc->nexpects ? (int)v->sc->nexpects + 2 + stepview_run_why_rows(v) : 0;
    int rows = stepview_run_check_rows(v, room - expects);
    rows += expects;
    rows += predictview_foot_rows(v->pv);
    return rows > room ? room : rows;
}

static int stepview_run_text_foot_rows(void *self, int inner_h)
{
    struct runview *v = self;
    /* The checks may take most of the pane while one fails: they say what to do next. */
    return stepview_run_foot_rows_in(v, !grade_done(&v->grader) ? inner_h * 2 / 3 : inner_h / 2);
}

static void stepview_run_draw_text_foot(void *self, struct view_ctx *vc, struct layout_rect r)
{
    struct runview *v = self;
    const struct screen_caps *c = vc->caps;
    if (v->pv) {
        int others = stepview_run_text_foot_rows(v, 1 << 20) - predictview_foot_rows(v->pv);
        r = predictview_draw_foot(v->pv, vc, r, others, v->grader.session.modes,
                                  v->grader.session.nmodes);
    }
    if (r.w != v->foot_w || c != v->foot_caps)
        vc->dirty = true; /* counted at another width: count again for the next frame */
    v->foot_w = r.w;
    v->foot_caps = c;
    int y = r.y;
    if (v->sc->nexpects && r.h > 0)
        widgets_text(c, r.x, y++, r.w, A_BOLD, "What to expect:");
    size_t why = stepview_run_why_index(v);
    for (size_t i = 0; i < v->sc->nexpects && y < r.y + r.h; i++, y++) {
        char msg[768];
        struct expect_verdict ev = stepview_run_expect(v, i, msg, sizeof msg);
        /* Not a check: a difference is explained, not failed. */
        const char *mark = ev.state == EXPECT_AGREES    ? c->g->done
                           : ev.state == EXPECT_DIFFERS ? "!"
                                                        : "-";
        widgets_text(c, r.x, y, 2,
                     screen_attr(ev.state == EXPECT_AGREES    ? SCREEN_GOOD
                                 : ev.state == EXPECT_DIFFERS ? SCREEN_BAD
                                                              : SCREEN_DIM),
                     mark);
        widgets_printf(c, r.x + 2, y, r.w - 2, A_NORMAL, "%s: %s", v->sc->expects[i].text, msg);
        /* Under a verdict that contradicts the step's text: its why, in the rows counted for
           it at this width (the next frame counts again when the width changed). */
        struct wrap_doc d = {0};
        if (i == why && stepview_run_why(v, i, r.w - 2, c, &d)) {
            int n = (int)d.nlines < RUNVIEW_WHY_ROWS ? (int)d.nlines : RUNVIEW_WHY_ROWS;
            for (int k = 0; k < n && y + 1 < r.y + r.h; k++) {
                bool cut = k == n - 1 && n < (int)d.nlines;
                int used = widgets_text(c, r.x + 2, ++y, cut ? r.w - 3 : r.w - 2,
                                        screen_attr(SCREEN_BAD), d.lines[k].text);
                if (cut && d.lines[k].width < r.w - 2)
                    widgets_text(c, r.x + 2 + used, y, 1, A_NORMAL, c->g->more);
            }
        }
        wrap_doc_free(&d);
    }
    if (v->sc->nexpects && v->sc->nchecks)
        y++;
    if (!v->sc->nchecks || y >= r.y + r.h)
        return;
    stepview_run_checks_draw(v, c, r.x, y, r.w, r.y + r.h);
}

/* Rows [skip, skip + rows) of a wrapped line, drawn from (x, y). */
static void stepview_run_draw_tail(const struct screen_caps *c, int x, int y, int w, int skip,
                                   int rows, attr_t attr, const char *s)
{
    struct wrap_doc d = {0};
    if (wrap_plain(s, w - 2, c->utf8, &d) == 0)
        for (int i = 0; i < rows && (size_t)(skip + i) < d.nlines; i++)
            widgets_text(c, x + 2, y + i, w - 2, attr, d.lines[skip + i].text);
    wrap_doc_free(&d);
}

/* Program i's pane: its output, the newest line at the bottom but for the back newest ones (a
   whole-screen pane scrolled back); tag follows the name in the title ("2/4" in a shared pane). */
static void stepview_run_draw_prog(struct runview *v, const struct screen_caps *c,
                                   struct layout_rect pane, size_t i, const char *tag, size_t back)
{
    const struct lesson_program *p = &v->sc->programs[i];
    const struct snapshot_prog *sp = v->have_snap && i < v->snap.nprogs ? &v->snap.progs[i] : NULL;
    /* The counters pane sums programs by role: a pane named otherwise ("reader") says its role,
       so that its calls are found there (after the state: the name and its place come first). */
    const char *role = lesson_role_name(p->role);
    bool say_role = strcmp(p->name, role) != 0;
    char title[160];
    if (sp && sp->pid)
        snprintf(title, sizeof title, "%s%s%s [%s %d%s%s]", p->name, tag[0] ? " " : "", tag,
                 stepview_run_prog_state(sp->state), sp->pid, say_role ? ", " : "",
                 say_role ? role : "");
    else
        snprintf(title, sizeof title, "%s%s%s (%s%s%s)", p->name, tag[0] ? " " : "", tag,
                 say_role ? role : "", say_role ? ": " : "", p->program);
    bool focused = v->focus == (int)i + 1;
    struct layout_rect in = widgets_box(c, pane, title, focused);
    int rows = in.h;
    bool prompt = focused && p->interactive;
    if (prompt)
        rows--;
    size_t n = v->engine ? engine_lines(v->engine, i) : 0;
    n -= back < n ? back : n;
    /* Long lines (a chat message, a demo's sentence about a limit) wrap rather than lose their
       end: walk back from the newest line until the pane is full, then draw downwards; the
       oldest line shown may lose its first rows. */
    size_t first = n;
    int need = 0;
    while (first > 0 && need < rows) {
        need += widgets_wrapped(c, 0, 0, in.w, 2, 0, A_NORMAL,
                                engine_line(v->engine, i, first - 1, NULL));
        first--;
    }
    int y = in.y + rows - need; /* may start above the pane: those rows are skipped */
    for (size_t k = first; k < n; k++) {
        enum engine_stream stream = ENGINE_STDOUT;
        const char *line = engine_line(v->engine, i, k, &stream);
        attr_t a = stream == ENGINE_STDERR ? screen_attr(SCREEN_STDERR) : A_NORMAL;
        int h = widgets_wrapped(c, 0, 0, in.w, 2, 0, a, line);
        if (y >= in.y)
            widgets_wrapped(c, in.x, y, in.w, 2, h, a, line);
        else if (y + h > in.y) /* the oldest line, partly above the pane: its last rows only */
            stepview_run_draw_tail(c, in.x, in.y, in.w, in.y - y, y + h - in.y, a, line);
        y += h;
    }
    if (n == 0 && !v->engine)
        widgets_text(c, in.x, in.y, in.w, screen_attr(SCREEN_DIM), "Enter starts it");
    if (prompt) {
        char shown[sizeof v->input + 4];
        snprintf(shown, sizeof shown, "> %.*s_", (int)v->ninput, v->input);
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

/* Whose calls the comparison's calls per request are: the figures are summed by role, so where
   several programs share the studied one's role (ipc's cache and proxy are both servers) the
   name says all of them ("cache+proxy"), never one whose calls the figure does not hold alone. */
static void stepview_run_role_names(const struct runview *v, enum lesson_role role,
                                    const char *study, char *buf, size_t len)
{
    size_t n = 0, shared = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < v->sc->nprograms; i++)
        shared += v->sc->programs[i].role == role;
    if (shared < 2) {
        snprintf(buf, len, "%s", study);
        return;
    }
    for (size_t i = 0; i < v->sc->nprograms && n < len; i++)
        if (v->sc->programs[i].role == role) {
            int w = snprintf(buf + n, len - n, "%s%s", n ? "+" : "", v->sc->programs[i].name);
            n += w > 0 ? (size_t)w : 0;
        }
}

static void stepview_run_draw_counters(struct runview *v, struct view_ctx *vc);

/* The results box: the checks in the order listed, each whole (its name first, then what it
   saw and, failing, what to do, as `iolab check` prints it), the expected outcomes with the why
   of each one this run contradicts, and the predictions. */
static void stepview_run_draw_results(struct runview *v, const struct view_ctx *vc)
{
    const struct screen_caps *c = vc->caps;
    struct widgets_sheet *s = &v->sheet;
    widgets_sheet_begin(s, vc->layout.body);
    size_t n = v->sc->nchecks, *order = n ? malloc(n * sizeof *order) : NULL;
    char msg[768], line[1024];
    if (n && order) {
        size_t hold = 0;
        for (size_t i = 0; i < n; i++)
            hold += grade_state(&v->grader, i) == GRADE_PASS;
        snprintf(line, sizeof line, "Checks (%zu of %zu hold%s):", hold, n,
                 grade_done(&v->grader) ? ", the step is done" : "");
        widgets_sheet_para(s, c, 0, NULL, 0, A_BOLD, line);
        stepview_run_check_order(v, order);
        for (size_t k = 0; k < n; k++) {
            size_t i = order[k];
            enum footrows_state st = stepview_run_check_state(v, i);
            grade_message(&v->grader, i, msg, sizeof msg);
            attr_t ma = screen_attr(st == FOOTROWS_PASS   ? SCREEN_GOOD
                                    : st == FOOTROWS_FAIL ? SCREEN_BAD
                                                          : SCREEN_DIM);
            const char *mark = st == FOOTROWS_PASS   ? c->g->done
                               : st == FOOTROWS_FAIL ? c->g->todo
                                                     : "-";
            if (st == FOOTROWS_FAIL || st == FOOTROWS_OPEN) {
                widgets_sheet_para(s, c, 2, mark, ma, A_BOLD, v->sc->checks[i].text);
                widgets_sheet_para(s, c, 4, NULL, 0, A_NORMAL, msg);
            } else {
                snprintf(line, sizeof line, "%s: %s", v->sc->checks[i].text, msg);
                widgets_sheet_para(s, c, 2, mark, ma,
                                   st == FOOTROWS_PASS ? A_NORMAL : screen_attr(SCREEN_DIM), line);
            }
        }
    }
    free(order);
    if (v->sc->nexpects) {
        if (s->n)
            widgets_sheet_para(s, c, 0, NULL, 0, A_NORMAL, "");
        widgets_sheet_para(s, c, 0, NULL, 0, A_BOLD, "What to expect:");
        for (size_t i = 0; i < v->sc->nexpects; i++) {
            struct expect_verdict ev = stepview_run_expect(v, i, msg, sizeof msg);
            const char *mark = ev.state == EXPECT_AGREES    ? c->g->done
                               : ev.state == EXPECT_DIFFERS ? "!"
                                                            : "-";
            attr_t ma = screen_attr(ev.state == EXPECT_AGREES    ? SCREEN_GOOD
                                    : ev.state == EXPECT_DIFFERS ? SCREEN_BAD
                                                                 : SCREEN_DIM);
            snprintf(line, sizeof line, "%s: %s", v->sc->expects[i].text, msg);
            widgets_sheet_para(s, c, 2, mark, ma, A_NORMAL, line);
            if (ev.state == EXPECT_DIFFERS && v->sc->expects[i].why) {
                snprintf(line, sizeof line, "Unlike the text: %s", v->sc->expects[i].why);
                widgets_sheet_para(s, c, 4, NULL, 0, screen_attr(SCREEN_BAD), line);
            }
        }
    }
    if (v->pv) {
        if (s->n)
            widgets_sheet_para(s, c, 0, NULL, 0, A_NORMAL, "");
        predictview_sheet(v->pv, s, c, v->grader.session.modes, v->grader.session.nmodes);
    }
    if (!s->n)
        widgets_sheet_para(s, c, 0, NULL, 0, A_NORMAL,
                           "This step has no checks, expected outcomes or predictions.");
    widgets_sheet_draw(s, c, "Whole: j/k scroll, any other key closes");
}

static void stepview_run_draw(void *self, struct view_ctx *vc)
{
    struct runview *v = self;
    v->npanes = vc->layout.nprogs;
    v->nfolded = vc->layout.nfolded;
    if (v->zoom && v->pick < stepview_run_nprogs(v)) {
        char tag[64];
        snprintf(tag, sizeof tag, "%zu/%zu%s", v->pick + 1, stepview_run_nprogs(v),
                 v->zoom_back ? ", scrolled back: G the newest" : "");
        widgets_clear(vc->layout.body);
        stepview_run_draw_prog(v, vc->caps, vc->layout.body, v->pick, tag, v->zoom_back);
        if (v->legend)
            v->legend_page = counterview_legend(vc->caps, &v->legend_top);
        return;
    }
    if (sweepview_shown(v->sweep)) {
        sweepview_draw(v->sweep, vc);
        if (v->legend)
            v->legend_page = counterview_legend(vc->caps, &v->legend_top);
        if (v->results)
            stepview_run_draw_results(v, vc);
        return;
    }
    for (size_t i = 0; i < vc->layout.nprogs; i++) {
        if (!vc->layout.nfolded || i + 1 < vc->layout.nprogs) {
            stepview_run_draw_prog(v, vc->caps, vc->layout.progs[i], i, "", 0);
            continue;
        }
        /* The shared last pane: the program typed into, else the one last turned to. */
        size_t first = i, end = i + vc->layout.nfolded;
        if (v->focus >= 1 && (size_t)v->focus - 1 >= first && (size_t)v->focus - 1 < end)
            v->tab = (size_t)v->focus - 1;
        if (v->tab < first || v->tab >= end)
            v->tab = first;
        char tag[32];
        snprintf(tag, sizeof tag, "%zu/%zu", v->tab - first + 1, vc->layout.nfolded);
        stepview_run_draw_prog(v, vc->caps, vc->layout.progs[i], v->tab, tag, 0);
    }
    if (v->code) {
        const struct tally_sites *a, *b;
        double t;
        if (stepview_run_sites(v, stepview_run_code_prog(v), &a, &b, &t))
            codeview_update(v->code, a, b, t);
        codeview_draw(v->code, vc->caps, vc->layout.body);
        if (v->results)
            stepview_run_draw_results(v, vc);
        return;
    }
    if (v->compare) {
        /* Every run of this step so far, restarts included: the grader keeps a span per mode. */
        int cur = v->have_snap ? v->snap.mode : -1;
        const char *now = cur >= 0 && (size_t)cur < v->sc->nmodes ? v->sc->modes[cur].id : NULL;
        const struct lesson_program *study =
            v->sc->study >= 0 ? &v->sc->programs[v->sc->study] : NULL;
        enum lesson_role role = study ? study->role : LESSON_ROLE_SERVER;
        char who[64];
        stepview_run_role_names(v, role, study ? study->name : "server", who, sizeof who);
        counterview_compare(vc->caps, vc->layout.counters, v->sc, v->grader.session.modes,
                            v->grader.session.nmodes, now, v->sc->unit, role, who, v->sc->latency);
    } else if (!predictview_draw_ask(v->pv, vc, vc->layout.counters)) {
        stepview_run_draw_counters(v, vc);
    }
    if (v->legend)
        v->legend_page = counterview_legend(vc->caps, &v->legend_top);
    if (v->results)
        stepview_run_draw_results(v, vc);
}

/*
 * The connections the load keeps open, in a step about holding connections (it watches the
 * load's connect: c10k, not the steps that watch a server's accept among its other calls): the
 * client's --connections, the mode's arguments after its own as the engine passes them. 0 in
 * any other step.
 */
static uint64_t stepview_run_conns_want(const struct runview *v, int mode)
{
    bool about = false;
    for (size_t i = 0; i < v->sc->nwatch; i++)
        about |= v->sc->watch[i] == IOLAB_CALL_CONNECT;
    uint64_t want = 0;
    for (size_t p = 0; about && p < v->sc->nprograms; p++) {
        const struct lesson_program *lp = &v->sc->programs[p];
        if (lp->role != LESSON_ROLE_CLIENT)
            continue;
        const struct lesson_mode *m =
            mode >= 0 && (size_t)mode < v->sc->nmodes && v->sc->modes[mode].program == p
                ? &v->sc->modes[mode]
                : NULL;
        for (size_t k = 0; k + 1 < lp->nargs; k++)
            if (!strcmp(lp->args[k], "--connections"))
                want = strtoull(lp->args[k + 1], NULL, 10);
        for (size_t k = 0; m && k + 1 < m->nargs; k++)
            if (!strcmp(m->args[k], "--connections"))
                want = strtoull(m->args[k + 1], NULL, 10);
    }
    return want;
}

static void stepview_run_draw_counters(struct runview *v, struct view_ctx *vc)
{
    const struct jail *j = v->engine ? engine_jail(v->engine) : NULL;
    int mode = v->have_snap ? v->snap.mode : -1;
    struct counterview_in in = {
        .s = v->have_snap ? &v->snap : NULL,
        .base = v->have_base && !v->totals ? &v->mode_base : NULL,
        .started = v->engine != NULL,
        .missing = j ? jail_missing(j) : NULL,
        .unit = v->sc->unit,
        .mode_name = mode >= 0 && (size_t)mode < v->sc->nmodes ? v->sc->modes[mode].id : NULL,
        .watch = v->sc->watch,
        .nwatch = v->sc->nwatch,
        .conns_want = stepview_run_conns_want(v, mode),
    };
    for (size_t i = 0; i < v->sc->nprograms; i++)
        in.has_role[v->sc->programs[i].role] = true;
    counterview_draw(vc->caps, vc->layout.counters, false, &in);
}

static void stepview_run_title_right(void *self, char *buf, size_t len)
{
    struct runview *v = self;
    buf[0] = '\0';
    if (!v->engine)
        return;
    int mode = engine_mode(v->engine);
    const struct jail *j = engine_jail(v->engine);
    /* The engine closes its jail when the run ends (a program that finished by itself, the
       step's time up); the tier the run used is still what the title says, as the judge kept
       it when the run began. "-" only for a run that never started. */
    const char *tier = j ? iolab_tier_name(jail_tier(j)) : v->judge.tier[0] ? v->judge.tier : "-";
    snprintf(buf, len, "%s%s%s  sandbox: %s%s ", engine_state_name(engine_state(v->engine)),
             mode >= 0 ? "  mode: " : "", mode >= 0 ? v->sc->modes[mode].id : "", tier,
             v->paused ? "  PAUSED" : "");
}

static bool stepview_run_text_focused(void *self)
{
    return ((struct runview *)self)->focus == 0;
}

const struct grader *stepview_run_grader(void *self)
{
    struct runview *v = self;
    return &v->grader;
}

const char *stepview_run_sanitizer_report(void *self)
{
    struct runview *v = self;
    return grade_sanitizer_report(&v->grader);
}

const struct stepview_kind stepview_run = {
    .name = "run",
    .open = stepview_run_open,
    .close = stepview_run_close,
    .layout = stepview_run_layout,
    .text_foot_rows = stepview_run_text_foot_rows,
    .draw_text_foot = stepview_run_draw_text_foot,
    .draw = stepview_run_draw,
    .title_right = stepview_run_title_right,
    .key = stepview_run_key,
    .keys = &stepview_run_keys,
    .footer = stepview_run_footer,
    .help = stepview_run_help,
    .click = stepview_run_click,
    .done = stepview_run_done,
    .busy = stepview_run_busy,
    .text_focused = stepview_run_text_focused,
    .foot_scroll = stepview_run_foot_scroll,
    .open_hint = "Enter starts the scenario; ? lists every key.",
};
