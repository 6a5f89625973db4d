/*
 * kind_run: a step with a scenario to run and watch: the programs (servers first), the modes the
 * learner switches between, the files created before the start, the length of a headless run and
 * the checks that make the step done. The loader half of the row is here; the UI half is
 * ui/stepview_run.c.
 */
#include "check.h"
#include "check_load.h"
#include "kind.h"
#include "record.h"
#include "load.h"
#include "sweep.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define LOAD_MAX_SECONDS     3600
#define LOAD_DEFAULT_SECONDS 10

enum {
    PROG_NAME,
    PROG_ROLE,
    PROG_PROGRAM,
    PROG_ARGS,
    PROG_READY,
    PROG_INTERACTIVE,
    PROG_FAULTS,
    PROG_NFIELDS
};
static const struct load_field load_program_fields[] = {
    [PROG_NAME] = {"name", LOAD_STRING, 1},
    [PROG_ROLE] = {"role", LOAD_STRING, 1},
    [PROG_PROGRAM] = {"program", LOAD_STRING, 1},
    [PROG_ARGS] = {"args", LOAD_STRINGS, 0},
    [PROG_READY] = {"ready", LOAD_STRING, 0},
    [PROG_INTERACTIVE] = {"interactive", LOAD_BOOL, 0},
    [PROG_FAULTS] = {"faults", LOAD_OBJECT, 0},
};

enum { MODE_ID, MODE_TITLE, MODE_TEXT, MODE_KEY, MODE_PROGRAM, MODE_ARGS, MODE_NFIELDS };
static const struct load_field load_mode_fields[] = {
    [MODE_ID] = {"id", LOAD_STRING, 1},           [MODE_TITLE] = {"title", LOAD_STRING, 1},
    [MODE_TEXT] = {"text", LOAD_TEXT, 0},         [MODE_KEY] = {"key", LOAD_STRING, 0},
    [MODE_PROGRAM] = {"program", LOAD_STRING, 1}, [MODE_ARGS] = {"args", LOAD_STRINGS, 0},
};

enum { FILE_NAME, FILE_SIZE, FILE_NFIELDS };
static const struct load_field load_file_fields[] = {
    [FILE_NAME] = {"name", LOAD_STRING, 1},
    [FILE_SIZE] = {"size", LOAD_SIZE, 1},
};

enum {
    CHECK_TEXT,
    CHECK_MODE,
    CHECK_METRIC,
    CHECK_ROLE,
    CHECK_MIN,
    CHECK_MAX,
    CHECK_FD,
    CHECK_NFIELDS
};
static const struct load_field load_check_fields[] = {
    [CHECK_TEXT] = {"text", LOAD_STRING, 1},
    [CHECK_MODE] = {"mode", LOAD_STRING, 0},
    [CHECK_METRIC] = {"metric", LOAD_STRING, 1},
    [CHECK_ROLE] = {"role", LOAD_STRING, 0},
    [CHECK_MIN] = {"min", LOAD_NUMBER, 0},
    [CHECK_MAX] = {"max", LOAD_NUMBER, 0},
    [CHECK_FD] = {"fd", LOAD_STRING, 0},
    /* The exercise keys (program, match, status, within, fail): check_load_extra(). */
    CHECK_EXTRA_FIELDS,
};

enum {
    EXPECT_TEXT,
    EXPECT_LEFT,
    EXPECT_OP,
    EXPECT_RIGHT,
    EXPECT_VALUE,
    EXPECT_WHY,
    EXPECT_NFIELDS
};
static const struct load_field load_expect_fields[] = {
    [EXPECT_TEXT] = {"text", LOAD_STRING, 1},   [EXPECT_LEFT] = {"left", LOAD_OBJECT, 1},
    [EXPECT_OP] = {"op", LOAD_STRING, 1},       [EXPECT_RIGHT] = {"right", LOAD_OBJECT, 0},
    [EXPECT_VALUE] = {"value", LOAD_NUMBER, 0}, [EXPECT_WHY] = {"why", LOAD_STRING, 0},
};

enum { SIDE_MODE, SIDE_FIGURE, SIDE_ROLE, SIDE_NFIELDS };
static const struct load_field load_side_fields[] = {
    [SIDE_MODE] = {"mode", LOAD_STRING, 0},
    [SIDE_FIGURE] = {"figure", LOAD_STRING, 1},
    [SIDE_ROLE] = {"role", LOAD_STRING, 0},
};

/* A run step's own keys, beyond the common ones. */
enum {
    RUN_PROGRAMS,
    RUN_MODES,
    RUN_DEFAULT_MODE,
    RUN_FILES,
    RUN_SECONDS,
    RUN_LIMITS,
    RUN_CHECKS,
    RUN_EXPECT,
    RUN_UNIT,
    RUN_STUDY,
    RUN_LATENCY,
    RUN_PREDICT,
    RUN_SWEEP,
    RUN_HEADLINE,
    RUN_WATCH,
    RUN_NFIELDS
};
static const struct load_field load_run_fields[] = {
    [RUN_PROGRAMS] = {"programs", LOAD_ARRAY, 1},
    [RUN_MODES] = {"modes", LOAD_ARRAY, 0},
    [RUN_DEFAULT_MODE] = {"default_mode", LOAD_STRING, 0},
    [RUN_FILES] = {"files", LOAD_ARRAY, 0},
    [RUN_SECONDS] = {"seconds", LOAD_NUMBER, 0},
    [RUN_LIMITS] = {"limits", LOAD_OBJECT, 0},
    [RUN_CHECKS] = {"checks", LOAD_ARRAY, 0},
    [RUN_EXPECT] = {"expect", LOAD_ARRAY, 0},
    [RUN_UNIT] = {"unit", LOAD_STRING, 0},
    [RUN_STUDY] = {"study", LOAD_STRING, 0},
    [RUN_LATENCY] = {"latency", LOAD_BOOL, 0},
    [RUN_PREDICT] = {"predict", LOAD_ARRAY, 0},
    [RUN_SWEEP] = {"sweep", LOAD_OBJECT, 0},
    [RUN_HEADLINE] = {"headline", LOAD_OBJECT, 0},
    [RUN_WATCH] = {"watch", LOAD_STRINGS, 0},
};

/*
 * A program's "faults": {"short": P, "eintr": P, "eagain": P, "spurious": P, "late_start": P,
 * "jitter_us": N, "coalesce_sigchld": true, "seed": N}, each probability from 0 to 1 (0 or
 * absent: never), jitter_us a whole number of microseconds from 1 to 100000 (the most a thread
 * sleeps at a lock or semaphore boundary), the seed a whole number (default 1). Returns the
 * value of IOLAB_FAULTS for the shim (sandbox/count/README.md), or NULL when nothing would be
 * injected.
 */
enum {
    FAULT_SHORT,
    FAULT_EINTR,
    FAULT_EAGAIN,
    FAULT_SPURIOUS,
    FAULT_LATE_START,
    FAULT_JITTER_US,
    FAULT_COALESCE_SIGCHLD,
    FAULT_SEED,
    FAULT_NFIELDS
};
static const struct load_field load_fault_fields[] = {
    [FAULT_SHORT] = {"short", LOAD_NUMBER, 0},
    [FAULT_EINTR] = {"eintr", LOAD_NUMBER, 0},
    [FAULT_EAGAIN] = {"eagain", LOAD_NUMBER, 0},
    [FAULT_SPURIOUS] = {"spurious", LOAD_NUMBER, 0},
    [FAULT_LATE_START] = {"late_start", LOAD_NUMBER, 0},
    [FAULT_JITTER_US] = {"jitter_us", LOAD_INT, 0},
    [FAULT_COALESCE_SIGCHLD] = {"coalesce_sigchld", LOAD_BOOL, 0},
    [FAULT_SEED] = {"seed", LOAD_INT, 0},
};

/* The longest sleep "jitter_us" may ask for: the shim refuses more (SHIM_JITTER_MAX_US). */
#define FAULT_JITTER_MAX_US 100000

static char *load_faults(struct load *ld, const cJSON *obj)
{
    const cJSON *f[FAULT_NFIELDS];
    if (load_fields(ld, obj, load_fault_fields, FAULT_NFIELDS, "\"faults\"", NULL, f))
        return NULL;
    double p[5] = {0, 0, 0, 0, 0};
    for (int i = FAULT_SHORT; i <= FAULT_LATE_START; i++) {
        if (!f[i])
            continue;
        p[i] = f[i]->valuedouble;
        if (!(p[i] >= 0 && p[i] < 1))
            load_diag(ld, f[i], 0,
                      "\"%s\" is a probability from 0 up to (not including) 1, such as 0.25.",
                      load_fault_fields[i].name);
    }
    double seed = f[FAULT_SEED] ? f[FAULT_SEED]->valuedouble : 1;
    if (seed < 0 || seed > 4294967295.0) {
        load_diag(ld, f[FAULT_SEED], 0, "\"seed\" is a whole number from 0 to 4294967295.");
        seed = 1;
    }
    double jitter = f[FAULT_JITTER_US] ? f[FAULT_JITTER_US]->valuedouble : 0;
    if (jitter < 0 || jitter > FAULT_JITTER_MAX_US) {
        load_diag(ld, f[FAULT_JITTER_US], 0,
                  "\"jitter_us\" is a whole number of microseconds from 0 to %d, such as 2000.",
                  FAULT_JITTER_MAX_US);
        jitter = 0;
    }
    int coalesce = f[FAULT_COALESCE_SIGCHLD] && cJSON_IsTrue(f[FAULT_COALESCE_SIGCHLD]);
    if (p[0] <= 0 && p[1] <= 0 && p[2] <= 0 && p[3] <= 0 && p[4] <= 0 && jitter <= 0 && !coalesce) {
        load_diag(ld, obj, 0,
                  "\"faults\" injects nothing; give \"short\", \"eintr\", \"eagain\", "
                  "\"spurious\" or \"late_start\" a probability above 0, \"jitter_us\" a "
                  "number of microseconds, or \"coalesce_sigchld\" true, or remove it.");
        return NULL;
    }
    /* Written digit by digit, not with %f: iolab runs in the learner's locale (a decimal comma
       in some), and the shim reads the value before the program has set any locale. */
    unsigned ppm[5];
    for (int i = 0; i < 5; i++) {
        double v = p[i] > 0 ? p[i] * 1e6 + 0.5 : 0;
        ppm[i] = v < 999999 ? (unsigned)v : 999999;
    }
    char buf[192];
    snprintf(buf, sizeof buf,
             "short=0.%06u,eintr=0.%06u,eagain=0.%06u,spurious=0.%06u,late_start=0.%06u,"
             "jitter_us=%u,coalesce_sigchld=%d,seed=%lu",
             ppm[0], ppm[1], ppm[2], ppm[3], ppm[4], (unsigned)jitter, coalesce,
             (unsigned long)seed);
    return load_strdup(ld, buf);
}

static void load_programs(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (!n) {
        load_diag(ld, arr, 0, "\"programs\" is empty; a run step needs at least one program.");
        return;
    }
    struct lesson_program *progs = calloc(n, sizeof *progs);
    const cJSON **names = calloc(n, sizeof *names);
    if (!progs || !names) {
        ld->nomem = 1;
        free(progs);
        free(names);
        return;
    }
    size_t i = 0;
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *f[PROG_NFIELDS];
        struct lesson_program *p = &progs[i];
        load_fields(ld, obj, load_program_fields, PROG_NFIELDS, "a program", NULL, f);
        if (load_id(ld, f[PROG_NAME], "program") &&
            !load_dup(ld, f[PROG_NAME], names, i, "program name", "this step"))
            names[i] = f[PROG_NAME];
        p->name = load_strdup(ld, f[PROG_NAME] ? f[PROG_NAME]->valuestring : "");
        if (f[PROG_ROLE] && load_role(ld, f[PROG_ROLE], &p->role) < 0)
            ld->bad_role = 1;
        if (f[PROG_PROGRAM]) {
            p->program = load_strdup(ld, f[PROG_PROGRAM]->valuestring);
            if (!(p->path = load_find_program(ld, p->program)))
                load_program_missing(ld, f[PROG_PROGRAM]);
        }
        if (f[PROG_ARGS])
            load_placeholders_check(ld, f[PROG_ARGS]);
        p->args = load_strv(ld, f[PROG_ARGS], &p->nargs);
        p->ready = f[PROG_READY] ? load_strdup(ld, f[PROG_READY]->valuestring) : NULL;
        p->interactive = f[PROG_INTERACTIVE] && cJSON_IsTrue(f[PROG_INTERACTIVE]);
        if (f[PROG_FAULTS])
            p->faults = load_faults(ld, f[PROG_FAULTS]);
        i++;
    }
    free(names);
    /* Servers first, each group in the order written: that is the order they start in. */
    sc->programs = calloc(n, sizeof *sc->programs);
    if (!sc->programs) {
        ld->nomem = 1;
        sc->programs = progs; /* freed with the scenario */
        sc->nprograms = n;
        return;
    }
    for (int role = 0; role < LESSON_NROLES; role++)
        for (size_t k = 0; k < n; k++)
            if ((int)progs[k].role == role)
                sc->programs[sc->nprograms++] = progs[k];
    free(progs);
}

static void load_modes(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (!n)
        return;
    sc->modes = calloc(n, sizeof *sc->modes);
    const cJSON **ids = calloc(n, sizeof *ids);
    const cJSON **keys = calloc(n, sizeof *keys);
    bool *given = calloc(n, sizeof *given); /* the mode has a "key" of its own */
    const char **prognames = calloc(sc->nprograms + 1, sizeof *prognames);
    if (!sc->modes || !ids || !keys || !given || !prognames) {
        ld->nomem = 1;
        goto out;
    }
    for (size_t p = 0; p < sc->nprograms; p++)
        prognames[p] = sc->programs[p].name;
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *f[MODE_NFIELDS];
        size_t i = sc->nmodes++;
        struct lesson_mode *m = &sc->modes[i];
        load_fields(ld, obj, load_mode_fields, MODE_NFIELDS, "a mode", NULL, f);
        if (load_id(ld, f[MODE_ID], "mode") &&
            !load_dup(ld, f[MODE_ID], ids, i, "mode id", "this step"))
            ids[i] = f[MODE_ID];
        m->id = load_strdup(ld, f[MODE_ID] ? f[MODE_ID]->valuestring : "");
        m->title = load_strdup(ld, f[MODE_TITLE] ? f[MODE_TITLE]->valuestring : "");
        m->text = load_text(ld, f[MODE_TEXT]);
        if (f[MODE_KEY]) {
            const char *k = f[MODE_KEY]->valuestring;
            given[i] = true;
            if (strlen(k) != 1 || k[0] <= ' ' || k[0] > '~')
                load_diag(ld, f[MODE_KEY], 0,
                          "a mode's key must be one printable character such as \"1\"; shorten "
                          "\"%s\".",
                          k);
            else if (!load_dup(ld, f[MODE_KEY], keys, i, "key", "this step's modes"))
                keys[i] = f[MODE_KEY];
            m->key = k[0];
        } else {
            /* Without a key, modes take the digits 1-9 in order. */
            m->key = i < 9 ? (char)('1' + i) : 0;
            if (!m->key)
                load_diag(ld, obj, 0, "this mode needs a \"key\": only the first nine get digits.");
        }
        if (f[MODE_PROGRAM]) {
            size_t p = 0;
            while (p < sc->nprograms && strcmp(sc->programs[p].name, f[MODE_PROGRAM]->valuestring))
                p++;
            if (p == sc->nprograms) {
                char why[128];
                load_diag(ld, f[MODE_PROGRAM], 0,
                          "mode \"%s\" changes program \"%s\", which this step does not have; %s",
                          m->id, f[MODE_PROGRAM]->valuestring,
                          load_suggest(why, sizeof why, f[MODE_PROGRAM]->valuestring, prognames,
                                       sc->nprograms, "name one of its programs."));
            }
            m->program = p;
        }
        if (f[MODE_ARGS])
            load_placeholders_check(ld, f[MODE_ARGS]);
        m->args = load_strv(ld, f[MODE_ARGS], &m->nargs);
    }
    /* Keys given were checked one by one (load_dup above, which reports a pair of them once); a
       mode without a key given may still collide with another. */
    for (size_t i = 0; i < sc->nmodes; i++)
        for (size_t j = 0; j < i; j++)
            if (sc->modes[i].key && sc->modes[i].key == sc->modes[j].key && !(given[i] && given[j]))
                load_diag(ld,
                          keys[i]   ? keys[i]
                          : keys[j] ? keys[j]
                                    : arr,
                          0,
                          "modes \"%s\" and \"%s\" both use key '%c'; give each mode its own key.",
                          sc->modes[j].id, sc->modes[i].id, sc->modes[i].key);
out:
    free(ids);
    free(keys);
    free(given);
    free(prognames);
}

static void load_default_mode(struct load *ld, const cJSON *v, struct lesson_scenario *sc)
{
    if (!v)
        return;
    if (!sc->nmodes) {
        load_diag(ld, v, 0,
                  "\"default_mode\" needs \"modes\" to choose from; add them or remove it.");
        return;
    }
    int m = lesson_mode_find(sc, v->valuestring);
    if (m >= 0) {
        sc->default_mode = (size_t)m;
        return;
    }
    const char *ids[LOAD_MAX_CANDIDATES];
    size_t n = 0;
    for (; n < sc->nmodes && n < LOAD_MAX_CANDIDATES; n++)
        ids[n] = sc->modes[n].id;
    char why[128];
    load_diag(ld, v, 0, "default mode \"%s\" is not one of this step's modes; %s", v->valuestring,
              load_suggest(why, sizeof why, v->valuestring, ids, n, "name one of them."));
}

static void load_files(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    const cJSON **names = calloc(n + 1, sizeof *names);
    sc->files = calloc(n + 1, sizeof *sc->files);
    if (!names || !sc->files) {
        ld->nomem = 1;
        free(names);
        return;
    }
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *f[FILE_NFIELDS];
        size_t i = sc->nfiles++;
        load_fields(ld, obj, load_file_fields, FILE_NFIELDS, "a file", NULL, f);
        if (f[FILE_NAME]) {
            const char *name = f[FILE_NAME]->valuestring;
            if (strchr(name, '/') || name[0] == '.')
                load_diag(ld, f[FILE_NAME], 0,
                          "file name \"%s\" must be a plain name in the work directory; remove "
                          "'/' and any leading '.'.",
                          name);
            else if (!load_dup(ld, f[FILE_NAME], names, i, "file name", "this step"))
                names[i] = f[FILE_NAME];
            sc->files[i].name = load_strdup(ld, name);
        }
        if (f[FILE_SIZE])
            load_size(ld, f[FILE_SIZE], &sc->files[i].size);
    }
    free(names);
}

/* The figure a check's "metric" names, typed; reports an unknown name with a suggestion. */
/* "limits": {"open_files": N, "processes": N, "address_space_mb": N, "tmp_mb": N}, each within
   its ceiling. */
static void load_limits(struct load *ld, const cJSON *obj, struct lesson_limits *out)
{
    static const struct {
        const char *name;
        long max;
        size_t offset;
    } keys[] = {
        {"open_files", LESSON_LIMIT_MAX_OPEN_FILES, offsetof(struct lesson_limits, open_files)},
        {"processes", LESSON_LIMIT_MAX_PROCESSES, offsetof(struct lesson_limits, processes)},
        {"address_space_mb", LESSON_LIMIT_MAX_ADDRESS_SPACE,
         offsetof(struct lesson_limits, address_space_mb)},
        {"tmp_mb", LESSON_LIMIT_MAX_TMP, offsetof(struct lesson_limits, tmp_mb)},
    };
    const cJSON *v;
    cJSON_ArrayForEach(v, obj)
    {
        size_t k = 0;
        while (k < sizeof keys / sizeof *keys && strcmp(keys[k].name, v->string))
            k++;
        if (k == sizeof keys / sizeof *keys) {
            load_diag(ld, v, 1,
                      "\"limits\" has no \"%s\"; it takes open_files, processes, "
                      "address_space_mb and tmp_mb.",
                      v->string);
            continue;
        }
        if (!cJSON_IsNumber(v) || v->valuedouble != (double)(long)v->valuedouble ||
            v->valuedouble < 1 || v->valuedouble > (double)keys[k].max) {
            load_diag(ld, v, 0,
                      "\"%s\" must be a whole number from 1 to %ld (iolab's ceiling); change it.",
                      keys[k].name, keys[k].max);
            continue;
        }
        *(long *)((char *)out + keys[k].offset) = (long)v->valuedouble;
    }
}

static void load_check_figure(struct load *ld, const cJSON *v, struct lesson_check *c, int *ok)
{
    *ok = check_figure_parse(v->valuestring, &c->figure, &c->call) == 0;
    if (*ok)
        return;
    /* Room for every name: the plain ones and three per counted call. */
    char bufs[256][48];
    const char *names[256];
    size_t k = 0;
    while (k < 256 && (names[k] = check_figure_name(k, bufs[k], sizeof bufs[k])))
        k++;
    char why[640];
    /* A call iolab does not count is not a typo of one it does: say so first, so that a close
       name ("recvmsg" for "recvmmsg") reads as a guess, not as the same call. */
    const char *colon = strchr(v->valuestring, ':');
    if (colon && (!strncmp(v->valuestring, "calls:", 6) ||
                  !strncmp(v->valuestring, "calls_per_request:", 18) ||
                  !strncmp(v->valuestring, "bytes_per_byte_served:", 22))) {
        load_diag(ld, v, 0,
                  "metric \"%s\" names %s, which iolab does not count (the counted calls are "
                  "listed in lessons/README.md and by `iolab list --json`); a check on it can "
                  "only be wrong. If it is a typo: %s",
                  v->valuestring, colon + 1,
                  load_suggest(why, sizeof why, v->valuestring, names, k, "name a counted call."));
        return;
    }
    /* The hint names every figure but the calls, from the same table the parser reads. */
    char hint[512] = "use ";
    size_t at = strlen(hint);
    for (size_t i = 0; i < k; i++)
        if (!strchr(names[i], ':') && at < sizeof hint)
            at += (size_t)snprintf(hint + at, sizeof hint - at, "%s, ", names[i]);
    if (at < sizeof hint)
        snprintf(hint + at, sizeof hint - at,
                 "or calls:NAME, calls_per_request:NAME or bytes_per_byte_served:NAME with a "
                 "counted call's name.");
    load_diag(ld, v, 0, "metric \"%s\" is not known; %s", v->valuestring,
              load_suggest(why, sizeof why, v->valuestring, names, k, hint));
}

/* "watch": counted calls by name, each once, as check metrics name them after "calls:". */
static void load_watch(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    const char *names[IOLAB_NCALLS];
    for (unsigned c = 0; c < IOLAB_NCALLS; c++)
        names[c] = iolab_call_info[c].label;
    const cJSON *v;
    cJSON_ArrayForEach(v, arr)
    {
        unsigned c = 0;
        while (c < IOLAB_NCALLS && strcmp(v->valuestring, names[c]))
            c++;
        char why[640];
        if (c == IOLAB_NCALLS)
            load_diag(ld, v, 0,
                      "\"watch\" names %s, which iolab does not count (the counted calls are "
                      "listed in lessons/README.md and by `iolab list --json`); the pane could "
                      "never show it. If it is a typo: %s",
                      v->valuestring,
                      load_suggest(why, sizeof why, v->valuestring, names, IOLAB_NCALLS,
                                   "name a counted call."));
        else if (sc->nwatch >= LESSON_MAX_WATCH)
            load_diag(ld, v, 0,
                      "\"watch\" names more than %d calls; name the few the step is about.",
                      LESSON_MAX_WATCH);
        else if (!lesson_watch_add(sc, c))
            load_diag(ld, v, 0, "\"watch\" names %s twice; remove one.", v->valuestring);
    }
}

static void load_check_mode(struct load *ld, const cJSON *v, const struct lesson_scenario *sc,
                            struct lesson_check *c)
{
    c->mode = lesson_mode_find(sc, v->valuestring);
    if (c->mode >= 0)
        return;
    const char *ids[LOAD_MAX_CANDIDATES];
    size_t k = 0;
    for (; k < sc->nmodes && k < LOAD_MAX_CANDIDATES; k++)
        ids[k] = sc->modes[k].id;
    char why[128];
    load_diag(ld, v, 0, "this check counts mode \"%s\", which this step does not have; %s",
              v->valuestring,
              load_suggest(why, sizeof why, v->valuestring, ids, k, "name one of its modes."));
}

static void load_check_role(struct load *ld, const cJSON *v, const struct lesson_scenario *sc,
                            struct lesson_check *c, int figure_ok)
{
    enum lesson_role role;
    if (load_role(ld, v, &role) < 0)
        return;
    c->role = (int)role;
    size_t p = 0;
    while (p < sc->nprograms && sc->programs[p].role != role)
        p++;
    if (figure_ok && c->figure == FIGURE_SECONDS)
        load_diag(ld, v, 0, "seconds are counted per mode, not per role; remove \"role\".");
    else if (p == sc->nprograms && !ld->bad_role)
        load_diag(ld, v, 0,
                  "this check counts the %s's figures but the step has no %s program; change "
                  "the role.",
                  v->valuestring, v->valuestring);
}

static void load_check_bounds(struct load *ld, const cJSON *obj, const cJSON *min, const cJSON *max,
                              struct lesson_check *c)
{
    if (!min && !max) {
        load_diag(ld, obj, 0,
                  "a check needs \"min\" (at least), \"max\" (at most) or both; add one.");
        return;
    }
    if (min) {
        c->has_min = true;
        c->min = min->valuedouble;
        if (c->min <= 0)
            load_diag(ld, min, 0,
                      "\"min\" must be above 0, or the check holds before anything runs.");
    }
    if (max) {
        c->has_max = true;
        c->max = max->valuedouble;
        if (c->max < 0)
            load_diag(ld, max, 0, "\"max\" must be 0 or more; no figure is negative.");
        else if (min && c->max < c->min)
            load_diag(ld, max, 0,
                      "\"max\" is below \"min\", so the check can never hold; swap them.");
    }
}

/* A check's "fd": which kind of descriptor its calls count (check_fd_parse). */
static void load_check_fd(struct load *ld, const cJSON *v, struct lesson_check *c)
{
    if (c->figure != FIGURE_CALLS && c->figure != FIGURE_CHECK_CALL_PER_REQ) {
        load_diag(ld, v, 0,
                  "\"fd\" applies to calls:NAME and calls_per_request:NAME metrics only; "
                  "remove it.");
        return;
    }
    int r = check_fd_parse(v->valuestring, c->call, c);
    if (r == -EINVAL)
        load_diag(ld, v, 0,
                  "\"%s\" is not a kind of descriptor; use file, socket, pipe or other (or "
                  "SOURCE>DESTINATION, such as file>socket, for sendfile, splice and "
                  "copy_file_range).",
                  v->valuestring);
    else if (r == -ENOTSUP && strchr(v->valuestring, '>') && iolab_split_one_index(c->call) >= 0)
        load_diag(ld, v, 0,
                  "%s has one descriptor: name its kind alone (\"file\"), not a pair; a pair "
                  "is for sendfile, splice and copy_file_range.",
                  iolab_call_info[c->call].label);
    else if (r == -ENOTSUP)
        load_diag(ld, v, 0,
                  "%s is not counted by kind of descriptor; \"fd\" works with the read and "
                  "write families (read, write, readv, writev, pread64, pwrite64, preadv, "
                  "pwritev, sendto, sendmsg, recvfrom, recvmsg) and with sendfile, splice and "
                  "copy_file_range.",
                  iolab_call_info[c->call].label);
}

/* calls_per_request:NAME divides by the requests the client role completes: without a client
   program the ratio never exists and the check could never pass. */
static void load_check_per_request(struct load *ld, const cJSON *v,
                                   const struct lesson_scenario *sc)
{
    for (size_t p = 0; p < sc->nprograms; p++)
        if (sc->programs[p].role == LESSON_ROLE_CLIENT)
            return;
    load_diag(ld, v, 0,
              "\"%s\" divides by the requests the client completes, but this step has no "
              "client program; use calls:NAME, or add a client.",
              v->valuestring);
}

static void load_checks(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    sc->checks = calloc(n + 1, sizeof *sc->checks);
    if (!sc->checks) {
        ld->nomem = 1;
        return;
    }
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *f[CHECK_NFIELDS + CHECK_NEXTRA];
        struct lesson_check *c = &sc->checks[sc->nchecks++];
        *c = (struct lesson_check){.mode = -1, .role = -1, .program = -1};
        load_fields(ld, obj, load_check_fields, CHECK_NFIELDS + CHECK_NEXTRA, "a check", NULL, f);
        c->text = load_strdup(ld, f[CHECK_TEXT] ? f[CHECK_TEXT]->valuestring : "");
        int figure_ok = 0;
        if (f[CHECK_METRIC])
            load_check_figure(ld, f[CHECK_METRIC], c, &figure_ok);
        if (f[CHECK_MODE])
            load_check_mode(ld, f[CHECK_MODE], sc, c);
        if (f[CHECK_ROLE])
            load_check_role(ld, f[CHECK_ROLE], sc, c, figure_ok);
        if (cJSON_IsObject(obj))
            check_load_extra(ld, obj, f + CHECK_NFIELDS, sc, c, figure_ok);
        if (cJSON_IsObject(obj) && !(figure_ok && c->figure == FIGURE_EXIT))
            load_check_bounds(ld, obj, f[CHECK_MIN], f[CHECK_MAX], c);
        /* An exit check is judged by its "status" alone (check.c): a bound beside it would be
           read by the author as part of the check and by iolab not at all. */
        for (int b = CHECK_MIN; figure_ok && c->figure == FIGURE_EXIT && b <= CHECK_MAX; b++)
            if (f[b])
                load_diag(ld, f[b], 1,
                          "an exit check is judged by \"status\" alone and has no \"%s\"; "
                          "remove it.",
                          load_check_fields[b].name);
        if (f[CHECK_FD] && figure_ok)
            load_check_fd(ld, f[CHECK_FD], c);
        if (figure_ok &&
            (c->figure == FIGURE_CHECK_CALL_PER_REQ || c->figure == FIGURE_CPU_MS_PER_REQ))
            load_check_per_request(ld, f[CHECK_METRIC], sc);
    }
}

static void load_expect_side(struct load *ld, const cJSON *obj, const struct lesson_scenario *sc,
                             struct lesson_expect_side *side)
{
    const cJSON *f[SIDE_NFIELDS];
    *side = (struct lesson_expect_side){.mode = -1, .role = LESSON_ROLE_SERVER};
    load_fields(ld, obj, load_side_fields, SIDE_NFIELDS, "a side of an expected outcome", NULL, f);
    if (f[SIDE_FIGURE])
        load_expect_figure(ld, f[SIDE_FIGURE], side);
    if (f[SIDE_MODE]) {
        struct lesson_check c = {0};
        load_check_mode(ld, f[SIDE_MODE], sc, &c);
        side->mode = c.mode;
    } else if (sc->nmodes && cJSON_IsObject(obj)) {
        load_diag(ld, obj, 0, "this step has modes: say which one with \"mode\".");
    }
    if (f[SIDE_ROLE]) {
        enum lesson_role role;
        if (load_role(ld, f[SIDE_ROLE], &role) == 0)
            side->role = (int)role;
    }
}

static void load_expects(struct load *ld, const cJSON *arr, struct lesson_scenario *sc)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    sc->expects = calloc(n + 1, sizeof *sc->expects);
    if (!sc->expects) {
        ld->nomem = 1;
        return;
    }
    const cJSON *obj;
    cJSON_ArrayForEach(obj, arr)
    {
        const cJSON *f[EXPECT_NFIELDS];
        struct lesson_expect *e = &sc->expects[sc->nexpects++];
        load_fields(ld, obj, load_expect_fields, EXPECT_NFIELDS, "an expected outcome", NULL, f);
        e->text = load_strdup(ld, f[EXPECT_TEXT] ? f[EXPECT_TEXT]->valuestring : "");
        e->why = f[EXPECT_WHY] ? load_strdup(ld, f[EXPECT_WHY]->valuestring) : NULL;
        if (f[EXPECT_LEFT])
            load_expect_side(ld, f[EXPECT_LEFT], sc, &e->left);
        if (f[EXPECT_OP]) {
            const char *op = f[EXPECT_OP]->valuestring;
            if (!strcmp(op, ">"))
                e->op = LESSON_CMP_GT;
            else if (!strcmp(op, "<"))
                e->op = LESSON_CMP_LT;
            else
                load_diag(ld, f[EXPECT_OP], 0, "\"op\" is \">\" or \"<\", not \"%s\".", op);
        }
        if (f[EXPECT_RIGHT]) {
            e->has_right = true;
            load_expect_side(ld, f[EXPECT_RIGHT], sc, &e->right);
        }
        if (f[EXPECT_VALUE])
            e->value = f[EXPECT_VALUE]->valuedouble;
        if (cJSON_IsObject(obj) && !f[EXPECT_RIGHT] == !f[EXPECT_VALUE])
            load_diag(ld, obj, 0,
                      "an expected outcome compares \"left\" with either \"right\" (a figure) "
                      "or \"value\" (a number); give exactly one.");
    }
}

static void load_run(struct load *ld, const cJSON *const *f, struct lesson_step *step)
{
    struct lesson_scenario *sc = calloc(1, sizeof *sc);
    if (!sc) {
        ld->nomem = 1;
        return;
    }
    step->data = sc;
    ld->bad_role = 0;
    /* A sweep first: its parameter is a placeholder the programs' arguments may use. */
    ld->sweep_param = NULL;
    if (f[RUN_SWEEP])
        sc->sweep = sweep_parse(ld, f[RUN_SWEEP]);
    if (f[RUN_PROGRAMS])
        load_programs(ld, f[RUN_PROGRAMS], sc);
    if (f[RUN_MODES])
        load_modes(ld, f[RUN_MODES], sc);
    load_default_mode(ld, f[RUN_DEFAULT_MODE], sc);
    sweep_resolve(ld, f[RUN_SWEEP], sc->sweep, sc);
    if (f[RUN_HEADLINE])
        sc->headline = sweep_headline_parse(ld, f[RUN_HEADLINE], sc, sc->sweep);
    if (f[RUN_FILES])
        load_files(ld, f[RUN_FILES], sc);
    sc->seconds = LOAD_DEFAULT_SECONDS;
    if (f[RUN_SECONDS]) {
        sc->seconds = f[RUN_SECONDS]->valuedouble;
        if (sc->seconds <= 0 || sc->seconds > LOAD_MAX_SECONDS)
            load_diag(ld, f[RUN_SECONDS], 0,
                      "\"seconds\" must be above 0 and at most %d; change it.", LOAD_MAX_SECONDS);
    }
    if (f[RUN_LIMITS])
        load_limits(ld, f[RUN_LIMITS], &sc->limits);
    if (f[RUN_CHECKS])
        load_checks(ld, f[RUN_CHECKS], sc);
    if (f[RUN_EXPECT])
        load_expects(ld, f[RUN_EXPECT], sc);
    if (f[RUN_UNIT])
        sc->unit = load_strdup(ld, f[RUN_UNIT]->valuestring);
    sc->latency = f[RUN_LATENCY] && cJSON_IsTrue(f[RUN_LATENCY]);
    sc->study = -1;
    if (f[RUN_STUDY]) {
        size_t p = 0;
        while (p < sc->nprograms && strcmp(sc->programs[p].name, f[RUN_STUDY]->valuestring))
            p++;
        if (p < sc->nprograms)
            sc->study = (int)p;
        else
            load_diag(ld, f[RUN_STUDY], 0,
                      "\"study\" names program \"%s\", which this step does not have; name one "
                      "of its programs.",
                      f[RUN_STUDY]->valuestring);
    } else if (sc->nprograms) {
        /* Servers come first: the first program is the server, or the only kind there is. */
        sc->study = 0;
    }
    if (f[RUN_PREDICT]) /* after the modes and programs it names */
        load_predicts(ld, f[RUN_PREDICT], sc);
    if (f[RUN_WATCH])
        load_watch(ld, f[RUN_WATCH], sc);
    else
        lesson_watch_derive(sc);
}

static void kind_run_strv_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void kind_run_free(void *data)
{
    struct lesson_scenario *sc = data;
    if (!sc)
        return;
    for (size_t i = 0; i < sc->nprograms; i++) {
        struct lesson_program *p = &sc->programs[i];
        free(p->name);
        free(p->program);
        free(p->path);
        kind_run_strv_free(p->args, p->nargs);
        free(p->ready);
        free(p->faults);
    }
    free(sc->programs);
    for (size_t i = 0; i < sc->nmodes; i++) {
        struct lesson_mode *m = &sc->modes[i];
        free(m->id);
        free(m->title);
        free(m->text);
        kind_run_strv_free(m->args, m->nargs);
        free(m->path);
    }
    free(sc->modes);
    for (size_t i = 0; i < sc->nfiles; i++)
        free(sc->files[i].name);
    free(sc->files);
    for (size_t i = 0; i < sc->nchecks; i++) {
        free(sc->checks[i].text);
        free(sc->checks[i].match);
        free(sc->checks[i].fail);
        free(sc->checks[i].digest);
    }
    free(sc->checks);
    for (size_t i = 0; i < sc->nexpects; i++) {
        free(sc->expects[i].text);
        free(sc->expects[i].why);
    }
    free(sc->expects);
    free(sc->unit);
    lesson_predicts_free(sc);
    sweep_free(sc->sweep);
    sweep_headline_free(sc->headline);
    free(sc);
}

static const struct lesson_scenario *kind_run_scenario(const struct lesson_step *step)
{
    return step->data;
}

static const struct lesson_record *const kind_run_records[] = {&lesson_record_predict,
                                                               &lesson_record_sweep, NULL};

const struct lesson_kind lesson_kind_run = {
    .name = "run",
    .fields = load_run_fields,
    .nfields = RUN_NFIELDS,
    .parse = load_run,
    .free = kind_run_free,
    .scenario = kind_run_scenario,
    .records = kind_run_records,
};
