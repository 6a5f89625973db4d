/*
 * cli: iolab's command line: picks a subcommand from the table and hands it the rest of the
 * command line. With no subcommand (or only options such as --pack) iolab opens the TUI. main.c
 * calls it; a program that embeds iolab with step kinds of its own (the tests' iolab-tap)
 * registers them and calls it too.
 */
#include "cmd.h"
#include "lesson/lesson.h"
#include "packfind.h"
#include "packprog.h"
#include "paths.h"
#include "termsafe.h"

#include <limits.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#ifndef IOLAB_VERSION
#define IOLAB_VERSION "dev"
#endif

static const struct cmd_entry *const main_commands[] = {
    &cmd_run_entry,   &cmd_list_entry, &cmd_lint_entry,  &cmd_progress_entry,
    &cmd_check_entry, &cmd_new_entry,  &cmd_bench_entry, &cmd_starter_entry,
};

/* Messages often quote a pack's ids or a program's last words: the sentence is escaped. */
void cmd_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("iolab: ", stderr);
    termsafe_vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* One command per entry: the synopsis, then its summary beside it or, when long, below it. */
static void main_usage_line(FILE *out, const char *head, const char *summary)
{
    if (strlen(head) <= 34)
        fprintf(out, "  iolab %-34s %s\n", head, summary);
    else
        fprintf(out, "  iolab %s\n  %-40s %s\n", head, "", summary);
}

static void main_usage(FILE *out)
{
    fprintf(out, "iolab %s: watch the kernel do I/O.\n\nusage:\n", IOLAB_VERSION);
    main_usage_line(out, cmd_tui_entry.usage, cmd_tui_entry.summary);
    for (size_t i = 0; i < sizeof main_commands / sizeof *main_commands; i++) {
        const struct cmd_entry *c = main_commands[i];
        char head[96];
        snprintf(head, sizeof head, "%s %s", c->name, c->usage);
        main_usage_line(out, head, c->summary);
    }
    fputs("\n`iolab COMMAND --help` tells more about one command. Without a command:\n\n", out);
}

int cmd_build_pack(struct lesson_pack *pack, FILE *log, struct lesson_diags *diags)
{
    char say[512];
    if (packprog_announce(pack, say, sizeof say)) {
        termsafe_fprintf(stderr, "iolab: %s\n", say);
        fflush(stderr);
    }
    int stopped = 0;
    int rc = packprog_build(pack, log, diags, &stopped);
    if (stopped)
        exit(stopped); /* a signal stopped the build: its directory is gone, the command ends */
    return rc;
}

struct lesson_pack *cmd_load_pack(const char *pack_dir)
{
    char builtin[PATH_MAX], libexec[PATH_MAX];
    if (!pack_dir) {
        if (paths_get(PATHS_PACK, builtin, sizeof builtin) < 0) {
            cmd_error("cannot find the built-in lessons next to the iolab program.");
            return NULL;
        }
        pack_dir = builtin;
    }
    struct lesson_load_options lo = {.libexec_dir = NULL};
    if (paths_get(PATHS_LIBEXEC, libexec, sizeof libexec) == 0)
        lo.libexec_dir = libexec;
    struct lesson_pack *pack = NULL;
    struct lesson_diags diags = {0};
    if (lesson_pack_load(pack_dir, &lo, &pack, &diags) < 0 ||
        cmd_build_pack(pack, stderr, &diags) < 0) {
        lesson_pack_free(pack);
        lesson_diags_print(stderr, &diags);
        cmd_error("the pack in %s has the problems above; `iolab lint %s` checks it.", pack_dir,
                  pack_dir);
        pack = NULL;
    }
    lesson_diags_free(&diags);
    return pack;
}

/* Says that several packs answer to one name (what: "the id 'x'"), naming their directories. */
static void cmd_pack_ambiguous(const char *what, const struct packfind *f)
{
    char dirs[2048] = "";
    size_t used = 0;
    for (size_t i = 0; i < f->n && used < sizeof dirs; i++) {
        int w = snprintf(dirs + used, sizeof dirs - used, "%s%s",
                         i == 0         ? ""
                         : i + 1 < f->n ? ", "
                                        : " and ",
                         f->dirs[i]);
        used += w > 0 ? (size_t)w : 0;
    }
    cmd_error("%zu packs have %s, %s; name one with --pack DIR.", f->n, what, dirs);
}

struct lesson_pack *cmd_load_pack_for(const char *pack, const char *spec)
{
    struct packfind f = {0};
    struct lesson_pack *p = NULL;
    if (pack && packfind_is_dir(pack))
        return cmd_load_pack(pack);
    if (pack) {
        packfind_by_id(pack, false, &f);
        char base[PATH_MAX] = "the data directory";
        paths_packs_dir(base, sizeof base);
        char what[300];
        snprintf(what, sizeof what, "the id '%s'", pack);
        if (f.n == 0)
            cmd_error("'%s' is neither a directory nor the id of a pack iolab sees (the "
                      "built-in one, or one installed under %s); `iolab list` shows them.",
                      pack, base);
        else if (f.n > 1)
            cmd_pack_ambiguous(what, &f);
        else
            p = cmd_load_pack(f.dirs[0]);
        packfind_free(&f);
        return p;
    }
    p = cmd_load_pack(NULL);
    if (!p || !spec)
        return p;
    /* A lesson the built-in pack lacks may be an installed pack's: taken when only one has it;
       otherwise the built-in pack goes on, and the command says the lesson is not there. */
    char lesson[128];
    snprintf(lesson, sizeof lesson, "%.*s", (int)strcspn(spec, "/"), spec);
    if (lesson_find(p, lesson))
        return p;
    packfind_by_lesson(lesson, &f);
    if (f.n == 1) {
        lesson_pack_free(p);
        p = cmd_load_pack(f.dirs[0]);
    } else if (f.n > 1) {
        char what[300];
        snprintf(what, sizeof what, "a lesson '%s'", lesson);
        cmd_pack_ambiguous(what, &f);
        lesson_pack_free(p);
        p = NULL;
    }
    packfind_free(&f);
    return p;
}

/*
 * iolab keeps two /proc files open for every process it samples (and reads every thread): the
 * default soft limit of 1,024 descriptors would leave half of a 1,000-process scenario's figures
 * unread. The programs are not affected: the launcher gives them their own limits.
 */
static void cli_raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max > (1u << 20) ? (1u << 20) : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int cli_main(int argc, char **argv)
{
    cli_raise_nofile();
    if (argc >= 2 &&
        (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help"))) {
        main_usage(stdout);
        /* The TUI is what most people run: its options and keys belong on the first page. */
        fflush(stdout);
        char *tui_help[] = {argv[0], "--help", NULL};
        return cmd_tui_entry.exec(2, tui_help);
    }
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf("iolab %s\n", IOLAB_VERSION);
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-')
        return cmd_tui_entry.exec(argc, argv);
    for (size_t i = 0; i < sizeof main_commands / sizeof *main_commands; i++)
        if (!strcmp(argv[1], main_commands[i]->name))
            return main_commands[i]->exec(argc - 1, argv + 1);
    cmd_error("'%s' is not a command; `iolab --help` lists them.", argv[1]);
    return 2;
}
