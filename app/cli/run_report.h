/*
 * run_report: what `iolab run` prints once its scenario has ended, as text or as one JSON
 * object (format in engine/README.md). cmd_run.c measures; this module only reads what it
 * measured: the segments (one per mode, each bounded by two snapshots), the grader's verdicts
 * and the programs' last words, gathered in one struct run_report.
 *
 * Every figure of a segment is the growth from its first snapshot to its last, as the figure
 * table computes it (snapshot_figures_between per program, the segment's span for its rates and
 * latencies: metrics/figure.h); gauges (threads, waiting clients, rss) are read at the
 * segment's end or as the peak the runner kept. Nothing here touches the engine, the loop or a
 * process.
 */
#ifndef IOLAB_RUN_REPORT_H
#define IOLAB_RUN_REPORT_H

#include "grade.h"
#include "lesson/lesson.h"
#include "metrics/snapshot.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One measured mode, filled by the runner snapshot after snapshot. */
struct run_segment {
    int mode; /* scenario mode index, -1 without modes */
    bool started, ended;
    bool after_switch;           /* a mode switch restarted a program right before it began */
    struct snapshot first, last; /* the segment's bounds */
    uint32_t peak_threads[SNAPSHOT_MAX_PROGS];
    uint32_t peak_procs[SNAPSHOT_MAX_PROGS];
    uint64_t proc_read_failures; /* /proc reads that failed, summed over the segment's ticks */
};

/* Each program's last lines on stderr, kept as they come, quoted when the run is not clean. */
struct run_last_words {
    /* The last line: the cause a demo gives for the errors it counts ("fork failed: ..."). */
    char err[SNAPSHOT_MAX_PROGS][256];
    /* The last line saying a call failed at a limit (demo_fail: "fork failed: the sandbox
       allows ..."), the cause quoted beside the failures it counted. */
    char fail[SNAPSHOT_MAX_PROGS][256];
};

/* Everything a report reads; the runner owns it all. */
struct run_report {
    const struct lesson *lesson;
    const struct lesson_step *step;
    const struct lesson_scenario *sc; /* the step's */
    const struct grader *grader;      /* the step's checks, judged on every snapshot */
    const struct run_segment *segments;
    size_t nsegments;
    const struct run_last_words *words;
    const char *sandbox; /* jail_describe_json's object; NULL or "" without a jail */
    const char *failure; /* the sentence the run failed with; NULL when it did not fail */
};

/* One reason a run was not clean, in a sentence. */
#define RUN_MAX_PROBLEMS 16
struct run_problems {
    char v[RUN_MAX_PROBLEMS][384];
    size_t n;
};

/* What made a run not clean: its failure, an untrusted counter page, and every program that
   counted errors or failed calls in a segment (with its last word on stderr). */
void run_report_problems(const struct run_report *r, struct run_problems *pr);

/* Prints the report on stdout: every started segment, the verdicts and the problems; as one
   JSON object when json (an object with no modes when nothing was measured). */
void run_report_print(const struct run_report *r, const struct run_problems *pr, bool json);

#endif
