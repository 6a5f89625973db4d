/*
 * report: the one reader of iolab-sandbox's JSON report lines (the holder's first line with its
 * pid and its `sandbox` object, and each program's rusage line at its end). A line is parsed
 * once with cJSON into a tree that is freed at once; a field is found by key at any depth, as
 * the launcher writes each key once per line. Damaged or partial lines give "missing", never a
 * guess.
 */
#ifndef IOLAB_REPORT_H
#define IOLAB_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct report;

/* Parses one line (NUL-terminated); NULL when it is not a JSON object. */
struct report *report_parse(const char *line);
void report_free(struct report *r);

/* A string field into out (cut to len); false when missing or not a string. */
bool report_string(const struct report *r, const char *key, char *out, size_t len);

/* A boolean field into out; false when missing or not a boolean. */
bool report_bool(const struct report *r, const char *key, bool *out);

/* A whole non-negative number; false when missing, negative or not a number. */
bool report_u64(const struct report *r, const char *key, uint64_t *out);

#endif
