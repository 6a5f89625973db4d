/*
 * check: evaluation of step checks (see check.h for which figure a check reads). The names a
 * check's "metric" takes are the figure table's (metrics/figure.h) that a check accepts;
 * "calls:NAME" takes its names from the counter page's IOLAB_CALLS list, so a check can name any
 * call the shim counts and nothing else. Names are parsed once, by the loader; evaluation works
 * on the typed check.
 */
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *check_unit(enum figure_id m)
{
    const struct figure_def *f = figure_at(m);
    return f ? f->unit : "?";
}

int check_figure_parse(const char *name, enum figure_id *figure, unsigned *call)
{
    const struct figure_def *f = figure_find_in(name, FIGURE_IN_CHECK, call);
    if (!f)
        return -EINVAL;
    *figure = figure_id_of(f);
    return 0;
}

const char *check_figure_name(size_t i, char *buf, size_t len)
{
    /* The plain names in the table's order, then each per-call name with every counted call. */
    for (size_t k = 0; k < figure_count(); k++) {
        const struct figure_def *f = figure_at((enum figure_id)k);
        if (!(f->where & FIGURE_IN_CHECK) || f->per_call)
            continue;
        if (i-- == 0) {
            snprintf(buf, len, "%s", f->name);
            return buf;
        }
    }
    for (size_t k = 0; k < figure_count(); k++) {
        const struct figure_def *f = figure_at((enum figure_id)k);
        if (!(f->where & FIGURE_IN_CHECK) || !f->per_call)
            continue;
        if (i < IOLAB_NCALLS) {
            snprintf(buf, len, "%s%s", f->name, iolab_call_info[i].label);
            return buf;
        }
        i -= IOLAB_NCALLS;
    }
    return NULL;
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

/* The role a check's figure is computed for: its own, or the default check.h gives (every
   role's calls for a call count, the server's CPU, the client's figures otherwise). */
static int check_role(const struct lesson_check *c)
{
    if (c->role >= 0)
        return c->role;
    if (c->figure == FIGURE_CALLS || c->figure == FIGURE_CHECK_CALL_PER_REQ ||
        c->figure == FIGURE_CALL_BYTES_PER_BYTE)
        return -1;
    return c->figure == FIGURE_CPU_MS_PER_REQ ? LESSON_ROLE_SERVER : LESSON_ROLE_CLIENT;
}

/* Whether a check's figure is a ratio over the bytes served (figure.h): it can go either way,
   and has no value while nothing was served. */
static bool check_per_byte(const struct lesson_check *check)
{
    return check->figure == FIGURE_CALL_BYTES_PER_BYTE || check->figure == FIGURE_RCHAR_PER_BYTE ||
           check->figure == FIGURE_WCHAR_PER_BYTE;
}

bool check_monotonic(const struct lesson_check *check)
{
    return check->figure != FIGURE_RCHAR_PER_SYSCR && check->figure != FIGURE_READ_FILL &&
           check->figure != FIGURE_UNMAPPED_PER_MAPPED && check->figure != FIGURE_EXIT &&
           check->figure != FIGURE_CHECK_CALL_PER_REQ && check->figure != FIGURE_CPU_MS_PER_REQ &&
           !check_per_byte(check);
}

/* Whether the verdict is final (see struct check_result). */
static bool check_decided(const struct lesson_check *c, const struct check_result *r,
                          const struct check_observed *obs, bool over)
{
    if (over)
        return true;
    if (c->within > 0 && r->seconds >= c->within)
        return true;
    if (c->figure == FIGURE_EXIT)
        return obs && obs->seen;
    if (!check_monotonic(c))
        return false;
    if (c->has_max && r->value > c->max)
        return true; /* passed the maximum: it can only grow */
    /* A minimum reached is final only without a maximum, which must hold to the end. */
    return c->has_min && !c->has_max && r->value >= c->min;
}

/* check_eval() with the bytes of the scenario's files, which the "per byte served" figures
   divide by when no program the learner did not write published the bytes it received. */
static int check_eval_files(const struct lesson_check *check, const struct check_facts *facts,
                            uint64_t files_bytes, struct check_result *out)
{
    const struct figure_def *fig = figure_at(check->figure);
    if (!fig || !(fig->where & FIGURE_IN_CHECK) || check->role >= LESSON_NROLES ||
        (fig->per_call && check->call >= IOLAB_NCALLS))
        return -EINVAL;
    /* The check's modes in one span: counts summed, peaks the largest, and a ratio (bytes per
       read, calls per request) one of sums, not a sum of ratios. */
    struct span acc;
    memset(&acc, 0, sizeof acc);
    for (size_t i = 0; i < facts->nmodes; i++)
        if (check->mode < 0 || facts->modes[i].mode == check->mode)
            span_add(&acc, &facts->modes[i].span);
    struct figure_arg arg = {check_role(check), check->call, check->fd_kind, check->fd_to,
                             files_bytes};
    double value = 0, seconds = acc.seconds;
    /* A ratio with no request under it says nothing: it holds no bound. */
    bool defined = !fig->value || fig->value(&acc, &arg, &value);
    if (!defined)
        value = 0;
    bool holds = (!check->has_min || value >= check->min) &&
                 (!check->has_max || (value <= check->max && seconds > 0)) && defined;
    *out = (struct check_result){
        .holds = holds, .value = value, .seconds = seconds, .undefined = !defined};
    return 0;
}

int check_eval(const struct lesson_check *check, const struct check_facts *facts,
               struct check_result *out)
{
    return check_eval_files(check, facts, 0, out);
}

/* The bytes of every file the scenario makes (each served once by a step of one program). */
static uint64_t check_files_bytes(const struct lesson_scenario *sc)
{
    uint64_t n = 0;
    for (size_t i = 0; sc && i < sc->nfiles; i++)
        n += sc->files[i].size;
    return n;
}

size_t check_eval_all(const struct lesson_scenario *sc, const struct check_facts *facts,
                      struct check_result *results)
{
    size_t holding = 0;
    uint64_t files_bytes = check_files_bytes(sc);
    for (size_t i = 0; i < sc->nchecks; i++) {
        const struct lesson_check *c = &sc->checks[i];
        const struct check_observed *obs = facts->observed ? &facts->observed[i] : NULL;
        if (c->figure == FIGURE_EXIT || c->figure == FIGURE_OUTPUT) {
            /* Figures the grader observed itself; the mode's seconds say whether it ran. */
            struct check_result r = {0};
            struct lesson_check timed = *c;
            timed.figure = FIGURE_SECONDS;
            check_eval(&timed, facts, &r);
            r.value = obs ? obs->value : 0;
            if (c->figure == FIGURE_EXIT) {
                r.holds = obs && obs->seen && (int)r.value == c->status;
                if (!obs || !obs->seen)
                    r.value = -1; /* not exited (yet) */
            } else
                r.holds = (!c->has_min || r.value >= c->min) &&
                          (!c->has_max || (r.value <= c->max && r.seconds > 0));
            results[i] = r;
        } else if (check_eval_files(c, facts, files_bytes, &results[i]) < 0) {
            results[i] = (struct check_result){0};
        }
        results[i].decided = check_decided(c, &results[i], obs, facts->over);
        holding += results[i].holds;
    }
    return holding;
}

/* A check's fd_kind or fd_to (kind + 1) as a word. */
static const char *check_fd_name(unsigned k)
{
    return k >= 1 && k <= IOLAB_NFDKINDS ? iolab_fd_kind_name[k - 1] : "?";
}

/* Whether a per-request check failed only because no request completed: its ratio is within
   its bounds, yet does not hold. */
static bool check_ratio_undefined(const struct lesson_check *check, const struct check_result *r)
{
    if (check->figure != FIGURE_CHECK_CALL_PER_REQ && check->figure != FIGURE_CPU_MS_PER_REQ &&
        !check_per_byte(check))
        return false;
    if (check_per_byte(check))
        return r->undefined && r->seconds > 0;
    bool in_bounds =
        (!check->has_min || r->value >= check->min) && (!check->has_max || r->value <= check->max);
    return !r->holds && in_bounds && r->seconds > 0;
}

/* A calls-per-request check: a ratio with two decimals, or why there is none yet (a ratio
   within its bounds that does not hold has no request under it). */
static int check_describe_ratio(const struct lesson_check *check, const struct check_result *r,
                                const char *scope, const char *unit, char *buf, size_t len)
{
    char bounds[64];
    if (check->has_min && check->has_max)
        snprintf(bounds, sizeof bounds, "between %g and %g", check->min, check->max);
    else if (check->has_min)
        snprintf(bounds, sizeof bounds, "at least %g", check->min);
    else
        snprintf(bounds, sizeof bounds, "at most %g", check->max);
    if (r->seconds <= 0)
        return snprintf(buf, len, "%snot run yet (%s, %s)", scope, unit, bounds);
    if (check_ratio_undefined(check, r))
        return snprintf(buf, len, "%sno %s, so no %s (%s)", scope,
                        check_per_byte(check) ? "byte served" : "request completed", unit, bounds);
    return snprintf(buf, len, "%s%.2f %s, %s", scope, r->value, unit, bounds);
}

int check_describe(const struct lesson_check *check, const struct lesson_scenario *sc,
                   const struct check_result *r, char *buf, size_t len)
{
    char unit[96];
    if (check->figure == FIGURE_CALLS && check->fd_kind)
        snprintf(unit, sizeof unit, "%s calls on a %s%s%s",
                 check->call < IOLAB_NCALLS ? iolab_call_info[check->call].label : "?",
                 check_fd_name(check->fd_kind), check->fd_to ? " to a " : "",
                 check->fd_to ? check_fd_name(check->fd_to) : "");
    else if (check->figure == FIGURE_CALLS)
        snprintf(unit, sizeof unit, "%s calls",
                 check->call < IOLAB_NCALLS ? iolab_call_info[check->call].label : "?");
    else if (check->figure == FIGURE_CHECK_CALL_PER_REQ)
        snprintf(unit, sizeof unit, "%s calls per request",
                 check->call < IOLAB_NCALLS ? iolab_call_info[check->call].label : "?");
    else if (check->figure == FIGURE_CALL_BYTES_PER_BYTE)
        snprintf(unit, sizeof unit, "bytes %s moved (confirmed by the kernel) per byte served",
                 check->call < IOLAB_NCALLS ? iolab_call_info[check->call].label : "?");
    else
        snprintf(unit, sizeof unit, "%s", check_unit(check->figure));
    /* The scope: the check's mode, every mode together, or nothing when there are no modes. */
    char scope[64] = "";
    if (check->mode >= 0 && sc && (size_t)check->mode < sc->nmodes)
        snprintf(scope, sizeof scope, "%s: ", sc->modes[check->mode].id);
    else if (!sc || sc->nmodes > 1)
        snprintf(scope, sizeof scope, "all modes: ");
    if (check->figure == FIGURE_EXIT) {
        const char *who = sc && check->program >= 0 && (size_t)check->program < sc->nprograms
                              ? sc->programs[check->program].name
                              : "the program";
        if (r->value < 0)
            return snprintf(buf, len, "%s%s has not exited yet (expected status %d)", scope, who,
                            check->status);
        return snprintf(buf, len, "%s%s exited with status %.0f, expected %d", scope, who, r->value,
                        check->status);
    }
    if (check->figure == FIGURE_CHECK_CALL_PER_REQ || check->figure == FIGURE_CPU_MS_PER_REQ ||
        check_per_byte(check))
        return check_describe_ratio(check, r, scope, unit, buf, len);
    /* Seconds get one decimal so that progress visibly moves; counts are whole numbers. */
    bool secs = check->figure == FIGURE_SECONDS;
    /* Below the minimum it reads as progress ("3 of 5 requests"); past it, as what was seen
       against the bound ("8 fork calls, at least 1"), never "8 of 1". */
    if (!check->has_max && secs)
        return snprintf(buf, len, "%s%.1f %s of %g %s", scope, r->value, unit, check->min, unit);
    if (!check->has_max && r->value < check->min)
        return snprintf(buf, len, "%s%.0f of %g %s", scope, r->value, check->min, unit);
    if (!check->has_max)
        return snprintf(buf, len, "%s%.0f %s, at least %g", scope, r->value, unit, check->min);
    /* A maximum passed before the first snapshot of the mode (a line the client printed at
       once) has been seen: say the figure, not "not run yet". */
    if (r->seconds <= 0 && r->value <= check->max)
        return snprintf(buf, len, "%snot run yet (%s, at most %g)", scope, unit, check->max);
    if (!check->has_min)
        return snprintf(buf, len, secs ? "%s%.1f %s, at most %g" : "%s%.0f %s, at most %g", scope,
                        r->value, unit, check->max);
    return snprintf(buf, len,
                    secs ? "%s%.1f %s, between %g and %g" : "%s%.0f %s, between %g and %g", scope,
                    r->value, unit, check->min, check->max);
}

/* "2.0 s" of the check's mode, for the sentences below. */
static int check_explain_time(const struct check_result *r, char *buf, size_t len)
{
    return snprintf(buf, len, " in %.1f s", r->seconds);
}

int check_explain(const struct lesson_check *check, const struct lesson_scenario *sc,
                  const struct check_result *r, char *buf, size_t len)
{
    char seen[256], when[64] = "", limit[96] = "";
    check_describe(check, sc, r, seen, sizeof seen);
    if (check->figure != FIGURE_EXIT && r->seconds >= 0.05)
        check_explain_time(r, when, sizeof when);
    if (check->within > 0 && !r->holds && r->seconds >= check->within) {
        const char *who = "";
        char name[64] = "";
        if (check->program >= 0 && sc && (size_t)check->program < sc->nprograms) {
            snprintf(name, sizeof name, " from %s", sc->programs[check->program].name);
            who = name;
        }
        snprintf(limit, sizeof limit, "; not within %g s%s", check->within, who);
    }
    /* A per-request ratio with no request under it cannot be judged: the step's "fail" names
       the cause of a bad ratio, which is not this one, so the sentence stops at why. */
    if (r->holds || check_ratio_undefined(check, r))
        return snprintf(buf, len, "%s%s", seen, when);
    return snprintf(buf, len, "%s%s%s%s%s", seen, when, limit, check->fail ? ": " : "",
                    check->fail ? check->fail : "");
}
