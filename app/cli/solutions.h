/*
 * solutions: `iolab check --pack DIR --solutions`, the author's check of every exercise of a
 * pack (as rustlings' dev check): each solution, built as the learner's program, must pass; each
 * starter, generated into a fresh directory, must build and fail at least one check (and the
 * points it earns unchanged are named).
 */
#ifndef IOLAB_SOLUTIONS_H
#define IOLAB_SOLUTIONS_H

#include "lesson/lesson.h"

#include <stdbool.h>

/* Checks every exercise of pack (seconds > 0 overrides each one's time), in text or JSON, with a
   JUnit report to junit when not NULL. 0 all good, 1 problems, 2 the report could not be
   written, 128+signal when a signal stopped it. */
int solutions_run(const struct lesson_pack *pack, bool json, double seconds, const char *junit);

#endif
