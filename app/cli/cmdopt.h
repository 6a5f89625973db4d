/*
 * cmdopt: every subcommand's options as one const table, read the same way (as the demos'
 * demo_opt). An option is `--name` or `--name VALUE` (`--name=VALUE` too); a word that does not
 * start with '-' is one of the command's words (LESSON/STEP, DIR, FILE...); `--help` and `-h`
 * ask for the usage. A word that is none of these gets the same sentence in every command:
 * "check takes LESSON/STEP, --pack DIR, ..., --json; '--x' is none of them (or lacks its
 * value)." A value out of range is named with its range in one sentence, --tier's with its
 * three tiers.
 */
#ifndef IOLAB_CMDOPT_H
#define IOLAB_CMDOPT_H

#include "tier.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* How an option's value is read. */
enum cmdopt_kind {
    CMDOPT_FLAG,   /* no value: *to.flag = true */
    CMDOPT_TEXT,   /* a word: *to.text (the last one given wins) */
    CMDOPT_TEXTS,  /* a word each time it is given, in order: to.texts */
    CMDOPT_NUMBER, /* a number in [min, max] (above min when min is 0): *to.number */
    CMDOPT_COUNT,  /* a whole number from min to max: *to.count */
    CMDOPT_TIER,   /* full, reduced or minimal: *to.tier */
};

/* The words of an option given several times (CMDOPT_TEXTS), or of the command itself. */
struct cmdopt_words {
    const char **v; /* the caller's array of max words */
    size_t max;     /* more than max are refused with a sentence */
    size_t n;       /* how many were given */
};

/* One option of a command's table; the table ends with {0}. */
struct cmdopt {
    const char *name;      /* "json" for --json */
    enum cmdopt_kind kind; /* how its value is read */
    union {
        bool *flag;
        const char **text;
        struct cmdopt_words *texts;
        double *number;
        int *count;
        enum iolab_tier *tier;
    } to;             /* where the value goes */
    double min, max;  /* CMDOPT_NUMBER, CMDOPT_COUNT: the range */
    const char *arg;  /* the value's name in the sentence ("DIR", "N"); none for a flag */
    const char *what; /* CMDOPT_NUMBER: the value in words ("a number of seconds") */
};

/* A command's command line. */
struct cmdopt_cmd {
    const char *name;          /* "check", as the sentences name the command */
    const char *words;         /* its words in the sentence ("LESSON/STEP"); NULL: none */
    struct cmdopt_words *word; /* where they go; NULL when it takes none */
    const struct cmdopt *opts; /* its options, ending with {0} */
    void (*usage)(FILE *out);  /* prints its usage, for --help */
};

/* Reads argv[1..argc) (argv[0] is the command). 0: read; -1: --help printed the usage (the
   command exits 0); 2: a word or a value was wrong, said in one sentence on stderr. */
int cmdopt_parse(const struct cmdopt_cmd *cmd, int argc, char **argv);

#endif
