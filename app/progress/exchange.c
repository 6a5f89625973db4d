/*
 * exchange: see exchange.h. cJSON builds and reads the files; the store is changed only through
 * progress.h (progress_mark_done, progress_record_put), after the whole file has been checked.
 */
#include "exchange.h"
#include "progress_int.h"
#include "termsafe.h"

#include "jsontext.h"
#include "strmap.h"

#include "lesson/lesson.h"
#include "lesson/quiz.h"
#include "lesson/record.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXCHANGE_MAX_FIELDS 32 /* fields of one step's record, both sides together */

/* ---- export ------------------------------------------------------------------------------- */

/* Adds step key to arr unless listed already (seen holds the keys listed); false when out of
 * memory. */
static bool exchange_add_step(cJSON *arr, struct strmap *seen, const struct progress_pack *pk,
                              const char *key)
{
    int fresh = strmap_put(seen, key, 0);
    if (fresh <= 0)
        return fresh == 0;
    const struct progress_record *r = progress_pack_record(pk, key);
    bool done = progress_pack_is_done(pk, key);
    if (!r && !done)
        return true; /* a step of the pack with nothing recorded: not exported */
    cJSON *s = cJSON_CreateObject(), *fields = cJSON_CreateObject();
    if (!s || !fields || !cJSON_AddItemToArray(arr, s)) {
        cJSON_Delete(s);
        cJSON_Delete(fields);
        return false;
    }
    cJSON_AddStringToObject(s, "step", key);
    cJSON_AddBoolToObject(s, "done", done);
    progress_add_time(s, "done_at", r ? r->done_at : 0);
    progress_add_time(s, "updated", r ? r->updated : 0);
    cJSON_AddItemToObject(s, "fields", fields);
    /* The store checked each field is a JSON object: it goes out as it is. */
    for (size_t i = 0; r && i < r->nfields; i++)
        if (!cJSON_AddItemToObject(fields, r->fields[i].name, cJSON_CreateRaw(r->fields[i].json)))
            return false;
    return true;
}

/* Appends s to the text being built; false when out of memory. */
static bool exchange_cat(char **text, size_t *len, const char *s)
{
    if (!s)
        return false;
    size_t n = strlen(s);
    char *v = realloc(*text, *len + n + 1);
    if (!v)
        return false;
    memcpy(v + *len, s, n + 1);
    *text = v;
    *len += n;
    return true;
}

/* The export as text a person can read and a diff can follow: one line per step. */
static char *exchange_layout(const cJSON *root)
{
    char *text = NULL, *item = NULL;
    size_t len = 0;
    bool ok = exchange_cat(&text, &len, "{");
    for (const cJSON *k = root->child; ok && k; k = k->next) {
        bool packs = !strcmp(k->string, "packs");
        ok = exchange_cat(&text, &len, k == root->child ? "\n  \"" : ",\n  \"") &&
             exchange_cat(&text, &len, k->string) && exchange_cat(&text, &len, "\": ");
        if (ok && !packs) {
            ok = exchange_cat(&text, &len, item = cJSON_PrintUnformatted(k));
            free(item);
            continue;
        }
        ok = ok && exchange_cat(&text, &len, "[");
        for (const cJSON *pk = k->child; ok && pk; pk = pk->next) {
            ok = exchange_cat(&text, &len, pk == k->child ? "\n    {" : ",\n    {");
            for (const cJSON *f = pk->child; ok && f; f = f->next) {
                ok = exchange_cat(&text, &len, f == pk->child ? "\"" : ", \"") &&
                     exchange_cat(&text, &len, f->string) && exchange_cat(&text, &len, "\": ");
                if (ok && strcmp(f->string, "steps")) {
                    ok = exchange_cat(&text, &len, item = cJSON_PrintUnformatted(f));
                    free(item);
                    continue;
                }
                ok = ok && exchange_cat(&text, &len, "[");
                for (const cJSON *st = f->child; ok && st; st = st->next) {
                    ok = exchange_cat(&text, &len, st == f->child ? "\n      " : ",\n      ") &&
                         exchange_cat(&text, &len, item = cJSON_PrintUnformatted(st));
                    free(item);
                }
                ok = ok && exchange_cat(&text, &len, f->child ? "\n    ]" : "]");
            }
            ok = ok && exchange_cat(&text, &len, "}");
        }
        ok = ok && exchange_cat(&text, &len, k->child ? "\n  ]" : "]");
    }
    ok = ok && exchange_cat(&text, &len, "\n}");
    if (!ok) {
        free(text);
        return NULL;
    }
    return text;
}

char *exchange_export(const struct progress *p, const char *learner, long long now,
                      const struct exchange_pack_info *info, size_t ninfo)
{
    cJSON *root = cJSON_CreateObject(), *packs = cJSON_CreateArray();
    if (!root || !packs) {
        cJSON_Delete(root);
        cJSON_Delete(packs);
        return NULL;
    }
    cJSON_AddNumberToObject(root, "iolab_progress", EXCHANGE_FORMAT);
    cJSON_AddStringToObject(root, "learner", learner);
    cJSON_AddNumberToObject(root, "exported_at", (double)now);
    bool ok = cJSON_AddItemToObject(root, "packs", packs);
    for (size_t i = 0; ok && i < p->npacks; i++) {
        const struct progress_pack *pk = &p->packs[i];
        const struct exchange_pack_info *in = NULL;
        for (size_t k = 0; k < ninfo && !in; k++)
            if (!strcmp(info[k].id, pk->id))
                in = &info[k];
        cJSON *o = cJSON_CreateObject(), *steps = cJSON_CreateArray();
        ok = o && steps && cJSON_AddItemToArray(packs, o);
        if (!ok) {
            cJSON_Delete(o);
            cJSON_Delete(steps);
            break;
        }
        cJSON_AddStringToObject(o, "id", pk->id);
        /* The version the records were made with (noted by the TUI and `iolab check`, however
           the pack was found), else the installed pack's. */
        const char *version = pk->version ? pk->version : in ? in->version : NULL;
        if (version)
            cJSON_AddStringToObject(o, "version", version);
        else
            cJSON_AddNullToObject(o, "version");
        if (in && in->title)
            cJSON_AddStringToObject(o, "title", in->title);
        cJSON_AddItemToObject(o, "steps", steps);
        struct strmap seen = {0};
        for (size_t k = 0; ok && in && k < in->nsteps; k++)
            ok = exchange_add_step(steps, &seen, pk, in->steps[k]);
        for (size_t k = 0; ok && k < pk->ndone; k++)
            ok = exchange_add_step(steps, &seen, pk, pk->done[k]);
        for (size_t k = 0; ok && k < pk->nrecords; k++)
            ok = exchange_add_step(steps, &seen, pk, pk->records[k].step);
        strmap_free(&seen);
    }
    char *text = ok ? exchange_layout(root) : NULL;
    cJSON_Delete(root);
    return text;
}

/* ---- reading an export -------------------------------------------------------------------- */

/* Checks the whole file's shape; why says what is wrong and where (a JSON path). */
static int exchange_check(const cJSON *root, char *why, size_t len)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "iolab_progress");
    if (!cJSON_IsObject(root) || !cJSON_IsNumber(v)) {
        snprintf(why, len,
                 "not an iolab progress export (no \"iolab_progress\" key); "
                 "`iolab progress --export FILE` writes one");
        return -EINVAL;
    }
    if (v->valuedouble != EXCHANGE_FORMAT) {
        snprintf(why, len,
                 "written in export format %g, and this iolab reads format %d; update "
                 "iolab",
                 v->valuedouble, EXCHANGE_FORMAT);
        return -EINVAL;
    }
    if (!cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "learner"))) {
        snprintf(why, len, "\"learner\" must be a string");
        return -EINVAL;
    }
    const cJSON *exported = cJSON_GetObjectItemCaseSensitive(root, "exported_at");
    if (exported && !progress_time_ok(exported)) {
        snprintf(why, len, "\"exported_at\" must be a time (seconds since 1970)");
        return -EINVAL;
    }
    const cJSON *packs = cJSON_GetObjectItemCaseSensitive(root, "packs");
    if (!cJSON_IsArray(packs)) {
        snprintf(why, len, "\"packs\" must be an array");
        return -EINVAL;
    }
    int pi = 0;
    for (const cJSON *pk = packs->child; pk; pk = pk->next, pi++) {
        const cJSON *id = cJSON_GetObjectItemCaseSensitive(pk, "id");
        const cJSON *steps = cJSON_GetObjectItemCaseSensitive(pk, "steps");
        if (!cJSON_IsObject(pk) || !cJSON_IsString(id) || !id->valuestring[0] ||
            !cJSON_IsArray(steps)) {
            snprintf(why, len, "packs[%d] needs an \"id\" (a string) and \"steps\" (an array)", pi);
            return -EINVAL;
        }
        int si = 0;
        for (const cJSON *s = steps->child; s; s = s->next, si++) {
            const cJSON *key = cJSON_GetObjectItemCaseSensitive(s, "step");
            const cJSON *done = cJSON_GetObjectItemCaseSensitive(s, "done");
            const cJSON *at = cJSON_GetObjectItemCaseSensitive(s, "done_at");
            const cJSON *up = cJSON_GetObjectItemCaseSensitive(s, "updated");
            const cJSON *fields = cJSON_GetObjectItemCaseSensitive(s, "fields");
            const char *bad = NULL;
            if (!cJSON_IsObject(s) || !cJSON_IsString(key) || !strchr(key->valuestring, '/') ||
                key->valuestring[0] == '/' || strlen(key->valuestring) > 200)
                bad = "\"step\" must be \"lesson/step\"";
            else if (!cJSON_IsBool(done))
                bad = "\"done\" must be true or false";
            else if (!progress_time_ok(at) || !progress_time_ok(up))
                bad = "\"done_at\" and \"updated\" must be times (seconds since 1970, 0 unknown)";
            else if (fields && !cJSON_IsObject(fields))
                bad = "\"fields\" must be an object";
            for (const cJSON *f = fields ? fields->child : NULL; f && !bad; f = f->next)
                if (!cJSON_IsObject(f) || !f->string[0])
                    bad = "each field must be an object {...} under a name";
            if (cJSON_GetArraySize(fields) > EXCHANGE_MAX_FIELDS / 2)
                bad = "a step has more fields than iolab keeps";
            if (bad) {
                snprintf(why, len, "packs[%d].steps[%d]: %s", pi, si, bad);
                return -EINVAL;
            }
        }
    }
    return 0;
}

/* Parses and checks an export; NULL with why set when it is not one. */
static cJSON *exchange_parse(const char *text, size_t len, char *why, size_t whylen)
{
    /* What cJSON would take silently (a NUL, bytes that are not UTF-8) would reach the store and
     * make the next load call the progress file damaged: refused here, before anything is
     * merged, with the member it stands in. */
    size_t at;
    enum jsontext_problem bad = jsontext_check(text, len, &at);
    if (bad != JSONTEXT_OK) {
        int line, col;
        char path[200];
        jsontext_where(text, at, &line, &col, path, sizeof path);
        snprintf(why, whylen, "%d:%d: %s%s%s%s", line, col, path[0] ? "\"" : "", path,
                 path[0] ? "\" holds " : "",
                 bad == JSONTEXT_BAD_UTF8     ? "bytes that are not UTF-8"
                 : bad == JSONTEXT_NUL_ESCAPE ? "a NUL character (\\u0000)"
                                              : "a NUL byte");
        return NULL;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
    if (!root) {
        size_t off = end && end >= text ? (size_t)(end - text) : 0;
        int line = 1, col = 1;
        for (size_t i = 0; i < off && i < len; i++, col++)
            if (text[i] == '\n') {
                line++;
                col = 0;
            }
        snprintf(why, whylen, "%d:%d: this is not valid JSON", line, col);
        return NULL;
    }
    if (exchange_check(root, why, whylen) < 0) {
        cJSON_Delete(root);
        return NULL;
    }
    return root;
}

/*
 * Whether an export's own time is past tomorrow, as exchange_fit() bounds its records' times
 * (why then says so): the summary takes a learner's versions from their newest export, so a file
 * from the future would stand for the learner for ever after, whatever they export next.
 */
static bool exchange_late(const cJSON *root, long long now, char *why, size_t len)
{
    const cJSON *at = cJSON_GetObjectItemCaseSensitive(root, "exported_at");
    if (!cJSON_IsNumber(at) || at->valuedouble <= (double)now + EXCHANGE_FUTURE_SLACK)
        return false;
    snprintf(why, len, "its \"exported_at\" time is more than a day after now");
    return true;
}

/* ---- import ------------------------------------------------------------------------------- */

struct exchange_side {
    bool done;
    long long done_at, updated;
    size_t n;
    char *name[EXCHANGE_MAX_FIELDS];
    char *json[EXCHANGE_MAX_FIELDS];
};

static void exchange_side_free(struct exchange_side *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->name[i]);
        free(s->json[i]);
    }
    s->n = 0;
}

static int exchange_side_add(struct exchange_side *s, const char *name, char *json)
{
    char *n = strdup(name);
    if (!n || !json || s->n == EXCHANGE_MAX_FIELDS) {
        free(n);
        free(json);
        return s->n == EXCHANGE_MAX_FIELDS ? 0 : -ENOMEM;
    }
    s->name[s->n] = n;
    s->json[s->n++] = json;
    return 0;
}

static const char *exchange_side_get(const struct exchange_side *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->name[i], name))
            return s->json[i];
    return NULL;
}

/* Whether two field texts hold the same JSON (the store may have spaced it differently). */
static bool exchange_same_json(const char *a, const char *b)
{
    cJSON *x = cJSON_Parse(a), *y = cJSON_Parse(b);
    bool same = x && y && cJSON_Compare(x, y, 1);
    cJSON_Delete(x);
    cJSON_Delete(y);
    return same;
}

static bool exchange_same(const struct exchange_side *a, const struct exchange_side *b)
{
    if (a->done != b->done || a->updated != b->updated || a->n != b->n)
        return false;
    for (size_t i = 0; i < a->n; i++) {
        const char *o = exchange_side_get(b, a->name[i]);
        if (!o || !exchange_same_json(a->json[i], o))
            return false;
    }
    return true;
}

static long long exchange_earliest(long long a, long long b)
{
    return !a ? b : !b ? a : a < b ? a : b;
}

/* Merges one step of the file into the store; counts what happened in res. */
static int exchange_merge_step(struct progress *p, const char *pack, const cJSON *s,
                               struct exchange_import_result *res, FILE *log)
{
    const char *key = cJSON_GetObjectItemCaseSensitive(s, "step")->valuestring;
    char lesson[256];
    snprintf(lesson, sizeof lesson, "%.*s", (int)(strchr(key, '/') - key), key);
    const char *step = strchr(key, '/') + 1;

    struct exchange_side mine = {0}, theirs = {0}, out = {0};
    const struct progress_record *r = progress_record_find(p, pack, lesson, step);
    mine.done = progress_is_done(p, pack, lesson, step);
    bool had = r || mine.done;
    int rc = 0;
    if (r) {
        mine.done_at = r->done_at;
        mine.updated = r->updated;
        for (size_t i = 0; i < r->nfields && rc == 0; i++)
            rc = exchange_side_add(&mine, r->fields[i].name, strdup(r->fields[i].json));
    }
    theirs.done = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "done"));
    theirs.done_at = (long long)cJSON_GetObjectItemCaseSensitive(s, "done_at")->valuedouble;
    theirs.updated = (long long)cJSON_GetObjectItemCaseSensitive(s, "updated")->valuedouble;
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(s, "fields"))
    {
        if (rc == 0)
            rc = exchange_side_add(&theirs, f->string, cJSON_PrintUnformatted(f));
    }
    /* The record changed last wins; the other side's fields it lacks are added to it. */
    bool file_wins = !had || theirs.updated > mine.updated;
    const struct exchange_side *first = file_wins ? &theirs : &mine,
                               *second = file_wins ? &mine : &theirs;
    for (size_t i = 0; i < first->n && rc == 0; i++)
        rc = exchange_side_add(&out, first->name[i], strdup(first->json[i]));
    for (size_t i = 0; i < second->n && rc == 0; i++)
        if (!exchange_side_get(&out, second->name[i]))
            rc = exchange_side_add(&out, second->name[i], strdup(second->json[i]));
    out.done = mine.done || theirs.done; /* done is never undone */
    out.updated = mine.updated > theirs.updated ? mine.updated : theirs.updated;
    out.done_at =
        out.done ? exchange_earliest(mine.done ? mine.done_at : 0, theirs.done ? theirs.done_at : 0)
                 : 0;
    const char *what = NULL;
    if (rc == 0 && !had) {
        res->added++;
        what = "new";
    } else if (rc == 0 && exchange_same(&mine, &out)) {
        res->unchanged++;
    } else if (rc == 0) {
        if (file_wins)
            res->taken++;
        else
            res->kept++;
        what = file_wins ? "newer" : "merged";
    }
    if (what) {
        if (out.done && !mine.done) {
            res->now_done++;
            rc = progress_mark_done(p, pack, lesson, step);
        }
        struct progress_field fields[EXCHANGE_MAX_FIELDS];
        for (size_t i = 0; i < out.n; i++)
            fields[i] = (struct progress_field){.name = out.name[i], .json = out.json[i]};
        struct progress_record rec = {.step = (char *)key,
                                      .updated = out.updated,
                                      .done_at = out.done_at,
                                      .fields = fields,
                                      .nfields = out.n};
        if (rc == 0)
            rc = progress_record_put(p, pack, &rec);
        /* The pack and the step are the export's words: shown escaped (termsafe.h). */
        if (rc == 0 && log)
            termsafe_fprintf(log, "  %-7s %s/%s%s\n", what, pack, key,
                             out.done && !mine.done ? " (now done)" : "");
    }
    exchange_side_free(&mine);
    exchange_side_free(&theirs);
    exchange_side_free(&out);
    return rc;
}

/* ---- does a record fit the installed pack? ---------------------------------------------- */

static const struct exchange_pack_info *exchange_info_find(const struct exchange_pack_info *info,
                                                           size_t ninfo, const char *id)
{
    for (size_t i = 0; i < ninfo; i++)
        if (!strcmp(info[i].id, id))
            return &info[i];
    return NULL;
}

const char *exchange_fit(const struct exchange_pack_info *info, size_t ninfo, const char *pack,
                         const char *exported, const cJSON *s, long long now, char *buf, size_t len)
{
    const char *key = cJSON_GetObjectItemCaseSensitive(s, "step")->valuestring;
    /* A time past tomorrow is a clock gone wrong or a forged record: it would win every later
       merge (the newer record wins), so it is left out. A day of slack allows for time zones
       and a clock a little fast. */
    const char *late = NULL;
    static const char *const times[] = {"updated", "done_at"};
    for (size_t i = 0; i < 2 && !late; i++) {
        const cJSON *t = cJSON_GetObjectItemCaseSensitive(s, times[i]);
        if (cJSON_IsNumber(t) && t->valuedouble > (double)now + EXCHANGE_FUTURE_SLACK)
            late = times[i];
    }
    if (late) {
        snprintf(buf, len, "its \"%s\" time is more than a day after now", late);
        return buf;
    }
    const struct exchange_pack_info *in = exchange_info_find(info, ninfo, pack);
    if (!in) {
        snprintf(buf, len, "pack %s is not installed here (`iolab list` shows the packs)", pack);
        return buf;
    }
    size_t k = 0;
    while (k < in->nsteps && strcmp(in->steps[k], key))
        k++;
    if (k == in->nsteps) {
        const char *cur = in->version ? in->version : "?";
        if (exported && strcmp(exported, cur))
            snprintf(buf, len, "pack %s version %s has no such step (the export is of version %s)",
                     pack, cur, exported);
        else
            snprintf(buf, len, "pack %s version %s has no such step", pack, cur);
        return buf;
    }
    if (!in->step_defs || !in->step_defs[k])
        return NULL;
    /* What a record may hold is its kind's business: each is asked of the step (record.h). */
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(s, "fields"))
    {
        const struct lesson_record *rec = lesson_record_find(f->string);
        if (rec && rec->misfit && rec->misfit(in->step_defs[k], f, buf, len))
            return buf;
    }
    return NULL;
}

int exchange_import(struct progress *p, const char *text, size_t len,
                    const struct exchange_import_opts *o, struct exchange_import_result *res,
                    char *why, size_t whylen)
{
    memset(res, 0, sizeof *res);
    cJSON *root = exchange_parse(text, len, why, whylen);
    if (!root)
        return -EINVAL;
    long long now = o->now ? o->now : (long long)time(NULL);
    if (exchange_late(root, now, why, whylen)) {
        cJSON_Delete(root);
        return -EINVAL;
    }
    const char *learner = cJSON_GetObjectItemCaseSensitive(root, "learner")->valuestring;
    snprintf(res->learner, sizeof res->learner, "%s", learner);
    if (o->me && !o->as_mine && strcmp(learner, o->me)) {
        snprintf(why, whylen, "the export is %s's progress, not %s's", learner, o->me);
        cJSON_Delete(root);
        return -EPERM;
    }
    int rc = 0, pi = 0;
    const cJSON *pk;
    cJSON_ArrayForEach(pk, cJSON_GetObjectItemCaseSensitive(root, "packs"))
    {
        const char *id = cJSON_GetObjectItemCaseSensitive(pk, "id")->valuestring;
        const cJSON *ver = cJSON_GetObjectItemCaseSensitive(pk, "version");
        const cJSON *s;
        int si = 0;
        cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(pk, "steps"))
        {
            char misfit[300];
            if (o->info &&
                exchange_fit(o->info, o->ninfo, id, cJSON_IsString(ver) ? ver->valuestring : NULL,
                             s, now, misfit, sizeof misfit)) {
                res->left_out++;
                /* The pack and the step are the export's words: shown escaped (termsafe.h). */
                if (o->refused)
                    termsafe_fprintf(o->refused, "iolab: %s: %s/%s: %s; left out.\n",
                                     o->file ? o->file : "export", id,
                                     cJSON_GetObjectItemCaseSensitive(s, "step")->valuestring,
                                     misfit);
                si++;
                continue;
            }
            res->steps++;
            if (rc == 0 && (rc = exchange_merge_step(p, id, s, res, o->log)) < 0)
                snprintf(why, whylen, "packs[%d].steps[%d] (\"%s\"): %s", pi, si,
                         cJSON_GetObjectItemCaseSensitive(s, "step")->valuestring,
                         rc == -ENOMEM ? "out of memory"
                                       : "a field of this step is not a JSON object iolab keeps");
            si++;
        }
        pi++;
    }
    cJSON_Delete(root);
    return rc;
}

/* ---- summary ------------------------------------------------------------------------------ */

struct exchange_cell {
    bool present, done, solution;
    long long tries;
    bool scored; /* the record keeps a score: points of of */
    double points, of;
    long long updated; /* the record's time: of two exports of one learner, the newer wins */
};

/* Tries of a step, as its records count them (the quiz's checks over its questions, the
   exercise's attempts): each kind's record says (lesson/record.h). */
static long long exchange_tries(const cJSON *fields)
{
    long long n = 0;
    for (const cJSON *f = fields ? fields->child : NULL; f; f = f->next) {
        const struct lesson_record *rec = lesson_record_find(f->string);
        if (rec && rec->tries && cJSON_GetObjectItemCaseSensitive(fields, f->string) == f)
            n += rec->tries(f);
    }
    return n;
}

static bool exchange_solution_viewed(const cJSON *fields)
{
    for (const cJSON *f = fields ? fields->child : NULL; f; f = f->next) {
        const struct lesson_record *rec = lesson_record_find(f->string);
        if (rec && rec->solution_viewed &&
            cJSON_GetObjectItemCaseSensitive(fields, f->string) == f && rec->solution_viewed(f))
            return true;
    }
    return false;
}

/* The step's score, as its records keep it (the exercise's best, the quiz's best). */
static bool exchange_score(const cJSON *fields, double *points, double *of)
{
    *points = *of = 0;
    bool any = false;
    for (const cJSON *f = fields ? fields->child : NULL; f; f = f->next) {
        const struct lesson_record *rec = lesson_record_find(f->string);
        double p, o;
        if (rec && rec->score && cJSON_GetObjectItemCaseSensitive(fields, f->string) == f &&
            rec->score(f, &p, &o)) {
            *points += p;
            *of += o;
            any = true;
        }
    }
    return any;
}

/* Index of "a\tb" in cols (found through index), added when new; -1 when out of memory. */
static long exchange_column(struct strmap *index, char ***cols, size_t *n, const char *a,
                            const char *b)
{
    char *key = NULL;
    if (asprintf(&key, "%s\t%s", a, b) < 0)
        return -1;
    long at = strmap_get(index, key);
    if (at >= 0) {
        free(key);
        return at;
    }
    char **v = realloc(*cols, (*n + 1) * sizeof *v);
    if (!v) {
        free(key);
        return -1;
    }
    *cols = v;
    v[*n] = key;
    if (strmap_put(index, key, *n) < 0)
        return -1; /* the key is in cols: freed with them */
    return (long)(*n)++;
}

void exchange_csv_text(FILE *out, const char *s)
{
    /* A spreadsheet evaluates a cell that begins with one of these as a formula (=HYPERLINK,
       =cmd|...); a quote in front makes it text and is not shown. */
    bool formula = s[0] && strchr("=+-@\t\r", s[0]);
    if (!formula && !strpbrk(s, ",\"\r\n")) {
        termsafe_fputs(s, out);
        return;
    }
    fputc('"', out);
    if (formula)
        fputc('\'', out);
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        termsafe_write(out, s, (size_t)(q - s));
        fputs("\"\"", out);
    }
    termsafe_fputs(s, out);
    fputc('"', out);
}

const char *exchange_oneline(const char *s, char *buf, size_t len)
{
    size_t o = 0;
    if (!len)
        return buf;
    for (; *s && o + 1 < len; s++) {
        if (*s == '\n') {
            if (o + 3 > len)
                break;
            buf[o++] = '\\';
            buf[o++] = 'n';
        } else {
            buf[o++] = *s;
        }
    }
    buf[o] = '\0';
    return buf;
}

/* s as the text table shows it: on one line, its controls escaped (termsafe.h). */
static const char *exchange_shown(const char *s, char *buf, size_t len)
{
    char line[1024];
    return termsafe_str(exchange_oneline(s, line, sizeof line), buf, len);
}

/* Display width of UTF-8 text: its characters (the table's own words and escaped names). */
static size_t exchange_width(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += ((unsigned char)*s & 0xc0) != 0x80;
    return n;
}

/* Prints s padded with spaces to w columns (none when pad is false). */
static void exchange_pad(FILE *out, const char *s, size_t w, bool pad)
{
    fputs(s, out);
    for (size_t k = exchange_width(s); pad && k < w; k++)
        fputc(' ', out);
}

static void exchange_cell_text(const struct exchange_cell *c, char *buf, size_t len)
{
    if (!c->present) {
        snprintf(buf, len, "-");
        return;
    }
    snprintf(buf, len, "%s", c->done ? "done" : "started");
    size_t used = strlen(buf);
    if (c->tries)
        used += (size_t)snprintf(buf + used, len - used, " %lldx", c->tries);
    if (c->solution)
        used += (size_t)snprintf(buf + used, len - used, " +solution");
    if (c->scored && used < len)
        snprintf(buf + used, len - used, " %g/%gpt", c->points, c->of);
}

/* The column's title: the step, with its pack when the table holds several packs. */
static const char *exchange_title(const char *col, bool packs, char *buf, size_t len)
{
    const char *tab = strchr(col, '\t');
    if (packs)
        snprintf(buf, len, "%.*s:%s", (int)(tab - col), col, tab + 1);
    else
        snprintf(buf, len, "%s", tab + 1);
    return buf;
}

/* What the summary prints: learners (rows) by steps (columns), the packs' versions per learner
   and pack, and each learner's points. */
struct exchange_table {
    const char **learners;
    size_t n;
    char **cols; /* "pack\tlesson/step" */
    size_t ncols;
    char **packs; /* the packs of the columns, in their order */
    size_t npacks;
    char **versions; /* [learner * npacks + pack]: the version of the learner's newest export */
    const struct exchange_cell *cells;
    double *col_of; /* per column: the points the step is out of (0: it has no score) */
    bool any_score; /* some step keeps points */
};

/* The header both forms say: points are the learner's records, not a grade. */
#define EXCHANGE_POINTS_NOTE                                                                       \
    "Points are the learners' own records (their exports say them, and a learner can edit an "     \
    "export); to grade, run `iolab check --junit` on each learner's repository in CI."

static void exchange_print_csv(FILE *out, const struct exchange_table *t, bool packs)
{
    char title[512], head[640];
    fputs("learner", out);
    for (size_t k = 0; k < t->npacks; k++) {
        snprintf(head, sizeof head, t->npacks > 1 ? "%s version" : "version", t->packs[k]);
        fputc(',', out);
        exchange_csv_text(out, head);
    }
    if (t->any_score)
        fputs(",points (the learner's own record; grade in CI with iolab check --junit),points of",
              out);
    for (size_t c = 0; c < t->ncols; c++) {
        exchange_title(t->cols[c], packs, title, sizeof title);
        static const char *const what[] = {" done", " tries", " solution viewed", " points"};
        for (size_t k = 0; k < (t->any_score ? 4 : 3); k++) {
            snprintf(head, sizeof head, "%s%s", title, what[k]);
            fputc(',', out);
            exchange_csv_text(out, head);
        }
    }
    fputc('\n', out);
    for (size_t l = 0; l < t->n; l++) {
        exchange_csv_text(out, t->learners[l]);
        for (size_t k = 0; k < t->npacks; k++) {
            const char *v = t->versions[l * t->npacks + k];
            fputc(',', out);
            exchange_csv_text(out, v ? v : "");
        }
        double total = 0, of = 0;
        for (size_t c = 0; c < t->ncols; c++) {
            total += t->cells[l * t->ncols + c].scored ? t->cells[l * t->ncols + c].points : 0;
            of += t->col_of[c];
        }
        if (t->any_score)
            fprintf(out, ",%g,%g", total, of);
        for (size_t c = 0; c < t->ncols; c++) {
            const struct exchange_cell *x = &t->cells[l * t->ncols + c];
            fprintf(out, ",%d,%lld,%d", x->done, x->tries, x->solution);
            if (t->any_score && x->scored)
                fprintf(out, ",%g", x->points);
            else if (t->any_score)
                fputc(',', out);
        }
        fputc('\n', out);
    }
}

static void exchange_print(FILE *out, const struct exchange_table *t, bool csv)
{
    bool packs = t->npacks > 1;
    if (csv) {
        exchange_print_csv(out, t, packs);
        return;
    }
    /* Text: learners down, then a version column per pack, the points, the steps across; each
       column as wide as its widest entry, every name on one line and escaped. */
    size_t nhead = 1 + t->npacks + (t->any_score ? 1 : 0), ncells = nhead + t->ncols;
    char **text = calloc((t->n + 1) * ncells + 1, sizeof *text);
    size_t *w = calloc(ncells + 1, sizeof *w);
    char buf[2048], title[512];
    bool ok = text && w;
    for (size_t r = 0; ok && r <= t->n; r++) {
        size_t l = r - 1; /* row 0 is the titles */
        for (size_t c = 0; ok && c < ncells; c++) {
            const char *s = buf;
            if (c == 0) {
                s = r ? exchange_shown(t->learners[l], buf, sizeof buf) : "learner";
            } else if (c < 1 + t->npacks) {
                const char *v = r ? t->versions[l * t->npacks + c - 1] : NULL;
                if (!r && packs)
                    snprintf(title, sizeof title, "%s version", t->packs[c - 1]);
                s = !r  ? (packs ? exchange_shown(title, buf, sizeof buf) : "version")
                    : v ? exchange_shown(v, buf, sizeof buf)
                        : "-";
            } else if (c < nhead) {
                double total = 0, of = 0;
                for (size_t k = 0; r && k < t->ncols; k++) {
                    total +=
                        t->cells[l * t->ncols + k].scored ? t->cells[l * t->ncols + k].points : 0;
                    of += t->col_of[k];
                }
                if (r)
                    snprintf(buf, sizeof buf, "%g/%g", total, of);
                s = r ? buf : "points";
            } else if (!r) {
                s = exchange_shown(exchange_title(t->cols[c - nhead], packs, title, sizeof title),
                                   buf, sizeof buf);
            } else {
                exchange_cell_text(&t->cells[l * t->ncols + c - nhead], buf, sizeof buf);
            }
            ok = (text[r * ncells + c] = strdup(s)) != NULL;
            if (ok && exchange_width(s) > w[c])
                w[c] = exchange_width(s);
        }
    }
    if (ok) {
        if (t->any_score)
            fprintf(out, "%s\n\n", EXCHANGE_POINTS_NOTE);
        /* The last column is not padded: no line ends in spaces. */
        for (size_t r = 0; r <= t->n; r++) {
            for (size_t c = 0; c < ncells; c++) {
                if (c)
                    fputs("  ", out);
                exchange_pad(out, text[r * ncells + c], w[c], c + 1 < ncells);
            }
            fputc('\n', out);
        }
        fprintf(out,
                "\n%zu learner%s, %zu step%s. done: the step is done; started: it has a record "
                "but is not done; Nx: N tries (quiz checks, exercise attempts); +solution: the "
                "exercise's solution was viewed; P/Mpt: the best score, P of M points; -: "
                "nothing recorded.\n",
                t->n, t->n == 1 ? "" : "s", t->ncols, t->ncols == 1 ? "" : "s");
    }
    for (size_t k = 0; text && k < (t->n + 1) * ncells; k++)
        free(text[k]);
    free(text);
    free(w);
}

/* The points a step of an installed pack is out of: its checks' (an exercise), its questions
   (a quiz); 0 when its kind keeps no score. */
static double exchange_step_of(const struct lesson_step *st)
{
    const struct lesson_exercise *ex = lesson_step_exercise(st);
    const struct lesson_quiz *qz = lesson_step_quiz(st);
    double of = 0;
    for (size_t i = 0; ex && ex->sc && i < ex->sc->nchecks; i++)
        of += ex->sc->checks[i].points;
    return qz ? (double)qz->nquestions : of;
}

/* One export's record of a step (s) taken into its cell of the summary: the newer record of the
   step wins whole (a record counts its tries from the start, so adding two exports' would count
   the first ones twice); done stays done, as an import keeps it. */
static void exchange_cell_take(struct exchange_cell *x, const cJSON *s)
{
    const cJSON *fields = cJSON_GetObjectItemCaseSensitive(s, "fields");
    long long up = (long long)cJSON_GetObjectItemCaseSensitive(s, "updated")->valuedouble;
    if (x->present && up < x->updated) {
        x->done |= cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "done"));
        return;
    }
    bool was_done = x->done;
    *x = (struct exchange_cell){
        .present = true,
        .done = was_done || cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(s, "done")),
        .tries = exchange_tries(fields),
        .solution = exchange_solution_viewed(fields),
        .updated = up,
    };
    x->scored = exchange_score(fields, &x->points, &x->of);
}

/* The points a column's step is out of, from the installed pack that describes it ("PACK\tSTEP"):
   0 when none does. */
static double exchange_col_of(const struct exchange_pack_info *info, size_t ninfo, const char *col)
{
    const char *tab = strchr(col, '\t');
    double of = 0;
    for (size_t k = 0; k < ninfo; k++)
        for (size_t st = 0; info[k].step_defs && st < info[k].nsteps; st++)
            if (!strncmp(info[k].id, col, (size_t)(tab - col)) && !info[k].id[tab - col] &&
                !strcmp(info[k].steps[st], tab + 1) && info[k].step_defs[st])
                of = exchange_step_of(info[k].step_defs[st]);
    return of;
}

/* Frees n strings and the array that holds them. */
static void exchange_strv_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* One row per learner: a learner given twice (an older and a newer export) is one. The row of
   name, added to learners (their newest export not seen yet) when it is new. */
static size_t exchange_learner_row(const char **learners, size_t *nrows, double *newest,
                                   const char *name)
{
    size_t r = 0;
    while (r < *nrows && strcmp(learners[r], name))
        r++;
    if (r == *nrows) {
        learners[(*nrows)++] = name;
        newest[r] = -1;
    }
    return r;
}

/* Whether export file's record s of pack pk does not fit the installed packs (exchange_fit, as
   an import): then it is named on stderr and marked, so that the second pass and the columns
   pass it by. */
static bool exchange_summary_misfit(const struct exchange_pack_info *info, size_t ninfo,
                                    const char *file, const cJSON *pk, const cJSON *s,
                                    long long now)
{
    const char *id = cJSON_GetObjectItemCaseSensitive(pk, "id")->valuestring;
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(pk, "version");
    char misfit[300];
    if (!info || !exchange_fit(info, ninfo, id, cJSON_IsString(ver) ? ver->valuestring : NULL, s,
                               now, misfit, sizeof misfit))
        return false;
    termsafe_fprintf(stderr, "iolab: %s: %s/%s: %s; left out.\n", file, id,
                     cJSON_GetObjectItemCaseSensitive(s, "step")->valuestring, misfit);
    cJSON_AddTrueToObject((cJSON *)s, "\t misfit");
    return true;
}

/* The packs' names, without the tab exchange_column joined them with (the index keeps its keys:
   the names are copies); NULL when out of memory. */
static char **exchange_pack_names(char *const *packs, size_t npacks)
{
    char **names = calloc(npacks + 1, sizeof *names);
    for (size_t k = 0; names && k < npacks; k++)
        if (!(names[k] = strndup(packs[k], strcspn(packs[k], "\t")))) {
            exchange_strv_free(names, k);
            return NULL;
        }
    return names;
}

/* The versions are those of the learner's newest export, pack by pack: pk's kept in slot. */
static void exchange_version_take(char **slot, const cJSON *pk)
{
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(pk, "version");
    free(*slot);
    *slot = cJSON_IsString(ver) ? strdup(ver->valuestring) : NULL;
}

/* A step no installed pack describes is out of what its records say. Whether any column is out
   of some points (the summary then shows scores). */
static bool exchange_col_of_records(double *col_of, size_t ncols, const struct exchange_cell *cells,
                                    size_t nrows)
{
    bool any_score = false;
    for (size_t c = 0; c < ncols; c++) {
        for (size_t r = 0; r < nrows; r++)
            if (cells[r * ncols + c].scored && !col_of[c])
                col_of[c] = cells[r * ncols + c].of;
        any_score |= col_of[c] > 0;
    }
    return any_score;
}

int exchange_summary(FILE *out, const char *const *files, const char *const *texts, size_t n,
                     const struct exchange_pack_info *info, size_t ninfo, bool csv, char *why,
                     size_t whylen)
{
    cJSON **roots = calloc(n + 1, sizeof *roots);
    const char **learners = calloc(n + 1, sizeof *learners);
    size_t *row = calloc(n + 1, sizeof *row), nrows = 0, nread = 0;
    double *newest = calloc(n + 1, sizeof *newest);
    bool *seeded = calloc(ninfo + 1, sizeof *seeded);
    char **cols = NULL, **packs = NULL, **versions = NULL;
    size_t ncols = 0, npacks = 0;
    struct strmap colindex = {0}, packindex = {0};
    struct exchange_cell *cells = NULL;
    double *col_of = NULL;
    long long now = (long long)time(NULL);
    int rc = roots && learners && row && newest && seeded ? 0 : -ENOMEM;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char w[400];
        /* A file that is not an export (or could not be read: NULL) is named and left out;
           the others are still summed up. */
        if (!texts[i])
            continue;
        if (!(roots[i] = exchange_parse(texts[i], strlen(texts[i]), w, sizeof w)) ||
            exchange_late(roots[i], now, w, sizeof w)) {
            termsafe_fprintf(stderr, "iolab: %s: %s; left out of the summary.\n", files[i], w);
            cJSON_Delete(roots[i]);
            roots[i] = NULL;
            continue;
        }
        nread++;
        /* One row per learner: a learner given twice (an older and a newer export) is one. */
        row[i] = exchange_learner_row(
            learners, &nrows, newest,
            cJSON_GetObjectItemCaseSensitive(roots[i], "learner")->valuestring);
        const cJSON *pk;
        cJSON_ArrayForEach(pk, cJSON_GetObjectItemCaseSensitive(roots[i], "packs"))
        {
            const char *id = cJSON_GetObjectItemCaseSensitive(pk, "id")->valuestring;
            /* An installed pack's steps are columns in the pack's order, every one of them
               (untouched ones too), from the first export that names the pack. */
            for (size_t k = 0; k < ninfo; k++)
                if (!seeded[k] && !strcmp(info[k].id, id)) {
                    seeded[k] = true;
                    if (exchange_column(&packindex, &packs, &npacks, id, "") < 0)
                        rc = -ENOMEM;
                    for (size_t st = 0; st < info[k].nsteps; st++)
                        if (exchange_column(&colindex, &cols, &ncols, id, info[k].steps[st]) < 0)
                            rc = -ENOMEM;
                }
            /* Only what fits the installed packs has a column (exchange_fit, as an import). */
            const cJSON *s;
            cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(pk, "steps"))
            {
                if (exchange_summary_misfit(info, ninfo, files[i], pk, s, now))
                    continue;
                if (exchange_column(&packindex, &packs, &npacks, id, "") < 0)
                    rc = -ENOMEM;
                if (exchange_column(&colindex, &cols, &ncols, id,
                                    cJSON_GetObjectItemCaseSensitive(s, "step")->valuestring) < 0)
                    rc = -ENOMEM;
            }
        }
    }
    if (rc == 0 && nread == 0) {
        snprintf(why, whylen, "none of the files is a progress export");
        rc = -EINVAL;
    }
    if (rc == 0 && (!(cells = calloc(nrows * ncols + 1, sizeof *cells)) ||
                    !(versions = calloc(nrows * npacks + 1, sizeof *versions)) ||
                    !(col_of = calloc(ncols + 1, sizeof *col_of))))
        rc = -ENOMEM;
    /* The packs' names, without the tab exchange_column joined them with (the index keeps its
       keys: the names are copies). */
    char **names = exchange_pack_names(packs, npacks);
    if (!names)
        rc = -ENOMEM;
    for (size_t c = 0; rc == 0 && c < ncols; c++)
        col_of[c] = exchange_col_of(info, ninfo, cols[c]);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!roots[i])
            continue;
        size_t r = row[i];
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(roots[i], "exported_at");
        double when = cJSON_IsNumber(at) ? at->valuedouble : 0;
        /* The versions are those of the learner's newest export, pack by pack. */
        bool newer = when >= newest[r];
        if (newer)
            newest[r] = when;
        const cJSON *pk;
        cJSON_ArrayForEach(pk, cJSON_GetObjectItemCaseSensitive(roots[i], "packs"))
        {
            const char *id = cJSON_GetObjectItemCaseSensitive(pk, "id")->valuestring;
            char key[600];
            snprintf(key, sizeof key, "%s\t", id);
            long pi = strmap_get(&packindex, key);
            if (pi >= 0 && newer)
                exchange_version_take(&versions[r * npacks + (size_t)pi], pk);
            const cJSON *s;
            cJSON_ArrayForEach(s, cJSON_GetObjectItemCaseSensitive(pk, "steps"))
            {
                if (cJSON_GetObjectItemCaseSensitive(s, "\t misfit"))
                    continue;
                long c = exchange_column(&colindex, &cols, &ncols, id,
                                         cJSON_GetObjectItemCaseSensitive(s, "step")->valuestring);
                if (c < 0 || (size_t)c >= ncols)
                    continue;
                exchange_cell_take(&cells[r * ncols + (size_t)c], s);
            }
        }
    }
    bool any_score = rc == 0 && exchange_col_of_records(col_of, ncols, cells, nrows);
    if (rc == 0) {
        struct exchange_table t = {.learners = learners,
                                   .n = nrows,
                                   .cols = cols,
                                   .ncols = ncols,
                                   .packs = names,
                                   .npacks = npacks,
                                   .versions = versions,
                                   .cells = cells,
                                   .col_of = col_of,
                                   .any_score = any_score};
        exchange_print(out, &t, csv);
    } else if (rc == -ENOMEM) {
        snprintf(why, whylen, "out of memory");
    }
    for (size_t i = 0; i < n && roots; i++)
        cJSON_Delete(roots[i]);
    strmap_free(&colindex);
    strmap_free(&packindex);
    exchange_strv_free(cols, ncols);
    for (size_t i = 0; i < npacks; i++) {
        free(packs[i]);
        free(names ? names[i] : NULL);
    }
    free(packs);
    free(names);
    exchange_strv_free(versions, versions ? nrows * npacks : 0);
    free(col_of);
    free(cells);
    free(roots);
    free(learners);
    free(row);
    free(newest);
    free(seeded);
    /* 1: the table was printed, but a file was left out. */
    return rc < 0 ? rc : nread < n;
}
