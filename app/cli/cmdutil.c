/*
 * cmdutil: what the subcommands share: the error sentence on stderr (escaped), loading the pack
 * a command runs (by directory, or by --pack ID and the lesson it names) and building the
 * programs it brings. Apart from cli.c, which picks the subcommand: the subcommands depend on
 * this file, and cli.c on them.
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
