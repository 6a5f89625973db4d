// metrics/figure: what grew between two snapshots (a span) and the one table of figures a
// lesson can name, with each figure's value over a span.
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>

extern "C" {
#include "metrics/figure.h"
}

namespace
{

std::unique_ptr<snapshot> blank(double elapsed)
{
    auto s = std::make_unique<snapshot>();
    memset(s.get(), 0, sizeof *s);
    s->elapsed_s = elapsed;
    return s;
}

} // namespace

TEST_CASE("span: counts grow from the first snapshot to the last and never go negative")
{
    auto a = blank(1.0), b = blank(3.0);
    a->roles[LESSON_ROLE_CLIENT].requests = 100;
    b->roles[LESSON_ROLE_CLIENT].requests = 300;
    a->roles[LESSON_ROLE_CLIENT].app_bytes = 1000;
    b->roles[LESSON_ROLE_CLIENT].app_bytes = 5000;
    a->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK].count = 10;
    b->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK].count = 4; // went backwards: a restart
    b->roles[LESSON_ROLE_SERVER].calls_total = 600;
    a->roles[LESSON_ROLE_SERVER].syscr = 5;
    b->roles[LESSON_ROLE_SERVER].syscr = 205;
    b->roles[LESSON_ROLE_SERVER].ctx_voluntary = 30;
    b->roles[LESSON_ROLE_SERVER].ctx_involuntary = 10;
    a->roles[LESSON_ROLE_SERVER].cpu_user_s = 0.5;
    b->roles[LESSON_ROLE_SERVER].cpu_user_s = 1.5;
    b->roles[LESSON_ROLE_SERVER].cpu_sys_s = 0.5;
    b->roles[LESSON_ROLE_SERVER].nprocs = 7; // a gauge: the last snapshot's

    span s;
    span_between(a.get(), b.get(), nullptr, &s);
    CHECK(s.seconds == Approx(2.0));
    CHECK(s.load_role == LESSON_ROLE_CLIENT);
    CHECK(s.requests == 200);
    CHECK(s.bytes == 4000);
    CHECK(s.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK] == 0);
    CHECK(s.roles[LESSON_ROLE_SERVER].calls_total == 600);
    CHECK(s.roles[LESSON_ROLE_SERVER].syscr == 200);
    CHECK(s.roles[LESSON_ROLE_SERVER].ctx == 40);
    CHECK(s.roles[LESSON_ROLE_SERVER].cpu_user_s == Approx(1.0));
    CHECK(s.roles[LESSON_ROLE_SERVER].cpu_us == 1500000);
    CHECK(s.roles[LESSON_ROLE_SERVER].nprocs == 7);

    // From zero: a run's first snapshot keeps what it holds.
    span z;
    span_between(nullptr, b.get(), nullptr, &z);
    CHECK(z.seconds == Approx(3.0));
    CHECK(z.requests == 300);
    CHECK(z.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK] == 4);
}

TEST_CASE("span: the learner's own published requests do not count, and a lone server is the load")
{
    auto a = blank(0), b = blank(1);
    b->nprogs = 2;
    b->progs[0].role = LESSON_ROLE_SERVER;
    b->progs[0].f.requests = 1000; // the learner's claim
    b->progs[1].role = LESSON_ROLE_SERVER;
    b->progs[1].f.requests = 7;
    b->roles[LESSON_ROLE_SERVER].requests = 1007;
    span_opts opts = {0};
    span s;
    span_between(a.get(), b.get(), &opts, &s);
    CHECK(s.roles[LESSON_ROLE_SERVER].requests == 7);
    // No client published anything: the server's figures are the load's.
    CHECK(s.load_role == LESSON_ROLE_SERVER);
    CHECK(s.requests == 7);
}

TEST_CASE("figures: every name is found once per format, with its unit and the better way")
{
    unsigned call = 99;
    const figure_def *f = figure_find("requests_per_s", &call);
    REQUIRE(f);
    CHECK(f->better == FIGURE_HIGHER);
    CHECK(std::string(f->unit) == "/s");
    CHECK(call == 0);

    f = figure_find("calls:fork", &call);
    REQUIRE(f);
    CHECK(std::string(f->name) == "calls:");
    CHECK(call == IOLAB_CALL_FORK);
    f = figure_find("calls:read/request", &call);
    REQUIRE(f);
    CHECK(std::string(f->name) == "calls:NAME/request");
    CHECK(call == IOLAB_CALL_READ);
    f = figure_find("calls_per_request:write", &call);
    REQUIRE(f);
    CHECK(std::string(f->name) == "calls_per_request:");
    CHECK(call == IOLAB_CALL_WRITE);
    CHECK_FALSE(figure_find("calls:nosuchcall", &call));
    CHECK_FALSE(figure_find("requests_per_hour", &call));
    CHECK_FALSE(figure_find_in("exit", FIGURE_IN_SWEEP, &call));
    CHECK_FALSE(figure_find_in("calls:fork", FIGURE_IN_SWEEP, &call));

    // One name, two figures: a check's bytes_per_syscr is rchar per read call, a sweep's the
    // load's payload bytes per read call.
    const figure_def *chk = figure_find_in("bytes_per_syscr", FIGURE_IN_CHECK, &call);
    const figure_def *swp = figure_find_in("bytes_per_syscr", FIGURE_IN_SWEEP, &call);
    REQUIRE(chk);
    REQUIRE(swp);
    CHECK(chk != swp);

    // Every figure of the table is found by its own name in the formats it lists.
    CHECK(figure_count() == FIGURE_NIDS);
    for (size_t i = 0; i < figure_count(); i++) {
        const figure_def *d = figure_at(static_cast<figure_id>(i));
        REQUIRE(d);
        REQUIRE(d->name);
        INFO(d->name);
        CHECK(figure_id_of(d) == static_cast<figure_id>(i));
        CHECK(d->label[0]);
        if (!d->per_call) {
            CHECK(figure_find_in(d->name, d->where, &call) == d);
        }
    }
    CHECK(figure_at(FIGURE_NIDS) == nullptr);
    // The ids name the table's rows.
    CHECK(figure_find_in("bytes_per_syscr", FIGURE_IN_CHECK, &call) ==
          figure_at(FIGURE_RCHAR_PER_SYSCR));
    CHECK(figure_find_in("bytes_per_syscr", FIGURE_IN_SWEEP, &call) ==
          figure_at(FIGURE_BYTES_PER_SYSCR));
    CHECK(figure_find("calls:fork", &call) == figure_at(FIGURE_CALLS));
    CHECK(figure_find("calls:read/request", &call) == figure_at(FIGURE_ONE_CALL_PER_REQ));
}

TEST_CASE("figures: values over a span, and per-request figures undefined without requests")
{
    auto a = blank(0), b = blank(2);
    b->roles[LESSON_ROLE_CLIENT].requests = 100;
    b->roles[LESSON_ROLE_CLIENT].app_bytes = 8000;
    b->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ].count = 250;
    b->roles[LESSON_ROLE_SERVER].calls_total = 400;
    b->roles[LESSON_ROLE_SERVER].syscr = 200;
    b->roles[LESSON_ROLE_SERVER].rchar = 10000;
    b->roles[LESSON_ROLE_SERVER].cpu_sys_s = 0.5;
    span s;
    span_between(a.get(), b.get(), nullptr, &s);
    unsigned call = 0;
    figure_arg arg = {LESSON_ROLE_SERVER, 0, 0, 0, 0};
    double v = -1;

    REQUIRE(figure_find("requests_per_s", &call)->value(&s, &arg, &v));
    CHECK(v == Approx(50));
    REQUIRE(figure_find("calls_per_request", &call)->value(&s, &arg, &v));
    CHECK(v == Approx(4));
    const figure_def *f = figure_find("calls:read/request", &arg.call);
    REQUIRE(f->value(&s, &arg, &v));
    CHECK(v == Approx(2.5));
    REQUIRE(figure_find("cpu_pct", &call)->value(&s, &arg, &v));
    CHECK(v == Approx(25));
    REQUIRE(figure_find_in("bytes_per_syscr", FIGURE_IN_CHECK, &call)->value(&s, &arg, &v));
    CHECK(v == Approx(50)); // rchar / syscr
    REQUIRE(figure_find_in("bytes_per_syscr", FIGURE_IN_SWEEP, &call)->value(&s, &arg, &v));
    CHECK(v == Approx(40)); // payload bytes / syscr

    // No request: a ratio over nothing is not a figure.
    auto c = blank(2);
    span none;
    span_between(a.get(), c.get(), nullptr, &none);
    CHECK_FALSE(figure_find("calls_per_request", &call)->value(&none, &arg, &v));
    CHECK_FALSE(figure_find("p99_ms", &call)->value(&none, &arg, &v));
}

TEST_CASE("figures: unmapped_per_mapped is munmap()'s bytes over mmap()'s, none before a mapping")
{
    auto a = blank(0), b = blank(2);
    span s;
    unsigned call = 0;
    figure_arg arg = {LESSON_ROLE_SERVER, 0, 0, 0, 0};
    double v = -1;
    const figure_def *f = figure_find("unmapped_per_mapped", &call);
    REQUIRE(f);
    span_between(a.get(), b.get(), nullptr, &s);
    CHECK_FALSE(f->value(&s, &arg, &v)); // nothing mapped: no figure
    // Ten mappings of 1 MiB, each unmapped one page only: 4 KiB of every MiB released.
    b->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_MMAP].bytes = 10 << 20;
    b->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_MUNMAP].bytes = 10 * 4096;
    span_between(a.get(), b.get(), nullptr, &s);
    REQUIRE(f->value(&s, &arg, &v));
    CHECK(v == Approx(4096.0 / (1 << 20)));
    b->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_MUNMAP].bytes = 10 << 20; // each whole
    span_between(a.get(), b.get(), nullptr, &s);
    REQUIRE(f->value(&s, &arg, &v));
    CHECK(v == Approx(1));
}

TEST_CASE("figures: a latency is the answered and the waiting requests', capped at the span")
{
    // Nothing answered, three clients waiting "for an hour" (a stale age) at the end of a span
    // of 2 s: the latency is theirs, as long as the span, whatever the gauge says.
    auto a = blank(1), b = blank(3);
    b->in_flight_hist[LESSON_ROLE_CLIENT][iolab_hist_bucket(3600ull * 1000000000)] = 3;
    span s;
    span_between(a.get(), b.get(), nullptr, &s);
    double p99 = 0, p50 = 0;
    REQUIRE(figure_value(FIGURE_P99_MS, &s, nullptr, &p99));
    REQUIRE(figure_value(FIGURE_P50_MS, &s, nullptr, &p50));
    CHECK(p99 > 1500);
    CHECK(p99 < 2600);
    snapshot_latency lat;
    span_latency(&s, &lat);
    CHECK(lat.samples == 3);
    CHECK(p99 == Approx((double)lat.p99_ns / 1e6));
    // Answered requests set the pace of the waits; with neither, no latency at all.
    auto c = blank(3);
    span_between(a.get(), c.get(), nullptr, &s);
    CHECK_FALSE(figure_value(FIGURE_P99_MS, &s, nullptr, &p99));
}

TEST_CASE("snapshot_figures_between: every count grows, every gauge is the last one's")
{
    snapshot_figures a = {}, b = {};
    a.calls[IOLAB_CALL_READ].count = 10;
    b.calls[IOLAB_CALL_READ].count = 30;
    b.calls[IOLAB_CALL_READ].ns = 500;
    a.calls[IOLAB_CALL_WRITE].count = 9; // went backwards: a restart counts nothing
    b.calls[IOLAB_CALL_WRITE].count = 4;
    a.cpu_user_s = 2;
    b.cpu_user_s = 1.5; // clamped at zero
    b.cpu_sys_s = 0.25;
    b.read_bytes = 4096;
    a.conns_closed = 2;
    b.conns_closed = 5;
    b.failed[0][1] = 3;
    b.shed = 1;
    b.fd.faults[0] = 7;
    b.uring_enters = 11;
    b.nprocs = 4; // gauges
    b.waiting = 2;
    b.in_flight_oldest_ns = 123;
    b.rss_bytes = 1 << 20;
    snapshot_figures d;
    snapshot_figures_between(&a, &b, &d);
    CHECK(d.calls[IOLAB_CALL_READ].count == 20);
    CHECK(d.calls[IOLAB_CALL_READ].ns == 500);
    CHECK(d.calls[IOLAB_CALL_WRITE].count == 0);
    CHECK(d.cpu_user_s == 0);
    CHECK(d.cpu_sys_s == Approx(0.25));
    CHECK(d.read_bytes == 4096);
    CHECK(d.conns_closed == 3);
    CHECK(d.failed[0][1] == 3);
    CHECK(d.shed == 1);
    CHECK(d.fd.faults[0] == 7);
    CHECK(d.uring_enters == 11);
    CHECK(d.nprocs == 4);
    CHECK(d.waiting == 2);
    CHECK(d.in_flight_oldest_ns == 123);
    CHECK(d.rss_bytes == 1u << 20);
    // From zero (a NULL first), everything is b's.
    snapshot_figures_between(nullptr, &b, &d);
    CHECK(d.calls[IOLAB_CALL_WRITE].count == 4);
    CHECK(d.cpu_user_s == Approx(1.5));
}

TEST_CASE("figure_role and figure_format: one clamp, one formatter")
{
    CHECK(figure_role(-1) == LESSON_ROLE_SERVER);
    CHECK(figure_role(LESSON_NROLES) == LESSON_ROLE_SERVER);
    CHECK(figure_role(LESSON_ROLE_CLIENT) == LESSON_ROLE_CLIENT);
    char buf[32];
    CHECK(std::string(figure_format_si(182000, "", "", false, buf, sizeof buf)) == "182k");
    CHECK(std::string(figure_format_si(4.07e6, " ", "B", false, buf, sizeof buf)) == "4.07 MB");
    CHECK(std::string(figure_format_si(999.7, "", "", false, buf, sizeof buf)) == "1k");
    CHECK(std::string(figure_format_si(0.53, "", "", false, buf, sizeof buf)) == "0.53");
    CHECK(std::string(figure_format_si(-1500, "", "", false, buf, sizeof buf)) == "-1.5k");
    // Fixed width, for columns that update: trailing zeros stay.
    CHECK(std::string(figure_format_si(4000, "", "", true, buf, sizeof buf)) == "4.00k");
    CHECK(std::string(figure_format_si(12.7, "", "", true, buf, sizeof buf)) == "13");
    CHECK(std::string(figure_format_si(2.5, "", "B", true, buf, sizeof buf)) == "2.5B");
    // By the table's .show.
    CHECK(std::string(figure_format(FIGURE_REQUESTS_PER_S, 182000, buf, sizeof buf)) == "182k/s");
    CHECK(std::string(figure_format(FIGURE_BYTES_PER_S, 4.07e6, buf, sizeof buf)) == "4.07 MB/s");
    CHECK(std::string(figure_format(FIGURE_P99_MS, 92.3, buf, sizeof buf)) == "92.3 ms");
    CHECK(std::string(figure_format(FIGURE_CPU_PCT, 93.4, buf, sizeof buf)) == "93%");
    CHECK(std::string(figure_format(FIGURE_CTX_PER_REQ, 2.5, buf, sizeof buf)) == "2.5");
}

TEST_CASE("span_add: counts and time add, gauges keep their peak, ratios are of the sums")
{
    auto a = blank(0), b = blank(2), c = blank(5);
    b->roles[LESSON_ROLE_CLIENT].requests = 100;
    b->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ].count = 300;
    b->roles[LESSON_ROLE_CLIENT].calls[IOLAB_CALL_READ].count = 20;
    b->roles[LESSON_ROLE_SERVER].syscr = 10;
    b->roles[LESSON_ROLE_SERVER].rchar = 1000;
    b->roles[LESSON_ROLE_SERVER].nthreads = 9;
    b->roles[LESSON_ROLE_SERVER].nfds = 12; // descriptors one process held: a leak's peak
    c->roles[LESSON_ROLE_CLIENT].requests = 400;
    c->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ].count = 900;
    c->roles[LESSON_ROLE_SERVER].syscr = 40;
    c->roles[LESSON_ROLE_SERVER].rchar = 16000;
    c->roles[LESSON_ROLE_SERVER].nthreads = 2;
    c->roles[LESSON_ROLE_SERVER].nfds = 5;
    span first, second, acc;
    span_between(a.get(), b.get(), nullptr, &first);
    span_between(b.get(), c.get(), nullptr, &second);
    memset(&acc, 0, sizeof acc);
    span_add(&acc, &first);
    span_add(&acc, &second);
    CHECK(acc.seconds == Approx(5));
    CHECK(acc.roles[LESSON_ROLE_CLIENT].requests == 400);
    CHECK(acc.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ] == 900);
    CHECK(acc.roles[LESSON_ROLE_SERVER].nthreads == 9); // the peak, not the last nor the sum

    double v = 0;
    figure_arg server = {LESSON_ROLE_SERVER, IOLAB_CALL_READ, 0, 0, 0};
    REQUIRE(figure_at(FIGURE_RCHAR_PER_SYSCR)->value(&acc, &server, &v));
    CHECK(v == Approx(400)); // 16000 bytes over 40 reads, not the mean of 100 and 500
    REQUIRE(figure_at(FIGURE_PEAK_THREADS)->value(&acc, &server, &v));
    CHECK(v == 9);
    REQUIRE(figure_at(FIGURE_PEAK_FDS)->value(&acc, &server, &v));
    CHECK(v == 12); // the peak: a process that leaked and then died still leaked
    CHECK(figure_find_in("peak_fds", FIGURE_IN_CHECK, nullptr) == figure_at(FIGURE_PEAK_FDS));
    // A check's calls_per_request:read divides by the client's requests; role -1 counts every
    // role's calls.
    REQUIRE(figure_at(FIGURE_CHECK_CALL_PER_REQ)->value(&acc, &server, &v));
    CHECK(v == Approx(900.0 / 400));
    figure_arg every = {-1, IOLAB_CALL_READ, 0, 0, 0};
    REQUIRE(figure_at(FIGURE_CALLS)->value(&acc, &every, &v));
    CHECK(v == 920);
}

TEST_CASE("per byte served: the bytes a call moved, as far as the kernel confirms them")
{
    auto a = blank(0), b = blank(2);
    const uint64_t mib = 1 << 20;
    b->roles[LESSON_ROLE_CLIENT].app_bytes = 20 * mib; // what the client received and checked
    snapshot_figures &srv = b->roles[LESSON_ROLE_SERVER];
    srv.calls[IOLAB_CALL_SENDFILE].count = 320;
    srv.calls[IOLAB_CALL_SENDFILE].bytes = 20 * mib;
    srv.rchar = 20 * mib + 832; // sendfile() adds to both, the loader's read to rchar
    srv.wchar = 20 * mib + 20;
    span s;
    span_between(a.get(), b.get(), nullptr, &s);
    unsigned call = 0;
    const figure_def *f = figure_find_in("bytes_per_byte_served:sendfile", FIGURE_IN_CHECK, &call);
    REQUIRE(f == figure_at(FIGURE_CALL_BYTES_PER_BYTE));
    CHECK(call == IOLAB_CALL_SENDFILE);
    figure_arg arg = {LESSON_ROLE_SERVER, call, 0, 0, 0};
    double v = -1;
    REQUIRE(f->value(&s, &arg, &v));
    CHECK(v == Approx(1.0));
    REQUIRE(figure_find_in("rchar_per_byte_served", FIGURE_IN_CHECK, &call)->value(&s, &arg, &v));
    CHECK(v == Approx(1.0).epsilon(0.001));
    REQUIRE(figure_find_in("wchar_per_byte_served", FIGURE_IN_CHECK, &call)->value(&s, &arg, &v));
    CHECK(v == Approx(1.0).epsilon(0.001));
    // Not names of the other formats, nor of calls the page does not count.
    CHECK(figure_find_in("rchar_per_byte_served", FIGURE_IN_SWEEP, &call) == nullptr);
    CHECK(figure_find_in("bytes_per_byte_served:nosuchcall", FIGURE_IN_CHECK, &call) == nullptr);

    // A slot that claims sendfile()'s bytes the kernel never wrote (the file went out by send(),
    // which wchar does not count): only what the kernel saw counts.
    srv.wchar = 40;
    span_between(a.get(), b.get(), nullptr, &s);
    REQUIRE(f->value(&s, &arg, &v));
    CHECK(v < 0.001);

    // An extra copy of each file through the program: rchar twice the bytes served.
    srv.wchar = 20 * mib;
    srv.rchar = 40 * mib;
    span_between(a.get(), b.get(), nullptr, &s);
    REQUIRE(figure_at(FIGURE_RCHAR_PER_BYTE)->value(&s, &arg, &v));
    CHECK(v == Approx(2.0));

    // Zero-length sendfile() calls beside a copy: counted, but they moved nothing.
    srv.calls[IOLAB_CALL_SENDFILE].bytes = 0;
    span_between(a.get(), b.get(), nullptr, &s);
    REQUIRE(f->value(&s, &arg, &v));
    CHECK(v == 0);

    // Nothing served: no figure; a step of one program divides by its files instead.
    b->roles[LESSON_ROLE_CLIENT].app_bytes = 0;
    srv.calls[IOLAB_CALL_SENDFILE].bytes = 10 * mib;
    span_between(a.get(), b.get(), nullptr, &s);
    CHECK_FALSE(f->value(&s, &arg, &v));
    CHECK_FALSE(figure_at(FIGURE_WCHAR_PER_BYTE)->value(&s, &arg, &v));
    arg.files_bytes = 10 * mib;
    REQUIRE(f->value(&s, &arg, &v));
    CHECK(v == Approx(1.0));
    REQUIRE(figure_at(FIGURE_RCHAR_PER_BYTE)->value(&s, &arg, &v));
    CHECK(v == Approx(4.0));
}

TEST_CASE("span_add: the bytes of each call and the kernel's wchar add")
{
    auto a = blank(0), b = blank(1), c = blank(2);
    b->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_SENDFILE].bytes = 100;
    b->roles[LESSON_ROLE_SERVER].wchar = 150;
    c->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_SENDFILE].bytes = 300;
    c->roles[LESSON_ROLE_SERVER].wchar = 400;
    span first, second, acc;
    span_between(a.get(), b.get(), nullptr, &first);
    span_between(b.get(), c.get(), nullptr, &second);
    memset(&acc, 0, sizeof acc);
    span_add(&acc, &first);
    span_add(&acc, &second);
    CHECK(acc.roles[LESSON_ROLE_SERVER].call_bytes[IOLAB_CALL_SENDFILE] == 300);
    CHECK(acc.roles[LESSON_ROLE_SERVER].wchar == 400);
}

TEST_CASE("figures as a view shows them: none without a request done, none for calls the shim "
          "cannot see, never a 0 in their place")
{
    // stdio/small's read mode before its first pass: 1.1M read calls, no pass done.
    auto a = blank(0), b = blank(3);
    b->roles[LESSON_ROLE_CLIENT].calls[IOLAB_CALL_READ].count = 1100000;
    b->roles[LESSON_ROLE_CLIENT].calls_total = 1100000;
    b->roles[LESSON_ROLE_CLIENT].syscr = 1100000;
    b->roles[LESSON_ROLE_CLIENT].ctx_voluntary = 40;
    b->roles[LESSON_ROLE_CLIENT].cpu_sys_s = 0.6;
    span s;
    span_between(a.get(), b.get(), nullptr, &s);
    double v = -1;
    CHECK(figure_shown(&s, FIGURE_ALL_CALLS_PER_REQ, LESSON_ROLE_CLIENT, &v) ==
          FIGURE_NONE_NOTHING);
    CHECK(v == 0);
    CHECK(figure_shown(&s, FIGURE_SYSCR_PER_REQ, LESSON_ROLE_CLIENT, &v) == FIGURE_NONE_NOTHING);
    CHECK(figure_shown(&s, FIGURE_CTX_PER_REQ, LESSON_ROLE_CLIENT, &v) == FIGURE_NONE_NOTHING);
    // A rate over time is a figure: no pass done in 3 s is 0 passes/s; CPU likewise.
    CHECK(figure_shown(&s, FIGURE_REQUESTS_PER_S, LESSON_ROLE_CLIENT, &v) == FIGURE_HAS_VALUE);
    CHECK(v == 0);
    CHECK(figure_shown(&s, FIGURE_CPU_PCT, LESSON_ROLE_CLIENT, &v) == FIGURE_HAS_VALUE);
    CHECK(v == Approx(20));

    // Once a pass is done: fread's counted reads and the kernel's, side by side.
    b->roles[LESSON_ROLE_CLIENT].requests = 2;
    b->roles[LESSON_ROLE_CLIENT].calls[IOLAB_CALL_READ].count = 0;
    b->roles[LESSON_ROLE_CLIENT].calls_total = 1;
    b->roles[LESSON_ROLE_CLIENT].syscr = 8192;
    span_between(a.get(), b.get(), nullptr, &s);
    CHECK(figure_shown(&s, FIGURE_ALL_CALLS_PER_REQ, LESSON_ROLE_CLIENT, &v) == FIGURE_HAS_VALUE);
    CHECK(v == Approx(0.5));
    CHECK(figure_shown(&s, FIGURE_SYSCR_PER_REQ, LESSON_ROLE_CLIENT, &v) == FIGURE_HAS_VALUE);
    CHECK(v == Approx(4096));

    // c10k's io_uring server: its receives and sends go through the ring, which the demo
    // counts and the shim cannot see. Its counted calls per request are not a figure.
    auto e = blank(3);
    e->roles[LESSON_ROLE_CLIENT].requests = 30000;
    e->roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_ACCEPT4].count = 10;
    e->roles[LESSON_ROLE_SERVER].calls_total = 10;
    e->roles[LESSON_ROLE_SERVER].uring_enters = 2500;
    e->roles[LESSON_ROLE_SERVER].uring_submissions = 60000;
    span ring;
    span_between(a.get(), e.get(), nullptr, &ring);
    CHECK(span_role_ring(&ring, LESSON_ROLE_SERVER));
    CHECK_FALSE(span_role_ring(&ring, LESSON_ROLE_CLIENT));
    CHECK(figure_shown(&ring, FIGURE_ALL_CALLS_PER_REQ, LESSON_ROLE_SERVER, &v) ==
          FIGURE_NONE_RING);
    CHECK(v == 0);
    // The table itself still has the figure, which an expected outcome reads ("the shim sees
    // almost none of the io_uring server's work").
    figure_arg arg = {LESSON_ROLE_SERVER, 0, 0, 0, 0};
    REQUIRE(figure_at(FIGURE_ALL_CALLS_PER_REQ)->value(&ring, &arg, &v));
    CHECK(v == Approx(10.0 / 30000));
    // The client's calls, and the demo's own count, are figures.
    CHECK(figure_shown(&ring, FIGURE_URING_ENTERS_PER_REQ, LESSON_ROLE_SERVER, &v) ==
          FIGURE_HAS_VALUE);
    CHECK(v == Approx(2500.0 / 30000));
}

TEST_CASE("figure_unit_one: a step's unit, one of it, for a figure's label per unit")
{
    char buf[32];
    CHECK(std::string(figure_unit_one("passes", buf, sizeof buf)) == "pass");
    CHECK(std::string(figure_unit_one("copies", buf, sizeof buf)) == "copy");
    CHECK(std::string(figure_unit_one("uploads", buf, sizeof buf)) == "upload");
    CHECK(std::string(figure_unit_one("downloads", buf, sizeof buf)) == "download");
    CHECK(std::string(figure_unit_one("requests", buf, sizeof buf)) == "request");
    CHECK(std::string(figure_unit_one("batches", buf, sizeof buf)) == "batch");
    CHECK(std::string(figure_unit_one("boxes", buf, sizeof buf)) == "box");
    CHECK(std::string(figure_unit_one(nullptr, buf, sizeof buf)) == "request");
    CHECK(std::string(figure_unit_one("", buf, sizeof buf)) == "request");
    // A word with no plural ending is left as it is; a small buffer is cut, never overrun.
    CHECK(std::string(figure_unit_one("progress", buf, sizeof buf)) == "progress");
    char small[4];
    CHECK(std::string(figure_unit_one("passes", small, sizeof small)) == "pas");
}
