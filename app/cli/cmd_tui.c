/*
 * iolab [--pack DIR] [--tick-hz N] [--open LESSON[/STEP]] [--log-first-frame]: the TUI.
 *
 * Everything that can fail before the screen is taken is checked first (the terminal, the pack,
 * the progress file), with a one-sentence message on stderr; once curses runs, messages go to
 * the status line and to $XDG_STATE_HOME/iolab/iolab.log, never to the terminal. The opened pack
 * is built before the screen is taken; the installed ones only when a lesson of one is opened.
 */
#include "cmd.h"
#include "cmdopt.h"
#include "packprog.h"
#include "paths.h"
#include "termsafe.h"

#ifdef IOLAB_HAVE_TUI
#include "lesson/lesson.h"
#include "progress.h"
#include "tui.h"

#include <errno.h>
#include <limits.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CMD_TUI_MAX_PACKS 32 /* installed packs shown beside the one iolab opens */

static void cmd_tui_usage(FILE *out)
{
    fprintf(out,
            "usage: iolab [--pack DIR] [--tick-hz N] [--open LESSON[/STEP]] [--log-first-frame]\n\n"
            "Opens the lessons in the terminal. Progress is kept in $XDG_STATE_HOME/iolab/\n"
            "(default ~/.local/state/iolab/), and so is iolab.log.\n\n"
            "  --pack DIR        an instructor's lesson pack instead of the built-in one\n"
            "  --tick-hz N       counter refresh rate, 1 to 20 per second (default 10)\n"
            "  --open SPEC       open LESSON or LESSON/STEP directly\n"
            "  --log-first-frame write the time to the first frame into iolab.log\n\n"
            "Keys:\n");
    const struct keytable *tables[8];
    size_t n = tui_all_keytables(tables, 8);
    for (size_t t = 0; t < n; t++) {
        fprintf(out, "  %s:\n", tables[t]->title);
        for (size_t i = 0; i < tables[t]->n; i++)
            if (tables[t]->v[i].help)
                fprintf(out, "    %-10s %s\n", tables[t]->v[i].name, tables[t]->v[i].help);
    }
    fprintf(out, "\nWithout a terminal, `iolab run LESSON` runs a step headless.\n");
}

/* Opens iolab.log next to the progress file; NULL when that is impossible (no logging). */
static FILE *cmd_tui_open_log(const char *progress_path)
{
    char dir[PATH_MAX], path[PATH_MAX + 16];
    snprintf(dir, sizeof dir, "%s", progress_path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    /* mkdir -p: the state directory may not exist on a fresh account. */
    for (char *s = dir + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(dir, 0700);
            *s = '/';
        }
    }
    mkdir(dir, 0700);
    snprintf(path, sizeof path, "%s/iolab.log", dir);
    return fopen(path, "ae");
}

/* Parses the command line into opts and *pack_dir: 0 to go on, or the exit status (-1: help
   was printed, exit 0). */
static int cmd_tui_args(int argc, char **argv, struct tui_options *opts, const char **pack_dir)
{
    const struct cmdopt table[] = {
        {.name = "pack", .kind = CMDOPT_TEXT, .to.text = pack_dir, .arg = "DIR"},
        {.name = "tick-hz",
         .kind = CMDOPT_NUMBER,
         .to.number = &opts->tick_hz,
         .min = 1,
         .max = 20,
         .arg = "N",
         .what = "a number"},
        {.name = "open", .kind = CMDOPT_TEXT, .to.text = &opts->start_at, .arg = "LESSON[/STEP]"},
        {.name = "log-first-frame", .kind = CMDOPT_FLAG, .to.flag = &opts->log_first_frame},
        {0},
    };
    const struct cmdopt_cmd cmd = {
        .name = "iolab", .words = NULL, .word = NULL, .opts = table, .usage = cmd_tui_usage};
    int parsed = cmdopt_parse(&cmd, argc, argv);
    if (parsed)
        return parsed;
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        cmd_error("the lessons need a terminal; without one, `iolab run LESSON` runs a step "
                  "and prints its figures.");
        return 2;
    }
    return 0;
}

/* Loads the pack to open (the built-in one without --pack); NULL after saying why. */
static struct lesson_pack *cmd_tui_pack(const char *pack_dir, const struct lesson_load_options *lo)
{
    struct lesson_pack *pack = NULL;
    struct lesson_diags diags = {0};
    if (lesson_pack_load(pack_dir, lo, &pack, &diags) < 0 ||
        cmd_build_pack(pack, stderr, &diags) < 0) {
        lesson_pack_free(pack);
        lesson_diags_print(stderr, &diags);
        lesson_diags_free(&diags);
        cmd_error("the lesson pack in %s cannot be used (see above); `iolab lint %s` checks it.",
                  pack_dir, pack_dir);
        return NULL;
    }
    lesson_diags_free(&diags);
    if (pack->nlessons == 0) {
        cmd_error("the lesson pack in %s has no lessons.", pack_dir);
        lesson_pack_free(pack);
        return NULL;
    }
    return pack;
}

/* Installed packs join the start screen, loaded but not built: a stranger's pack runs nothing
   until the learner opens one of its lessons (cmd_tui_build_installed). One that does not load
   is named and left out. Returns how many went into owned[]. */
static size_t cmd_tui_installed(const struct lesson_pack *pack,
                                const struct lesson_load_options *lo, struct lesson_pack **owned)
{
    char *dirs[CMD_TUI_MAX_PACKS];
    size_t ndirs = 0, n = 0;
    paths_installed_packs(dirs, &ndirs, CMD_TUI_MAX_PACKS);
    for (size_t i = 0; i < ndirs; i++) {
        struct lesson_pack *p = NULL;
        struct lesson_diags d = {0};
        if (lesson_pack_load(dirs[i], lo, &p, &d) < 0) {
            lesson_pack_free(p);
            p = NULL;
            termsafe_fprintf(stderr,
                             "iolab: the pack in %s is left out: it has %zu problem%s; `iolab lint "
                             "%s` lists them.\n",
                             dirs[i], d.n, d.n == 1 ? "" : "s", dirs[i]);
        } else if (!strcmp(p->id, pack->id) || p->nlessons == 0) {
            /* The opened pack itself (iolab --pack on an installed one), or one that would
               share its progress: progress is kept by pack id. */
            if (p->nlessons && strcmp(p->dir, pack->dir))
                termsafe_fprintf(stderr,
                                 "iolab: the pack in %s is left out: its id '%s' is the opened "
                                 "pack's too.\n",
                                 dirs[i], p->id);
            lesson_pack_free(p);
            p = NULL;
        }
        lesson_diags_free(&d);
        free(dirs[i]);
        if (p)
            owned[n++] = p;
    }
    return n;
}

/* The installed packs the TUI shows, which it builds when the learner opens one. */
struct cmd_tui_installed {
    struct lesson_pack *owned[CMD_TUI_MAX_PACKS];
    size_t n;
    FILE *log; /* iolab.log: the compiler's messages and the problems; may be NULL */
};

static bool cmd_tui_announce(void *data, const struct lesson_pack *pack, char *say, size_t len)
{
    (void)data;
    return packprog_announce(pack, say, len);
}

/* Builds an installed pack's programs (a cache hit when built before); the opened pack was
   built before the screen was taken. Messages go to iolab.log, never to the terminal. */
static int cmd_tui_build_installed(void *data, const struct lesson_pack *pack, char *why,
                                   size_t len)
{
    struct cmd_tui_installed *k = data;
    for (size_t i = 0; i < k->n; i++) {
        if (k->owned[i] != pack)
            continue;
        struct lesson_diags d = {0};
        int rc = packprog_build(k->owned[i], k->log, &d, NULL);
        if (rc < 0) {
            if (k->log) {
                lesson_diags_print(k->log, &d);
                fflush(k->log);
            }
            snprintf(why, len,
                     "The programs of pack \"%s\" do not build (%zu problem%s, in iolab.log); "
                     "`iolab lint %s` shows them.",
                     pack->title, d.n, d.n == 1 ? "" : "s", pack->dir);
        }
        lesson_diags_free(&d);
        return rc;
    }
    return 0;
}

static int cmd_tui_exec(int argc, char **argv)
{
    struct tui_options opts = {.tick_hz = 10};
    clock_gettime(CLOCK_MONOTONIC, &opts.t0);
    const char *pack_dir = NULL;
    int rc = cmd_tui_args(argc, argv, &opts, &pack_dir);
    if (rc)
        return rc < 0 ? 0 : rc;
    setlocale(LC_ALL, "");

    char pack_buf[PATH_MAX], libexec[PATH_MAX];
    if (!pack_dir) {
        if (paths_get(PATHS_PACK, pack_buf, sizeof pack_buf) < 0) {
            cmd_error("cannot find the built-in lessons next to the iolab executable.");
            return 1;
        }
        pack_dir = pack_buf;
    }
    if (paths_get(PATHS_LIBEXEC, libexec, sizeof libexec) < 0)
        libexec[0] = '\0';
    struct lesson_load_options lo = {.libexec_dir = libexec};
    struct lesson_pack *pack = cmd_tui_pack(pack_dir, &lo);
    if (!pack)
        return 1;
    const struct lesson_pack *extra[CMD_TUI_MAX_PACKS];
    struct cmd_tui_installed installed = {.n = 0};
    size_t nextra = installed.n = cmd_tui_installed(pack, &lo, installed.owned);
    for (size_t i = 0; i < nextra; i++)
        extra[i] = installed.owned[i];
    opts.extra_packs = extra;
    opts.nextra = nextra;
    opts.pack_announce = cmd_tui_announce;
    opts.pack_build = cmd_tui_build_installed;
    opts.pack_data = &installed;

    char ppath[PATH_MAX];
    struct progress *progress = NULL;
    rc = progress_default_path(ppath, sizeof ppath);
    opts.log = installed.log = rc == 0 ? cmd_tui_open_log(ppath) : NULL;
    if (rc == 0) {
        /* Loaded under the lock: a leftover temporary file of a killed writer goes too. */
        int lock = progress_lock(ppath);
        rc = progress_load(ppath, &progress);
        progress_unlock(lock);
    }
    if (rc < 0 && opts.log)
        fprintf(opts.log, "progress cannot be loaded from %s: %s\n", ppath, strerror(-rc));
    if (progress && progress->damaged)
        termsafe_fprintf(stderr, "iolab: %s was damaged; it was kept as %s.\n", ppath,
                         progress->damaged);

    /* A write to a program that has just exited must be an error, not the end of iolab. */
    signal(SIGPIPE, SIG_IGN);
    opts.pack_dir = pack_dir;
    int status = tui_run(pack, progress, &opts);
    progress_free(progress);
    for (size_t i = 0; i < nextra; i++)
        lesson_pack_free(installed.owned[i]);
    lesson_pack_free(pack);
    if (opts.log)
        fclose(opts.log);
    return status;
}

#else

static int cmd_tui_exec(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cmd_error("this iolab was built without its TUI (the engine library was missing); "
              "`iolab run LESSON` works without it.");
    return 1;
}

#endif

const struct cmd_entry cmd_tui_entry = {
    .name = "tui",
    .usage = "[--pack DIR] [--tick-hz N]",
    .summary = "open the lessons in the terminal (the default)",
    .exec = cmd_tui_exec,
};
