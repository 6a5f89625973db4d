/*
 * build: compiles a program from C sources inside the sandbox, cached by content.
 *
 * Model: the sources (the learner's files, an exercise's solution, a pack's own program) are
 * copied into a fresh work directory under $TMPDIR, where the sandbox's unprivileged user may
 * read and write them whatever the permissions of the learner's own directory. Each source is
 * opened without following a link out of its directory (spec->root, or src_dir), because iolab
 * reads it with its own rights, which may be root's. The work directory is private (0700, handed
 * to the jail's uid by the sandbox), named iolab-build-PID-XXXXXX after the iolab that made it;
 * the sandbox removes it if iolab dies during the build, and a build removes what a dead iolab
 * left behind. The compiler runs
 * there through iolab-sandbox with a time, CPU, file-size and process limit, so a compiler fed
 * `#include "/dev/zero"` or a runaway preprocessor ends with a sentence, never a hang. Its
 * messages name the files as the learner knows them (the copies' names are mapped back to
 * src_dir), and are cut at BUILD_LOG_MAX bytes with a visible notice. A successful build (a
 * regular file the compiler wrote, never a link it left in its place) is kept under cache_dir/<hash
 * of the command and every file's name and bytes>/ with the compiler's messages (its warnings), so
 * an unchanged program is not built twice, a changed one always is, and a program served from the
 * cache still shows the warnings it was built with.
 *
 * Asynchronous on a libuv loop (the TUI stays responsive): build_start() returns at once, the
 * callback runs on the loop with the result. build_cancel() stops a build (its compiler is
 * killed through the sandbox) and no callback runs after it.
 */
#ifndef IOLAB_BUILD_H
#define IOLAB_BUILD_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

#define BUILD_LOG_MAX   (64 * 1024) /* compiler output kept; more is cut, and says so */
#define BUILD_MAX_ARGS  64
#define BUILD_MAX_FILES 32

/* The default compiler command; {out} is the program, {sources} the sources to compile. */
#define BUILD_DEFAULT_COMMAND                                                                      \
    "cc", "-std=gnu17", "-O2", "-g", "-Wall", "-Wextra", "-pthread", "-o", "{out}", "{sources}"

struct build_spec {
    const char *const *command; /* argv with {out} and {sources}; NULL-terminated */
    const char *src_dir;        /* where the files are, as messages name them */
    const char *root;           /* no file is read from outside it (a pack); NULL: src_dir */
    const char *const *files;   /* names in src_dir to copy (sources and headers) */
    size_t nfiles;
    const char *const *sources; /* the names among files that {sources} expands to */
    size_t nsources;
    const char *cache_dir; /* where built programs are kept (created as needed) */
    const char *sandbox;   /* iolab-sandbox */
    double timeout_s;      /* wall-clock limit of the compiler; 0: 30 s */
};

enum build_status {
    BUILD_OK,      /* exe is the program */
    BUILD_FAILED,  /* the compiler said no: log has its messages */
    BUILD_ERROR,   /* nothing could be built: a file is missing, the sandbox failed (message) */
    BUILD_TIMEOUT, /* the compiler ran past the time limit */
    BUILD_LIMIT,   /* a limit of the build's jail (processes, memory, file size) stopped it */
};

struct build_result {
    enum build_status status;
    bool cached;        /* found in the cache: nothing was compiled */
    int exit_status;    /* the compiler's (or 128+signal) */
    char exe[PATH_MAX]; /* BUILD_OK: the built program */
    char *log;          /* the compiler's output, mapped to the learner's paths; may be "" */
    size_t log_len;
    bool log_cut;      /* more than BUILD_LOG_MAX bytes: the rest was dropped */
    unsigned warnings; /* lines of the log that are a compiler's "file:line:col: warning:" */
    char message[512]; /* BUILD_ERROR / BUILD_TIMEOUT / BUILD_LIMIT: one sentence */
    const char *limit; /* BUILD_LIMIT: "pids", "memory" (iolab-sandbox's report) or "fsize" */
    double seconds;    /* how long it took */
};

struct build;
typedef void (*build_done_fn)(void *data, const struct build_result *r);

/* Starts a build. 0 (done runs later, exactly once) or a negative errno (nothing started). */
int build_start(uv_loop_t *loop, const struct build_spec *spec, build_done_fn done, void *data,
                struct build **out);

/* Stops a build before its callback; its handles close on the loop. */
void build_cancel(struct build *b);

/* The cache key of a spec: a hash of the command and every file's name and bytes, in hex.
   0, or a negative errno when a file cannot be read (-EXDEV: a link leads out of its root). */
int build_key(const struct build_spec *spec, char *hex, size_t len);

#endif
