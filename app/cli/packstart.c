/*
 * The start checks of `iolab check --pack DIR` (packstart.h). Model: one headless loop per
 * start; the engine runs the scenario until it is running, then for PACKSTART_SETTLE_MS so that
 * a client dying at once shows, then stops it; the driver's deadline guards a start that hangs.
 */
#include "packstart.h"
#include "engine/engine.h"
#include "headless.h"
#include "json.h"
#include "lesson/sweep.h"
#include "termsafe.h"

#include <stdio.h>
#include <string.h>

/* How long a started scenario runs: long enough for a client dying at once to show. */
#define PACKSTART_SETTLE_MS 800
/* A start that takes longer is stopped (the engine's own ready timeout is 5 s a server). */
#define PACKSTART_GUARD_MS 30000

/* One start of one mode of one run step. */
struct packstart_try {
    struct engine *engine;
    uv_timer_t settle; /* the guard is the headless driver's deadline */
    const struct lesson_scenario *sc;
    char problem[768]; /* "" when it started */
    bool running;
};

static void packstart_stop(struct packstart_try *t)
{
    uv_timer_stop(&t->settle);
    if (t->engine &&
        (engine_state(t->engine) == ENGINE_RUNNING || engine_state(t->engine) == ENGINE_STARTING))
        engine_stop(t->engine);
}

static void packstart_settled(uv_timer_t *h)
{
    packstart_stop(h->data);
}

static void packstart_guard(void *data)
{
    struct packstart_try *t = data;
    if (engine_state(t->engine) == ENGINE_STOPPED || engine_state(t->engine) == ENGINE_FAILED)
        return; /* it ended in time: the drain is under way */
    if (!t->problem[0])
        snprintf(t->problem, sizeof t->problem,
                 "it did not start within %d s; a server may never print its ready text",
                 PACKSTART_GUARD_MS / 1000);
    packstart_stop(t);
}

static void packstart_on_exit(void *data, size_t prog, int status, bool expected)
{
    struct packstart_try *t = data;
    if (expected || status == 0 || t->problem[0] || !t->running)
        return;
    /* A program that ends with an error right after the start: quote its last line. */
    size_t n = engine_lines(t->engine, prog);
    enum engine_stream st;
    const char *last = n ? engine_line(t->engine, prog, n - 1, &st) : NULL;
    snprintf(t->problem, sizeof t->problem,
             "program \"%s\" (%s) exited with status %d right "
             "after the start%s%.300s%s",
             t->sc->programs[prog].name, t->sc->programs[prog].program, status, last ? ": \"" : "",
             last ? last : "", last ? "\"" : "");
    packstart_stop(t);
}

static void packstart_on_state(void *data, enum engine_state state)
{
    struct packstart_try *t = data;
    if (state == ENGINE_RUNNING) {
        t->running = true;
        uv_timer_start(&t->settle, packstart_settled, PACKSTART_SETTLE_MS, 0);
    } else if (state == ENGINE_FAILED) {
        if (!t->problem[0])
            snprintf(t->problem, sizeof t->problem, "%s", engine_error(t->engine));
        packstart_stop(t);
    }
    if (state == ENGINE_STOPPED || state == ENGINE_FAILED)
        uv_timer_stop(&t->settle);
}

static void packstart_on_signal(void *data, int sig)
{
    (void)sig; /* the driver keeps 128+sig */
    packstart_stop(data);
}

static void packstart_end(void *data)
{
    struct packstart_try *t = data;
    if (t->engine)
        engine_free(t->engine);
    t->engine = NULL;
    uv_close((uv_handle_t *)&t->settle, NULL);
}

/* Starts a scenario in one mode (NULL: its default) for a moment; problem says what went wrong.
   Returns 0, or 128+signal when a signal stopped it. */
static int packstart_one(const struct lesson_scenario *sc, const char *mode, char *problem,
                         size_t len)
{
    struct packstart_try t = {.sc = sc};
    struct headless h;
    struct headless_options ho = {.data = &t,
                                  .on_signal = packstart_on_signal,
                                  .deadline_s = PACKSTART_GUARD_MS / 1000.0,
                                  .on_deadline = packstart_guard,
                                  .on_end = packstart_end,
                                  .what = "after a start"};
    int rc = headless_init(&h, &ho);
    if (rc < 0) {
        snprintf(problem, len, "cannot set up the event loop: %s", strerror(-rc));
        return 0;
    }
    uv_timer_init(&h.loop, &t.settle);
    t.settle.data = &t;
    struct engine_options eo = {.mode = mode, .seconds = 2, .tick_hz = 5, .tier = IOLAB_TIER_AUTO};
    struct engine_callbacks cb = {
        .data = &t, .on_exit = packstart_on_exit, .on_state = packstart_on_state};
    rc = engine_create(&t.engine, &h.loop, sc, &eo, &cb);
    if (rc == 0 && (rc = engine_start(t.engine)) < 0)
        snprintf(t.problem, sizeof t.problem, "%s", engine_error(t.engine));
    else if (rc < 0)
        snprintf(t.problem, sizeof t.problem, "cannot set the scenario up: %s", strerror(-rc));
    int stopped = 0;
    if (rc == 0) {
        stopped = headless_run(&h);
    } else {
        packstart_end(&t);
        headless_abandon(&h);
    }
    /* One sentence: the engine's own ends with a full stop, the caller adds it. */
    size_t pl = strlen(t.problem);
    while (pl && (t.problem[pl - 1] == '.' || t.problem[pl - 1] == ' '))
        t.problem[--pl] = '\0';
    snprintf(problem, len, "%s", t.problem);
    return stopped;
}

/*
 * The author's check of a pack's run steps: each mode of each run step starts (every server
 * prints its ready text, nothing dies at once). Exercises are --solutions' business. One line
 * per start; 0 when all started, 1 otherwise.
 */
int packstart_run(const struct lesson_pack *pack, bool json)
{
    size_t n = 0, bad = 0;
    int stopped;
    struct json_out j;
    json_init(&j, stdout);
    if (json) {
        json_object(&j, NULL);
        json_array(&j, "starts");
    }
    for (size_t li = 0; li < pack->nlessons; li++)
        for (size_t si = 0; si < pack->lessons[li].nsteps; si++) {
            const struct lesson *l = &pack->lessons[li];
            const struct lesson_step *st = &l->steps[si];
            const struct lesson_scenario *sc = lesson_step_scenario(st);
            if (!sc || lesson_step_exercise(st))
                continue;
            /* A sweep step starts as a plain run does: at its default value ({size} given). */
            const struct lesson_sweep *sw = lesson_step_sweep(st);
            struct sweep_derived plain;
            const struct lesson_scenario *run = sc;
            bool derived = sw && sweep_derive(sc, sw->default_value, &plain) == 0;
            if (derived)
                run = &plain.sc;
            for (size_t m = 0; m < (sc->nmodes ? sc->nmodes : 1); m++) {
                const char *mode = sc->nmodes ? sc->modes[m].id : NULL;
                char problem[768];
                if ((stopped = packstart_one(run, mode, problem, sizeof problem)) != 0) {
                    if (derived)
                        sweep_derived_free(&plain);
                    return stopped; /* a signal: the starts so far are printed, no summary */
                }
                n++;
                bad += problem[0] != '\0';
                if (json) {
                    json_object(&j, NULL);
                    json_string(&j, "lesson", l->id);
                    json_string(&j, "step", st->id);
                    json_string(&j, "mode", mode);
                    json_bool(&j, "ok", !problem[0]);
                    json_string(&j, "problem", problem[0] ? problem : NULL);
                    json_end(&j);
                } else if (problem[0]) {
                    termsafe_fprintf(stdout, "%s/%s%s%s: does not start: %s.\n", l->id, st->id,
                                     mode ? " mode " : "", mode ? mode : "", problem);
                } else {
                    termsafe_fprintf(stdout, "%s/%s%s%s: starts\n", l->id, st->id,
                                     mode ? " mode " : "", mode ? mode : "");
                }
                fflush(stdout);
            }
            if (derived)
                sweep_derived_free(&plain);
        }
    if (json) {
        json_end(&j);
        json_u64(&j, "count", n);
        json_bool(&j, "ok", bad == 0);
        json_end(&j);
        fputc('\n', stdout);
    } else {
        printf("%zu start%s: %s\n", n, n == 1 ? "" : "s",
               bad ? "problems above" : "every program started");
    }
    return bad ? 1 : 0;
}
