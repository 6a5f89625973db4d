/*
 * attempt_record: a headless check recorded in the learner's progress as the TUI records it.
 */
#ifndef IOLAB_ATTEMPT_RECORD_H
#define IOLAB_ATTEMPT_RECORD_H

#include "attempt.h"

#include <stdbool.h>

/* Records attempt a of pack's step (starter: its files are the starter as generated); a failure
   to record is said on stderr, the verdict stands. */
void attempt_record(const struct lesson_pack *pack, const struct attempt *a, bool starter);

#endif
