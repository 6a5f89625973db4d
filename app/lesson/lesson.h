/*
 * The lesson model: a pack as plain C data, validated completely when it is loaded.
 *
 * A pack is a directory with pack.json (id, title, version, format_version, lesson order) and
 * one JSON file per lesson. The loader (lesson_load.c) is the only code that touches cJSON: it
 * parses, validates, copies into these structs and deletes the JSON tree. Everything here is
 * owned by the pack and freed by lesson_pack_free(). Nothing here knows of curses or libuv.
 *
 * Invariants after a successful load (no diagnostics):
 *  - every id is unique in its scope (lessons in a pack, steps in a lesson, programs and modes
 *    in a scenario) and matches [a-z0-9][a-z0-9_-]*;
 *  - every mode names an existing program (lesson_mode.program is a valid index);
 *  - every program resolves to an executable (a demo in libexec/iolab, an absolute path, a
 *    command found in PATH, or a file of the pack named "./DIR/NAME") and its resolved absolute
 *    path is in lesson_program.path; a program the pack builds (lesson_build) is the exception
 *    until packprog_build() has built it;
 *  - argument placeholders are all known ones (see LESSON_PLACEHOLDERS).
 */
#ifndef IOLAB_LESSON_H
#define IOLAB_LESSON_H

#include "metrics/figure.h"
#include "role.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The format this loader reads; pack.json states the one it was written for. */
#define LESSON_FORMAT_VERSION 1

/*
 * Placeholders a program argument may contain, replaced when the scenario starts:
 * {port} the scenario's TCP port, {host} the address servers listen on (127.0.0.1),
 * {workdir} the scenario's work directory, {seconds} the length of a headless run.
 */
#define LESSON_PLACEHOLDERS "port", "host", "workdir", "seconds"

/* Values of the placeholders, for lesson_arg_expand(); a NULL value expands to "". */
struct lesson_vars {
    const char *port;
    const char *host;
    const char *workdir;
    const char *seconds;
};

struct lesson_program {
    char *name; /* unique in the step: "server", "load" */
    enum lesson_role role;
    char *program; /* as written: "echo-server", "/usr/bin/curl", "curl" */
    char *path;    /* resolved absolute path of the executable */
    char **args;   /* nargs arguments, placeholders not yet replaced */
    size_t nargs;
    char *ready;      /* a server is ready when a line of its output contains this; NULL: at once */
    bool interactive; /* the learner may type into its stdin in the TUI */
    char *faults;     /* "faults": IOLAB_FAULTS for the shim ("short=0.25,eintr=0.05,eagain=0,
                         ...,jitter_us=0,coalesce_sigchld=1,seed=7"), NULL without faults */
};

struct lesson_mode {
    char *id;       /* "epoll" */
    char *title;    /* one line for the footer and the comparison view */
    char *text;     /* a sentence or two on what to watch for; may be NULL */
    char key;       /* the key that switches to it in the TUI ('1', '2', ...) */
    size_t program; /* index in lesson_scenario.programs of the program it changes */
    char **args;    /* appended to that program's arguments while the mode is active */
    size_t nargs;
    char *path;     /* the executable that program runs in this mode; NULL: its own (an
                       exercise's "yours" and "reference" modes set it) */
    bool sanitized; /* path was built with AddressSanitizer (an exercise's "sanitize"): it runs
                       without an address-space limit, with ASAN_OPTIONS set */
};

/*
 * The limits a run step asks for, each program's own (the sandbox's rlimits): a lesson about
 * 10,000 connections needs more open files than the default. 0 leaves the sandbox's default
 * (1,024 open files, 256 processes, 4,096 MiB of address space); a value may not pass the
 * ceiling iolab states (LESSON_LIMIT_MAX_*), so that no pack can ask for the whole machine.
 */
#define LESSON_LIMIT_DEFAULT_OPEN_FILES    1024 /* iolab-sandbox's defaults */
#define LESSON_LIMIT_DEFAULT_PROCESSES     256
#define LESSON_LIMIT_DEFAULT_ADDRESS_SPACE 4096
#define LESSON_LIMIT_MAX_OPEN_FILES        65536
#define LESSON_LIMIT_MAX_PROCESSES         4096
#define LESSON_LIMIT_MAX_ADDRESS_SPACE     32768 /* MiB */
#define LESSON_LIMIT_DEFAULT_TMP           256   /* MiB: the full tier's private /tmp */
#define LESSON_LIMIT_MAX_TMP               4096  /* MiB */
struct lesson_limits {
    long open_files;       /* RLIMIT_NOFILE of each program */
    long processes;        /* processes and threads each program may add (RLIMIT_NPROC) */
    long address_space_mb; /* RLIMIT_AS of each process, MiB */
    long tmp_mb;           /* the jail's private /tmp (a tmpfs, full tier), MiB, all programs */
};

/* A file created in the work directory before the programs start, with deterministic content
 * (see lesson_file_byte()) so that a client can verify what it downloads. */
struct lesson_file {
    char *name;    /* relative to the work directory */
    uint64_t size; /* bytes; the JSON may say 65536, "64K", "16M", "1G" */
};

/*
 * A check that makes a step done, evaluated against what was measured (check.h). Typed when the
 * pack loads: the figure (the key "metric"), call, mode and role are resolved then (a name the
 * step does not have is a lint error), so evaluating a check parses nothing. "Run epoll and fork
 * for at least 5 s each" is two checks with a mode and the figure seconds; "no fork" is
 * calls:fork with max 0.
 */
struct lesson_check {
    char *text;            /* shown to the learner: "Run the epoll server for 5 s" */
    int mode;              /* index of the mode whose figures count; -1: every mode */
    enum figure_id figure; /* what is measured (the JSON's "metric") */
    unsigned call;         /* enum iolab_call_id, for FIGURE_CALLS */
    int role;              /* enum lesson_role whose figures count; -1: the default (check.h) */
    bool has_min, has_max; /* at least one is set */
    double min, max;       /* holds when min <= value (has_min) and value <= max (has_max) */
    unsigned fd_kind;      /* "fd": 0 any descriptor, else enum iolab_fd_kind + 1 (calls only) */
    unsigned fd_to;        /* "fd": "src>dst": 0 any destination, else its kind + 1 */
    /* Exercise checks (see lessons/README.md): */
    int program;     /* "program": index of the program an exit/output check reads; -1: none */
    char *match;     /* "match": the extended regular expression an output line must match */
    bool has_status; /* "status": the exit status an exit check wants */
    int status;
    double within; /* "within": seconds the check has to hold, counted from its mode's start;
                      0: the whole run. Past it the check is decided: failed. */
    char *fail;    /* "fail": where to look when it fails ("see TODO 2 in main()"), or NULL */
    char *digest;  /* "digest": output checks count a line only when the first group of match
                      is this scenario file's FNV-1a digest (grade.c); NULL: any matching line */
    double points; /* "points": the check's weight in a score (check --json, --junit); 1 unset */
};

/* One side of an expected outcome: a figure of one mode. */
struct lesson_expect_side {
    int mode;              /* index of the mode; -1: the step's only run (no modes) */
    enum figure_id figure; /* what is compared */
    unsigned call;         /* enum iolab_call_id, for FIGURE_ONE_CALL_PER_REQ */
    int role;              /* for the per-request call figures: default the server */
};

enum lesson_cmp { LESSON_CMP_GT, LESSON_CMP_LT };

/*
 * What the learner should see, as data: "epoll answers more requests per second than fork" is
 * {left: epoll requests_per_s, op: ">", right: fork requests_per_s}; "sendfile makes fewer than
 * 10 server calls per download" is {left: ..., op: "<", value: 10}. The grader says, beside the
 * figures, whether this run agrees, and what on this machine may explain it when it does not;
 * it never makes a step done or not done.
 */
struct lesson_expect {
    char *text; /* the outcome in the lesson's words */
    char *why;  /* when a run differs: what in this scenario can make it so (the step's text
                   says the expected order; this says when it does not hold); may be NULL */
    struct lesson_expect_side left, right;
    bool has_right; /* right is a figure; otherwise value */
    double value;
    enum lesson_cmp op;
};

struct lesson_predict;

#define LESSON_MAX_WATCH 8 /* calls a step may name in "watch": the few it is about */

struct lesson_scenario {
    struct lesson_program *programs; /* servers first, in the order they start */
    size_t nprograms;
    struct lesson_mode *modes; /* may be empty: nothing to switch */
    size_t nmodes;
    size_t default_mode; /* index into modes when nmodes > 0 */
    struct lesson_file *files;
    size_t nfiles;
    double seconds;              /* default length of a headless run (`iolab run`) */
    struct lesson_limits limits; /* what each program may use; 0: the sandbox's default */
    struct lesson_check *checks;
    size_t nchecks;
    struct lesson_expect *expects; /* expected outcomes, judged beside the figures */
    size_t nexpects;
    char *unit;   /* what the load completes, plural: "copies" ("copies/s"); NULL: "requests" */
    int study;    /* the program under study (index), whose calls per request the comparison
                     shows; -1: the first server, or the first program without a server */
    bool latency; /* the step is about waiting: the comparison shows p50 and p99 latency */
    /* The calls the step is about (enum iolab_call_id), which the counters pane lists first in
       every role that made them: "watch", else the calls its checks and expectations name. */
    unsigned watch[LESSON_MAX_WATCH];
    size_t nwatch;
    /* An exercise's program the learner writes (index), when has_learner: what it publishes
       itself (requests, bytes) never counts for a check (check.h). */
    bool has_learner;
    size_t learner;
    struct lesson_predict *predicts; /* prediction questions asked before it starts (quiz.h) */
    size_t npredicts;
    struct lesson_sweep *sweep;       /* the step's sweep (sweep.h), or NULL */
    struct lesson_headline *headline; /* what the step's seed reported (sweep.h), or NULL */
};

struct lesson_kind;

/*
 * A step: what every kind has, and the kind's own payload. What a kind's step holds, how it is
 * parsed and freed, and whether it has a scenario to run are the kind's business (kind.h); code
 * outside the kind asks for capabilities (lesson_step_scenario()), never for the kind.
 */
struct lesson_step {
    char *id;
    char *title;
    char *text;                     /* body: light Markdown (headings, emphasis, lists, code) */
    const struct lesson_kind *kind; /* never NULL in a loaded pack */
    void *data;                     /* the kind's payload, freed by kind->free */
};

struct lesson {
    char *id;
    char *title;
    char *summary; /* one line for the start screen */
    char *file;    /* the JSON file it came from */
    struct lesson_step *steps;
    size_t nsteps;
};

/*
 * A program the pack builds from its own C sources (pack.json "build"). A run step names it
 * relative to the pack ("./tools/slow-server"); until packprog_build() (pack/packprog.h) has
 * built it, the programs that name it have `path` equal to this entry's `path` (inside the pack,
 * where no file need exist), and afterwards the built program in the cache.
 */
struct lesson_build {
    char *program; /* as pack.json names it: "tools/slow-server" */
    char *path;    /* absolute: PACKDIR/tools/slow-server */
    char *src_dir; /* the sources' directory as diagnostics name it: DIR/tools */
    char **files;  /* every source file, names in src_dir (.c and headers) */
    size_t nfiles;
    char **sources; /* the .c among files: what {sources} expands to */
    size_t nsources;
    char **command; /* NULL-terminated compiler command, or NULL: the default (packprog.h) */
    char *file;     /* pack.json, and where the entry starts, for diagnostics */
    int line, col;
    char *exe; /* the built program, once built; NULL before */
};

struct lesson_pack {
    char *dir;
    char *id;
    char *title;
    char *version;
    int format_version;
    struct lesson *lessons; /* in the order pack.json lists them */
    size_t nlessons;
    struct lesson_build *builds; /* programs built from the pack's sources */
    size_t nbuilds;
};

/* One problem found in a pack: `file:line:col: message`. */
struct lesson_diag {
    char *file;
    int line, col;
    char *message;
};

struct lesson_diags {
    struct lesson_diag *v;
    size_t n, cap;
};

/* A pack file held in memory: "pack.json" or "LESSON.json" and its bytes (need not end in NUL). */
struct lesson_mem_file {
    const char *name;
    const char *data;
    size_t len;
};

struct lesson_load_options {
    const char *libexec_dir; /* where demo programs are looked up by name */
    /* When files is set, the pack's files are these buffers and the file system is not read for
     * them (the fuzzer's way in); dir then only names them in diagnostics. */
    const struct lesson_mem_file *files;
    size_t nfiles;
};

/*
 * Loads and validates the pack in dir. Every problem found is appended to diags (all of them,
 * not only the first). Returns 0 and a pack when there are none; -EINVAL with *out NULL when
 * there are; another negative errno when the directory cannot be read (also reported in diags).
 */
int lesson_pack_load(const char *dir, const struct lesson_load_options *opts,
                     struct lesson_pack **out, struct lesson_diags *diags);
/* lesson_pack_load() over files in memory: the same checks, no file system (programs are still
 * looked up, to be resolved). opts may be NULL. */
int lesson_pack_load_mem(const char *name, const struct lesson_mem_file *files, size_t nfiles,
                         const struct lesson_load_options *opts, struct lesson_pack **out,
                         struct lesson_diags *diags);
void lesson_pack_free(struct lesson_pack *pack);

/* Prints each problem as file:line:col: message, controls shown escaped (util/termsafe.h). */
void lesson_diags_print(FILE *out, const struct lesson_diags *diags);
void lesson_diags_free(struct lesson_diags *diags);

const struct lesson *lesson_find(const struct lesson_pack *pack, const char *id);

/*
 * Resolves "LESSON" or "LESSON/STEP". Without a step, the lesson's first step with a scenario
 * is chosen.
 * Returns 0, or -ENOENT with a one-line reason in why.
 */
int lesson_resolve(const struct lesson_pack *pack, const char *spec, const struct lesson **lesson,
                   const struct lesson_step **step, char *why, size_t whylen);

/* Index of the mode with this id in the scenario, or -1. */
int lesson_mode_find(const struct lesson_scenario *sc, const char *id);

/* Adds a call (enum iolab_call_id) to the scenario's watched calls unless it is there already
   or the list is full; returns whether it was added. */
bool lesson_watch_add(struct lesson_scenario *sc, unsigned call);

/* The watched calls of a step without "watch": the calls its checks and expected outcomes name,
   in the order they are written (a check of calls:fork, calls_per_request:epoll_wait, an
   outcome on calls:read/request). */
void lesson_watch_derive(struct lesson_scenario *sc);

/* "text", "run": the name of the step's kind as the JSON writes it. */
const char *lesson_step_kind_name(const struct lesson_step *step);

/* What a list of steps says a step is: its kind's name ("text", "run", "exercise", "quiz", or a
   registered kind's), except "sweep" for a step whose scenario is a sweep (it runs every point,
   not a mode the learner switches). */
const char *lesson_step_label(const struct lesson_step *step);

/*
 * An exercise: the learner writes one program of a scenario. The reference solution's files are
 * in dir; the learner's starting point is generated from them by markers (starter.h).
 */
struct lesson_exercise {
    struct lesson_scenario *sc; /* the scenario; programs[learner] is the learner's */
    char *dir;                  /* absolute: the solution's files */
    char *rel_dir;              /* as the lesson writes it, relative to the pack */
    char **files;               /* the files the learner gets (starters where markers are) */
    size_t nfiles;
    char **sources; /* the files compiled ({sources}); by default every .c of files */
    size_t nsources;
    char **command; /* the compiler command (NULL-terminated), or NULL: build.h's default */
    char **hints;   /* from a nudge to the answer's shape */
    size_t nhints;
    size_t learner; /* index of the learner's program in sc->programs */
    size_t ntodos;  /* TODO markers over all files (at least one) */
    bool sanitize;  /* "sanitize": built with -fsanitize=address,undefined too, and run so */
};

/* A mode as one label: "epoll: one thread, ready sockets only", its id once even when its title
   starts with it already (many do: "iterative: one connection at a time"). */
const char *lesson_mode_label(const struct lesson_mode *m, char *buf, size_t len);

/* The exercise of a step, or NULL when its kind has none. */
const struct lesson_exercise *lesson_step_exercise(const struct lesson_step *step);

/* The scenario a step runs (a run step's, an exercise's), or NULL when its kind has none. */
const struct lesson_scenario *lesson_step_scenario(const struct lesson_step *step);

/*
 * Replaces the placeholders of one program argument ("{workdir}/data.bin") with their values.
 * Returns the length written (without the NUL), or -ENAMETOOLONG when buf is too small.
 */
int lesson_arg_expand(const char *arg, const struct lesson_vars *vars, char *buf, size_t len);

/* The deterministic content of a scenario file: byte at offset. */
static inline unsigned char lesson_file_byte(uint64_t offset)
{
    /* A pattern with no short period, so that a misplaced block is detected. */
    uint64_t x = (offset >> 3) * 0x9E3779B97F4A7C15ull;
    return (unsigned char)((x >> 56) ^ (offset & 7));
}

#endif
