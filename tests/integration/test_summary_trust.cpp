// iolab progress --summary that a course can trust: a learner given twice (an older and a newer
// export) is one row whose steps come from the newer records, and a file that is not an export
// is named and left out while the others are still summed up.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>

using namespace iolab_test;

namespace
{

// An export of one learner with one pack (the built-in one: a summary counts only records that
// fit an installed pack, as an import): steps as "STEP:DONE:UPDATED:ATTEMPTS", exercises.
std::string export_of(const std::string &learner, const std::vector<std::string> &steps,
                      const std::string &version = "1", long exported_at = 1000,
                      const std::string &pack = "linux-io")
{
    std::string out = R"({"iolab_progress": 1, "learner": ")" + learner + R"(", "exported_at": )" +
                      std::to_string(exported_at) + R"(, "packs": [{"id": ")" + pack +
                      R"(", "version": ")" + version + R"(", "steps": [)";
    for (size_t i = 0; i < steps.size(); i++) {
        std::string s = steps[i];
        size_t a = s.find(':'), b = s.find(':', a + 1), c = s.find(':', b + 1);
        out += (i ? ", " : "") + std::string(R"({"step": ")") + s.substr(0, a) + R"(", "done": )" +
               s.substr(a + 1, b - a - 1) + R"(, "done_at": 0, "updated": )" +
               s.substr(b + 1, c - b - 1) + R"(, "fields": {"exercise": {"attempts": )" +
               s.substr(c + 1) + "}}}";
    }
    return out + "]}]}";
}

} // namespace

TEST_CASE("summary: one row per learner, the newer record wins, a bad file is left out")
{
    TempDir t;
    std::string old_ann = t / "ann-monday.json", new_ann = t / "ann-friday.json",
                bob = t / "bob.json", bad = t / "notes.json";
    const std::string ex = "ordered/write-client-loop", other = "ordered/write-server-loop";
    spit(old_ann, export_of("ann", {ex + ":false:100:2", other + ":false:100:1"}, "1", 1000));
    spit(new_ann, export_of("ann", {ex + ":true:500:5"}, "2", 5000));
    spit(bob, export_of("bob", {ex + ":false:300:1"}));
    spit(bad, "{\"this is\": \"not an export\"}");

    // The newer file first or last: the same table.
    for (auto order : {std::vector<std::string>{old_ann, bob, new_ann, bad},
                       std::vector<std::string>{new_ann, bad, old_ann, bob}}) {
        std::vector<std::string> argv = {bin("iolab"), "progress", "--summary"};
        argv.insert(argv.end(), order.begin(), order.end());
        auto [code, out] = run(argv);
        INFO(out);
        CHECK(code == 1); // the table, and a file left out
        CHECK(out.find("iolab: " + bad + ": not an iolab progress export") != std::string::npos);
        CHECK(out.find("left out of the summary.") != std::string::npos);
        // The version of ann's newest export, then the steps' newest records.
        std::string ann = out.substr(out.find("\nann "),
                                     out.find('\n', out.find("\nann ") + 1) - out.find("\nann "));
        std::string bobs = out.substr(out.find("\nbob "));
        bobs = bobs.substr(0, bobs.find('\n', 1));
        CHECK(out.find("learner  version") != std::string::npos);
        CHECK(ann.find(" 2  ") != std::string::npos);
        CHECK(ann.find("done 5x") != std::string::npos);
        CHECK(ann.find("started 1x") != std::string::npos);
        CHECK(bobs.find(" 1  ") != std::string::npos);
        CHECK(bobs.find("started 1x") != std::string::npos);
        CHECK(out.find("2 learners, ") != std::string::npos);
    }

    // Nothing readable: one sentence, nothing summed up.
    auto [code, out] = run({bin("iolab"), "progress", "--summary", bad, t / "missing.json"});
    INFO(out);
    CHECK(code == 1);
    CHECK(out.find("cannot read " + (t / "missing.json")) != std::string::npos);
    CHECK(out.find("none of the files is a progress export; nothing was summed up.") !=
          std::string::npos);
}

TEST_CASE("summary: an installed pack's steps are columns in the pack's order, every one")
{
    TempDir t;
    // The built-in pack's steps, listed out of order and only two of them.
    std::string f = t / "ann.json";
    spit(f, export_of(
                "ann",
                {"ordered/write-server-loop:true:200:1", "ordered/write-client-loop:false:100:0"},
                "1.0", 1000));
    auto [code, out] = run({bin("iolab"), "progress", "--summary", f});
    INFO(out);
    CHECK(code == 0);
    size_t protocol = out.find("ordered/protocol"), watch = out.find("ordered/write-client-loop"),
           check = out.find("ordered/write-server-loop");
    CHECK(protocol != std::string::npos); // untouched, still a column
    CHECK(protocol < watch);
    CHECK(watch < check);
    // Every step of the pack: as many columns as `iolab list --json` has steps.
    auto [lcode, list] = run({bin("iolab"), "list", "--json"});
    REQUIRE(lcode == 0);
    size_t steps = 0;
    for (size_t at = 0; (at = list.find("\"id\":\"", at)) != std::string::npos; at++)
        steps += list.find('/', at) < list.find('"', at + 6);
    CHECK(steps > 2);
    CHECK(out.find("1 learner, " + std::to_string(steps) + " steps.") != std::string::npos);
}
