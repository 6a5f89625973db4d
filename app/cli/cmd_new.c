/*
 * iolab new DIR [--id ID] [--title TEXT]: writes a small pack that passes lint, for an author to
 * rewrite: one lesson with a text step, a run step on a built-in demo, a quiz and an exercise
 * with its own solution, each step's text saying what its keys do, and a README.md on working with
 * the pack. The files are a template installed with iolab (share/iolab/template, from
 * assets/template), whose @WORD@s are filled in here.
 *
 * Nothing is ever overwritten: DIR must not exist or be an empty directory. The pack is written
 * into a fresh sibling directory and renamed into place at the end, so a failure half-way
 * leaves nothing behind and DIR is either the whole pack or untouched.
 */
#include "cmd.h"
#include "cmdopt.h"
#include "fileread.h"
#include "paths.h"

#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NEW_MAX_TEMPLATE (1 << 20)
#define NEW_MAX_ID       40

/* The words a template file may contain, and their values (JSON-escaped in .json files). */
struct new_words {
    const char *id, *title, *schema_dir, *pack_dir;
};

static void cmd_new_usage(FILE *out)
{
    fputs("usage: iolab new DIR [--id ID] [--title TEXT]\n\n"
          "Writes a small lesson pack into DIR (which must not exist, or be empty): pack.json,\n"
          "one lesson with a text step, a run step, a quiz and an exercise with its solution, and\n"
          "a README.md saying how to lint, check and try it. Each step's text says what its keys\n"
          "do. --id sets the pack's id (default: DIR's name), --title its title.\n",
          out);
}

/* DIR's last component as an id: lowercase letters, digits, '-' and '_'; "" when nothing fits. */
static void cmd_new_default_id(const char *dir, char *id, size_t len)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && dir[start - 1] != '/')
        start--;
    size_t k = 0;
    for (size_t i = start; i < n && k + 1 < len && k < NEW_MAX_ID; i++) {
        char c = dir[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
            c = '-';
        if (k == 0 && (c == '-' || c == '_'))
            continue;
        id[k++] = c;
    }
    id[k] = '\0';
}

static bool cmd_new_id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n > NEW_MAX_ID || !strchr("abcdefghijklmnopqrstuvwxyz0123456789", id[0]))
        return false;
    return strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789-_") == n;
}

/* Appends s to the growing buffer, JSON-escaped when json. */
static int cmd_new_put(char **buf, size_t *len, size_t *cap, const char *s, size_t n, bool json)
{
    for (size_t i = 0; i < n; i++) {
        char esc[8];
        const char *p = &s[i];
        size_t m = 1;
        unsigned char c = (unsigned char)s[i];
        if (json && (c == '"' || c == '\\')) {
            esc[0] = '\\';
            esc[1] = (char)c;
            p = esc;
            m = 2;
        } else if (json && c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            p = esc;
            m = 6;
        }
        if (*len + m + 1 > *cap) {
            size_t ncap = (*cap ? *cap * 2 : 4096) + m;
            char *v = realloc(*buf, ncap);
            if (!v)
                return -ENOMEM;
            *buf = v;
            *cap = ncap;
        }
        memcpy(*buf + *len, p, m);
        *len += m;
    }
    if (*buf)
        (*buf)[*len] = '\0';
    return 0;
}

/* The template text with its @WORD@s filled in; malloc'ed, or NULL when out of memory. */
static char *cmd_new_fill(const char *text, size_t tlen, const struct new_words *w, bool json,
                          size_t *out_len)
{
    const struct {
        const char *word, *value;
    } words[] = {{"@PACK_ID@", w->id},
                 {"@PACK_TITLE@", w->title},
                 {"@SCHEMA_DIR@", w->schema_dir},
                 {"@PACK_DIR@", w->pack_dir}};
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int rc = cmd_new_put(&buf, &len, &cap, "", 0, false);
    for (size_t i = 0; i < tlen && rc == 0;) {
        size_t k = 0, wl = 0;
        for (; k < sizeof words / sizeof *words; k++) {
            wl = strlen(words[k].word);
            if (i + wl <= tlen && !memcmp(text + i, words[k].word, wl))
                break;
        }
        if (k < sizeof words / sizeof *words) {
            rc = cmd_new_put(&buf, &len, &cap, words[k].value, strlen(words[k].value), json);
            i += wl;
        } else {
            rc = cmd_new_put(&buf, &len, &cap, text + i, 1, false);
            i++;
        }
    }
    if (rc < 0 || !buf) {
        free(buf);
        return NULL;
    }
    *out_len = len;
    return buf;
}

static int cmd_new_file(const char *from, const char *to, const struct new_words *w)
{
    char *text = NULL;
    size_t tlen = 0;
    mode_t mode = 0;
    int rc = fileread_regular(from, NEW_MAX_TEMPLATE, &text, &tlen, &mode);
    if (rc < 0)
        return rc;
    size_t n = strlen(to), flen = 0;
    char *filled = cmd_new_fill(text, tlen, w, n > 5 && !strcmp(to + n - 5, ".json"), &flen);
    free(text);
    if (!filled)
        return -ENOMEM;
    FILE *f = fopen(to, "wx");
    rc = f ? 0 : -errno;
    if (f && fwrite(filled, 1, flen, f) != flen)
        rc = -EIO;
    if (f && fclose(f) != 0 && rc == 0)
        rc = -errno;
    free(filled);
    return rc;
}

/* s quoted for a POSIX shell when it needs it ("My Pack" -> 'My Pack'), so that the commands
   printed and written into the README can be pasted as they are. */
static void cmd_new_quote(const char *s, char *out, size_t len)
{
    if (s[0] &&
        strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./-+,:@%") ==
            strlen(s)) {
        snprintf(out, len, "%s", s);
        return;
    }
    size_t k = 0;
    if (k + 1 < len)
        out[k++] = '\'';
    for (; *s && k + 5 < len; s++) {
        if (*s == '\'') {
            memcpy(out + k, "'\\''", 4);
            k += 4;
        } else {
            out[k++] = *s;
        }
    }
    if (k + 1 < len)
        out[k++] = '\'';
    out[k] = '\0';
}

/* Copies the template directory from into to (which exists), recursively. */
static int cmd_new_tree(const char *from, const char *to, const struct new_words *w, char *why,
                        size_t whylen)
{
    struct dirent **names = NULL;
    int n = scandir(from, &names, NULL, alphasort);
    if (n < 0) {
        snprintf(why, whylen, "cannot read the template %s: %s", from, strerror(errno));
        return -errno;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char src[PATH_MAX], dst[PATH_MAX];
        struct stat st;
        if (rc == 0 && name[0] != '.' &&
            snprintf(src, sizeof src, "%s/%s", from, name) < (int)sizeof src &&
            snprintf(dst, sizeof dst, "%s/%s", to, name) < (int)sizeof dst && stat(src, &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                rc = mkdir(dst, 0755) < 0 ? -errno : cmd_new_tree(src, dst, w, why, whylen);
                if (rc < 0 && !why[0])
                    snprintf(why, whylen, "cannot create %s: %s", dst, strerror(-rc));
            } else if ((rc = cmd_new_file(src, dst, w)) < 0) {
                snprintf(why, whylen, "cannot write %s from %s: %s", dst, src, strerror(-rc));
            }
        }
        free(names[i]);
    }
    free(names);
    return rc;
}

static int cmd_new_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* DIR may be written: it does not exist, or is an empty directory. */
static bool cmd_new_target_ok(const char *dir)
{
    struct stat st;
    if (stat(dir, &st) < 0) {
        if (errno == ENOENT)
            return true;
        cmd_error("cannot use %s: %s.", dir, strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        cmd_error("%s exists and is not a directory; name a new directory for the pack.", dir);
        return false;
    }
    DIR *d = opendir(dir);
    bool empty = d != NULL;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            empty = false;
    if (d)
        closedir(d);
    if (!empty)
        cmd_error("%s is not empty; iolab new never overwrites anything: name a new directory.",
                  dir);
    return empty;
}

static int cmd_new_exec(int argc, char **argv)
{
    const char *dir = NULL, *id_opt = NULL, *title = NULL;
    const struct cmdopt table[] = {
        {.name = "id", .kind = CMDOPT_TEXT, .to.text = &id_opt, .arg = "ID"},
        {.name = "title", .kind = CMDOPT_TEXT, .to.text = &title, .arg = "TEXT"},
        {0},
    };
    const char *words[1];
    struct cmdopt_words args = {.v = words, .max = 1};
    const struct cmdopt_cmd cmd = {
        .name = "new", .words = "DIR", .word = &args, .opts = table, .usage = cmd_new_usage};
    int parsed = cmdopt_parse(&cmd, argc, argv);
    if (parsed)
        return parsed < 0 ? 0 : parsed;
    dir = args.n ? words[0] : NULL;
    if (!dir) {
        cmd_error("new needs a directory to write the pack into: iolab new DIR.");
        return 2;
    }
    char id[NEW_MAX_ID + 1];
    if (id_opt) {
        if (!cmd_new_id_ok(id_opt)) {
            cmd_error("'%s' is not a pack id; use up to 40 lowercase letters, digits, '-' and "
                      "'_', starting with a letter or digit.",
                      id_opt);
            return 2;
        }
        snprintf(id, sizeof id, "%s", id_opt);
    } else {
        cmd_new_default_id(dir, id, sizeof id);
        if (!id[0])
            snprintf(id, sizeof id, "my-pack");
    }
    if (!title || !title[0])
        title = "A new iolab pack";
    if (strlen(title) > 200) {
        cmd_error("the title is longer than 200 characters; shorten it.");
        return 2;
    }
    if (!cmd_new_target_ok(dir))
        return 1;
    char tmpl[PATH_MAX], schema[PATH_MAX], tmp[PATH_MAX];
    if (paths_get(PATHS_TEMPLATE, tmpl, sizeof tmpl) < 0 ||
        paths_get(PATHS_SCHEMA, schema, sizeof schema) < 0) {
        cmd_error("cannot find iolab's pack template next to the iolab program.");
        return 1;
    }
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    if (snprintf(tmp, sizeof tmp, "%.*s.new-XXXXXX", (int)dl, dir) >= (int)sizeof tmp) {
        cmd_error("the directory name is too long.");
        return 2;
    }
    if (!mkdtemp(tmp)) {
        cmd_error("cannot create a directory beside %s: %s.", dir, strerror(errno));
        return 1;
    }
    chmod(tmp, 0755);
    /* The pack carries a copy of iolab's schemas in schema/ and names them by a path relative
       to its own files: the pack travels (to another machine, another iolab, a repository)
       and an editor still finds them; an absolute path of this iolab would not. */
    char qdir[PATH_MAX * 4 + 3];
    cmd_new_quote(dir, qdir, sizeof qdir);
    struct new_words w = {.id = id, .title = title, .schema_dir = "schema", .pack_dir = qdir};
    char why[PATH_MAX * 2 + 64] = "";
    int rc = cmd_new_tree(tmpl, tmp, &w, why, sizeof why);
    static const char *const schemas[] = {"pack.schema.json", "lesson.schema.json"};
    char sdir[PATH_MAX + 8];
    snprintf(sdir, sizeof sdir, "%s/schema", tmp);
    if (rc == 0 && mkdir(sdir, 0755) < 0) {
        rc = -errno;
        snprintf(why, sizeof why, "cannot create %s: %s", sdir, strerror(errno));
    }
    for (size_t i = 0; rc == 0 && i < sizeof schemas / sizeof *schemas; i++) {
        char src[PATH_MAX * 2], dst[PATH_MAX * 2];
        snprintf(src, sizeof src, "%s/%s", schema, schemas[i]);
        snprintf(dst, sizeof dst, "%s/%s", sdir, schemas[i]);
        if ((rc = cmd_new_file(src, dst, &w)) < 0)
            snprintf(why, sizeof why, "cannot copy the schema %s: %s", src, strerror(-rc));
    }
    /* rename() replaces an empty directory: DIR becomes the whole pack at once. */
    if (rc == 0 && rename(tmp, dir) < 0) {
        rc = -errno;
        snprintf(why, sizeof why, "cannot move the pack into %s: %s", dir, strerror(errno));
    }
    if (rc < 0) {
        nftw(tmp, cmd_new_rm_one, 16, FTW_DEPTH | FTW_PHYS);
        cmd_error("%s; nothing was written.", why);
        return 1;
    }
    printf("Wrote the pack \"%s\" (id %s) in %s:\n"
           "  pack.json, first.json (a text step, a run step, a quiz, an exercise),\n"
           "  exercises/first/echo/echo.c (the exercise's solution), README.md,\n"
           "  schema/ (iolab's JSON Schemas, which the files name for an editor)\n"
           "Next:\n"
           "  iolab lint %s\n"
           "  iolab check --pack %s --solutions\n"
           "  iolab --pack %s\n",
           title, id, dir, qdir, qdir, qdir);
    return 0;
}

const struct cmd_entry cmd_new_entry = {
    .name = "new",
    .usage = "DIR [--id ID] [--title TEXT]",
    .summary = "write a small lesson pack to start from",
    .exec = cmd_new_exec,
};
