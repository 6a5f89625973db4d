/*
 * kind: the registry of step kinds (see kind.h). The built-in rows come first, in the order the
 * docs list them; registered ones follow in registration order. Registration happens before any
 * pack is loaded and from one thread, so the table needs no lock.
 */
#include "kind.h"
#include "quiz.h"
#include "record.h"

#include <errno.h>
#include <string.h>

static const struct lesson_kind *const kind_builtin[] = {
    &lesson_kind_text,
    &lesson_kind_run,
    &lesson_kind_exercise,
    &lesson_kind_quiz,
};
#define KIND_NBUILTIN (sizeof kind_builtin / sizeof *kind_builtin)

static const struct lesson_kind *kind_extra[LESSON_KIND_MAX - KIND_NBUILTIN];
static size_t kind_nextra;

const struct lesson_kind *lesson_kind_at(size_t i)
{
    if (i < KIND_NBUILTIN)
        return kind_builtin[i];
    i -= KIND_NBUILTIN;
    return i < kind_nextra ? kind_extra[i] : NULL;
}

const struct lesson_kind *lesson_kind_find(const char *name)
{
    const struct lesson_kind *k;
    for (size_t i = 0; (k = lesson_kind_at(i)); i++)
        if (!strcmp(k->name, name))
            return k;
    return NULL;
}

int lesson_kind_register(const struct lesson_kind *kind)
{
    if (lesson_kind_find(kind->name))
        return -EEXIST;
    if (kind_nextra == sizeof kind_extra / sizeof *kind_extra)
        return -ENOSPC;
    kind_extra[kind_nextra++] = kind;
    return 0;
}

const struct lesson_record *lesson_record_find(const char *field)
{
    const struct lesson_kind *k;
    for (size_t i = 0; (k = lesson_kind_at(i)); i++)
        for (size_t r = 0; k->records && k->records[r]; r++)
            if (!strcmp(k->records[r]->field, field))
                return k->records[r];
    return NULL;
}
