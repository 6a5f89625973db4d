/*
 * check: evaluation of step checks (see check.h for which figure a check reads). Metric names
 * are a const table; "calls:NAME" takes its names from the counter page's IOLAB_CALLS list, so a
 * check can name any call the shim counts and nothing else. Names are parsed once, by the
 * loader; evaluation works on the typed check.
 */
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define CHECK_CALLS_PREFIX "calls:"

struct check_metric_def {
    const char *name;
    const char *unit; /* for check_describe() */
};

static const struct check_metric_def check_metrics[] = {
    [LESSON_METRIC_SECONDS] = {.name = "seconds", .unit = "s"},
    [LESSON_METRIC_REQUESTS] = {.name = "requests", .unit = "requests"},
    [LESSON_METRIC_BYTES] = {.name = "bytes", .unit = "bytes"},
};
#define CHECK_NMETRICS (sizeof check_metrics / sizeof *check_metrics)

int check_metric_parse(const char *name, enum lesson_metric *metric, unsigned *call)
{
    if (!name)
        return -EINVAL;
    for (size_t i = 0; i < CHECK_NMETRICS; i++)
        if (!strcmp(name, check_metrics[i].name)) {
            *metric = (enum lesson_metric)i;
            *call = 0;
            return 0;
        }
    if (strncmp(name, CHECK_CALLS_PREFIX, strlen(CHECK_CALLS_PREFIX)))
        return -EINVAL;
    const char *label = name + strlen(CHECK_CALLS_PREFIX);
    for (unsigned c = 0; c < IOLAB_NCALLS; c++)
        if (!strcmp(label, iolab_call_info[c].label)) {
            *metric = LESSON_METRIC_CALLS;
            *call = c;
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

static int check_fd_kind(const char *name, size_t len)
{
    for (int k = 0; k < IOLAB_NFDKINDS; k++)
        if (strlen(iolab_fd_kind_name[k]) == len && !strncmp(name, iolab_fd_kind_name[k], len))
            return k;
    return -1;
}

int check_fd_parse(const char *text, unsigned call, struct lesson_check *c)
{
    const char *gt = strchr(text, '>');
    size_t len = gt ? (size_t)(gt - text) : strlen(text);
    int kind = check_fd_kind(text, len), to = gt ? check_fd_kind(gt + 1, strlen(gt + 1)) : -1;
    if (kind < 0 || (gt && to < 0))
        return -EINVAL;
    bool two = iolab_split_two_index(call) >= 0;
    if ((iolab_split_one_index(call) < 0 && !two) || (gt && !two))
        return -ENOTSUP;
    c->fd_kind = (unsigned)kind + 1;
    c->fd_to = gt ? (unsigned)to + 1 : 0;
    return 0;
}

/* A role's count of the check's call, on the check's kind of descriptor when it names one. */
static double check_calls(const struct lesson_check *c, const struct check_role_facts *rf)
{
    if (!c->fd_kind)
        return (double)rf->calls[c->call];
    return (double)iolab_fdsplit_count(&rf->fd, c->call, (int)c->fd_kind - 1, (int)c->fd_to - 1);
}

/* The metric's figure in one mode's facts. */
static double check_mode_value(const struct lesson_check *c, const struct check_mode_facts *f)
{
    if (c->metric == LESSON_METRIC_SECONDS)
        return f->seconds;
    if (c->metric == LESSON_METRIC_CALLS && c->role < 0) {
        double sum = 0;
        for (int r = 0; r < LESSON_NROLES; r++)
            sum += check_calls(c, &f->roles[r]);
        return sum;
    }
    const struct check_role_facts *rf = &f->roles[c->role < 0 ? LESSON_ROLE_CLIENT : c->role];
    switch (c->metric) {
    case LESSON_METRIC_REQUESTS:
        return (double)rf->requests;
    case LESSON_METRIC_BYTES:
        return (double)rf->bytes;
    default:
        return check_calls(c, rf);
    }
}

int check_eval(const struct lesson_check *check, const struct check_facts *facts,
               struct check_result *out)
{
    if ((unsigned)check->metric > LESSON_METRIC_CALLS || check->role >= LESSON_NROLES ||
        (check->metric == LESSON_METRIC_CALLS && check->call >= IOLAB_NCALLS))
        return -EINVAL;
    double value = 0, seconds = 0;
    for (size_t i = 0; i < facts->nmodes; i++) {
        const struct check_mode_facts *f = &facts->modes[i];
        if (check->mode >= 0 && f->mode != check->mode)
            continue;
        value += check_mode_value(check, f);
        seconds += f->seconds;
    }
    bool holds = (!check->has_min || value >= check->min) &&
                 (!check->has_max || (value <= check->max && seconds > 0));
    *out = (struct check_result){.holds = holds, .value = value, .seconds = seconds};
    return 0;
}

size_t check_eval_all(const struct lesson_scenario *sc, const struct check_facts *facts,
                      struct check_result *results)
{
    size_t holding = 0;
    for (size_t i = 0; i < sc->nchecks; i++) {
        if (check_eval(&sc->checks[i], facts, &results[i]) < 0)
            results[i] = (struct check_result){0};
        holding += results[i].holds;
    }
    return holding;
}

/* A check's fd_kind or fd_to (kind + 1) as a word. */
static const char *check_fd_name(unsigned k)
{
    return k >= 1 && k <= IOLAB_NFDKINDS ? iolab_fd_kind_name[k - 1] : "?";
}

int check_describe(const struct lesson_check *check, const struct lesson_scenario *sc,
                   const struct check_result *r, char *buf, size_t len)
{
    char unit[64];
    if (check->metric == LESSON_METRIC_CALLS && check->fd_kind)
        snprintf(unit, sizeof unit, "%s calls on a %s%s%s",
                 check->call < IOLAB_NCALLS ? iolab_call_info[check->call].label : "?",
                 check_fd_name(check->fd_kind), check->fd_to ? " to a " : "",
                 check->fd_to ? check_fd_name(check->fd_to) : "");
    else if (check->metric == LESSON_METRIC_CALLS)
        snprintf(unit, sizeof unit, "%s calls",
                 check->call < IOLAB_NCALLS ? iolab_call_info[check->call].label : "?");
    else
        snprintf(unit, sizeof unit, "%s",
                 (unsigned)check->metric < CHECK_NMETRICS ? check_metrics[check->metric].unit
                                                          : "?");
    /* The scope: the check's mode, every mode together, or nothing when there are no modes. */
    char scope[64] = "";
    if (check->mode >= 0 && sc && (size_t)check->mode < sc->nmodes)
        snprintf(scope, sizeof scope, "%s: ", sc->modes[check->mode].id);
    else if (!sc || sc->nmodes > 1)
        snprintf(scope, sizeof scope, "all modes: ");
    /* Seconds get one decimal so that progress visibly moves; counts are whole numbers. */
    bool secs = check->metric == LESSON_METRIC_SECONDS;
    if (!check->has_max)
        return secs ? snprintf(buf, len, "%s%.1f %s of %g %s", scope, r->value, unit, check->min,
                               unit)
                    : snprintf(buf, len, "%s%.0f of %g %s", scope, r->value, check->min, unit);
    if (r->seconds <= 0)
        return snprintf(buf, len, "%snot run yet (%s, at most %g)", scope, unit, check->max);
    if (!check->has_min)
        return snprintf(buf, len, secs ? "%s%.1f %s, at most %g" : "%s%.0f %s, at most %g", scope,
                        r->value, unit, check->max);
    return snprintf(buf, len,
                    secs ? "%s%.1f %s, between %g and %g" : "%s%.0f %s, between %g and %g", scope,
                    r->value, unit, check->min, check->max);
}
