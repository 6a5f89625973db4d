/*
 * cmd_run_args: see cmd_run_args.h.
 */
#include "cmd_run_args.h"

#include "cmd.h"
#include "cmdopt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cmd_run_args_usage(FILE *out)
{
    fputs("usage: iolab run LESSON[/STEP] [--pack DIR|ID] [--mode M[,M...]] [--seconds N]\n"
          "                 [--json] [--csv] [--tier full|reduced|minimal]\n\n"
          "Runs a step's scenario without the TUI for N seconds (default: the step's own), then\n"
          "stops it and prints what it cost: calls by name, CPU, context switches, kernel I/O\n"
          "counts, throughput and latency. Several modes separated by commas run one after the\n"
          "other, N seconds each, with the load kept running across the switches.\n"
          "Exit status 3: the scenario ran, but some calls could not be counted (counts_lost).\n"
          "A step with a sweep runs every point instead (N seconds each, default the sweep's)\n"
          "and prints the table of its figure, or every point with --json or --csv.\n"
          "--pack names a pack by its directory or by its id (an installed pack's, under\n"
          "$XDG_DATA_HOME/iolab/packs/); without it, a lesson the built-in pack lacks is\n"
          "looked up in the installed packs.\n",
          out);

    fprintf(out,
            "\nEach program runs within the sandbox's limits: %d open files, %d processes and\n"
            "threads, %d MiB of address space per process, unless the step asks for others in\n"
            "\"limits\" (open_files, processes, address_space_mb), up to iolab's ceilings of\n"
            "%d, %d and %d MiB. A program that hits one says which, and the run is not clean.\n",
            LESSON_LIMIT_DEFAULT_OPEN_FILES, LESSON_LIMIT_DEFAULT_PROCESSES,
            LESSON_LIMIT_DEFAULT_ADDRESS_SPACE, LESSON_LIMIT_MAX_OPEN_FILES,
            LESSON_LIMIT_MAX_PROCESSES, LESSON_LIMIT_MAX_ADDRESS_SPACE);
}

/* "a, b, c" of the ids of a list, for one-sentence errors. */
static void cmd_run_args_join(char *buf, size_t len, size_t n,
                              const char *(*id)(const void *, size_t), const void *v)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", id(v, i));
        if (w < 0)
            break;
        used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
}

static const char *cmd_run_args_lesson_id(const void *v, size_t i)
{
    return ((const struct lesson_pack *)v)->lessons[i].id;
}

static const char *cmd_run_args_mode_id(const void *v, size_t i)
{
    return ((const struct lesson_scenario *)v)->modes[i].id;
}

int cmd_run_args_resolve(struct run_target *r, const struct lesson_pack *pack, const char *spec)
{
    char why[256], list[1024];
    if (lesson_resolve(pack, spec, &r->lesson, &r->step, why, sizeof why) == 0 &&
        (r->sc = lesson_step_scenario(r->step)) != NULL)
        return 0;
    char lid[128];
    snprintf(lid, sizeof lid, "%.*s", (int)strcspn(spec, "/"), spec);
    const struct lesson *l = lesson_find(pack, lid);
    if (!l) {
        cmd_run_args_join(list, sizeof list, pack->nlessons, cmd_run_args_lesson_id, pack);
        cmd_error("there is no lesson '%s'; the lessons are: %s.", lid, list);
        return -ENOENT;
    }
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < l->nsteps; i++)
        if (lesson_step_scenario(&l->steps[i]) && used + 1 < sizeof list) {
            int w = snprintf(list + used, sizeof list - used, "%s%s/%s", used ? ", " : "", lid,
                             l->steps[i].id);
            used += w > 0 && (size_t)w < sizeof list - used ? (size_t)w : 0;
        }
    cmd_error("'%s' is not a step that runs anything; the run steps of '%s' are: %s.", spec, lid,
              list[0] ? list : "(none)");
    return -ENOENT;
}

int cmd_run_args_modes_list(const struct lesson_scenario *sc, const char *step, const char *arg,
                            int *modes, size_t max, size_t *n)
{
    char list[1024];
    cmd_run_args_join(list, sizeof list, sc->nmodes, cmd_run_args_mode_id, sc);
    if (sc->nmodes == 0) {
        cmd_error("step %s has no modes to choose from; leave out --mode.", step);
        return -EINVAL;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    char *save = NULL;
    *n = 0;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int m = lesson_mode_find(sc, tok);
        if (m < 0) {
            cmd_error("'%s' is not a mode of %s; its modes are: %s.", tok, step, list);
            return -EINVAL;
        }
        if (*n == max) {
            cmd_error("at most %zu modes at once.", max);
            return -EINVAL;
        }
        modes[(*n)++] = m;
    }
    if (!*n) {
        cmd_error("--mode needs a mode; the modes of %s are: %s.", step, list);
        return -EINVAL;
    }
    return 0;
}

int cmd_run_args_parse_modes(struct run_target *r, const char *arg)
{
    const struct lesson_scenario *sc = r->sc;
    if (!arg) {
        r->modes[0] = sc->nmodes ? (int)sc->default_mode : -1;
        r->nmodes = 1;
        return 0;
    }
    char step[300];
    snprintf(step, sizeof step, "%s/%s", r->lesson->id, r->step->id);
    return cmd_run_args_modes_list(sc, step, arg, r->modes, RUN_MAX_MODES, &r->nmodes);
}

int cmd_run_args_parse(int argc, char **argv, struct run_args *o)
{
    *o = (struct run_args){.tier = IOLAB_TIER_AUTO};
    const struct cmdopt table[] = {
        {.name = "pack", .kind = CMDOPT_TEXT, .to.text = &o->pack_dir, .arg = "DIR"},
        {.name = "mode", .kind = CMDOPT_TEXT, .to.text = &o->modes, .arg = "M"},
        {.name = "seconds",
         .kind = CMDOPT_NUMBER,
         .to.number = &o->seconds,
         .min = 0,
         .max = 86400,
         .arg = "N",
         .what = "a number of seconds"},
        {.name = "json", .kind = CMDOPT_FLAG, .to.flag = &o->json},
        {.name = "csv", .kind = CMDOPT_FLAG, .to.flag = &o->csv},
        {.name = "tier", .kind = CMDOPT_TIER, .to.tier = &o->tier, .arg = "T"},
        {0},
    };
    const char *words[1];
    struct cmdopt_words args = {.v = words, .max = 1};
    const struct cmdopt_cmd cmd = {.name = "run",
                                   .words = "LESSON[/STEP]",
                                   .word = &args,
                                   .opts = table,
                                   .usage = cmd_run_args_usage};
    int parsed = cmdopt_parse(&cmd, argc, argv);
    if (parsed)
        return parsed;
    o->spec = args.n ? words[0] : NULL;
    if (o->json && o->csv) {
        cmd_error("--json and --csv each choose the output; give one of them.");
        return 2;
    }
    if (!o->spec) {
        cmd_error("run needs a lesson: `iolab run LESSON[/STEP]`; `iolab list` shows them.");
        return 2;
    }
    return 0;
}
