// stats: saturating deltas, rates, and percentiles read from the counter page's histogram.
#include <catch2/catch.hpp>

extern "C" {
#include "metrics/stats.h"
}

#include <cstring>
#include <string>
#include <vector>

TEST_CASE("a counter that goes backwards gives a zero delta, not a huge one")
{
    CHECK(stats_delta(10, 4) == 6);
    CHECK(stats_delta(4, 10) == 0);
    CHECK(stats_delta(UINT64_MAX, 0) == UINT64_MAX);
    CHECK(stats_monotonic(7, 5) == 7);
    CHECK(stats_monotonic(7, 9) == 9);
}

TEST_CASE("rates are per second of real elapsed time and zero over no time")
{
    CHECK(stats_rate(50, 0.5) == Approx(100.0));
    CHECK(stats_rate(50, 0.0) == 0.0);
    CHECK(stats_rate(50, -1.0) == 0.0);
}

static std::vector<uint64_t> hist_of(const std::vector<std::pair<uint64_t, uint64_t>> &samples)
{
    std::vector<uint64_t> h(IOLAB_HIST_BUCKETS, 0);
    for (auto &s : samples)
        h[iolab_hist_bucket(s.first)] += s.second;
    return h;
}

TEST_CASE("percentiles of a known histogram land within a bucket of the true value")
{
    // 900 requests at 50 us, 90 at 1 ms, 9 at 10 ms, 1 at 200 ms.
    auto h = hist_of({{50000, 900}, {1000000, 90}, {10000000, 9}, {200000000, 1}});
    CHECK(stats_hist_count(h.data(), h.size()) == 1000);
    uint64_t p50 = stats_hist_quantile(h.data(), 0.5);
    uint64_t p99 = stats_hist_quantile(h.data(), 0.99);
    uint64_t p999 = stats_hist_quantile(h.data(), 0.999);
    CHECK(p50 >= iolab_hist_lower_ns(iolab_hist_bucket(50000)));
    CHECK(p50 < iolab_hist_lower_ns(iolab_hist_bucket(50000) + 1));
    CHECK(std::abs((double)p50 - 50000.0) / 50000.0 < 0.2);
    CHECK(std::abs((double)p99 - 1e6) / 1e6 < 0.2);
    CHECK(std::abs((double)p999 - 1e7) / 1e7 < 0.2);
    uint64_t mx = stats_hist_max(h.data());
    CHECK(mx > 200000000);
    CHECK(mx < 200000000 * 1.3);
    struct snapshot_latency lat;
    stats_latency(&lat, h.data());
    CHECK(lat.samples == 1000);
    CHECK(lat.p50_ns == p50);
    CHECK(lat.p99_ns == p99);
    CHECK(lat.p999_ns == p999);
    CHECK(lat.max_ns == mx);
}

TEST_CASE("an empty histogram has no percentiles, and a single sample is every percentile")
{
    std::vector<uint64_t> h(IOLAB_HIST_BUCKETS, 0);
    CHECK(stats_hist_quantile(h.data(), 0.5) == 0);
    CHECK(stats_hist_max(h.data()) == 0);
    h[iolab_hist_bucket(3000)] = 1;
    uint64_t q = stats_hist_quantile(h.data(), 0.5);
    CHECK(q == stats_hist_quantile(h.data(), 0.999));
    CHECK(std::abs((double)q - 3000.0) / 3000.0 < 0.2);
}

TEST_CASE("the percentiles of an interval come from the difference of two histograms")
{
    auto before = hist_of({{50000, 1000}});
    auto now = hist_of({{50000, 1000}, {5000000, 10}});
    std::vector<uint64_t> d(IOLAB_HIST_BUCKETS);
    stats_hist_sub(d.data(), now.data(), before.data(), d.size());
    CHECK(stats_hist_count(d.data(), d.size()) == 10);
    CHECK(std::abs((double)stats_hist_quantile(d.data(), 0.5) - 5e6) / 5e6 < 0.2);
    // Backwards (a reset): saturates at zero.
    stats_hist_sub(d.data(), before.data(), now.data(), d.size());
    CHECK(stats_hist_count(d.data(), d.size()) == 0);
}
