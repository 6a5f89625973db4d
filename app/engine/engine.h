/*
 * engine: runs one lesson step's scenario on a libuv loop and measures it.
 *
 * Model: an engine owns, for one scenario, a work directory, a counter page, a jail, one child
 * per lesson program (a uv_process_t with stdin, stdout and stderr pipes), a start timer and a
 * sampler timer. It never blocks and never owns the loop: the caller (the TUI, `iolab run`, a
 * test) runs the loop and gets everything through callbacks.
 *
 * Lifecycle:
 *   engine_create()  -> IDLE: nothing started, nothing on disk.
 *   engine_start()   -> STARTING: work directory, files, page, jail; servers spawned first; a
 *                       program with a `ready` text holds back the ones after it until a line of
 *                       its output contains that text (or fails the start after a timeout).
 *                    -> RUNNING once every program is spawned and every server is ready.
 *   engine_stop()    -> STOPPING: SIGTERM to every program's whole process tree, SIGKILL after
 *                       the grace period, every child reaped, output drained -> STOPPED.
 *   engine_free()    closes every handle; memory is released in the close callbacks, so the
 *                       caller keeps running the loop until uv_run() returns, then
 *                       uv_loop_close() returns 0.
 * A program that exits on its own while RUNNING is reported (on_exit) and left exited; when a
 * program exits or cannot start during STARTING the engine stops the rest and ends in FAILED,
 * with a one-sentence reason (engine_error()) that quotes the program's last lines.
 *
 * Invariants: every callback runs on the loop thread, from inside uv_run(). Snapshots handed to
 * on_snapshot stay valid until the next tick; copy them to keep them. Program indices are the
 * scenario's (lesson_scenario.programs). The engine keeps pointers into the scenario: it (and the
 * lesson pack it points into) must outlive the engine.
 */
#ifndef IOLAB_ENGINE_H
#define IOLAB_ENGINE_H

#include "jail.h"
#include "lesson/lesson.h"
#include "metrics/snapshot.h"

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#define ENGINE_LINE_MAX  512 /* longer output lines are cut (and the rest becomes a new line) */
#define ENGINE_LINE_RING 256 /* lines kept per program for redraws */

enum engine_state {
    ENGINE_IDLE,
    ENGINE_STARTING,
    ENGINE_RUNNING,
    ENGINE_STOPPING,
    ENGINE_STOPPED, /* after engine_stop(), or when every program has exited */
    ENGINE_FAILED,  /* the scenario could not start; engine_error() says why */
};

enum engine_stream {
    ENGINE_STDOUT,
    ENGINE_STDERR,
};

struct engine_options {
    const char *mode;       /* mode id to start in; NULL: the scenario's default mode */
    double seconds;         /* value of {seconds} in arguments; 0: the scenario's `seconds` */
    double tick_hz;         /* sampler rate, 1..20; 0: 10 */
    enum iolab_tier tier;   /* IOLAB_TIER_AUTO, or a lower tier to force */
    double grace_s;         /* SIGTERM -> SIGKILL delay when stopping a program; 0: 2 s */
    double ready_timeout_s; /* how long a server may take to print its `ready` text; 0: 5 s */
    /* The graded run's audit (iolab-sandbox --audit): the call labels, comma-separated, whose
       system calls the kernel counts for the scenario's learner's program (sc->learner); NULL
       or "": none. Kept by the caller for the engine's life. engine_audit() reads the counts. */
    const char *audit;
};

struct engine_callbacks {
    void *data; /* passed back to every callback */
    /* One line of a program's output, without its newline and NUL-terminated at len (a partial
       last line is flushed when the program exits). */
    void (*on_line)(void *data, size_t prog, enum engine_stream stream, const char *line,
                    size_t len);
    /* A program exited: status is its exit code, or 128+signal. expected is true when the
       engine was stopping it (stop, restart, mode switch). */
    void (*on_exit)(void *data, size_t prog, int status, bool expected);
    /* A new snapshot: every tick, and right before and after a mode switch. */
    void (*on_snapshot)(void *data, const struct snapshot *snap);
    /* The engine changed state (see the lifecycle above). */
    void (*on_state)(void *data, enum engine_state state);
};

struct engine;
struct iolab_audit_page;

/* Prepares an engine for a scenario (a step's: lesson_step_scenario(); an exercise's: derived by
   exercise.c; a sweep point's: sweep_derive()). Starts nothing. */
int engine_create(struct engine **out, uv_loop_t *loop, const struct lesson_scenario *sc,
                  const struct engine_options *opts, const struct engine_callbacks *cb);

/*
 * Sets the scenario up and spawns its programs. 0 when the start is under way (readiness and
 * later failures arrive through on_state); a negative errno when it failed at once, with the
 * reason in engine_error(). Only from IDLE or STOPPED (a restart of a stopped scenario).
 */
int engine_start(struct engine *e);

/* Stops every program (asynchronously: on_state(ENGINE_STOPPED) when all are reaped). */
int engine_stop(struct engine *e);

/*
 * Switches the server to another mode while the clients keep running: the mode's program is
 * stopped (its whole process tree) and started again with the new mode's arguments and the next
 * IOLAB_RUN. A snapshot is published right before the stop and right after the new server is
 * ready. -EBUSY while starting, stopping or already switching; -ENOENT for a bad index.
 */
int engine_switch_mode(struct engine *e, size_t mode);

/* Pauses (SIGSTOP) or resumes (SIGCONT) the client programs' process trees: the load. */
int engine_pause(struct engine *e, bool paused);

/* Writes to a program's stdin (queued; copied). -EPIPE when the program is not running. */
int engine_write(struct engine *e, size_t prog, const char *buf, size_t len);

/* Closes a program's stdin (end of input for an interactive program). */
int engine_close_stdin(struct engine *e, size_t prog);

enum engine_state engine_state(const struct engine *e);
const char *engine_state_name(enum engine_state s);
const char *engine_error(const struct engine *e);       /* "" when there is none */
int engine_mode(const struct engine *e);                /* current mode, -1 without */
const struct jail *engine_jail(const struct engine *e); /* NULL when not started */
/*
 * Whether a limit of the jail's own was hit during program prog's current (or last) run, as its
 * sandbox reported it ("pids", "memory" or "tmp" into out). The process limit is known while the
 * program still runs: within about 0.1 s of the kernel refusing a fork or a thread at the jail's
 * pids.max (pids.events "max" rose), and from then on true until prog is spawned again (restart,
 * mode switch, a new engine_start), after its exit too. The other limits ("memory", "tmp"; also
 * "pids" where the jail has no cgroup) are known once the run has ended: when on_exit is called
 * for it, its sandbox's final report has been read. In a
 * scenario's shared jail the process limit is the jail's: every program running when it was
 * reached reports it.
 */
bool engine_limit(const struct engine *e, size_t prog, char *out, size_t len);

/*
 * The audit's page (iolab_audit.h) of the learner's program while it runs and after: what the
 * kernel saw it and its descendants call, since its first start. base, when not NULL, gets the
 * page as it was when the program printed its ready text (zero before it did): what its start-up
 * (the dynamic loader reading its libraries) called, which no check is about. NULL without an
 * audit, or before the program was first started.
 */
const struct iolab_audit_page *engine_audit(const struct engine *e,
                                            const struct iolab_audit_page **base);

/* Whether program prog's process is alive (spawned and not yet reaped). */
bool engine_running(const struct engine *e, size_t prog);

/* How a limit the sandbox names is said to a learner: "process" and "its cgroup's pids.max: a
   fork or a new thread failed with EAGAIN". Unknown names get generic words, never NULL. */
struct engine_limit_words {
    const char *what;  /* "process", "memory", "/tmp" */
    const char *where; /* the limit itself, and what it did */
};
struct engine_limit_words engine_limit_say(const char *limit);

/*
 * The ring of a program's recent output lines: n lines, index 0 the oldest. Returns the line
 * (NUL-terminated) or NULL when i is out of range; *stream tells where it came from.
 */
size_t engine_lines(const struct engine *e, size_t prog);
const char *engine_line(const struct engine *e, size_t prog, size_t i, enum engine_stream *stream);

/*
 * Releases the engine. Stops (SIGKILL, no grace) whatever is still running, closes every handle
 * and removes the work directory; memory goes in the last close callback, so keep running the
 * loop until uv_run() returns.
 */
void engine_free(struct engine *e);

#endif
