// iolab check --audit (issue 42): the learner's program runs a second time with the calls the
// step's checks count counted by the kernel (a seccomp filter and the launcher's tracer), not by
// the counting shim inside the program. Programs that make raw system calls the shim never sees,
// or write their own counts, fail the audit every time, with the audited count in the sentence;
// the reference solution and the known-right programs pass it; where the audit cannot be had,
// text, JSON and JUnit say the run was not audited and why.
#include "exercise_helpers.hpp"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

using namespace iolab_test;

namespace
{

const Exercise zerocopy{"zerocopy/write-sendfile", "zerocopy/sendfile", "file-server.c", {}};

std::string table(const std::string &rel)
{
    return data("exercises/zerocopy/write-sendfile/" + rel);
}

// `iolab check --audit --json` of one learner file (copied as the exercise's file); env: more.
Result audited(const TempDir &home, const std::string &file,
               const std::vector<std::string> &extra = {})
{
    TempDir dir;
    spit(dir / zerocopy.file, slurp(file));
    std::vector<std::string> args = {"--dir", dir.path, "--audit"};
    args.insert(args.end(), extra.begin(), extra.end());
    return check(home, zerocopy, args);
}

std::string str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : "";
}

} // namespace

TEST_CASE("the reference and the right rows of zerocopy pass --audit, on the kernel's counts",
          "[audit]")
{
    TempDir home;
    for (const std::string &file :
         {solution_dir(zerocopy) + "/file-server.c", table("right/chunked-for.c"),
          table("right/null-offset-lseek.c")}) {
        Result r = audited(home, file);
        INFO(file << "\n" << r.out);
        REQUIRE(r.json);
        CHECK(str(r.json.get(), "status") == "pass");
        CHECK(r.code == 0);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r.json.get(), "audited")));
        const cJSON *au = cJSON_GetObjectItemCaseSensitive(r.json.get(), "audit");
        CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(au, "ok")));
        CHECK(str(au, "calls") == "read,sendfile");
        // The kernel saw the sendfile()s, from files, and no read of one.
        CHECK(str(au, "counts").find("0 read-family calls (0 on files)") != std::string::npos);
        CHECK(str(au, "counts").find(" sendfile() calls (") != std::string::npos);
    }
}

TEST_CASE("forgers that make raw system calls fail --audit, 5 runs of 5, naming the count",
          "[audit]")
{
    TempDir home;
    struct Forger {
        const char *file;
        const char *check;   // the check that fails on the kernel's counts
        const char *counted; // a part of the audited counts
    };
    const Forger forgers[] = {
        // A raw pread64/write copy of each file beside the real sendfile()s.
        {"audit/raw-copy-beside-sendfile.c", "No byte is copied through your program",
         " on files) moving"},
        // Raw read()+write() serving, sendfile counts written into its own slot: every ordinary
        // check holds for it. On the kernel's counts its read()s of the files pass the maximum
        // of 0 at once, which ends the audited run before "The bytes go out with sendfile()"
        // (a ratio, judged at the end) is decided.
        {"audit/raw-read-write-forged-slot.c", "No byte is copied through your program",
         "0 sendfile() calls (0 on files) moving 0 bytes"},
    };
    for (const Forger &f : forgers)
        for (int run = 1; run <= 5; run++) {
            Result r = audited(home, table(f.file));
            INFO(f.file << " run " << run << "\n" << r.out);
            REQUIRE(r.json);
            CHECK(str(r.json.get(), "status") == "fail");
            CHECK(r.code == 1);
            CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(r.json.get(), "audited")));
            const cJSON *au = cJSON_GetObjectItemCaseSensitive(r.json.get(), "audit");
            CHECK_FALSE(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(au, "ok")));
            std::string failure = str(au, "failure");
            CHECK(failure.find(f.check) != std::string::npos);
            CHECK(failure.find("on the kernel's count of your program's calls") !=
                  std::string::npos);
            CHECK(failure.find("[audited: ") != std::string::npos);
            CHECK(failure.find(f.counted) != std::string::npos);
        }
}

TEST_CASE("the forger that passes every ordinary check fails only by the audit", "[audit]")
{
    TempDir home;
    TempDir dir;
    spit(dir / zerocopy.file, slurp(table("audit/raw-read-write-forged-slot.c")));
    Result plain = check(home, zerocopy, {"--dir", dir.path});
    INFO(plain.out);
    REQUIRE(plain.json);
    CHECK(str(plain.json.get(), "status") == "pass");
    // Without --audit nothing is said about an audit.
    CHECK(cJSON_GetObjectItemCaseSensitive(plain.json.get(), "audited") == nullptr);

    // Audited (in a store of its own, which keeps the best score) it fails, and its progress
    // record keeps the audited score, its checks' points adding up to it: an export of it is one
    // an import takes.
    TempDir fresh;
    Result au = check(fresh, zerocopy, {"--dir", dir.path, "--audit"});
    INFO(au.out);
    REQUIRE(au.json);
    CHECK(str(au.json.get(), "status") == "fail");
    const cJSON *score = cJSON_GetObjectItemCaseSensitive(au.json.get(), "score");
    double points = cJSON_GetObjectItemCaseSensitive(score, "points")->valuedouble;
    CHECK(points < cJSON_GetObjectItemCaseSensitive(score, "max")->valuedouble);
    std::string text = slurp(fresh / ".local/state/iolab/progress.json");
    INFO(text);
    std::unique_ptr<cJSON, decltype(&cJSON_Delete)> store(cJSON_Parse(text.c_str()), cJSON_Delete);
    const cJSON *steps = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(store.get(), "packs"),
                                         "linux-io"),
        "steps");
    const cJSON *kept = cJSON_GetObjectItemCaseSensitive(
        cJSON_GetObjectItemCaseSensitive(
            cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(steps, zerocopy.step),
                                             "fields"),
            "exercise"),
        "score");
    REQUIRE(kept);
    CHECK(cJSON_GetObjectItemCaseSensitive(kept, "points")->valuedouble == points);
    double sum = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(kept, "checks")) sum +=
        cJSON_GetObjectItemCaseSensitive(c, "points")->valuedouble;
    CHECK(sum == points);
}

TEST_CASE("a run that cannot be audited says so in the text, the JSON and the JUnit", "[audit]")
{
    TempDir home, dir;
    spit(dir / zerocopy.file, slurp(solution_dir(zerocopy) + "/file-server.c"));
    std::string xml = home / "report.xml";
    std::vector<std::string> argv = {bin("iolab"), "check", zerocopy.step, "--dir", dir.path,
                                     "--junit",    xml};
    auto [code, out] = run(argv,
                           {"HOME=" + home.path, "XDG_DATA_HOME=" + (home / "data"),
                            "XDG_CACHE_HOME=" + (home / "cache"), "IOLAB_SANDBOX_AUDIT=off"},
                           120);
    INFO(out);
    CHECK(code == 0); // the ordinary verdict stands alone
    CHECK(out.find("not audited: the sandbox could not trace your program: "
                   "IOLAB_SANDBOX_AUDIT=off") != std::string::npos);
    std::string report = slurp(xml);
    INFO(report);
    CHECK(report.find("<property name=\"audited\" value=\"false: the sandbox could not trace") !=
          std::string::npos);
    CHECK(report.find("name=\"audit\"") != std::string::npos);
    CHECK(report.find("<skipped") != std::string::npos);

    auto [jcode, json] =
        run({bin("iolab"), "check", zerocopy.step, "--dir", dir.path, "--audit", "--json"},
            {"HOME=" + home.path, "XDG_DATA_HOME=" + (home / "data"),
             "XDG_CACHE_HOME=" + (home / "cache"), "IOLAB_SANDBOX_AUDIT=off"},
            120);
    JsonPtr j(cJSON_Parse(json.c_str()), cJSON_Delete);
    INFO(json);
    REQUIRE(j);
    CHECK(jcode == 0);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(j.get(), "audited")));
    const cJSON *au = cJSON_GetObjectItemCaseSensitive(j.get(), "audit");
    CHECK(str(au, "why").find("IOLAB_SANDBOX_AUDIT=off") != std::string::npos);
}
