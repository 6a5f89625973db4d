/*
 * audit: the graded run's second run of an exercise (`iolab check --audit`, implied by
 * --junit), beside judge.h. The learner's program runs again in the same scenario, this time
 * under iolab-sandbox --audit: the system calls that the step's call-count checks name are
 * counted by the kernel (a seccomp filter and the launcher's tracer, sandbox/launcher/audit.h)
 * rather than by the counting shim inside the program, which a raw syscall() bypasses and whose
 * counter page the program can write. Those counts replace the learner's program's call figures
 * in every snapshot of the second run (judge_audit_substitute) and its own grader judges the
 * call-count checks on them; every other check (timing, output, exits) is the ordinary run's
 * alone: tracing slows the calls it stops.
 *
 * A pass needs both runs. Where the audit cannot be had (no seccomp, ptrace refused, an
 * architecture the filter does not know, a run voided by a limit), the result says it was not
 * audited and why, and the ordinary verdict stands alone.
 */
#ifndef IOLAB_AUDIT_RUN_H
#define IOLAB_AUDIT_RUN_H

#include "engine/engine.h"
#include "grade.h"
#include "judge.h"
#include "lesson/lesson.h"

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

struct iolab_audit_page;

typedef void (*judge_audit_done_fn)(void *data);

struct judge_audit {
    uv_loop_t *loop;
    const struct lesson_scenario *sc;
    double seconds;
    char calls[512]; /* the labels audited, comma-separated; "": nothing to audit */
    struct grader grader;
    struct judge judge;
    bool judge_ready;
    struct engine *engine;
    struct snapshot *snap; /* the snapshot being substituted */
    uv_timer_t timer;
    bool stopping; /* engine_stop() was asked */
    bool timer_ready;
    uint64_t t0;
    judge_audit_done_fn done;
    void *data;
    /* The result, once done has been called: */
    bool ran;           /* the second run was made */
    bool audited;       /* the kernel's counts were had and judged */
    bool failed;        /* a call-count check failed on them */
    double run_s;       /* the second run's wall time */
    char why[512];      /* not audited: why */
    char counts[768];   /* what the kernel counted, in words ("40 sendfile() calls moving ...") */
    char failure[1536]; /* failed: the check, its message on the kernel's counts, and counts */
};

/* Whether check ck is a call-count check the audit judges again: its figure names a call label
   that has system calls of its own (sem_wait, sem_post and recvmsg_rights have none). */
bool judge_audit_check(const struct lesson_check *ck);

/* The labels of sc's call-count checks, comma-separated, into buf; their number (0: nothing to
   audit). */
size_t judge_audit_calls(const struct lesson_scenario *sc, char *buf, size_t len);

/* Starts the second run of sc (its learner's program already built into it) for seconds; done
   runs once, later, with the result filled in. 0, or a negative errno with au->why set and
   done not called. */
int judge_audit_start(struct judge_audit *au, uv_loop_t *loop, const struct lesson_scenario *sc,
                      double seconds, judge_audit_done_fn done, void *data);

/* Stops the run under way (a signal): done still runs when it has stopped. */
void judge_audit_stop(struct judge_audit *au);

void judge_audit_free(struct judge_audit *au);

/* False when check i of the scenario failed on the kernel's counts: its points are not earned,
   whatever the ordinary run said. True otherwise (not audited, or not a call-count check). */
bool judge_audit_holds(const struct judge_audit *au, size_t i);

/* Puts the kernel's counts of page (less base, what the program's start-up called) in place of
   the learner's program's counted calls in snap, and in its role's sums. */
void judge_audit_substitute(const struct lesson_scenario *sc, const struct iolab_audit_page *page,
                            const struct iolab_audit_page *base, struct snapshot *snap);

#endif
