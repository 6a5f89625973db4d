/*
 * stats: see stats.h. Bucket b of the histogram holds latencies in
 * [iolab_hist_lower_ns(b), iolab_hist_lower_ns(b + 1)); the last bucket is open-ended and is
 * given the width of the one before it, which is as much as anyone can say about it.
 */
#include "stats.h"

#include <string.h>

#include <math.h>

double stats_rate(uint64_t delta, double dt_s)
{
    return dt_s > 0 ? (double)delta / dt_s : 0.0;
}

void stats_hist_sub(uint64_t *out, const uint64_t *now, const uint64_t *before, size_t n)
{
    for (size_t b = 0; b < n; b++)
        out[b] = stats_delta(now[b], before[b]);
}

uint64_t stats_hist_count(const uint64_t *hist, size_t n)
{
    uint64_t total = 0;
    for (size_t b = 0; b < n; b++)
        total += hist[b];
    return total;
}

static uint64_t stats_bucket_upper(unsigned b)
{
    if (b + 1 < IOLAB_HIST_BUCKETS)
        return iolab_hist_lower_ns(b + 1);
    uint64_t lo = iolab_hist_lower_ns(b);
    return lo + (lo - iolab_hist_lower_ns(b - 1));
}

uint64_t stats_hist_quantile(const uint64_t *hist, double q)
{
    uint64_t total = stats_hist_count(hist, IOLAB_HIST_BUCKETS);
    if (total == 0)
        return 0;
    if (q > 1)
        q = 1;
    /* The rank of the sample the quantile names: at least the first one. */
    uint64_t rank = (uint64_t)ceil(q * (double)total);
    if (rank == 0)
        rank = 1;
    uint64_t seen = 0;
    for (unsigned b = 0; b < IOLAB_HIST_BUCKETS; b++) {
        seen += hist[b];
        if (seen >= rank) {
            uint64_t lo = iolab_hist_lower_ns(b), hi = stats_bucket_upper(b);
            return lo + (hi - lo) / 2;
        }
    }
    return stats_hist_max(hist);
}

uint64_t stats_hist_max(const uint64_t *hist)
{
    for (unsigned b = IOLAB_HIST_BUCKETS; b-- > 0;)
        if (hist[b])
            return stats_bucket_upper(b);
    return 0;
}

void stats_latency(struct snapshot_latency *out, const uint64_t *hist)
{
    out->samples = stats_hist_count(hist, IOLAB_HIST_BUCKETS);
    out->p50_ns = stats_hist_quantile(hist, 0.50);
    out->p99_ns = stats_hist_quantile(hist, 0.99);
    out->p999_ns = stats_hist_quantile(hist, 0.999);
    out->max_ns = stats_hist_max(hist);
}
