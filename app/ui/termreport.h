/*
 * termreport: what the terminal reports (mouse, focus, cursor position) told apart from what the
 * learner types, whatever the delay between a report's bytes.
 *
 * curses decodes a report only when its bytes arrive within ESCDELAY (25 ms, screen.c) of each
 * other. A report split by more than that (a loaded machine, a slow link) used to reach the
 * views as Esc followed by plain keys: "[<0;12;5M" holds digits, which switch modes. This filter
 * sits between getch() and the views, fed one key at a time:
 *
 * - Esc is held until the next key: Esc '[' begins a report; Esc and anything else are both
 *   delivered (Alt-x arrives as Esc x). The caller waits TERMREPORT_HOLD_MS for that next key
 *   and calls termreport_expire() when none came, so a lone Esc still acts promptly.
 * - Once a report has begun, every byte up to its final one is dropped however long it takes:
 *   SGR mouse (Esc [ < params M or m), X10 mouse (Esc [ M and three bytes), and any other CSI
 *   (parameters and intermediates, then a final byte from '@' to '~': focus Esc [ I, a cursor
 *   position Esc [ 12;40 R). A report that runs past TERMREPORT_MAX bytes ends there.
 * - A '[' within TERMREPORT_LATE_MS of a lone Esc already delivered also begins a report: the
 *   Esc has acted, but its report's digits and letters do not. No view binds '['.
 *
 * Keys above 255 (curses' decoded KEY_*, KEY_RESIZE) are delivered as they come, even inside a
 * report, which they are not part of. Pure: no curses, the clock passed in, unit-tested.
 */
#ifndef IOLAB_TERMREPORT_H
#define IOLAB_TERMREPORT_H

#include <stdbool.h>
#include <stdint.h>

#define TERMREPORT_ESC     27
#define TERMREPORT_HOLD_MS 150  /* how long a lone Esc waits for a report's '[' */
#define TERMREPORT_LATE_MS 1000 /* a '[' this soon after a delivered lone Esc is a report's */
#define TERMREPORT_MAX     64   /* a report's bytes at most, its Esc and '[' included */

struct termreport {
    int state;          /* where in a report the last key left it (termreport.c) */
    int len;            /* bytes of the current report seen */
    int x10_left;       /* an X10 mouse report's bytes still to come */
    int64_t lone_at_ms; /* when a lone Esc was last delivered; -1: never */
};

void termreport_init(struct termreport *r);

/* Feeds one key from getch() at now_ms; writes the keys to deliver to out, in order, and returns
   how many (0: held or dropped, at most 2: a held Esc and the key after it). */
int termreport_feed(struct termreport *r, int key, int64_t now_ms, int out[2]);

/* Whether an Esc is held: the caller waits up to TERMREPORT_HOLD_MS for the next key. */
bool termreport_holding(const struct termreport *r);

/* No key came within the hold: the held Esc is a lone one. Returns the key to deliver (Esc), or
   -1 when nothing was held. */
int termreport_expire(struct termreport *r, int64_t now_ms);

/* Whether a report has begun and not ended (its remaining bytes will be dropped). */
bool termreport_inside(const struct termreport *r);

#endif
