// iolab check --junit FILE: the report a CI reads (GitLab, Jenkins, GitHub's test reporters),
// read back by a real XML parser (python3's xml.etree): one test case per check and one for the
// build, a check that fails is a failure with the grader's sentence, a build that fails is an
// error with the compiler's messages, and the score follows the checks' "points". And
// --solutions names the check a solution fails and the checks a starter wrongly passes, and
// shows the compiler's messages of a starter that does not build.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <sstream>

using namespace iolab_test;

namespace
{

// Replaces the one occurrence of from in path (the test fails when there is none).
void edit(const std::string &path, const std::string &from, const std::string &to)
{
    std::string s = slurp(path);
    size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    s.replace(at, from.size(), to);
    spit(path, s);
}

// The report as one line per fact, from a real XML parser: the totals, the score, each other
// property of a suite ("prop NAME=VALUE"), whether the suite's time covers its test cases (the
// longest, and the build and starter cases, which run one after the other), then per test case
// "case NAME: ok|failure|error: MESSAGE | BODY".
const char *junit_reader = R"PY(
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "testsuites", root.tag
print("totals tests=%s failures=%s errors=%s" % (root.get("tests"), root.get("failures"), root.get("errors")))
for suite in root.findall("testsuite"):
    props = {p.get("name"): p.get("value") for p in suite.find("properties").findall("property")}
    print("suite %s tests=%s failures=%s errors=%s score=%s of %s" % (suite.get("name"), suite.get("tests"),
          suite.get("failures"), suite.get("errors"), props["score"], props["max_score"]))
    for name, value in props.items():
        if name not in ("score", "max_score"):
            print("prop %s=%s" % (name, value))
    times = [float(c.get("time")) for c in suite.findall("testcase")]
    serial = sum(float(c.get("time")) for c in suite.findall("testcase")
                 if c.get("name") in ("build", "the starter builds and fails a check"))
    covers = float(suite.get("time")) + 1e-3 >= max(times + [serial])
    print("suite %s time covers its cases: %s" % (suite.get("name"), "yes" if covers else "no"))
    for case in suite.findall("testcase"):
        float(case.get("time"))
        verdict = "ok"
        for kind in ("failure", "error"):
            el = case.find(kind)
            if el is not None:
                verdict = "%s: %s | %s" % (kind, el.get("message"), (el.text or "").replace("\n", " / "))
        print("case %s/%s: %s" % (case.get("classname"), case.get("name"), verdict))
)PY";

std::string read_junit(const std::string &path)
{
    auto [code, out] = run({"/usr/bin/python3", "-c", junit_reader, path});
    INFO(out);
    REQUIRE(code == 0);
    return out;
}

bool has(const std::string &hay, const std::string &needle)
{
    return hay.find(needle) != std::string::npos;
}

struct Pack {
    TempDir tmp;
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (tmp / "cache"),
                                    "XDG_STATE_HOME=" + (tmp / "state"),
                                    "XDG_DATA_HOME=" + (tmp / "data"), "TMPDIR=" + (tmp / "")};
    std::string dir = tmp / "course";
    std::string lesson = dir + "/first.json";
    std::string solution = dir + "/exercises/first/echo/echo.c";
    Pack()
    {
        auto [code, out] = run({bin("iolab"), "new", dir}, env);
        INFO(out);
        REQUIRE(code == 0);
    }
};

const std::string kEchoCheck =
    R"J("text": "Clients get their echo: complete the TODO in serve()", "metric": "requests", "min": 20})J";

} // namespace

TEST_CASE("junit: the starter's failing checks are failures, with the score of their points")
{
    Pack p;
    // The echo check weighs 3 points, the read check 1 (unset): 4 in all.
    edit(
        p.lesson, kEchoCheck,
        R"J("text": "Clients get their echo: complete the TODO in serve()", "metric": "requests", "min": 20, "points": 3, "fail": "Look at TODO 1 of echo.c."})J");
    std::string xml = p.tmp / "report.xml";
    auto [code, out] =
        run({bin("iolab"), "check", "first/your-echo", "--pack", p.dir, "--junit", xml, "--json"},
            p.env, 120);
    INFO(out);
    CHECK(code == 1);
    CHECK(has(out, R"("score":{"points":0,"max":4})"));
    // check --json: a format version, and per check its weight, what it earned and whether it
    // was decided.
    CHECK(has(out, R"({"format":1,"lesson":"first")"));
    CHECK(has(out, R"("decided":true,"message":"yours: 0 of 20 requests)"));
    CHECK(has(out, R"("points":3,"earned":0})"));
    CHECK(has(out, R"("points":1,"earned":0})"));
    std::string r = read_junit(xml);
    INFO(r);
    // --junit implies --audit: the read check, judged again on the kernel's count, fails there
    // too, as one more test case.
    CHECK(has(r, "totals tests=4 failures=3 errors=0"));
    CHECK(has(r, "suite first/your-echo tests=4 failures=3 errors=0 score=0 of 4"));
    CHECK(has(r, "case first.your-echo/audit: failure: "));
    CHECK(has(r, "suite first/your-echo time covers its cases: yes"));
    CHECK(has(r, "case first.your-echo/build: ok"));
    // Points are properties: a test's name is its check's text alone, whatever it weighs.
    CHECK(has(r, "prop points:Clients get their echo: complete the TODO in serve()=3"));
    CHECK(has(r, "prop points:Your server reads with read()=1"));
    CHECK(!has(r, "point]"));
    CHECK(has(r, "case first.your-echo/Clients get their echo: complete the TODO in serve(): "
                 "failure: yours: 0 of 20 requests"));
    CHECK(has(r, "case first.your-echo/Your server reads with read(): failure: yours: 0 of 20 "
                 "read calls"));
    // The hint once, in the message and in the body alike.
    size_t hint = r.find("Look at TODO 1 of echo.c.");
    REQUIRE(hint != std::string::npos);
    size_t line_end = r.find('\n', hint);
    std::string line = r.substr(r.rfind('\n', hint) + 1, line_end - r.rfind('\n', hint) - 1);
    INFO(line);
    size_t count = 0;
    for (size_t at = line.find("Look at TODO 1"); at != std::string::npos;
         at = line.find("Look at TODO 1", at + 1))
        count++;
    CHECK(count == 2); // the message attribute, then the body: once each

    // The learner completes the TODO (the solution as their file): every check holds, 4 of 4.
    std::string work = p.tmp / "data/iolab/work/course/first/your-echo/echo.c";
    spit(work, slurp(p.solution));
    auto [pcode, pout] = run(
        {bin("iolab"), "check", "first/your-echo", "--pack", p.dir, "--junit", xml}, p.env, 120);
    INFO(pout);
    CHECK(pcode == 0);
    CHECK(has(pout, "score: 4 of 4 points"));
    std::string r2 = read_junit(xml);
    INFO(r2);
    CHECK(has(r2, "totals tests=4 failures=0 errors=0"));
    CHECK(has(r2, "case first.your-echo/audit: ok"));
    CHECK(has(r2, "score=4 of 4"));
    auto [jcode, jout] =
        run({bin("iolab"), "check", "first/your-echo", "--pack", p.dir, "--json"}, p.env, 120);
    INFO(jout);
    CHECK(jcode == 0);
    CHECK(has(jout, R"("points":3,"earned":3})"));
}

TEST_CASE("junit: a build that fails is an error with the compiler's messages, escaped")
{
    Pack p;
    std::string work = p.tmp / "mine";
    REQUIRE(mkdir(work.c_str(), 0755) == 0);
    // A learner's file that does not compile, with XML's special characters and an escape byte
    // in what the compiler quotes back.
    spit(work + "/echo.c", "int main(void) { return \"<&>\x1b[31m\" }\n");
    std::string xml = p.tmp / "report.xml";
    auto [code, out] = run(
        {bin("iolab"), "check", "first/your-echo", "--pack", p.dir, "--dir", work, "--junit", xml},
        p.env, 120);
    INFO(out);
    CHECK(code == 2);
    std::string r = read_junit(xml);
    INFO(r);
    CHECK(has(r, "totals tests=3 failures=0 errors=3"));
    CHECK(has(r, "score=0 of 2"));
    CHECK(has(r, "case first.your-echo/build: error: your program does not build (the compiler's "
                 "messages are in this element)"));
    CHECK(!has(r, "are above"));
    CHECK(has(r, "echo.c:1:")); // the compiler's own message, at the learner's file
    CHECK(has(r, "<&>"));       // given back as the learner wrote it
    CHECK(has(r, "not judged: the program does not build"));
}

TEST_CASE("check --json: a build that fails carries the compiler's messages in build.log, and its "
          "sentence points there")
{
    Pack p;
    std::string work = p.tmp / "mine";
    REQUIRE(mkdir(work.c_str(), 0755) == 0);
    spit(work + "/echo.c", "int main(void) { return nothing; }\n");
    auto [code, out] =
        run({bin("iolab"), "check", "first/your-echo", "--pack", p.dir, "--dir", work, "--json"},
            p.env, 120);
    INFO(out);
    CHECK(code == 2);
    std::string line; // the JSON object's line
    for (std::istringstream in(out); std::getline(in, line) && line.rfind('{', 0) != 0;)
        line.clear();
    cJSON *j = cJSON_Parse(line.c_str());
    REQUIRE(j);
    const cJSON *error = cJSON_GetObjectItem(j, "error");
    REQUIRE(cJSON_IsString(error));
    CHECK(std::string(error->valuestring) ==
          "your program does not build (the compiler's messages are in build.log)");
    const cJSON *log = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "build"), "log");
    REQUIRE(cJSON_IsString(log));
    CHECK(std::string(log->valuestring).find("echo.c:1:") != std::string::npos);
    CHECK(std::string(log->valuestring).find("nothing") != std::string::npos);
    CHECK(out.find("above") == std::string::npos);
    cJSON_Delete(j);
}

TEST_CASE("junit: --solutions names the failing check, the starter's wrong pass and its build")
{
    Pack p;
    std::string xml = p.tmp / "solutions.xml";
    SECTION("a solution that fails a check: the check is named")
    {
        edit(p.lesson, kEchoCheck, kEchoCheck + R"(,
        {"text": "The server never reads", "metric": "calls:read", "role": "server", "max": 0})");
        auto [code, out] = run(
            {bin("iolab"), "check", "--pack", p.dir, "--solutions", "--junit", xml}, p.env, 180);
        INFO(out);
        CHECK(code == 1);
        CHECK(has(out, "solution fail (must pass: 1 check fails: \"The server never reads\""));
        std::string r = read_junit(xml);
        INFO(r);
        CHECK(has(r, "case first.your-echo solution/The server never reads: failure:"));
        CHECK(has(r, "suite first/your-echo time covers its cases: yes"));
        CHECK(has(r, "case first.your-echo starter/the starter builds and fails a check: ok"));
        auto [jcode, jout] =
            run({bin("iolab"), "check", "--pack", p.dir, "--solutions", "--json"}, p.env, 180);
        INFO(jout);
        CHECK(has(jout, R"("problem":"1 check fails: \"The server never reads\")"));
        CHECK(has(jout, R"({"format":1,"exercises":[)"));
        CHECK(has(jout, R"("state":"fail","ok":false,"decided":true)"));
    }
    SECTION("a starter that passes every check: the checks it passes are named")
    {
        // Checks the starter cannot fail: it runs, and it reads at most a million times.
        edit(p.lesson, R"("metric": "requests", "min": 20})",
             R"("metric": "seconds", "min": 0.5})");
        edit(p.lesson, R"("role": "server", "min": 20})", R"("role": "server", "max": 1000000})");
        auto [code, out] = run(
            {bin("iolab"), "check", "--pack", p.dir, "--solutions", "--junit", xml}, p.env, 180);
        INFO(out);
        CHECK(code == 1);
        CHECK(has(out, "starter pass (must build and fail: every check holds, so a learner passes "
                       "without a change: \"Clients get their echo"));
        std::string r = read_junit(xml);
        INFO(r);
        CHECK(has(r, "case first.your-echo starter/the starter builds and fails a check: failure: "
                     "every check holds"));
    }
    SECTION("a starter that builds with a warning: the warning is shown, the pack is fine")
    {
        edit(p.solution, "// (void)buf;", "// (void)buf; int unused_x;");
        auto [code, out] = run({bin("iolab"), "check", "--pack", p.dir, "--solutions"}, p.env, 180);
        INFO(out);
        CHECK(code == 0);
        CHECK(has(out, "the starter builds with warnings:"));
        CHECK(has(out, "unused variable"));
        // At the starter's own file name: the directory it was built in is gone.
        CHECK(has(out, "  | echo.c:"));
        CHECK(!has(out, "iolab-starter-"));
    }
    SECTION("a starter that fails but earns points: the author is told which")
    {
        edit(p.lesson, kEchoCheck, kEchoCheck + R"(,
        {"text": "It runs", "metric": "seconds", "min": 0.5, "points": 2})");
        auto [code, out] = run({bin("iolab"), "check", "--pack", p.dir, "--solutions"}, p.env, 180);
        INFO(out);
        CHECK(code == 0);
        CHECK(has(out, "the starter earns 2 of 4 points without a change: \"It runs\" (2 points)"));
        auto [jcode, jout] =
            run({bin("iolab"), "check", "--pack", p.dir, "--solutions", "--json"}, p.env, 180);
        INFO(jout);
        CHECK(has(jout, R"J("starter_points":2,"starter_points_from":"\"It runs\" (2 points)")J"));
    }
    SECTION("a starter that does not build: the compiler's messages are shown")
    {
        edit(p.solution, "// (void)buf;", "// (void)buf");
        auto [code, out] = run(
            {bin("iolab"), "check", "--pack", p.dir, "--solutions", "--junit", xml}, p.env, 180);
        INFO(out);
        CHECK(code == 1);
        CHECK(has(out, "solution pass; starter error (must build and fail: it does not build (the "
                       "compiler's messages follow))"));
        CHECK(has(out, "the starter's compiler messages:"));
        CHECK(has(out, "  | "));
        CHECK(has(out, "echo.c:"));
        std::string r = read_junit(xml);
        INFO(r);
        CHECK(has(r, "case first.your-echo starter/the starter builds and fails a check: error: it "
                     "does not build"));
        CHECK(has(r, "echo.c:"));
    }
}
