// The words and number formats that come from the figure table (metrics/figure.h): a sweep's and
// bench's value text, and an expected outcome's sentence, where the outcome's wording differs
// from the table's unit ("context switches/request" beside "switches/request").
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

extern "C" {
#include "engine/sweepio.h"
#include "grade/expect.h"
#include "lesson/lesson.h"
}

namespace
{

std::string text(figure_id f, double v)
{
    char buf[64];
    return sweepio_figure_text(f, v, buf, sizeof buf);
}

// One mode, "epoll", that ran 3 s and answered 100,000 requests.
struct Fixture {
    lesson_mode mode = {};
    lesson_scenario sc = {};
    mode_span m = {}; // the grader's span of the mode (grade/session.h)
    Fixture()
    {
        mode.id = (char *)"epoll";
        sc.modes = &mode;
        sc.nmodes = 1;
        m.mode = 0;
        m.span.seconds = 3;
        m.span.load_role = LESSON_ROLE_CLIENT;
        m.span.requests = m.span.roles[LESSON_ROLE_CLIENT].requests = 100000;
    }
    std::string say(figure_id f, lesson_cmp op, double bound)
    {
        lesson_expect e = {};
        e.text = (char *)"t";
        e.left = {0, f, 0, LESSON_ROLE_SERVER};
        e.op = op;
        e.value = bound;
        expect_verdict v = expect_judge(&sc, &e, &m, 1);
        char buf[512];
        expect_describe(&sc, &e, &v, nullptr, buf, sizeof buf);
        return buf;
    }
};

} // namespace

TEST_CASE("figure text: each figure's values are written the way its table row says")
{
    CHECK(text(FIGURE_BYTES_PER_S, 4.07e6) == "4.07 MB/s");
    CHECK(text(FIGURE_REQUESTS_PER_S, 182000) == "182k/s");
    CHECK(text(FIGURE_P99_MS, 1.5) == "1.5 ms");
    CHECK(text(FIGURE_P50_MS, 0.25) == "250 us"); // as an outcome's sentence writes it
    CHECK(text(FIGURE_CPU_PCT, 93.4) == "93%");
    CHECK(text(FIGURE_ALL_CALLS_PER_REQ, 2.5) == "2.5");
    CHECK(text(FIGURE_BYTES_PER_SYSCR, 4096) == "4.1k");
    // A latency keeps three figures in the unit that fits: never "1.5e+03 ms".
    CHECK(text(FIGURE_P99_MS, 1500) == "1.5 s");
    CHECK(text(FIGURE_P50_MS, 0.041) == "41 us");
}

TEST_CASE("figure text: an expected outcome's sentence keeps its own words for a figure")
{
    Fixture f;
    f.m.span.requests = f.m.span.roles[LESSON_ROLE_CLIENT].requests = 546000; // 182k/s over 3 s
    f.m.span.roles[LESSON_ROLE_SERVER].ctx = 3 * 546000;
    f.m.span.roles[LESSON_ROLE_SERVER].uring_enters = 2 * 546000;
    CHECK(f.say(FIGURE_REQUESTS_PER_S, LESSON_CMP_GT, 1000) ==
          "epoll 182k requests/s > 1k, as expected");
    CHECK(f.say(FIGURE_CTX_PER_REQ, LESSON_CMP_LT, 5) ==
          "epoll 3 context switches/request < 5, as expected");
    CHECK(f.say(FIGURE_URING_ENTERS_PER_REQ, LESSON_CMP_LT, 5) ==
          "epoll 2 io_uring_enter/request (from the demo) < 5, as expected");
}
