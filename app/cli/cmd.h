/*
 * Subcommands are data: each cmd_<name>.c exports one const struct cmd_entry, and cli.c keeps
 * the table. A command gets argv with its own name in argv[0] and returns the exit status:
 * 0 success, 1 the work found problems or failed, 2 the command line was wrong.
 */
#ifndef IOLAB_CMD_H
#define IOLAB_CMD_H

#include <stdio.h>

struct cmd_entry {
    const char *name;    /* the word typed after `iolab` */
    const char *usage;   /* one line: the arguments it takes */
    const char *summary; /* one line: what it does */
    int (*exec)(int argc, char **argv);
};

extern const struct cmd_entry cmd_tui_entry;      /* iolab [--pack DIR]: the TUI */
extern const struct cmd_entry cmd_run_entry;      /* iolab run LESSON[/STEP] ... */
extern const struct cmd_entry cmd_list_entry;     /* iolab list [--json] */
extern const struct cmd_entry cmd_lint_entry;     /* iolab lint DIR */
extern const struct cmd_entry cmd_progress_entry; /* iolab progress [--json|--reset] */
extern const struct cmd_entry cmd_check_entry;    /* iolab check LESSON/STEP ... */
extern const struct cmd_entry cmd_new_entry;      /* iolab new DIR */
extern const struct cmd_entry cmd_bench_entry;    /* iolab bench LESSON/STEP ... */
extern const struct cmd_entry cmd_starter_entry;  /* iolab starter LESSON/STEP --out DIR */

/* The whole command line: what main() runs. Returns the exit status. */
int cli_main(int argc, char **argv);

struct lesson_pack;
/* Loads a pack (the built-in one when pack_dir is NULL), or says why not in one sentence after
   its problems and returns NULL. */
struct lesson_pack *cmd_load_pack(const char *pack_dir);

/*
 * Loads the pack a command names with --pack (pack: a directory, or the id of the built-in pack
 * or of one installed under the data directory) for LESSON[/STEP] spec (may be NULL). Without
 * --pack: the built-in pack, unless spec's lesson is not in it but in exactly one installed
 * pack. NULL after saying why in one sentence: no such pack, or several packs with that id (or
 * that lesson), named by their directories.
 */
struct lesson_pack *cmd_load_pack_for(const char *pack, const char *spec);

struct lesson_diags;
/* Builds a loaded pack's own programs (packprog.h), first saying on stderr when that compiles
   something (a first build), with the compiler's messages to log. Returns packprog_build's;
   a build stopped by a signal ends the command with 128+signal. */
int cmd_build_pack(struct lesson_pack *pack, FILE *log, struct lesson_diags *diags);

/* Prints `iolab: MESSAGE` to stderr in one line, escaped as termsafe.h says; for command-line
   and input errors. */
void cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
