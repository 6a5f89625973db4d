/*
 * iolab bench LESSON/STEP [--pack DIR] [--mode a,b,...] [--repeat N] [--seconds S]
 *                         [--json|--csv] [--tier T]
 *
 * Model: a round runs every point once (a step without a sweep is one point), each point in
 * every mode one after the other, so a machine that drifts moves all modes of a round together.
 * N rounds give each mode N figures per point: their median, minimum and maximum, and the ratio
 * to the first mode as the median of the per-round ratios (benchmath.h). The step's headline
 * (what its seed reported, lesson/sweep.h) is printed beside this machine's ratio, with its
 * `why` when the two differ by more than a fifth. The JSON is what tests/bench/readme-table.sh
 * turns into the README's table of lesson results.
 *
 * Exit: 0; 1 when a point could not be measured in any round or the pack is bad; 2 for a bad
 * command line; 128+signal when interrupted (nothing printed).
 */
#include "cmd.h"
#include "cmdopt.h"
#include "cmd_run_args.h"
#include "cmd_sweep.h"
#include "engine/benchmath.h"
#include "engine/sweepio.h"
#include "json.h"
#include "lesson/lesson.h"
#include "termsafe.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define BENCH_MAX_ROUNDS 64
#define BENCH_DIFFERS    BENCHMATH_HEADLINE_DIFFERS /* the sentence's, so JSON and text agree */

struct bench_args {
    const char *spec, *pack_dir, *modes;
    int repeat;
    double seconds;
    bool json, csv;
    enum iolab_tier tier;
};

struct bench {
    const struct lesson *lesson;
    const struct lesson_step *step;
    const struct lesson_scenario *sc;
    const struct lesson_sweep *sw;
    const struct lesson_headline *hl;
    bool plain; /* the step has no sweep of its own */
    struct cmd_sweep_wrap wrap;
    int modes[SWEEP_MAX_MODES];
    size_t nmodes;
    int rounds;
    double fig[BENCH_MAX_ROUNDS][SWEEP_MAX_MODES][SWEEP_MAX_VALUES]; /* NaN: not measured */
    struct benchmath_summary sum[SWEEP_MAX_MODES][SWEEP_MAX_VALUES];
    double ratio[SWEEP_MAX_MODES][SWEEP_MAX_VALUES];
    char tier[16];
    double seconds, took_s;
};

static void cmd_bench_usage(FILE *out)
{
    fputs("usage: iolab bench LESSON/STEP [--pack DIR] [--mode M[,M...]] [--repeat N]\n"
          "                   [--seconds S] [--json|--csv] [--tier full|reduced|minimal]\n\n"
          "Measures a step N times (default 3), S seconds per mode and per point of its sweep,\n"
          "the modes alternating in every round, and prints per mode the median figure with its\n"
          "minimum and maximum, and its ratio to the first mode (the median of the per-round\n"
          "ratios). The step's seed headline is printed beside this machine's ratio.\n",
          out);
}

static int cmd_bench_parse_args(int argc, char **argv, struct bench_args *o)
{
    *o = (struct bench_args){.repeat = 3, .tier = IOLAB_TIER_AUTO};
    const struct cmdopt table[] = {
        {.name = "pack", .kind = CMDOPT_TEXT, .to.text = &o->pack_dir, .arg = "DIR"},
        {.name = "mode", .kind = CMDOPT_TEXT, .to.text = &o->modes, .arg = "M"},
        {.name = "repeat",
         .kind = CMDOPT_COUNT,
         .to.count = &o->repeat,
         .min = 1,
         .max = BENCH_MAX_ROUNDS,
         .arg = "N"},
        {.name = "seconds",
         .kind = CMDOPT_NUMBER,
         .to.number = &o->seconds,
         .min = 0.2,
         .max = 3600,
         .arg = "S",
         .what = "a number of seconds"},
        {.name = "json", .kind = CMDOPT_FLAG, .to.flag = &o->json},
        {.name = "csv", .kind = CMDOPT_FLAG, .to.flag = &o->csv},
        {.name = "tier", .kind = CMDOPT_TIER, .to.tier = &o->tier, .arg = "T"},
        {0},
    };
    const char *words[1];
    struct cmdopt_words args = {.v = words, .max = 1};
    const struct cmdopt_cmd cmd = {.name = "bench",
                                   .words = "LESSON/STEP",
                                   .word = &args,
                                   .opts = table,
                                   .usage = cmd_bench_usage};
    int parsed = cmdopt_parse(&cmd, argc, argv);
    if (parsed)
        return parsed;
    o->spec = args.n ? words[0] : NULL;
    if (o->json && o->csv) {
        cmd_error("--json and --csv each choose the output; give one of them.");
        return 2;
    }
    if (!o->spec) {
        cmd_error("bench needs a step: `iolab bench LESSON/STEP`; `iolab list` shows them.");
        return 2;
    }
    return 0;
}

static int cmd_bench_resolve(struct bench *b, const struct lesson_pack *pack,
                             const struct bench_args *o)
{
    /* The step is found, and refused, as `iolab run` finds it (cmd_run_args.h). */
    struct run_target t = {0};
    if (cmd_run_args_resolve(&t, pack, o->spec) < 0)
        return -1;
    b->lesson = t.lesson;
    b->step = t.step;
    b->sc = t.sc;
    b->hl = b->sc->headline;
    if (!b->sc->sweep) {
        b->plain = true;
        cmd_sweep_wrap(b->sc, b->hl ? b->hl->figure : FIGURE_REQUESTS_PER_S, &b->wrap);
        b->sc = &b->wrap.sc;
    }
    b->sw = b->sc->sweep;
    if (!o->modes) {
        b->nmodes = b->sw->nmodes;
        memcpy(b->modes, b->sw->modes, sizeof b->modes);
        return 0;
    }
    char step[300];
    snprintf(step, sizeof step, "%s/%s", b->lesson->id, b->step->id);
    return cmd_run_args_modes_list(b->sc, step, o->modes, b->modes, SWEEP_MAX_MODES, &b->nmodes) < 0
               ? -1
               : 0;
}

/* Runs the rounds; 0, or the status to end with. */
static int cmd_bench_measure(struct bench *b, const struct bench_args *o)
{
    struct sweep_result *res = calloc(1, sizeof *res);
    if (!res)
        return 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < o->repeat; r++) {
        struct sweep_cli_opts so = {
            .sc = b->sc,
            .seconds = o->seconds,
            .modes = b->modes,
            .nmodes = b->nmodes,
            .tier = o->tier,
            .progress = true,
        };
        if (isatty(STDERR_FILENO))
            fprintf(stderr, "\rround %d of %d\n", r + 1, o->repeat);
        int status = cmd_sweep_run(&so, res);
        if (status) {
            free(res);
            return status;
        }
        for (size_t m = 0; m < b->nmodes; m++)
            for (size_t v = 0; v < b->sw->nvalues; v++) {
                const struct sweep_point *p = &res->points[m][v];
                b->fig[r][m][v] = p->measured && p->has_figure ? p->figure : NAN;
            }
        snprintf(b->tier, sizeof b->tier, "%s", res->tier);
        b->seconds = res->seconds;
        b->rounds = r + 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    b->took_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    free(res);
    for (size_t m = 0; m < b->nmodes; m++)
        for (size_t v = 0; v < b->sw->nvalues; v++) {
            double a[BENCH_MAX_ROUNDS], base[BENCH_MAX_ROUNDS];
            for (int r = 0; r < b->rounds; r++) {
                a[r] = b->fig[r][m][v];
                base[r] = b->fig[r][0][v];
            }
            benchmath_summarize(a, (size_t)b->rounds, &b->sum[m][v]);
            b->ratio[m][v] = benchmath_ratio(a, base, (size_t)b->rounds);
        }
    return 0;
}

/* The headline's mode / base on this machine: at its value, or the median over the values. */
static double cmd_bench_headline_here(const struct bench *b)
{
    const struct lesson_headline *h = b->hl;
    size_t mi = SIZE_MAX, bi = SIZE_MAX;
    for (size_t m = 0; m < b->nmodes; m++) {
        if (b->modes[m] == h->mode)
            mi = m;
        if (b->modes[m] == h->base)
            bi = m;
    }
    if (mi == SIZE_MAX || bi == SIZE_MAX)
        return NAN;
    double a[SWEEP_MAX_VALUES * BENCH_MAX_ROUNDS], base[SWEEP_MAX_VALUES * BENCH_MAX_ROUNDS];
    size_t nr = (size_t)b->rounds;
    for (size_t v = 0; v < b->sw->nvalues; v++)
        for (size_t k = 0; k < nr; k++) {
            a[v * nr + k] = b->fig[k][mi][v];
            base[v * nr + k] = b->fig[k][bi][v];
        }
    return benchmath_headline_ratio(a, base, b->sw->nvalues, nr, h->at);
}

/* "seed 000: sendfile 1.94x faster than read+send; here 1.2x (why)". */
static void cmd_bench_headline_sentence(const struct bench *b, double here, char *buf, size_t len)
{
    const struct lesson_headline *h = b->hl;
    benchmath_headline_sentence(h, b->sc->modes[h->mode].id, b->sc->modes[h->base].id, here, buf,
                                len);
}

static void cmd_bench_machine(char *host, size_t hlen, char *kernel, size_t klen)
{
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(host, hlen, "%s %s", u.nodename, u.machine);
        snprintf(kernel, klen, "%s %s", u.sysname, u.release);
    } else {
        snprintf(host, hlen, "unknown");
        snprintf(kernel, klen, "unknown");
    }
}

static const char *cmd_bench_mode(const struct bench *b, size_t m)
{
    return b->modes[m] >= 0 ? b->sc->modes[b->modes[m]].id : "run";
}

static void cmd_bench_print_json(const struct bench *b)
{
    char host[160], kernel[160];
    cmd_bench_machine(host, sizeof host, kernel, sizeof kernel);
    struct json_out j;
    json_init(&j, stdout);
    json_object(&j, NULL);
    json_string(&j, "lesson", b->lesson->id);
    json_string(&j, "step", b->step->id);
    json_string(&j, "machine", host);
    json_string(&j, "kernel", kernel);
    json_int(&j, "cpus", sysconf(_SC_NPROCESSORS_ONLN));
    json_string(&j, "tier", b->tier);
    json_int(&j, "repeat", b->rounds);
    json_double(&j, "seconds", b->seconds, 2);
    json_double(&j, "duration_s", b->took_s, 1);
    json_string(&j, "figure", figure_at(b->sw->figure)->name);
    json_string(&j, "unit", figure_at(b->sw->figure)->unit);
    json_string(&j, "param", b->plain ? NULL : b->sw->param);
    json_array(&j, "values");
    for (size_t v = 0; !b->plain && v < b->sw->nvalues; v++)
        json_string(&j, NULL, b->sw->text[v]);
    json_end(&j);
    json_array(&j, "modes");
    for (size_t m = 0; m < b->nmodes; m++) {
        json_object(&j, NULL);
        json_string(&j, "mode", cmd_bench_mode(b, m));
        json_array(&j, "points");
        for (size_t v = 0; v < b->sw->nvalues; v++) {
            const struct benchmath_summary *s = &b->sum[m][v];
            json_object(&j, NULL);
            json_string(&j, "value", b->plain ? NULL : b->sw->text[v]);
            json_u64(&j, "n", s->n);
            json_double(&j, "median", s->median, 4);
            json_double(&j, "min", s->min, 4);
            json_double(&j, "max", s->max, 4);
            json_double(&j, "ratio", b->ratio[m][v], 4);
            json_array(&j, "rounds");
            for (int r = 0; r < b->rounds; r++)
                json_double(&j, NULL, b->fig[r][m][v], 4);
            json_end(&j);
            json_end(&j);
        }
        json_end(&j);
        json_end(&j);
    }
    json_end(&j);
    if (b->hl) {
        double here = cmd_bench_headline_here(b);
        char sentence[768];
        cmd_bench_headline_sentence(b, here, sentence, sizeof sentence);
        json_object(&j, "headline");
        json_string(&j, "seed", b->hl->seed);
        json_string(&j, "text", b->hl->text);
        json_string(&j, "mode", b->sc->modes[b->hl->mode].id);
        json_string(&j, "base", b->sc->modes[b->hl->base].id);
        json_string(&j, "at", b->hl->at >= 0 ? b->sw->text[b->hl->at] : NULL);
        json_double(&j, "seed_ratio", b->hl->ratio, 4);
        json_double(&j, "here_ratio", here, 4);
        json_bool(&j, "differs", benchmath_differs(here, b->hl->ratio, BENCH_DIFFERS));
        json_string(&j, "sentence", sentence);
        json_end(&j);
    } else {
        json_null(&j, "headline");
    }
    json_end(&j);
    fputc('\n', stdout);
}

static void cmd_bench_print_csv(const struct bench *b)
{
    printf("mode,value,n,median,min,max,ratio\n");
    for (size_t m = 0; m < b->nmodes; m++)
        for (size_t v = 0; v < b->sw->nvalues; v++) {
            const struct benchmath_summary *s = &b->sum[m][v];
            /* The mode and the value are the pack's: quoted and escaped as sweepio's CSV. */
            sweepio_csv_field(stdout, cmd_bench_mode(b, m));
            fputc(',', stdout);
            sweepio_csv_field(stdout, b->plain ? "" : b->sw->text[v]);
            printf(",%zu,%.6g,%.6g,%.6g,%.6g\n", s->n, s->median, s->min, s->max, b->ratio[m][v]);
        }
}

/* Ids, values and the headline's sentence are the pack's text: every line is printed escaped. */
static void cmd_bench_print_text(const struct bench *b)
{
    char host[160], kernel[160];
    cmd_bench_machine(host, sizeof host, kernel, sizeof kernel);
    termsafe_fprintf(
        stdout,
        "%s/%s on %s (%ld CPUs), %s, sandbox %s: %d round%s, %.3g s per mode%s, took %.1f s\n",
        b->lesson->id, b->step->id, host, sysconf(_SC_NPROCESSORS_ONLN), kernel, b->tier, b->rounds,
        b->rounds == 1 ? "" : "s", b->seconds, b->plain ? "" : " and point", b->took_s);
    termsafe_fprintf(
        stdout,
        "figure: %s (%s); ratio: each mode's figure over %s's, the median of the rounds' "
        "ratios\n\n",
        figure_at(b->sw->figure)->name, figure_at(b->sw->figure)->unit, cmd_bench_mode(b, 0));
    for (size_t v = 0; v < b->sw->nvalues; v++) {
        if (!b->plain)
            termsafe_fprintf(stdout, "%s = %s\n", b->sw->param, b->sw->text[v]);
        for (size_t m = 0; m < b->nmodes; m++) {
            const struct benchmath_summary *s = &b->sum[m][v];
            char med[32], lo[32], hi[32];
            enum figure_id f = b->sw->figure;
            termsafe_fprintf(stdout, "  %-18s median %-12s min %-12s max %-12s ratio %.3gx%s\n",
                             cmd_bench_mode(b, m),
                             sweepio_figure_text(f, s->median, med, sizeof med),
                             sweepio_figure_text(f, s->min, lo, sizeof lo),
                             sweepio_figure_text(f, s->max, hi, sizeof hi), b->ratio[m][v],
                             s->n < (size_t)b->rounds ? "  (some rounds measured nothing)" : "");
        }
    }
    if (b->hl) {
        char sentence[768];
        cmd_bench_headline_sentence(b, cmd_bench_headline_here(b), sentence, sizeof sentence);
        termsafe_fprintf(stdout, "\n%s\n", sentence);
    }
}

static int cmd_bench_exec(int argc, char **argv)
{
    struct bench_args o;
    int status = cmd_bench_parse_args(argc, argv, &o);
    if (status)
        return status < 0 ? 0 : status;
    struct lesson_pack *pack = cmd_load_pack_for(o.pack_dir, o.spec);
    if (!pack)
        return 1;
    struct bench *b = calloc(1, sizeof *b);
    status = 2;
    if (!b) {
        cmd_error("out of memory.");
        status = 1;
    } else if (cmd_bench_resolve(b, pack, &o) == 0) {
        status = cmd_bench_measure(b, &o);
        if (status == 0) {
            if (o.json)
                cmd_bench_print_json(b);
            else if (o.csv)
                cmd_bench_print_csv(b);
            else
                cmd_bench_print_text(b);
            fflush(stdout);
            for (size_t m = 0; m < b->nmodes; m++)
                for (size_t v = 0; v < b->sw->nvalues; v++)
                    if (!b->sum[m][v].n && status == 0) {
                        cmd_error("%s%s%s was not measured in any round; `iolab run %s/%s "
                                  "--mode %s` says why.",
                                  cmd_bench_mode(b, m), b->plain ? "" : " at ",
                                  b->plain ? "" : b->sw->text[v], b->lesson->id, b->step->id,
                                  cmd_bench_mode(b, m));
                        status = 1;
                    }
        }
    }
    free(b);
    lesson_pack_free(pack);
    return status;
}

const struct cmd_entry cmd_bench_entry = {
    .name = "bench",
    .usage = "LESSON/STEP [--mode M] [--repeat N] [--seconds S] [--json|--csv]",
    .summary = "measure a step's modes N times, alternating them: medians, ranges, ratios",
    .exec = cmd_bench_exec,
};
