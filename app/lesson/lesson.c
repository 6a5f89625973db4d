/*
 * lesson: the model's helpers that need no JSON: looking things up in a loaded pack, expanding
 * placeholders, and owning (printing, freeing) what the loader built. A pack is a tree of plain
 * allocations, each freed exactly once by lesson_pack_free().
 */
#include "lesson.h"
#include "kind.h"
#include "termsafe.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *lesson_step_kind_name(const struct lesson_step *step)
{
    return step->kind ? step->kind->name : "?";
}

const char *lesson_step_label(const struct lesson_step *step)
{
    const struct lesson_scenario *sc = lesson_step_scenario(step);
    return sc && sc->sweep ? "sweep" : lesson_step_kind_name(step);
}

const struct lesson_exercise *lesson_step_exercise(const struct lesson_step *step)
{
    return step->kind && step->kind->exercise ? step->kind->exercise(step) : NULL;
}

const struct lesson_scenario *lesson_step_scenario(const struct lesson_step *step)
{
    return step->kind && step->kind->scenario ? step->kind->scenario(step) : NULL;
}

const struct lesson *lesson_find(const struct lesson_pack *pack, const char *id)
{
    for (size_t i = 0; i < pack->nlessons; i++)
        if (!strcmp(pack->lessons[i].id, id))
            return &pack->lessons[i];
    return NULL;
}

int lesson_resolve(const struct lesson_pack *pack, const char *spec, const struct lesson **lesson,
                   const struct lesson_step **step, char *why, size_t whylen)
{
    char lid[256];
    const char *slash = strchr(spec, '/');
    size_t llen = slash ? (size_t)(slash - spec) : strlen(spec);
    if (llen >= sizeof lid) {
        snprintf(why, whylen, "'%s' is too long to be a lesson id.", spec);
        return -ENOENT;
    }
    memcpy(lid, spec, llen);
    lid[llen] = '\0';
    const struct lesson *l = lesson_find(pack, lid);
    if (!l) {
        snprintf(why, whylen, "pack '%s' has no lesson '%s'; `iolab list` shows the lessons.",
                 pack->id, lid);
        return -ENOENT;
    }
    for (size_t i = 0; i < l->nsteps; i++) {
        const struct lesson_step *s = &l->steps[i];
        if (slash ? !strcmp(s->id, slash + 1) : lesson_step_scenario(s) != NULL) {
            *lesson = l;
            *step = s;
            return 0;
        }
    }
    if (slash)
        snprintf(why, whylen, "lesson '%s' has no step '%s'; `iolab list` shows its steps.", lid,
                 slash + 1);
    else
        snprintf(why, whylen, "lesson '%s' has no run step; name a step as %s/STEP.", lid, lid);
    return -ENOENT;
}

int lesson_mode_find(const struct lesson_scenario *sc, const char *id)
{
    for (size_t i = 0; i < sc->nmodes; i++)
        if (!strcmp(sc->modes[i].id, id))
            return (int)i;
    return -1;
}

bool lesson_watch_add(struct lesson_scenario *sc, unsigned call)
{
    for (size_t i = 0; i < sc->nwatch; i++)
        if (sc->watch[i] == call)
            return false;
    if (sc->nwatch >= LESSON_MAX_WATCH)
        return false;
    sc->watch[sc->nwatch++] = call;
    return true;
}

void lesson_watch_derive(struct lesson_scenario *sc)
{
    for (size_t i = 0; i < sc->nchecks; i++)
        if (sc->checks[i].figure == FIGURE_CALLS ||
            sc->checks[i].figure == FIGURE_CHECK_CALL_PER_REQ)
            lesson_watch_add(sc, sc->checks[i].call);
    for (size_t i = 0; i < sc->nexpects; i++) {
        const struct lesson_expect *e = &sc->expects[i];
        if (e->left.figure == FIGURE_ONE_CALL_PER_REQ)
            lesson_watch_add(sc, e->left.call);
        if (e->has_right && e->right.figure == FIGURE_ONE_CALL_PER_REQ)
            lesson_watch_add(sc, e->right.call);
    }
}

int lesson_arg_expand(const char *arg, const struct lesson_vars *vars, char *buf, size_t len)
{
    const struct {
        const char *name;
        const char *value;
    } known[] = {
        {"{port}", vars->port},
        {"{host}", vars->host},
        {"{workdir}", vars->workdir},
        {"{seconds}", vars->seconds},
    };
    size_t n = 0;
    while (*arg) {
        const char *piece = arg;
        size_t plen = 1, advance = 1;
        for (size_t k = 0; k < sizeof known / sizeof *known; k++) {
            size_t klen = strlen(known[k].name);
            if (!strncmp(arg, known[k].name, klen)) {
                piece = known[k].value ? known[k].value : "";
                plen = strlen(piece);
                advance = klen;
                break;
            }
        }
        if (n + plen >= len)
            return -ENAMETOOLONG;
        memcpy(buf + n, piece, plen);
        n += plen;
        arg += advance;
    }
    if (n >= len)
        return -ENAMETOOLONG;
    buf[n] = '\0';
    return (int)n;
}

static void lesson_strv_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

static void lesson_builds_free(struct lesson_build *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(b[i].program);
        free(b[i].path);
        free(b[i].src_dir);
        lesson_strv_free(b[i].files, b[i].nfiles);
        lesson_strv_free(b[i].sources, b[i].nsources);
        for (char **a = b[i].command; a && *a; a++)
            free(*a);
        free(b[i].command);
        free(b[i].file);
        free(b[i].exe);
    }
    free(b);
}

void lesson_pack_free(struct lesson_pack *pack)
{
    if (!pack)
        return;
    for (size_t i = 0; i < pack->nlessons; i++) {
        struct lesson *l = &pack->lessons[i];
        for (size_t j = 0; j < l->nsteps; j++) {
            struct lesson_step *s = &l->steps[j];
            free(s->id);
            free(s->title);
            free(s->text);
            if (s->kind && s->kind->free)
                s->kind->free(s->data);
        }
        free(l->steps);
        free(l->id);
        free(l->title);
        free(l->summary);
        free(l->file);
    }
    free(pack->lessons);
    lesson_builds_free(pack->builds, pack->nbuilds);
    free(pack->dir);
    free(pack->id);
    free(pack->title);
    free(pack->version);
    free(pack);
}

/* A message quotes the pack's own text (a key, an id, a compiler's word): printed escaped. */
void lesson_diags_print(FILE *out, const struct lesson_diags *diags)
{
    for (size_t i = 0; i < diags->n; i++) {
        const struct lesson_diag *d = &diags->v[i];
        termsafe_fprintf(out, "%s:%d:%d: %s\n", d->file, d->line, d->col, d->message);
    }
}

void lesson_diags_free(struct lesson_diags *diags)
{
    for (size_t i = 0; i < diags->n; i++) {
        free(diags->v[i].file);
        free(diags->v[i].message);
    }
    free(diags->v);
    *diags = (struct lesson_diags){0};
}

const char *lesson_mode_label(const struct lesson_mode *m, char *buf, size_t len)
{
    size_t idn = strlen(m->id);
    bool named = m->title && !strncmp(m->title, m->id, idn) && m->title[idn] == ':';
    if (named)
        snprintf(buf, len, "%s", m->title);
    else if (m->title)
        snprintf(buf, len, "%s: %s", m->id, m->title);
    else
        snprintf(buf, len, "%s", m->id);
    return buf;
}
