/*
 * attempt: one exercise of `iolab check`, built and run once on the headless driver. The
 * reference is built, then the learner's files; the scenario runs in mode "yours" while the
 * grader (through exercise/judge.h) watches; the run stops as soon as every check is decided or
 * its time is up; with --audit a second run counts the checks' calls in the kernel. The attempt
 * keeps what the reports need (attempt_report.h, junit.h, solutions.h): the build, the verdicts
 * and when each was reached, the learner's program's last lines.
 */
#ifndef IOLAB_ATTEMPT_H
#define IOLAB_ATTEMPT_H

#include "exercise.h"
#include "exercise/audit.h"
#include "exercise/build.h"
#include "exercise/judge.h"
#include "grade.h"
#include "lesson/lesson.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <uv.h>

#define ATTEMPT_TAIL 8 /* last lines of the learner's program kept for the report */

/* One exercise, built and run once; fill lesson, step, ex, seconds and dir, then attempt_run(). */
struct attempt {
    uv_loop_t *loop;
    const struct lesson *lesson;
    const struct lesson_step *step;
    const struct lesson_exercise *ex;
    char dir[PATH_MAX]; /* the files built as the learner's */
    char cache[PATH_MAX];
    char sandbox[PATH_MAX];
    double seconds;
    struct judge_builder builder; /* the reference, then the learner's files (judge.h) */
    struct build_result mine;     /* the learner's build; its log copied out below */
    char *mine_log;
    bool mine_ok;
    struct exercise_run run;
    bool run_ready;
    struct grader grader;
    struct judge judge; /* its grader, the tier, and why nothing could be judged (judge.h) */
    bool judge_ready;
    struct engine *engine;
    uv_timer_t timer;
    bool timer_on;
    char error[1024]; /* nothing could be judged: why */
    bool done;
    uint64_t t0;            /* uv_hrtime() when the attempt started */
    double build_verdict_s; /* from t0 to the learner's build verdict */
    double decided_s;       /* from t0 to every check decided; 0: not (yet) */
    bool dying;             /* decided, waiting for a program that is writing a sanitizer report */
    /* The learner's program's last lines of output, oldest first from tail_next: its own words
       often say what a check cannot ("copy differs at byte 4096"). */
    char tail[ATTEMPT_TAIL][256];
    size_t ntail, tail_next;
    /* Per check: seconds from the run's start to its verdict (JUnit's time); 0 undecided. */
    double *check_s;
    time_t started;  /* the wall-clock start, for JUnit's timestamp */
    bool for_author; /* --solutions: sentences for the pack's author, not for a learner */
    bool mine_built; /* the learner's build ran to a result (a->mine is it) */
    int stopped;     /* 128+signal: a signal stopped the attempt (nothing is reported) */
    /* --audit (implied by --junit): the second run, on the kernel's counts (exercise/audit.h) */
    bool audit;
    bool audit_started;
    struct judge_audit au;
};

/* An attempt's verdict; its value is the exit status of `iolab check` for that attempt. */
enum attempt_verdict { ATTEMPT_PASS = 0, ATTEMPT_FAIL = 1, ATTEMPT_ERROR = 2 };

/* Fills a->cache and a->sandbox (the build cache under XDG_CACHE_HOME, the sandbox's path).
   0 or a negative errno. */
int attempt_paths(struct attempt *a);

/* Builds and runs one exercise on the headless driver, to the end; a->stopped says whether a
   signal stopped it, a->error why nothing could be judged. */
void attempt_run(struct attempt *a);

/* Frees what attempt_run() kept; the struct itself is the caller's. */
void attempt_free(struct attempt *a);

/* Seconds since the attempt started. */
double attempt_since(const struct attempt *a);

enum attempt_verdict attempt_verdict(const struct attempt *a);

/* "pass", "fail" or "error", as the text and the JSON name a verdict. */
const char *attempt_verdict_name(enum attempt_verdict v);

/* The name of an attempt's verdict. */
const char *attempt_status(const struct attempt *a);

/* The points of the checks decided to hold (got), of the points of every check (max). */
void attempt_score(const struct attempt *a, double *got, double *max);

/* The learner's program's i-th last line kept, oldest first (i < a->ntail). */
const char *attempt_tail_line(const struct attempt *a, size_t i);

/* Whether the files in a->dir are the exercise's starter as generated, byte for byte. */
bool attempt_is_starter(const struct attempt *a);

#endif
