/*
 * iolab starter LESSON/STEP [--pack DIR] --out DIR: writes an exercise's starter, exactly the
 * files a learner's workspace begins with (exercise_prepare, the function that makes the
 * workspace), so that a pack's author can read it and diff it against the solution. DIR must not
 * exist or be empty: nothing is ever written over.
 */
#include "cmd.h"
#include "cmdopt.h"
#include "exercise.h"
#include "lesson/lesson.h"
#include "termsafe.h"

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static void cmd_starter_usage(FILE *out)
{
    fputs("usage: iolab starter LESSON/STEP [--pack DIR] --out DIR\n\n"
          "Writes the exercise's starter into DIR (which must not exist, or be empty): the files\n"
          "a learner's workspace begins with, generated from the solution's TODO, REPLACE and\n"
          "REMOVE markers. Diff it against the solution to see what the learner writes.\n",
          out);
}

/* DIR can take the starter: it does not exist (it is made) or it is an empty directory. */
static int cmd_starter_out_ready(const char *dir)
{
    if (mkdir(dir, 0755) == 0)
        return 0;
    if (errno != EEXIST) {
        cmd_error("cannot make %s: %s.", dir, strerror(errno));
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        cmd_error("cannot open %s: %s.", dir, strerror(errno));
        return -1;
    }
    bool empty = true;
    for (struct dirent *e; empty && (e = readdir(d));)
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    if (!empty) {
        cmd_error("%s is not empty; give a new or empty directory, the starter never writes "
                  "over files.",
                  dir);
        return -1;
    }
    return 0;
}

static int cmd_starter_exec(int argc, char **argv)
{
    const char *spec = NULL, *pack_dir = NULL, *out = NULL;
    const struct cmdopt table[] = {
        {.name = "pack", .kind = CMDOPT_TEXT, .to.text = &pack_dir, .arg = "DIR"},
        {.name = "out", .kind = CMDOPT_TEXT, .to.text = &out, .arg = "DIR"},
        {0},
    };
    const char *words[1];
    struct cmdopt_words args = {.v = words, .max = 1};
    const struct cmdopt_cmd cmd = {.name = "starter",
                                   .words = "LESSON/STEP",
                                   .word = &args,
                                   .opts = table,
                                   .usage = cmd_starter_usage};
    int parsed = cmdopt_parse(&cmd, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    spec = args.n ? words[0] : NULL;
    if (!spec || !out) {
        cmd_error("starter needs an exercise and a directory: `iolab starter LESSON/STEP --out "
                  "DIR`.");
        return 2;
    }
    struct lesson_pack *pack = cmd_load_pack_for(pack_dir, spec);
    if (!pack)
        return 2;
    const struct lesson *l = NULL;
    const struct lesson_step *st = NULL;
    const struct lesson_exercise *ex = NULL;
    char why[256] = "";
    int status = 0;
    if (lesson_resolve(pack, spec, &l, &st, why, sizeof why) < 0 ||
        !(ex = lesson_step_exercise(st))) {
        cmd_error("%s",
                  l && st ? "that step is not an exercise; `iolab list` shows the steps." : why);
        status = 2;
    } else if (cmd_starter_out_ready(out) < 0) {
        status = 2;
    } else if (exercise_prepare(ex, out, why, sizeof why) < 0) {
        cmd_error("cannot write the starter into %s: %s.", out, why);
        status = 1;
    } else {
        for (size_t i = 0; i < ex->nfiles; i++)
            termsafe_fprintf(stdout, "%s/%s\n", out, ex->files[i]);
    }
    lesson_pack_free(pack);
    return status;
}

const struct cmd_entry cmd_starter_entry = {
    .name = "starter",
    .usage = "LESSON/STEP [--pack DIR] --out DIR",
    .summary = "write an exercise's starter, as a learner gets it, for its author to read",
    .exec = cmd_starter_exec,
};
