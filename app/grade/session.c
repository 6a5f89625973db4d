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

static struct check_mode_facts *session_mode(struct session *s, int mode)
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

static uint64_t session_delta(uint64_t now, uint64_t before)
{
    return now > before ? now - before : 0;
}

/* m += now - before, field by field (the per-descriptor counts are one run of counters). */
static void session_fd_delta(struct iolab_fdsplit *m, const struct iolab_fdsplit *now,
                             const struct iolab_fdsplit *before)
{
    uint64_t *to = (uint64_t *)m;
    const uint64_t *a = (const uint64_t *)now, *b = (const uint64_t *)before;
    for (size_t k = 0; k < sizeof *m / sizeof(uint64_t); k++)
        to[k] += session_delta(a[k], b[k]);
}

void session_update(struct session *s, const struct lesson_scenario *sc,
                    const struct snapshot *snap)
{
    struct check_role_facts now[LESSON_NROLES];
    memset(now, 0, sizeof now);
    for (int r = 0; r < LESSON_NROLES; r++) {
        now[r].requests = snap->roles[r].requests;
        now[r].bytes = snap->roles[r].app_bytes;
        if (sc->has_learner) {
            now[r].requests = now[r].bytes = 0;
            for (uint32_t p = 0; p < snap->nprogs && p < SNAPSHOT_MAX_PROGS; p++)
                if (p != sc->learner && snap->progs[p].role == (enum lesson_role)r) {
                    now[r].requests += snap->progs[p].f.requests;
                    now[r].bytes += snap->progs[p].f.app_bytes;
                }
        }
        for (unsigned c = 0; c < IOLAB_NCALLS; c++)
            now[r].calls[c] = snap->roles[r].calls[c].count;
        now[r].syscr = snap->roles[r].syscr;
        now[r].syscw = snap->roles[r].syscw;
        now[r].rchar = snap->roles[r].rchar;
        now[r].fd = snap->roles[r].fd;
        double cpu_s = snap->roles[r].cpu_user_s + snap->roles[r].cpu_sys_s;
        now[r].cpu_us = cpu_s > 0 ? (uint64_t)(cpu_s * 1e6) : 0;
    }
    bool new_run = !s->have_base || snap->elapsed_s < s->base_elapsed;
    /* The first snapshot a run publishes (not merely the first this grader sees: one that joins
       a run later takes a base): its counter page started at zero with the run, so what it holds
       is growth of the run's first mode, and a program that did all its work before the first
       tick (a copy that takes 5 ms) keeps it, with the time the mode ran (a check with a maximum
       holds only once its mode has run). */
    bool first = new_run && snap->seq == 1;
    if (first) {
        memset(s->base, 0, sizeof s->base);
        s->base_elapsed = 0;
    }
    if (!new_run || first) {
        int mode = snap->mode >= 0 && (size_t)snap->mode < sc->nmodes ? snap->mode : -1;
        struct check_mode_facts *m = session_mode(s, mode);
        if (m) {
            if (snap->mode_running && !snap->paused) {
                double dt = snap->elapsed_s - s->base_elapsed;
                m->seconds += dt > 0 ? dt : 0;
            }
            for (int r = 0; r < LESSON_NROLES; r++) {
                m->roles[r].requests += session_delta(now[r].requests, s->base[r].requests);
                m->roles[r].bytes += session_delta(now[r].bytes, s->base[r].bytes);
                for (unsigned c = 0; c < IOLAB_NCALLS; c++)
                    m->roles[r].calls[c] += session_delta(now[r].calls[c], s->base[r].calls[c]);
                m->roles[r].syscr += session_delta(now[r].syscr, s->base[r].syscr);
                m->roles[r].syscw += session_delta(now[r].syscw, s->base[r].syscw);
                m->roles[r].rchar += session_delta(now[r].rchar, s->base[r].rchar);
                m->roles[r].cpu_us += session_delta(now[r].cpu_us, s->base[r].cpu_us);
                if (snap->roles[r].nprocs > m->roles[r].peak_procs)
                    m->roles[r].peak_procs = snap->roles[r].nprocs;
                if (snap->roles[r].nthreads > m->roles[r].peak_threads)
                    m->roles[r].peak_threads = snap->roles[r].nthreads;
                if (snap->roles[r].zombies > m->roles[r].peak_zombies)
                    m->roles[r].peak_zombies = snap->roles[r].zombies;
                session_fd_delta(&m->roles[r].fd, &now[r].fd, &s->base[r].fd);
            }
        }
    }
    memcpy(s->base, now, sizeof now);
    s->base_elapsed = snap->elapsed_s;
    s->have_base = true;
}

void session_facts(const struct session *s, struct check_facts *out)
{
    out->modes = s->modes;
    out->nmodes = s->nmodes;
}
