/*
 * grade: see grade.h. Verdicts are recomputed from the session's facts on every update; a check
 * is a handful of additions over at most SNAPSHOT_MAX_MODES + 1 entries, so there is nothing to
 * gain from doing it incrementally.
 */
#include "grade.h"

#include <errno.h>
#include <stdlib.h>

int grade_init(struct grader *g, const struct lesson_scenario *sc)
{
    *g = (struct grader){.sc = sc};
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
    session_reset(&g->session);
    for (size_t i = 0; i < g->sc->nchecks; i++)
        g->results[i] = (struct check_result){0};
    g->nholding = 0;
    g->measured = false;
}

void grade_new_run(struct grader *g)
{
    session_new_run(&g->session);
}

void grade_update(struct grader *g, const struct snapshot *snap)
{
    session_update(&g->session, g->sc, snap);
    if (snap->mode_running)
        g->measured = true;
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
