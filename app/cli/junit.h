/*
 * junit: `iolab check --junit FILE`, the verdicts as JUnit XML for a CI (GitLab, Jenkins,
 * GitHub's test reporters): one <testsuite> per exercise, a test case for the build and one per
 * check (a check never judged is "skipped"), the score and each check's points as properties.
 * A suite is written into a memory stream as its cases are; junit_write() wraps the suites and
 * renames the whole report into place, so a CI never reads half a report.
 */
#ifndef IOLAB_JUNIT_H
#define IOLAB_JUNIT_H

#include "attempt.h"

#include <stdio.h>
#include <time.h>

/* Counts of one test suite, for its attributes and the whole report's. */
struct junit_counts {
    size_t tests, failures, errors, skipped; /* skipped: checks the run never judged */
    double seconds, score, max_score;
    /* The suite's <property> elements beyond the score, written as the cases are (each check's
       points: a property, not a part of the test's name, so that re-weighting a check keeps
       its test's history in the CI); a memory stream, NULL when it could not be opened. */
    FILE *props;
    char *props_text;
    size_t props_len;
    const char *audited; /* --audit: "true", or "false: WHY"; NULL: no audit asked */
};

/* Opens n's stream of properties (junit_props_end closes it and frees the text). */
void junit_props_begin(struct junit_counts *n);
void junit_props_end(struct junit_counts *n);

/* The seconds an attempt took as its suite reports it. */
double junit_attempt_seconds(const struct attempt *a);

/* One test case; kind is NULL (passed), "failure", "error" or "skipped"; body may be NULL. */
void junit_case(FILE *f, struct junit_counts *n, const char *classname, const char *name,
                double seconds, const char *kind, const char *message, const char *body);

/* The cases of one attempt (its build, then its checks); suffix names the attempt. */
void junit_attempt(FILE *f, struct junit_counts *n, const struct attempt *a, const char *suffix);

/* One <testsuite> into out, around its cases. */
void junit_suite(FILE *out, const char *name, const struct junit_counts *n, const char *cases,
                 time_t started);

/* The whole report, suites wrapped in <testsuites>, renamed into path. 0 or -1 (said). */
int junit_write(const char *path, const char *suites, const struct junit_counts *n);

/* The report of one `iolab check LESSON/STEP`. 0 or -1. */
int junit_single(const char *path, const struct attempt *a);

#endif
