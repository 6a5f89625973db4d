/*
 * sweepio: a sweep's result written out and read back: JSON (`iolab run --json`, the progress
 * record "sweep", `iolab bench`), CSV (`--csv`, one row per point) and the text table. The JSON
 * shape is documented in engine/README.md; sweepio_parse() reads back what sweepio_json() wrote,
 * for the points of a sweep the learner ran before (the TUI shows them after a restart).
 */
#ifndef IOLAB_SWEEPIO_H
#define IOLAB_SWEEPIO_H

#include "json.h"
#include "sweeprun.h"

#include <stdio.h>

/* The result as one JSON object (under key, or at the root when key is NULL). */
void sweepio_json(struct json_out *j, const char *key, const struct sweep_result *res);
/* The same as text; free() it. NULL when out of memory. */
char *sweepio_json_text(const struct sweep_result *res);
/* Header and one row per point measured, in run order; text from the pack and the programs
   (mode ids, values, problems) is shown with its controls escaped (util/termsafe.h). */
void sweepio_csv(FILE *f, const struct sweep_result *res);
/* One CSV field: quoted when it holds a comma, a quote or a newline, its controls escaped. */
void sweepio_csv_field(FILE *f, const char *s);
/* A table: one row per value, one column per mode, the sweep's figure; then the other figures. */
void sweepio_text(FILE *f, const struct sweep_result *res);
/*
 * Reads back a result written by sweepio_json() for the step's sweep sw: the points whose mode
 * and value the sweep still has (a lesson that changed since keeps what still fits). 0, or
 * -EINVAL when the text is not such a result.
 */
int sweepio_parse(const char *json, const struct lesson_scenario *sc, struct sweep_result *out);

/* A figure with its unit, short: "1.23 GB/s", "45.6k/s", "0.81 ms p99". */
const char *sweepio_figure_text(enum figure_id f, double v, char *buf, size_t len);

#endif
