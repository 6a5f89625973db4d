/*
 * progress_codec: progress as JSON text and back (progress.h's model <-> the file's format). The
 * file looks like
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
 * cJSON is used only here in the store, only to parse into and print from the plain structs of
 * progress.h. Text that does not match this shape is damaged (-EBADMSG): progress_store.c moves
 * such a file aside.
 */
#include "progress.h"
#include "progress_int.h"

#include "jsontext.h"
#include "strmap.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROGRESS_FORMAT 1

/* json in its compact form when it is one JSON object (with no NUL and valid UTF-8), else NULL
 * (errno EINVAL or ENOMEM). */
char *progress_object_text(const char *json)
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
        if (pk->version && !cJSON_AddStringToObject(o, "version", pk->version))
            goto fail;
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
    /* The version is a note for exports: one that is not a string is dropped, not damage. */
    const cJSON *ver = cJSON_GetObjectItemCaseSensitive(po, "version");
    if (cJSON_IsString(ver) && !(pk->version = strdup(ver->valuestring)))
        return -ENOMEM;
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
