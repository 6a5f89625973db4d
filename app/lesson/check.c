/*
 * check: evaluation of step checks (see check.h for which figure a check reads). Metrics are a
 * const table; "calls:NAME" takes its names from the counter page's IOLAB_CALLS list, so a check
 * can name any call the shim counts and nothing else.
 */
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define CHECK_CALLS_PREFIX "calls:"

struct check_metric_def {
    const char *name;
    const char *unit; /* for check_describe(); NULL: the count stands alone */
    enum check_metric_kind kind;
};

static const struct check_metric_def check_metrics[] = {
    [CHECK_METRIC_SECONDS] = {.name = "seconds", .unit = "s", .kind = CHECK_METRIC_SECONDS},
    [CHECK_METRIC_REQUESTS] = {.name = "requests",
                               .unit = "requests",
                               .kind = CHECK_METRIC_REQUESTS},
    [CHECK_METRIC_BYTES] = {.name = "bytes", .unit = "bytes", .kind = CHECK_METRIC_BYTES},
};
#define CHECK_NMETRICS (sizeof check_metrics / sizeof *check_metrics)

int check_metric_parse(const char *metric, struct check_metric *out)
{
    if (!metric)
        return -EINVAL;
    for (size_t i = 0; i < CHECK_NMETRICS; i++)
        if (!strcmp(metric, check_metrics[i].name)) {
            *out = (struct check_metric){.kind = check_metrics[i].kind};
            return 0;
        }
    if (strncmp(metric, CHECK_CALLS_PREFIX, strlen(CHECK_CALLS_PREFIX)))
        return -EINVAL;
    const char *label = metric + strlen(CHECK_CALLS_PREFIX);
    for (int c = 0; c < IOLAB_NCALLS; c++)
        if (!strcmp(label, iolab_call_info[c].label)) {
            *out = (struct check_metric){.kind = CHECK_METRIC_CALLS, .call = c};
            return 0;
        }
    return -EINVAL;
}

const char *check_metric_name(size_t i, char *buf, size_t len)
{
    if (i < CHECK_NMETRICS)
        snprintf(buf, len, "%s", check_metrics[i].name);
    else if (i - CHECK_NMETRICS < IOLAB_NCALLS)
        snprintf(buf, len, CHECK_CALLS_PREFIX "%s", iolab_call_info[i - CHECK_NMETRICS].label);
    else
        return NULL;
    return buf;
}

static int check_role_index(const char *role)
{
    for (int r = 0; r < LESSON_NROLES; r++)
        if (role && !strcmp(role, lesson_role_name(r)))
            return r;
    return -1;
}

/* The metric's figure in one mode's facts. */
static double check_mode_value(const struct check_metric *m, int role,
                               const struct check_mode_facts *f)
{
    if (m->kind == CHECK_METRIC_SECONDS)
        return f->seconds;
    if (m->kind == CHECK_METRIC_CALLS && role < 0) {
        double sum = 0;
        for (int r = 0; r < LESSON_NROLES; r++)
            sum += (double)f->roles[r].calls[m->call];
        return sum;
    }
    const struct check_role_facts *rf = &f->roles[role < 0 ? LESSON_ROLE_CLIENT : role];
    switch (m->kind) {
    case CHECK_METRIC_REQUESTS:
        return (double)rf->requests;
    case CHECK_METRIC_BYTES:
        return (double)rf->bytes;
    default:
        return (double)rf->calls[m->call];
    }
}

int check_eval(const struct lesson_check *check, const struct check_facts *facts,
               struct check_result *out)
{
    struct check_metric m;
    if (check_metric_parse(check->metric, &m) < 0)
        return -EINVAL;
    int role = check_role_index(check->role);
    double value = 0;
    for (size_t i = 0; i < facts->nmodes; i++) {
        const struct check_mode_facts *f = &facts->modes[i];
        if (check->mode && (!f->mode || strcmp(f->mode, check->mode)))
            continue;
        value += check_mode_value(&m, role, f);
    }
    *out = (struct check_result){.holds = value >= check->min, .value = value, .min = check->min};
    return 0;
}

size_t check_eval_all(const struct lesson_scenario *sc, const struct check_facts *facts,
                      struct check_result *results)
{
    size_t holding = 0;
    for (size_t i = 0; i < sc->nchecks; i++) {
        if (check_eval(&sc->checks[i], facts, &results[i]) < 0)
            results[i] = (struct check_result){.min = sc->checks[i].min};
        holding += results[i].holds;
    }
    return holding;
}

int check_describe(const struct lesson_check *check, const struct check_result *r, char *buf,
                   size_t len)
{
    struct check_metric m;
    char unit[64];
    if (check_metric_parse(check->metric, &m) < 0)
        return snprintf(buf, len, "%s: unknown metric", check->metric);
    if (m.kind == CHECK_METRIC_CALLS)
        snprintf(unit, sizeof unit, "%s calls", iolab_call_info[m.call].label);
    else
        snprintf(unit, sizeof unit, "%s", check_metrics[m.kind].unit);
    const char *scope = check->mode ? check->mode : "all modes";
    /* Seconds get one decimal so that progress visibly moves; counts are whole numbers. */
    if (m.kind == CHECK_METRIC_SECONDS)
        return snprintf(buf, len, "%s: %.1f %s of %g %s", scope, r->value, unit, r->min, unit);
    return snprintf(buf, len, "%s: %.0f of %g %s", scope, r->value, r->min, unit);
}
