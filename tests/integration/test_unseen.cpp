// Say what cannot be seen: a program the counting shim never reaches (a static binary) is shown
// as not counted, never as a program that made no calls, and the kernel's totals still show
// what it did. The same program linked dynamically is counted.
#include <catch2/catch.hpp>

#include <cjson/cJSON.h>
#include <fstream>
#include <sys/stat.h>

#include "helpers.hpp"

using namespace iolab_test;

namespace
{

// About 1.5 s of one-byte writes to /dev/null, then a clean exit (which ends the segment).
const char *kWriter = R"(#include <fcntl.h>
#include <time.h>
#include <unistd.h>
int main(void)
{
    int fd = open("/dev/null", O_WRONLY);
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 1500; i++) {
        if (write(fd, "x", 1) != 1)
            return 1;
        nanosleep(&ms, NULL);
    }
    return 0;
}
)";

// The writer built static and dynamic, once per test process, where any uid can read it.
std::string writer(bool dynamic)
{
    static TempDir dir;
    static std::string out[2];
    if (!out[dynamic].empty())
        return out[dynamic];
    chmod(dir.path.c_str(), 0755); // programs run as an unprivileged uid when we are root
    spit(dir / "writer.c", kWriter);
    std::string exe = dir / (dynamic ? "writer-dynamic" : "writer-static");
    std::vector<std::string> cc = {"/usr/bin/cc", "-std=gnu17", "-O1", "-o", exe, dir / "writer.c"};
    if (!dynamic)
        cc.push_back("-static");
    auto r = run(cc);
    if (r.first != 0)
        throw std::runtime_error("cannot compile writer.c: " + r.second);
    return out[dynamic] = exe;
}

// A pack with one step per build of the writer.
struct Pack : TempDir {
    Pack()
    {
        spit(*this / "pack.json", R"({"format_version": 1, "id": "t", "title": "T",
            "version": "1", "lessons": ["l"]})");
        std::ofstream(*this / "l.json") << R"({"id": "l", "title": "L", "summary": "s", "steps": [
            {"id": "static", "title": "S", "kind": "run", "text": ["x"], "seconds": 20,
             "programs": [{"name": "w", "role": "client", "program": ")"
                                        << writer(false) << R"("}]},
            {"id": "dynamic", "title": "D", "kind": "run", "text": ["x"], "seconds": 20,
             "programs": [{"name": "w", "role": "client", "program": ")"
                                        << writer(true) << R"("}]}]})";
    }
};

struct Json {
    cJSON *root = nullptr;
    explicit Json(const std::string &text) : root(cJSON_Parse(text.c_str())) {}
    ~Json()
    {
        cJSON_Delete(root);
    }
    const cJSON *process() const
    {
        return cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(root, "processes"), 0);
    }
};

std::pair<int, std::string> run_step(const Pack &pack, const std::string &step, bool json)
{
    TempDir tmp;
    chmod(tmp.path.c_str(), 0755);
    std::vector<std::string> argv = {bin("iolab"), "run", "l/" + step, "--pack", pack.path};
    if (json)
        argv.push_back("--json");
    return run(argv, {"TMPDIR=" + tmp.path}, 60);
}

} // namespace

TEST_CASE("a static binary is shown as not counted, with the kernel's totals", "[unseen]")
{
    Pack pack;
    auto [code, out] = run_step(pack, "static", true);
    INFO(out);
    REQUIRE(code == 0);
    Json j(out);
    REQUIRE(j.root);
    const cJSON *p = j.process();
    REQUIRE(p);
    const cJSON *counted = cJSON_GetObjectItemCaseSensitive(p, "counted");
    REQUIRE(cJSON_IsBool(counted));
    CHECK(cJSON_IsFalse(counted));
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(p, "calls")) == 0);
    // The kernel saw the writes the shim could not.
    const cJSON *io = cJSON_GetObjectItemCaseSensitive(p, "io");
    CHECK(cJSON_GetObjectItemCaseSensitive(io, "syscw")->valuedouble >= 1000);

    auto [tcode, text] = run_step(pack, "static", false);
    INFO(text);
    CHECK(tcode == 0);
    CHECK(text.find("not counted (static binary?)") != std::string::npos);
}

TEST_CASE("the same program linked dynamically is counted", "[unseen]")
{
    Pack pack;
    auto [code, out] = run_step(pack, "dynamic", true);
    INFO(out);
    REQUIRE(code == 0);
    Json j(out);
    REQUIRE(j.root);
    const cJSON *p = j.process();
    REQUIRE(p);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p, "counted")));
    const cJSON *w =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(p, "calls"), "write");
    REQUIRE(w);
    CHECK(cJSON_GetObjectItemCaseSensitive(w, "count")->valuedouble >= 1000);
}
