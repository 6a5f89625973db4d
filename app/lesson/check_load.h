/*
 * check_load: the keys of a check that exercises use (lessons/README.md, "Exercise checks"),
 * parsed apart from the run step's own keys so that kind_run.c only appends them to its table:
 *   "program" the program an exit or output check reads (its name in "programs")
 *   "match"   output: an extended regular expression a line must match (never byte-exact)
 *   "status"  exit: the exit status wanted (0..255)
 *   "within"  seconds the check has to hold, from its mode's start; then it is decided
 *   "fail"    one sentence on where to look when the check fails
 *   "digest"  output: a file of the step; a line counts only when the first group of "match" is
 *             that file's FNV-1a digest, which iolab computes itself (grade.c)
 *   "points"  the check's weight in a grade's score (a number from 0 to 1000; 1 when unset)
 * Implemented in check_load.c.
 */
#ifndef IOLAB_CHECK_LOAD_H
#define IOLAB_CHECK_LOAD_H

#include "load.h"

#define CHECK_NEXTRA 7
/* One entry per key, in the order above. */
// clang-format off
#define CHECK_EXTRA_FIELDS                                                                         \
    {"program", LOAD_STRING, 0}, {"match", LOAD_STRING, 0}, {"status", LOAD_NUMBER, 0},            \
    {"within", LOAD_NUMBER, 0}, {"fail", LOAD_STRING, 0}, {"digest", LOAD_STRING, 0},              \
    {"points", LOAD_NUMBER, 0}
// clang-format on

/* Parses f[0..CHECK_NEXTRA) (in the order above) into c, and checks that they fit its metric. */
void check_load_extra(struct load *ld, const cJSON *obj, const cJSON *const *f,
                      const struct lesson_scenario *sc, struct lesson_check *c, int figure_ok);

#endif
