// waits: requests still waiting count in the latency, at the pace of the answered ones.
#include <catch2/catch.hpp>

extern "C" {
#include "metrics/stats.h"
#include "metrics/waits.h"
}

#include <vector>

TEST_CASE("a waiting request stands for the requests its connection would have sent", "[waits]")
{
    std::vector<uint64_t> answered(IOLAB_HIST_BUCKETS, 0), waiting(IOLAB_HIST_BUCKETS, 0);
    answered[iolab_hist_bucket(50000)] = 1000; // 1,000 round trips of about 50 us
    // Seven clients waiting about 2 s, as an iterative server leaves them.
    waiting[iolab_hist_bucket(2000000000ull)] = 7;
    struct snapshot_latency lat;
    waits_latency(&lat, answered.data(), waiting.data());
    CHECK(lat.samples == 1007); // real requests, not the stand-ins
    // The stand-ins spread evenly below the wait: they outnumber the answered ones, so the
    // median is about half the wait and p99 close to it.
    CHECK(lat.p50_ns > 500000000ull);
    CHECK(lat.p50_ns < 1500000000ull);
    CHECK(lat.p99_ns > 1500000000ull);
    // Without the waiting ones the answered alone would say 50 us.
    std::vector<uint64_t> none(IOLAB_HIST_BUCKETS, 0);
    waits_latency(&lat, answered.data(), none.data());
    CHECK(lat.p99_ns < 100000);
    CHECK(lat.samples == 1000);
}

TEST_CASE("with nothing answered a waiting request counts once, as long as it waited", "[waits]")
{
    std::vector<uint64_t> answered(IOLAB_HIST_BUCKETS, 0), waiting(IOLAB_HIST_BUCKETS, 0);
    waiting[iolab_hist_bucket(3000000000ull)] = 2;
    std::vector<uint64_t> out(IOLAB_HIST_BUCKETS, 0);
    waits_fold(out.data(), answered.data(), waiting.data());
    CHECK(stats_hist_count(out.data(), IOLAB_HIST_BUCKETS) == 2);
    CHECK(out[iolab_hist_bucket(3000000000ull)] == 2);
}

TEST_CASE("folding a short wait adds about one stand-in per pace", "[waits]")
{
    std::vector<uint64_t> answered(IOLAB_HIST_BUCKETS, 0), waiting(IOLAB_HIST_BUCKETS, 0);
    answered[iolab_hist_bucket(1000000)] = 10; // 1 ms each (bucket midpoint ~1.1 ms)
    waiting[iolab_hist_bucket(100000000)] = 1; // one wait of ~100 ms
    std::vector<uint64_t> out(IOLAB_HIST_BUCKETS, 0);
    waits_fold(out.data(), answered.data(), waiting.data());
    uint64_t added = stats_hist_count(out.data(), IOLAB_HIST_BUCKETS) - 10;
    double pace = waits_mean_ns(answered.data());
    double w = (double)iolab_hist_lower_ns(iolab_hist_bucket(100000000));
    CHECK(added >= (uint64_t)(w / pace) - 1);
    CHECK(added <= (uint64_t)(w / pace) + 1);
}
