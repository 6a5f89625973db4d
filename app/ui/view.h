/*
 * view: the face every screen shares, and what a screen may use of the TUI.
 *
 * A screen (start.c, lessonview.c) is a struct view_ops over its own state: it draws, takes a
 * key, takes a click, settles (once per loop turn, before drawing) and is left. It gets a
 * view_ctx, the narrow set of things the TUI lends it (the loop, the terminal's capabilities,
 * the layout of this frame, the progress store, the status line, the log), and it asks the TUI
 * for anything beyond its own state by filling a view_action (open a step, go back to the
 * lesson list). No screen includes tui.h: the TUI depends on its screens, never the reverse.
 *
 * Keys are tables (keys.h): a screen lists its key tables, and the TUI builds the `?` help and
 * the footer from them.
 */
#ifndef IOLAB_VIEW_H
#define IOLAB_VIEW_H

#include "layout.h"
#include "lesson/lesson.h"
#include "progress.h"
#include "screen.h"

#include <stdbool.h>
#include <stdio.h>
#include <uv.h>

struct keytable;

/* What the TUI lends a screen. */
struct view_ctx {
    uv_loop_t *loop;
    const struct screen_caps *caps;
    struct layout layout;      /* this frame's geometry, computed by the TUI */
    struct progress *progress; /* NULL when it could not be loaded: nothing is saved */
    double tick_hz;            /* sampler rate for scenarios */
    FILE *log;                 /* iolab.log; NULL: no log */
    char status[256];          /* the status line */
    bool status_bad;           /* drawn as a problem */
    unsigned status_gen;       /* how many times it was set: a screen sees what a step said */
    bool dirty;                /* something changed: draw a frame */
};

/* Sets the status line (and logs it). */
void view_status(struct view_ctx *c, bool bad, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* One line in iolab.log, time-stamped. */
void view_log(struct view_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The learner's editor, as VIEW_EDIT runs it: $VISUAL, $EDITOR, sensible-editor or vi (a
   command the shell splits: "code -w"). */
const char *view_editor(void);
/* Saves the progress store, saying so on the status line when it fails. */
void view_save_progress(struct view_ctx *c);

/* What a screen asks of the TUI after a key or a click. */
enum view_action_kind {
    VIEW_STAY, /* nothing beyond the screen's own state */
    VIEW_OPEN, /* open step (lesson, step) of pack on the lesson screen */
    VIEW_HOME, /* back to the lesson list */
    VIEW_QUIT, /* quit (asking first when something runs) */
    VIEW_HELP, /* toggle the key help */
    VIEW_EDIT, /* hand the terminal to the learner's editor on files beneath dir, then edited() */
};

struct view_action {
    enum view_action_kind kind;
    const struct lesson_pack *pack;
    size_t lesson, step;
    const char *status; /* VIEW_HOME: a status line to show there; NULL: keep */
    /* VIEW_EDIT: the files (names beneath dir) that view_editor() opens, all at once; when the
       editor has exited, edited(self, ...) is called (the TUI has the screen back); ran is false
       when the editor could not be started (the status line says so). */
    const char *dir;
    const char *const *files;
    size_t nfiles;
    void (*edited)(void *self, struct view_ctx *c, bool ran);
    void *self;
};

/* Handled keys return 0; -1 lets the key go on to the next table. */
struct view_ops {
    void (*draw)(void *self, struct view_ctx *c);
    int (*key)(void *self, struct view_ctx *c, int key, struct view_action *act);
    void (*click)(void *self, struct view_ctx *c, int x, int y, struct view_action *act);
    void (*settle)(void *self, struct view_ctx *c); /* before each frame; NULL: nothing */
    void (*leave)(void *self, struct view_ctx *c);
    /* The screen's layout for this frame (LAYOUT_START, _TEXT, _RUN) and program panes. */
    enum layout_kind (*layout)(void *self, size_t *nprogs);
    /* The key tables in force now, most specific first; returns how many (at most max). */
    size_t (*keytables)(void *self, const struct keytable **out, size_t max);
    /* Something runs that quitting would stop. NULL: never. */
    bool (*busy)(void *self);
};

#endif
