/*
 * iolab progress [--json] | --reset [LESSON] [--pack ID] [--yes]: shows or forgets what the
 * learner has done. Reading never changes the file, except that a damaged one is moved aside
 * (and reported here on stderr). A reset asks first on a terminal; without one it needs --yes,
 * so a script cannot wipe progress by accident.
 */
#include "cmd.h"
#include "progress.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void cmd_progress_print(const struct progress *p)
{
    if (p->npacks == 0) {
        printf("No progress yet: `iolab` opens the lessons.\n");
        return;
    }
    for (size_t i = 0; i < p->npacks; i++) {
        const struct progress_pack *pk = &p->packs[i];
        printf("pack %s: %zu step%s done", pk->id, pk->ndone, pk->ndone == 1 ? "" : "s");
        if (pk->last_lesson)
            printf(", last at %s/%s", pk->last_lesson, pk->last_step ? pk->last_step : "");
        putchar('\n');
        for (size_t j = 0; j < pk->ndone; j++)
            printf("  done  %s\n", pk->done[j]);
        for (size_t j = 0; j < pk->nanswers; j++)
            printf("  answer %s: %s\n", pk->answers[j].step, pk->answers[j].value);
    }
}

/* Asks on the terminal; true only for an explicit yes. */
static bool cmd_progress_confirm(const char *what)
{
    fprintf(stderr, "Forget %s? This cannot be undone. [y/N] ", what);
    fflush(stderr);
    char line[16];
    if (!fgets(line, sizeof line, stdin))
        return false;
    return line[0] == 'y' || line[0] == 'Y';
}

static int cmd_progress_exec(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"json", no_argument, NULL, 'j'}, {"reset", no_argument, NULL, 'r'},
        {"yes", no_argument, NULL, 'y'},  {"pack", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'}, {0},
    };
    bool json = false, reset = false, yes = false;
    const char *pack = NULL, *lesson = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 'j':
            json = true;
            break;
        case 'r':
            reset = true;
            break;
        case 'y':
            yes = true;
            break;
        case 'p':
            pack = optarg;
            break;
        case 'h':
            printf("usage: iolab progress [--json]\n"
                   "       iolab progress --reset [LESSON] [--pack ID] [--yes]\n\n"
                   "Shows what you have done in each lesson pack, or forgets it (all of it, or\n"
                   "one lesson). --reset asks first; without a terminal it needs --yes.\n");
            return 0;
        default:
            return 2;
        }
    }
    if (optind < argc && reset)
        lesson = argv[optind++];
    if (optind < argc) {
        cmd_error("unexpected argument '%s'; `iolab progress --help` shows the usage.",
                  argv[optind]);
        return 2;
    }
    char path[PATH_MAX];
    int rc = progress_default_path(path, sizeof path);
    if (rc < 0) {
        cmd_error("cannot tell where progress is kept: set HOME or XDG_STATE_HOME.");
        return 1;
    }
    struct progress *p = NULL;
    rc = progress_load(path, &p);
    if (rc < 0) {
        cmd_error("cannot read %s: %s.", path, strerror(-rc));
        return 1;
    }
    if (p->damaged)
        cmd_error("%s was damaged; it was moved to %s and progress starts over.", path, p->damaged);
    int status = 0;
    if (!reset) {
        if (json) {
            char *text = progress_to_json(p);
            if (text)
                puts(text);
            status = text ? 0 : 1;
            free(text);
        } else {
            printf("%s\n", path);
            cmd_progress_print(p);
        }
        progress_free(p);
        return status;
    }
    char what[256];
    snprintf(what, sizeof what, "%s%s%s%s",
             lesson ? "your progress in lesson " : "all your progress", lesson ? lesson : "",
             pack ? " of pack " : "", pack ? pack : "");
    if (!yes) {
        if (!isatty(STDIN_FILENO)) {
            cmd_error("--reset asks before forgetting %s; without a terminal add --yes.", what);
            progress_free(p);
            return 2;
        }
        if (!cmd_progress_confirm(what)) {
            fprintf(stderr, "Nothing was changed.\n");
            progress_free(p);
            return 1;
        }
    }
    size_t removed = progress_reset(p, pack, lesson);
    rc = progress_save(p);
    if (rc < 0) {
        cmd_error("cannot write %s: %s; nothing was changed.", path, strerror(-rc));
        status = 1;
    } else {
        printf("Forgot %s (%zu record%s).\n", what, removed, removed == 1 ? "" : "s");
    }
    progress_free(p);
    return status;
}

const struct cmd_entry cmd_progress_entry = {
    .name = "progress",
    .usage = "[--json|--reset [LESSON] [--yes]]",
    .summary = "what you have done; --reset forgets it",
    .exec = cmd_progress_exec,
};
