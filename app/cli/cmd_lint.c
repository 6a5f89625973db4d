/*
 * iolab lint DIR: loads a pack exactly as `iolab --pack DIR` would and prints every problem as
 * `file:line:col: message`, so an instructor (or an editor's quickfix list) can walk them.
 * The messages and the compiler's output quote the pack: they are printed escaped (termsafe.h).
 * Exit status: 0 clean, 1 problems found, 2 bad command line.
 */
#include "cmd.h"
#include "cmdopt.h"
#include "lesson/lesson.h"
#include "packprog.h"
#include "paths.h"
#include "termsafe.h"

#include <errno.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

static void cmd_lint_usage(FILE *out)
{
    fputs("usage: iolab lint DIR\n\n"
          "Checks the lesson pack in DIR (pack.json and one JSON file per lesson): syntax, keys,\n"
          "types, ids, programs, placeholders, sizes and checks; the programs the pack builds\n"
          "from its own C sources (pack.json \"build\") must build. Prints every problem as\n"
          "file:line:col: message and exits 1 when there is any, 0 when the pack is clean.\n",
          out);
}

static int cmd_lint_exec(int argc, char **argv)
{
    const char *dir = NULL;
    const struct cmdopt table[] = {{0}};
    const char *words[1];
    struct cmdopt_words args = {.v = words, .max = 1};
    const struct cmdopt_cmd cmd = {
        .name = "lint", .words = "DIR", .word = &args, .opts = table, .usage = cmd_lint_usage};
    int parsed = cmdopt_parse(&cmd, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    dir = args.n ? words[0] : NULL;
    if (!dir) {
        cmd_error("lint needs a pack directory: iolab lint DIR.");
        return 2;
    }
    char libexec[PATH_MAX];
    struct lesson_load_options opts = {.libexec_dir = NULL};
    if (paths_get(PATHS_LIBEXEC, libexec, sizeof libexec) == 0)
        opts.libexec_dir = libexec;
    struct lesson_pack *pack = NULL;
    struct lesson_diags diags = {0};
    int rc = lesson_pack_load(dir, &opts, &pack, &diags);
    /* A program the pack builds must build: the compiler's messages, then the verdict. */
    if (rc == 0 && cmd_build_pack(pack, stdout, &diags) < 0) {
        lesson_pack_free(pack);
        pack = NULL;
        rc = -EINVAL;
    }
    lesson_diags_print(stdout, &diags);
    if (rc < 0) {
        termsafe_fprintf(stdout, "%s: %zu problem%s\n", dir, diags.n, diags.n == 1 ? "" : "s");
        lesson_diags_free(&diags);
        return 1;
    }
    size_t steps = 0;
    for (size_t i = 0; i < pack->nlessons; i++)
        steps += pack->lessons[i].nsteps;
    termsafe_fprintf(stdout, "%s: pack %s, %zu lesson%s, %zu step%s: no problems\n", dir, pack->id,
                     pack->nlessons, pack->nlessons == 1 ? "" : "s", steps, steps == 1 ? "" : "s");
    lesson_pack_free(pack);
    lesson_diags_free(&diags);
    return 0;
}

const struct cmd_entry cmd_lint_entry = {
    .name = "lint",
    .usage = "DIR",
    .summary = "check a lesson pack and report every problem",
    .exec = cmd_lint_exec,
};
