/*
 * lesson_pos: a minimal JSON scanner that records value offsets in document order (see the
 * header for why document order is enough to match cJSON items). Whitespace is skipped the way
 * cJSON skips it (every byte up to 32), and a UTF-8 byte order mark is skipped too, so the two
 * never disagree about where a value begins.
 */
#include "lesson_pos.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LESSON_POS_MAX_DEPTH 1000 /* cJSON's own nesting limit */

struct lesson_pos_scanner {
    const char *s;
    size_t len, i;
    struct lesson_pos *pos;
};

static void lesson_pos_skip_ws(struct lesson_pos_scanner *sc)
{
    while (sc->i < sc->len && (unsigned char)sc->s[sc->i] <= 32)
        sc->i++;
}

static int lesson_pos_add(struct lesson_pos *pos, size_t value, size_t key)
{
    if (pos->n == pos->cap) {
        size_t cap = pos->cap ? pos->cap * 2 : 64;
        struct lesson_pos_entry *v = realloc(pos->v, cap * sizeof *v);
        if (!v)
            return -ENOMEM;
        pos->v = v;
        pos->cap = cap;
    }
    pos->v[pos->n++] = (struct lesson_pos_entry){.value = value, .key = key};
    return 0;
}

/* Moves past a string whose opening quote is at sc->i. */
static int lesson_pos_string(struct lesson_pos_scanner *sc)
{
    for (sc->i++; sc->i < sc->len; sc->i++) {
        if (sc->s[sc->i] == '\\')
            sc->i++;
        else if (sc->s[sc->i] == '"') {
            sc->i++;
            return 0;
        }
    }
    return -EINVAL;
}

static int lesson_pos_value(struct lesson_pos_scanner *sc, size_t key, int depth)
{
    lesson_pos_skip_ws(sc);
    if (sc->i >= sc->len || depth > LESSON_POS_MAX_DEPTH)
        return -EINVAL;
    int rc = lesson_pos_add(sc->pos, sc->i, key);
    if (rc < 0)
        return rc;
    char c = sc->s[sc->i];
    if (c == '"')
        return lesson_pos_string(sc);
    if (c != '{' && c != '[') {
        /* Numbers and literals: everything up to the next delimiter. */
        while (sc->i < sc->len && (unsigned char)sc->s[sc->i] > 32 && !strchr(",]}", sc->s[sc->i]))
            sc->i++;
        return 0;
    }
    char close = c == '{' ? '}' : ']';
    sc->i++;
    lesson_pos_skip_ws(sc);
    if (sc->i < sc->len && sc->s[sc->i] == close) {
        sc->i++;
        return 0;
    }
    for (;;) {
        size_t member_key = LESSON_POS_NOKEY;
        if (close == '}') {
            lesson_pos_skip_ws(sc);
            if (sc->i >= sc->len || sc->s[sc->i] != '"')
                return -EINVAL;
            member_key = sc->i;
            if ((rc = lesson_pos_string(sc)) < 0)
                return rc;
            lesson_pos_skip_ws(sc);
            if (sc->i >= sc->len || sc->s[sc->i] != ':')
                return -EINVAL;
            sc->i++;
        }
        if ((rc = lesson_pos_value(sc, member_key, depth + 1)) < 0)
            return rc;
        lesson_pos_skip_ws(sc);
        if (sc->i >= sc->len)
            return -EINVAL;
        if (sc->s[sc->i] == close) {
            sc->i++;
            return 0;
        }
        if (sc->s[sc->i] != ',')
            return -EINVAL;
        sc->i++;
    }
}

int lesson_pos_scan(struct lesson_pos *pos, const char *text, size_t len)
{
    struct lesson_pos_scanner sc = {.s = text, .len = len, .pos = pos};
    if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
        sc.i = 3;
    return lesson_pos_value(&sc, LESSON_POS_NOKEY, 0);
}

void lesson_pos_free(struct lesson_pos *pos)
{
    free(pos->v);
    *pos = (struct lesson_pos){0};
}

void lesson_pos_linecol(const char *text, size_t len, size_t offset, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < offset && i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            ++*line;
            *col = 1;
        } else if ((c & 0xC0) != 0x80) {
            ++*col; /* a UTF-8 continuation byte belongs to the character before it */
        }
    }
}
