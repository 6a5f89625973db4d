/*
 * jsontext: what a JSON parser accepts but iolab must not, found in the raw text before parsing.
 *
 * cJSON keeps strings as C strings, so a NUL, whether a raw byte or the escape \u0000, silently
 * cuts the string (or the whole text) where it stands: an id "compare\u0000evil" would read as
 * "compare". cJSON also copies bytes that are not UTF-8 into strings unchanged, and the TUI would
 * then draw them as garbage. This scan finds the first such problem and its byte offset, so the
 * caller can name its line and column (or call the file damaged).
 */
#ifndef IOLAB_JSONTEXT_H
#define IOLAB_JSONTEXT_H

#include <stddef.h>

enum jsontext_problem {
    JSONTEXT_OK,
    JSONTEXT_NUL_BYTE,   /* a raw 0 byte anywhere in the text */
    JSONTEXT_NUL_ESCAPE, /* \u0000 inside a string */
    JSONTEXT_BAD_UTF8,   /* a byte sequence that is not UTF-8 (overlong, surrogate, cut short...) */
};

/* Scans text[0..len) and returns the first problem, with its byte offset in *at. */
enum jsontext_problem jsontext_check(const char *text, size_t len, size_t *at);

/*
 * Where offset at of text lies, for a message: its line and column (1-based, columns in bytes)
 * and the path of the member it falls in, as a reader would write it (`packs[0].steps[3].step`;
 * empty at the top level). The text before at need not be valid JSON: the path is the best
 * guess of a forgiving scan, and always a NUL-terminated string of at most len - 1 bytes.
 */
void jsontext_where(const char *text, size_t at, int *line, int *col, char *path, size_t len);

#endif
