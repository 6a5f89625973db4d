/*
 * session: what one lesson step's runs have measured so far, one span per mode (struct mode_span,
 * metrics/figure.h): what the step's checks (check.h), expected outcomes (expect.h) and
 * predictions (prediction.h) read their figures over; the grader (grade.h) keeps one. Pure C over
 * snapshots: each snapshot's totals are turned into increments and credited to the mode that was
 * running, so the figures survive restarts of the scenario (a restart starts the engine's totals
 * from zero; the session keeps counting).
 *
 * Invariants: figures only grow; time is credited only while the mode's server was up and the
 * load was not paused; a snapshot whose totals went backwards (a new run) only sets the base,
 * unless it is the run's first (seq 1): then it is growth from zero, credited to its mode.
 */
#ifndef IOLAB_SESSION_H
#define IOLAB_SESSION_H

#include "lesson/check.h"
#include "lesson/lesson.h"
#include "metrics/figure.h"
#include "metrics/snapshot.h"

struct session {
    size_t nmodes;
    struct mode_span modes[SNAPSHOT_MAX_MODES + 1]; /* by first run; mode -1 included */
    bool have_base;
    double base_elapsed;
    struct snapshot base; /* the last snapshot seen: each update credits span_between(base, it) */
};

void session_reset(struct session *s);

/* Credits what happened since the previous snapshot to the snapshot's mode. */
void session_update(struct session *s, const struct lesson_scenario *sc,
                    const struct snapshot *snap);

/* Forgets the base so that the next snapshot (of a new run) starts counting afresh. */
void session_new_run(struct session *s);

/* The facts for check_eval(); valid until the next update. */
void session_facts(const struct session *s, struct check_facts *out);

#endif
