/*
 * iolab progress [--json] | --reset [LESSON] [--pack ID] [--yes]: shows or forgets what the
 * learner has done. Reading never changes the file, except that a damaged one is moved aside
 * (and reported here on stderr). A reset asks first on a terminal; without one it needs --yes,
 * so a script cannot wipe progress by accident.
 */
#include "cmd.h"
#include "fileread.h"
#include "progress.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Why the progress file cannot be used, in one sentence. */
static void cmd_progress_load_error(const char *path, int rc)
{
    struct stat st;
    if (rc == -EINVAL && stat(path, &st) == 0)
        cmd_error("%s: not a regular file (%s); move it away and iolab starts a new one there.",
                  path, fileread_kind(st.st_mode));
    else if (rc == -EFBIG)
        cmd_error("%s: larger than %u MiB, the most iolab reads as progress; move it away and "
                  "iolab starts a new one there.",
                  path, PROGRESS_MAX_BYTES >> 20);
    else
        cmd_error("cannot read %s: %s.", path, strerror(-rc));
}

/* Whether any record of the pack belongs to lesson. */
static bool cmd_progress_has_lesson(const struct progress_pack *pk, const char *lesson)
{
    size_t ll = strlen(lesson);
    for (size_t j = 0; j < pk->ndone; j++)
        if (!strncmp(pk->done[j], lesson, ll) && pk->done[j][ll] == '/')
            return true;
    for (size_t j = 0; j < pk->nanswers; j++)
        if (!strncmp(pk->answers[j].step, lesson, ll) && pk->answers[j].step[ll] == '/')
            return true;
    return pk->last_lesson && !strcmp(pk->last_lesson, lesson);
}

/*
 * Appends to list (a comma-separated line of at most len bytes) the lessons that have records,
 * each once, in the order first seen.
 */
static void cmd_progress_add_lesson(char *list, size_t len, const char *key)
{
    const char *slash = strchr(key, '/');
    size_t n = slash ? (size_t)(slash - key) : strlen(key);
    for (const char *s = list; *s;) {
        const char *end = strchr(s, ',');
        size_t m = end ? (size_t)(end - s) : strlen(s);
        if (m == n && !strncmp(s, key, n))
            return;
        s = end ? end + 2 : s + m;
    }
    size_t used = strlen(list);
    snprintf(list + used, len - used, "%s%.*s", used ? ", " : "", (int)n, key);
}

/*
 * A reset of a pack or a lesson that has no records is almost always a typo; forgetting "0
 * records" and succeeding would hide it. Returns true (after saying so) when it names nothing.
 */
static bool cmd_progress_unknown(const struct progress *p, const char *pack, const char *lesson)
{
    char known[1024] = "";
    bool found = false;
    if (pack && !progress_pack_find(p, pack)) {
        for (size_t i = 0; i < p->npacks; i++)
            cmd_progress_add_lesson(known, sizeof known, p->packs[i].id);
        cmd_error("no progress is recorded for pack '%s'; %s%s.", pack,
                  known[0] ? "packs with progress: " : "no pack has any progress yet", known);
        return true;
    }
    if (!lesson)
        return false;
    for (size_t i = 0; i < p->npacks; i++) {
        const struct progress_pack *pk = &p->packs[i];
        if (pack && strcmp(pk->id, pack))
            continue;
        found |= cmd_progress_has_lesson(pk, lesson);
        for (size_t j = 0; j < pk->ndone; j++)
            cmd_progress_add_lesson(known, sizeof known, pk->done[j]);
        for (size_t j = 0; j < pk->nanswers; j++)
            cmd_progress_add_lesson(known, sizeof known, pk->answers[j].step);
        if (pk->last_lesson)
            cmd_progress_add_lesson(known, sizeof known, pk->last_lesson);
    }
    if (found)
        return false;
    cmd_error("no progress is recorded for lesson '%s'; %s%s.", lesson,
              known[0] ? "lessons with progress: " : "no lesson has any progress yet", known);
    return true;
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
        cmd_progress_load_error(path, rc);
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
    if (cmd_progress_unknown(p, pack, lesson)) {
        progress_free(p);
        return 1;
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
