/*
 * load: the loader's own vocabulary, shared by the generic typed-JSON reader (load_read.c), the
 * pack's schema (lesson_load.c: files, packs, lessons, steps; load_program.c: programs and
 * arguments; load_figure.c: figures) and the step kinds' parsers (kind_*.c, check_load.c,
 * predict.c, sweep.c), which are part of the loader. The only header that exposes cJSON: nothing
 * outside the loader includes it. The kinds call the reader and load_program.c, never
 * lesson_load.c, which calls the kinds (tests/structure/cycles.sh keeps it so).
 *
 * A kind's parser gets its own fields, already checked against its field table (type, required,
 * unknown keys), copies what it needs into its payload and reports every further problem with
 * load_diag() at the item concerned, so that lint prints `file:line:col: message`.
 */
#ifndef IOLAB_LOAD_H
#define IOLAB_LOAD_H

#include "lesson.h"
#include "lesson_pos.h"

#include <cjson/cJSON.h>

#define LOAD_MAX_CANDIDATES 256 /* names considered for a "did you mean" */

/* One JSON file under validation. */
struct load_file {
    char *path; /* as diagnostics name it: DIR/NAME */
    char *text; /* NUL-terminated */
    size_t len;
    cJSON *root;
    const cJSON **items; /* pre-order walk of root, parallel to pos.v */
    size_t nitems;
    struct lesson_pos pos;
};

struct load {
    const struct lesson_load_options *opts;
    const char *dir; /* the pack's directory: files a lesson names are relative to it */
    struct lesson_diags *diags;
    struct load_file *file; /* the file being validated */
    size_t problems;        /* diagnostics added by this load */
    int nomem;              /* set when an allocation failed: the result cannot be trusted */
    int bad_role;           /* a program of the current step has an unknown role */
    const struct lesson_pack *pack; /* the pack being loaded: its builds name programs */
    const char *sweep_param; /* the current step's sweep parameter, a placeholder too; NULL */
};

enum load_type {
    LOAD_STRING,  /* a non-empty string */
    LOAD_TEXT,    /* a string, or an array of strings joined with newlines */
    LOAD_STRINGS, /* an array of strings */
    LOAD_ARRAY,   /* an array of objects, checked element by element */
    LOAD_INT,
    LOAD_NUMBER,
    LOAD_BOOL,
    LOAD_SIZE,   /* 65536 or "64K" */
    LOAD_OBJECT, /* an object, checked by the caller's own field table */
};

/* One key an object may have. */
struct load_field {
    const char *name;
    enum load_type type;
    int required;
};

#define LOAD_MAX_ID 40 /* the longest id a pack may give */

/* The reader (load_read.c): diagnostics, "did you mean", values. */
char *load_strdup(struct load *ld, const char *s);
/* Sorts the diagnostics from index from on by file, then position (pack.json first). */
void load_sort_diags(struct lesson_diags *d, size_t from);

void load_diag_at(struct load *ld, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A problem with a whole file is reported at its first character. */
#define load_diag_file(ld, file, ...) load_diag_at(ld, file, 1, 1, __VA_ARGS__)
/* Reports a problem at an item of the current file: at its key when at_key and it has one. */
void load_diag(struct load *ld, const cJSON *item, int at_key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The candidate closest to word, when close enough to be a likely typo; NULL otherwise. */
const char *load_closest(const char *word, const char *const *cands, size_t n);
/* "did you mean \"x\"?" or the fallback advice, as one clause to end a sentence with. */
const char *load_suggest(char *buf, size_t len, const char *word, const char *const *cands,
                         size_t n, const char *otherwise);

/*
 * Checks obj against a field table: it is an object, every key is known and appears once, every
 * value has its field's type, every required field is present. out[i] is the value of field i
 * when present and well typed, else NULL. hint, when given, explains a key that another kind of
 * object would accept. Returns the number of problems.
 */
size_t load_fields(struct load *ld, const cJSON *obj, const struct load_field *fields,
                   size_t nfields, const char *what, const char *(*hint)(const char *key),
                   const cJSON **out);

char *load_text(struct load *ld, const cJSON *v);             /* LOAD_TEXT, joined */
char **load_strv(struct load *ld, const cJSON *v, size_t *n); /* LOAD_STRINGS, copied */
/* Checks an id's syntax; returns it when valid, else NULL (and reports). */
const char *load_id(struct load *ld, const cJSON *v, const char *what);
/* Reports v when an earlier item in seen[0..n) has the same string; returns whether it did. */
int load_dup(struct load *ld, const cJSON *v, const cJSON *const *seen, size_t n, const char *what,
             const char *scope);
int load_role(struct load *ld, const cJSON *v, enum lesson_role *out);
int load_size(struct load *ld, const cJSON *v, uint64_t *out);
/* Programs and arguments (load_program.c). A path inside the pack: relative, no empty, "." or
   ".." component; "./tools/x" or "tools/x" as the pack path "tools/x". */
int load_inside_pack(const char *rel);
const char *load_pack_rel(const char *prog);
/* The absolute path of a program as a lesson names it (see lesson.h), or NULL. */
char *load_find_program(struct load *ld, const char *prog);
void load_program_missing(struct load *ld, const cJSON *v);
/* Reports every {name} in the argument strings of array v that is not a known placeholder. */
void load_placeholders_check(struct load *ld, const cJSON *v);
/* A figure's name among those the format `where` accepts (FIGURE_IN_*, metrics/figure.h) into
   *fig and, for a per-call figure, *call (load_figure.c, for sweep.c); reports an unknown name
   with the closest known one, or the list. 0 or -EINVAL. */
int load_figure(struct load *ld, const cJSON *v, unsigned where, enum figure_id *fig,
                unsigned *call);
/* An expected outcome's "figure" name (requests_per_s, calls:NAME/request, ...) into side
   (load_figure.c, for kind_run.c); reports an unknown name. Prediction questions (predict.c)
   name figures alike. */
void load_expect_figure(struct load *ld, const cJSON *v, struct lesson_expect_side *side);
/* A run step's "predict" (predict.c): its prediction questions, into sc->predicts. */
void load_predicts(struct load *ld, const cJSON *arr, struct lesson_scenario *sc);
void lesson_predicts_free(struct lesson_scenario *sc);

#endif
