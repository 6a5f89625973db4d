/*
 * grade: see grade.h. Verdicts are recomputed from the session's facts on every update; a check
 * is a handful of additions over at most SNAPSHOT_MAX_MODES + 1 entries, so there is nothing to
 * gain from doing it incrementally.
 */
#include "grade.h"

#include "metrics/stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int grade_init(struct grader *g, const struct lesson_scenario *sc)
{
    *g = (struct grader){.sc = sc, .ctx = {.loadavg = -1}};
    session_reset(&g->session);
    if (sc->nchecks && !(g->results = calloc(sc->nchecks, sizeof *g->results)))
        return -ENOMEM;
    return 0;
}

void grade_free(struct grader *g)
{
    free(g->results);
    g->results = NULL;
}

void grade_reset(struct grader *g)
{
    g->npast = g->nnow = 0;
    session_reset(&g->session);
    for (size_t i = 0; i < g->sc->nchecks; i++)
        g->results[i] = (struct check_result){0};
    g->nholding = 0;
    g->measured = false;
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
    struct check_facts facts;
    session_facts(&g->session, &facts);
    g->nholding = check_eval_all(g->sc, &facts, g->results);
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
    return check_describe(&g->sc->checks[i], g->sc, &g->results[i], buf, len);
}

void grade_json(const struct grader *g, struct json_out *j, const char *key)
{
    json_array(j, key);
    for (size_t i = 0; i < g->sc->nchecks; i++) {
        char msg[256];
        grade_message(g, i, msg, sizeof msg);
        json_object(j, NULL);
        json_string(j, "text", g->sc->checks[i].text);
        json_bool(j, "ok", g->results[i].holds);
        json_string(j, "message", msg);
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
