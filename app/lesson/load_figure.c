/*
 * load_figure: the figure an expected outcome (kind_run.c), a prediction question (predict.c), a
 * sweep or a headline (sweep.c) names, resolved in the figure table (metrics/figure.h) among the
 * figures that format accepts. Shared by all, so none depends on another.
 */
#include "load.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

int load_figure(struct load *ld, const cJSON *v, unsigned where, enum figure_id *fig,
                unsigned *call)
{
    const char *name = v->valuestring;
    const struct figure_def *f = figure_find_in(name, where, call);
    if (f) {
        *fig = figure_id_of(f);
        return 0;
    }
    /* The names the format accepts, in the table's order: the suggestion's candidates, and the
       list given when no name is close. */
    const char *names[FIGURE_NIDS];
    size_t n = 0;
    for (size_t i = 0; i < figure_count(); i++) {
        const struct figure_def *d = figure_at((enum figure_id)i);
        if (d->where & where)
            names[n++] = d->name;
    }
    char list[320] = "use ";
    for (size_t i = 0; i < n; i++) {
        size_t at = strlen(list);
        snprintf(list + at, sizeof list - at, "%s%s", names[i],
                 i + 2 < n   ? ", "
                 : i + 1 < n ? " or "
                             : ".");
    }
    char why[160];
    load_diag(ld, v, 0, "figure \"%s\" is not known; %s", name,
              load_suggest(why, sizeof why, name, names, n, list));
    return -EINVAL;
}

void load_expect_figure(struct load *ld, const cJSON *v, struct lesson_expect_side *side)
{
    load_figure(ld, v, FIGURE_IN_EXPECT, &side->figure, &side->call);
}
