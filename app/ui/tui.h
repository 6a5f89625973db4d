/*
 * tui: the interactive program. One libuv loop drives everything: keys arrive through a uv_poll
 * on stdin (curses reads them with a non-blocking getch), SIGWINCH/SIGINT/SIGTERM/SIGHUP through
 * uv_signal, the engine's snapshots and output through the step views' callbacks. Handlers only
 * change state and mark the screen dirty; a uv_prepare settles the screen and draws once per loop
 * iteration when something is dirty (the ncdu model: one module per screen).
 *
 * The TUI owns its screens (start.c, lessonview.c) and the overlays (help.c, the quit dialog);
 * screens see only view.h and ask for things through view_action, so nothing depends on tui.c.
 */
#ifndef IOLAB_TUI_H
#define IOLAB_TUI_H

#include "keys.h"
#include "lesson/lesson.h"
#include "progress.h"

#include <stdbool.h>
#include <stdio.h>
#include <time.h>

struct tui_options {
    const char *pack_dir; /* shown in the title bar */
    double tick_hz;       /* sampler rate for run steps */
    FILE *log;            /* iolab.log, never the terminal; may be NULL */
    bool log_first_frame; /* write the time to the first full frame into the log */
    struct timespec t0;   /* when iolab started (CLOCK_MONOTONIC), for that measurement */
    const char *start_at; /* "LESSON[/STEP]" to open directly; NULL: the start screen */
    /* Packs installed under $XDG_DATA_HOME/iolab/packs/, listed after the one iolab opened. */
    const struct lesson_pack *const *extra_packs;
    size_t nextra;
    /*
     * A pack's own programs are built when a lesson of it is first opened (cmd_tui.c builds the
     * installed packs only then). pack_announce fills a sentence and returns true when the build
     * will compile something, to be shown before it starts; pack_build returns 0, or a negative
     * errno with the status line's sentence in why. Both NULL: nothing is built on opening.
     */
    bool (*pack_announce)(void *data, const struct lesson_pack *pack, char *say, size_t len);
    int (*pack_build)(void *data, const struct lesson_pack *pack, char *why, size_t len);
    void *pack_data;
};

/* Runs the TUI until the learner quits; returns the exit status. The pack must outlive it. */
int tui_run(const struct lesson_pack *pack, struct progress *progress,
            const struct tui_options *opts);

/* The keys that mean the same on every screen (help, quit, redraw). */
extern const struct keytable tui_keys;

/* Every key table of every screen and built-in step kind, for the man page test and the help:
   returns how many (at most max). */
size_t tui_all_keytables(const struct keytable **out, size_t max);

#endif
