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

void stats_mode_row_derive(struct snapshot_mode_row *r)
{
    r->requests_per_s = stats_rate(r->requests, r->seconds);
    r->bytes_per_s = stats_rate(r->bytes, r->seconds);
    r->calls_per_request = r->requests ? (double)r->calls / (double)r->requests : 0.0;
    r->ctx_per_request = r->requests ? (double)r->ctx_switches / (double)r->requests : 0.0;
    uint64_t server_calls = 0;
    for (unsigned c = 0; c < IOLAB_NCALLS; c++)
        server_calls += r->role_calls[LESSON_ROLE_SERVER][c];
    r->server_calls_per_request = r->requests ? (double)server_calls / (double)r->requests : 0.0;
    r->cpu_pct = r->seconds > 0 ? 100.0 * r->cpu_s / r->seconds : 0.0;
}

void stats_mode_rows_merge(struct snapshot_mode_row *into, uint32_t *n, uint32_t cap,
                           const struct snapshot_mode_row *rows, uint32_t nrows)
{
    for (uint32_t i = 0; i < nrows; i++) {
        const struct snapshot_mode_row *r = &rows[i];
        uint32_t k = 0;
        while (k < *n && strcmp(into[k].id, r->id) != 0)
            k++;
        if (k == *n) {
            if (*n == cap)
                continue;
            into[(*n)++] = *r;
            continue;
        }
        struct snapshot_mode_row *t = &into[k];
        t->seconds += r->seconds;
        t->requests += r->requests;
        t->bytes += r->bytes;
        t->calls += r->calls;
        t->ctx_switches += r->ctx_switches;
        t->cpu_s += r->cpu_s;
        for (unsigned h = 0; h < IOLAB_HIST_BUCKETS; h++)
            t->hist[h] += r->hist[h];
        /* Who waited is a moment, not a sum: the latest run's (as the sampler keeps it). */
        memcpy(t->in_flight_hist, r->in_flight_hist, sizeof t->in_flight_hist);
        t->in_flight = r->in_flight;
        t->waiting = r->waiting;
        t->in_flight_oldest_ns = r->in_flight_oldest_ns;
        for (int role = 0; role < LESSON_NROLES; role++) {
            t->role_requests[role] += r->role_requests[role];
            t->role_bytes[role] += r->role_bytes[role];
            for (unsigned c = 0; c < IOLAB_NCALLS; c++)
                t->role_calls[role][c] += r->role_calls[role][c];
            t->role_uring_enters[role] += r->role_uring_enters[role];
            t->role_cpu_sys_s[role] += r->role_cpu_sys_s[role];
        }
        stats_mode_row_derive(t);
    }
}
