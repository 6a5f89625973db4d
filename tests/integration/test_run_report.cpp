// `iolab run`'s report computes through the figure table (app/cli/run_report.c over
// metrics/figure.h): its throughput is the load role's, as the table's is, so a step whose server
// publishes requests and whose client publishes none has a rate; and its latency counts the clients
// still waiting as long as they waited within the segment, as the comparison view (c) and an
// expected outcome do over the mode's span, never the hour a stale gauge says. The fake program is
// the sweeps' (tests/progs/sweep_fake.c): 1000 requests/s of 100 bytes, each answered in 1 ms.
#include <catch2/catch.hpp>

#include "helpers.hpp"

#include <cjson/cJSON.h>
#include <cstdlib>
#include <string>

using namespace iolab_test;

namespace
{

// A pack of one run step: the fake as `role` with `args`, and beside it, when `idle_client`, a
// client that publishes nothing; `expects` goes in as the step's expected outcomes ("expect").
std::string write_pack(const TempDir &t, const std::string &role, const std::string &args,
                       bool idle_client, const std::string &expects)
{
    std::string dir = t / "pack";
    mkdir(dir.c_str(), 0755);
    spit(dir + "/pack.json", R"({"format_version": 1, "id": "report-test", "title": "Report test",
      "version": "1", "lessons": ["fake"]})");
    std::string fake = build_dir() + "/lib/iolab/iolab-sweep-fake";
    std::string programs = R"({"name": "fake", "role": ")" + role + R"(", "program": ")" + fake +
                           R"(", "args": [)" + args + "]}";
    if (idle_client)
        programs += R"(, {"name": "idle", "role": "client", "program": "/bin/sleep",
                         "args": ["600"]})";
    spit(dir + "/fake.json", R"({"id": "fake", "title": "Fake", "summary": "known figures",
      "steps": [{"id": "run", "title": "Known figures", "kind": "run", "text": "Watch.",
        "programs": [)" + programs +
                                 "]" + (expects.empty() ? "" : ", \"expect\": " + expects) + "}]}");
    return dir;
}

// `iolab run fake/run --json` for `seconds`; the parsed object (the caller deletes it).
cJSON *run_json(const TempDir &t, const std::string &pack, int seconds)
{
    std::string out = t / "out.json";
    auto [code, err] = run({"/bin/sh", "-c",
                            "'" + bin("iolab") + "' run fake/run --pack '" + pack + "' --seconds " +
                                std::to_string(seconds) + " --json > '" + out + "'"},
                           {}, 120);
    INFO(err);
    std::string text = slurp(out);
    INFO(text);
    REQUIRE(code == 0);
    cJSON *root = cJSON_Parse(text.c_str());
    REQUIRE(root);
    return root;
}

double num(const cJSON *o, const char *path0, const char *path1 = nullptr)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, path0);
    if (path1)
        v = cJSON_GetObjectItemCaseSensitive(v, path1);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

// "2.1 s", "812 ms", "41 us" (as an expected outcome's sentence writes a latency) in ms.
double ms_of(const std::string &s)
{
    char *end = nullptr;
    double v = strtod(s.c_str(), &end);
    std::string unit = end;
    if (unit.rfind(" s", 0) == 0)
        return v * 1000;
    if (unit.rfind(" ms", 0) == 0)
        return v;
    if (unit.rfind(" us", 0) == 0)
        return v / 1000;
    if (unit.rfind(" ns", 0) == 0)
        return v / 1e6;
    return -1;
}

} // namespace

TEST_CASE("iolab run: a step where only the server publishes has the server's throughput")
{
    TempDir t;
    // Throughput is the load role's (the figure table's): here the server's, since the client
    // publishes nothing.
    std::string pack = write_pack(t, "server", R"("--mode", "flat")", true,
                                  R"([{"text": "it serves", "left": {"figure": "requests_per_s"},
                                       "op": ">", "value": 1}])");
    cJSON *root = run_json(t, pack, 2);
    double rate = num(root, "throughput", "requests_per_s");
    double dur = num(root, "duration_s");
    const cJSON *procs = cJSON_GetObjectItemCaseSensitive(root, "processes");
    double served = -1, idle = -1;
    const cJSON *p;
    cJSON_ArrayForEach(p, procs)
    {
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(p, "name");
        double req = num(cJSON_GetObjectItemCaseSensitive(p, "app"), "requests");
        if (cJSON_IsString(name) && std::string(name->valuestring) == "fake")
            served = req;
        else
            idle = req;
    }
    const cJSON *expected =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "expected"), 0);
    const cJSON *ok = cJSON_GetObjectItemCaseSensitive(expected, "ok");
    CHECK(cJSON_IsTrue(ok)); // the table's figure over the mode's span is above 1/s too
    cJSON_Delete(root);
    CHECK(idle == 0);
    REQUIRE(served > 0);
    REQUIRE(dur > 0);
    CHECK(rate > 0);
    // The table's requests_per_s over the segment's span: the server's requests over its time.
    CHECK(rate == Approx(served / dur).epsilon(0.01));
}

TEST_CASE("iolab run: p99 counts clients kept waiting longer than the segment as the comparison "
          "does")
{
    TempDir t;
    // Five requests unanswered "for an hour" beside 1000 answered a second: the comparison view
    // and an expected outcome count each as long as it waited within the mode's time (a couple
    // of seconds), and so must `iolab run`, not an hour.
    std::string pack = write_pack(t, "client", R"("--mode", "flat", "--waiting", "5")", false,
                                  R"([{"text": "clients wait", "left": {"figure": "p99_ms"},
                                       "op": ">", "value": 0.001}])");
    cJSON *root = run_json(t, pack, 2);
    double p99_ms = num(root, "latency_us", "p99") / 1000;
    double dur = num(root, "duration_s");
    const cJSON *expected =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "expected"), 0);
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(expected, "message");
    REQUIRE(cJSON_IsString(msg));
    std::string m = msg->valuestring;
    cJSON_Delete(root);
    INFO(m);
    // "p99 latency 2.1 s > 1 us, as expected": the comparison's p99 over the mode's span.
    const std::string lead = "p99 latency ";
    REQUIRE(m.rfind(lead, 0) == 0);
    double cmp_ms = ms_of(m.substr(lead.size()));
    REQUIRE(cmp_ms > 0);
    INFO("iolab run p99 " << p99_ms << " ms, comparison " << cmp_ms << " ms, segment " << dur
                          << " s");
    // Within the segment, not the hour the gauge says.
    CHECK(p99_ms <= dur * 1000 * 1.3);
    CHECK(p99_ms >= 100);
    // The same figure: the mode's span and the segment differ by a tick at their ends, which
    // can move a capped wait by at most one histogram bucket (about 19%).
    CHECK(p99_ms == Approx(cmp_ms).epsilon(0.25));
}
