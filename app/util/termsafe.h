/*
 * termsafe: text that iolab did not write (a pack's titles and mode ids, a program's output, a
 * compiler's messages) made safe to print on the person's terminal. A terminal obeys what it is
 * sent: an OSC sequence retitles the window, a CSI sequence clears the screen or moves the
 * cursor, and some terminals answer queries by typing into the shell. So every headless command
 * prints such text through this module, which shows each control as visible characters:
 *
 *   - C0 controls other than newline and tab, and DEL, in caret notation: ESC is ^[, BEL ^G,
 *     CR ^M, DEL ^? (as `cat -v` shows them);
 *   - C1 controls (U+0080..U+009F) written as valid UTF-8 as \u0080..\u009f;
 *   - the bidi controls that reorder the text after them (U+202A..U+202E, U+2066..U+2069: a
 *     right-to-left override makes "exe.txt" read as "txt.exe") as \u202a..\u2069;
 *   - every byte that is not part of valid UTF-8 (a stray 0x9b, an overlong form, a surrogate,
 *     a sequence cut short) as \xNN, one per byte.
 *
 * Everything else, printable UTF-8 included, passes unchanged, so the text stays readable; a
 * backslash or caret already in the text is not escaped (the output is for reading, not for
 * parsing back). The TUI draws through curses (widgets.c) and --json escapes in json.c; this
 * module is for the plain text of headless commands and their CSV.
 */
#ifndef IOLAB_TERMSAFE_H
#define IOLAB_TERMSAFE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether s[0..len), one valid UTF-8 character of len bytes, is a bidi control (above). */
bool termsafe_is_bidi(const unsigned char *s, int len);

/* The most bytes one input byte can become (\xNN). */
#define TERMSAFE_MAX_GROWTH 4

/* Escapes s into buf (always terminated when len > 0), cut at a whole escape; returns buf. */
const char *termsafe_str(const char *s, char *buf, size_t len);

/* Writes s[0..n) escaped to f; 0, or -EIO when f failed. */
int termsafe_write(FILE *f, const char *s, size_t n);
int termsafe_fputs(const char *s, FILE *f);

/* Formats, then writes the result escaped: iolab's own words pass unchanged, and what the
   arguments brought in is shown safely. 0, or a negative errno. */
int termsafe_vfprintf(FILE *f, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int termsafe_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * A stream whose every byte goes through the escaping into to, for a function that prints a
 * whole report with fprintf: a UTF-8 sequence split between two writes is still judged whole.
 * fclose() flushes it (a sequence left unfinished is shown as \xNN) and leaves to open. NULL
 * when memory runs out.
 */
FILE *termsafe_open(FILE *to);

#endif
