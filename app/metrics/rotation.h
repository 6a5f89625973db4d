/*
 * rotation: which processes and threads one sampler tick reads, within a time budget.
 *
 * Model: the items (processes, and the threads of each) are kept sorted by key (pid, tid). A
 * tick reads items round-robin from where the last tick stopped (the caller keeps that cursor:
 * the key of the last item read), and stops when its budget of wall time is spent, but never
 * before it has read `min_items` (so that a machine slowed by load still makes progress and a
 * small scenario is read whole every tick). Items never read yet go first, whatever the cursor
 * says: a new process's figures are missing until its first read, stale ones only old. With n
 * items of cost c, every item is read at least every ceil(n * c / budget) ticks, and the age of
 * a figure is bounded by that many ticks.
 *
 * Everything here is a pure function of its arguments (the clock is passed in), so the unit
 * tests drive it with recorded costs.
 */
#ifndef IOLAB_ROTATION_H
#define IOLAB_ROTATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rotation {
    double budget_s;    /* wall time one tick may spend reading; <= 0: no limit */
    uint32_t min_items; /* items read each tick whatever the budget says */
    double t0;          /* this tick's start */
    uint32_t taken;     /* items read so far this tick */
};

/* A share of one core (0.0075: 0.75%) at tick_hz ticks a second, as a budget per tick. */
double rotation_budget(double core_share, double tick_hz);

/*
 * The share of a core the reads of a scenario of `items` processes and threads may take: the
 * small share up to ROTATION_ITEMS_SMALL items, growing in proportion to the large share at
 * ROTATION_ITEMS_LARGE and staying there. More work earns more time, so that figures do not
 * age in proportion to the scenario's size, within what iolab allows itself (issue 20: 1% of a
 * core at 256 processes, 2% at 1,000, for the whole sampler).
 */
#define ROTATION_SHARE_SMALL 0.0075
#define ROTATION_SHARE_LARGE 0.016
#define ROTATION_ITEMS_SMALL 256
#define ROTATION_ITEMS_LARGE 1000
double rotation_share(size_t items);

/* Starts a tick at now_s. */
void rotation_begin(struct rotation *r, double now_s);

/* Whether one more item may be read at now_s. */
bool rotation_may(const struct rotation *r, double now_s);

/* Books one item read. */
void rotation_took(struct rotation *r);

/*
 * Where a round-robin pass resumes: the index of the first of n keys (sorted ascending; the
 * key of item i is at (const char *)keys + i * stride, an int) greater than cursor, or 0 when
 * there is none (the pass wraps). n == 0 gives 0.
 */
size_t rotation_start(const void *keys, size_t n, size_t stride, int cursor);

#endif
