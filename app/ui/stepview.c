/*
 * stepview: the registry of step kinds' views (stepview.h), built-in rows first. Registration
 * happens before the TUI starts, from one thread.
 */
#include "stepview.h"

#include <errno.h>
#include <string.h>

static const struct stepview_kind *const stepview_builtin[] = {
    &stepview_text,
    &stepview_run,
    &stepview_exercise,
    &stepview_quiz,
};
#define STEPVIEW_NBUILTIN (sizeof stepview_builtin / sizeof *stepview_builtin)

static const struct stepview_kind *stepview_extra[STEPVIEW_MAX - STEPVIEW_NBUILTIN];
static size_t stepview_nextra;

const struct stepview_kind *stepview_at(size_t i)
{
    if (i < STEPVIEW_NBUILTIN)
        return stepview_builtin[i];
    i -= STEPVIEW_NBUILTIN;
    return i < stepview_nextra ? stepview_extra[i] : NULL;
}

const struct stepview_kind *stepview_find(const char *name)
{
    const struct stepview_kind *k;
    for (size_t i = 0; (k = stepview_at(i)); i++)
        if (!strcmp(k->name, name))
            return k;
    return NULL;
}

int stepview_register(const struct stepview_kind *kind)
{
    if (stepview_find(kind->name))
        return -EEXIST;
    if (stepview_nextra == sizeof stepview_extra / sizeof *stepview_extra)
        return -ENOSPC;
    stepview_extra[stepview_nextra++] = kind;
    return 0;
}
