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

TEST_CASE("mode rows of two runs merge by mode id and their rates are derived again")
{
    struct snapshot_mode_row a[SNAPSHOT_MAX_MODES] = {}, b[2] = {};
    uint32_t n = 1;
    strcpy(a[0].id, "epoll");
    a[0].seconds = 2, a[0].requests = 200, a[0].calls = 400, a[0].cpu_s = 1;
    a[0].role_calls[LESSON_ROLE_SERVER][IOLAB_CALL_READ] = 200;
    stats_mode_row_derive(&a[0]);
    CHECK(a[0].requests_per_s == Approx(100));
    CHECK(a[0].server_calls_per_request == Approx(1));

    strcpy(b[0].id, "epoll");
    b[0].seconds = 2, b[0].requests = 600, b[0].calls = 1200, b[0].cpu_s = 1;
    b[0].role_calls[LESSON_ROLE_SERVER][IOLAB_CALL_READ] = 600;
    b[0].role_calls[LESSON_ROLE_SERVER][IOLAB_CALL_WRITE] = 600;
    strcpy(b[1].id, "fork");
    b[1].seconds = 1, b[1].requests = 10;
    stats_mode_rows_merge(a, &n, SNAPSHOT_MAX_MODES, b, 2);
    REQUIRE(n == 2);
    CHECK(a[0].seconds == Approx(4));
    CHECK(a[0].requests_per_s == Approx(200));            // 800 requests over 4 s
    CHECK(a[0].server_calls_per_request == Approx(1.75)); // 1400 calls for 800 requests
    CHECK(a[0].cpu_pct == Approx(50));
    CHECK(std::string(a[1].id) == "fork");

    // A full table takes no new mode, but still merges the ones it has.
    stats_mode_rows_merge(a, &n, 2, b, 2);
    CHECK(n == 2);
    CHECK(a[1].requests == 20);
}
