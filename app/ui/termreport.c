/*
 * termreport: the filter between getch() and the views (termreport.h). One small state machine:
 * idle, an Esc held, then inside a report: its first byte after '[' says which kind, and the
 * report ends at its final byte.
 */
#include "termreport.h"

enum {
    TERMREPORT_IDLE,  /* keys pass */
    TERMREPORT_HELD,  /* an Esc was read; the next key decides */
    TERMREPORT_START, /* Esc [ read: the next byte says which report */
    TERMREPORT_CSI,   /* parameters and intermediates until a final byte */
    TERMREPORT_SGR,   /* an SGR mouse report: until M or m */
    TERMREPORT_X10,   /* an X10 mouse report: x10_left bytes more */
};

void termreport_init(struct termreport *r)
{
    r->state = TERMREPORT_IDLE;
    r->len = 0;
    r->x10_left = 0;
    r->lone_at_ms = -1;
}

bool termreport_holding(const struct termreport *r)
{
    return r->state == TERMREPORT_HELD;
}

bool termreport_inside(const struct termreport *r)
{
    return r->state >= TERMREPORT_START;
}

int termreport_expire(struct termreport *r, int64_t now_ms)
{
    if (r->state != TERMREPORT_HELD)
        return -1;
    r->state = TERMREPORT_IDLE;
    r->lone_at_ms = now_ms;
    return TERMREPORT_ESC;
}

static void termreport_begin(struct termreport *r, int len)
{
    r->state = TERMREPORT_START;
    r->len = len;
}

/* The report ends: what follows is typed again. */
static void termreport_end(struct termreport *r)
{
    r->state = TERMREPORT_IDLE;
    r->len = 0;
    r->x10_left = 0;
}

/* One byte inside a report (state START or later): dropped, the state moved on. A control byte
   cannot be part of a report, so it ends the report and is read again as a key: *again. */
static void termreport_inner(struct termreport *r, int key, bool *again)
{
    *again = false;
    if (r->state != TERMREPORT_X10 && key < 0x20) {
        termreport_end(r);
        *again = true;
        return;
    }
    if (++r->len >= TERMREPORT_MAX) {
        termreport_end(r);
        return;
    }
    switch (r->state) {
    case TERMREPORT_START:
        if (key == 'M') {
            r->state = TERMREPORT_X10;
            r->x10_left = 3;
        } else if (key == '<') {
            r->state = TERMREPORT_SGR;
        } else if (key >= 0x40 && key <= 0x7e) {
            termreport_end(r); /* a report of one final byte: focus in (I) or out (O) */
        } else {
            r->state = TERMREPORT_CSI;
        }
        return;
    case TERMREPORT_SGR:
        if (key == 'M' || key == 'm')
            termreport_end(r);
        return;
    case TERMREPORT_X10:
        if (--r->x10_left <= 0)
            termreport_end(r);
        return;
    default: /* TERMREPORT_CSI */
        if (key >= 0x40 && key <= 0x7e)
            termreport_end(r);
        return;
    }
}

int termreport_feed(struct termreport *r, int key, int64_t now_ms, int out[2])
{
    /* A key curses decoded is no byte of a report: it passes, the report's state stays. */
    if (key > 0xff) {
        if (r->state == TERMREPORT_HELD) {
            r->state = TERMREPORT_IDLE;
            r->lone_at_ms = now_ms;
            out[0] = TERMREPORT_ESC;
            out[1] = key;
            return 2;
        }
        out[0] = key;
        return 1;
    }
    switch (r->state) {
    case TERMREPORT_IDLE:
        if (key == TERMREPORT_ESC) {
            r->state = TERMREPORT_HELD;
            return 0;
        }
        if (key == '[' && r->lone_at_ms >= 0 && now_ms - r->lone_at_ms <= TERMREPORT_LATE_MS) {
            r->lone_at_ms = -1;
            termreport_begin(r, 2);
            return 0;
        }
        r->lone_at_ms = -1; /* only the key right after a lone Esc can continue its report */
        out[0] = key;
        return 1;
    case TERMREPORT_HELD:
        if (key == '[') {
            termreport_begin(r, 2);
            return 0;
        }
        if (key == TERMREPORT_ESC) {
            /* Esc Esc: the first is a lone one, the second is held in its turn. */
            r->lone_at_ms = now_ms;
            out[0] = TERMREPORT_ESC;
            return 1;
        }
        r->state = TERMREPORT_IDLE;
        r->lone_at_ms = now_ms;
        out[0] = TERMREPORT_ESC;
        out[1] = key;
        return 2;
    default: {
        bool again;
        termreport_inner(r, key, &again);
        return again ? termreport_feed(r, key, now_ms, out) : 0;
    }
    }
}
