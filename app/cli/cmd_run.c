/*
 * iolab run LESSON[/STEP] [--pack DIR|ID] [--mode M[,M...]] [--seconds N] [--json] [--tier T]:
 * a step's scenario, headless, on the same engine the TUI drives.
 *
 * Files: cmd_run_args.c reads the command line (options, step, modes); this file runs the
 * scenario on the headless driver (headless.h); run_report.c prints what it measured.
 *
 * Model: one loop, one engine. Each requested mode is one measured segment: it starts with the
 * snapshot the engine publishes when the mode's server is ready (and, for the first mode, every
 * program is spawned) and ends with the snapshot published right before the next switch or the
 * stop. A segment's figures are the difference of those two snapshots, so start-up and
 * shut-down work and the gap while a server restarts are never counted. The load keeps running
 * across switches. The output (text or one JSON object; format in engine/README.md) is printed
 * once, after every program has been reaped and the work directory removed.
 *
 * Exit: 0 for a clean run; 1 when the pack is bad, a program failed or died early (one sentence
 * with its last lines) or a program counted errors (the run was not clean: the figures are
 * printed all the same, with "clean": false and the problems); 2 for a bad command line,
 * lesson, step or mode; 128+signal after SIGINT, SIGTERM or SIGHUP.
 */
#include "cmd.h"
#include "cmd_run_args.h"
#include "cmd_sweep.h"
#include "engine/sweepio.h"
#include "engine/engine.h"
#include "grade.h"
#include "headless.h"
#include "json.h"
#include "lesson/lesson.h"
#include "paths.h"
#include "run_report.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct run {
    struct headless h; /* the loop, its signals and its drain */
    struct engine *engine;
    const struct lesson *lesson;
    const struct lesson_step *step;
    const struct lesson_scenario *sc; /* the step's */
    struct grader grader;             /* the step's checks, judged on every snapshot */
    uv_timer_t segment_timer;
    double seconds;
    bool json;
    size_t nsegments, current;
    bool awaiting_next; /* a switch was asked for: the next running snapshot opens a segment */
    struct run_segment segments[RUN_MAX_MODES];
    int exit_code;      /* set once: the first reason to end wins */
    char message[1536]; /* the sentence printed for a failure */
    char sandbox[1024]; /* jail_describe_json, taken while the jail exists */
    bool done;
    struct run_last_words words; /* each program's last lines on stderr, for the problems */
};

static void cmd_run_finish(struct run *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void cmd_run_finish(struct run *r, int code, const char *fmt, ...)
{
    if (r->exit_code < 0) {
        r->exit_code = code;
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(r->message, sizeof r->message, fmt, ap);
            va_end(ap);
        }
    }
    uv_timer_stop(&r->segment_timer);
    if (engine_state(r->engine) == ENGINE_STARTING || engine_state(r->engine) == ENGINE_RUNNING)
        engine_stop(r->engine);
}

static void cmd_run_segment_end(uv_timer_t *t)
{
    struct run *r = t->data;
    if (r->current + 1 < r->nsegments) {
        const struct run_segment *next = &r->segments[r->current + 1];
        int rc = engine_switch_mode(r->engine, (size_t)next->mode);
        if (rc < 0)
            cmd_run_finish(r, 1, "could not switch to mode %s: %s", r->sc->modes[next->mode].id,
                           strerror(-rc));
        else
            r->awaiting_next = true; /* after the call: its own snapshot closes this segment */
        return;
    }
    cmd_run_finish(r, 0, NULL);
}

static void cmd_run_on_snapshot(void *data, const struct snapshot *snap)
{
    struct run *r = data;
    /* Every snapshot, as the TUI feeds its own: the verdicts agree by construction. */
    grade_update(&r->grader, snap);
    if (!snap->mode_running || r->current >= r->nsegments)
        return;
    if (r->awaiting_next) {
        r->awaiting_next = false;
        r->segments[r->current].ended = true;
        if (++r->current >= r->nsegments)
            return;
    }
    struct run_segment *seg = &r->segments[r->current];
    if (!seg->started) {
        seg->started = true;
        seg->after_switch = r->current > 0;
        seg->first = *snap;
        uv_timer_start(&r->segment_timer, cmd_run_segment_end, (uint64_t)(r->seconds * 1000), 0);
    }
    seg->last = *snap;
    seg->proc_read_failures += snap->sample_errors;
    for (uint32_t i = 0; i < snap->nprogs; i++) {
        if (snap->progs[i].f.nthreads > seg->peak_threads[i])
            seg->peak_threads[i] = snap->progs[i].f.nthreads;
        if (snap->progs[i].f.nprocs > seg->peak_procs[i])
            seg->peak_procs[i] = snap->progs[i].f.nprocs;
    }
}

/* The last few lines a program printed, joined, for a one-sentence error. */
static void cmd_run_last_lines(struct run *r, size_t prog, char *buf, size_t len)
{
    size_t n = engine_lines(r->engine, prog), used = 0;
    buf[0] = '\0';
    for (size_t i = n > 3 ? n - 3 : 0; i < n && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", used ? " | " : "",
                         engine_line(r->engine, prog, i, NULL));
        if (w < 0)
            break;
        used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
    if (!buf[0])
        snprintf(buf, len, "(no output)");
}

static void cmd_run_on_exit(void *data, size_t prog, int status, bool expected)
{
    struct run *r = data;
    grade_exit(&r->grader, prog, status, expected); /* exit checks */
    if (expected || engine_state(r->engine) != ENGINE_RUNNING)
        return;
    const struct lesson_program *p = &r->sc->programs[prog];
    /* A client that finishes its work (copy-file --rounds N) is the load ending, not a failure:
       the snapshot published at its exit, with its reconciled totals, closes the segment; when
       it was the last program, the engine stops by itself. */
    if (status == 0 && p->role == LESSON_ROLE_CLIENT)
        return;
    char last[768];
    cmd_run_last_lines(r, prog, last, sizeof last);
    cmd_run_finish(r, 1,
                   "the %s (%s) exited with status %d while the scenario ran; its last lines "
                   "were: %s",
                   p->name, p->program, status, last);
}

static void cmd_run_on_line(void *data, size_t prog, enum engine_stream stream, const char *line,
                            size_t len)
{
    struct run *r = data;
    grade_line(&r->grader, prog, line); /* output checks */
    if (stream == ENGINE_STDERR && prog < SNAPSHOT_MAX_PROGS && len)
        snprintf(r->words.err[prog], sizeof r->words.err[prog], "%.*s", (int)len, line);

    if (stream == ENGINE_STDERR && prog < SNAPSHOT_MAX_PROGS && memmem(line, len, " failed: ", 9))
        snprintf(r->words.fail[prog], sizeof r->words.fail[prog], "%.*s", (int)len, line);
}

static void cmd_run_close_all(struct run *r)
{
    if (r->done)
        return;
    r->done = true;
    uv_close((uv_handle_t *)&r->segment_timer, NULL);
    engine_free(r->engine);
}

static void cmd_run_on_state(void *data, enum engine_state state)
{
    struct run *r = data;
    if (state == ENGINE_RUNNING && engine_jail(r->engine)) {
        jail_describe_json(engine_jail(r->engine), r->sandbox, sizeof r->sandbox);
        grade_set_tier(&r->grader, iolab_tier_name(jail_tier(engine_jail(r->engine))));
    }
    if (state == ENGINE_FAILED) {
        cmd_run_finish(r, 1, "%s", engine_error(r->engine));
        cmd_run_close_all(r);
    } else if (state == ENGINE_STOPPED) {
        if (r->exit_code < 0)
            r->exit_code = 0;
        cmd_run_close_all(r);
    }
}

static void cmd_run_on_signal(void *data, int sig)
{
    struct run *r = data;
    if (r->done || !r->engine)
        return; /* the run has ended: the drain finishes it */
    cmd_run_finish(r, 128 + sig, NULL);
    if (engine_state(r->engine) != ENGINE_STOPPING)
        cmd_run_close_all(r);
}

/* Runs the resolved scenario to its end on its own loop; returns the exit status. */
static int cmd_run_scenario(struct run *r, enum iolab_tier tier)
{
    struct headless_options ho = {.data = r, .on_signal = cmd_run_on_signal, .what = "at exit"};
    if (headless_init(&r->h, &ho) < 0) {
        cmd_error("cannot set up the event loop.");
        return 1;
    }
    struct engine_options eo = {
        .mode = r->segments[0].mode >= 0 ? r->sc->modes[r->segments[0].mode].id : NULL,
        /* {seconds}: the whole run, so a client told to stop by itself outlasts every mode. */
        .seconds = r->seconds * (double)r->nsegments,
        .tick_hz = 10,
        .tier = tier,
    };
    struct engine_callbacks cb = {.data = r,
                                  .on_line = cmd_run_on_line,
                                  .on_exit = cmd_run_on_exit,
                                  .on_snapshot = cmd_run_on_snapshot,
                                  .on_state = cmd_run_on_state};
    int rc = engine_create(&r->engine, &r->h.loop, r->sc, &eo, &cb);
    if (rc < 0) {
        cmd_error("cannot prepare the scenario: %s.", strerror(-rc));
        headless_abandon(&r->h);
        return 1;
    }
    uv_timer_init(&r->h.loop, &r->segment_timer);
    r->segment_timer.data = r;
    if (engine_start(r->engine) < 0 && engine_state(r->engine) == ENGINE_FAILED) {
        cmd_run_finish(r, 1, "%s", engine_error(r->engine));
        cmd_run_close_all(r);
    }
    headless_run(&r->h); /* a signal is in r->exit_code: the first reason to end wins */
    int status = r->exit_code < 0 ? 1 : r->exit_code;
    if (status > 1 && status != 2)
        return status; /* stopped by a signal: nothing printed */
    /* The run is over: every check is decided on what it measured (the one pass rule). */
    grade_finish(&r->grader);
    /* Whatever was measured is printed, a failure included, with what made it not clean. */
    struct run_report rep = {
        .lesson = r->lesson,
        .step = r->step,
        .sc = r->sc,
        .grader = &r->grader,
        .segments = r->segments,
        .nsegments = r->nsegments,
        .words = &r->words,
        .sandbox = r->sandbox,
        .failure = r->exit_code == 1 ? r->message : NULL,
    };
    struct run_problems pr;
    run_report_problems(&rep, &pr);
    /* A failure before anything was measured (the load died at once) still prints what there
       is: the problems, and in --json an object with no modes, so a script always gets one. */
    run_report_print(&rep, &pr, r->json);
    uint32_t lost = 0;
    for (size_t i = 0; i < r->nsegments; i++)
        if (r->segments[i].started && r->segments[i].last.overflow_claims > lost)
            lost = r->segments[i].last.overflow_claims;
    if (status == 0 && lost) {
        cmd_error("the counts above are incomplete: %u thread(s) found every slot of the "
                  "counter page held by a live thread, and their calls are not in them.",
                  lost);
        return 3;
    }
    if (status == 1)
        cmd_error("%s", r->message[0] ? r->message : "the scenario failed.");
    else if (pr.n) {
        cmd_error("the run was not clean: %s%s", pr.v[0], pr.n > 1 ? " (and more, above)" : "");
        status = 1;
    }
    return status;
}

/* A step with a sweep: every point of the modes asked for, printed as a table, JSON or CSV. */
static int cmd_run_sweep(struct run *r, const struct run_args *o)
{
    int modes[RUN_MAX_MODES];
    size_t nmodes = 0;
    for (size_t i = 0; o->modes && i < r->nsegments; i++)
        modes[nmodes++] = r->segments[i].mode;
    struct sweep_result *res = calloc(1, sizeof *res);
    if (!res) {
        cmd_error("out of memory.");
        return 1;
    }
    struct sweep_cli_opts so = {
        .sc = r->sc,
        .seconds = o->seconds,
        .modes = nmodes ? modes : NULL,
        .nmodes = nmodes,
        .tier = o->tier,
        .progress = true,
    };
    int status = cmd_sweep_run(&so, res);
    if (status == 1) {
        cmd_error("cannot set up the event loop.");
    } else if (status == 0 || res->done) {
        if (o->json) {
            struct json_out j;
            json_init(&j, stdout);
            sweepio_json(&j, NULL, res);
            fputc('\n', stdout);
        } else if (o->csv) {
            sweepio_csv(stdout, res);
        } else {
            sweepio_text(stdout, res);
        }
        fflush(stdout);
    }
    size_t failed = 0;
    for (size_t k = 0; k < res->done; k++)
        failed += !res->points[k % res->nmodes][k / res->nmodes].measured;
    if (status == 0 && failed) {
        cmd_error("%zu of %zu points could not be measured; their reasons are above.", failed,
                  res->done);
        status = 1;
    }
    free(res);
    return status;
}

static int cmd_run_exec(int argc, char **argv)
{
    struct run_args o;
    int status = cmd_run_args_parse(argc, argv, &o);
    if (status)
        return status < 0 ? 0 : status;
    struct lesson_pack *pack = cmd_load_pack_for(o.pack_dir, o.spec);
    if (!pack)
        return 1;
    struct run *r = calloc(1, sizeof *r);
    status = 2;
    if (!r) {
        cmd_error("out of memory.");
        status = 1;
        goto out_pack;
    }
    r->exit_code = -1;
    r->json = o.json;
    struct run_target t = {0};
    if (cmd_run_args_resolve(&t, pack, o.spec) < 0 || cmd_run_args_parse_modes(&t, o.modes) < 0)
        goto out;
    r->lesson = t.lesson;
    r->step = t.step;
    r->sc = t.sc;
    for (size_t i = 0; i < t.nmodes; i++)
        r->segments[i].mode = t.modes[i];
    r->nsegments = t.nmodes;
    if (lesson_step_sweep(r->step)) {
        status = cmd_run_sweep(r, &o);
        goto out;
    }
    if (o.csv) {
        cmd_error("--csv is for a step with a sweep; %s/%s has none (--json works).", r->lesson->id,
                  r->step->id);
        goto out;
    }
    if (grade_init(&r->grader, r->sc) < 0) {
        cmd_error("out of memory.");
        status = 1;
        goto out;
    }
    r->seconds = o.seconds > 0 ? o.seconds : r->sc->seconds > 0 ? r->sc->seconds : 5;
    status = cmd_run_scenario(r, o.tier);
    grade_free(&r->grader);
out:
    free(r);
out_pack:
    lesson_pack_free(pack);
    return status;
}

const struct cmd_entry cmd_run_entry = {
    .name = "run",
    .usage = "LESSON[/STEP] [--mode M] [--seconds N] [--json]",
    .summary = "run a step's scenario without the TUI and print what it cost",
    .exec = cmd_run_exec,
};
