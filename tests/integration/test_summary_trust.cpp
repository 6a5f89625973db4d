// iolab progress --summary that a course can trust: a learner given twice (an older and a newer
// export) is one row whose steps come from the newer records, and a file that is not an export
// is named and left out while the others are still summed up.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>

using namespace iolab_test;

namespace
{

// An export of one learner with one pack "course": steps as "STEP:DONE:UPDATED:ATTEMPTS".
std::string export_of(const std::string &learner, const std::vector<std::string> &steps)
{
    std::string out = R"({"iolab_progress": 1, "learner": ")" + learner +
                      R"(", "packs": [{"id": "course", "version": "1", "steps": [)";
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
    std::ofstream(old_ann) << export_of("ann", {"l/ex:false:100:2", "l/other:false:100:1"});
    std::ofstream(new_ann) << export_of("ann", {"l/ex:true:500:5"});
    std::ofstream(bob) << export_of("bob", {"l/ex:false:300:1"});
    std::ofstream(bad) << "{\"this is\": \"not an export\"}";

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
        CHECK(out.find("ann      done 5x") != std::string::npos);
        CHECK(out.find("bob      started 1x") != std::string::npos);
        CHECK(out.find("2 learners, 2 steps.") != std::string::npos);
    }

    // Nothing readable: one sentence, nothing summed up.
    auto [code, out] = run({bin("iolab"), "progress", "--summary", bad, t / "missing.json"});
    INFO(out);
    CHECK(code == 1);
    CHECK(out.find("cannot read " + (t / "missing.json")) != std::string::npos);
    CHECK(out.find("none of the files is a progress export; nothing was summed up.") !=
          std::string::npos);
}
