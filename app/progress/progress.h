/*
 * progress: what the learner has done, per user, kept in $XDG_STATE_HOME/iolab/progress.json
 * (default ~/.local/state/iolab/progress.json).
 *
 * For each pack (by id): the steps that are done ("lesson/step"), the last place (lesson and
 * step), and per step a record: when it last changed, when it was done, and the fields that a
 * feature keeps for it, each a JSON object owned by one feature ("quiz": answers and tries;
 * "exercise": attempts, first pass, solution viewed; "sweep": a finished sweep; "predict":
 * predictions). The store keeps a field's text verbatim and never looks inside it, so a feature
 * adds what it needs without a change here. The in-memory form is plain C (the model,
 * progress.c); the JSON text is progress_codec.c's and the file, its lock and its sync are
 * progress_store.c's. A step kind's record is typed where the kind lives (lesson/record.h).
 *
 * Invariants:
 *  - the file on disk is always either the old or the new version, never a mix: a save writes a
 *    temporary file in the same directory, fsyncs it, renames it over the old one and fsyncs the
 *    directory;
 *  - a file that cannot be read as progress is never overwritten silently: progress_load() moves
 *    it aside to progress.json.damaged-<timestamp> and says so in progress.damaged; when it
 *    cannot be moved aside, the load fails and nothing is saved over it.
 */
#ifndef IOLAB_PROGRESS_H
#define IOLAB_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

struct progress_answer {
    char *step;  /* "lesson/step" */
    char *value; /* the learner's answer */
};

/* One feature's record of a step: a JSON object, kept as text. */
struct progress_field {
    char *name; /* "quiz", "exercise", "sweep", "predict": one feature each */
    char *json; /* a JSON object, compact ("{...}") */
};

/* What is known of one step beyond "done". Times are seconds since the epoch; 0 is unknown. */
struct progress_record {
    char *step;        /* "lesson/step" */
    long long updated; /* the step's last change: marked done, or a field set */
    long long done_at; /* when it was first marked done; 0: not done, or done before times */
    struct progress_field *fields;
    size_t nfields;
};

struct progress_pack {
    char *id;
    char **done; /* "lesson/step", in the order they were completed */
    size_t ndone;
    struct progress_answer *answers;
    size_t nanswers;
    char *last_lesson; /* the last place; NULL when the pack was never opened */
    char *last_step;
    /* The pack's version when a record was last made with it (the TUI, `iolab check`), however
       the pack was found (installed, or a directory given with --pack): what an export names
       when the pack is not installed. NULL: not known (a file of an older iolab). */
    char *version;
    struct progress_record *records; /* one per step that has a time or a field */
    size_t nrecords;
    /* Private to the progress files: room allocated, and an index of done and records by
     * "lesson/step" (built on the first look-up, so that an import or a merge of n steps takes time
     * linear in n, not n squared). */
    size_t cap_done, cap_records;
    struct progress_index *index;
};

struct progress {
    char *path; /* the file this was loaded from and is saved to */
    struct progress_pack *packs;
    size_t npacks;
    char *damaged; /* where a damaged file was moved by the load; NULL when it was fine */
    /* What the file held when this store last read or wrote it (progress_sync's base, kept as
     * text and parsed only when a sync needs it), and the file's identity then; private to
     * progress_store.c. */
    char *base_text;
    long long stamp[4];
};

/* Writes the default progress file path (XDG_STATE_HOME or HOME) into buf; 0 or -errno. */
int progress_default_path(char *buf, size_t len);

/* The largest progress file read: far above any real one (400,000 steps take 10 MiB), and a bound
 * so that a runaway file is never read without limit. */
#define PROGRESS_MAX_BYTES (256u << 20)

/*
 * Loads path (a missing file is an empty progress). A damaged file (not JSON, not the shape of
 * progress, a key given twice, a NUL, bytes that are not UTF-8) is moved aside and the result is
 * empty with damaged set. 0, or a negative errno (then *out is NULL): -EINVAL when path is not a
 * regular file (a FIFO, a directory...: it is left alone), -EFBIG when it is larger than
 * PROGRESS_MAX_BYTES. The load takes time linear in the file's size.
 */
int progress_load(const char *path, struct progress **out);
void progress_free(struct progress *p);

/*
 * The parsing half of progress_load(), from memory (the fuzzer's way in): fills p, which must
 * be empty, from text[0..len), which must be followed by a NUL. 0, -EBADMSG when the text is
 * damaged (p may then hold part of it: free it), or -ENOMEM.
 */
int progress_parse(struct progress *p, const char *text, size_t len);

/* Saves atomically, creating the directory when needed; 0 or a negative errno. */
int progress_save(struct progress *p);

/*
 * Every read-modify-write of the progress file (an import, a reset, the TUI's saves) holds this
 * lock from before it reads until after it has saved, so that two iolab processes never lose
 * each other's changes. The lock is an flock() on PATH.lock (the file itself is replaced by each
 * save, so it cannot carry a lock). It blocks until it is had, then removes temporary files
 * (PATH.tmp-*) that a writer killed before its rename left behind: under the lock, no save is
 * under way. Returns the lock's descriptor (give it to progress_unlock) or a negative errno.
 */
int progress_lock(const char *path);
void progress_unlock(int fd);

/*
 * Takes into p what other iolab processes changed in its file since p last read or wrote it (an
 * import, a reset, another window's work), so that the next save keeps it: a step changed on
 * disk replaces p's unless p changed it later; a step removed on disk is removed from p unless
 * p changed it since; done is never undone by a merge. Call it under progress_lock(), before
 * progress_save(). 0, or a negative errno (p is then unchanged or partly merged, never broken).
 * Returns 1 when something changed in p.
 */
int progress_sync(struct progress *p);

/*
 * The two halves of progress_save(), exposed so a test can stop between them as a crash would:
 * progress_write_temp() writes and fsyncs the temporary file (its path goes into tmp);
 * progress_commit() renames it into place and fsyncs the directory.
 */
int progress_write_temp(const struct progress *p, char *tmp, size_t tmplen);
int progress_commit(struct progress *p, const char *tmp);

/* The pack's record, or NULL when it has none (progress_pack_get creates it). */
const struct progress_pack *progress_pack_find(const struct progress *p, const char *pack);
struct progress_pack *progress_pack_get(struct progress *p, const char *pack);

bool progress_is_done(const struct progress *p, const char *pack, const char *lesson,
                      const char *step);
/* Marks a step done (idempotent); 0 or -ENOMEM. */
int progress_mark_done(struct progress *p, const char *pack, const char *lesson, const char *step);
/* How many steps of a lesson are done. */
size_t progress_lesson_done(const struct progress *p, const char *pack, const char *lesson);

int progress_set_last(struct progress *p, const char *pack, const char *lesson, const char *step);
/* Notes the pack's version (NULL: nothing changes); 0 or -ENOMEM. */
int progress_set_version(struct progress *p, const char *pack, const char *version);
int progress_set_answer(struct progress *p, const char *pack, const char *lesson, const char *step,
                        const char *value);

/*
 * A feature's record of a step: the JSON object text stored under field, or NULL when there is
 * none. The pointer is valid until the next change to the store.
 */
const char *progress_field_get(const struct progress *p, const char *pack, const char *lesson,
                               const char *step, const char *field);

/*
 * Stores json (a JSON object, checked: anything else is -EINVAL, and so is a field name that is
 * empty) as the step's record under field, replacing the old one, and makes now the step's
 * updated time. 0, -EINVAL or -ENOMEM.
 */
int progress_field_set(struct progress *p, const char *pack, const char *lesson, const char *step,
                       const char *field, const char *json);

/* The same two look-ups by "lesson/step" key within one pack; pk may be NULL. */
bool progress_pack_is_done(const struct progress_pack *pk, const char *key);
const struct progress_record *progress_pack_record(const struct progress_pack *pk, const char *key);

/* The step's record, or NULL when it has none. */
const struct progress_record *progress_record_find(const struct progress *p, const char *pack,
                                                   const char *lesson, const char *step);

/*
 * Puts a copy of rec (step, times and every field, as they are: nothing is stamped with now)
 * in place of the step's record, or adds it; for an import, which keeps the times it brings.
 * Each field must be a JSON object. 0, -EINVAL or -ENOMEM.
 */
int progress_record_put(struct progress *p, const char *pack, const struct progress_record *rec);

/*
 * Forgets what was done: everything (pack NULL), one pack, or one lesson in one pack or in every
 * pack (pack NULL, lesson set). Returns how many records were removed.
 */
size_t progress_reset(struct progress *p, const char *pack, const char *lesson);

/* The progress as JSON text (the file's format, also `iolab progress --json`); free() it. */
char *progress_to_json(const struct progress *p);

#endif
