/*
 * sweep: the run kind's "sweep" and "headline" keys (see sweep.h), parsed for kind_run.c, and
 * the derived step that runs one value. The parser reports every problem at the item concerned;
 * the values are kept as written because that is what the programs get on their command line.
 */
#include "sweep.h"

#include "check.h"
#include "kind.h"
#include "load.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SWEEP_DEFAULT_SECONDS 2
#define SWEEP_MAX_SECONDS     600

enum {
    SW_PARAM,
    SW_VALUES,
    SW_FIGURE,
    SW_ROLE,
    SW_SECONDS,
    SW_MODES,
    SW_SCALE,
    SW_DEFAULT,
    SW_TABLE,
    SW_N
};
static const struct load_field sweep_fields[] = {
    [SW_PARAM] = {"param", LOAD_STRING, 1},     [SW_VALUES] = {"values", LOAD_STRINGS, 0},
    [SW_FIGURE] = {"figure", LOAD_STRING, 1},   [SW_ROLE] = {"role", LOAD_STRING, 0},
    [SW_SECONDS] = {"seconds", LOAD_NUMBER, 0}, [SW_MODES] = {"modes", LOAD_STRINGS, 0},
    [SW_SCALE] = {"scale", LOAD_STRING, 0},     [SW_DEFAULT] = {"default", LOAD_STRING, 0},
    [SW_TABLE] = {"table", LOAD_STRINGS, 0},
};

enum { HL_SEED, HL_TEXT, HL_MODE, HL_BASE, HL_FIGURE, HL_RATIO, HL_WHY, HL_AT, HL_N };
static const struct load_field headline_fields[] = {
    [HL_SEED] = {"seed", LOAD_STRING, 1},     [HL_TEXT] = {"text", LOAD_STRING, 1},
    [HL_MODE] = {"mode", LOAD_STRING, 1},     [HL_BASE] = {"base", LOAD_STRING, 1},
    [HL_FIGURE] = {"figure", LOAD_STRING, 1}, [HL_RATIO] = {"ratio", LOAD_NUMBER, 1},
    [HL_WHY] = {"why", LOAD_STRING, 0},       [HL_AT] = {"at", LOAD_STRING, 0},
};

const char *sweep_title(const struct lesson_sweep *sw, char *buf, size_t len)
{
    if (sw->figure == FIGURE_ONE_CALL_PER_REQ && sw->call < IOLAB_NCALLS)
        snprintf(buf, len, "%s calls per request by %s", iolab_call_info[sw->call].label,
                 sw->param);
    else
        snprintf(buf, len, "%s by %s", figure_at(sw->figure) ? figure_at(sw->figure)->label : "?",
                 sw->param);
    return buf;
}

const struct lesson_sweep *lesson_step_sweep(const struct lesson_step *step)
{
    const struct lesson_scenario *sc = step ? lesson_step_scenario(step) : NULL;
    return sc ? sc->sweep : NULL;
}

const struct lesson_headline *lesson_step_headline(const struct lesson_step *step)
{
    const struct lesson_scenario *sc = step ? lesson_step_scenario(step) : NULL;
    return sc ? sc->headline : NULL;
}

/* A figure by name; reports an unknown one with a suggestion. */
static int sweep_figure_parse(struct load *ld, const cJSON *v, enum figure_id *fig, unsigned *call)
{
    return load_figure(ld, v, FIGURE_IN_SWEEP, fig, call);
}

/* "4K" -> 4096, "1000" -> 1000: a whole number with an optional K, M or G; -1 when not. */
static double sweep_number(const char *s, bool *is_size)
{
    size_t digits = strspn(s, "0123456789");
    if (!digits || digits > 12)
        return -1;
    double v = strtod(s, NULL);
    static const char sfx[] = "KMG";
    const char *u = s[digits] ? strchr(sfx, s[digits]) : NULL;
    if (!s[digits])
        return v;
    if (!u || s[digits + 1])
        return -1;
    *is_size = true;
    return v * pow(1024.0, (double)(u - sfx + 1));
}

static void sweep_values(struct load *ld, const cJSON *arr, struct lesson_sweep *sw)
{
    size_t n = (size_t)cJSON_GetArraySize(arr);
    if (n < 1 || n > SWEEP_MAX_VALUES) {
        load_diag(ld, arr, 0, "a sweep takes 1 to %d values; this one has %zu.", SWEEP_MAX_VALUES,
                  n);
        return;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        double x = sweep_number(e->valuestring, &sw->bytes_x);
        if (x <= 0) {
            load_diag(ld, e, 0,
                      "sweep value \"%s\" is not a positive whole number (1000) or size (\"4K\", "
                      "\"1M\"); the chart needs a number for each.",
                      e->valuestring);
            continue;
        }
        if (sw->nvalues && x <= sw->x[sw->nvalues - 1]) {
            load_diag(ld, e, 0,
                      "sweep values go from the smallest to the largest; \"%s\" comes after a "
                      "larger or equal one.",
                      e->valuestring);
            continue;
        }
        sw->text[sw->nvalues] = load_strdup(ld, e->valuestring);
        sw->x[sw->nvalues++] = x;
    }
}

/*
 * "table": the figures the table shows under the sweep's own, each a figure every point keeps
 * (sweeprun.h): a per-call figure is measured only as the sweep's own figure, so it cannot be a
 * row, and the sweep's figure is already the first row.
 */
static void sweep_table(struct load *ld, const cJSON *arr, struct lesson_sweep *sw)
{
    sw->has_table = true;
    if (cJSON_GetArraySize(arr) > SWEEP_MAX_TABLE) {
        load_diag(ld, arr, 0,
                  "a sweep's \"table\" names at most %d figures, the ones the step's text sends "
                  "the learner to; at 80x24 more do not fit.",
                  SWEEP_MAX_TABLE);
        return;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, arr)
    {
        enum figure_id fig;
        unsigned call = 0;
        if (sweep_figure_parse(ld, e, &fig, &call) < 0)
            continue;
        bool dup = fig == sw->figure;
        for (size_t i = 0; i < sw->ntable; i++)
            dup |= sw->table[i] == fig;
        if (fig == FIGURE_ONE_CALL_PER_REQ)
            load_diag(ld, e, 0,
                      "\"%s\" is measured only as a sweep's own figure, not as a row of its "
                      "table; use calls_per_request, or make it the sweep's \"figure\".",
                      e->valuestring);
        else if (dup)
            load_diag(ld, e, 0,
                      "\"%s\" is already in the table (the sweep's own figure is its first row); "
                      "name each figure once.",
                      e->valuestring);
        else
            sw->table[sw->ntable++] = fig;
    }
}

struct lesson_sweep *sweep_parse(struct load *ld, const cJSON *v)
{
    const cJSON *f[SW_N];
    load_fields(ld, v, sweep_fields, SW_N, "a sweep", NULL, f);
    struct lesson_sweep *sw = calloc(1, sizeof *sw);
    if (!sw) {
        ld->nomem = 1;
        return NULL;
    }
    sw->role = LESSON_ROLE_SERVER;
    sw->seconds = SWEEP_DEFAULT_SECONDS;
    /* No figure until one parses, so that a headline is not also blamed for differing from a
       figure that was already reported as missing or unknown. */
    sw->figure = FIGURE_NIDS;
    if (f[SW_PARAM]) {
        static const char *const builtin[] = {LESSON_PLACEHOLDERS};
        const char *p = f[SW_PARAM]->valuestring;
        bool bad = !p[0] || strspn(p, "abcdefghijklmnopqrstuvwxyz_0123456789") != strlen(p) ||
                   strlen(p) >= 64;
        for (size_t k = 0; k < sizeof builtin / sizeof *builtin; k++)
            if (!strcmp(p, builtin[k]))
                bad = true;
        if (bad)
            load_diag(ld, f[SW_PARAM], 0,
                      "sweep parameter \"%s\" must be a lowercase word that is not a built-in "
                      "placeholder (port, host, workdir, seconds): \"size\", \"connections\".",
                      p);
        else
            sw->param = load_strdup(ld, p);
    }
    if (f[SW_VALUES])
        sweep_values(ld, f[SW_VALUES], sw);
    else if (cJSON_IsObject(v))
        load_diag(ld, v, 0, "a sweep needs \"values\": [\"8\", \"64\", \"4K\"] for example.");
    if (f[SW_FIGURE])
        sweep_figure_parse(ld, f[SW_FIGURE], &sw->figure, &sw->call);
    if (f[SW_ROLE]) {
        enum lesson_role role;
        if (load_role(ld, f[SW_ROLE], &role) == 0)
            sw->role = (int)role;
    }
    if (f[SW_SECONDS]) {
        sw->seconds = f[SW_SECONDS]->valuedouble;
        if (sw->seconds < 0.2 || sw->seconds > SWEEP_MAX_SECONDS)
            load_diag(ld, f[SW_SECONDS], 0,
                      "a sweep point's \"seconds\" must be between 0.2 and %d; change it.",
                      SWEEP_MAX_SECONDS);
    }
    /* Log scale when the values span more than a factor of 16, as sizes and connection counts
       do; the author may say otherwise. */
    sw->log_x = sw->nvalues > 1 && sw->x[sw->nvalues - 1] / sw->x[0] > 16;
    if (f[SW_SCALE]) {
        const char *s = f[SW_SCALE]->valuestring;
        if (!strcmp(s, "log"))
            sw->log_x = true;
        else if (!strcmp(s, "linear"))
            sw->log_x = false;
        else
            load_diag(ld, f[SW_SCALE], 0, "\"scale\" is \"log\" or \"linear\", not \"%s\".", s);
    }
    if (f[SW_DEFAULT]) {
        size_t i = 0;
        while (i < sw->nvalues && strcmp(sw->text[i], f[SW_DEFAULT]->valuestring))
            i++;
        if (i < sw->nvalues)
            sw->default_value = i;
        else
            load_diag(ld, f[SW_DEFAULT], 0,
                      "the sweep's \"default\" \"%s\" is not one of its values; name one.",
                      f[SW_DEFAULT]->valuestring);
    }
    if (f[SW_TABLE])
        sweep_table(ld, f[SW_TABLE], sw);
    ld->sweep_param = sw->param;
    return sw;
}

/* Whether any argument of the step mentions {param}. */
static bool sweep_used(const struct lesson_scenario *sc, const char *param)
{
    char ph[80];
    snprintf(ph, sizeof ph, "{%s}", param);
    for (size_t p = 0; p < sc->nprograms; p++)
        for (size_t a = 0; a < sc->programs[p].nargs; a++)
            if (strstr(sc->programs[p].args[a], ph))
                return true;
    for (size_t m = 0; m < sc->nmodes; m++)
        for (size_t a = 0; a < sc->modes[m].nargs; a++)
            if (strstr(sc->modes[m].args[a], ph))
                return true;
    return false;
}

/* A mode named in a sweep or a headline; reports an unknown one. */
static int sweep_mode(struct load *ld, const cJSON *v, const char *name,
                      const struct lesson_scenario *sc)
{
    int m = lesson_mode_find(sc, name);
    if (m >= 0)
        return m;
    const char *ids[LOAD_MAX_CANDIDATES];
    size_t k = 0;
    for (; k < sc->nmodes && k < LOAD_MAX_CANDIDATES; k++)
        ids[k] = sc->modes[k].id;
    char why[128];
    load_diag(ld, v, 0, "mode \"%s\" is not one of this step's modes; %s", name,
              load_suggest(why, sizeof why, name, ids, k, "name one of them."));
    return -1;
}

void sweep_resolve(struct load *ld, const cJSON *v, struct lesson_sweep *sw,
                   const struct lesson_scenario *sc)
{
    ld->sweep_param = NULL;
    if (!sw)
        return;
    if (sw->param && !sweep_used(sc, sw->param))
        load_diag(ld, v, 0,
                  "the sweep's {%s} appears in no program's or mode's arguments, so every point "
                  "would run the same; use it in \"args\".",
                  sw->param);
    const cJSON *modes = cJSON_IsObject(v) ? cJSON_GetObjectItemCaseSensitive(v, "modes") : NULL;
    if (cJSON_IsArray(modes) && cJSON_GetArraySize(modes) > 0) {
        const cJSON *e;
        cJSON_ArrayForEach(e, modes)
        {
            if (!cJSON_IsString(e))
                continue;
            int m = sweep_mode(ld, e, e->valuestring, sc);
            if (m >= 0 && sw->nmodes < SWEEP_MAX_MODES)
                sw->modes[sw->nmodes++] = m;
        }
    } else if (sc->nmodes) {
        for (size_t m = 0; m < sc->nmodes && sw->nmodes < SWEEP_MAX_MODES; m++)
            sw->modes[sw->nmodes++] = (int)m;
    } else {
        sw->modes[sw->nmodes++] = -1;
    }
}

/*
 * A sweep step's headline is compared in the sweep's figure (`iolab bench` and the chart measure
 * only that one), so a headline in another figure would set the seed's ratio beside a ratio of
 * something else; it is reported rather than silently compared.
 */
static void sweep_headline_figure(struct load *ld, const cJSON *v, const struct lesson_headline *h,
                                  const struct lesson_sweep *sw)
{
    if (h->figure != sw->figure)
        load_diag(ld, v, 0,
                  "the headline's figure \"%s\" is not its sweep's (%s): the sweep measures only "
                  "its own, so the seed's ratio would stand beside another figure; use the "
                  "sweep's.",
                  v->valuestring, figure_at(sw->figure)->name);
    else if (h->figure == FIGURE_ONE_CALL_PER_REQ && h->call != sw->call)
        load_diag(ld, v, 0,
                  "the headline's figure \"%s\" counts another call than its sweep's: the sweep "
                  "measures only its own, so the seed's ratio would stand beside another figure; "
                  "name the sweep's call.",
                  v->valuestring);
}

struct lesson_headline *sweep_headline_parse(struct load *ld, const cJSON *v,
                                             const struct lesson_scenario *sc,
                                             const struct lesson_sweep *sw)
{
    const cJSON *f[HL_N];
    load_fields(ld, v, headline_fields, HL_N, "a headline", NULL, f);
    struct lesson_headline *h = calloc(1, sizeof *h);
    if (!h) {
        ld->nomem = 1;
        return NULL;
    }
    h->mode = h->base = -1;
    h->at = -1;
    h->seed = load_strdup(ld, f[HL_SEED] ? f[HL_SEED]->valuestring : "");
    h->text = load_strdup(ld, f[HL_TEXT] ? f[HL_TEXT]->valuestring : "");
    h->why = f[HL_WHY] ? load_strdup(ld, f[HL_WHY]->valuestring) : NULL;
    if (f[HL_MODE])
        h->mode = sweep_mode(ld, f[HL_MODE], f[HL_MODE]->valuestring, sc);
    if (f[HL_BASE])
        h->base = sweep_mode(ld, f[HL_BASE], f[HL_BASE]->valuestring, sc);
    if (f[HL_FIGURE] && sweep_figure_parse(ld, f[HL_FIGURE], &h->figure, &h->call) == 0 && sw &&
        sw->figure < FIGURE_NIDS)
        sweep_headline_figure(ld, f[HL_FIGURE], h, sw);
    if (f[HL_RATIO]) {
        h->ratio = f[HL_RATIO]->valuedouble;
        if (!(h->ratio > 0))
            load_diag(ld, f[HL_RATIO], 0, "a headline's \"ratio\" (mode / base) must be above 0.");
    }
    if (f[HL_AT]) {
        size_t i = 0;
        while (sw && i < sw->nvalues && strcmp(sw->text[i], f[HL_AT]->valuestring))
            i++;
        if (sw && i < sw->nvalues)
            h->at = (int)i;
        else
            load_diag(ld, f[HL_AT], 0,
                      "\"at\" names a value of the step's sweep, and \"%s\" is not one.",
                      f[HL_AT]->valuestring);
    }
    return h;
}

void sweep_free(struct lesson_sweep *sw)
{
    if (!sw)
        return;
    free(sw->param);
    for (size_t i = 0; i < sw->nvalues; i++)
        free(sw->text[i]);
    free(sw);
}

void sweep_headline_free(struct lesson_headline *h)
{
    if (!h)
        return;
    free(h->seed);
    free(h->text);
    free(h->why);
    free(h);
}

/* A copy of args with {param} replaced by value in each; NULL when out of memory. */
static char **sweep_args(char **args, size_t n, const char *ph, const char *value)
{
    char **out = calloc(n + 1, sizeof *out);
    if (!out)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *a = args[i];
        size_t len = strlen(a) + 1, hits = 0;
        for (const char *s = strstr(a, ph); s; s = strstr(s + 1, ph))
            hits++;
        len += hits * strlen(value);
        char *o = out[i] = malloc(len);
        if (!o) {
            for (size_t k = 0; k < i; k++)
                free(out[k]);
            free(out);
            return NULL;
        }
        o[0] = '\0';
        for (const char *s; (s = strstr(a, ph)); a = s + strlen(ph)) {
            strncat(o, a, (size_t)(s - a));
            strcat(o, value);
        }
        strcat(o, a);
    }
    return out;
}

static void sweep_argv_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

void sweep_derived_free(struct sweep_derived *d)
{
    for (size_t i = 0; d->programs && i < d->sc.nprograms; i++)
        sweep_argv_free(d->programs[i].args, d->programs[i].nargs);
    for (size_t i = 0; d->modes && i < d->sc.nmodes; i++)
        sweep_argv_free(d->modes[i].args, d->modes[i].nargs);
    free(d->programs);
    free(d->modes);
    memset(d, 0, sizeof *d);
}

int sweep_derive(const struct lesson_scenario *sc, size_t value, struct sweep_derived *out)
{
    memset(out, 0, sizeof *out);
    if (!sc || !sc->sweep || value >= sc->sweep->nvalues)
        return -EINVAL;
    char ph[80];
    snprintf(ph, sizeof ph, "{%s}", sc->sweep->param);
    /* The programs get the number ("4096" for "4K"): not every program reads suffixes. */
    char text[32];
    snprintf(text, sizeof text, "%.0f", sc->sweep->x[value]);
    out->sc = *sc;
    out->programs = calloc(sc->nprograms + 1, sizeof *out->programs);
    out->modes = calloc(sc->nmodes + 1, sizeof *out->modes);
    if (!out->programs || !out->modes)
        goto nomem;
    for (size_t i = 0; i < sc->nprograms; i++) {
        out->programs[i] = sc->programs[i];
        out->programs[i].args = NULL;
    }
    for (size_t i = 0; i < sc->nmodes; i++) {
        out->modes[i] = sc->modes[i];
        out->modes[i].args = NULL;
    }
    out->sc.programs = out->programs;
    out->sc.modes = out->modes;
    for (size_t i = 0; i < sc->nprograms; i++)
        if (!(out->programs[i].args =
                  sweep_args(sc->programs[i].args, sc->programs[i].nargs, ph, text)))
            goto nomem;
    for (size_t i = 0; i < sc->nmodes; i++)
        if (!(out->modes[i].args = sweep_args(sc->modes[i].args, sc->modes[i].nargs, ph, text)))
            goto nomem;
    /* The derived scenario is a plain run of one value: it has no sweep of its own. */
    out->sc.sweep = NULL;
    return 0;
nomem:
    sweep_derived_free(out);
    return -ENOMEM;
}

const char *sweep_x_label(const struct lesson_sweep *sw, double x, char *buf, size_t len)
{
    if (sw && sw->bytes_x) {
        static const char *const sfx[] = {"", "K", "M", "G"};
        int i = 0;
        while (x >= 1024 && i < 3 && fmod(x, 1024) == 0) {
            x /= 1024;
            i++;
        }
        snprintf(buf, len, "%.0f%s", x, sfx[i]);
    } else if (x >= 10000 && fmod(x, 1000) == 0) {
        snprintf(buf, len, "%.0fk", x / 1000);
    } else {
        snprintf(buf, len, "%.4g", x);
    }
    return buf;
}
