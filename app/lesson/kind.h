/*
 * kind: step kinds as a table. A kind is one row: its name in the JSON, the keys its steps take
 * beyond the common ones (id, title, kind, text), the parser that turns them into its payload,
 * the function that frees it, the capabilities other code may ask a step for (a scenario to
 * run), and the progress records its steps keep (record.h: typed, and checked by an import). How a
 * kind is drawn and what its keys do is the UI's half of the row (ui/stepview.h), found by the same
 * name.
 *
 * The built-in kinds are the table in kind.c; lesson_kind_register() adds one (a test's, or one
 * an embedding program brings) before any pack is loaded. A new kind is new files plus a row:
 * nothing outside its own files asks which kind a step is.
 */
#ifndef IOLAB_KIND_H
#define IOLAB_KIND_H

#include "lesson.h"

#include <stddef.h>

struct load;
struct load_field;
struct cJSON;
struct lesson_record;

#define LESSON_KIND_MAX 16 /* built-in and registered kinds together */

struct lesson_kind {
    const char *name;                /* "text", "run": the step's "kind" in the JSON */
    const struct load_field *fields; /* the kind's own keys; NULL when it has none */
    size_t nfields;
    /* Copies the kind's fields (f[i] is fields[i]'s value or NULL) into step->data, reporting
       every problem through the loader (load.h). NULL: the kind has no payload. */
    void (*parse)(struct load *ld, const struct cJSON *const *f, struct lesson_step *step);
    void (*free)(void *data); /* frees step->data; NULL when parse allocates nothing */
    /* The scenario the step runs, or NULL; NULL function: the kind never runs anything. */
    const struct lesson_scenario *(*scenario)(const struct lesson_step *step);
    /* The exercise the step sets, or NULL; NULL function: the kind sets none. */
    const struct lesson_exercise *(*exercise)(const struct lesson_step *step);
    /* A kind built on another takes its keys too: base's fields are checked with the kind's
       own, and base's parser runs first (its payload then goes to parse in step->data). */
    const struct lesson_kind *base;
    /* The progress records the kind's steps keep (record.h), NULL-terminated; NULL: none. An
       import asks them whether a record fits a step (lesson_record_find()). */
    const struct lesson_record *const *records;
};

/* Adds a kind. 0; -EEXIST when its name is taken; -ENOSPC past LESSON_KIND_MAX. */
int lesson_kind_register(const struct lesson_kind *kind);

/* The kind with this name, or NULL. */
const struct lesson_kind *lesson_kind_find(const char *name);

/* The i-th kind (built-in ones first), or NULL past the last. */
const struct lesson_kind *lesson_kind_at(size_t i);

/* The built-in kinds' rows (kind_text.c, kind_run.c). */
extern const struct lesson_kind lesson_kind_text;
extern const struct lesson_kind lesson_kind_run;
extern const struct lesson_kind lesson_kind_exercise;

#endif
