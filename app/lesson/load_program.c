/*
 * load_program: the programs and arguments a step names, as the loader and the kinds' parsers
 * (kind_run.c) read them: a program's absolute path (one the pack builds, an executable in the
 * pack, or one on the PATH), the sentence when it is missing, and the placeholders an argument
 * may use. The kinds depend on this file and on the reader (load_read.c), never on the pack's
 * loader (lesson_load.c), which depends on the kinds.
 */
#include "load.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LOAD_DEFAULT_PATH "/usr/local/bin:/usr/bin:/bin"

static int load_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The absolute path of a program as a lesson names it (see lesson.h), or NULL. */
/* A path inside the pack: relative, no empty, "." or ".." component. */
int load_inside_pack(const char *rel)
{
    if (!rel[0] || rel[0] == '/')
        return 0;
    for (const char *c = rel; *c;) {
        size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        c += n;
        if (*c == '/' && !*++c)
            return 0;
    }
    return 1;
}

/* "./tools/x" or "tools/x" as the pack path "tools/x" (leading "./" dropped). */
const char *load_pack_rel(const char *prog)
{
    while (!strncmp(prog, "./", 2))
        prog += 2;
    return prog;
}

/* A program named relative to the pack: one the pack builds, or an executable file in it. */
static char *load_pack_program(struct load *ld, const char *prog)
{
    const char *rel = load_pack_rel(prog);
    if (!load_inside_pack(rel))
        return NULL;
    for (size_t i = 0; ld->pack && i < ld->pack->nbuilds; i++)
        if (!strcmp(ld->pack->builds[i].program, rel))
            return load_strdup(ld, ld->pack->builds[i].path);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", ld->dir, rel);
    if ((ld->opts && ld->opts->files) || !load_executable(path))
        return NULL;
    char *real = realpath(path, NULL);
    if (!real)
        ld->nomem = 1;
    return real;
}

char *load_find_program(struct load *ld, const char *prog)
{
    char path[4096];
    if (strchr(prog, '/') && prog[0] != '/')
        return load_pack_program(ld, prog);
    if (strchr(prog, '/'))
        return load_executable(prog) ? load_strdup(ld, prog) : NULL;
    if (ld->opts && ld->opts->libexec_dir) {
        snprintf(path, sizeof path, "%s/%s", ld->opts->libexec_dir, prog);
        if (load_executable(path))
            return load_strdup(ld, path);
    }
    const char *env = getenv("PATH");
    char *dirs = load_strdup(ld, env && *env ? env : LOAD_DEFAULT_PATH), *save = NULL;
    char *found = NULL;
    for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d && !found;
         d = strtok_r(NULL, ":", &save)) {
        /* A relative PATH entry would depend on where iolab was started: ignore it. */
        if (d[0] != '/')
            continue;
        snprintf(path, sizeof path, "%s/%s", d, prog);
        if (load_executable(path))
            found = load_strdup(ld, path);
    }
    free(dirs);
    return found;
}

void load_program_missing(struct load *ld, const cJSON *v)
{
    const char *prog = v->valuestring;
    if (strchr(prog, '/') && prog[0] != '/') {
        const char *rel = load_pack_rel(prog);
        if (!load_inside_pack(rel))
            load_diag(ld, v, 0,
                      "program \"%s\" leaves the pack; name a file inside it, such as "
                      "\"./tools/NAME\".",
                      prog);
        else
            load_diag(ld, v, 0,
                      "program \"%s\" is neither an executable file of this pack (%s) nor "
                      "built by pack.json's \"build\"; add the file or a build entry for \"%s\".",
                      prog, rel, rel);
        return;
    }
    if (strchr(prog, '/')) {
        load_diag(ld, v, 0, "program \"%s\" does not exist or is not executable; fix the path.",
                  prog);
        return;
    }
    /* Suggest among the demos, the likeliest thing a lesson meant. */
    char *names[LOAD_MAX_CANDIDATES];
    size_t n = 0;
    DIR *d = ld->opts && ld->opts->libexec_dir ? opendir(ld->opts->libexec_dir) : NULL;
    for (struct dirent *e; d && n < LOAD_MAX_CANDIDATES && (e = readdir(d));)
        if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
            n++;
    if (d)
        closedir(d);
    char why[160];
    load_diag(ld, v, 0, "program \"%s\" is neither an iolab demo nor a command in PATH; %s", prog,
              load_suggest(why, sizeof why, prog, (const char *const *)names, n,
                           "fix the name, build the demos, or install the command."));
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}

static const char *const load_placeholders[] = {LESSON_PLACEHOLDERS};
#define LOAD_NPLACEHOLDERS (sizeof load_placeholders / sizeof *load_placeholders)

/* Reports every {name} in the argument strings of array v that is not a known placeholder. */
void load_placeholders_check(struct load *ld, const cJSON *v)
{
    const cJSON *e;
    cJSON_ArrayForEach(e, v)
    {
        if (!cJSON_IsString(e))
            continue;
        for (const char *s = strchr(e->valuestring, '{'); s; s = strchr(s + 1, '{')) {
            size_t n = strspn(s + 1, "abcdefghijklmnopqrstuvwxyz_0123456789");
            /* Only {word} is a placeholder; other braces (JSON, shell) pass through as text. */
            if (!n || s[1 + n] != '}' || n >= 64)
                continue;
            char name[64];
            memcpy(name, s + 1, n);
            name[n] = '\0';
            size_t k = 0;
            while (k < LOAD_NPLACEHOLDERS && strcmp(name, load_placeholders[k]))
                k++;
            if (k < LOAD_NPLACEHOLDERS || (ld->sweep_param && !strcmp(name, ld->sweep_param)))
                continue;
            const char *c = load_closest(name, load_placeholders, LOAD_NPLACEHOLDERS);
            if (c)
                load_diag(ld, e, 0, "{%s} is not a placeholder; did you mean {%s}?", name, c);
            else
                load_diag(ld, e, 0,
                          "{%s} is not a placeholder; use {port}, {host}, {workdir} or {seconds}.",
                          name);
        }
    }
}
