/*
 * exchange: progress as a file that travels, from a learner to an instructor and from one
 * machine to another (`iolab progress --export / --import / --summary`).
 *
 * An export is one JSON object (lessons/README.md, "Progress that travels"):
 *   {"iolab_progress": 1, "learner": "alice", "exported_at": T,
 *    "packs": [{"id", "version", "title",
 *               "steps": [{"step": "lesson/step", "done": true, "done_at": T, "updated": T,
 *                          "fields": {"quiz": {...}, "exercise": {...}}}]}]}
 * Times are seconds since the epoch (0: unknown). `fields` are the store's per-step records
 * (progress.h), verbatim: whatever a feature keeps travels without a change here.
 *
 * An import merges per step and never loses what is there: a step done stays done (the earlier
 * done time is kept), the record changed last wins, and a field only the other side has is
 * added to it. A file that is not an export is refused whole, before anything changes, and so is
 * another learner's export unless asked. A record that does not fit the packs installed here
 * (exchange_import_opts) is named and left out, so that a removed step or an answer out of range
 * never counts as done.
 */
#ifndef IOLAB_EXCHANGE_H
#define IOLAB_EXCHANGE_H

#include "progress.h"

#include <stdio.h>

struct lesson_step;

#define EXCHANGE_FORMAT 1 /* "iolab_progress": the version of the export format */

/* What an export says of a pack beyond the store: its version and title, and its steps in the
   order learners meet them (the export lists steps in that order; others after). */
struct exchange_pack_info {
    const char *id;
    const char *version;
    const char *title;
    const char *const *steps; /* "lesson/step" */
    size_t nsteps;
    /* steps[i] in the installed pack, which an import's records are checked against (each
       record's kind says what fits, lesson/record.h); NULL: unchecked. */
    const struct lesson_step *const *step_defs;
};

/* The export of every pack in p as JSON text (malloc'ed; NULL when out of memory). */
char *exchange_export(const struct progress *p, const char *learner, long long now,
                      const struct exchange_pack_info *info, size_t ninfo);

/* What an import did, step by step (counts) and for the summary it prints. */
struct exchange_import_result {
    char learner[128];
    size_t left_out;  /* records that do not fit the installed packs: named, not merged */
    size_t steps;     /* steps in the file, merged (those left out not counted) */
    size_t added;     /* steps the store did not have */
    size_t taken;     /* the file's record was newer: it won (the store's extra fields kept) */
    size_t kept;      /* the store's record was newer: it stayed (the file's extra fields added) */
    size_t unchanged; /* the same on both sides */
    size_t now_done;  /* steps done by the import that were not done before */
};

/* What an import takes, and where it tells what it did. */
struct exchange_import_opts {
    /* The packs installed here. A well-formed record that does not fit them (a pack not among
       them, a step its pack does not have, a quiz answer out of range, a prediction for a step
       that asks none...) is named on refused and left out; the rest is merged. NULL: every
       record is merged unchecked. */
    const struct exchange_pack_info *info;
    size_t ninfo;
    const char *me;   /* this store's learner: another's export is refused; NULL: not checked */
    bool as_mine;     /* take an export whose learner is not me as this learner's */
    const char *file; /* the export's name, in the lines that name a record left out */
    FILE *log;        /* one line per step changed, or NULL */
    FILE *refused;    /* one line per record left out ("iolab: FILE: PACK/STEP: why"), or NULL */
    long long now;    /* the time of the import, seconds since the epoch; 0: the clock's */
};

/* How far past now a record's time may be (a day: time zones, a clock a little fast). */
#define EXCHANGE_FUTURE_SLACK 86400

/*
 * The one rule of what an import takes and a summary counts: why the record step (one entry of
 * an export's pack's "steps", already checked for shape) of pack `pack`, exported with version
 * `exported` (NULL: unknown), does not fit the installed packs info[0..ninfo), or NULL when it
 * fits. It does not fit when a time in it is more than EXCHANGE_FUTURE_SLACK after now, when
 * its pack is not installed, when the pack has no such step, or when a field is not what the
 * step's kind keeps (each kind's record says, lesson/record.h: a quiz answer out of range,
 * predictions on a step that asks none, an exercise record on a run step, a score above what it
 * is out of...). buf holds the sentence.
 */
struct cJSON;
const char *exchange_fit(const struct exchange_pack_info *info, size_t ninfo, const char *pack,
                         const char *exported, const struct cJSON *step, long long now, char *buf,
                         size_t len);

/* Writes s as a CSV text cell: quoted when it holds a comma, a quote or a line break, its
   controls escaped (termsafe.h), and a cell that a spreadsheet would take for a formula (it
   begins with =, +, -, @, a tab or a carriage return) prefixed with a single quote, as OWASP
   advises against CSV injection. Numbers are written by the caller, as numbers. */
void exchange_csv_text(FILE *out, const char *s);

/* s on one line for the text summary: a newline as \n (two characters), so that a name cannot
   forge a row; the caller escapes the rest (termsafe.h). Into buf, cut to fit; returns buf. */
const char *exchange_oneline(const char *s, char *buf, size_t len);

/*
 * Merges an export (text, len bytes followed by a NUL) into p as o says. 0; -EINVAL when the
 * text is not an export, or its own "exported_at" is more than EXCHANGE_FUTURE_SLACK after the
 * import's now (why says where and what, and p is unchanged); -EPERM when it is another
 * learner's (res->learner names them, p is unchanged); -ENOMEM.
 */
int exchange_import(struct progress *p, const char *text, size_t len,
                    const struct exchange_import_opts *o, struct exchange_import_result *res,
                    char *why, size_t whylen);

/*
 * An instructor's table of learners by steps from several exports: for each step whether it is
 * done, the tries it took (quiz checks and exercise attempts), whether the solution was viewed
 * and the best score its record keeps; per learner the points of every step (of what the
 * installed packs' scored steps are out of) and the version of each pack in the learner's newest
 * export. Only records that fit the installed packs count (exchange_fit, as for an import, with
 * now the clock's); the others are named on stderr in the import's words. The header says the
 * points are the learners' own records. texts[i] is the content of files[i] (NUL-terminated), or
 * NULL when it could not be read (the caller said so). A file that is not an export, or whose
 * "exported_at" is past tomorrow (its versions would stand for the learner's newest for ever), is
 * named on stderr and left out; a learner given in several files is one row, each step's newer
 * record winning. csv: comma-separated, four columns per step (three when no step keeps points),
 * text cells neutralised (exchange_csv_text); the text table keeps names on one line
 * (exchange_oneline). 0; 1 when the table was printed but a file was left out; -EINVAL (why)
 * when no file is an export; -ENOMEM. The steps of an installed pack named by an export are
 * columns in the pack's order, every one of them; info NULL: every record counts, in the order
 * the exports list them.
 */
int exchange_summary(FILE *out, const char *const *files, const char *const *texts, size_t n,
                     const struct exchange_pack_info *info, size_t ninfo, bool csv, char *why,
                     size_t whylen);

#endif
