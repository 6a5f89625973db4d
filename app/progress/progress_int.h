/*
 * progress_int: what the files of progress/ share and nothing else may use: the model's
 * internals (progress.c) that the codec (progress_codec.c) and the store (progress_store.c)
 * build and change packs with, and the codec's times in JSON, which the export (exchange.c)
 * writes and checks too. cJSON stays behind this line: progress.h takes and gives only the
 * store's own types.
 */
#ifndef IOLAB_PROGRESS_INT_H
#define IOLAB_PROGRESS_INT_H

#include "progress.h"

/* Frees what a record, or a pack, holds (not the struct itself). */
void progress_record_clear(struct progress_record *r);
void progress_pack_clear(struct progress_pack *pk);

/* Drops a pack's index of steps, after a removal (the next look-up builds it again). */
void progress_index_drop(struct progress_pack *pk);

/* json in its compact form when it is one JSON object (with no NUL and valid UTF-8), else NULL
 * (errno EINVAL or ENOMEM); progress_codec.c. */
char *progress_object_text(const char *json);

/* Times in JSON: a whole number of seconds, 0 to 2^53, written digit for digit (cJSON's own
   number printer keeps 15 significant digits and would round a 16-digit time);
   progress_codec.c. */
struct cJSON;
bool progress_time_ok(const struct cJSON *v);
bool progress_add_time(struct cJSON *o, const char *name, long long t);

#endif
