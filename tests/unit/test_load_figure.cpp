// lesson/load_figure: a sweep, a headline, an expected outcome and a prediction name their figure
// in the one figure table, among the names that format accepts; an unknown name is answered with
// the closest of those, or with their list in the table's order.
#include <catch2/catch.hpp>

#include "lesson_helpers.hpp"
#include <cerrno>
#include <cstring>
#include <string>

extern "C" {
#include "lesson/lesson.h"
#include "lesson/sweep.h"
}

using namespace iolab_test;

namespace
{

// A run step with two modes and whatever extra keys a case gives.
std::string lesson_with(const std::string &extra)
{
    return R"({"id": "l", "title": "L", "summary": "s", "steps": [{"id": "s", "title": "S",
      "kind": "run", "text": "x",
      "programs": [{"name": "p", "role": "server", "program": "/bin/true",
                    "args": ["--size", "{size}"]}],
      "modes": [{"id": "a", "title": "A", "program": "p"}, {"id": "b", "title": "B", "program": "p"}])" +
           extra + "}]}";
}

std::string sweep_of(const std::string &figure)
{
    return R"(, "sweep": {"param": "size", "values": ["8", "64"], "figure": ")" + figure + R"("})";
}

std::string expect_of(const std::string &figure)
{
    return R"(, "sweep": {"param": "size", "values": ["8"], "figure": "bytes_per_s"},
      "expect": [{"text": "t", "left": {"mode": "a", "figure": ")" +
           figure + R"("}, "op": ">", "value": 1}])";
}

} // namespace

TEST_CASE("load_figure: a sweep's figure resolves to the table's id, its call with it")
{
    MemLesson l(lesson_with(sweep_of("calls:read/request")));
    INFO(l.messages());
    REQUIRE(l.rc == 0);
    const lesson_sweep *sw = l.scenario()->sweep;
    REQUIRE(sw);
    CHECK(sw->figure == FIGURE_ONE_CALL_PER_REQ);
    CHECK(sw->call == IOLAB_CALL_READ);

    // The same name means the sweep's figure, not the check's.
    MemLesson b(lesson_with(sweep_of("bytes_per_syscr")));
    REQUIRE(b.rc == 0);
    CHECK(b.scenario()->sweep->figure == FIGURE_BYTES_PER_SYSCR);
}

TEST_CASE("load_figure: an unknown figure is answered with the names its format accepts")
{
    struct Case {
        std::string extra, message;
    } cases[] = {
        {sweep_of("zzzzzzzzzzzz"),
         "figure \"zzzzzzzzzzzz\" is not known; use requests_per_s, bytes_per_s, "
         "calls_per_request, calls:NAME/request, syscr_per_request, bytes_per_syscr, "
         "ctx_per_request, cpu_pct, p50_ms or p99_ms."},
        {sweep_of("cpu_pcnt"), "figure \"cpu_pcnt\" is not known; did you mean \"cpu_pct\"?"},
        // A check's figure is not a sweep's.
        {sweep_of("calls:fork"), "figure \"calls:fork\" is not known;"},
        {sweep_of("exit"), "figure \"exit\" is not known;"},
        {expect_of("zzzzzzzzzzzz"),
         "figure \"zzzzzzzzzzzz\" is not known; use requests_per_s, bytes_per_s, "
         "calls_per_request, calls:NAME/request, ctx_per_request, cpu_pct, "
         "uring_enters_per_request, p50_ms, p99_ms or role_cpu_pct."},
        // A sweep's figure that an expected outcome does not compare.
        {expect_of("syscr_per_request"), "figure \"syscr_per_request\" is not known;"},
        {expect_of("calls:nosuchcall/request"),
         "figure \"calls:nosuchcall/request\" is not known;"},
    };
    for (const auto &c : cases) {
        MemLesson l(lesson_with(c.extra));
        INFO(c.extra << "\n" << l.messages());
        CHECK(l.rc == -EINVAL);
        CHECK(l.messages().find(c.message) != std::string::npos);
    }
}
