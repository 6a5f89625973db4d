/*
 * cmd_run_args: `iolab run`'s command line (cmd_run.c runs it, run_report.c prints it): the
 * options, the step they name and its modes, each refused with one sentence that names the
 * valid choices. Private to cmd_run.c and its report.
 */
#ifndef IOLAB_CMD_RUN_ARGS_H
#define IOLAB_CMD_RUN_ARGS_H

#include "engine/jail.h"
#include "lesson/lesson.h"

#include <stdbool.h>
#include <stdio.h>

#define RUN_MAX_MODES 16

/* What the command line asked for. */
struct run_args {
    const char *spec, *pack_dir, *modes;
    double seconds; /* 0: the step's own */
    bool json, csv;
    enum iolab_tier tier;
};

/* The step a run names and the modes it runs, in order (-1: the step has none). */
struct run_target {
    const struct lesson *lesson;
    const struct lesson_step *step;
    const struct lesson_scenario *sc; /* the step's */
    int modes[RUN_MAX_MODES];
    size_t nmodes;
};

void cmd_run_args_usage(FILE *out);
/* Parses the command line: 0 to go on, or the exit status to end with (help printed: 0 as -1). */
int cmd_run_args_parse(int argc, char **argv, struct run_args *o);
/* Finds LESSON[/STEP] with a sentence naming the valid choices when it fails. */
int cmd_run_args_resolve(struct run_target *r, const struct lesson_pack *pack, const char *spec);
/* The modes of --mode (NULL: the step's default); a sentence and -EINVAL when one is wrong. */
int cmd_run_args_parse_modes(struct run_target *r, const char *arg);
/* The modes of sc named in arg ("a,b"), at most max, into modes and *n; step names the step in
   the sentence. Shared by run and bench: a sentence and -EINVAL when one is wrong. */
int cmd_run_args_modes_list(const struct lesson_scenario *sc, const char *step, const char *arg,
                            int *modes, size_t max, size_t *n);

#endif
