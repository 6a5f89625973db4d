/*
 * buildmsg: a compiler's and a sanitizer's words made readable for the learner (buildmsg.c).
 */
#ifndef IOLAB_BUILDMSG_H
#define IOLAB_BUILDMSG_H

#include "lesson/lesson.h"

#include <stdbool.h>
#include <stddef.h>

/* line into out with every "PATH/NAME:" of one of ex's files written "NAME:". */
void exercise_shorten(const struct lesson_exercise *ex, const char *line, char *out, size_t len);

/* The lines of a sanitizer's report about the learner's code (the error, the access, the frames
   in ex's files, the SUMMARY), one a line, each once, into out. */
void exercise_sanitizer_brief(const struct lesson_exercise *ex, const char *report, char *out,
                              size_t len);

/* Whether a compiler line is part of its source excerpt ("   48 |     x = ;", the caret line). */
bool exercise_compiler_excerpt(const char *line);

#endif
