/*
 * jsontext: see jsontext.h. One pass over the bytes: a small state machine that knows whether it
 * is inside a string (so that "\\u0000", an escaped backslash followed by text, is not taken for
 * the escape), and a strict UTF-8 decoder (RFC 3629: no overlong forms, no surrogates, nothing
 * above U+10FFFF). Everything else about the JSON is left to the parser.
 */
#include "jsontext.h"

#include <stdio.h>
#include <string.h>

/* Length of the UTF-8 sequence at s (at most n bytes), or 0 when it is not valid UTF-8. */
static size_t jsontext_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t want;
    unsigned lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        want = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        want = 3;
        if (c == 0xE0)
            lo = 0xA0; /* overlong */
        else if (c == 0xED)
            hi = 0x9F; /* UTF-16 surrogates */
    } else if (c >= 0xF0 && c <= 0xF4) {
        want = 4;
        if (c == 0xF0)
            lo = 0x90; /* overlong */
        else if (c == 0xF4)
            hi = 0x8F; /* above U+10FFFF */
    } else
        return 0;
    if (n < want || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < want; i++)
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
    return want;
}

enum jsontext_problem jsontext_check(const char *text, size_t len, size_t *at)
{
    const unsigned char *s = (const unsigned char *)text;
    int in_string = 0;
    for (size_t i = 0; i < len;) {
        *at = i;
        if (s[i] == 0)
            return JSONTEXT_NUL_BYTE;
        size_t n = jsontext_utf8_len(s + i, len - i);
        if (!n)
            return JSONTEXT_BAD_UTF8;
        if (n == 1 && in_string && s[i] == '\\' && i + 1 < len) {
            /* \u0000 (any case of hex digits is still zero) is the one escape that makes a NUL. */
            if (s[i + 1] == 'u' && i + 5 < len && s[i + 2] == '0' && s[i + 3] == '0' &&
                s[i + 4] == '0' && s[i + 5] == '0')
                return JSONTEXT_NUL_ESCAPE;
            /* Skip the escaped character unless it is a NUL or non-ASCII: the next round
             * checks those as it checks any other byte. */
            i += s[i + 1] != 0 && s[i + 1] < 0x80 ? 2 : 1;
            continue;
        }
        if (n == 1 && s[i] == '"')
            in_string = !in_string;
        i += n;
    }
    *at = len;
    return JSONTEXT_OK;
}

/* One open container of jsontext_where's scan: an object with its current key, or an array
 * with its current index. */
struct jsontext_level {
    char kind; /* '{' or '[' */
    long index;
    char key[64];
};

void jsontext_where(const char *text, size_t at, int *line, int *col, char *path, size_t len)
{
    enum { DEPTH = 32 };
    struct jsontext_level stack[DEPTH];
    int depth = 0, l = 1, c = 1;
    int in_string = 0, want_key = 0;
    size_t key_from = 0;
    for (size_t i = 0; i < at && text[i]; i++, c++) {
        char ch = text[i];
        if (ch == '\n') {
            l++;
            c = 0;
        }
        if (in_string) {
            if (ch == '\\' && i + 1 < at) {
                i++;
                c++;
            } else if (ch == '"') {
                in_string = 0;
                if (want_key && depth > 0 && depth <= DEPTH) {
                    size_t n = i - key_from;
                    n = n < sizeof stack[0].key ? n : sizeof stack[0].key - 1;
                    memcpy(stack[depth - 1].key, text + key_from, n);
                    stack[depth - 1].key[n] = '\0';
                }
            }
            continue;
        }
        switch (ch) {
        case '"':
            in_string = 1;
            key_from = i + 1;
            break;
        case '{':
        case '[':
            if (depth < DEPTH)
                stack[depth] = (struct jsontext_level){.kind = ch};
            depth++;
            want_key = ch == '{';
            break;
        case '}':
        case ']':
            depth -= depth > 0;
            want_key = 0;
            break;
        case ':':
            want_key = 0;
            break;
        case ',':
            if (depth > 0 && depth <= DEPTH && stack[depth - 1].kind == '[')
                stack[depth - 1].index++;
            want_key = depth > 0 && depth <= DEPTH && stack[depth - 1].kind == '{';
            break;
        default:
            break;
        }
    }
    *line = l;
    *col = c;
    size_t used = 0;
    if (len)
        path[0] = '\0';
    for (int d = 0; d < depth && d < DEPTH && used + 1 < len; d++) {
        int n = stack[d].kind == '['
                    ? snprintf(path + used, len - used, "[%ld]", stack[d].index)
                    : snprintf(path + used, len - used, "%s%s", used ? "." : "", stack[d].key);
        if (n < 0)
            break;
        used += (size_t)n < len - used ? (size_t)n : len - used - 1;
    }
}
