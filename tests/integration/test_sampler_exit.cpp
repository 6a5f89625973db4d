// A program's read and write totals at its end are the kernel's own, exactly: the sampler reads
// /proc a slice at a time, and never in the instant before a program exits, so what the program
// did after its last read would be lost; the launcher reports /proc/PID/io of each process at its
// end and iolab tops its figures up to them. The program here writes in a burst that spans
// several ticks and exits at once, with a child that does the same and is reaped.
#include "helpers.hpp"
#include "jail_helpers.hpp"
#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <sstream>

using namespace iolab_test;

namespace
{

const int kWrites = 200000;

// Waits a moment (so that the run's first figures are taken before any write), then makes n
// one-byte writes to /dev/null in a child and n in itself, reaps the child, and exits.
const char *kWriter = R"(#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    int fd = open("/dev/null", O_WRONLY);
    usleep(300000);
    pid_t p = fork();
    for (int i = 0; i < n; i++)
        write(fd, "x", 1);
    if (p == 0)
        _exit(0);
    waitpid(p, NULL, 0);
    return 0;
}
)";

std::string writer()
{
    static TempDir dir;
    static std::string out;
    if (!out.empty())
        return out;
    chmod(dir.path.c_str(), 0755); // programs run as an unprivileged uid when we are root
    spit(dir / "writer.c", kWriter);
    auto r = run({"/usr/bin/cc", "-std=gnu17", "-O1", "-o", dir / "writer", dir / "writer.c"});
    if (r.first != 0)
        throw std::runtime_error("cannot compile writer.c: " + r.second);
    out = dir / "writer";
    return out;
}

double number(cJSON *o, const char *path)
{
    std::stringstream ss(path);
    std::string key;
    while (o && std::getline(ss, key, '.'))
        o = cJSON_GetObjectItem(o, key.c_str());
    REQUIRE(cJSON_IsNumber(o));
    return o->valuedouble;
}

} // namespace

TEST_CASE("iolab run: a program's write totals at its end are the kernel's, to the call")
{
    std::string prog = writer();
    TempDir pack;
    spit(pack / "pack.json", R"({"format_version": 1, "id": "t", "title": "T",
        "version": "1", "lessons": ["l"]})");
    std::ofstream(pack / "l.json") << R"({"id": "l", "title": "L", "summary": "s", "steps": [
        {"id": "s", "title": "S", "kind": "run", "text": ["x"], "seconds": 120,
         "programs": [{"name": "writer", "role": "client", "program": ")"
                                   << prog << R"(", "args": [")" << kWrites << R"("]}]}]})";
    for (const auto &tier : tiers()) {
        DYNAMIC_SECTION("tier " << tier)
        {
            TempDir tmp;
            chmod(tmp.path.c_str(), 0755);
            auto r =
                run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json", "--tier", tier},
                    {"TMPDIR=" + tmp.path});
            INFO(r.second);
            REQUIRE(r.first == 0);
            cJSON *j = cJSON_Parse(r.second.c_str());
            REQUIRE(j);
            cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "processes"), 0);
            REQUIRE(p);
            // The program's own tally (the shim counted each write() it made) and the kernel's
            // (syscw: every write-family call) both say 2 x kWrites, and so does iolab.
            CHECK(number(p, "lib_writes") == 2 * kWrites);
            CHECK(number(p, "io.syscw") == 2 * kWrites);
            CHECK(number(p, "io.wchar") == 2 * kWrites);
            // The run ended with the program, before the step's 120 s ran out.
            CHECK(number(j, "duration_s") < 120);
            cJSON_Delete(j);
        }
    }
}
