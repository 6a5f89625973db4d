/*
 * session: increments between consecutive snapshots, saturating at zero, credited by mode id.
 *
 * In an exercise the requests and bytes of a role are those the reference programs published
 * (every program of the role but the learner's): a program writes its own slot of the counter
 * page, so what the learner's program says it served proves nothing. What it did shows on the
 * other side, or in the kernel's counts (grade.c compares those with its counted calls).
 */
#include "session.h"

#include <stdio.h>
#include <string.h>

void session_reset(struct session *s)
{
    memset(s, 0, sizeof *s);
}

void session_new_run(struct session *s)
{
    s->have_base = false;
}

static struct mode_span *session_mode(struct session *s, int mode)
{
    for (size_t i = 0; i < s->nmodes; i++)
        if (s->modes[i].mode == mode)
            return &s->modes[i];
    if (s->nmodes > SNAPSHOT_MAX_MODES)
        return NULL;
    size_t i = s->nmodes++;
    memset(&s->modes[i], 0, sizeof s->modes[i]);
    s->modes[i].mode = mode;
    return &s->modes[i];
}

void session_update(struct session *s, const struct lesson_scenario *sc,
                    const struct snapshot *snap)
{
    bool new_run = !s->have_base || snap->elapsed_s < s->base_elapsed;
    /* The first snapshot a run publishes (not merely the first this grader sees: one that joins
       a run later takes a base): its counter page started at zero with the run, so what it holds
       is growth of the run's first mode, and a program that did all its work before the first
       tick (a copy that takes 5 ms) keeps it, with the time the mode ran (a check with a maximum
       holds only once its mode has run). */
    bool first = new_run && snap->seq == 1;
    if (first)
        s->base_elapsed = 0;
    if (!new_run || first) {
        int mode = snap->mode >= 0 && (size_t)snap->mode < sc->nmodes ? snap->mode : -1;
        struct mode_span *m = session_mode(s, mode);
        if (m) {
            struct span_opts opts = {.learner = sc->has_learner ? (int)sc->learner : -1};
            struct span sp;
            span_between(first ? NULL : &s->base, snap, &opts, &sp);
            /* Time counts only while the mode's server was up and the load not paused. */
            bool running = snap->mode_running && !snap->paused;
            if (!running)
                sp.seconds = 0;
            uint64_t waits[IOLAB_HIST_BUCKETS];
            memcpy(waits, m->span.waits, sizeof waits);
            span_add(&m->span, &sp);
            /* The requests still waiting, as long as they waited within the mode's whole time
               (span_between caps them at one tick's), at its last snapshot while it ran: an
               expected outcome's latency counts them (grade/expect.c). */
            if (running)
                span_waits_at(&m->span, snap);
            else
                memcpy(m->span.waits, waits, sizeof waits);
        }
    }
    s->base = *snap;
    s->base_elapsed = snap->elapsed_s;
    s->have_base = true;
}

void session_facts(const struct session *s, struct check_facts *out)
{
    out->modes = s->modes;
    out->nmodes = s->nmodes;
}
