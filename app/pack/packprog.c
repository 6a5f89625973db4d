/*
 * packprog: see packprog.h. One private libuv loop per program, run to the end: a pack's
 * programs are few, and a cached one answers on the loop's first turn.
 */
#include "packprog.h"

#include "exercise/build.h"
#include "headless.h"
#include "paths.h"
#include "termsafe.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

struct packprog_wait {
    struct build_result r;
    char *log;
    bool done;
    struct build *bd; /* running */
};

static void packprog_done(void *data, const struct build_result *r)
{
    struct packprog_wait *w = data;
    w->r = *r;
    w->log = r->log ? strdup(r->log) : NULL;
    w->r.log = NULL;
    w->done = true;
    w->bd = NULL;
}

/* A signal cancels the build: the sandbox ends the compiler and removes its directory. */
static void packprog_on_signal(void *data, int sig)
{
    struct packprog_wait *w = data;
    (void)sig; /* the driver keeps 128+sig */
    build_cancel(w->bd);
    w->bd = NULL;
}

/* Appends one diagnostic; a failed allocation drops it (the status still says it failed). */
static void packprog_diag(struct lesson_diags *d, const struct lesson_build *b, const char *fmt,
                          ...)
{
    if (!d)
        return;
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 8;
        struct lesson_diag *v = realloc(d->v, cap * sizeof *v);
        if (!v)
            return;
        d->v = v;
        d->cap = cap;
    }
    char *msg = NULL, *file = strdup(b->file ? b->file : "pack.json");
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    if (!msg || !file) {
        free(msg);
        free(file);
        return;
    }
    d->v[d->n++] =
        (struct lesson_diag){.file = file, .line = b->line, .col = b->col, .message = msg};
}

/* Every program of the pack that names b now runs its built executable. */
static void packprog_point(struct lesson_pack *pack, const struct lesson_build *b)
{
    for (size_t i = 0; i < pack->nlessons; i++)
        for (size_t j = 0; j < pack->lessons[i].nsteps; j++) {
            /* The pack is ours: the scenario is const only to the code that runs it. */
            struct lesson_scenario *sc =
                (struct lesson_scenario *)lesson_step_scenario(&pack->lessons[i].steps[j]);
            for (size_t k = 0; sc && k < sc->nprograms; k++) {
                struct lesson_program *p = &sc->programs[k];
                if (p->path && !strcmp(p->path, b->path)) {
                    char *exe = strdup(b->exe);
                    if (exe) {
                        free(p->path);
                        p->path = exe;
                    }
                }
            }
        }
}

/* FNV-1a of a file's bytes, 0 when it cannot be read. */
static unsigned long long packprog_file_hash(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned long long h = 0xcbf29ce484222325ull;
    int c;
    if (!f)
        return 0;
    while ((c = getc(f)) != EOF) {
        h ^= (unsigned char)c;
        h *= 0x100000001b3ull;
    }
    fclose(f);
    return h;
}

/*
 * The command with {include} replaced (the others are build.c's); strings in store. A command
 * that includes iolab's header also defines IOLAB_COUNTERS_H_HASH, the header's hash: the cache
 * key covers the command, so a program built against another iolab's header is built again.
 */
static int packprog_command(const struct lesson_build *b, const char *include, const char **argv,
                            size_t max, char *store, size_t len)
{
    static const char *const def[] = {PACKPROG_DEFAULT_COMMAND, NULL};
    const char *const *cmd = b->command ? (const char *const *)b->command : def;
    size_t n = 0, k = 0, used = 0;
    bool hashed = false;
    for (; cmd[k] && n + 2 < max; k++) {
        const char *at = strstr(cmd[k], "{include}");
        argv[n++] = cmd[k];
        if (!at)
            continue;
        int w = snprintf(store + used, len - used, "%.*s%s%s", (int)(at - cmd[k]), cmd[k], include,
                         at + 9);
        if (w < 0 || (size_t)w >= len - used)
            return -ENAMETOOLONG;
        argv[n - 1] = store + used;
        used += (size_t)w + 1;
        if (!hashed) {
            char header[PATH_MAX + 32];
            snprintf(header, sizeof header, "%s/iolab_counters.h", include);
            w = snprintf(store + used, len - used, "-DIOLAB_COUNTERS_H_HASH=0x%016llx",
                         packprog_file_hash(header));
            if (w < 0 || (size_t)w >= len - used)
                return -ENAMETOOLONG;
            argv[n++] = store + used;
            used += (size_t)w + 1;
            hashed = true;
        }
    }
    argv[n] = NULL;
    return 0;
}

/* The build of b as build.h takes it; argv and store hold its command. */
static int packprog_spec(const struct lesson_pack *pack, const struct lesson_build *b,
                         const char *cache, const char *sandbox, const char *include,
                         const char **argv, char *store, size_t len, struct build_spec *spec)
{
    int rc = packprog_command(b, include, argv, BUILD_MAX_ARGS + 1, store, len);
    *spec = (struct build_spec){
        .command = argv,
        .src_dir = b->src_dir,
        .root = pack->dir, /* a source may link elsewhere in the pack, never out of it */
        .files = (const char *const *)b->files,
        .nfiles = b->nfiles,
        .sources = (const char *const *)b->sources,
        .nsources = b->nsources,
        .cache_dir = cache,
        .sandbox = sandbox,
    };
    return rc;
}

static int packprog_one(struct lesson_pack *pack, struct lesson_build *b, FILE *log,
                        struct lesson_diags *diags, const char *cache, const char *sandbox,
                        const char *include, int *stopped)
{
    const char *argv[BUILD_MAX_ARGS + 1];
    char store[PATH_MAX * 2];
    struct build_spec spec;
    if (packprog_spec(pack, b, cache, sandbox, include, argv, store, sizeof store, &spec) < 0) {
        packprog_diag(diags, b, "the build command of \"%s\" is too long; shorten it.", b->program);
        return -EINVAL;
    }
    struct packprog_wait w = {0};
    struct headless h;
    struct headless_options ho = {.data = &w, .on_signal = packprog_on_signal};
    if (headless_init(&h, &ho) < 0)
        return -ENOMEM;
    int rc = build_start(&h.loop, &spec, packprog_done, &w, &w.bd);
    if (rc < 0)
        w.bd = NULL;
    *stopped = headless_run(&h);
    if (*stopped) {
        free(w.log);
        return -EINTR;
    }
    if (rc < 0 || !w.done) {
        packprog_diag(diags, b, "cannot start the build of \"%s\": %s.", b->program,
                      strerror(rc < 0 ? -rc : EIO));
        free(w.log);
        return -EINVAL;
    }
    /* The compiler's messages quote the pack's sources: printed with their controls escaped. */
    if (log && w.log && w.log[0])
        termsafe_fprintf(log, "%s%s", w.log, w.log[strlen(w.log) - 1] == '\n' ? "" : "\n");
    free(w.log);
    switch (w.r.status) {
    case BUILD_OK:
        free(b->exe);
        b->exe = strdup(w.r.exe);
        if (!b->exe)
            return -ENOMEM;
        packprog_point(pack, b);
        return 0;
    case BUILD_FAILED:
        packprog_diag(diags, b,
                      "program \"%s\" does not build (the compiler's messages%s); fix its "
                      "sources in %s.",
                      b->program, log ? " are above" : " were not shown", b->src_dir);
        break;
    case BUILD_ERROR:
    case BUILD_TIMEOUT:
    case BUILD_LIMIT:
        packprog_diag(diags, b, "program \"%s\" was not built: %s.", b->program, w.r.message);
        break;
    }
    return -EINVAL;
}

/* Where builds are kept, the sandbox that runs them and iolab's header directory. */
static int packprog_dirs(char *cache, char *sandbox, char *include)
{
    return paths_cache("build", cache, PATH_MAX) < 0 ||
                   paths_get(PATHS_SANDBOX, sandbox, PATH_MAX) < 0 ||
                   paths_get(PATHS_INCLUDE, include, PATH_MAX) < 0
               ? -ENOENT
               : 0;
}

size_t packprog_pending(const struct lesson_pack *pack)
{
    char cache[PATH_MAX], sandbox[PATH_MAX], include[PATH_MAX];
    size_t n = 0;
    if (!pack->nbuilds || packprog_dirs(cache, sandbox, include) < 0)
        return 0;
    for (size_t i = 0; i < pack->nbuilds; i++) {
        const struct lesson_build *b = &pack->builds[i];
        const char *argv[BUILD_MAX_ARGS + 1];
        char store[PATH_MAX * 2], key[32], exe[PATH_MAX + 40];
        struct build_spec spec;
        if (b->exe ||
            packprog_spec(pack, b, cache, sandbox, include, argv, store, sizeof store, &spec) < 0 ||
            build_key(&spec, key, sizeof key) < 0)
            continue; /* built, or it fails before any compiler runs */
        /* build.c keeps a program at <cache>/<key>/prog. */
        snprintf(exe, sizeof exe, "%s/%s/prog", cache, key);
        if (access(exe, X_OK) != 0)
            n++;
    }
    return n;
}

bool packprog_announce(const struct lesson_pack *pack, char *buf, size_t len)
{
    size_t n = packprog_pending(pack);
    if (len)
        buf[0] = '\0';
    if (!n)
        return false;
    /* The cache is keyed by content, not by pack: a program missing from it is either new or
       changed, and either way this is the first build of what the pack holds now. */
    snprintf(buf, len,
             "Building %zu program%s of pack \"%s\" (the first build of %s sources; later runs "
             "take %s from the cache).",
             n, n == 1 ? "" : "s", pack->title, n == 1 ? "its" : "their", n == 1 ? "it" : "them");
    return true;
}

int packprog_build(struct lesson_pack *pack, FILE *log, struct lesson_diags *diags, int *stopped)
{
    int sig = 0;
    if (!stopped)
        stopped = &sig;
    *stopped = 0;
    if (!pack->nbuilds)
        return 0;
    char cache[PATH_MAX], sandbox[PATH_MAX], include[PATH_MAX];
    if (packprog_dirs(cache, sandbox, include) < 0) {
        packprog_diag(diags, &pack->builds[0],
                      "cannot find iolab's sandbox or a cache directory to build this pack's "
                      "programs; set HOME or XDG_CACHE_HOME.");
        return -ENOENT;
    }
    int status = 0;
    for (size_t i = 0; i < pack->nbuilds; i++) {
        if (pack->builds[i].exe)
            continue;
        int rc = packprog_one(pack, &pack->builds[i], log, diags, cache, sandbox, include, stopped);
        if (rc == -EINTR)
            return rc; /* a signal: the rest is not built */
        if (rc < 0 && (status == 0 || rc == -ENOMEM))
            status = rc;
    }
    return status;
}
