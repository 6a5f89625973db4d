/*
 * grade: the headless grader. It turns the snapshots of a step's runs into verdicts on the
 * step's checks, so that the TUI, `iolab run` and any later command judge a step the same way
 * by construction: each feeds it every snapshot it gets and reads the verdicts back.
 *
 * Model: a grader belongs to one scenario. Its session (session.h) credits what each snapshot
 * adds to the mode that was running; after every update each check is evaluated again
 * (check.h) and the verdicts are kept, one per check, however many the step has.
 *
 * One pass rule, for the TUI, `iolab check` and `iolab run` alike: a step is done when every
 * check is decided and holds. A check that watches over a time (no zombie, a rate bound) is
 * decided only at the end of its window; a failure as soon as it is certain. The grader settles
 * itself: the moment every check is decided (grade_decided), it finishes (grade_finish) and its
 * verdicts are final, whoever feeds it. A check the run never judged (it stopped at an earlier
 * failure, or the counts it reads cannot be believed) is GRADE_UNJUDGED: no mark of a pass, no
 * figure and no points. A step without checks is done once one of its runs has been measured (a
 * snapshot with its mode running has been seen).
 */
#ifndef IOLAB_GRADE_H
#define IOLAB_GRADE_H

#include "expect.h"
#include "json.h"
#include "lesson/check.h"
#include "session.h"

#include <stdbool.h>
#include <stddef.h>

struct grader {
    const struct lesson_scenario *sc;
    /* What the runs measured, one span per mode across restarts: the checks, expected
       outcomes, predictions and the comparison view read it. */
    struct session session;
    struct check_result *results; /* sc->nchecks verdicts, as of the last update */
    size_t nholding;              /* how many of them hold */
    bool measured;                /* a snapshot with the mode running was seen */
    /* A program exited since the last snapshot: its last lines may still be in its pipe (the
       exit can be told before them), so nothing is decided until the next snapshot. */
    bool exit_unread;
    struct expect_context ctx; /* the machine, for the sentences on outcomes that differ */
    /* Exercise checks: what the grader observes beyond the counters (grade_line, grade_exit). */
    struct check_observed *observed; /* per check */
    void *regexes;                   /* per check: the compiled "match" of output checks */
    int mode;                        /* the mode of the last snapshot */
    bool over;                       /* grade_finish(): every check is decided */
    bool *cut; /* per check: still open when a failure made the verdict certain, so not judged */
    int crash_prog, crash_signal; /* a program killed by a signal it did not ask for; -1 */
    char *report;                 /* a sanitizer's report from a program's output, or NULL */
    size_t report_len;
    int report_prog;  /* whose report it is; -1 */
    bool report_open; /* lines are still being added to it */
    bool report_live; /* report_prog has not exited yet: it is still dying */
    /* Per check: the FNV-1a digest of its "digest" file, computed here. */
    uint64_t *digests;
    /* Why the counter page's figures cannot be believed ("" while they can): the page was
       tampered with, or the learner's program's counted calls exceed what the kernel saw it
       make. Every check that reads the page then fails with this sentence (grade_trust). */
    char untrusted[256];
    /* The page showed more calls than the kernel's figure at this snapshot (elapsed_s), and
       why; -1 while it has not. Only a later snapshot whose kernel figures were read after that
       one, and still short, makes the counts untrusted (grade_trust). */
    double suspect_at;
    char suspect[256];
    /* A pass read off the counter page waits for the kernel: page_at is when (elapsed_s) the
       last check that reads the page was decided to hold, -1 before; looked_at when the kernel's
       figures of the learner's program were last all read and found no more than the page
       (-1 before). Nothing is final while looked_at <= page_at (grade_decided). */
    double page_at, looked_at;
    size_t page_holding; /* how many checks that read the page are decided to hold */
    /* Why the run says nothing about the learner's code (a limit of the jail stopped or was
       reached by a program: grade_void), "" while it does: then no check is judged. */
    char voided[512];
    /* Where each program's counted calls were made, as of the last snapshot (cumulative over
       its starts): a failing check on calls names their lines (grade_sites). NULL: no memory. */
    struct grade_prog_sites *sites;
};

struct grade_prog_sites {
    uint32_t n;                               /* programs of the last snapshot */
    struct tally_sites t[SNAPSHOT_MAX_PROGS]; /* per program */
};

/* A check's verdict as every surface shows it (text, JSON, JUnit, the TUI). */
enum grade_state {
    GRADE_OPEN,     /* not decided yet: only its progress so far can be shown */
    GRADE_PASS,     /* decided, and it holds: the only state that earns points */
    GRADE_FAIL,     /* decided, and it does not hold */
    GRADE_UNJUDGED, /* never judged: no figure, no points (grade_message says why) */
};

/* Prepares a grader for sc, nothing measured yet. 0 or -ENOMEM. */
int grade_init(struct grader *g, const struct lesson_scenario *sc);
void grade_free(struct grader *g);

/* The next snapshot comes from a new run whose totals start again from zero (a restart). */
void grade_new_run(struct grader *g);

/* Credits a snapshot and evaluates every check again. */
void grade_update(struct grader *g, const struct snapshot *snap);

/* A line of program prog's output (stdout or stderr): output checks count the lines that match,
   and a sanitizer's report (AddressSanitizer, LeakSanitizer, UBSan's "runtime error:") is kept. */
void grade_line(struct grader *g, size_t prog, const char *line);

/* Program prog exited with status (code, or 128+signal); expected: iolab stopped it. Exit checks
   read it; a signal the program did not get from iolab is named in the failing checks, even when
   it arrives after the verdicts (a sanitizer aborts only once its report is written, and iolab
   may have asked the program to stop meanwhile: SIGABRT is still the program's own). */
void grade_exit(struct grader *g, size_t prog, int status, bool expected);

/* The run is over: every check is decided on what was measured. When a program had already
   said what must not be said (see grade_decided), the checks still open are not judged
   (grade_message says so) rather than failed with a sentence that would send the learner to
   another fix. */
void grade_finish(struct grader *g);

/* The run says nothing about the learner's code (why: a sentence naming the limit of the jail
   that a program reached or was stopped by): it is over, and no check is judged, each saying
   "not judged: " and why. The first call's why is kept. */
void grade_void(struct grader *g, const char *why);

/* Every check's verdict is final (check_result.decided), or an output check's maximum was
   passed (a client rejected a download: the step cannot pass), so a headless run may stop now.
   Checks that only have a maximum ("no fork") are decided once every other check is. */
bool grade_decided(const struct grader *g);

/* A program has begun a sanitizer's report and has not exited yet: a headless run that is
   decided should let it finish dying, so its signal and its whole report are known. */
bool grade_sanitizer_reporting(const struct grader *g);

/* The sanitizer report seen so far, or NULL. */
const char *grade_sanitizer_report(const struct grader *g);

/* Whether line opens a sanitizer's error: "==PID==ERROR: AddressSanitizer: ..." (any
   "ERROR: <name>Sanitizer", LeakSanitizer's included) or UBSan's "FILE:L:C: runtime error: ...".
   The one rule for the grader, which keeps a report from such a line on, and for the exercise
   view's brief of it (exercise/buildmsg.c); a program's own "ERROR: " line is not one. */
bool grade_sanitizer_error(const char *line);

/* The step is done: every check is decided and holds (or, without checks, a run was measured).
   The one pass rule: the TUI records a pass, and `iolab check` exits 0, on this alone. */
bool grade_done(const struct grader *g);

/*
 * The counted lines behind check i, written to buf ("read() at reader.c:38 ran 4,000,037
 * times"), when the check reads a count of calls or a kernel figure of a call family (syscr,
 * bytes per read call): that family's lines in the programs the check is about (the learner's,
 * in an exercise), most calls first; when those calls were never made, the lines that moved
 * the data instead (reads and writes). Fills rows[0, max) with what it named. 0: nothing to
 * name (buf "").
 */
struct siteline_row;
size_t grade_sites(const struct grader *g, size_t i, char *buf, size_t len,
                   struct siteline_row *rows, size_t max);

/* "sites": the lines grade_sites() finds for check i, as a JSON array of {file, line,
   function, call, count} (empty when the check is about no calls). */
void grade_sites_json(const struct grader *g, size_t i, struct json_out *j);

/* Check i's state. */
enum grade_state grade_state(const struct grader *g, size_t i);

/* "open", "pass", "fail" or "not judged": the state's name in the text and the JSON. */
const char *grade_state_name(enum grade_state s);

/* The state's tag in a text listing: "ok", "--", ".." (open) or "  " (not judged). */
const char *grade_state_tag(enum grade_state s);

/* How many checks are in state s. */
size_t grade_count(const struct grader *g, enum grade_state s);

/* Check i's progress line, as check_describe() writes it ("epoll: 3.2 s of 5 s"). */
int grade_message(const struct grader *g, size_t i, char *buf, size_t len);

/* The verdicts as a JSON array under key: [{"text", "state", "ok", "message", "decided"}...];
   "ok" is null for a check that is open or not judged. */
void grade_json(const struct grader *g, struct json_out *j, const char *key);

/* Why the counts of the runs cannot be trusted (a sentence), or NULL while they can. */
const char *grade_untrusted(const struct grader *g);

/* The sandbox tier the runs are in, named in the sentences on outcomes (NULL: unknown). */
void grade_set_tier(struct grader *g, const char *tier);

/* Expected outcome i: its verdict and sentence. */
struct expect_verdict grade_expect(const struct grader *g, size_t i, char *buf, size_t len);

/* The expected outcomes as a JSON array under key: [{"text", "ok" (true, false or null while
   undecided), "message"}...]. */
void grade_expect_json(const struct grader *g, struct json_out *j, const char *key);

#endif
