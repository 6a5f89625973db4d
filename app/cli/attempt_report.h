/*
 * attempt_report: what `iolab check LESSON/STEP` prints of an attempt: the text report (the
 * build's messages, each check, the program's last lines, one closing sentence with the verdict
 * and the score) or the --json object; and the checks' JSON that --solutions shares.
 */
#ifndef IOLAB_ATTEMPT_REPORT_H
#define IOLAB_ATTEMPT_REPORT_H

#include "attempt.h"
#include "json.h"

#define ATTEMPT_REPORT_LOG_SHOWN 4000 /* bytes of compiler output printed in the text output */
/* The version of check --json's and --solutions --json's objects ("format"): raised when a key
   changes meaning or goes away, not when one is added. */
#define ATTEMPT_REPORT_JSON_FORMAT 1

/* The text report on stdout, escaped as termsafe.h says. */
void attempt_report_text(const struct attempt *a);

/* The --json object into j. */
void attempt_report_json(const struct attempt *a, struct json_out *j);

/* The "checks" array of an attempt into j. */
void attempt_report_checks_json(struct json_out *j, const struct attempt *a);

#endif
