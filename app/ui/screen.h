/*
 * screen: the terminal, owned by curses while the TUI runs, and given back in every case.
 *
 * Model (htop's CRT.c, neovim's tui.c): screen_init() saves the tty settings, enters curses
 * (which switches to the alternate screen), sends stderr to a memory file so nothing scribbles
 * over the screen, and installs crash handlers. screen_restore() undoes all of it and replays
 * what stderr received; it is idempotent and is the only way out: normal exit, fatal errors,
 * SIGINT/SIGTERM/SIGHUP (through the loop) and crashes (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT:
 * async-signal-safe writes of the saved termios and reset sequences, then the signal is raised
 * again so the exit status stays true).
 *
 * It also decides how things look: UTF-8 glyphs or an ASCII fallback (from the locale's
 * codeset), colours or attributes only (NO_COLOR set, or a terminal without colours).
 */
#ifndef IOLAB_SCREEN_H
#define IOLAB_SCREEN_H

#include <curses.h>
#include <stdbool.h>

/* What a piece of the screen means; screen_attr() turns it into colours or attributes. */
enum screen_role {
    SCREEN_NORMAL,
    SCREEN_TITLE,   /* title bar and footer */
    SCREEN_BORDER,  /* pane borders */
    SCREEN_FOCUS,   /* the focused pane's border and the selected list item */
    SCREEN_HEADING, /* text headings, table headers */
    SCREEN_CODE,    /* code in lesson text */
    SCREEN_GOOD,    /* a check that holds, a done lesson */
    SCREEN_BAD,     /* a check that does not hold yet, a mismatch, an error */
    SCREEN_DIM,     /* secondary figures */
    SCREEN_BAR,     /* bars and sparklines */
    SCREEN_STDERR,  /* program output on stderr */
    SCREEN_NROLES,
};

/* Box drawing, bars and marks: one table for UTF-8 terminals, one in plain ASCII. */
struct screen_glyphs {
    const char *hline, *vline, *tl, *tr, *bl, *br;
    const char *eighths[9]; /* horizontal bar cells: 0/8 .. 8/8 of a cell */
    const char *spark[8];   /* sparkline levels, lowest first */
    const char *done, *todo, *partial, *mismatch, *cursor;
    const char *more; /* ends a text cut to fit its place (one column) */
};

struct screen_caps {
    bool utf8;   /* the locale's codeset is UTF-8 */
    bool colour; /* colours are used (has_colors() and NO_COLOR unset) */
    const struct screen_glyphs *g;
};

/*
 * Takes the terminal. 0, or a negative errno when the terminal cannot be used (why says how).
 * setlocale(LC_ALL, "") must have been called.
 */
int screen_init(struct screen_caps *caps, char *why, size_t whylen);

/* Gives the terminal back: curses ended, tty settings restored, stderr replayed. Idempotent. */
void screen_restore(void);

/* Hands the terminal to another program (an editor) and takes it back, redrawn. */
void screen_suspend(void);
void screen_resume(void);

/* Follows a terminal size change (after SIGWINCH): curses learns the new size. */
void screen_resize(void);

/*
 * The next key the learner typed, or ERR when none is waiting: getch() with the terminal's
 * reports taken out whole (termreport.h), however far apart their bytes arrive. A lone Esc is
 * delivered once no '[' follows it within TERMREPORT_HOLD_MS, which this call waits for.
 */
int screen_getch(void);

attr_t screen_attr(enum screen_role role);

/* The UTF-8 or ASCII glyph tables (for tests and for drawing). */
const struct screen_glyphs *screen_glyphs(bool utf8);

#endif
