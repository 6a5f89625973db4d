/* strmap: see strmap.h. */
#include "strmap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t strmap_hash(const char *key)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (const unsigned char *c = (const unsigned char *)key; *c; c++)
        h = (h ^ *c) * 0x100000001b3ull;
    /* FNV's low bits depend only on the low bits of each step, and the table indexes by low bits:
     * keys that differ in a few digits ("lesson7/step12") would cluster. A final mix (the
     * finaliser of MurmurHash3) spreads every bit over the low ones. */
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return (size_t)h;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t strmap_slot(const struct strmap *m, const char *key)
{
    size_t i = strmap_hash(key) & (m->cap - 1);
    while (m->key[i] && strcmp(m->key[i], key))
        i = (i + 1) & (m->cap - 1);
    return i;
}

long strmap_get(const struct strmap *m, const char *key)
{
    if (!m->cap)
        return -1;
    size_t i = strmap_slot(m, key);
    return m->key[i] ? (long)m->value[i] : -1;
}

int strmap_put(struct strmap *m, const char *key, size_t value)
{
    if (2 * (m->n + 1) > m->cap) {
        struct strmap bigger = {.cap = m->cap ? 2 * m->cap : 64};
        bigger.key = calloc(bigger.cap, sizeof *bigger.key);
        bigger.value = calloc(bigger.cap, sizeof *bigger.value);
        if (!bigger.key || !bigger.value) {
            strmap_free(&bigger);
            return -ENOMEM;
        }
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->key[i])
                continue;
            size_t j = strmap_slot(&bigger, m->key[i]);
            bigger.key[j] = m->key[i];
            bigger.value[j] = m->value[i];
        }
        bigger.n = m->n;
        strmap_free(m);
        *m = bigger;
    }
    size_t i = strmap_slot(m, key);
    if (m->key[i])
        return 0;
    m->key[i] = key;
    m->value[i] = value;
    m->n++;
    return 1;
}

void strmap_free(struct strmap *m)
{
    free(m->key);
    free(m->value);
    memset(m, 0, sizeof *m);
}
