/*
 * keys: lookup in a key table, and the footer's choice of what fits (keys.h).
 */
#include "keys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct keybind *keys_find(const struct keytable *t, int key)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].fn && (t->v[i].key == key || (t->v[i].alt && t->v[i].alt == key)))
            return &t->v[i];
    return NULL;
}

/* Columns of one entry; names and labels are ASCII. */
static int keys_item_width(const struct keys_item *it)
{
    return (int)(strlen(it->name) + 1 + strlen(it->label));
}

size_t keys_footer(const struct keys_item *items, size_t n, int width, char *buf, size_t len)
{
    bool *shown = calloc(n ? n : 1, sizeof *shown);
    if (!shown || !len) {
        free(shown);
        return 0;
    }
    /* Greedy by priority: take the highest one left that still fits, until none does. */
    int used = 0;
    size_t count = 0;
    for (;;) {
        size_t best = n;
        for (size_t i = 0; i < n; i++) {
            if (shown[i] || !items[i].label)
                continue;
            int w = keys_item_width(&items[i]) + (count ? 2 : 0);
            if (used + w > width)
                continue;
            if (best == n || items[i].priority > items[best].priority)
                best = i;
        }
        if (best == n)
            break;
        shown[best] = true;
        used += keys_item_width(&items[best]) + (count ? 2 : 0);
        count++;
    }
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0, k = 0; i < n && off < len; i++) {
        if (!shown[i])
            continue;
        int w = snprintf(buf + off, len - off, "%s%s %s", k++ ? "  " : "", items[i].name,
                         items[i].label);
        off += w > 0 ? (size_t)w : 0;
    }
    free(shown);
    return count;
}
