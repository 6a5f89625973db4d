/*
 * cli: iolab's command line: picks a subcommand from the table and hands it the rest of the
 * command line. With no subcommand (or only options such as --pack) iolab opens the TUI. main.c
 * calls it; a program that embeds iolab with step kinds of its own (the tests' iolab-tap)
 * registers them and calls it too.
 */
#include "cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#ifndef IOLAB_VERSION
#define IOLAB_VERSION "dev"
#endif

static const struct cmd_entry *const cli_commands[] = {
    &cmd_run_entry,   &cmd_list_entry, &cmd_lint_entry,  &cmd_progress_entry,
    &cmd_check_entry, &cmd_new_entry,  &cmd_bench_entry, &cmd_starter_entry,
};

/* One command per entry: the synopsis, then its summary beside it or, when long, below it. */
static void cli_usage_line(FILE *out, const char *head, const char *summary)
{
    if (strlen(head) <= 34)
        fprintf(out, "  iolab %-34s %s\n", head, summary);
    else
        fprintf(out, "  iolab %s\n  %-40s %s\n", head, "", summary);
}

static void cli_usage(FILE *out)
{
    fprintf(out, "iolab %s: watch the kernel do I/O.\n\nusage:\n", IOLAB_VERSION);
    cli_usage_line(out, cmd_tui_entry.usage, cmd_tui_entry.summary);
    for (size_t i = 0; i < sizeof cli_commands / sizeof *cli_commands; i++) {
        const struct cmd_entry *c = cli_commands[i];
        char head[96];
        snprintf(head, sizeof head, "%s %s", c->name, c->usage);
        cli_usage_line(out, head, c->summary);
    }
    fputs("\n`iolab COMMAND --help` tells more about one command. Without a command:\n\n", out);
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
        cli_usage(stdout);
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
    for (size_t i = 0; i < sizeof cli_commands / sizeof *cli_commands; i++)
        if (!strcmp(argv[1], cli_commands[i]->name))
            return cli_commands[i]->exec(argc - 1, argv + 1);
    cmd_error("'%s' is not a command; `iolab --help` lists them.", argv[1]);
    return 2;
}
