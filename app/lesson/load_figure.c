/*
 * load_figure: the figure an expected outcome (kind_run.c) or a prediction question (predict.c)
 * names, read into a side of the comparison. Shared by both, so neither depends on the other.
 */
#include "check.h"
#include "load.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

/* The names of enum lesson_figure, as an expected outcome writes them. */
static const char *const load_figure_names[LESSON_NFIGS] = {
    [LESSON_FIG_REQUESTS_PER_S] = "requests_per_s",
    [LESSON_FIG_BYTES_PER_S] = "bytes_per_s",
    [LESSON_FIG_CALLS_PER_REQ] = "calls_per_request",
    [LESSON_FIG_CALL_PER_REQ] = "calls:NAME/request",
    [LESSON_FIG_CTX_PER_REQ] = "ctx_per_request",
    [LESSON_FIG_CPU_PCT] = "cpu_pct",
    [LESSON_FIG_URING_ENTERS_PER_REQ] = "uring_enters_per_request",
    [LESSON_FIG_P50_MS] = "p50_ms",
    [LESSON_FIG_P99_MS] = "p99_ms",
};

void load_expect_figure(struct load *ld, const cJSON *v, struct lesson_expect_side *side)
{
    const char *name = v->valuestring;
    for (int i = 0; i < LESSON_NFIGS; i++)
        if (i != LESSON_FIG_CALL_PER_REQ && !strcmp(name, load_figure_names[i])) {
            side->figure = (enum lesson_figure)i;
            return;
        }
    /* calls:NAME/request: one counted call per request. */
    const char *slash = strrchr(name, '/');
    if (slash && !strcmp(slash, "/request") && !strncmp(name, "calls:", 6)) {
        char metric[96];
        snprintf(metric, sizeof metric, "%.*s", (int)(slash - name), name);
        enum lesson_metric m;
        if (check_metric_parse(metric, &m, &side->call) == 0 && m == LESSON_METRIC_CALLS) {
            side->figure = LESSON_FIG_CALL_PER_REQ;
            return;
        }
    }
    char why[160];
    load_diag(ld, v, 0, "figure \"%s\" is not known; %s", name,
              load_suggest(why, sizeof why, name, load_figure_names, LESSON_NFIGS,
                           "use requests_per_s, bytes_per_s, calls_per_request, "
                           "calls:NAME/request, ctx_per_request, cpu_pct, "
                           "uring_enters_per_request, p50_ms or p99_ms."));
}
