/*
 * iolab progress [--json] | --reset [LESSON] [--pack ID] [--yes]: shows or forgets what the
 * learner has done. --export FILE [--learner NAME], --import FILE [--as-mine] and --summary
 * FILE... [--csv]
 * move it between machines and to an instructor (progress/exchange.h; cmd_progress_exchange()).
 * Reading never changes the file, except that a damaged one is moved aside (and reported here on
 * stderr). A reset asks first on a terminal; without one it needs --yes, so a script cannot wipe
 * progress by accident.
 */
#include "cmd.h"
#include "cmdopt.h"
#include "packfind.h"
#include "fileread.h"
#include "exchange.h"
#include "lesson/lesson.h"
#include "lesson/quiz.h"
#include "paths.h"
#include "progress.h"
#include "termsafe.h"

#include <errno.h>
#include <pwd.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Ids, steps and answers come from the progress file, which an import fills from another
   person's export: out escapes them (termsafe.h). */
static void cmd_progress_print(FILE *out, const struct progress *p)
{
    if (p->npacks == 0) {
        fprintf(out, "No progress yet: `iolab` opens the lessons.\n");
        return;
    }
    for (size_t i = 0; i < p->npacks; i++) {
        const struct progress_pack *pk = &p->packs[i];
        fprintf(out, "pack %s: %zu step%s done", pk->id, pk->ndone, pk->ndone == 1 ? "" : "s");
        if (pk->last_lesson)
            fprintf(out, ", last at %s/%s", pk->last_lesson, pk->last_step ? pk->last_step : "");
        fputc('\n', out);
        for (size_t j = 0; j < pk->ndone; j++)
            fprintf(out, "  done  %s\n", pk->done[j]);
        for (size_t j = 0; j < pk->nanswers; j++)
            fprintf(out, "  answer %s: %s\n", pk->answers[j].step, pk->answers[j].value);
    }
}

/* Why the progress file cannot be used, in one sentence. */
static void cmd_progress_load_error(const char *path, int rc)
{
    struct stat st;
    if (rc == -EINVAL && stat(path, &st) == 0)
        cmd_error("%s: not a regular file (%s); move it away and iolab starts a new one there.",
                  path, fileread_kind(st.st_mode));
    else if (rc == -EFBIG)
        cmd_error("%s: larger than %u MiB, the most iolab reads as progress; move it away and "
                  "iolab starts a new one there.",
                  path, PROGRESS_MAX_BYTES >> 20);
    else
        cmd_error("cannot read %s: %s.", path, strerror(-rc));
}

/* Whether any record of the pack belongs to lesson. */
static bool cmd_progress_has_lesson(const struct progress_pack *pk, const char *lesson)
{
    size_t ll = strlen(lesson);
    for (size_t j = 0; j < pk->ndone; j++)
        if (!strncmp(pk->done[j], lesson, ll) && pk->done[j][ll] == '/')
            return true;
    for (size_t j = 0; j < pk->nanswers; j++)
        if (!strncmp(pk->answers[j].step, lesson, ll) && pk->answers[j].step[ll] == '/')
            return true;
    return pk->last_lesson && !strcmp(pk->last_lesson, lesson);
}

/*
 * Appends to list (a comma-separated line of at most len bytes) the lessons that have records,
 * each once, in the order first seen.
 */
static void cmd_progress_add_lesson(char *list, size_t len, const char *key)
{
    const char *slash = strchr(key, '/');
    size_t n = slash ? (size_t)(slash - key) : strlen(key);
    for (const char *s = list; *s;) {
        const char *end = strchr(s, ',');
        size_t m = end ? (size_t)(end - s) : strlen(s);
        if (m == n && !strncmp(s, key, n))
            return;
        s = end ? end + 2 : s + m;
    }
    size_t used = strlen(list);
    snprintf(list + used, len - used, "%s%.*s", used ? ", " : "", (int)n, key);
}

/*
 * A reset of a pack or a lesson that has no records is almost always a typo; forgetting "0
 * records" and succeeding would hide it. Returns true (after saying so) when it names nothing.
 */
static bool cmd_progress_unknown(const struct progress *p, const char *pack, const char *lesson)
{
    char known[1024] = "";
    bool found = false;
    if (pack && !progress_pack_find(p, pack)) {
        for (size_t i = 0; i < p->npacks; i++)
            cmd_progress_add_lesson(known, sizeof known, p->packs[i].id);
        cmd_error("no progress is recorded for pack '%s'; %s%s.", pack,
                  known[0] ? "packs with progress: " : "no pack has any progress yet", known);
        return true;
    }
    if (!lesson)
        return false;
    for (size_t i = 0; i < p->npacks; i++) {
        const struct progress_pack *pk = &p->packs[i];
        if (pack && strcmp(pk->id, pack))
            continue;
        found |= cmd_progress_has_lesson(pk, lesson);
        for (size_t j = 0; j < pk->ndone; j++)
            cmd_progress_add_lesson(known, sizeof known, pk->done[j]);
        for (size_t j = 0; j < pk->nanswers; j++)
            cmd_progress_add_lesson(known, sizeof known, pk->answers[j].step);
        if (pk->last_lesson)
            cmd_progress_add_lesson(known, sizeof known, pk->last_lesson);
    }
    if (found)
        return false;
    cmd_error("no progress is recorded for lesson '%s'; %s%s.", lesson,
              known[0] ? "lessons with progress: " : "no lesson has any progress yet", known);
    return true;
}

/* Asks on the terminal; true only for an explicit yes. */
static bool cmd_progress_confirm(const char *what)
{
    termsafe_fprintf(stderr, "Forget %s? This cannot be undone. [y/N] ", what);
    fflush(stderr);
    char line[16];
    if (!fgets(line, sizeof line, stdin))
        return false;
    return line[0] == 'y' || line[0] == 'Y';
}

/* ---- export, import, summary ------------------------------------------------------------- */

#define PROGRESS_MAX_PACKS  64
#define PROGRESS_MAX_EXPORT (64u << 20) /* an export this large is not one */

/* What exchange needs of the packs iolab knows (the built-in and the installed ones). */
struct progress_packs {
    struct lesson_pack *packs[PROGRESS_MAX_PACKS];
    size_t n;
    struct exchange_pack_info info[PROGRESS_MAX_PACKS];
    char **steps[PROGRESS_MAX_PACKS];
    const struct lesson_step **step_defs[PROGRESS_MAX_PACKS]; /* an import checks records */
};

/* One pack seen by packfind_each(): kept in k->packs with its steps' names. */
struct progress_packs_load {
    struct progress_packs *k;
    char *where[PROGRESS_MAX_PACKS]; /* each kept pack's directory, to name a duplicate id */
    int status;
};

static bool cmd_progress_packs_visit(void *data, const char *dir, struct lesson_pack *pk)
{
    struct progress_packs_load *q = data;
    struct progress_packs *k = q->k;
    if (k->n >= PROGRESS_MAX_PACKS)
        return false;
    for (size_t j = 0; j < k->n && q->status == 0; j++)
        if (!strcmp(k->info[j].id, pk->id)) {
            cmd_error("two packs have the id '%s': %s and %s; iolab cannot tell which "
                      "one progress belongs to. Remove one, or give it another id in "
                      "its pack.json.",
                      pk->id, q->where[j], dir);
            q->status = -EEXIST;
        }
    q->where[k->n] = strdup(dir);
    size_t nsteps = 0;
    for (size_t l = 0; l < pk->nlessons; l++)
        nsteps += pk->lessons[l].nsteps;
    char **steps = calloc(nsteps + 1, sizeof *steps);
    const struct lesson_step **si = calloc(nsteps + 1, sizeof *si);
    size_t m = 0;
    for (size_t l = 0; steps && si && l < pk->nlessons; l++)
        for (size_t s = 0; s < pk->lessons[l].nsteps; s++)
            if (asprintf(&steps[m], "%s/%s", pk->lessons[l].id, pk->lessons[l].steps[s].id) >= 0)
                si[m++] = &pk->lessons[l].steps[s];
    k->packs[k->n] = pk;
    k->steps[k->n] = steps;
    k->step_defs[k->n] = si;
    k->info[k->n] = (struct exchange_pack_info){.id = pk->id,
                                                .version = pk->version,
                                                .title = pk->title,
                                                .steps = (const char *const *)steps,
                                                .nsteps = steps && si ? m : 0,
                                                .step_defs = (const struct lesson_step *const *)si};
    k->n++;
    return true;
}

/*
 * Loads the packs iolab knows (packfind_each). Two of them with one id are an ambiguity no record
 * can be matched through (which pack's steps would an import check against?): refused, as `run`
 * and `check` refuse it, naming both directories. A pack that does not load only loses its
 * version and step order in the export. 0, or -EEXIST after saying so.
 */
static int cmd_progress_packs_load(struct progress_packs *k)
{
    struct progress_packs_load q = {.k = k};
    const struct packfind_visitor v = {.visit = cmd_progress_packs_visit, .data = &q};
    packfind_each(true, NULL, 0, &v);
    for (size_t j = 0; j < k->n; j++)
        free(q.where[j]);
    return q.status;
}

static void cmd_progress_packs_free(struct progress_packs *k)
{
    for (size_t i = 0; i < k->n; i++) {
        for (size_t s = 0; k->steps[i] && s < k->info[i].nsteps; s++)
            free(k->steps[i][s]);
        free(k->steps[i]);
        free(k->step_defs[i]);
        lesson_pack_free(k->packs[i]);
    }
}

/* The login name ($LOGNAME, $USER, else the account's), as the export's default learner. */
static const char *cmd_progress_login(void)
{
    const char *names[] = {getenv("LOGNAME"), getenv("USER")};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (names[i] && names[i][0])
            return names[i];
    struct passwd *pw = getpwuid(getuid());
    return pw && pw->pw_name && pw->pw_name[0] ? pw->pw_name : "learner";
}

/* Writes text to path atomically ("-": stdout); 0 or -errno. */
static int cmd_progress_write(const char *path, const char *text)
{
    if (!strcmp(path, "-"))
        return puts(text) < 0 ? -EIO : 0;
    char tmp[PATH_MAX];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid()) >= (int)sizeof tmp)
        return -ENAMETOOLONG;
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -errno;
    int rc = fputs(text, f) < 0 || fputc('\n', f) < 0 ? -EIO : 0;
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    if (rc == 0 && rename(tmp, path) < 0)
        rc = -errno;
    if (rc < 0)
        unlink(tmp);
    return rc;
}

/* Reads an export (a regular file of bounded size); NULL after saying why. */
static char *cmd_progress_read(const char *path, size_t *len)
{
    char *text = NULL;
    mode_t mode = 0;
    int rc = fileread_regular(path, PROGRESS_MAX_EXPORT, &text, len, &mode);
    if (rc == -EINVAL)
        cmd_error("%s: not a regular file (%s); name an export written by `iolab progress "
                  "--export`.",
                  path, fileread_kind(mode));
    else if (rc == -EFBIG)
        cmd_error("%s: larger than %u MiB, too large to be a progress export.", path,
                  PROGRESS_MAX_EXPORT >> 20);
    else if (rc < 0)
        cmd_error("cannot read %s: %s.", path, strerror(-rc));
    return rc < 0 ? NULL : text;
}

static int cmd_progress_export(const struct progress *p, const char *file, const char *learner)
{
    struct progress_packs k = {0};
    if (cmd_progress_packs_load(&k) < 0) {
        cmd_progress_packs_free(&k);
        cmd_error("nothing was exported.");
        return 1;
    }
    char *text = exchange_export(p, learner ? learner : cmd_progress_login(), (long long)time(NULL),
                                 k.info, k.n);
    cmd_progress_packs_free(&k);
    if (!text) {
        cmd_error("out of memory while writing the export.");
        return 1;
    }
    int rc = cmd_progress_write(file, text);
    free(text);
    if (rc < 0) {
        cmd_error("cannot write %s: %s.", file, strerror(-rc));
        return 1;
    }
    if (strcmp(file, "-")) {
        size_t steps = 0;
        for (size_t i = 0; i < p->npacks; i++)
            steps += p->packs[i].ndone;
        termsafe_fprintf(stderr, "Wrote %s: %zu pack%s, %zu step%s done.\n", file, p->npacks,
                         p->npacks == 1 ? "" : "s", steps, steps == 1 ? "" : "s");
    }
    return 0;
}

static int cmd_progress_import(struct progress *p, const char *file, bool as_mine)
{
    size_t len = 0;
    char *text = cmd_progress_read(file, &len);
    if (!text)
        return 1;
    struct exchange_import_result r;
    char why[512];
    /* Records are checked against the packs installed here: a step removed since the export,
       or an answer out of range, must not count as done. */
    struct progress_packs k = {0};
    if (cmd_progress_packs_load(&k) < 0) {
        cmd_progress_packs_free(&k);
        free(text);
        cmd_error("nothing was imported.");
        return 1;
    }
    const char *me = cmd_progress_login();
    struct exchange_import_opts o = {.info = k.info,
                                     .ninfo = k.n,
                                     .me = me,
                                     .as_mine = as_mine,
                                     .file = file,
                                     .log = stdout,
                                     .refused = stderr};
    fflush(stdout);
    int rc = exchange_import(p, text, len, &o, &r, why, sizeof why);
    fflush(stderr);
    cmd_progress_packs_free(&k);
    free(text);
    if (rc == -EINVAL) {
        cmd_error("%s: %s; nothing was imported.", file, why);
        return 1;
    }
    if (rc == -EPERM) {
        cmd_error("%s is %s's progress, not yours (%s): nothing was imported; --as-mine imports "
                  "it when it is yours under another name.",
                  file, r.learner, me);
        return 1;
    }
    if (rc == 0)
        rc = progress_save(p);
    if (rc < 0) {
        cmd_error("cannot import %s: %s; nothing was changed.", file, strerror(-rc));
        return 1;
    }
    /* The export is another person's file: the learner's name is shown escaped. */
    termsafe_fprintf(
        stdout,
        "Imported %s's progress from %s: %zu step%s: %zu new, %zu newer than yours (taken), "
        "%zu older (yours kept, with what it added), %zu unchanged; %zu step%s now done.\n",
        r.learner, file, r.steps, r.steps == 1 ? "" : "s", r.added, r.taken, r.kept, r.unchanged,
        r.now_done, r.now_done == 1 ? "" : "s");
    if (r.left_out)
        printf("%zu record%s left out: %s not fit the packs installed here (named above).\n",
               r.left_out, r.left_out == 1 ? "" : "s", r.left_out == 1 ? "it does" : "they do");
    return 0;
}

static int cmd_progress_summary(const char **files, int n, bool csv)
{
    char **texts = calloc((size_t)n + 1, sizeof *texts);
    if (!texts)
        return 1;
    /* A file that cannot be read is named (cmd_progress_read) and left out, as one that is not
       an export: the others are still summed up, and the exit status says one was missing. */
    for (int i = 0; i < n; i++) {
        size_t len;
        texts[i] = cmd_progress_read(files[i], &len);
    }
    char why[600];
    struct progress_packs k = {0};
    int rc = cmd_progress_packs_load(&k) < 0 ? -EEXIST : 0;
    if (rc == 0)
        rc = exchange_summary(stdout, (const char *const *)files, (const char *const *)texts,
                              (size_t)n, k.info, k.n, csv, why, sizeof why);
    cmd_progress_packs_free(&k);
    if (rc == -EEXIST)
        cmd_error("nothing was summed up.");
    else if (rc < 0)
        cmd_error("%s; nothing was summed up.", why);
    int status = rc == 0 ? 0 : 1;
    for (int i = 0; texts && i < n; i++)
        free(texts[i]);
    free(texts);
    return status;
}

static void cmd_progress_usage(FILE *out)
{
    fputs("usage: iolab progress [--json]\n"
          "       iolab progress --reset [LESSON] [--pack ID] [--yes]\n"
          "       iolab progress --export FILE [--learner NAME]\n"
          "       iolab progress --import FILE [--as-mine]\n"
          "       iolab progress --summary FILE... [--csv]\n\n"
          "Shows what you have done in each lesson pack, or forgets it (all of it, or\n"
          "one lesson). --reset asks first; without a terminal it needs --yes.\n"
          "--export writes your progress to FILE ('-': standard output) for another\n"
          "machine or your instructor (learner: your login name unless --learner);\n"
          "--import merges such a file into yours: nothing is lost, the newer record of\n"
          "each step wins. A record that does not fit the packs installed here (a step\n"
          "the pack no longer has, another pack, an answer out of range) is named and\n"
          "left out. Another learner's export (its learner is not your login name) is\n"
          "refused unless --as-mine says it is yours under another name. --summary prints "
          "a table of learners by steps from exports\n"
          "(done, tries, solution viewed, the best score kept, points per learner, the\n"
          "packs' versions); --csv for a spreadsheet. The points are the learners' own\n"
          "records: to grade, run `iolab check --junit` in CI.\n",
          out);
}

/* --reset [LESSON] [--pack ID]: forgets what p holds of them after asking (unless yes), under
   the lock. The exit status. */
static int cmd_progress_reset(struct progress *p, const char *path, const char *pack,
                              const char *lesson, bool yes)
{
    int status = 0;
    if (cmd_progress_unknown(p, pack, lesson))
        return 1;
    char what[256];
    snprintf(what, sizeof what, "%s%s%s%s",
             lesson ? "your progress in lesson " : "all your progress", lesson ? lesson : "",
             pack ? " of pack " : "", pack ? pack : "");
    if (!yes) {
        if (!isatty(STDIN_FILENO)) {
            cmd_error("--reset asks before forgetting %s; without a terminal add --yes.", what);
            return 2;
        }
        if (!cmd_progress_confirm(what)) {
            fprintf(stderr, "Nothing was changed.\n");
            return 1;
        }
    }
    /* The confirmation was asked without the lock (a TUI must not wait on it); what changed on
     * disk meanwhile is taken in under the lock before the reset is applied and saved. */
    int lock = progress_lock(path);
    int rc = lock < 0 ? lock : progress_sync(p);
    size_t removed = rc < 0 ? 0 : progress_reset(p, pack, lesson);
    if (rc >= 0)
        rc = progress_save(p);
    progress_unlock(lock);
    if (rc < 0) {
        cmd_error("cannot write %s: %s; nothing was changed.", path, strerror(-rc));
        status = 1;
    } else {
        termsafe_fprintf(stdout, "Forgot %s (%zu record%s).\n", what, removed,
                         removed == 1 ? "" : "s");
    }
    return status;
}

static int cmd_progress_exec(int argc, char **argv)
{
    bool json = false, reset = false, yes = false, summary = false, csv = false, as_mine = false;
    const char *pack = NULL, *lesson = NULL, *export_file = NULL, *import_file = NULL,
               *learner = NULL;
    const struct cmdopt table[] = {
        {.name = "json", .kind = CMDOPT_FLAG, .to.flag = &json},
        {.name = "reset", .kind = CMDOPT_FLAG, .to.flag = &reset},
        {.name = "yes", .kind = CMDOPT_FLAG, .to.flag = &yes},
        {.name = "pack", .kind = CMDOPT_TEXT, .to.text = &pack, .arg = "ID"},
        {.name = "export", .kind = CMDOPT_TEXT, .to.text = &export_file, .arg = "FILE"},
        {.name = "import", .kind = CMDOPT_TEXT, .to.text = &import_file, .arg = "FILE"},
        {.name = "learner", .kind = CMDOPT_TEXT, .to.text = &learner, .arg = "NAME"},
        {.name = "summary", .kind = CMDOPT_FLAG, .to.flag = &summary},
        {.name = "csv", .kind = CMDOPT_FLAG, .to.flag = &csv},
        {.name = "as-mine", .kind = CMDOPT_FLAG, .to.flag = &as_mine},
        {0},
    };
    /* The words: a lesson after --reset, the exports after --summary. */
    const char **words = calloc((size_t)argc, sizeof *words);
    if (!words) {
        cmd_error("out of memory.");
        return 1;
    }
    struct cmdopt_words args = {.v = words, .max = (size_t)argc};
    const struct cmdopt_cmd cmd = {.name = "progress",
                                   .words = "LESSON (with --reset), FILE... (with --summary)",
                                   .word = &args,
                                   .opts = table,
                                   .usage = cmd_progress_usage};
    int parsed = cmdopt_parse(&cmd, argc, argv);
    if (parsed) {
        free(words);
        return parsed < 0 ? 0 : parsed;
    }
    if ((export_file != NULL) + (import_file != NULL) + summary + reset > 1) {
        cmd_error("--export, --import, --summary and --reset go one at a time.");
        free(words);
        return 2;
    }
    if ((learner && !export_file) || (csv && !summary) || (as_mine && !import_file)) {
        cmd_error("%s", learner   ? "--learner names who an --export is from; add --export FILE."
                        : as_mine ? "--as-mine is for --import FILE."
                                  : "--csv is for --summary FILE...");
        free(words);
        return 2;
    }
    /* Only --summary takes several words; the others are done with the array here. */
    if (summary && args.n) {
        int status = cmd_progress_summary(words, (int)args.n, csv);
        free(words);
        return status;
    }
    const char *first = args.n ? words[0] : NULL, *second = args.n > 1 ? words[1] : NULL;
    free(words);
    if (summary) {
        cmd_error("--summary needs the exports to sum up: iolab progress --summary FILE...");
        return 2;
    }
    if (first && reset)
        lesson = first;
    if (reset ? second != NULL : first != NULL) {
        cmd_error("unexpected argument '%s'; `iolab progress --help` shows the usage.",
                  reset ? second : first);
        return 2;
    }
    char path[PATH_MAX];
    int rc = progress_default_path(path, sizeof path);
    if (rc < 0) {
        cmd_error("cannot tell where progress is kept: set HOME or XDG_STATE_HOME.");
        return 1;
    }
    struct progress *p = NULL;
    /* An import is a read-modify-write of the file: under the lock from the load to the save,
     * so that a TUI saving meanwhile neither loses it nor is lost. */
    int lock = import_file ? progress_lock(path) : -1;
    if (import_file && lock < 0) {
        cmd_error("cannot lock %s.lock: %s; nothing was imported.", path, strerror(-lock));
        return 1;
    }
    rc = progress_load(path, &p);
    if (rc < 0) {
        progress_unlock(lock);
        cmd_progress_load_error(path, rc);
        return 1;
    }
    if (p->damaged)
        cmd_error("%s was damaged; it was moved to %s and progress starts over.", path, p->damaged);
    int status = 0;
    if (export_file || import_file) {
        status = export_file ? cmd_progress_export(p, export_file, learner)
                             : cmd_progress_import(p, import_file, as_mine);
        progress_unlock(lock);
        progress_free(p);
        return status;
    }
    if (!reset) {
        if (json) {
            char *text = progress_to_json(p);
            if (text)
                puts(text);
            status = text ? 0 : 1;
            free(text);
        } else {
            FILE *out = termsafe_open(stdout);
            if (out) {
                fprintf(out, "%s\n", path);
                cmd_progress_print(out, p);
                fclose(out);
            }
            status = out ? 0 : 1;
        }
        progress_free(p);
        return status;
    }
    status = cmd_progress_reset(p, path, pack, lesson, yes);
    progress_free(p);
    return status;
}

const struct cmd_entry cmd_progress_entry = {
    .name = "progress",
    .usage = "[--json|--reset [LESSON] [--yes]|--export FILE|--import FILE|--summary FILE...]",
    .summary = "what you have done; --reset forgets it; --export/--import/--summary share it",
    .exec = cmd_progress_exec,
};
