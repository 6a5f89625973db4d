/*
 * waits: see waits.h. The stand-ins of one wait W at pace P are the values W - kP > 0, k = 0, 1,
 * ...; the number of them in bucket [lo, hi) is the number of such k with lo <= W - kP < hi,
 * which is counted directly, bucket by bucket, so folding costs the same for a wait of a second
 * or of an hour.
 */
#include "waits.h"
#include "stats.h"

#include <math.h>
#include <string.h>

static double waits_upper(unsigned b)
{
    return b + 1 < IOLAB_HIST_BUCKETS ? (double)iolab_hist_lower_ns(b + 1) : INFINITY;
}

double waits_mean_ns(const uint64_t *hist)
{
    double sum = 0, n = 0;
    for (unsigned b = 0; b < IOLAB_HIST_BUCKETS; b++) {
        if (!hist[b])
            continue;
        double lo = (double)iolab_hist_lower_ns(b), hi = waits_upper(b);
        if (isinf(hi))
            hi = 2 * lo;
        sum += (double)hist[b] * (lo + hi) / 2;
        n += (double)hist[b];
    }
    return n > 0 ? sum / n : 0;
}

/* How many of W, W - P, W - 2P, ... (all > 0) lie in [lo, hi). */
static double waits_in(double w, double p, double lo, double hi)
{
    if (w < lo)
        return 0;
    /* k from kmin (W - kP < hi) to kmax (W - kP >= lo, and W - kP > 0). */
    double kmin = w < hi ? 0 : floor((w - hi) / p) + 1;
    double kmax = floor((w - lo) / p);
    double kpos = ceil(w / p) - 1; /* the last k with W - kP > 0 */
    if (kmax > kpos)
        kmax = kpos;
    return kmax >= kmin ? kmax - kmin + 1 : 0;
}

void waits_fold(uint64_t *out, const uint64_t *answered, const uint64_t *waiting)
{
    double pace = waits_mean_ns(answered);
    if (out != answered)
        memcpy(out, answered, IOLAB_HIST_BUCKETS * sizeof *out);
    for (unsigned wb = 0; wb < IOLAB_HIST_BUCKETS; wb++) {
        if (!waiting[wb])
            continue;
        double w = (double)iolab_hist_lower_ns(wb);
        if (pace <= 0 || w <= 0) {
            out[wb] += waiting[wb];
            continue;
        }
        for (unsigned b = 0; b <= wb; b++) {
            double n = waits_in(w, pace, (double)iolab_hist_lower_ns(b), waits_upper(b));
            out[b] += (uint64_t)n * waiting[wb];
        }
    }
}

void waits_latency(struct snapshot_latency *out, const uint64_t *answered, const uint64_t *waiting)
{
    uint64_t folded[IOLAB_HIST_BUCKETS];
    waits_fold(folded, answered, waiting);
    stats_latency(out, folded);
    out->samples = stats_hist_count(answered, IOLAB_HIST_BUCKETS) +
                   stats_hist_count(waiting, IOLAB_HIST_BUCKETS);
}
