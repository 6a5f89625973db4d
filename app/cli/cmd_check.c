/*
 * iolab check LESSON/STEP [--pack DIR|ID] [--dir DIR] [--seconds N] [--json]
 * iolab check --pack DIR --solutions [--json]
 * iolab check --pack DIR [--json]
 *
 * An exercise, headless: the learner's files (their workspace, or DIR) are built in the sandbox
 * and run in the exercise's scenario against the reference programs, and every check is judged
 * by the same grader as the TUI's. Exit 0 when every check holds, 1 when one does not, 2 when
 * nothing could be judged (a build error, a bad command line).
 *
 * --solutions is for authors (as rustlings' dev check): every exercise's solution must pass, and
 * its generated starter must build and fail at least one check.
 *
 * --pack DIR alone is for authors too: every mode of every run step is started for a moment
 * (check_starts), and a program that does not start, never prints its ready text or dies at
 * once is reported in one sentence.
 *
 * This file is the command: its options, then one of three routines. The attempt runner is
 * attempt.c (build the reference, build the learner's, run the scenario in mode "yours" for N
 * seconds while the grader watches, stop), its reports attempt_report.c and junit.c, its
 * progress record attempt_record.c; --solutions is solutions.c, the start checks packstart.c.
 */
#include "attempt.h"
#include "attempt_record.h"
#include "attempt_report.h"
#include "cmd.h"
#include "cmdopt.h"
#include "junit.h"
#include "packstart.h"
#include "solutions.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cmd_check_usage(FILE *out)
{
    fputs("usage: iolab check LESSON/STEP [--pack DIR|ID] [--dir DIR] [--seconds N] [--json]\n"
          "                   [--junit FILE] [--audit]\n"
          "       iolab check --pack DIR|ID --solutions [--json] [--junit FILE]\n"
          "       iolab check --pack DIR|ID [--json]\n\n"
          "Builds an exercise's program from your workspace (or DIR) in the sandbox, runs it\n"
          "against the reference programs and judges every check, as the TUI does. Exit 0: every\n"
          "check holds; 1: one does not; 2: nothing could be judged (a build error).\n"
          "--solutions (for authors): every solution passes, every starter builds and fails.\n"
          "--pack DIR alone (for authors): every mode of every run step starts briefly; a\n"
          "program that does not start or never prints its ready text is one line each, exit 1.\n"
          "--junit FILE also writes the verdicts as JUnit XML for a CI (GitLab, Jenkins, GitHub):\n"
          "one test case per check, the build as one more; the score as a property.\n"
          "--audit (implied by --junit) runs your program a second time with the calls the\n"
          "checks count counted by the kernel (seccomp and ptrace), not by your program: a pass\n"
          "needs both runs.\n"
          "--pack names a pack by its directory or by its id (an installed pack's, under\n"
          "$XDG_DATA_HOME/iolab/packs/); without it, a lesson the built-in pack lacks is\n"
          "looked up in the installed packs.\n",
          out);
}

static int cmd_check_exec(int argc, char **argv)
{
    const char *spec = NULL, *pack_dir = NULL, *dir = NULL, *junit = NULL;
    bool json = false, solutions = false, audit = false;
    double seconds = 0;
    const struct cmdopt table[] = {
        {.name = "pack", .kind = CMDOPT_TEXT, .to.text = &pack_dir, .arg = "DIR"},
        {.name = "dir", .kind = CMDOPT_TEXT, .to.text = &dir, .arg = "DIR"},
        {.name = "seconds",
         .kind = CMDOPT_NUMBER,
         .to.number = &seconds,
         .min = 0,
         .max = 3600,
         .arg = "N",
         .what = "a number of seconds"},
        {.name = "json", .kind = CMDOPT_FLAG, .to.flag = &json},
        {.name = "junit", .kind = CMDOPT_TEXT, .to.text = &junit, .arg = "FILE"},
        {.name = "audit", .kind = CMDOPT_FLAG, .to.flag = &audit},
        {.name = "solutions", .kind = CMDOPT_FLAG, .to.flag = &solutions},
        {0},
    };
    const char *words[1];
    struct cmdopt_words args = {.v = words, .max = 1};
    const struct cmdopt_cmd cmd = {.name = "check",
                                   .words = "LESSON/STEP",
                                   .word = &args,
                                   .opts = table,
                                   .usage = cmd_check_usage};
    int parsed = cmdopt_parse(&cmd, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    spec = args.n ? words[0] : NULL;
    bool starts = !spec && !solutions && pack_dir; /* iolab check --pack DIR */
    if (junit && starts) {
        cmd_error("--junit reports an exercise's checks (LESSON/STEP) or the solutions "
                  "(--solutions); the starts of run steps have none.");
        return 2;
    }
    if (!spec && !solutions && !starts) {
        cmd_error("check needs an exercise (`iolab check LESSON/STEP`), --solutions, or a pack "
                  "whose run steps to start (`iolab check --pack DIR`).");
        return 2;
    }
    struct lesson_pack *pack = cmd_load_pack_for(pack_dir, spec);
    if (!pack)
        return 2;
    signal(SIGPIPE, SIG_IGN);
    int status;
    if (starts) {
        status = packstart_run(pack, json);
        lesson_pack_free(pack);
        return status;
    }
    if (solutions) {
        status = solutions_run(pack, json, seconds, junit);
        lesson_pack_free(pack);
        return status;
    }
    const struct lesson *l = NULL;
    const struct lesson_step *st = NULL;
    char why[256];
    const struct lesson_exercise *ex = NULL;
    if (lesson_resolve(pack, spec, &l, &st, why, sizeof why) < 0 ||
        !(ex = lesson_step_exercise(st))) {
        cmd_error("%s",
                  l && st ? "that step is not an exercise; `iolab list` shows the steps." : why);
        lesson_pack_free(pack);
        return 2;
    }
    /* A graded run (CI's --junit) is audited: its call counts are the kernel's. */
    struct attempt a = {.lesson = l, .step = st, .ex = ex, .audit = audit || junit};
    a.seconds = seconds > 0 ? seconds : ex->sc->seconds > 0 ? ex->sc->seconds : 3;
    attempt_paths(&a);
    if (dir) {
        if (!realpath(dir, a.dir)) {
            cmd_error("cannot open %s: %s.", dir, strerror(errno));
            lesson_pack_free(pack);
            return 2;
        }
    } else if (exercise_workspace(pack->id, l->id, st->id, a.dir, sizeof a.dir) < 0 ||
               exercise_prepare(ex, a.dir, why, sizeof why) < 0) {
        cmd_error("cannot prepare your workspace: %s.", why);
        lesson_pack_free(pack);
        return 2;
    }
    bool starter = attempt_is_starter(&a);
    attempt_run(&a);
    if (a.stopped) { /* a signal: nothing judged, nothing recorded, nothing printed */
        status = a.stopped;
        attempt_free(&a);
        lesson_pack_free(pack);
        return status;
    }
    attempt_record(pack, &a, starter);
    if (json) {
        struct json_out j;
        json_init(&j, stdout);
        attempt_report_json(&a, &j);
        fputc('\n', stdout);
    } else {
        attempt_report_text(&a);
    }
    status = (int)attempt_verdict(&a);
    if (junit && junit_single(junit, &a) < 0)
        status = 2;
    attempt_free(&a);
    lesson_pack_free(pack);
    return status;
}

const struct cmd_entry cmd_check_entry = {
    .name = "check",
    .usage = "LESSON/STEP [--dir DIR] [--json] [--junit FILE] | --pack DIR [--solutions]",
    .summary = "build and check an exercise headless, as the TUI does",
    .exec = cmd_check_exec,
};
