// Sweeps without processes: the "sweep" and "headline" keys as the loader reads them (and the
// sentences it gives for bad ones), the headline's ratio and sentence that bench and the sweep
// view share, the derived scenario of one value, a point's figures from two recorded snapshots, and
// a result written as JSON and read back.
#include <catch2/catch.hpp>

#include "lesson_helpers.hpp"

#include "helpers.hpp"

extern "C" {
#include "engine/benchmath.h"
#include "engine/sweepio.h"
#include "engine/sweeprun.h"
#include "lesson/lesson.h"
#include "lesson/sweep.h"
}

#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

using namespace iolab_test;

namespace
{

std::string lesson_with(const std::string &step_extra, const std::string &arg = "{size}")
{
    return R"({"id": "l", "title": "L", "summary": "s", "steps": [{"id": "s", "title": "S",
      "kind": "run", "text": "x",
      "programs": [{"name": "p", "role": "client", "program": "/bin/true",
                    "args": ["--size", ")" +
           arg + R"("]}],
      "modes": [{"id": "a", "title": "A", "program": "p"}, {"id": "b", "title": "B", "program": "p"}])" +
           step_extra + "}]}";
}

const std::string good_sweep = R"(, "sweep": {"param": "size", "values": ["8", "64", "4K", "64K"],
  "figure": "bytes_per_s", "seconds": 1},
  "headline": {"seed": "002", "text": "fread wins small", "mode": "b", "base": "a",
               "figure": "bytes_per_s", "ratio": 21, "at": "8", "why": "a call per transfer"})";

} // namespace

TEST_CASE("a sweep and a headline load as data")
{
    MemLesson l(lesson_with(good_sweep));
    INFO(l.messages());
    REQUIRE(l.rc == 0);
    const lesson_sweep *sw = lesson_step_sweep(l.step());
    REQUIRE(sw);
    CHECK(std::string(sw->param) == "size");
    REQUIRE(sw->nvalues == 4);
    CHECK(sw->x[2] == 4096);
    CHECK(sw->x[3] == 65536);
    CHECK(sw->log_x); // 8 to 64K spans far more than a factor of 16
    CHECK(sw->bytes_x);
    CHECK(sw->figure == FIGURE_BYTES_PER_S);
    REQUIRE(sw->nmodes == 2); // every mode when the sweep names none
    CHECK(sw->modes[0] == 0);
    CHECK(sw->modes[1] == 1);
    const lesson_headline *h = lesson_step_headline(l.step());
    REQUIRE(h);
    CHECK(h->mode == 1);
    CHECK(h->base == 0);
    CHECK(h->at == 0);
    CHECK(h->ratio == 21);

    // The point's scenario: {size} replaced by the number in every argument, nothing else changed.
    sweep_derived d;
    REQUIRE(sweep_derive(lesson_step_scenario(l.step()), 2, &d) == 0);
    const lesson_scenario *sc = &d.sc;
    CHECK(std::string(sc->programs[0].args[1]) == "4096");
    CHECK(sc->sweep == nullptr);
    CHECK(std::string(lesson_step_scenario(l.step())->programs[0].args[1]) == "{size}");
    sweep_derived_free(&d);

    char buf[32];
    CHECK(std::string(sweep_x_label(sw, 65536, buf, sizeof buf)) == "64K");
    CHECK(std::string(sweep_x_label(sw, 8, buf, sizeof buf)) == "8");
}

TEST_CASE("bad sweeps are reported at their place with what to do")
{
    struct Case {
        std::string extra, arg, expect;
    } cases[] = {
        {R"(, "sweep": {"param": "size", "values": ["8", "4"], "figure": "bytes_per_s"})", "{size}",
         "from the smallest to the largest"},
        {R"(, "sweep": {"param": "size", "values": ["8", "4X"], "figure": "bytes_per_s"})",
         "{size}", "is not a positive whole number"},
        {R"(, "sweep": {"param": "size", "values": ["8"], "figure": "bytes_per_sec"})", "{size}",
         "did you mean \"bytes_per_s\""},
        {R"(, "sweep": {"param": "port", "values": ["8"], "figure": "bytes_per_s"})", "{port}",
         "not a built-in placeholder"},
        {R"(, "sweep": {"param": "size", "values": ["8"], "figure": "bytes_per_s"})", "8",
         "appears in no program's or mode's arguments"},
        {R"(, "sweep": {"param": "size", "values": ["8"], "figure": "bytes_per_s",
             "modes": ["c"]})",
         "{size}", "mode \"c\" is not one of this step's modes"},
        {"", "{size}", "{size} is not a placeholder"},
        {R"(, "sweep": {"param": "size", "values": ["8"], "figure": "bytes_per_s", "seconds": 0})",
         "{size}", "between 0.2 and"},
        // The sweep measures only its figure: a headline in another one cannot be compared.
        {R"(, "sweep": {"param": "size", "values": ["8"], "figure": "bytes_per_s"},
             "headline": {"seed": "002", "text": "t", "mode": "b", "base": "a",
                          "figure": "requests_per_s", "ratio": 2})",
         "{size}", "the headline's figure \"requests_per_s\" is not its sweep's (bytes_per_s)"},
        {R"(, "sweep": {"param": "size", "values": ["8"], "figure": "calls:read/request"},
             "headline": {"seed": "002", "text": "t", "mode": "b", "base": "a",
                          "figure": "calls:write/request", "ratio": 2})",
         "{size}", "counts another call than its sweep's"},
    };
    for (const auto &c : cases) {
        MemLesson l(lesson_with(c.extra, c.arg));
        INFO(c.extra << "\n" << l.messages());
        CHECK(l.rc == -EINVAL);
        CHECK(l.messages().find(c.expect) != std::string::npos);
        CHECK(l.messages().find("mem/l.json:") != std::string::npos);
    }
}

TEST_CASE("a headline is compared in its sweep's figure and one bad figure is reported once")
{
    // The same figure, or the same call per request, is fine.
    MemLesson same(lesson_with(R"(, "sweep": {"param": "size", "values": ["8"],
        "figure": "calls:read/request"}, "headline": {"seed": "002", "text": "t", "mode": "b",
        "base": "a", "figure": "calls:read/request", "ratio": 2})"));
    INFO(same.messages());
    CHECK(same.rc == 0);
    // An unknown sweep figure is the only complaint: the headline is not also said to differ.
    MemLesson bad(lesson_with(R"(, "sweep": {"param": "size", "values": ["8"],
        "figure": "bytes_per_sec"}, "headline": {"seed": "002", "text": "t", "mode": "b",
        "base": "a", "figure": "bytes_per_s", "ratio": 2})"));
    INFO(bad.messages());
    CHECK(bad.diags.n == 1);
    CHECK(bad.messages().find("did you mean \"bytes_per_s\"") != std::string::npos);
    // A plain step's headline names its own figure: there is no sweep to agree with.
    MemLesson plain(lesson_with(R"(, "headline": {"seed": "000", "text": "t", "mode": "b",
        "base": "a", "figure": "p99_ms", "ratio": 2})",
                                "8"));
    INFO(plain.messages());
    CHECK(plain.rc == 0);
}

TEST_CASE("the headline beside this machine's ratio as bench and the sweep view word it")
{
    // Two values, three rounds, laid out value by value: mode[v * nrounds + r].
    const double mode[] = {10, 20, 30, /* value 1 */ 400, NAN, 600};
    const double base[] = {5, 10, 10, /* value 1 */ 100, 100, 200};
    // Value 0: rounds' ratios 2, 2, 3 -> 2; value 1: 4, (no figure), 3 -> 3.5.
    CHECK(benchmath_headline_ratio(mode, base, 2, 3, 0) == Approx(2));
    CHECK(benchmath_headline_ratio(mode, base, 2, 3, 1) == Approx(3.5));
    CHECK(benchmath_headline_ratio(mode, base, 2, 3, -1) == Approx(2.75)); // median of 2, 3.5
    // One round, as a sweep in the TUI is: the points' own ratio.
    const double one_m[] = {30, 90}, one_b[] = {10, 10};
    CHECK(benchmath_headline_ratio(one_m, one_b, 2, 1, 1) == Approx(9));
    const double zero[] = {0, 0};
    CHECK(std::isnan(benchmath_headline_ratio(one_m, zero, 2, 1, -1)));
    CHECK(std::isnan(benchmath_headline_ratio(one_m, one_b, 2, 1, 5))); // no such value

    char seed[] = "000", text[] = "sendfile 1.94x faster than read+send",
         why[] = "sendfile saves a copy";
    lesson_headline h = {};
    h.seed = seed;
    h.text = text;
    h.why = why;
    h.ratio = 1.94;
    char buf[512];
    benchmath_headline_sentence(&h, "sendfile", "read-send", 1.2, buf, sizeof buf);
    CHECK(std::string(buf) == "seed 000: sendfile 1.94x faster than read+send "
                              "(sendfile/read-send 1.94x); here 1.2x (sendfile saves a copy)");
    benchmath_headline_sentence(&h, "sendfile", "read-send", 1.8, buf, sizeof buf);
    CHECK(std::string(buf) == "seed 000: sendfile 1.94x faster than read+send "
                              "(sendfile/read-send 1.94x); here 1.8x, as in the seed");
    benchmath_headline_sentence(&h, "sendfile", "read-send", NAN, buf, sizeof buf);
    CHECK(std::string(buf).find("not measured here") != std::string::npos);
}

TEST_CASE("a point's figures are the growth between its two snapshots")
{
    static snapshot a, b;
    a = snapshot{};
    b = snapshot{};
    a.elapsed_s = 1;
    b.elapsed_s = 3; // two seconds
    a.roles[LESSON_ROLE_CLIENT].requests = 100;
    b.roles[LESSON_ROLE_CLIENT].requests = 2100; // 2000 requests: 1000/s
    b.roles[LESSON_ROLE_CLIENT].app_bytes = 4096 * 2000;
    b.roles[LESSON_ROLE_SERVER].calls_total = 6000; // 3 per request
    b.roles[LESSON_ROLE_SERVER].syscr = 1000;       // 8192 payload bytes per read
    b.roles[LESSON_ROLE_SERVER].errors = 2;
    b.roles[LESSON_ROLE_SERVER].rchar = 4096 * 2000; // its reads moved every payload byte
    b.roles[LESSON_ROLE_CLIENT].cpu_user_s = 0.5;    // 25% of one core over 2 s
    lesson_sweep sw = {};
    sw.role = LESSON_ROLE_SERVER;
    sw.figure = FIGURE_REQUESTS_PER_S;
    sweep_point p = {};
    sweep_point_measure(&sw, &a, &b, &p);
    CHECK(p.seconds == Approx(2));
    CHECK(p.requests == 2000);
    CHECK(p.fig[FIGURE_REQUESTS_PER_S] == Approx(1000));
    CHECK(p.fig[FIGURE_BYTES_PER_S] == Approx(4096 * 1000));
    CHECK(p.fig[FIGURE_ALL_CALLS_PER_REQ] == Approx(3));
    CHECK(p.fig[FIGURE_BYTES_PER_SYSCR] == Approx(8192));
    CHECK(p.fig[FIGURE_RCHAR_PER_BYTE] == Approx(1));
    CHECK(p.errors == 2);
    CHECK(p.fig[FIGURE_CPU_PCT] == Approx(25));
    CHECK(p.has_figure);
    CHECK(p.figure == Approx(1000));

    // Clients left waiting count in the percentiles (paced as waits.h says), and a stale age
    // counts as a timeout at the point's length: 2000 answered in 1 ms and 100 waiting "for an
    // hour" give a p99 of the point's 2 s, not an hour and not 1 ms.
    b.latency_hist[LESSON_ROLE_CLIENT][iolab_hist_bucket(1000000)] = 2000;
    b.in_flight_hist[LESSON_ROLE_CLIENT][iolab_hist_bucket(3600ull * 1000000000)] = 100;
    b.roles[LESSON_ROLE_CLIENT].waiting = 100;
    sweep_point_measure(&sw, &a, &b, &p);
    CHECK(p.waiting == 100);
    CHECK(p.fig[FIGURE_P99_MS] > 1000);
    CHECK(p.fig[FIGURE_P99_MS] < 2600);

    // Bytes that moved without read calls (splice, a mapping): a read of something else now and
    // then says nothing of how the payload moved, and the point says so.
    b.roles[LESSON_ROLE_SERVER].rchar = 4096;
    sweep_point_measure(&sw, &a, &b, &p);
    CHECK(p.fig[FIGURE_RCHAR_PER_BYTE] < 0.01);

    // Per-request figures need requests; a latency has the clients still waiting.
    sw.figure = FIGURE_ALL_CALLS_PER_REQ;
    b.roles[LESSON_ROLE_CLIENT].requests = 100;
    sweep_point_measure(&sw, &a, &b, &p);
    CHECK_FALSE(p.has_figure);
    CHECK_FALSE(p.has[FIGURE_CTX_PER_REQ]);
    sw.figure = FIGURE_P99_MS;
    sweep_point_measure(&sw, &a, &b, &p);
    CHECK(p.has_figure);
    CHECK(p.figure > 1000);
}

TEST_CASE("a result written as JSON reads back point for point")
{
    MemLesson l(lesson_with(good_sweep));
    REQUIRE(l.rc == 0);
    const lesson_scenario *sc = lesson_step_scenario(l.step());
    static sweep_result r, back;
    r = sweep_result{};
    r.sw = sc->sweep;
    r.nmodes = 2;
    r.modes[0] = 0;
    r.modes[1] = 1;
    strcpy(r.mode_ids[0], "a");
    strcpy(r.mode_ids[1], "b");
    r.nvalues = 4;
    r.seconds = 1;
    r.done = 5; // stopped during the sixth point: value index 2, mode b
    r.stopped = true;
    strcpy(r.tier, "full");
    for (size_t k = 0; k < r.done; k++) {
        sweep_point &p = r.points[k % 2][k / 2];
        p.measured = p.has_figure = true;
        p.figure = 100.0 * (double)(k + 1);
        p.seconds = 1;
        p.requests = k;
        p.fig[FIGURE_RCHAR_PER_BYTE] = k == 1 ? 0.001 : 1;
        p.has[FIGURE_RCHAR_PER_BYTE] = true;
    }
    strcpy(r.points[0][1].problem, "2 errors counted");
    char *json = sweepio_json_text(&r);
    REQUIRE(json);
    REQUIRE(sweepio_parse(json, sc, &back) == 0);
    free(json);
    CHECK(back.done == 5);
    CHECK(back.stopped);
    CHECK_FALSE(back.finished);
    CHECK(back.nmodes == 2);
    CHECK(std::string(back.mode_ids[1]) == "b");
    for (size_t k = 0; k < r.done; k++) {
        INFO("point " << k);
        CHECK(back.points[k % 2][k / 2].figure == Approx(r.points[k % 2][k / 2].figure));
    }
    CHECK(std::string(back.points[0][1].problem) == "2 errors counted");
    CHECK(back.points[1][0].fig[FIGURE_RCHAR_PER_BYTE] == Approx(0.001));
    CHECK(back.points[0][0].fig[FIGURE_RCHAR_PER_BYTE] == Approx(1));
    // A result saved before points kept how their bytes moved: unknown, not "without reads".
    CHECK(sweepio_parse(R"({"modes": ["a", "b"], "points": [{"mode": "a", "value": "8",
        "measured": true, "figure": 1, "bytes_per_syscr": 4096}]})",
                        sc, &back) == 0);
    CHECK_FALSE(back.points[0][0].has[FIGURE_RCHAR_PER_BYTE]);
    CHECK(sweepio_parse("{\"points\": 3}", sc, &back) == -EINVAL);
    CHECK(sweepio_parse("not json", sc, &back) == -EINVAL);
}

TEST_CASE("a sweep stored by an earlier build reads back: its keys, its figures, its outcomes")
{
    MemLesson l(lesson_with(good_sweep));
    REQUIRE(l.rc == 0);
    const lesson_scenario *sc = lesson_step_scenario(l.step());
    static sweep_result back;
    // As the build before points kept their figures by id wrote them (named fields, 0 where a
    // figure was undefined): a point with requests, and one that answered nothing.
    const char *stored = R"({"param": "size", "figure": "requests_per_s", "unit": "/s",
      "seconds_per_point": 1.00, "scale": "log", "tier": "full", "finished": false,
      "stopped": true, "points_done": 2, "values": ["8", "64", "512", "4096"], "modes": ["a", "b"],
      "points": [
        {"mode": "a", "value": "8", "x": 8, "measured": true, "figure": 1000.0, "seconds": 1.000,
         "requests": 1000, "bytes": 4096000, "errors": 0, "connections": 8, "waiting": 0,
         "failed": 0, "requests_per_s": 1000.00, "bytes_per_s": 4096000, "calls_per_request": 3.0000,
         "syscr_per_request": 1.0000, "bytes_per_syscr": 4096.0, "rchar_per_byte": 1.0000,
         "ctx_per_request": 2.5000, "cpu_pct": 25.0, "p50_ms": 1.0000, "p99_ms": 1.5000,
         "problem": null},
        {"mode": "b", "value": "8", "x": 8, "measured": true, "figure": 0.0, "seconds": 1.000,
         "requests": 0, "bytes": 0, "errors": 0, "connections": 8, "waiting": 0, "failed": 0,
         "requests_per_s": 0.00, "bytes_per_s": 0, "calls_per_request": 0.0000,
         "syscr_per_request": 0.0000, "bytes_per_syscr": 0.0, "rchar_per_byte": 0.0000,
         "ctx_per_request": 0.0000, "cpu_pct": 1.0, "p50_ms": 0.0000, "p99_ms": 0.0000,
         "problem": null}]})";
    REQUIRE(sweepio_parse(stored, sc, &back) == 0);
    REQUIRE(back.done == 2);
    const sweep_point &a = back.points[0][0], &b = back.points[1][0];
    CHECK(a.fig[FIGURE_REQUESTS_PER_S] == Approx(1000));
    CHECK(a.fig[FIGURE_BYTES_PER_S] == Approx(4096000));
    CHECK(a.fig[FIGURE_ALL_CALLS_PER_REQ] == Approx(3));
    CHECK(a.fig[FIGURE_SYSCR_PER_REQ] == Approx(1));
    CHECK(a.fig[FIGURE_BYTES_PER_SYSCR] == Approx(4096));
    CHECK(a.fig[FIGURE_RCHAR_PER_BYTE] == Approx(1));
    CHECK(a.fig[FIGURE_CTX_PER_REQ] == Approx(2.5));
    CHECK(a.fig[FIGURE_CPU_PCT] == Approx(25));
    CHECK(a.fig[FIGURE_P50_MS] == Approx(1));
    CHECK(a.fig[FIGURE_P99_MS] == Approx(1.5));
    // An outcome judged on the stored points: figures where they were defined, none where the
    // point answered nothing.
    lesson_expect_side side = {0, FIGURE_CTX_PER_REQ, 0, LESSON_ROLE_SERVER};
    double v = 0;
    REQUIRE(sweep_point_expect_figure(back.sw, &a, &side, &v));
    CHECK(v == Approx(2.5));
    CHECK_FALSE(sweep_point_expect_figure(back.sw, &b, &side, &v));
    side.figure = FIGURE_P99_MS;
    REQUIRE(sweep_point_expect_figure(back.sw, &a, &side, &v));
    CHECK(v == Approx(1.5));
    CHECK_FALSE(sweep_point_expect_figure(back.sw, &b, &side, &v));
    side.figure = FIGURE_REQUESTS_PER_S;
    REQUIRE(sweep_point_expect_figure(back.sw, &b, &side, &v));
    CHECK(v == 0);
    // Written again, it keeps every key it had, with the same values.
    char *json = sweepio_json_text(&back);
    REQUIRE(json);
    std::string out = json;
    free(json);
    for (const char *k :
         {"\"requests_per_s\":1000.00", "\"bytes_per_s\":4096000", "\"calls_per_request\":3.0000",
          "\"syscr_per_request\":1.0000", "\"bytes_per_syscr\":4096.0", "\"rchar_per_byte\":1.0000",
          "\"ctx_per_request\":2.5000", "\"cpu_pct\":25.0", "\"p50_ms\":1.0000",
          "\"p99_ms\":1.5000"}) {
        INFO(k << " in " << out);
        CHECK(out.find(k) != std::string::npos);
    }
}

TEST_CASE("a sweep's table names the rows its step's text sends the learner to")
{
    MemLesson l(lesson_with(R"(, "sweep": {"param": "size", "values": ["8", "4K"],
      "figure": "bytes_per_s", "table": ["bytes_per_syscr", "calls_per_request"]})"));
    INFO(l.messages());
    REQUIRE(l.rc == 0);
    const lesson_sweep *sw = lesson_step_sweep(l.step());
    REQUIRE(sw);
    CHECK(sw->has_table);
    REQUIRE(sw->ntable == 2);
    CHECK(sw->table[0] == FIGURE_BYTES_PER_SYSCR);
    CHECK(sw->table[1] == FIGURE_ALL_CALLS_PER_REQ);
    MemLesson none(lesson_with(good_sweep));
    REQUIRE(none.rc == 0);
    CHECK_FALSE(lesson_step_sweep(none.step())->has_table);

    struct Case {
        std::string table, expect;
    } cases[] = {
        {R"(["calls:read/request"])", "not as a row of its table"},
        {R"(["bytes_per_s"])", "already in the table"},
        {R"(["p99_ms", "p99_ms"])", "already in the table"},
        {R"(["p99_ms", "p50_ms", "cpu_pct", "ctx_per_request"])", "at most 3 figures"},
        {R"(["p99"])", "figure \"p99\" is not known"},
    };
    for (const auto &c : cases) {
        MemLesson bad(lesson_with(R"(, "sweep": {"param": "size", "values": ["8"],
          "figure": "bytes_per_s", "table": )" +
                                  c.table + "}"));
        INFO(c.table << "\n" << bad.messages());
        CHECK(bad.rc == -EINVAL);
        CHECK(bad.messages().find(c.expect) != std::string::npos);
    }
}

TEST_CASE("a sweep's time left comes from its own pace, a lower bound before any point ends")
{
    bool at_least = false;
    // 18 points of 1 s that took 75 s: 4.17 s each. With 12 left and the running one 1 s in,
    // 12 x 4.17 - 1 = 49 s.
    CHECK(sweeprun_estimate(18, 30, 75, 1, 1, &at_least) == Approx(12 * 75.0 / 18 - 1));
    CHECK_FALSE(at_least);
    // A point running past the pace adds nothing until it ends: the points after it still need
    // theirs, and the estimate never falls below them.
    CHECK(sweeprun_estimate(18, 30, 75, 10, 1, &at_least) == Approx(11 * 75.0 / 18));
    // No point done yet: no pace, only the points' own length, and it says so.
    CHECK(sweeprun_estimate(0, 30, 0, 0.5, 1, &at_least) == Approx(29.5));
    CHECK(at_least);
    CHECK(sweeprun_estimate(0, 30, 0, 3, 1, &at_least) == Approx(29));
    // Done: nothing left.
    CHECK(sweeprun_estimate(30, 30, 75, 0, 1, &at_least) == 0);
}
