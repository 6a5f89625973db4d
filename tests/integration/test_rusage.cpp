// What a program cost is the kernel's whole account of it, not only what iolab's samples caught:
// a program whose children each live and die between two samples (100 short sleeps each, about
// 15 ms) must still show every one of their voluntary context switches once it has exited. The
// program is compiled here, at test time, with the system C compiler.
#include "helpers.hpp"
#include "jail_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>

#include <fstream>
#include <sstream>

using namespace iolab_test;

namespace
{

const int kChildren = 40, kSleeps = 100;

// Each child sleeps kSleeps times (one voluntary switch each), burns 2 ms of CPU (measured on
// its own CPU clock, so the minimum holds however busy the machine is) and exits.
const char *kForker = R"(#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}
int main(int argc, char **argv)
{
    int n = atoi(argv[1]), k = atoi(argv[2]);
    for (int i = 0; i < n; i++) {
        pid_t p = fork();
        if (p == 0) {
            for (int j = 0; j < k; j++)
                usleep(100);
            for (double t0 = cpu(); cpu() - t0 < 0.002;)
                ;
            _exit(0);
        }
        waitpid(p, NULL, 0);
    }
    printf("forked %d children\n", n);
    return argc > 3 ? atoi(argv[3]) : 0;
}
)";

std::string forker()
{
    static TempDir dir;
    static std::string out;
    if (!out.empty())
        return out;
    chmod(dir.path.c_str(), 0755); // programs run as an unprivileged uid when we are root
    spit(dir / "forker.c", kForker);
    auto r = run({"/usr/bin/cc", "-std=gnu17", "-O1", "-o", dir / "forker", dir / "forker.c"});
    if (r.first != 0)
        throw std::runtime_error("cannot compile forker.c: " + r.second);
    out = dir / "forker";
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

TEST_CASE("the launcher reports the subtree's rusage on --report-fd, unseen by the program")
{
    std::string prog = forker();
    for (const auto &tier : tiers()) {
        DYNAMIC_SECTION("tier " << tier)
        {
            TempDir tmp;
            chmod(tmp.path.c_str(), 0755);
            // fd 5 exists only for the launcher: the shell opens it, then becomes the launcher.
            auto r = run({"/bin/sh", "-c",
                          "exec \"$0\" --tier \"$1\" --report-fd 5 -- \"$2\" 40 100 3 5>\"$3\"",
                          sandbox(), tier, prog, tmp / "report"});
            INFO(r.second);
            CHECK(r.first == 3);
            std::ifstream f(tmp / "report");
            std::string line, extra;
            REQUIRE(std::getline(f, line));
            CHECK(!std::getline(f, extra)); // one line
            cJSON *j = cJSON_Parse(line.c_str());
            REQUIRE(j);
            CHECK(number(j, "status") == 3);
            CHECK(number(j, "nvcsw") >= kChildren * kSleeps);
            CHECK(number(j, "utime_us") + number(j, "stime_us") >= kChildren * 2000);
            CHECK(number(j, "maxrss_kb") > 0);
            cJSON_Delete(j);

            r = run({"/bin/sh", "-c",
                     "exec \"$0\" --tier \"$1\" --report-fd 5 -- /bin/sh -c "
                     "'test -e /proc/self/fd/5 && echo seen || echo unseen' 5>/dev/null",
                     sandbox(), tier});
            CHECK(r.second.find("unseen") != std::string::npos);
        }
    }
}

TEST_CASE("iolab run: switches of children that no sample saw are in the program's totals")
{
    std::string prog = forker();
    TempDir pack;
    spit(pack / "pack.json", R"({"format_version": 1, "id": "t", "title": "T",
        "version": "1", "lessons": ["l"]})");
    // A one-shot client: it ends by itself inside the segment, which closes with its exit.
    std::ofstream(pack / "l.json")
        << R"({"id": "l", "title": "L", "summary": "s", "steps": [
        {"id": "s", "title": "S", "kind": "run", "text": ["x"], "seconds": 120,
         "programs": [{"name": "forker", "role": "client", "program": ")"
        << prog << R"(", "args": [")" << kChildren << R"(", ")" << kSleeps << R"("]}]}]})";
    for (const auto &tier : tiers()) {
        DYNAMIC_SECTION("tier " << tier)
        {
            TempDir tmp;
            chmod(tmp.path.c_str(), 0755); // the work directory inside must be reachable
            auto r =
                run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json", "--tier", tier},
                    {"TMPDIR=" + tmp.path});
            INFO(r.second);
            REQUIRE(r.first == 0);
            cJSON *j = cJSON_Parse(r.second.c_str());
            REQUIRE(j);
            cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "processes"), 0);
            REQUIRE(p);
            // Each child's sleeps are voluntary switches; a sampler at 10 Hz sees a child of
            // ~15 ms at most once, and never its last moments: without the exit's rusage most
            // of these are lost (about 400 of 4,000 remain). The segment starts at the first
            // snapshot, and on a loaded machine the first child may have slept a few dozen times
            // before it: those are rightly not the segment's, hence 90%, which still tells the
            // exit's totals (about 4,000) from the samples alone (about 400).
            CHECK(number(p, "ctx_switches.voluntary") >= 0.9 * kChildren * kSleeps);
            CHECK(number(p, "cpu.user_s") + number(p, "cpu.sys_s") >= kChildren * 0.002 - 0.01);
            // The segment ended with the program, long before the step's 120 s ran out.
            CHECK(number(j, "duration_s") < 120);
            cJSON_Delete(j);
        }
    }
}
