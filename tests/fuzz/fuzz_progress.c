/*
 * fuzz_progress: libFuzzer target for the progress store's parser (progress_parse, the part of
 * progress_load() after the file is read).
 *
 * Beyond "no crash, no leak, no undefined behaviour": whatever parses must print
 * (progress_to_json) to text that parses again into the same records. That round trip is what
 * every save relies on, so a record that a save would lose is a finding.
 */
#include "progress.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void fuzz_same(const struct progress *a, const struct progress *b)
{
    if (a->npacks != b->npacks)
        abort();
    for (size_t i = 0; i < a->npacks; i++) {
        const struct progress_pack *x = &a->packs[i], *y = &b->packs[i];
        if (strcmp(x->id, y->id) || x->ndone != y->ndone || x->nanswers != y->nanswers ||
            !x->last_lesson != !y->last_lesson)
            abort();
        for (size_t j = 0; j < x->ndone; j++)
            if (strcmp(x->done[j], y->done[j]))
                abort();
        for (size_t j = 0; j < x->nanswers; j++)
            if (strcmp(x->answers[j].step, y->answers[j].step) ||
                strcmp(x->answers[j].value, y->answers[j].value))
                abort();
        if (x->nrecords != y->nrecords)
            abort();
        for (size_t j = 0; j < x->nrecords; j++) {
            const struct progress_record *r = &x->records[j], *s = &y->records[j];
            if (strcmp(r->step, s->step) || r->updated != s->updated || r->done_at != s->done_at ||
                r->nfields != s->nfields)
                abort();
            for (size_t k = 0; k < r->nfields; k++)
                if (strcmp(r->fields[k].name, s->fields[k].name) ||
                    strcmp(r->fields[k].json, s->fields[k].json))
                    abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* progress_parse() wants the NUL that fileread puts after the text. */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct progress *p = calloc(1, sizeof *p);
    if (!p) {
        free(text);
        return 0;
    }
    int rc = progress_parse(p, text, size);
    if (rc == 0) {
        char *json = progress_to_json(p);
        struct progress *q = calloc(1, sizeof *q);
        if (json && q) {
            if (progress_parse(q, json, strlen(json)) != 0)
                abort();
            fuzz_same(p, q);
        }
        free(json);
        progress_free(q);
    } else if (rc != -EBADMSG && rc != -ENOMEM) {
        abort();
    }
    progress_free(p);
    free(text);
    return 0;
}
