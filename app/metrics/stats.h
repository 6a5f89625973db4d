/*
 * stats: the arithmetic of measurement, pure and unit-tested: deltas of counters that may be
 * reset or read out of order, rates over real elapsed time, and percentiles from the counter
 * page's log-linear latency histogram.
 *
 * Invariants: a delta is never negative (a counter that went backwards, because a process was
 * restarted or read in a race, counts as zero, not as 2^64); a rate over no time is 0; a
 * percentile of an empty histogram is 0.
 */
#ifndef IOLAB_STATS_H
#define IOLAB_STATS_H

#include "iolab_counters.h"
#include "snapshot.h"

#include <stddef.h>
#include <stdint.h>

/* now - before, or 0 when the counter went backwards. */
static inline uint64_t stats_delta(uint64_t now, uint64_t before)
{
    return now >= before ? now - before : 0;
}

/* delta per second over dt_s seconds; 0 when dt_s is not positive. */
double stats_rate(uint64_t delta, double dt_s);

/* The larger of the two: keeps a total that must not go backwards from doing so. */
static inline uint64_t stats_monotonic(uint64_t prev, uint64_t now)
{
    return now > prev ? now : prev;
}

/* out[b] = now[b] - before[b] bucket by bucket (saturating), n buckets. */
void stats_hist_sub(uint64_t *out, const uint64_t *now, const uint64_t *before, size_t n);

/* Number of samples in a histogram. */
uint64_t stats_hist_count(const uint64_t *hist, size_t n);

/*
 * The q-quantile (0 < q <= 1) of an IOLAB_HIST_BUCKETS histogram, in ns: the midpoint of the
 * bucket that holds the ceil(q * count)-th smallest sample, so it is within half a bucket
 * (about 10%) of the true value. 0 for an empty histogram.
 */
uint64_t stats_hist_quantile(const uint64_t *hist, double q);

/* The upper edge of the highest non-empty bucket (a bound on the maximum), 0 when empty. */
uint64_t stats_hist_max(const uint64_t *hist);

/* p50, p99, p99.9 and max of an IOLAB_HIST_BUCKETS histogram. */
void stats_latency(struct snapshot_latency *out, const uint64_t *hist);

#endif
