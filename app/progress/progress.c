/*
 * progress: the model behind progress.h: the in-memory store of packs, steps done, answers and
 * per-step records, and the queries and changes on it. Look-ups by "lesson/step" go through an
 * index each pack builds on its first look-up and drops on a removal, so that an import or a merge
 * of n steps takes time linear in n. The JSON text is progress_codec.c's business (a field's
 * record is checked there: progress_object_text), the file's is progress_store.c's.
 */
#include "progress.h"
#include "progress_int.h"

#include "strmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void progress_record_clear(struct progress_record *r)
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

void progress_index_drop(struct progress_pack *pk)
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

void progress_pack_clear(struct progress_pack *pk)
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
    free(pk->version);
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

int progress_set_version(struct progress *p, const char *pack, const char *version)
{
    if (!version)
        return 0;
    struct progress_pack *pk = progress_pack_get(p, pack);
    return pk ? progress_replace(&pk->version, version) : -ENOMEM;
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
