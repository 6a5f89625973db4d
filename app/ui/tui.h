/*
 * tui: the interactive program. One libuv loop drives everything: keys arrive through a uv_poll
 * on stdin (curses reads them with a non-blocking getch), SIGWINCH/SIGINT/SIGTERM/SIGHUP through
 * uv_signal, the engine's snapshots and output through its callbacks. Handlers only change state
 * and mark the screen dirty; a uv_prepare draws once per loop iteration when something is dirty
 * (the ncdu model: one module per screen, each with *_draw and *_key).
 *
 * struct tui is shared by the screen modules (start.c, lessonview.c, counterview.c, help.c) and
 * by nothing else.
 */
#ifndef IOLAB_TUI_H
#define IOLAB_TUI_H

#include "engine/engine.h"
#include "layout.h"
#include "lesson/check.h"
#include "progress.h"
#include "screen.h"
#include "session.h"
#include "wrap.h"

#include <stdio.h>
#include <time.h>
#include <uv.h>

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
};

enum tui_screen {
    TUI_START,
    TUI_LESSON,
};

struct tui {
    uv_loop_t *loop;
    uv_poll_t keys; /* stdin readable: keys are waiting */
    uv_signal_t signals[4];
    uv_prepare_t draw;
    struct screen_caps caps;
    struct tui_options opts;
    const struct lesson_pack *primary; /* the pack iolab opened: the title and "continue" */
    const struct lesson_pack *pack;    /* the pack of the lesson open now (or last opened) */
    struct progress *progress;         /* NULL when it could not be loaded: nothing is saved */

    enum tui_screen screen;
    bool help, compare, confirm_quit;
    bool dirty, quitting, frame_drawn;
    int exit_code;
    char status[256];
    bool status_bad;
    struct layout layout;

    size_t start_sel; /* start screen: the selected row (start.c); 0 is "continue" */

    size_t lesson, step; /* lesson screen */
    struct wrap_doc text;
    int text_width;
    size_t text_scroll;
    int focus; /* 0 text, 1..nprogs a program pane, nprogs+1 counters */
    char input[256];
    size_t ninput;

    struct engine *engine; /* the running scenario of a run step; NULL otherwise */
    enum engine_state est;
    struct snapshot snap; /* a copy of the latest snapshot */
    bool have_snap;
    bool paused;
    struct session session;
    /* The comparison rows of this step's earlier runs: a restart (r) starts the engine's rows
       afresh, and the comparison view keeps every mode tried since the step was opened. */
    struct snapshot_mode_row past_modes[SNAPSHOT_MAX_MODES];
    uint32_t npast_modes;
    struct check_result results[16];
    size_t nresults;
    bool step_done; /* this step is done (marked in progress) */
};

/* Runs the TUI until the learner quits; returns the exit status. The pack must outlive it. */
int tui_run(const struct lesson_pack *pack, struct progress *progress,
            const struct tui_options *opts);

/* Shared by the screen modules. */
const struct lesson_step *tui_step(const struct tui *t);
void tui_status(struct tui *t, bool bad, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void tui_log(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tui_open_step(struct tui *t, size_t lesson, size_t step);
void tui_save_progress(struct tui *t);
void tui_quit(struct tui *t, int code);

/* Screens: each draws itself and handles the keys specific to it (0: handled, -1: not). */
void start_draw(struct tui *t);
int start_key(struct tui *t, int key);
void start_click(struct tui *t, int x, int y);

void lessonview_draw(struct tui *t);
int lessonview_key(struct tui *t, int key);
void lessonview_click(struct tui *t, int x, int y);
void lessonview_leave(struct tui *t);
void lessonview_start(struct tui *t, int mode);
void lessonview_on_snapshot(struct tui *t, const struct snapshot *snap);

void counterview_draw(struct tui *t, struct layout_rect r);
void counterview_compare(struct tui *t, struct layout_rect r);

/* The key table, for the help overlay and the footer. */
struct tui_key {
    int key, alt;      /* the key and another one that does the same (0: none) */
    const char *name;  /* as shown: "n", "Tab", "space" */
    const char *label; /* short, for the footer: "next" */
    const char *help;  /* one line for the help overlay */
    bool footer;       /* shown in the footer */
    void (*fn)(struct tui *t, int key);
};
extern const struct tui_key tui_keys[];
extern const size_t tui_nkeys;

void help_draw(struct tui *t);

#endif
