/*
 * rotation: see rotation.h.
 */
#include "rotation.h"

double rotation_budget(double core_share, double tick_hz)
{
    return tick_hz > 0 ? core_share / tick_hz : core_share;
}

double rotation_share(size_t items)
{
    if (items <= ROTATION_ITEMS_SMALL)
        return ROTATION_SHARE_SMALL;
    if (items >= ROTATION_ITEMS_LARGE)
        return ROTATION_SHARE_LARGE;
    return ROTATION_SHARE_SMALL + (ROTATION_SHARE_LARGE - ROTATION_SHARE_SMALL) *
                                      (double)(items - ROTATION_ITEMS_SMALL) /
                                      (ROTATION_ITEMS_LARGE - ROTATION_ITEMS_SMALL);
}

void rotation_begin(struct rotation *r, double now_s)
{
    r->t0 = now_s;
    r->taken = 0;
}

bool rotation_may(const struct rotation *r, double now_s)
{
    return r->taken < r->min_items || r->budget_s <= 0 || now_s - r->t0 < r->budget_s;
}

void rotation_took(struct rotation *r)
{
    r->taken++;
}

size_t rotation_start(const void *keys, size_t n, size_t stride, int cursor)
{
    /* Binary search for the first key > cursor. */
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int key = *(const int *)((const char *)keys + mid * stride);
        if (key <= cursor)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n ? lo : 0;
}
