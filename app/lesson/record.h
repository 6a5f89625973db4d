/*
 * record: the progress records of the step kinds, typed. The progress store (progress/) keeps
 * each feature's record of a step as a JSON object it never looks inside; the kind that writes a
 * record is the one that knows its shape, so its codec lives with the kind and is found through
 * the kind table (kind.h: a row's `records`):
 *
 *   "quiz"     quiz steps:      {"questions":[{"chosen":[0,2],"tries":1,"right":true}, ...]}
 *   "predict"  run steps:       {"predictions":[{"number":16,"verdict":"right","measured":16.2},
 *                                               {"mode":"fork"}, {}]}
 *   "exercise" exercise steps:  {"attempts":3,"first_pass":T,"solution_viewed":false,
 *                                "solution_before_pass":false,"score":{...}}
 *
 * The exercise's and the quiz's records keep the best score reached ("score", below).
 *   "sweep"    run steps with a sweep: a finished sweep (engine/sweepio.c reads and writes it)
 *
 * The typed halves (*_record_parse, *_record_write) are what the views and the exercise
 * workspace use, so that nothing outside lesson/ and progress/ builds or reads this JSON. A
 * parse is as lenient as the views always were with a member of the wrong type (it is left
 * out); a text that is not such a record is refused with a sentence. The checks are what an
 * import asks of a record against the installed pack's step (progress/exchange.c).
 */
#ifndef IOLAB_RECORD_H
#define IOLAB_RECORD_H

#include "lesson.h"

#include <stdbool.h>
#include <stddef.h>

struct cJSON;

/* One kind of record: the field it is stored under and what an import asks of it. */
struct lesson_record {
    const char *field; /* "quiz", "predict", "exercise", "sweep" */
    /* Why record (a JSON object) does not fit step, a step of the installed pack, written
       into why; or NULL when it fits. Called for every step whatever its kind. */
    const char *(*misfit)(const struct lesson_step *step, const struct cJSON *record, char *why,
                          size_t len);
    /* The tries the record counts (quiz checks, exercise attempts), for a summary; NULL: none. */
    long long (*tries)(const struct cJSON *record);
    /* Whether the record says the solution was viewed; NULL: it never says so. */
    bool (*solution_viewed)(const struct cJSON *record);
    /* The record's score (points of out of), for a summary; false (or NULL): it has none. */
    bool (*score)(const struct cJSON *record, double *points, double *of);
};

/* ---- the best score reached ("score" inside an exercise's or a quiz's record) ---- */

#define RECORD_SCORE_FIELD      "score"
#define RECORD_SCORE_MAX_CHECKS 64 /* checks whose points a score lists one by one */

/* {"points":1,"of":6,"at":T,"checks":[{"points":1,"of":1},{"points":0,"of":5}]}: the points
   of the decided checks that held (a quiz: of the questions checked right), of every check's;
   when it was first reached; per check, what it earned of what it weighs. */
struct record_score {
    bool has; /* a score was recorded */
    double points, of;
    double at; /* seconds since the epoch; 0 unknown */
    size_t nchecks;
    double got[RECORD_SCORE_MAX_CHECKS];
    double weight[RECORD_SCORE_MAX_CHECKS];
};

/* Reads record's "score" into s (s->has false when there is none, or it is not a score). */
void record_score_parse(const struct cJSON *record, struct record_score *s);
/* Adds s to record as "score" (nothing when !s->has); false when out of memory. */
bool record_score_write(struct cJSON *record, const struct record_score *s);
/* Keeps the better of best and now in best (more points wins; of two equal, the earlier
   stays); true when now was taken. */
bool record_score_keep(struct record_score *best, const struct record_score *now);
/* Why record's score cannot be one of a step with nchecks checks (more points than it is out
   of, a check over its weight...), or NULL when it has none or it fits. */
const char *record_score_misfit(const struct cJSON *record, size_t nchecks, char *buf, size_t len);

/* The record stored under field, asked of every kind's row; NULL when no kind keeps one. */
const struct lesson_record *lesson_record_find(const char *field);

/* ---- quiz answers ("quiz") ---- */

#define QUIZ_RECORD_FIELD "quiz"

struct quiz_record_answer {
    unsigned chosen; /* bit k: answer k (from 0) was chosen when last checked */
    unsigned tries;  /* how many times the learner checked this question */
    bool right;      /* the last check was right */
};

struct quiz_record {
    struct quiz_record_answer *questions; /* in the quiz's order */
    size_t nquestions;
    /* The best score reached: a question checked right earns 1 point, of one per question.
       quiz_record_write() keeps the better of this and the questions' score now. */
    struct record_score best;
};

/* Fills r from json (NULL: no record, r empty). 0; -EINVAL (why) when json is not a quiz
   record (r empty); -ENOMEM. Free with quiz_record_free. */
int quiz_record_parse(const char *json, struct quiz_record *r, char *why, size_t len);
/* The record as compact JSON (malloc'ed), or NULL when out of memory. */
char *quiz_record_write(const struct quiz_record *r);
void quiz_record_free(struct quiz_record *r);

/* ---- a run step's predictions ("predict") ---- */

#define PREDICT_RECORD_FIELD "predict"

enum predict_record_verdict {
    PREDICT_RECORD_UNJUDGED, /* not judged yet */
    PREDICT_RECORD_RIGHT,
    PREDICT_RECORD_WRONG,
};

struct predict_record_entry {
    bool has_number; /* a number was predicted ... */
    double number;
    char *mode; /* ... or a mode, by id; NULL: neither (the question was not answered) */
    enum predict_record_verdict verdict;
    double measured; /* the figure it was judged against (0 when not judged) */
};

struct predict_record {
    struct predict_record_entry *entries; /* one per question, in the step's order */
    size_t n;
};

int predict_record_parse(const char *json, struct predict_record *r, char *why, size_t len);
char *predict_record_write(const struct predict_record *r);
void predict_record_free(struct predict_record *r);

/* ---- exercise attempts ("exercise") ---- */

#define EXERCISE_RECORD_FIELD "exercise"

struct exercise_record {
    long long attempts; /* builds that count as attempts (a whole number, as stored) */
    bool passed;        /* it passed once ... */
    double first_pass;  /* ... at this time (seconds since the epoch) */
    bool solution_viewed;
    bool solution_before_pass; /* the solution was viewed before the first pass */
    struct record_score best;  /* the best score of an attempt or a pass */
};

int exercise_record_parse(const char *json, struct exercise_record *r, char *why, size_t len);
char *exercise_record_write(const struct exercise_record *r);

/* Keeps score in the exercise record old (NULL: none yet) when it beats the record's best,
   writing the record into out. 0, -ENOMEM or -ENAMETOOLONG. */
int exercise_record_score(const char *old, const struct record_score *score, char *out, size_t len);

/* ---- a finished sweep ("sweep") ---- */

#define SWEEP_RECORD_FIELD "sweep"

/* One point of a stored sweep: its series and value as written, and every number it holds by
   key. Which figures a point keeps, and under which keys, is the engine's table (sweep_kept,
   engine/sweeprun.h); this codec only reads them, so that nothing in engine/ parses JSON. */
struct sweep_record_num {
    char *key;
    double v;
};
struct sweep_record_point {
    char *mode, *value; /* NULL when the point lacks them (or they are not strings) */
    char *problem;      /* NULL: none */
    bool measured;
    struct sweep_record_num *nums;
    size_t nnums;
};
/* {"modes":["epoll",...],"tier":"full","seconds_per_point":2,"stopped":false,"points":[...]} as
   sweepio_json() writes it (engine/README.md); members of the wrong type are left out, as a
   missing one (modes: the strings only). */
struct sweep_record {
    char **modes;
    size_t nmodes;
    char *tier; /* NULL when absent */
    double seconds_per_point;
    bool stopped;
    struct sweep_record_point *points;
    size_t npoints;
};

/* 0; -EINVAL (why written) when json is not an object with the arrays "modes" and "points";
   -ENOMEM. Free with sweep_record_free() whatever it returns. */
int sweep_record_parse(const char *json, struct sweep_record *r, char *why, size_t len);
void sweep_record_free(struct sweep_record *r);
/* A point's number under key: true and *v when the point has it. */
bool sweep_record_num(const struct sweep_record_point *p, const char *key, double *v);

/* The rows of the kinds' records, named in the kinds' rows: the quiz's in kind_quiz.c, the run
   step's two in record_run.c, the exercise's in record_exercise.c. */
extern const struct lesson_record lesson_record_quiz;
extern const struct lesson_record lesson_record_predict;
extern const struct lesson_record lesson_record_exercise;
extern const struct lesson_record lesson_record_sweep;

#endif
