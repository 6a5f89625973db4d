/*
 * grade: see grade.h. Verdicts are recomputed from the session's facts on every update; a check
 * is a handful of additions over at most SNAPSHOT_MAX_MODES + 1 entries, so there is nothing to
 * gain from doing it incrementally.
 */
#include "grade.h"

#include "metrics/stats.h"

#include <errno.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GRADE_REPORT_MAX 4096 /* bytes of a sanitizer's report kept */

int grade_init(struct grader *g, const struct lesson_scenario *sc)
{
    *g = (struct grader){.sc = sc,
                         .ctx = {.loadavg = -1},
                         .mode = sc->nmodes ? (int)sc->default_mode : -1,
                         .crash_prog = -1,
                         .report_prog = -1};
    session_reset(&g->session);
    if (!sc->nchecks)
        return 0;
    g->results = calloc(sc->nchecks, sizeof *g->results);
    g->observed = calloc(sc->nchecks, sizeof *g->observed);
    g->cut = calloc(sc->nchecks, sizeof *g->cut);
    regex_t *re = calloc(sc->nchecks, sizeof *re);
    g->regexes = re;
    if (!g->results || !g->observed || !g->cut || !re) {
        grade_free(g);
        return -ENOMEM;
    }
    for (size_t i = 0; i < sc->nchecks; i++)
        if (sc->checks[i].metric == LESSON_METRIC_OUTPUT && sc->checks[i].match &&
            regcomp(&re[i], sc->checks[i].match, REG_EXTENDED | REG_NOSUB) != 0) {
            grade_free(g); /* the loader compiled it already: only memory can fail here */
            return -ENOMEM;
        }
    return 0;
}

void grade_free(struct grader *g)
{
    regex_t *re = g->regexes;
    for (size_t i = 0; re && i < g->sc->nchecks; i++)
        if (g->sc->checks[i].metric == LESSON_METRIC_OUTPUT && g->sc->checks[i].match)
            regfree(&re[i]);
    free(re);
    free(g->results);
    free(g->observed);
    free(g->cut);
    free(g->report);
    g->cut = NULL;
    g->regexes = NULL;
    g->results = NULL;
    g->observed = NULL;
    g->report = NULL;
}

/* Evaluates every check again on the session's facts and what was observed. */
static void grade_eval(struct grader *g)
{
    struct check_facts facts;
    session_facts(&g->session, &facts);
    facts.observed = g->observed;
    facts.over = g->over;
    g->nholding = g->sc->nchecks ? check_eval_all(g->sc, &facts, g->results) : 0;
}

/* Whether check c reads what happens in the mode now running. */
static bool grade_in_mode(const struct grader *g, const struct lesson_check *c)
{
    return c->mode < 0 || c->mode == g->mode;
}

void grade_line(struct grader *g, size_t prog, const char *line)
{
    regex_t *re = g->regexes;
    bool counted = false;
    for (size_t i = 0; i < g->sc->nchecks; i++) {
        const struct lesson_check *c = &g->sc->checks[i];
        if (c->metric != LESSON_METRIC_OUTPUT || c->program != (int)prog || !c->match ||
            !grade_in_mode(g, c) || g->over)
            continue;
        if (regexec(&re[i], line, 0, NULL, 0) == 0) {
            if (!g->observed[i].value++)
                snprintf(g->observed[i].first, sizeof g->observed[i].first, "%s", line);
            counted = true;
        }
    }
    /* A sanitizer report starts with a line we know and runs to the end of the output; only the
       first report is kept (later ones are usually its consequences). */
    bool starts = strstr(line, "ERROR: AddressSanitizer") || strstr(line, "ERROR: LeakSanitizer") ||
                  strstr(line, "runtime error:");
    if (starts && g->report_prog < 0) {
        g->report_prog = (int)prog;
        g->report_open = g->report_live = true;
    }
    if (g->report_open && g->report_prog == (int)prog) {
        size_t n = strlen(line);
        if (g->report_len + n + 2 > GRADE_REPORT_MAX) {
            g->report_open = false;
        } else {
            char *r = realloc(g->report, g->report_len + n + 2);
            if (r) {
                memcpy(r + g->report_len, line, n);
                r[g->report_len + n] = '\n';
                g->report_len += n + 1;
                r[g->report_len] = '\0';
                g->report = r;
            }
        }
    }
    if (counted)
        grade_eval(g);
}

void grade_exit(struct grader *g, size_t prog, int status, bool expected)
{
    if (g->report_prog == (int)prog)
        g->report_open = g->report_live = false;
    /* SIGTERM and SIGKILL are how iolab stops a program; any other signal is the program's own,
       whenever it comes. */
    int sig = status > 128 ? status - 128 : 0;
    bool own = sig && sig != SIGTERM && !(expected && sig == SIGKILL);
    if (own && g->crash_prog < 0) {
        g->crash_prog = (int)prog;
        g->crash_signal = sig;
    }
    if (expected || g->over)
        return;
    for (size_t i = 0; i < g->sc->nchecks; i++) {
        const struct lesson_check *c = &g->sc->checks[i];
        if (c->metric == LESSON_METRIC_EXIT && c->program == (int)prog && grade_in_mode(g, c) &&
            !g->observed[i].seen)
            g->observed[i] = (struct check_observed){.value = status, .seen = true};
    }
    grade_eval(g);
}

/* A program said what must not be said (an output check's maximum passed: a client rejected a
   download, a program found its own bytes wrong): the step cannot pass in this run, and that
   line names the cause better than any check still waiting for its time limit. */
static bool grade_failed(const struct grader *g)
{
    for (size_t i = 0; i < g->sc->nchecks; i++)
        if (g->sc->checks[i].metric == LESSON_METRIC_OUTPUT && g->sc->checks[i].has_max &&
            g->results[i].decided && !g->results[i].holds)
            return true;
    return false;
}

void grade_finish(struct grader *g)
{
    if (!g->over && g->cut && grade_failed(g))
        for (size_t i = 0; i < g->sc->nchecks; i++)
            g->cut[i] = !g->results[i].decided;
    g->over = true;
    grade_eval(g);
}

bool grade_decided(const struct grader *g)
{
    if (g->over || grade_failed(g))
        return true;
    size_t open_max = 0;
    for (size_t i = 0; i < g->sc->nchecks; i++) {
        const struct lesson_check *c = &g->sc->checks[i];
        if (g->results[i].decided)
            continue;
        bool ratio = !check_monotonic(c) && c->metric != LESSON_METRIC_EXIT;
        /* A child counts as left unreaped only after a second as a zombie: "no zombie" has
           shown nothing before the run has lasted long enough for one to be seen. */
        if (c->metric == LESSON_METRIC_ZOMBIES && g->results[i].seconds < CHECK_ZOMBIE_WATCH_S)
            return false;
        if (ratio && g->results[i].holds)
            open_max++; /* a ratio that holds now: decided with the rest */
        else if (!ratio && c->has_max && !c->has_min && c->metric != LESSON_METRIC_EXIT)
            open_max++; /* holds so far; decided with the rest */
        else
            return false;
    }
    /* Only maxima are left: they held while the rest was shown, once something has run. */
    return !open_max || g->measured;
}

bool grade_reporting(const struct grader *g)
{
    return g->report_live;
}

const char *grade_report(const struct grader *g)
{
    return g->report;
}

void grade_reset(struct grader *g)
{
    g->npast = g->nnow = 0;
    session_reset(&g->session);
    for (size_t i = 0; i < g->sc->nchecks; i++)
        g->results[i] = (struct check_result){0};
    g->nholding = 0;
    g->measured = false;
    g->over = false;
    g->crash_prog = g->report_prog = -1;
    g->report_open = g->report_live = false;
    free(g->report);
    g->report = NULL;
    g->report_len = 0;
    if (g->observed)
        memset(g->observed, 0, g->sc->nchecks * sizeof *g->observed);
    if (g->cut)
        memset(g->cut, 0, g->sc->nchecks * sizeof *g->cut);
}

void grade_new_run(struct grader *g)
{
    session_new_run(&g->session);
    stats_mode_rows_merge(g->past, &g->npast, SNAPSHOT_MAX_MODES, g->now, g->nnow);
    g->nnow = 0;
}

void grade_update(struct grader *g, const struct snapshot *snap)
{
    session_update(&g->session, g->sc, snap);
    if (snap->mode_running)
        g->measured = true;
    g->nnow = snap->nmodes < SNAPSHOT_MAX_MODES ? snap->nmodes : SNAPSHOT_MAX_MODES;
    memcpy(g->now, snap->modes, g->nnow * sizeof *g->now);
    if (snap->ncpus)
        g->ctx.ncpus = snap->ncpus;
    g->ctx.loadavg = snap->loadavg;
    g->mode = snap->mode;
    if (g->over)
        return; /* verdicts are final */
    grade_eval(g);
}

bool grade_done(const struct grader *g)
{
    if (g->sc->nchecks == 0)
        return g->measured;
    return g->nholding == g->sc->nchecks;
}

int grade_message(const struct grader *g, size_t i, char *buf, size_t len)
{
    if (i >= g->sc->nchecks)
        return snprintf(buf, len, "no such check");
    const struct lesson_check *c = &g->sc->checks[i];
    const struct check_result *r = &g->results[i];
    if (g->cut && g->cut[i]) {
        int n = check_describe(c, g->sc, r, buf, len);
        if (n >= 0 && (size_t)n < len)
            n += snprintf(buf + n, len - (size_t)n,
                          " (not judged: the run stopped at a check that failed)");
        return n;
    }
    bool explain = r->decided && !r->holds && (c->fail || c->within > 0 || g->crash_prog >= 0);
    if (!explain)
        return check_describe(c, g->sc, r, buf, len);
    int n = check_explain(c, g->sc, r, buf, len);
    /* A line that must not appear did: quote it, it usually says what went wrong and where. */
    if (c->metric == LESSON_METRIC_OUTPUT && c->has_max && g->observed[i].first[0] && n >= 0 &&
        (size_t)n < len) {
        const char *who = c->program >= 0 && (size_t)c->program < g->sc->nprograms
                              ? g->sc->programs[c->program].name
                              : "a program";
        n += snprintf(buf + n, len - (size_t)n, " (%s said: \"%s\")", who, g->observed[i].first);
    }
    if (g->crash_prog >= 0 && n >= 0 && (size_t)n < len) {
        const char *who = (size_t)g->crash_prog < g->sc->nprograms
                              ? g->sc->programs[g->crash_prog].name
                              : "a program";
        const char *abbrev = sigabbrev_np(g->crash_signal);
        n += snprintf(buf + n, len - (size_t)n, " (%s was killed by signal %d, SIG%s: %s%s)", who,
                      g->crash_signal, abbrev ? abbrev : "?", strsignal(g->crash_signal),
                      g->report ? "; the sanitizer's report is below" : "");
    }
    return n;
}

void grade_json(const struct grader *g, struct json_out *j, const char *key)
{
    json_array(j, key);
    for (size_t i = 0; i < g->sc->nchecks; i++) {
        char msg[768];
        grade_message(g, i, msg, sizeof msg);
        json_object(j, NULL);
        json_string(j, "text", g->sc->checks[i].text);
        json_bool(j, "ok", g->results[i].holds);
        json_string(j, "message", msg);
        json_bool(j, "decided", g->results[i].decided && !(g->cut && g->cut[i]));
        json_end(j);
    }
    json_end(j);
}

void grade_set_tier(struct grader *g, const char *tier)
{
    g->ctx.tier = tier;
}

uint32_t grade_rows(const struct grader *g, struct snapshot_mode_row *rows)
{
    uint32_t n = g->npast;
    memcpy(rows, g->past, n * sizeof *rows);
    stats_mode_rows_merge(rows, &n, SNAPSHOT_MAX_MODES, g->now, g->nnow);
    return n;
}

struct expect_verdict grade_expect(const struct grader *g, size_t i, char *buf, size_t len)
{
    struct snapshot_mode_row rows[SNAPSHOT_MAX_MODES];
    uint32_t n = grade_rows(g, rows);
    struct expect_verdict v = expect_judge(g->sc, &g->sc->expects[i], rows, n);
    if (buf)
        expect_describe(g->sc, &g->sc->expects[i], &v, &g->ctx, buf, len);
    return v;
}

void grade_expect_json(const struct grader *g, struct json_out *j, const char *key)
{
    json_array(j, key);
    for (size_t i = 0; i < g->sc->nexpects; i++) {
        char msg[512];
        struct expect_verdict v = grade_expect(g, i, msg, sizeof msg);
        json_object(j, NULL);
        json_string(j, "text", g->sc->expects[i].text);
        if (v.state == EXPECT_UNDECIDED)
            json_null(j, "ok");
        else
            json_bool(j, "ok", v.state == EXPECT_AGREES);
        json_string(j, "message", msg);
        json_end(j);
    }
    json_end(j);
}
