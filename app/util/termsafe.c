/*
 * termsafe: see termsafe.h. One scanner (termsafe_run) walks the bytes once: runs of printable
 * text are passed on whole, each control or stray byte is replaced by its visible form. The
 * scanner writes to a sink, a stream or a bounded buffer, so the stream, the string and the
 * printf forms escape exactly alike.
 */
#include "termsafe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct termsafe_sink {
    FILE *f;     /* the stream written to, or NULL for the buffer */
    char *buf;   /* the buffer (f == NULL), kept terminated */
    size_t len;  /* its size */
    size_t used; /* bytes in it, without the terminator */
    bool full;   /* something did not fit: nothing more goes in */
    bool failed; /* the stream refused a write */
};

/* Appends n bytes; into a buffer, a piece that does not fit is cut at a character's start. */
static void termsafe_put(struct termsafe_sink *k, const unsigned char *p, size_t n)
{
    if (!n)
        return;
    if (k->f) {
        if (fwrite(p, 1, n, k->f) != n)
            k->failed = true;
        return;
    }
    if (k->full || k->len == 0)
        return;
    size_t room = k->len - 1 - k->used;
    if (n > room) {
        n = room;
        /* Never end on half a character: back off over continuation bytes and their lead. */
        while (n > 0 && (p[n] & 0xc0) == 0x80)
            n--;
        k->full = true;
    }
    memcpy(k->buf + k->used, p, n);
    k->used += n;
    k->buf[k->used] = '\0';
}

/* An escape is put whole or not at all, so a cut buffer never ends with half of one. */
static void termsafe_put_escape(struct termsafe_sink *k, const char *e)
{
    size_t n = strlen(e);
    if (!k->f && !k->full && k->len && n > k->len - 1 - k->used) {
        k->full = true;
        return;
    }
    termsafe_put(k, (const unsigned char *)e, n);
}

/*
 * The length of the valid UTF-8 character at s[0..n): 1 to 4; 0 when s[0] begins none (a
 * continuation byte, an overlong form, a surrogate, past U+10FFFF); -1 when the bytes so far
 * are a valid beginning that the end of s cuts short.
 */
static int termsafe_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xbf;
    int need;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        need = 1;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0)
            lo = 0xa0; /* overlong below */
        else if (c == 0xed)
            hi = 0x9f; /* surrogates above */
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else {
        return 0;
    }
    for (int i = 1; i <= need; i++) {
        if ((size_t)i >= n)
            return -1;
        if (s[i] < (i == 1 ? lo : 0x80) || s[i] > (i == 1 ? hi : 0xbf))
            return 0;
    }
    return need + 1;
}

bool termsafe_is_bidi(const unsigned char *s, int len)
{
    return len == 3 && s[0] == 0xe2 &&
           ((s[1] == 0x80 && s[2] >= 0xaa && s[2] <= 0xae) ||
            (s[1] == 0x81 && s[2] >= 0xa6 && s[2] <= 0xa9));
}

/*
 * Escapes s[0..n) into k. Returns the bytes consumed: all of them when final; otherwise it
 * stops before a character the end of s cuts short, which the caller joins to what follows.
 */
static size_t termsafe_run(struct termsafe_sink *k, const unsigned char *s, size_t n, bool final)
{
    size_t i = 0, clean = 0;
    while (i < n) {
        unsigned char c = s[i];
        if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t') {
            i++;
            continue;
        }
        int len = termsafe_utf8_len(s + i, n - i);
        if (len < 0 && !final) {
            termsafe_put(k, s + clean, i - clean);
            return i;
        }
        /* A printable character of two or more bytes; U+0080..U+009F are C2 80..C2 9F, and the
           bidi controls that reorder what follows them are E2 80 AA..AE and E2 81 A6..A9. */
        bool bidi = termsafe_is_bidi(s + i, len);
        if (len > 1 && !(c == 0xc2 && s[i + 1] < 0xa0) && !bidi) {
            i += (size_t)len;
            continue;
        }
        termsafe_put(k, s + clean, i - clean);
        char e[8];
        if (c < 0x20)
            snprintf(e, sizeof e, "^%c", c + 0x40);
        else if (c == 0x7f)
            snprintf(e, sizeof e, "^?");
        else if (len == 2)
            snprintf(e, sizeof e, "\\u%04x", s[i + 1]);
        else if (bidi)
            snprintf(e, sizeof e, "\\u%04x",
                     ((unsigned)(s[i + 1] & 0x3f) << 6 | (unsigned)(s[i + 2] & 0x3f)) | 0x2000u);
        else
            snprintf(e, sizeof e, "\\x%02x", c);
        termsafe_put_escape(k, e);
        i += len == 2 || bidi ? (size_t)len : 1;
        clean = i;
    }
    termsafe_put(k, s + clean, n - clean);
    return n;
}

const char *termsafe_str(const char *s, char *buf, size_t len)
{
    struct termsafe_sink k = {.buf = buf, .len = len};
    if (len)
        buf[0] = '\0';
    if (s)
        termsafe_run(&k, (const unsigned char *)s, strlen(s), true);
    return buf;
}

int termsafe_write(FILE *f, const char *s, size_t n)
{
    struct termsafe_sink k = {.f = f};
    termsafe_run(&k, (const unsigned char *)s, n, true);
    return k.failed ? -EIO : 0;
}

int termsafe_fputs(const char *s, FILE *f)
{
    return termsafe_write(f, s, strlen(s));
}

int termsafe_vfprintf(FILE *f, const char *fmt, va_list ap)
{
    char small[1024], *text = small;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small) {
        text = malloc((size_t)n + 1);
        if (text)
            vsnprintf(text, (size_t)n + 1, fmt, again);
    }
    va_end(again);
    if (n < 0 || !text)
        return n < 0 ? -EINVAL : -ENOMEM;
    int rc = termsafe_write(f, text, (size_t)n);
    if (text != small)
        free(text);
    return rc;
}

int termsafe_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = termsafe_vfprintf(f, fmt, ap);
    va_end(ap);
    return rc;
}

/* ---- the escaping stream ---- */

struct termsafe_stream {
    FILE *to;
    unsigned char pend[4]; /* the start of a character the last write cut short */
    size_t npend;
};

static ssize_t termsafe_stream_write(void *cookie, const char *buf, size_t size)
{
    struct termsafe_stream *t = cookie;
    struct termsafe_sink k = {.f = t->to};
    const unsigned char *s = (const unsigned char *)buf;
    size_t from = 0;
    if (t->npend) {
        /* Join the cut character to the first bytes of this write and judge it whole. */
        unsigned char tmp[8];
        size_t p = t->npend, take = size < 4 ? size : 4;
        memcpy(tmp, t->pend, p);
        memcpy(tmp + p, s, take);
        size_t used = termsafe_run(&k, tmp, p + take, false);
        if (used < p) {
            /* Still cut short: every byte of this write belongs to that character. */
            memcpy(t->pend + p, s, take);
            t->npend = p + take;
            return k.failed ? -1 : (ssize_t)size;
        }
        t->npend = 0;
        from = used - p;
    }
    size_t used = from + termsafe_run(&k, s + from, size - from, false);
    t->npend = size - used;
    memcpy(t->pend, s + used, t->npend);
    return k.failed ? -1 : (ssize_t)size;
}

static int termsafe_stream_close(void *cookie)
{
    struct termsafe_stream *t = cookie;
    struct termsafe_sink k = {.f = t->to};
    termsafe_run(&k, t->pend, t->npend, true);
    int rc = fflush(t->to) == 0 && !k.failed ? 0 : -1;
    free(t);
    return rc;
}

FILE *termsafe_open(FILE *to)
{
    struct termsafe_stream *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->to = to;
    cookie_io_functions_t io = {.write = termsafe_stream_write, .close = termsafe_stream_close};
    FILE *f = fopencookie(t, "w", io);
    if (!f) {
        free(t);
        return NULL;
    }
    /* Line by line, as a terminal's stdout is: a report shows as it is printed. */
    setvbuf(f, NULL, _IOLBF, 0);
    return f;
}
