// The check evaluator: which figure a check reads (mode, role, metric) and the progress line.
#include <catch2/catch.hpp>
#include <string>

extern "C" {
#include "lesson/check.h"
}

namespace
{
// The scenario whose modes the checks below name: epoll, fork, thread (indices 0, 1, 2).
lesson_mode modes3[3] = {};
lesson_scenario sc3 = [] {
    const char *ids[] = {"epoll", "fork", "thread"};
    for (int i = 0; i < 3; i++)
        modes3[i].id = const_cast<char *>(ids[i]);
    lesson_scenario s = {};
    s.modes = modes3;
    s.nmodes = 3;
    return s;
}();

// A typed check, as the loader builds it from the names a lesson writes.
lesson_check make(const char *mode, const char *metric, const char *role, double min)
{
    lesson_check c = {};
    c.text = const_cast<char *>("t");
    c.mode = mode ? lesson_mode_find(&sc3, mode) : -1;
    if (check_figure_parse(metric, &c.figure, &c.call) < 0)
        c.figure = static_cast<figure_id>(99); // what no loader lets through
    c.role = !role ? -1 : std::string(role) == "server" ? LESSON_ROLE_SERVER : LESSON_ROLE_CLIENT;
    c.has_min = true;
    c.min = min;
    return c;
}
} // namespace

TEST_CASE("metrics parse, and every listed name parses")
{
    figure_id m;
    unsigned call = 0;
    REQUIRE(check_figure_parse("calls:epoll_wait", &m, &call) == 0);
    CHECK(m == FIGURE_CALLS);
    CHECK(call == IOLAB_CALL_EPOLL_WAIT);
    CHECK(check_figure_parse("calls:", &m, &call) == -EINVAL);
    CHECK(check_figure_parse("calls:clone", &m, &call) == -EINVAL); // labels, not strace names
    CHECK(check_figure_parse("Seconds", &m, &call) == -EINVAL);
    char buf[64];
    size_t n = 0;
    while (const char *name = check_figure_name(n, buf, sizeof buf)) {
        CHECK(check_figure_parse(name, &m, &call) == 0);
        n++;
    }
    // 3 for any step, 12 for exercises (exit, output, syscr, ..., spawns, cpu_ms_per_request,
    // peak_fds), 2 per byte served (rchar, wchar), unmapped_per_mapped, then calls:NAME,
    // calls_per_request:NAME and bytes_per_byte_served:NAME for every counted call.
    CHECK(n == 18 + 3 * IOLAB_NCALLS);
    REQUIRE(check_figure_parse("unmapped_per_mapped", &m, &call) == 0);
    CHECK(m == FIGURE_UNMAPPED_PER_MAPPED);
    REQUIRE(check_figure_parse("bytes_per_byte_served:sendfile", &m, &call) == 0);
    CHECK(m == FIGURE_CALL_BYTES_PER_BYTE);
    CHECK(call == IOLAB_CALL_SENDFILE);
    CHECK(check_figure_parse("bytes_per_byte_served:", &m, &call) == -EINVAL);
    REQUIRE(check_figure_parse("calls_per_request:recvmmsg", &m, &call) == 0);
    CHECK(m == FIGURE_CHECK_CALL_PER_REQ);
    CHECK(call == IOLAB_CALL_RECVMMSG);
    CHECK(check_figure_parse("calls_per_request:", &m, &call) == -EINVAL);
    CHECK(check_figure_parse("calls_per_request:io_uring_enter", &m, &call) == -EINVAL);
}

TEST_CASE("checks read the mode, role and metric they name")
{
    mode_span modes[2] = {};
    modes[0].mode = 0; // epoll
    modes[0].span.seconds = 3.2;
    modes[0].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_EPOLL_WAIT] = 500;
    modes[0].span.roles[LESSON_ROLE_CLIENT].calls[IOLAB_CALL_EPOLL_WAIT] = 40;
    modes[0].span.roles[LESSON_ROLE_SERVER].requests = 900;
    modes[0].span.roles[LESSON_ROLE_CLIENT].requests = 1000;
    modes[1].mode = 1; // fork
    modes[1].span.seconds = 6;
    modes[1].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_FORK] = 8;
    modes[1].span.roles[LESSON_ROLE_CLIENT].bytes = 1 << 20;
    check_facts f = {modes, 2, nullptr, false};
    check_result r;

    auto epoll5 = make("epoll", "seconds", nullptr, 5);
    REQUIRE(check_eval(&epoll5, &f, &r) == 0);
    CHECK_FALSE(r.holds);
    CHECK(r.value == Approx(3.2));
    char line[128];
    check_describe(&epoll5, &sc3, &r, line, sizeof line);
    CHECK(std::string(line) == "epoll: 3.2 s of 5 s");

    auto fork5 = make("fork", "seconds", nullptr, 5);
    REQUIRE(check_eval(&fork5, &f, &r) == 0);
    CHECK(r.holds);

    auto total = make(nullptr, "seconds", nullptr, 9);
    REQUIRE(check_eval(&total, &f, &r) == 0);
    CHECK(r.value == Approx(9.2)); // the whole session
    CHECK(r.holds);

    auto srv = make("epoll", "calls:epoll_wait", "server", 1);
    REQUIRE(check_eval(&srv, &f, &r) == 0);
    CHECK(r.value == 500);
    auto all = make("epoll", "calls:epoll_wait", nullptr, 1);
    REQUIRE(check_eval(&all, &f, &r) == 0);
    CHECK(r.value == 540); // calls without a role: both roles

    auto req = make("epoll", "requests", nullptr, 1000);
    REQUIRE(check_eval(&req, &f, &r) == 0);
    CHECK(r.value == 1000); // requests without a role: what the client saw
    CHECK(r.holds);

    auto forks = make("fork", "calls:fork", "server", 1);
    REQUIRE(check_eval(&forks, &f, &r) == 0);
    CHECK(r.holds);
    check_describe(&forks, &sc3, &r, line, sizeof line);
    CHECK(std::string(line) == "fork: 8 fork calls, at least 1");

    auto none = make("thread", "seconds", nullptr, 1);
    REQUIRE(check_eval(&none, &f, &r) == 0);
    CHECK_FALSE(r.holds); // a mode never run counts as zero
    CHECK(r.value == 0);

    auto bad = make(nullptr, "minutes", nullptr, 1);
    CHECK(check_eval(&bad, &f, &r) == -EINVAL);
}

TEST_CASE("a scenario's checks are counted together")
{
    lesson_check checks[2] = {make("epoll", "seconds", nullptr, 1),
                              make("fork", "seconds", nullptr, 1)};
    lesson_scenario sc = sc3;
    sc.checks = checks;
    sc.nchecks = 2;
    mode_span m = {};
    m.mode = 0; // epoll
    m.span.seconds = 2;
    check_facts f = {&m, 1, nullptr, false};
    check_result r[2];
    CHECK(check_eval_all(&sc, &f, r) == 1);
    CHECK(r[0].holds);
    CHECK_FALSE(r[1].holds);
}

TEST_CASE("calls_per_request divides a role's calls by the load's requests")
{
    mode_span m = {};
    m.mode = 0;
    m.span.seconds = 2;
    m.span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_RECVMMSG] = 300;
    m.span.roles[LESSON_ROLE_CLIENT].requests = m.span.requests = 1000; // datagrams answered
    check_facts f = {&m, 1, nullptr, false};
    check_result r;
    char line[160];

    // "at most 2 calls per datagram": 0.3 holds, and reads as a ratio, not as a count.
    lesson_check c = make("epoll", "calls_per_request:recvmmsg", "server", 0);
    c.has_min = false;
    c.has_max = true;
    c.max = 2;
    REQUIRE(check_eval(&c, &f, &r) == 0);
    CHECK(r.holds);
    CHECK(r.value == Approx(0.3));
    CHECK_FALSE(check_monotonic(&c)); // a ratio can go down again: decided at the end
    check_describe(&c, &sc3, &r, line, sizeof line);
    CHECK(std::string(line) == "epoll: 0.30 recvmmsg calls per request, at most 2");

    // Five calls a datagram is over the bound.
    m.span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_RECVMMSG] = 5000;
    REQUIRE(check_eval(&c, &f, &r) == 0);
    CHECK_FALSE(r.holds);
    CHECK(r.value == Approx(5));

    // No request: no ratio, and a maximum does not hold on nothing.
    m.span.roles[LESSON_ROLE_CLIENT].requests = m.span.requests = 0;
    REQUIRE(check_eval(&c, &f, &r) == 0);
    CHECK_FALSE(r.holds);
    check_describe(&c, &sc3, &r, line, sizeof line);
    CHECK(std::string(line) ==
          "epoll: no request completed, so no recvmmsg calls per request (at most 2)");
    // Its "fail" names the cause of a bad ratio, which is not why there is none: left out.
    c.fail = const_cast<char *>("batch the datagrams");
    check_explain(&c, &sc3, &r, line, sizeof line);
    CHECK(std::string(line).find("batch the datagrams") == std::string::npos);
    m.span.roles[LESSON_ROLE_CLIENT].requests = m.span.requests =
        100; // 50 calls a datagram: now it is said
    REQUIRE(check_eval(&c, &f, &r) == 0);
    check_explain(&c, &sc3, &r, line, sizeof line);
    CHECK(std::string(line).find(": batch the datagrams") != std::string::npos);
}

TEST_CASE("cpu_ms_per_request reads the kernel's CPU time of the role per request of the load")
{
    mode_span m = {};
    m.mode = 0;
    m.span.seconds = 4;
    m.span.roles[LESSON_ROLE_SERVER].cpu_us = 3000000; // a server that spun for 3 s
    m.span.roles[LESSON_ROLE_CLIENT].requests = m.span.requests = 200;
    check_facts f = {&m, 1, nullptr, false};
    check_result r;
    char line[160];
    lesson_check c = make("epoll", "cpu_ms_per_request", "server", 0);
    c.has_min = false;
    c.has_max = true;
    c.max = 1;
    REQUIRE(check_eval(&c, &f, &r) == 0);
    CHECK_FALSE(r.holds);
    CHECK(r.value == Approx(15)); // 3000 ms over 200 requests
    check_describe(&c, &sc3, &r, line, sizeof line);
    CHECK(std::string(line) == "epoll: 15.00 ms of CPU per request, at most 1");
    CHECK_FALSE(check_monotonic(&c));

    m.span.roles[LESSON_ROLE_SERVER].cpu_us = 8000; // one that slept: 8 ms in all
    REQUIRE(check_eval(&c, &f, &r) == 0);
    CHECK(r.holds);
    CHECK(r.value == Approx(0.04));
}
