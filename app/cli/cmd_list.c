/*
 * iolab list [--pack DIR] [--json]: every pack iolab can see (the built-in one, --pack DIRs, and
 * packs installed under $XDG_DATA_HOME/iolab/packs/), with their lessons and steps named the way
 * `iolab run` takes them (concurrency/compare). A pack that does not load is reported on stderr
 * and makes the exit status 1; the others are still listed. Listing never builds a pack's own
 * programs (pack.json "build"): that waits until a pack is run, checked or opened.
 *
 * The JSON goes through json.h, the one writer of iolab's output.
 */
#include "cmd.h"
#include "cmdopt.h"
#include "json.h"
#include "lesson/lesson.h"
#include "packfind.h"
#include "termsafe.h"

#include "iolab_counters.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD_LIST_MAX_PACKS 64

static void cmd_list_usage(FILE *out)
{
    fputs("usage: iolab list [--pack DIR]... [--json]\n\n"
          "Lists the lesson packs (built-in, --pack DIR, and those installed under\n"
          "$XDG_DATA_HOME/iolab/packs/), their lessons and their steps as LESSON/STEP, the\n"
          "names `iolab run` takes. --json prints one JSON object instead. Two packs with one\n"
          "id are named in a warning: `--pack ID` cannot choose between them.\n",
          out);
}

/* What `iolab run` needs to know of a step's scenario: its length and its modes. */
static void cmd_list_json_scenario(struct json_out *j, const struct lesson_scenario *sc)
{
    if (!sc)
        return;
    json_double(j, "seconds", sc->seconds, 6);
    json_array(j, "modes");
    for (size_t m = 0; m < sc->nmodes; m++) {
        char key[2] = {sc->modes[m].key, 0};
        json_object(j, NULL);
        json_string(j, "id", sc->modes[m].id);
        json_string(j, "title", sc->modes[m].title);
        json_string(j, "key", key);
        json_end(j);
    }
    json_end(j);
    if (sc->nmodes)
        json_string(j, "default_mode", sc->modes[sc->default_mode].id);
}

static void cmd_list_json_pack(struct json_out *j, const struct lesson_pack *p)
{
    json_object(j, NULL);
    json_string(j, "id", p->id);
    json_string(j, "title", p->title);
    json_string(j, "version", p->version);
    json_string(j, "dir", p->dir);
    json_array(j, "lessons");
    for (size_t i = 0; i < p->nlessons; i++) {
        const struct lesson *l = &p->lessons[i];
        json_object(j, NULL);
        json_string(j, "id", l->id);
        json_string(j, "title", l->title);
        json_string(j, "summary", l->summary);
        json_array(j, "steps");
        for (size_t k = 0; k < l->nsteps; k++) {
            const struct lesson_step *s = &l->steps[k];
            char name[128];
            snprintf(name, sizeof name, "%s/%s", l->id, s->id);
            json_object(j, NULL);
            json_string(j, "id", name);
            json_string(j, "step", s->id);
            json_string(j, "title", s->title);
            json_string(j, "kind", lesson_step_kind_name(s));
            cmd_list_json_scenario(j, lesson_step_scenario(s));
            json_end(j);
        }
        json_end(j);
        json_end(j);
    }
    json_end(j);
    json_end(j);
}

/* Titles, summaries and mode ids are the pack's own text: out escapes them (termsafe.h). */
static void cmd_list_text_pack(FILE *out, const struct lesson_pack *p)
{
    fprintf(out, "%s: %s (version %s, %s)\n", p->id, p->title, p->version, p->dir);
    for (size_t i = 0; i < p->nlessons; i++) {
        const struct lesson *l = &p->lessons[i];
        fprintf(out, "\n  %s: %s\n    %s\n", l->id, l->title, l->summary);
        for (size_t j = 0; j < l->nsteps; j++) {
            const struct lesson_step *s = &l->steps[j];
            char name[128];
            snprintf(name, sizeof name, "%s/%s", l->id, s->id);
            const struct lesson_scenario *sc = lesson_step_scenario(s);
            fprintf(out, "    %-28s %-4s  %s\n", name, lesson_step_kind_name(s), s->title);
            if (sc && sc->nmodes) {
                fputs("    modes:", out);
                for (size_t m = 0; m < sc->nmodes; m++)
                    fprintf(out, " [%c] %s%s", sc->modes[m].key, sc->modes[m].id,
                            m == sc->default_mode ? " (default)" : "");
                fputc('\n', out);
            }
        }
    }
}

/*
 * Every call the counting shim counts, as a check's "calls:NAME" names it, with the system call
 * strace shows for it ("" for a library call that enters the kernel only sometimes). A call not
 * in this list is not counted: iolab shows it as "not counted", never as 0.
 */
static void cmd_list_json_calls(struct json_out *j)
{
    json_array(j, "counted_calls");
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        json_object(j, NULL);
        json_string(j, "name", iolab_call_info[c].label);
        json_string(j, "system_call", iolab_call_info[c].strace_name);
        json_end(j);
    }
    json_end(j);
}

/* Whether two names are one directory (the built-in pack given again with --pack). */
static bool cmd_list_same_dir(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    return realpath(a, ra) && realpath(b, rb) && !strcmp(ra, rb);
}

/*
 * Packs are found by id (`iolab run --pack ID`), so two with one id cannot both be reached that
 * way: each such pair is named, once, while both are still listed. ids[i] is dirs[i]'s pack's
 * id, or NULL when it did not load.
 */
static void cmd_list_warn_duplicates(char *const *dirs, char *const *ids, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && ids[i]; j++)
            if (ids[j] && !strcmp(ids[i], ids[j]) && !cmd_list_same_dir(dirs[i], dirs[j]))
                cmd_error("warning: the packs in %s and %s both have the id '%s', so `--pack "
                          "%s` cannot tell them apart; change one pack.json's \"id\".",
                          dirs[i], dirs[j], ids[i], ids[i]);
}

/* What cmd_list_exec's visitor keeps of the packs packfind_each() reads: each one's directory
   and id (NULL when it did not load), for cmd_list_warn_duplicates(). */
struct cmd_list_walk {
    bool json;
    struct json_out j;
    size_t n, shown;
    char *dirs[CMD_LIST_MAX_PACKS], *ids[CMD_LIST_MAX_PACKS];
    int status;
};

static void cmd_list_note(struct cmd_list_walk *w, const char *dir, const char *id)
{
    if (w->n >= CMD_LIST_MAX_PACKS)
        return;
    w->dirs[w->n] = strdup(dir);
    w->ids[w->n] = id ? strdup(id) : NULL;
    w->n++;
}

static bool cmd_list_visit(void *data, const char *dir, struct lesson_pack *pack)
{
    struct cmd_list_walk *w = data;
    if (w->json) {
        cmd_list_json_pack(&w->j, pack);
    } else {
        FILE *out = termsafe_open(stdout);
        if (!out) {
            cmd_error("out of memory.");
            w->status = 1;
            return false;
        }
        if (w->shown)
            fputc('\n', out);
        cmd_list_text_pack(out, pack);
        fclose(out);
    }
    w->shown++;
    cmd_list_note(w, dir, pack->id);
    return false;
}

static void cmd_list_failed(void *data, const char *dir, const struct lesson_diags *diags)
{
    struct cmd_list_walk *w = data;
    lesson_diags_print(stderr, diags);
    cmd_error("pack %s has problems (above) and is not listed; `iolab lint %s` checks it.", dir,
              dir);
    w->status = 1;
    cmd_list_note(w, dir, NULL);
}

static int cmd_list_exec(int argc, char **argv)
{
    bool json = false;
    /* The built-in pack first, then those named, then the installed ones (packfind_each). */
    const char *named[CMD_LIST_MAX_PACKS - 1];
    struct cmdopt_words packs = {.v = named, .max = CMD_LIST_MAX_PACKS - 1};
    const struct cmdopt table[] = {
        {.name = "pack", .kind = CMDOPT_TEXTS, .to.texts = &packs, .arg = "DIR"},
        {.name = "json", .kind = CMDOPT_FLAG, .to.flag = &json},
        {0},
    };
    const struct cmdopt_cmd cmd = {
        .name = "list", .words = NULL, .word = NULL, .opts = table, .usage = cmd_list_usage};
    int parsed = cmdopt_parse(&cmd, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    struct cmd_list_walk *w = calloc(1, sizeof *w);
    if (!w) {
        cmd_error("out of memory.");
        return 1;
    }
    w->json = json;
    json_init(&w->j, stdout);
    if (json) {
        json_object(&w->j, NULL);
        json_array(&w->j, "packs");
    }
    const struct packfind_visitor v = {
        .visit = cmd_list_visit, .failed = cmd_list_failed, .data = w};
    packfind_each(true, named, packs.n, &v);
    if (json) {
        json_end(&w->j);
        cmd_list_json_calls(&w->j);
        json_end(&w->j);
        fputc('\n', stdout);
    }
    fflush(stdout);
    cmd_list_warn_duplicates(w->dirs, w->ids, w->n);
    for (size_t i = 0; i < w->n; i++) {
        free(w->dirs[i]);
        free(w->ids[i]);
    }
    int status = w->status;
    free(w);
    return status;
}

const struct cmd_entry cmd_list_entry = {
    .name = "list",
    .usage = "[--pack DIR] [--json]",
    .summary = "list lesson packs, lessons and steps",
    .exec = cmd_list_exec,
};
