/*
 * check_load: the keys of a check that exercises use, parsed for the run kind's check table
 * (check_load.h lists them). A file of its own so that the run kind (kind_run.c) and the
 * exercise kind built on it (kind_exercise.c) depend on it and not on each other.
 */
#include "check.h"
#include "check_load.h"
#include "load.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { XK_PROGRAM, XK_MATCH, XK_STATUS, XK_WITHIN, XK_FAIL, XK_DIGEST, XK_POINTS };

void check_load_extra(struct load *ld, const cJSON *obj, const cJSON *const *f,
                      const struct lesson_scenario *sc, struct lesson_check *c, int figure_ok)
{
    bool exit = figure_ok && c->figure == FIGURE_EXIT;
    bool output = figure_ok && c->figure == FIGURE_OUTPUT;
    if (f[XK_PROGRAM]) {
        const char *name = f[XK_PROGRAM]->valuestring;
        size_t p = 0;
        while (p < sc->nprograms && strcmp(sc->programs[p].name, name))
            p++;
        if (p == sc->nprograms)
            load_diag(ld, f[XK_PROGRAM], 0,
                      "this check reads program \"%s\", which this step does not have; name one "
                      "of its \"programs\".",
                      name);
        else
            c->program = (int)p;
        if (figure_ok && !exit && !output)
            load_diag(ld, f[XK_PROGRAM], 0,
                      "\"program\" is for the exit and output metrics; this check reads a role's "
                      "figures (\"role\").");
    } else if (exit || output) {
        load_diag(ld, obj, 0, "an %s check needs \"program\": the name of the program it reads.",
                  exit ? "exit" : "output");
    }
    if (f[XK_MATCH]) {
        c->match = load_strdup(ld, f[XK_MATCH]->valuestring);
        regex_t re;
        int rc = regcomp(&re, f[XK_MATCH]->valuestring, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[128];
            regerror(rc, &re, why, sizeof why);
            load_diag(ld, f[XK_MATCH], 0, "\"match\" is not an extended regular expression: %s.",
                      why);
        } else {
            regfree(&re);
        }
        if (figure_ok && !output)
            load_diag(ld, f[XK_MATCH], 0, "\"match\" is for the output metric.");
    } else if (output) {
        load_diag(ld, obj, 0,
                  "an output check needs \"match\": a pattern the program's lines must match.");
    }
    if (f[XK_STATUS]) {
        double v = f[XK_STATUS]->valuedouble;
        c->has_status = true;
        c->status = (int)v;
        if (v < 0 || v > 255 || v != (double)(int)v)
            load_diag(ld, f[XK_STATUS], 0,
                      "\"status\" is an exit status, a whole number from 0 "
                      "to 255.");
        if (figure_ok && !exit)
            load_diag(ld, f[XK_STATUS], 0, "\"status\" is for the exit metric.");
    } else if (exit) {
        load_diag(ld, obj, 0, "an exit check needs \"status\": the exit status it wants.");
    }
    if (f[XK_WITHIN]) {
        c->within = f[XK_WITHIN]->valuedouble;
        if (!(c->within > 0) || c->within > 3600)
            load_diag(ld, f[XK_WITHIN], 0, "\"within\" is a number of seconds above 0.");
    }
    if (f[XK_FAIL])
        c->fail = load_strdup(ld, f[XK_FAIL]->valuestring);
    if (f[XK_DIGEST]) {
        /* The digest is iolab's, of a file iolab makes: only then does a line prove anything. */
        const char *name = f[XK_DIGEST]->valuestring;
        size_t i = 0;
        /* A file entry without a name (reported where it stands) matches nothing. */
        while (i < sc->nfiles && (!sc->files[i].name || strcmp(sc->files[i].name, name)))
            i++;
        regex_t re;
        if (i == sc->nfiles)
            load_diag(ld, f[XK_DIGEST], 0,
                      "\"digest\" names file \"%s\", which this step does not make; name one of "
                      "its \"files\".",
                      name);
        else if (figure_ok && !output)
            load_diag(ld, f[XK_DIGEST], 0, "\"digest\" is for the output metric.");
        else if (f[XK_MATCH] && regcomp(&re, f[XK_MATCH]->valuestring, REG_EXTENDED) == 0) {
            if (re.re_nsub < 1)
                load_diag(ld, f[XK_MATCH], 0,
                          "with \"digest\", \"match\" needs a group, ([0-9a-f]{16}), around the "
                          "digest the program prints.");
            regfree(&re);
        }
        c->digest = load_strdup(ld, name);
    }
    /* The "per byte served" figures divide by the client's bytes, or by the step's files when
       no client publishes any: with neither they never exist and the check could never pass. */
    bool per_byte =
        figure_ok && (c->figure == FIGURE_CALL_BYTES_PER_BYTE ||
                      c->figure == FIGURE_RCHAR_PER_BYTE || c->figure == FIGURE_WCHAR_PER_BYTE);
    bool served = sc->nfiles > 0;
    for (size_t p = 0; p < sc->nprograms && !served; p++)
        served = sc->programs[p].role == LESSON_ROLE_CLIENT;
    if (per_byte && !served)
        load_diag(ld, obj, 0,
                  "this check divides by the bytes served, which come from a client program or, "
                  "without one, from the step's \"files\"; this step has neither.");
    /* A check weighs 1 unless it says otherwise; 0 is allowed (a check that must hold but
       scores nothing), a negative weight or a fraction of a point is not. */
    c->points = 1;
    if (f[XK_POINTS]) {
        double v = f[XK_POINTS]->valuedouble;
        if (v < 0 || v > 1000 || v != (double)(int)v)
            load_diag(ld, f[XK_POINTS], 0,
                      "\"points\" is the check's weight in the score, a whole number from 0 to "
                      "1000.");
        else
            c->points = v;
    }
}
