/*
 * strmap: a map from borrowed C strings to positions, for look-ups that must stay linear over a
 * whole file (an import of 200,000 steps, a summary of a class). Open addressing over FNV-1a
 * hashes, at most half full, grown by doubling. The map never copies or frees a key: each key
 * must outlive the map (keys point into the caller's own arrays or parse tree).
 */
#ifndef IOLAB_STRMAP_H
#define IOLAB_STRMAP_H

#include <stddef.h>

struct strmap {
    size_t cap; /* a power of two, or 0 before the first put */
    size_t n;
    const char **key;
    size_t *value;
};

/* The value stored under key, or -1 when there is none. */
long strmap_get(const struct strmap *m, const char *key);
/* Stores value under key unless key is there already: 1 added, 0 present, -ENOMEM. */
int strmap_put(struct strmap *m, const char *key, size_t value);
void strmap_free(struct strmap *m);

#endif
