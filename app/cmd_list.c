/*
 * iolab list [--pack DIR] [--json]: every pack iolab can see (the built-in one, --pack DIRs, and
 * packs installed under $XDG_DATA_HOME/iolab/packs/), with their lessons and steps named the way
 * `iolab run` takes them (concurrency/compare). A pack that does not load is reported on stderr
 * and makes the exit status 1; the others are still listed.
 *
 * The JSON is written by hand: only the lesson loader touches cJSON.
 */
#include "cmd.h"
#include "lesson/lesson.h"
#include "paths.h"

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
          "names `iolab run` takes. --json prints one JSON object instead.\n",
          out);
}

/* A JSON string literal; control characters escaped, UTF-8 passed through. */
static void cmd_list_json_str(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static void cmd_list_json_pack(FILE *out, const struct lesson_pack *p)
{
    fputs("{\"id\":", out);
    cmd_list_json_str(out, p->id);
    fputs(",\"title\":", out);
    cmd_list_json_str(out, p->title);
    fputs(",\"version\":", out);
    cmd_list_json_str(out, p->version);
    fputs(",\"dir\":", out);
    cmd_list_json_str(out, p->dir);
    fputs(",\"lessons\":[", out);
    for (size_t i = 0; i < p->nlessons; i++) {
        const struct lesson *l = &p->lessons[i];
        fputs(i ? ",{\"id\":" : "{\"id\":", out);
        cmd_list_json_str(out, l->id);
        fputs(",\"title\":", out);
        cmd_list_json_str(out, l->title);
        fputs(",\"summary\":", out);
        cmd_list_json_str(out, l->summary);
        fputs(",\"steps\":[", out);
        for (size_t j = 0; j < l->nsteps; j++) {
            const struct lesson_step *s = &l->steps[j];
            fprintf(out, "%s{\"id\":\"%s/%s\",\"step\":", j ? "," : "", l->id, s->id);
            cmd_list_json_str(out, s->id);
            fputs(",\"title\":", out);
            cmd_list_json_str(out, s->title);
            fprintf(out, ",\"kind\":\"%s\"", lesson_step_kind_name(s->kind));
            if (s->run) {
                const struct lesson_scenario *sc = s->run;
                fprintf(out, ",\"seconds\":%g,\"modes\":[", sc->seconds);
                for (size_t m = 0; m < sc->nmodes; m++) {
                    fputs(m ? ",{\"id\":" : "{\"id\":", out);
                    cmd_list_json_str(out, sc->modes[m].id);
                    fputs(",\"title\":", out);
                    cmd_list_json_str(out, sc->modes[m].title);
                    fprintf(out, ",\"key\":\"%c\"}", sc->modes[m].key);
                }
                fputs("]", out);
                if (sc->nmodes) {
                    fputs(",\"default_mode\":", out);
                    cmd_list_json_str(out, sc->modes[sc->default_mode].id);
                }
            }
            fputs("}", out);
        }
        fputs("]}", out);
    }
    fputs("]}", out);
}

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
            fprintf(out, "    %-28s %-4s  %s\n", name, lesson_step_kind_name(s->kind), s->title);
            if (s->run && s->run->nmodes) {
                fputs("    modes:", out);
                for (size_t m = 0; m < s->run->nmodes; m++)
                    fprintf(out, " [%c] %s%s", s->run->modes[m].key, s->run->modes[m].id,
                            m == s->run->default_mode ? " (default)" : "");
                fputc('\n', out);
            }
        }
    }
}

static int cmd_list_exec(int argc, char **argv)
{
    char *dirs[CMD_LIST_MAX_PACKS];
    size_t ndirs = 0;
    bool json = false;
    int status = 0;
    char builtin[PATH_MAX];
    if (paths_get(PATHS_PACK, builtin, sizeof builtin) == 0)
        dirs[ndirs++] = strdup(builtin);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            cmd_list_usage(stdout);
            status = -1;
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else if (!strcmp(argv[i], "--pack") && i + 1 < argc && ndirs < CMD_LIST_MAX_PACKS) {
            dirs[ndirs++] = strdup(argv[++i]);
        } else {
            cmd_error("list takes --pack DIR, --json and --help; '%s' is none of them.", argv[i]);
            status = 2;
        }
        if (status)
            goto out;
    }
    paths_installed_packs(dirs, &ndirs, CMD_LIST_MAX_PACKS);

    char libexec[PATH_MAX];
    struct lesson_load_options opts = {.libexec_dir = NULL};
    if (paths_get(PATHS_LIBEXEC, libexec, sizeof libexec) == 0)
        opts.libexec_dir = libexec;
    if (json)
        fputs("{\"packs\":[", stdout);
    size_t shown = 0;
    for (size_t i = 0; i < ndirs; i++) {
        struct lesson_pack *pack = NULL;
        struct lesson_diags diags = {0};
        if (!dirs[i] || lesson_pack_load(dirs[i], &opts, &pack, &diags) < 0) {
            lesson_diags_print(stderr, &diags);
            cmd_error("pack %s has problems (above) and is not listed; `iolab lint %s` checks it.",
                      dirs[i] ? dirs[i] : "?", dirs[i] ? dirs[i] : "DIR");
            lesson_diags_free(&diags);
            status = 1;
            continue;
        }
        if (json) {
            if (shown)
                fputc(',', stdout);
            cmd_list_json_pack(stdout, pack);
        } else {
            if (shown)
                fputc('\n', stdout);
            cmd_list_text_pack(stdout, pack);
        }
        shown++;
        lesson_pack_free(pack);
        lesson_diags_free(&diags);
    }
    if (json)
        fputs("]}\n", stdout);
out:
    for (size_t i = 0; i < ndirs; i++)
        free(dirs[i]);
    return status < 0 ? 0 : status;
}

const struct cmd_entry cmd_list_entry = {
    .name = "list",
    .usage = "[--pack DIR] [--json]",
    .summary = "list lesson packs, lessons and steps",
    .exec = cmd_list_exec,
};
