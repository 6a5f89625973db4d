// A prediction judged against the grader's span of each mode: a number within the author's
// tolerance of the figure, a choice of the mode with the largest or smallest figure (near-ties
// within the tolerance count), undecided until every mode it needs has run, and the sentence shown.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

extern "C" {
#include "grade/prediction.h"
}

namespace
{

struct Fixture {
    lesson_mode modes[3] = {};
    lesson_scenario sc = {};
    mode_span spans[3] = {}; // the grader's span of each mode (grade/session.h)
    int candidates[3] = {0, 1, 2};
    Fixture()
    {
        const char *ids[] = {"epoll", "fork", "thread"};
        for (int i = 0; i < 3; i++) {
            modes[i].id = (char *)ids[i];
            spans[i].mode = i;
            spans[i].span.seconds = 3;
            spans[i].span.load_role = LESSON_ROLE_CLIENT;
            requests(i, 1000);
        }
        sc.modes = modes;
        sc.nmodes = 3;
        // read() per request: epoll 1, fork 1; context switches per request: 0.4, 1.6, 1.5.
        spans[0].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ] = 1000;
        spans[1].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ] = 1000;
        spans[0].span.roles[LESSON_ROLE_SERVER].ctx = 400;
        spans[1].span.roles[LESSON_ROLE_SERVER].ctx = 1600;
        spans[2].span.roles[LESSON_ROLE_SERVER].ctx = 1500;
    }
    void requests(int m, uint64_t n)
    {
        spans[m].span.requests = spans[m].span.roles[LESSON_ROLE_CLIENT].requests = n;
    }
    lesson_predict number(int mode, double tolerance)
    {
        lesson_predict p = {};
        p.kind = LESSON_PREDICT_NUMBER;
        p.figure = {mode, FIGURE_ONE_CALL_PER_REQ, IOLAB_CALL_READ, LESSON_ROLE_SERVER};
        p.tolerance = tolerance;
        return p;
    }
    lesson_predict choice(lesson_predict_kind kind, double tolerance)
    {
        lesson_predict p = {};
        p.kind = kind;
        p.figure = {-1, FIGURE_CTX_PER_REQ, 0, LESSON_ROLE_SERVER};
        p.tolerance = tolerance;
        p.modes = candidates;
        p.nmodes = 3;
        return p;
    }
    std::string say(const lesson_predict &p, const prediction &a, size_t nspans = 3)
    {
        prediction_verdict v = prediction_judge(&sc, &p, &a, spans, nspans);
        char buf[512];
        prediction_describe(&sc, &p, &a, &v, buf, sizeof buf);
        return buf;
    }
};

} // namespace

TEST_CASE("prediction: a number is right within the tolerance of the measured figure")
{
    Fixture f;
    lesson_predict p = f.number(0, 0.25);
    prediction a = {true, 1.2, -1};
    CHECK(prediction_judge(&f.sc, &p, &a, f.spans, 3).state == EXPECT_AGREES);
    a.number = 1.3; // 30% off
    CHECK(prediction_judge(&f.sc, &p, &a, f.spans, 3).state == EXPECT_DIFFERS);
    CHECK(f.say(p, a) == "you said 1.3, measured 1: wrong (within 25% counts)");
    // The live figure decides: the same prediction is right when this machine measures 1.3.
    f.spans[0].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ] = 1300;
    CHECK(prediction_judge(&f.sc, &p, &a, f.spans, 3).state == EXPECT_AGREES);
    p.unit = (char *)"read() calls";
    CHECK(f.say(p, a) == "you said 1.3, measured 1.3 read() calls: right (within 25% counts)");
}

TEST_CASE("prediction: undecided until the mode has run and answered requests")
{
    Fixture f;
    lesson_predict p = f.number(1, 0.25);
    prediction a = {true, 1, -1};
    CHECK(prediction_judge(&f.sc, &p, &a, f.spans, 1).state == EXPECT_UNDECIDED); // fork not run
    CHECK(f.say(p, a, 1) == "you said 1; not measured yet: run fork for a few seconds");
    f.spans[1].span.seconds = 0.2;
    CHECK(prediction_judge(&f.sc, &p, &a, f.spans, 3).state == EXPECT_UNDECIDED);
    f.spans[1].span.seconds = 3;
    f.requests(1, 0);
    CHECK(prediction_judge(&f.sc, &p, &a, f.spans, 3).state == EXPECT_UNDECIDED);
    // Not answered: the measurement is still shown, with no verdict.
    f.requests(1, 1000);
    prediction none = {};
    prediction_verdict v = prediction_judge(&f.sc, &p, &none, f.spans, 3);
    CHECK(v.state == EXPECT_UNDECIDED);
    CHECK(v.measured == Approx(1));
}

TEST_CASE("prediction: a choice of mode, the most or the least, near-ties within the tolerance")
{
    Fixture f;
    lesson_predict most = f.choice(LESSON_PREDICT_MOST, 0);
    prediction fork = {true, 0, 1}, thread = {true, 0, 2}, epoll = {true, 0, 0};
    CHECK(prediction_judge(&f.sc, &most, &fork, f.spans, 3).state == EXPECT_AGREES);
    CHECK(prediction_judge(&f.sc, &most, &thread, f.spans, 3).state == EXPECT_DIFFERS);
    CHECK(f.say(most, thread) == "you chose thread; the most: fork (1.6): wrong");
    most.tolerance = 0.1; // 1.5 is within 10% of 1.6
    CHECK(prediction_judge(&f.sc, &most, &thread, f.spans, 3).state == EXPECT_AGREES);
    lesson_predict least = f.choice(LESSON_PREDICT_LEAST, 0);
    CHECK(prediction_judge(&f.sc, &least, &epoll, f.spans, 3).state == EXPECT_AGREES);
    CHECK(prediction_judge(&f.sc, &least, &fork, f.spans, 3).state == EXPECT_DIFFERS);
    // Every candidate must have run.
    CHECK(prediction_judge(&f.sc, &least, &epoll, f.spans, 2).state == EXPECT_UNDECIDED);
    CHECK(f.say(least, epoll, 2) ==
          "you chose epoll; measured once each has run: epoll, fork, thread");
    // A mode that is not a candidate is never right.
    f.candidates[0] = 1;
    f.candidates[1] = 2;
    least.nmodes = 2;
    CHECK(prediction_judge(&f.sc, &least, &epoll, f.spans, 3).state == EXPECT_DIFFERS);
}

TEST_CASE("prediction: a count reads as the question asks it, whole with thousands separators, "
          "a rate keeps its SI suffix")
{
    Fixture f;
    lesson_predict p = f.number(0, 0.1);
    p.unit = (char *)"read() calls per copy";
    // copying/buffers: 64 MiB / 4 KiB = 16,384 reads of data and one that finds the end.
    f.requests(0, 20);
    f.spans[0].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ] = 20 * 16385;
    prediction a = {true, 16385, -1};
    CHECK(f.say(p, a) ==
          "you said 16,385, measured 16,385 read() calls per copy: right (within 10% counts)");
    // A copy begun but not done adds its reads to the average: the count is rounded, never
    // written as 16.4k.
    f.spans[0].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ] = 20 * 16385 + 40;
    a.number = 132;
    CHECK(f.say(p, a) ==
          "you said 132, measured 16,387 read() calls per copy: wrong (within 10% counts)");
    a.number = 1234567;
    CHECK(f.say(p, a).rfind("you said 1,234,567, ", 0) == 0);
    // Three copies done and most of a fourth read 20,754 on average: not judged until the copy
    // under way can move the average by no more than half the tolerance (20 copies at 10%).
    f.requests(0, 3);
    f.spans[0].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ] = 3 * 16385 + 13107;
    a.number = 16385;
    CHECK(prediction_judge(&f.sc, &p, &a, f.spans, 3).state == EXPECT_UNDECIDED);
    CHECK(f.say(p, a) == "you said 16,385; not measured yet: run epoll for a few seconds");
    f.requests(0, 19);
    CHECK(prediction_judge(&f.sc, &p, &a, f.spans, 3).state == EXPECT_UNDECIDED);
    f.requests(0, 20);
    f.spans[0].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ] = 20 * 16385 + 13107;
    CHECK(prediction_judge(&f.sc, &p, &a, f.spans, 3).state == EXPECT_AGREES);
    // Below 100, a fraction keeps three significant figures, and a learner's fraction its
    // own digits.
    f.requests(0, 1000);
    f.spans[0].span.roles[LESSON_ROLE_SERVER].calls[IOLAB_CALL_READ] = 1020;
    a.number = 1.05;
    CHECK(f.say(p, a) ==
          "you said 1.05, measured 1.02 read() calls per copy: right (within 10% counts)");
    // A rate is written as a rate: 182,345 requests/s reads 182k.
    lesson_predict rate = f.number(0, 0.1);
    rate.figure.figure = FIGURE_REQUESTS_PER_S;
    rate.unit = (char *)"requests/s";
    f.requests(0, 547035); // over the span's 3 s
    a.number = 180000;
    CHECK(f.say(rate, a) == "you said 180k, measured 182k requests/s: right (within 10% counts)");
}
