/*
 * packstart: `iolab check --pack DIR` alone, the author's check of a pack's run steps: every
 * mode of every run step is started for a moment, and a program that does not start, never
 * prints its ready text or dies at once is named in one sentence. Exercises are solutions.h's.
 */
#ifndef IOLAB_PACKSTART_H
#define IOLAB_PACKSTART_H

#include "lesson/lesson.h"

#include <stdbool.h>

/* One line (or JSON object) per start; 0 when all started, 1 otherwise, 128+signal when a signal
   stopped it. */
int packstart_run(const struct lesson_pack *pack, bool json);

#endif
