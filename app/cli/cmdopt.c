/*
 * Reading a subcommand's command line from its option table (cmdopt.h). The sentence for a word
 * that is none of the command's is built from the table itself, so it lists exactly what the
 * command takes and reads alike in every command.
 */
#include "cmdopt.h"
#include "cmd.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "check takes LESSON/STEP, --pack DIR, --json; 'WORD' is none of them (or lacks its value)." */
static void cmdopt_none(const struct cmdopt_cmd *cmd, const char *word)
{
    char list[512];
    size_t at = 0;
    list[0] = '\0';
    if (cmd->words)
        at += (size_t)snprintf(list, sizeof list, "%s", cmd->words);
    for (const struct cmdopt *o = cmd->opts; o && o->name && at < sizeof list; o++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s--%s%s%s", at ? ", " : "", o->name,
                               o->arg ? " " : "", o->arg ? o->arg : "");
    cmd_error("%s takes %s; '%s' is none of them (or lacks its value).", cmd->name,
              at ? list : "no arguments but --help", word);
}

/* Reads o's value from text; 0, or 2 after one sentence. */
static int cmdopt_value(const struct cmdopt *o, const char *text)
{
    char *end;
    switch (o->kind) {
    case CMDOPT_FLAG:
        return 0;
    case CMDOPT_TEXT:
        *o->to.text = text;
        return 0;
    case CMDOPT_TEXTS:
        if (o->to.texts->n >= o->to.texts->max) {
            cmd_error("--%s is given more than %zu times.", o->name, o->to.texts->max);
            return 2;
        }
        o->to.texts->v[o->to.texts->n++] = text;
        return 0;
    case CMDOPT_NUMBER: {
        double v = strtod(text, &end);
        bool ok = end != text && !*end && isfinite(v) && v <= o->max &&
                  (o->min == 0 ? v > 0 : v >= o->min);
        if (!ok) {
            if (o->min == 0)
                cmd_error("--%s takes %s above 0 and up to %g, not '%s'.", o->name,
                          o->what ? o->what : "a number", o->max, text);
            else
                cmd_error("--%s takes %s from %g to %g, not '%s'.", o->name,
                          o->what ? o->what : "a number", o->min, o->max, text);
            return 2;
        }
        *o->to.number = v;
        return 0;
    }
    case CMDOPT_COUNT: {
        long v = strtol(text, &end, 10);
        if (end == text || *end || v < o->min || v > o->max) {
            cmd_error("--%s takes a whole number from %g to %g, not '%s'.", o->name, o->min, o->max,
                      text);
            return 2;
        }
        *o->to.count = (int)v;
        return 0;
    }
    case CMDOPT_TIER: {
        int k = iolab_tier_parse(text);
        if (k < 0 || k == IOLAB_TIER_AUTO) {
            cmd_error("--%s is full, reduced or minimal, not '%s'.", o->name, text);
            return 2;
        }
        *o->to.tier = (enum iolab_tier)k;
        return 0;
    }
    }
    return 2;
}

int cmdopt_parse(const struct cmdopt_cmd *cmd, int argc, char **argv)
{
    if (cmd->word)
        cmd->word->n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            cmd->usage(stdout);
            return -1;
        }
        if (a[0] != '-' || !strcmp(a, "-")) { /* "-": standard input or output, a word */
            if (!cmd->word || cmd->word->n >= cmd->word->max) {
                cmdopt_none(cmd, a);
                return 2;
            }
            cmd->word->v[cmd->word->n++] = a;
            continue;
        }
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const struct cmdopt *o = cmd->opts;
        while (o && o->name &&
               !(len == strlen(o->name) + 2 && !strncmp(a, "--", 2) &&
                 !strncmp(a + 2, o->name, len - 2)))
            o++;
        bool takes = o && o->name && o->kind != CMDOPT_FLAG;
        /* Unknown, a flag given a value, or a value missing: one sentence for all three. */
        if (!o || !o->name || (eq && !takes) || (takes && !eq && i + 1 >= argc)) {
            cmdopt_none(cmd, a);
            return 2;
        }
        if (!takes) {
            *o->to.flag = true;
            continue;
        }
        int rc = cmdopt_value(o, eq ? eq + 1 : argv[++i]);
        if (rc)
            return rc;
    }
    return 0;
}
