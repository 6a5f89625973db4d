/*
 * sandbox_line: the one reader of iolab-sandbox's JSON report lines (the holder's first line with
 * its pid and its `sandbox` object, and each program's rusage line at its end), in iolab's own
 * code rather than cJSON's (only the loader and the stores parse JSON with cJSON): a line is
 * checked whole when it is parsed and kept as text. A field is named by its path from the line's
 * top, its members' keys joined by dots ("pid", "cgroup.pids", "sandbox.features.landlock_abi"),
 * so a key that two objects of a line hold is never taken from the wrong one. Damaged or partial
 * lines, and a path the line lacks, give "missing", never a guess.
 */
#ifndef IOLAB_SANDBOX_LINE_H
#define IOLAB_SANDBOX_LINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sandbox_line;

/* Parses one line (NUL-terminated); NULL when it is not a JSON object. */
struct sandbox_line *sandbox_line_parse(const char *line);
void sandbox_line_free(struct sandbox_line *r);

/* In each call, key is a path as above. A string field into out (cut to len); false when
   missing or not a string. */
bool sandbox_line_string(const struct sandbox_line *r, const char *key, char *out, size_t len);

/* An object field as compact JSON into out; false when missing, not an object or too long. */
bool sandbox_line_json(const struct sandbox_line *r, const char *key, char *out, size_t len);

/* A boolean field into out; false when missing or not a boolean. */
bool sandbox_line_bool(const struct sandbox_line *r, const char *key, bool *out);

/* A whole non-negative number; false when missing, negative or not a number. */
bool sandbox_line_u64(const struct sandbox_line *r, const char *key, uint64_t *out);

#endif
