/*
 * lesson_pos: where each value of a JSON text starts, so that the loader can name a line and a
 * column for a problem it finds in a cJSON tree (cJSON keeps no positions).
 *
 * The scanner visits values in document order, which is also the pre-order of the tree cJSON
 * builds from the same text (an object or array before its members, members in order, duplicate
 * keys kept). Entry i therefore belongs to the i-th item of a pre-order walk of that tree. The
 * text must be one cJSON has accepted; the scanner does not report syntax errors, it only stops.
 */
#ifndef IOLAB_LESSON_POS_H
#define IOLAB_LESSON_POS_H

#include <stddef.h>

#define LESSON_POS_NOKEY ((size_t)-1)

struct lesson_pos_entry {
    size_t value; /* byte offset of the value's first character */
    size_t key;   /* byte offset of its key's opening quote; LESSON_POS_NOKEY outside objects */
};

struct lesson_pos {
    struct lesson_pos_entry *v; /* in document order */
    size_t n, cap;
};

/* Records every value of text. 0, -EINVAL when the text ends early, or -ENOMEM. */
int lesson_pos_scan(struct lesson_pos *pos, const char *text, size_t len);
void lesson_pos_free(struct lesson_pos *pos);

/* Line and column (both from 1; columns count characters, not UTF-8 bytes) of a byte offset. */
void lesson_pos_linecol(const char *text, size_t len, size_t offset, int *line, int *col);

#endif
