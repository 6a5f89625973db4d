/*
 * progress: the store behind progress.h. The JSON file looks like
 *
 *   {"format": 1,
 *    "packs": {"core": {"done": ["echo/epoll", ...],
 *                       "answers": {"echo/quiz": "b"},
 *                       "last": {"lesson": "echo", "step": "epoll"},
 *                       "steps": {"echo/epoll": {"updated": 1764040000, "done_at": 1764040000,
 *                                                "fields": {"quiz": {"tries": 2}}}}}}}
 *
 * "steps" came after format 1 was first written: a file without it is still format 1, and an
 * older iolab that finds it keeps working (it never looks at keys it does not know).
 *
 * cJSON is used only here, only to parse into and print from the plain structs of progress.h.
 * A file that does not match this shape is "damaged": it is renamed aside (never deleted, never
 * overwritten) so the learner or a maintainer can still look at it.
 */
#include "progress.h"

#include "fileread.h"
#include "jsontext.h"
#include "strmap.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROGRESS_FORMAT 1

static void progress_remove_temps(const char *path);

int progress_default_path(char *buf, size_t len)
{
    const char *state = getenv("XDG_STATE_HOME");
    int n;
    /* The XDG spec says a relative XDG_STATE_HOME is invalid and must be ignored. */
    if (state && state[0] == '/') {
        n = snprintf(buf, len, "%s/iolab/progress.json", state);
    } else {
        const char *home = getenv("HOME");
        if (!home || !home[0])
            return -ENOENT;
        n = snprintf(buf, len, "%s/.local/state/iolab/progress.json", home);
    }
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static void progress_record_clear(struct progress_record *r)
{
    free(r->step);
    for (size_t i = 0; i < r->nfields; i++) {
        free(r->fields[i].name);
        free(r->fields[i].json);
    }
    free(r->fields);
    memset(r, 0, sizeof *r);
}

/*
 * The index of a pack: the positions of its done steps and of its records by "lesson/step", so
 * that an import or a merge of n steps takes time linear in n. The maps borrow the arrays' key
 * strings, which never move (a record replaced in place keeps its key string). Whatever changes
 * the arrays other than by appending (a reset) drops the index, and the next look-up builds it
 * again from the arrays.
 */
struct progress_index {
    struct strmap done, records;
};

static void progress_index_drop(struct progress_pack *pk)
{
    if (!pk->index)
        return;
    strmap_free(&pk->index->done);
    strmap_free(&pk->index->records);
    free(pk->index);
    pk->index = NULL;
}

/* The pack's index, built from its arrays when it has none; NULL on -ENOMEM. A key listed twice
 * in an array (a file written by hand) is indexed at its first place, as a search would find. */
static struct progress_index *progress_index_get(const struct progress_pack *cpk)
{
    struct progress_pack *pk = (struct progress_pack *)cpk; /* the index is a cache */
    if (pk->index)
        return pk->index;
    if (!(pk->index = calloc(1, sizeof *pk->index)))
        return NULL;
    for (size_t i = 0; i < pk->ndone; i++)
        if (strmap_put(&pk->index->done, pk->done[i], i) < 0)
            goto fail;
    for (size_t i = 0; i < pk->nrecords; i++)
        if (strmap_put(&pk->index->records, pk->records[i].step, i) < 0)
            goto fail;
    return pk->index;
fail:
    progress_index_drop(pk);
    return NULL;
}

/* Room for one more element in an array of *cap, grown geometrically; 0 or -ENOMEM. */
static int progress_grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 16;
    void *nv = realloc(*v, c * size);
    if (!nv)
        return -ENOMEM;
    *v = nv;
    *cap = c;
    return 0;
}

static void progress_pack_clear(struct progress_pack *pk)
{
    free(pk->id);
    for (size_t i = 0; i < pk->ndone; i++)
        free(pk->done[i]);
    free(pk->done);
    for (size_t i = 0; i < pk->nanswers; i++) {
        free(pk->answers[i].step);
        free(pk->answers[i].value);
    }
    free(pk->answers);
    free(pk->last_lesson);
    free(pk->last_step);
    for (size_t i = 0; i < pk->nrecords; i++)
        progress_record_clear(&pk->records[i]);
    free(pk->records);
    progress_index_drop(pk);
}

void progress_free(struct progress *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->npacks; i++)
        progress_pack_clear(&p->packs[i]);
    free(p->packs);
    free(p->path);
    free(p->damaged);
    free(p->base_text);
    free(p);
}

const struct progress_pack *progress_pack_find(const struct progress *p, const char *pack)
{
    for (size_t i = 0; i < p->npacks; i++)
        if (!strcmp(p->packs[i].id, pack))
            return &p->packs[i];
    return NULL;
}

struct progress_pack *progress_pack_get(struct progress *p, const char *pack)
{
    struct progress_pack *found = (struct progress_pack *)progress_pack_find(p, pack);
    if (found)
        return found;
    struct progress_pack *v = realloc(p->packs, (p->npacks + 1) * sizeof *v);
    if (!v)
        return NULL;
    p->packs = v;
    struct progress_pack *pk = &v[p->npacks];
    memset(pk, 0, sizeof *pk);
    if (!(pk->id = strdup(pack)))
        return NULL;
    p->npacks++;
    return pk;
}

static char *progress_key(const char *lesson, const char *step)
{
    char *key;
    return asprintf(&key, "%s/%s", lesson, step) < 0 ? NULL : key;
}

bool progress_pack_is_done(const struct progress_pack *pk, const char *key)
{
    if (!pk)
        return false;
    struct progress_index *ix = progress_index_get(pk);
    if (ix)
        return strmap_get(&ix->done, key) >= 0;
    for (size_t i = 0; i < pk->ndone; i++) /* out of memory for the index: search */
        if (!strcmp(pk->done[i], key))
            return true;
    return false;
}

const struct progress_record *progress_pack_record(const struct progress_pack *pk, const char *key)
{
    if (!pk)
        return NULL;
    struct progress_index *ix = progress_index_get(pk);
    if (ix) {
        long i = strmap_get(&ix->records, key);
        return i < 0 ? NULL : &pk->records[i];
    }
    for (size_t i = 0; i < pk->nrecords; i++)
        if (!strcmp(pk->records[i].step, key))
            return &pk->records[i];
    return NULL;
}

bool progress_is_done(const struct progress *p, const char *pack, const char *lesson,
                      const char *step)
{
    char *key = progress_key(lesson, step);
    bool done = key && progress_pack_is_done(progress_pack_find(p, pack), key);
    free(key);
    return done;
}

/* The step's record in pk, made when it has none (then with no time and no field); NULL on
 * -ENOMEM. key is "lesson/step". */
static struct progress_record *progress_record_get(struct progress_pack *pk, const char *key)
{
    struct progress_record *found = (struct progress_record *)progress_pack_record(pk, key);
    if (found)
        return found;
    if (progress_grow((void **)&pk->records, &pk->cap_records, pk->nrecords, sizeof *pk->records) <
        0)
        return NULL;
    struct progress_record *r = &pk->records[pk->nrecords];
    memset(r, 0, sizeof *r);
    if (!(r->step = strdup(key)))
        return NULL;
    pk->nrecords++;
    if (pk->index && strmap_put(&pk->index->records, r->step, pk->nrecords - 1) < 0)
        progress_index_drop(pk); /* rebuilt, or searched, at the next look-up */
    return r;
}

int progress_mark_done(struct progress *p, const char *pack, const char *lesson, const char *step)
{
    if (progress_is_done(p, pack, lesson, step))
        return 0;
    struct progress_pack *pk = progress_pack_get(p, pack);
    if (!pk || progress_grow((void **)&pk->done, &pk->cap_done, pk->ndone, sizeof *pk->done) < 0)
        return -ENOMEM;
    if (!(pk->done[pk->ndone] = progress_key(lesson, step)))
        return -ENOMEM;
    pk->ndone++;
    if (pk->index && strmap_put(&pk->index->done, pk->done[pk->ndone - 1], pk->ndone - 1) < 0)
        progress_index_drop(pk);
    struct progress_record *r = progress_record_get(pk, pk->done[pk->ndone - 1]);
    if (!r)
        return -ENOMEM;
    r->updated = r->done_at = (long long)time(NULL);
    return 0;
}

const struct progress_record *progress_record_find(const struct progress *p, const char *pack,
                                                   const char *lesson, const char *step)
{
    char *key = progress_key(lesson, step);
    const struct progress_record *r =
        key ? progress_pack_record(progress_pack_find(p, pack), key) : NULL;
    free(key);
    return r;
}

const char *progress_field_get(const struct progress *p, const char *pack, const char *lesson,
                               const char *step, const char *field)
{
    const struct progress_record *r = progress_record_find(p, pack, lesson, step);
    for (size_t i = 0; r && i < r->nfields; i++)
        if (!strcmp(r->fields[i].name, field))
            return r->fields[i].json;
    return NULL;
}

/* json in its compact form when it is one JSON object (with no NUL and valid UTF-8), else NULL
 * (errno EINVAL or ENOMEM). */
static char *progress_object_text(const char *json)
{
    size_t at, len = strlen(json);
    cJSON *o =
        jsontext_check(json, len, &at) == JSONTEXT_OK ? cJSON_ParseWithOpts(json, NULL, 1) : NULL;
    if (!cJSON_IsObject(o)) {
        cJSON_Delete(o);
        errno = EINVAL;
        return NULL;
    }
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text)
        errno = ENOMEM;
    return text;
}

/* Sets one field of r to text (taken over, compact JSON object); 0 or -ENOMEM (text freed). */
static int progress_record_take_field(struct progress_record *r, const char *name, char *text)
{
    for (size_t i = 0; i < r->nfields; i++) {
        if (!strcmp(r->fields[i].name, name)) {
            free(r->fields[i].json);
            r->fields[i].json = text;
            return 0;
        }
    }
    struct progress_field *v = realloc(r->fields, (r->nfields + 1) * sizeof *v);
    char *n = strdup(name);
    if (!v || !n) {
        if (v)
            r->fields = v;
        free(n);
        free(text);
        return -ENOMEM;
    }
    r->fields = v;
    v[r->nfields++] = (struct progress_field){.name = n, .json = text};
    return 0;
}

int progress_field_set(struct progress *p, const char *pack, const char *lesson, const char *step,
                       const char *field, const char *json)
{
    if (!field || !field[0] || !json)
        return -EINVAL;
    char *text = progress_object_text(json);
    if (!text)
        return -errno;
    struct progress_pack *pk = progress_pack_get(p, pack);
    char *key = pk ? progress_key(lesson, step) : NULL;
    struct progress_record *r = key ? progress_record_get(pk, key) : NULL;
    free(key);
    if (!r) {
        free(text);
        return -ENOMEM;
    }
    int rc = progress_record_take_field(r, field, text);
    if (rc == 0)
        r->updated = (long long)time(NULL);
    return rc;
}

int progress_record_put(struct progress *p, const char *pack, const struct progress_record *rec)
{
    if (!rec->step || !strchr(rec->step, '/'))
        return -EINVAL;
    struct progress_record copy = {.updated = rec->updated, .done_at = rec->done_at};
    int rc = 0;
    if (!(copy.step = strdup(rec->step)))
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < rec->nfields; i++) {
        char *text = rec->fields[i].name[0] ? progress_object_text(rec->fields[i].json) : NULL;
        rc = text ? progress_record_take_field(&copy, rec->fields[i].name, text)
                  : (rec->fields[i].name[0] ? -errno : -EINVAL);
    }
    struct progress_pack *pk = rc == 0 ? progress_pack_get(p, pack) : NULL;
    struct progress_record *r = pk ? progress_record_get(pk, rec->step) : NULL;
    if (rc == 0 && !r)
        rc = -ENOMEM;
    if (rc < 0) {
        progress_record_clear(&copy);
        return rc;
    }
    /* The record keeps its key string: the pack's index points at it. */
    free(copy.step);
    copy.step = r->step;
    r->step = NULL;
    progress_record_clear(r);
    *r = copy;
    return 0;
}

size_t progress_lesson_done(const struct progress *p, const char *pack, const char *lesson)
{
    const struct progress_pack *pk = progress_pack_find(p, pack);
    size_t n = 0, ll = strlen(lesson);
    for (size_t i = 0; pk && i < pk->ndone; i++)
        if (!strncmp(pk->done[i], lesson, ll) && pk->done[i][ll] == '/')
            n++;
    return n;
}

/* Replaces *slot with a copy of value; 0 or -ENOMEM (the old value is kept on failure). */
static int progress_replace(char **slot, const char *value)
{
    char *copy = value ? strdup(value) : NULL;
    if (value && !copy)
        return -ENOMEM;
    free(*slot);
    *slot = copy;
    return 0;
}

int progress_set_last(struct progress *p, const char *pack, const char *lesson, const char *step)
{
    struct progress_pack *pk = progress_pack_get(p, pack);
    if (!pk)
        return -ENOMEM;
    int rc = progress_replace(&pk->last_lesson, lesson);
    return rc < 0 ? rc : progress_replace(&pk->last_step, step);
}

int progress_set_answer(struct progress *p, const char *pack, const char *lesson, const char *step,
                        const char *value)
{
    struct progress_pack *pk = progress_pack_get(p, pack);
    char *key = pk ? progress_key(lesson, step) : NULL;
    if (!key)
        return -ENOMEM;
    for (size_t i = 0; i < pk->nanswers; i++) {
        if (!strcmp(pk->answers[i].step, key)) {
            free(key);
            return progress_replace(&pk->answers[i].value, value);
        }
    }
    struct progress_answer *v = realloc(pk->answers, (pk->nanswers + 1) * sizeof *v);
    char *val = strdup(value);
    if (!v || !val) {
        if (v)
            pk->answers = v;
        free(key);
        free(val);
        return -ENOMEM;
    }
    pk->answers = v;
    v[pk->nanswers++] = (struct progress_answer){.step = key, .value = val};
    return 0;
}

static bool progress_in_lesson(const char *key, const char *lesson)
{
    size_t ll = strlen(lesson);
    return !strncmp(key, lesson, ll) && key[ll] == '/';
}

/* How many fields the records of one lesson (or of every lesson: NULL) hold. */
static size_t progress_fields_in(const struct progress_pack *pk, const char *lesson)
{
    size_t n = 0;
    for (size_t j = 0; j < pk->nrecords; j++)
        if (!lesson || progress_in_lesson(pk->records[j].step, lesson))
            n += pk->records[j].nfields;
    return n;
}

size_t progress_reset(struct progress *p, const char *pack, const char *lesson)
{
    size_t removed = 0;
    for (size_t i = 0; i < p->npacks;) {
        struct progress_pack *pk = &p->packs[i];
        if (pack && strcmp(pk->id, pack)) {
            i++;
            continue;
        }
        if (!lesson) {
            removed +=
                pk->ndone + pk->nanswers + progress_fields_in(pk, NULL) + (pk->last_lesson != NULL);
            progress_pack_clear(pk);
            memmove(pk, pk + 1, (p->npacks - i - 1) * sizeof *pk);
            p->npacks--;
            continue;
        }
        size_t keep = 0;
        for (size_t j = 0; j < pk->ndone; j++) {
            if (progress_in_lesson(pk->done[j], lesson)) {
                free(pk->done[j]);
                removed++;
            } else {
                pk->done[keep++] = pk->done[j];
            }
        }
        pk->ndone = keep;
        keep = 0;
        for (size_t j = 0; j < pk->nanswers; j++) {
            if (progress_in_lesson(pk->answers[j].step, lesson)) {
                free(pk->answers[j].step);
                free(pk->answers[j].value);
                removed++;
            } else {
                pk->answers[keep++] = pk->answers[j];
            }
        }
        pk->nanswers = keep;
        removed += progress_fields_in(pk, lesson);
        keep = 0;
        for (size_t j = 0; j < pk->nrecords; j++) {
            if (progress_in_lesson(pk->records[j].step, lesson))
                progress_record_clear(&pk->records[j]);
            else
                pk->records[keep++] = pk->records[j];
        }
        pk->nrecords = keep;
        progress_index_drop(pk); /* positions moved */
        if (pk->last_lesson && !strcmp(pk->last_lesson, lesson)) {
            free(pk->last_lesson);
            free(pk->last_step);
            pk->last_lesson = pk->last_step = NULL;
            removed++;
        }
        i++;
    }
    return removed;
}

/* Adds "steps" (the records) to a pack's object; 0 or -ENOMEM. */
static int progress_records_to_json(cJSON *o, const struct progress_pack *pk)
{
    cJSON *steps = cJSON_AddObjectToObject(o, "steps");
    if (!steps)
        return -ENOMEM;
    for (size_t j = 0; j < pk->nrecords; j++) {
        const struct progress_record *r = &pk->records[j];
        cJSON *ro = cJSON_AddObjectToObject(steps, r->step);
        cJSON *fields = ro ? cJSON_AddObjectToObject(ro, "fields") : NULL;
        if (!fields || !progress_add_time(ro, "updated", r->updated) ||
            !progress_add_time(ro, "done_at", r->done_at))
            return -ENOMEM;
        for (size_t k = 0; k < r->nfields; k++) {
            cJSON *f = cJSON_Parse(r->fields[k].json);
            if (!f)
                return -ENOMEM; /* the store holds only objects it printed itself */
            cJSON_AddItemToObject(fields, r->fields[k].name, f);
        }
    }
    return 0;
}

char *progress_to_json(const struct progress *p)
{
    cJSON *root = cJSON_CreateObject();
    cJSON *packs = cJSON_AddObjectToObject(root, "packs");
    if (!root || !packs || !cJSON_AddNumberToObject(root, "format", PROGRESS_FORMAT))
        goto fail;
    for (size_t i = 0; i < p->npacks; i++) {
        const struct progress_pack *pk = &p->packs[i];
        cJSON *o = cJSON_AddObjectToObject(packs, pk->id);
        cJSON *done = cJSON_AddArrayToObject(o, "done");
        cJSON *answers = cJSON_AddObjectToObject(o, "answers");
        if (!o || !done || !answers)
            goto fail;
        for (size_t j = 0; j < pk->ndone; j++)
            if (!cJSON_AddItemToArray(done, cJSON_CreateString(pk->done[j])))
                goto fail;
        for (size_t j = 0; j < pk->nanswers; j++)
            if (!cJSON_AddStringToObject(answers, pk->answers[j].step, pk->answers[j].value))
                goto fail;
        if (pk->last_lesson) {
            cJSON *last = cJSON_AddObjectToObject(o, "last");
            if (!last || !cJSON_AddStringToObject(last, "lesson", pk->last_lesson) ||
                !cJSON_AddStringToObject(last, "step", pk->last_step ? pk->last_step : ""))
                goto fail;
        }
        if (pk->nrecords && progress_records_to_json(o, pk) < 0)
            goto fail;
    }
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    return text;
fail:
    cJSON_Delete(root);
    return NULL;
}

/*
 * A key that appears twice in an object is damage: cJSON finds only the first copy, so the
 * second one's records would vanish at the next save without a word.
 */
static int progress_keys_unique(const cJSON *obj)
{
    if (!cJSON_IsObject(obj))
        return 0;
    struct strmap seen = {0};
    int rc = 0;
    const cJSON *it;
    cJSON_ArrayForEach(it, obj)
    {
        int added = strmap_put(&seen, it->string, 0);
        if (added <= 0) {
            rc = added < 0 ? -ENOMEM : -EBADMSG;
            break;
        }
    }
    strmap_free(&seen);
    return rc;
}

/* Copies a JSON string member; false when it is present but not a string. */
static bool progress_take_string(const cJSON *o, const char *name, char **out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
    if (!v)
        return true;
    if (!cJSON_IsString(v))
        return false;
    *out = strdup(v->valuestring);
    return *out != NULL;
}

/* "lesson/step" with both parts non-empty. */
static bool progress_key_ok(const char *key)
{
    const char *slash = strchr(key, '/');
    return slash && slash != key && slash[1];
}

/* A time in a record: a whole number of seconds from 0 to 2^53 (JSON numbers are doubles). */
bool progress_time_ok(const cJSON *v)
{
    return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble <= 9007199254740992.0 &&
           v->valuedouble == (double)(long long)v->valuedouble;
}

bool progress_add_time(cJSON *o, const char *name, long long t)
{
    char digits[24];
    snprintf(digits, sizeof digits, "%lld", t);
    return cJSON_AddRawToObject(o, name, digits) != NULL;
}

static bool progress_take_time(const cJSON *ro, const char *name, long long *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(ro, name);
    if (!v)
        return true;
    if (!progress_time_ok(v))
        return false;
    *out = (long long)v->valuedouble;
    return true;
}

/* Fills pk's records from "steps" (absent: none); -EBADMSG when its shape is not progress. */
static int progress_records_from_json(struct progress_pack *pk, const cJSON *steps)
{
    if (!steps)
        return 0;
    if (!cJSON_IsObject(steps))
        return -EBADMSG;
    int rc = progress_keys_unique(steps);
    size_t n = (size_t)cJSON_GetArraySize(steps);
    if (rc < 0)
        return rc;
    if (n && !(pk->records = calloc(n, sizeof *pk->records)))
        return -ENOMEM;
    pk->cap_records = n;
    const cJSON *ro;
    cJSON_ArrayForEach(ro, steps)
    {
        const cJSON *fields = cJSON_GetObjectItemCaseSensitive(ro, "fields");
        if (!cJSON_IsObject(ro) || !progress_key_ok(ro->string) ||
            (fields && !cJSON_IsObject(fields)))
            return -EBADMSG;
        if ((rc = progress_keys_unique(ro)) < 0 || (rc = progress_keys_unique(fields)) < 0)
            return rc;
        /* The keys of "steps" are unique (checked above): each is a new record. */
        struct progress_record *r = &pk->records[pk->nrecords++];
        if (!(r->step = strdup(ro->string)))
            return -ENOMEM;
        if (!progress_take_time(ro, "updated", &r->updated) ||
            !progress_take_time(ro, "done_at", &r->done_at))
            return -EBADMSG;
        size_t nf = fields ? (size_t)cJSON_GetArraySize(fields) : 0;
        if (nf && !(r->fields = calloc(nf, sizeof *r->fields)))
            return -ENOMEM;
        const cJSON *f;
        cJSON_ArrayForEach(f, fields)
        {
            if (!cJSON_IsObject(f) || !f->string[0])
                return -EBADMSG;
            struct progress_field *pf = &r->fields[r->nfields++];
            pf->name = strdup(f->string);
            pf->json = cJSON_PrintUnformatted(f);
            if (!pf->name || !pf->json)
                return -ENOMEM;
        }
    }
    return 0;
}

/*
 * Fills one pack's record from its object, in time linear in its size: the arrays are sized
 * once, and repeated steps in "done" (harmless: the same fact twice) are dropped through a set
 * rather than by searching the list for each one. -EBADMSG when its shape is not progress.
 */
static int progress_pack_from_json(struct progress_pack *pk, const cJSON *po)
{
    const cJSON *done = cJSON_GetObjectItemCaseSensitive(po, "done");
    const cJSON *answers = cJSON_GetObjectItemCaseSensitive(po, "answers");
    const cJSON *last = cJSON_GetObjectItemCaseSensitive(po, "last");
    if ((done && !cJSON_IsArray(done)) || (answers && !cJSON_IsObject(answers)) ||
        (last && !cJSON_IsObject(last)))
        return -EBADMSG;
    int rc = progress_keys_unique(po);
    if (rc == 0)
        rc = progress_keys_unique(answers);
    if (rc == 0)
        rc = progress_keys_unique(last);
    if (rc < 0)
        return rc;
    size_t ndone = done ? (size_t)cJSON_GetArraySize(done) : 0;
    size_t nanswers = answers ? (size_t)cJSON_GetArraySize(answers) : 0;
    struct strmap seen = {0};
    if ((ndone && !(pk->done = calloc(ndone, sizeof *pk->done))) ||
        (nanswers && !(pk->answers = calloc(nanswers, sizeof *pk->answers))))
        return -ENOMEM;
    pk->cap_done = ndone;
    const cJSON *it;
    cJSON_ArrayForEach(it, done)
    {
        if (!cJSON_IsString(it) || !progress_key_ok(it->valuestring)) {
            rc = -EBADMSG;
            break;
        }
        int added = strmap_put(&seen, it->valuestring, 0);
        if (added < 0) {
            rc = -ENOMEM;
            break;
        }
        if (!added)
            continue;
        if (!(pk->done[pk->ndone] = strdup(it->valuestring))) {
            rc = -ENOMEM;
            break;
        }
        pk->ndone++;
    }
    strmap_free(&seen);
    if (rc < 0)
        return rc;
    cJSON_ArrayForEach(it, answers)
    {
        if (!cJSON_IsString(it) || !progress_key_ok(it->string))
            return -EBADMSG;
        struct progress_answer *a = &pk->answers[pk->nanswers];
        a->step = strdup(it->string);
        a->value = strdup(it->valuestring);
        pk->nanswers++; /* counted even when a copy failed, so that progress_free() frees it */
        if (!a->step || !a->value)
            return -ENOMEM;
    }
    if (last && (!progress_take_string(last, "lesson", &pk->last_lesson) ||
                 !progress_take_string(last, "step", &pk->last_step)))
        return -EBADMSG;
    return progress_records_from_json(pk, cJSON_GetObjectItemCaseSensitive(po, "steps"));
}

/* Fills p from a parsed file; -EBADMSG when its shape is not progress, -ENOMEM. */
static int progress_from_json(struct progress *p, const cJSON *root)
{
    const cJSON *format = cJSON_GetObjectItemCaseSensitive(root, "format");
    const cJSON *packs = cJSON_GetObjectItemCaseSensitive(root, "packs");
    if (!cJSON_IsObject(root) || !cJSON_IsNumber(format) ||
        format->valuedouble != PROGRESS_FORMAT || !cJSON_IsObject(packs))
        return -EBADMSG;
    int rc = progress_keys_unique(root);
    if (rc == 0)
        rc = progress_keys_unique(packs);
    if (rc < 0)
        return rc;
    size_t npacks = (size_t)cJSON_GetArraySize(packs);
    if (npacks && !(p->packs = calloc(npacks, sizeof *p->packs)))
        return -ENOMEM;
    const cJSON *po;
    cJSON_ArrayForEach(po, packs)
    {
        if (!cJSON_IsObject(po) || !po->string[0])
            return -EBADMSG;
        /* The keys are unique (checked above): each is a new pack, no search needed. */
        struct progress_pack *pk = &p->packs[p->npacks++];
        if (!(pk->id = strdup(po->string)))
            return -ENOMEM;
        if ((rc = progress_pack_from_json(pk, po)) < 0)
            return rc;
    }
    return 0;
}

/* Renames a damaged file aside; the new name goes into p->damaged. */
static int progress_move_aside(struct progress *p)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", localtime_r(&now, &tm));
    char *aside = NULL;
    /* Two damaged files in the same second must not overwrite each other: add a counter. */
    for (int i = 0; i < 100; i++) {
        free(aside);
        aside = NULL;
        if ((i ? asprintf(&aside, "%s.damaged-%s-%d", p->path, stamp, i)
               : asprintf(&aside, "%s.damaged-%s", p->path, stamp)) < 0)
            return -ENOMEM;
        if (access(aside, F_OK) < 0 && errno == ENOENT)
            break;
    }
    /* link+unlink instead of rename: rename would replace a file that appeared meanwhile. */
    if (link(p->path, aside) < 0 || unlink(p->path) < 0) {
        int err = -errno;
        free(aside);
        return err;
    }
    p->damaged = aside;
    return 0;
}

/* The identity of the file at path (device, inode, size, change time), all 0 when absent. */
static void progress_stamp(const char *path, long long st[4])
{
    struct stat sb;
    memset(st, 0, 4 * sizeof *st);
    if (stat(path, &sb) == 0) {
        st[0] = (long long)sb.st_dev;
        st[1] = (long long)sb.st_ino;
        st[2] = (long long)sb.st_size;
        st[3] = (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
    }
}

/* Makes text (what the file holds now; taken over) p's base for the next sync. */
static void progress_remember(struct progress *p, char *text)
{
    free(p->base_text);
    p->base_text = text;
    progress_stamp(p->path, p->stamp);
}

/* p's base as a store (an empty one when p has none); NULL on -ENOMEM or a damaged base. */
static struct progress *progress_base(const struct progress *p)
{
    struct progress *base = calloc(1, sizeof *base);
    const char *text = p->base_text ? p->base_text : "{\"format\": 1, \"packs\": {}}";
    if (base && progress_parse(base, text, strlen(text)) < 0) {
        progress_free(base);
        base = NULL;
    }
    return base;
}

/* Removes one step (done, record, answer) from a pack, as a reset elsewhere did. */
static void progress_forget_step(struct progress_pack *pk, const char *key)
{
    size_t keep = 0;
    for (size_t j = 0; j < pk->ndone; j++) {
        if (strcmp(pk->done[j], key))
            pk->done[keep++] = pk->done[j];
        else
            free(pk->done[j]);
    }
    pk->ndone = keep;
    keep = 0;
    for (size_t j = 0; j < pk->nrecords; j++) {
        if (strcmp(pk->records[j].step, key))
            pk->records[keep++] = pk->records[j];
        else
            progress_record_clear(&pk->records[j]);
    }
    pk->nrecords = keep;
    keep = 0;
    for (size_t j = 0; j < pk->nanswers; j++) {
        if (strcmp(pk->answers[j].step, key)) {
            pk->answers[keep++] = pk->answers[j];
        } else {
            free(pk->answers[j].step);
            free(pk->answers[j].value);
        }
    }
    pk->nanswers = keep;
    progress_index_drop(pk);
}

/* Whether a step stands the same in two stores (same done, same record time). */
static bool progress_step_same(const struct progress_pack *a, const struct progress_pack *b,
                               const char *key)
{
    const struct progress_record *ra = progress_pack_record(a, key),
                                 *rb = progress_pack_record(b, key);
    return progress_pack_is_done(a, key) == progress_pack_is_done(b, key) && !ra == !rb &&
           (!ra || (ra->updated == rb->updated && ra->nfields == rb->nfields));
}

/* Takes one step that another process changed on disk into p (see progress_sync). */
static int progress_take_step(struct progress *p, const char *pack,
                              const struct progress_pack *disk, const char *key, bool *changed)
{
    const struct progress_pack *mine = progress_pack_find(p, pack);
    const struct progress_record *rd = progress_pack_record(disk, key);
    const struct progress_record *rm = progress_pack_record(mine, key);
    int rc = 0;
    if (rd && (!rm || rd->updated >= rm->updated)) {
        rc = progress_record_put(p, pack, rd);
        *changed = true;
    }
    if (rc == 0 && progress_pack_is_done(disk, key) && !progress_pack_is_done(mine, key)) {
        /* Marked done elsewhere: done, with the time it was done there. */
        char lesson[256];
        snprintf(lesson, sizeof lesson, "%.*s", (int)(strchr(key, '/') - key), key);
        long long at = rd ? rd->done_at : 0, up = rd ? rd->updated : 0;
        rc = progress_mark_done(p, pack, lesson, strchr(key, '/') + 1);
        struct progress_record *r =
            (struct progress_record *)progress_pack_record(progress_pack_find(p, pack), key);
        if (rc == 0 && r && rd) {
            r->done_at = at;
            r->updated = up > r->updated ? up : r->updated;
        }
        *changed = true;
    }
    return rc;
}

int progress_sync(struct progress *p)
{
    long long st[4];
    progress_stamp(p->path, st);
    if (!memcmp(st, p->stamp, sizeof st))
        return 0; /* nobody wrote the file since p read or wrote it */
    struct progress *disk = NULL, *base = progress_base(p);
    int rc = base ? progress_load(p->path, &disk) : -ENOMEM;
    if (rc < 0) {
        progress_free(base);
        return rc;
    }
    bool changed = false;
    /* What others changed or added: on disk, and not as the base had it. */
    for (size_t i = 0; i < disk->npacks && rc == 0; i++) {
        const struct progress_pack *dk = &disk->packs[i];
        const struct progress_pack *bk = progress_pack_find(base, dk->id);
        for (size_t j = 0; j < dk->nrecords && rc == 0; j++)
            if (!bk || !progress_step_same(dk, bk, dk->records[j].step))
                rc = progress_take_step(p, dk->id, dk, dk->records[j].step, &changed);
        for (size_t j = 0; j < dk->ndone && rc == 0; j++)
            if (!progress_pack_is_done(bk, dk->done[j]))
                rc = progress_take_step(p, dk->id, dk, dk->done[j], &changed);
        for (size_t j = 0; j < dk->nanswers && rc == 0; j++) {
            const char *key = dk->answers[j].step;
            struct progress_pack *mk = (struct progress_pack *)progress_pack_find(p, dk->id);
            bool have = false;
            for (size_t k = 0; mk && k < mk->nanswers && !have; k++)
                have = !strcmp(mk->answers[k].step, key);
            if (!have) {
                char lesson[256];
                snprintf(lesson, sizeof lesson, "%.*s", (int)(strchr(key, '/') - key), key);
                rc = progress_set_answer(p, dk->id, lesson, strchr(key, '/') + 1,
                                         dk->answers[j].value);
                changed = true;
            }
        }
    }
    /* What others removed (a reset): in the base, gone from disk, and not changed here since. */
    for (size_t i = 0; i < base->npacks && rc == 0; i++) {
        const struct progress_pack *bk = &base->packs[i];
        const struct progress_pack *dk = progress_pack_find(disk, bk->id);
        struct progress_pack *mk = (struct progress_pack *)progress_pack_find(p, bk->id);
        for (size_t j = 0; mk && j < bk->nrecords; j++) {
            const char *key = bk->records[j].step;
            if (progress_pack_record(dk, key) || progress_pack_is_done(dk, key))
                continue;
            const struct progress_record *rm = progress_pack_record(mk, key);
            if (rm && rm->updated > bk->records[j].updated)
                continue; /* changed here after the base: this side's work stays */
            progress_forget_step(mk, key);
            changed = true;
        }
    }
    if (rc == 0) {
        /* What the disk holds is the new base; p's own changes are still to be saved. */
        char *text = progress_to_json(disk);
        if (text)
            progress_remember(p, text);
        else
            rc = -ENOMEM;
    }
    progress_free(disk);
    progress_free(base);
    return rc < 0 ? rc : changed;
}

int progress_parse(struct progress *p, const char *text, size_t len)
{
    size_t at;
    /* A NUL (a byte, or \u0000 in a string) would cut a string short without cJSON noticing;
     * require_null_terminated refuses anything after the JSON value. */
    if (text[len] != '\0' || jsontext_check(text, len, &at) != JSONTEXT_OK)
        return -EBADMSG;
    cJSON *root = cJSON_ParseWithOpts(text, NULL, 1);
    int rc = root ? progress_from_json(p, root) : -EBADMSG;
    cJSON_Delete(root);
    return rc;
}

int progress_load(const char *path, struct progress **out)
{
    *out = NULL;
    struct progress *p = calloc(1, sizeof *p);
    char *text = NULL;
    size_t len = 0;
    int rc = -ENOMEM;
    if (!p || !(p->path = strdup(path)))
        goto fail;
    /* Not a regular file (a FIFO would block the read for ever) or too large: refused, not
     * moved aside, since neither is a progress file iolab wrote. */
    rc = fileread_regular(path, PROGRESS_MAX_BYTES, &text, &len, NULL);
    if (rc == -ENOENT) {
        *out = p;
        return 0; /* no base: the file is empty as far as a sync can tell */
    }
    if (rc < 0)
        goto fail;
    rc = progress_parse(p, text, len);
    if (rc == 0) {
        progress_remember(p, text);
        text = NULL;
    }
    if (rc == -EBADMSG) {
        /* Start over empty, but keep what was there for the learner to see. */
        for (size_t i = 0; i < p->npacks; i++)
            progress_pack_clear(&p->packs[i]);
        free(p->packs);
        p->packs = NULL;
        p->npacks = 0;
        rc = progress_move_aside(p);
    }
    if (rc < 0)
        goto fail;
    free(text);
    *out = p;
    return 0;
fail:
    free(text);
    progress_free(p);
    return rc;
}

/* mkdir -p for the directory part of path. */
static int progress_mkdirs(const char *path)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return -ENAMETOOLONG;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *s = dir + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
            return -errno;
        *s = '/';
    }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

static int progress_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -errno;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* progress_write_temp, handing the text written to the caller (free it) when text is not NULL. */
static int progress_write_text(const struct progress *p, char *tmp, size_t tmplen, char **written)
{
    int rc = progress_mkdirs(p->path);
    if (rc < 0)
        return rc;
    /* Same directory as the target, so the rename cannot cross a filesystem. */
    int n = snprintf(tmp, tmplen, "%s.tmp-XXXXXX", p->path);
    if (n < 0 || (size_t)n >= tmplen)
        return -ENAMETOOLONG;
    char *text = progress_to_json(p);
    if (!text)
        return -ENOMEM;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        free(text);
        return rc;
    }
    rc = progress_write_all(fd, text, strlen(text));
    if (rc == 0)
        rc = progress_write_all(fd, "\n", 1);
    if (rc == 0 && fsync(fd) < 0)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc < 0)
        unlink(tmp);
    if (rc == 0 && written)
        *written = text;
    else
        free(text);
    return rc;
}

int progress_write_temp(const struct progress *p, char *tmp, size_t tmplen)
{
    return progress_write_text(p, tmp, tmplen, NULL);
}

int progress_commit(struct progress *p, const char *tmp)
{
    if (rename(tmp, p->path) < 0) {
        int rc = -errno;
        unlink(tmp);
        return rc;
    }
    /* The rename is durable only once the directory entry itself is on disk. */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", p->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        strcpy(dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) < 0 ? -errno : 0;
    close(fd);
    return rc;
}

int progress_save(struct progress *p)
{
    char tmp[PATH_MAX], *text = NULL;
    int rc = progress_write_text(p, tmp, sizeof tmp, &text);
    if (rc == 0)
        rc = progress_commit(p, tmp);
    if (rc == 0) {
        /* What the file holds now is what p holds: the base of the next sync. */
        progress_remember(p, text);
        text = NULL;
    }
    free(text);
    return rc;
}

int progress_lock(const char *path)
{
    char lock[PATH_MAX];
    if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock)
        return -ENAMETOOLONG;
    int rc = progress_mkdirs(path);
    if (rc < 0)
        return rc;
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -errno;
    while (flock(fd, LOCK_EX) < 0) {
        if (errno != EINTR) {
            rc = -errno;
            close(fd);
            return rc;
        }
    }
    progress_remove_temps(path);
    return fd;
}

void progress_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the only descriptor of the lock file releases the flock */
}

/* Removes PATH.tmp-* files: called with the lock held, when no writer can be between its
 * write and its rename, so every such file is a dead writer's leftover. */
static void progress_remove_temps(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : path;
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        strcpy(dir, ".");
    char prefix[NAME_MAX + 8];
    snprintf(prefix, sizeof prefix, "%s.tmp-", base);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix)))
            unlinkat(dfd, e->d_name, 0);
    closedir(d);
}
