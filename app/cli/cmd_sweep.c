/*
 * cmd_sweep: see cmd_sweep.h. One runner on the headless driver (headless.h), whose signals stop
 * it; progress goes to
 * stderr, never stdout (a pipe of --json or --csv stays clean): on a terminal a line redrawn in
 * place, elsewhere (a CI log) one plain line per finished point.
 */
#include "cmd_sweep.h"
#include "headless.h"

#include "termsafe.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct sweep_cli {
    struct headless h;
    struct sweeprun *run;
    uv_timer_t tick;
    struct sweep_result *res;
    bool progress, closed;
    bool log; /* one line per finished point (stderr is not a terminal) */
};

static void cmd_sweep_close(struct sweep_cli *c)
{
    if (c->closed)
        return;
    c->closed = true;
    *c->res = *sweeprun_result(c->run);
    uv_close((uv_handle_t *)&c->tick, NULL);
    sweeprun_free(c->run);
}

static void cmd_sweep_on_done(void *data, const struct sweep_result *res)
{
    struct sweep_cli *c = data;
    (void)res;
    if (c->progress)
        fputs("\r\033[K", stderr);
    cmd_sweep_close(c);
}

static void cmd_sweep_on_signal(void *data, int sig)
{
    struct sweep_cli *c = data;
    (void)sig; /* the driver keeps 128+sig as the status */
    if (!c->closed)
        sweeprun_stop(c->run); /* on_done closes */
}

static void cmd_sweep_on_tick(uv_timer_t *t)
{
    struct sweep_cli *c = t->data;
    size_t s, v;
    if (!sweeprun_current(c->run, &s, &v))
        return;
    const struct sweep_result *r = sweeprun_result(c->run);
    int width = 30, filled = (int)(sweeprun_progress(c->run) * width + 0.5);
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[width] = '\0';
    /* The line is redrawn with iolab's own \r and erase; what it names is the pack's, escaped. */
    fprintf(stderr, "\r\033[Ksweep [%s] %zu/%zu  ", bar, r->done + 1, r->nmodes * r->nvalues);
    termsafe_fprintf(stderr, "%s=%s  %s", r->sw->param, r->sw->text[v],
                     r->mode_ids[s][0] ? r->mode_ids[s] : "");
}

static void cmd_sweep_on_point(void *data, const struct sweep_result *r, size_t s, size_t v)
{
    struct sweep_cli *c = data;
    if (!c->log)
        return;
    const struct sweep_point *p = &r->points[s][v];
    fprintf(stderr, "sweep: point %zu of %zu done: ", r->done, r->nmodes * r->nvalues);
    termsafe_fprintf(stderr, "%s=%s%s%s: %s\n", r->sw->param, r->sw->text[v],
                     r->mode_ids[s][0] ? " " : "", r->mode_ids[s],
                     p->measured ? "measured" : "not measured");
}

int cmd_sweep_run(const struct sweep_cli_opts *o, struct sweep_result *res)
{
    bool tty = isatty(STDERR_FILENO);
    struct sweep_cli c = {.res = res, .progress = o->progress && tty, .log = o->progress && !tty};
    struct headless_options ho = {
        .data = &c, .on_signal = cmd_sweep_on_signal, .what = "after the sweep"};
    if (headless_init(&c.h, &ho) < 0)
        return 1;
    struct sweeprun_options so = {
        .seconds = o->seconds,
        .modes = o->modes,
        .nmodes = o->nmodes,
        .tick_hz = 10,
        .tier = o->tier,
    };
    struct sweeprun_callbacks cb = {
        .data = &c, .on_point = cmd_sweep_on_point, .on_done = cmd_sweep_on_done};
    if (sweeprun_create(&c.run, &c.h.loop, o->sc, &so, &cb) < 0) {
        headless_abandon(&c.h);
        return 1;
    }
    uv_timer_init(&c.h.loop, &c.tick);
    c.tick.data = &c;
    if (c.progress)
        uv_timer_start(&c.tick, cmd_sweep_on_tick, 200, 200);
    if (sweeprun_start(c.run) < 0)
        cmd_sweep_close(&c);
    return headless_run(&c.h);
}

void cmd_sweep_wrap(const struct lesson_scenario *sc, enum figure_id fig, struct cmd_sweep_wrap *w)
{
    memset(w, 0, sizeof *w);
    w->sc = *sc;
    w->sc.sweep = &w->sw;
    /* A parameter no argument uses: the one point runs the step as it is. */
    w->sw.param = (char *)"iolab_bench_point";
    w->sw.nvalues = 1;
    w->sw.text[0] = (char *)"-";
    w->sw.x[0] = 1;
    w->sw.figure = fig;
    w->sw.role = w->sc.study >= 0 ? (int)w->sc.programs[w->sc.study].role : LESSON_ROLE_SERVER;
    w->sw.seconds = w->sc.seconds > 0 ? w->sc.seconds : 5;
    if (w->sc.nmodes)
        for (size_t m = 0; m < w->sc.nmodes && w->sw.nmodes < SWEEP_MAX_MODES; m++)
            w->sw.modes[w->sw.nmodes++] = (int)m;
    else
        w->sw.modes[w->sw.nmodes++] = -1;
}
