// The step kinds' progress records (lesson/record.h): each typed codec reads back what it
// wrote, reads the JSON earlier iolabs wrote, refuses a text that is not its record with a
// sentence, and tells an import whether a record fits a step of the installed pack.
#include <catch2/catch.hpp>
#include <cerrno>
#include <cjson/cJSON.h>
#include <cstdlib>
#include <string>
#include <type_traits>

extern "C" {
#include "lesson/kind.h"
#include "lesson/quiz.h"
#include "lesson/record.h"
}

static std::string take(char *s)
{
    REQUIRE(s != nullptr);
    std::string t = s;
    free(s);
    return t;
}

TEST_CASE("a quiz record round-trips and reads the format earlier iolabs wrote", "[records]")
{
    const char *old = "{\"questions\":[{\"chosen\":[0,2],\"tries\":2,\"right\":true},"
                      "{\"chosen\":[],\"tries\":0,\"right\":false}]}";
    struct quiz_record r;
    char why[160] = "";
    REQUIRE(quiz_record_parse(old, &r, why, sizeof why) == 0);
    REQUIRE(r.nquestions == 2);
    CHECK(r.questions[0].chosen == 0x5u);
    CHECK(r.questions[0].tries == 2);
    CHECK(r.questions[0].right);
    CHECK_FALSE(r.questions[1].right);
    // Written back, the record keeps what it held and adds its score: one question of two
    // checked right is 1 point of 2 (record.h).
    std::string again = take(quiz_record_write(&r));
    CHECK(again.find(std::string(old).substr(0, strlen(old) - 1)) == 0);
    CHECK(again.find("\"score\":{\"points\":1,\"of\":2,") != std::string::npos);
    quiz_record_free(&r);

    REQUIRE(quiz_record_parse(nullptr, &r, why, sizeof why) == 0);
    CHECK(r.nquestions == 0);
}

TEST_CASE("a record that is not a quiz's is refused with a sentence", "[records]")
{
    struct quiz_record r;
    char why[160] = "";
    CHECK(quiz_record_parse("[1,2]", &r, why, sizeof why) == -EINVAL);
    CHECK(std::string(why) == "a quiz record is an object whose \"questions\" is an array");
    CHECK(r.nquestions == 0);
    CHECK(quiz_record_parse("{\"questions\":3}", &r, why, sizeof why) == -EINVAL);
}

TEST_CASE("a predictions record round-trips numbers, modes, verdicts and unanswered questions",
          "[records]")
{
    const char *old = "{\"predictions\":[{\"number\":16,\"verdict\":\"right\",\"measured\":16.2},"
                      "{\"mode\":\"fork\"},{}]}";
    struct predict_record r;
    char why[160] = "";
    REQUIRE(predict_record_parse(old, &r, why, sizeof why) == 0);
    REQUIRE(r.n == 3);
    CHECK(r.entries[0].has_number);
    CHECK(r.entries[0].number == 16);
    CHECK(r.entries[0].verdict == PREDICT_RECORD_RIGHT);
    CHECK(r.entries[0].measured == Approx(16.2));
    CHECK(std::string(r.entries[1].mode) == "fork");
    CHECK(r.entries[1].verdict == PREDICT_RECORD_UNJUDGED);
    CHECK_FALSE(r.entries[2].has_number);
    CHECK(r.entries[2].mode == nullptr);
    CHECK(take(predict_record_write(&r)) == old);
    predict_record_free(&r);

    CHECK(predict_record_parse("\"x\"", &r, why, sizeof why) == -EINVAL);
    CHECK(std::string(why) ==
          "a predictions record is an object whose \"predictions\" is an array");
}

TEST_CASE("an exercise record counts attempts in whole numbers, and stores them as it found them",
          "[records]")
{
    struct exercise_record r;
    char why[160] = "";
    static_assert(std::is_integral<decltype(r.attempts)>::value, "attempts is a count");
    REQUIRE(exercise_record_parse("{\"attempts\":7}", &r, why, sizeof why) == 0);
    CHECK(r.attempts == 7);
    CHECK(take(exercise_record_write(&r)) ==
          "{\"attempts\":7,\"solution_viewed\":false,\"solution_before_pass\":false}");
    // What a hand-edited file may hold: a fraction is cut, a negative count is none, and a count
    // past what a JSON number holds exactly stops there.
    REQUIRE(exercise_record_parse("{\"attempts\":2.5}", &r, why, sizeof why) == 0);
    CHECK(r.attempts == 2);
    REQUIRE(exercise_record_parse("{\"attempts\":-3}", &r, why, sizeof why) == 0);
    CHECK(r.attempts == 0);
    REQUIRE(exercise_record_parse("{\"attempts\":1e300}", &r, why, sizeof why) == 0);
    CHECK(r.attempts == 9007199254740992LL);
    r.attempts = 123456789012LL; // beyond an int, written digit for digit
    CHECK(take(exercise_record_write(&r)).find("\"attempts\":123456789012,") == 1);
}

TEST_CASE("an exercise record round-trips attempts, the first pass and the solution flags",
          "[records]")
{
    const char *old = "{\"attempts\":3,\"first_pass\":1764040000,\"solution_viewed\":true,"
                      "\"solution_before_pass\":false}";
    struct exercise_record r;
    char why[160] = "";
    REQUIRE(exercise_record_parse(old, &r, why, sizeof why) == 0);
    CHECK(r.attempts == 3);
    CHECK(r.passed);
    CHECK(r.first_pass == 1764040000.0);
    CHECK(r.solution_viewed);
    CHECK_FALSE(r.solution_before_pass);
    CHECK(take(exercise_record_write(&r)) == old);

    r.passed = false;
    CHECK(take(exercise_record_write(&r)) ==
          "{\"attempts\":3,\"solution_viewed\":true,\"solution_before_pass\":false}");

    CHECK(exercise_record_parse("not json", &r, why, sizeof why) == -EINVAL);
    CHECK(std::string(why) == "an exercise record is a JSON object");
}

TEST_CASE("an import asks the record's kind whether it fits the installed step", "[records]")
{
    // Every record is found through the kind table, by the field it is stored under.
    const struct lesson_record *quiz = lesson_record_find("quiz");
    REQUIRE(quiz == &lesson_record_quiz);
    REQUIRE(lesson_record_find("predict") == &lesson_record_predict);
    REQUIRE(lesson_record_find("exercise") == &lesson_record_exercise);
    REQUIRE(lesson_record_find("sweep") == &lesson_record_sweep);
    CHECK(lesson_record_find("notes") == nullptr);

    // A quiz of one question with three answers.
    struct lesson_answer answers[3] = {};
    struct lesson_question q = {};
    q.answers = answers;
    q.nanswers = 3;
    struct lesson_quiz qz = {&q, 1};
    struct lesson_step step = {};
    step.kind = &lesson_kind_quiz;
    step.data = &qz;

    char why[300];
    cJSON *fits = cJSON_Parse("{\"questions\":[{\"chosen\":[2],\"tries\":1,\"right\":true}]}");
    CHECK(quiz->misfit(&step, fits, why, sizeof why) == nullptr);
    CHECK(quiz->tries(fits) == 1);
    cJSON *out = cJSON_Parse("{\"questions\":[{\"chosen\":[3],\"tries\":1}]}");
    REQUIRE(quiz->misfit(&step, out, why, sizeof why) != nullptr);
    CHECK(std::string(why) == "question 1 chose answer 4, and the question has 3");
    cJSON *two = cJSON_Parse("{\"questions\":[{},{}]}");
    REQUIRE(quiz->misfit(&step, two, why, sizeof why) != nullptr);
    CHECK(std::string(why) == "it answers 2 questions, and the quiz has 1");

    // A quiz step has no predictions and sets no exercise.
    cJSON *pred = cJSON_Parse("{\"predictions\":[{}]}");
    REQUIRE(lesson_record_predict.misfit(&step, pred, why, sizeof why) != nullptr);
    CHECK(std::string(why) == "it holds predictions, and the step asks for none");
    cJSON *ex = cJSON_Parse("{\"attempts\":4,\"solution_viewed\":true}");
    REQUIRE(lesson_record_exercise.misfit(&step, ex, why, sizeof why) != nullptr);
    CHECK(std::string(why) == "it holds exercise attempts, and the step is a quiz step");
    CHECK(lesson_record_exercise.tries(ex) == 4);
    CHECK(lesson_record_exercise.solution_viewed(ex));

    for (cJSON *j : {fits, out, two, pred, ex})
        cJSON_Delete(j);
}

TEST_CASE("a sweep record reads every point's strings and numbers, and leaves out what is of "
          "the wrong type",
          "[records]")
{
    const char *text =
        R"({"modes":["epoll",3,"fork"],"tier":"full","seconds_per_point":2,"stopped":true,)"
        R"("points":[{"mode":"epoll","value":"8","measured":true,"figure":120.5,)"
        R"("requests":241,"p99_ms":0.8},{"mode":"fork","value":8,"problem":"errors counted",)"
        R"("figure":"many"}]})";
    struct sweep_record r;
    char why[160] = "";
    REQUIRE(sweep_record_parse(text, &r, why, sizeof why) == 0);
    REQUIRE(r.nmodes == 2); // the 3 is not a mode's name
    CHECK(std::string(r.modes[0]) == "epoll");
    CHECK(std::string(r.modes[1]) == "fork");
    CHECK(std::string(r.tier) == "full");
    CHECK(r.seconds_per_point == 2);
    CHECK(r.stopped);
    REQUIRE(r.npoints == 2);
    double v = 0;
    CHECK(r.points[0].measured);
    CHECK(sweep_record_num(&r.points[0], "figure", &v));
    CHECK(v == 120.5);
    CHECK(sweep_record_num(&r.points[0], "p99_ms", &v));
    CHECK(v == 0.8);
    CHECK_FALSE(sweep_record_num(&r.points[0], "bytes", &v));
    CHECK(r.points[0].problem == nullptr);
    CHECK(std::string(r.points[1].mode) == "fork");
    CHECK(r.points[1].value == nullptr); // a number where the value's text belongs
    CHECK(std::string(r.points[1].problem) == "errors counted");
    CHECK_FALSE(sweep_record_num(&r.points[1], "figure", &v)); // a string is not a figure
    sweep_record_free(&r);

    CHECK(sweep_record_parse(R"({"points":3,"modes":[]})", &r, why, sizeof why) == -EINVAL);
    CHECK(std::string(why).find("\"points\"") != std::string::npos);
    sweep_record_free(&r);
    CHECK(sweep_record_parse("not json", &r, why, sizeof why) == -EINVAL);
    sweep_record_free(&r);
}
