// Fault injection (IOLAB_FAULTS, a program's "faults" key) and the split of calls by kind of
// descriptor, seen from outside: a program that loops over short writes and EINTR still moves
// every byte, one that ignores what send() returned fails where the verifying client can see it,
// and `iolab run --json` and the step's checks say what was injected and where the calls went.
#include "counter_page.hpp"
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <array>
#include <fstream>
#include <memory>

extern "C" {
#include "iolab_counters.h"
#include "iolab_page.h"
}

using namespace iolab_test;

namespace
{

using Json = std::unique_ptr<cJSON, decltype(&cJSON_Delete)>;

// What the shim injected into program `prog`, summed over its slots.
std::map<std::string, uint64_t> injected(const CounterPage &page, int prog)
{
    std::map<std::string, uint64_t> out;
    for (uint32_t i = 0; i + 1 < page.nslots; i++)
        if (const struct iolab_slot *s = iolab_page_slot(page.page, page.nslots, i))
            if (s->prog == (uint32_t)prog)
                for (int f = 0; f < IOLAB_NFAULTS; f++)
                    out[iolab_fault_name[f]] += iolab_load(&s->fd.faults[f]);
    return out;
}

void write_file(const std::string &path, size_t n)
{
    std::ofstream f(path, std::ios::binary);
    for (size_t i = 0; i < n; i++)
        f.put((char)('a' + (i * 7 + i / 26) % 26));
}

void write_pack(const TempDir &dir, const std::string &server, const std::string &checks)
{
    spit(dir / "pack.json", R"({"format_version": 1, "id": "faults", "title": "F",
        "version": "1", "lessons": ["l"]})");
    spit(dir / "l.json", R"({"id": "l", "title": "L", "summary": "s", "steps": [
        {"id": "s", "title": "S", "kind": "run", "text": "x", "seconds": 3,
         "files": [{"name": "data.bin", "size": "300K"}],
         "programs": [)" + server +
                             R"(,
           {"name": "load", "role": "client", "program": "file-client",
            "args": ["--port", "{port}", "--host", "{host}", "--path", "/data.bin",
                     "--connections", "2", "--verify", "{workdir}/data.bin"]}],
         "checks": [)" + checks +
                             "]}]}");
}

Json run_json(const TempDir &pack, int *code)
{
    auto [c, out] = run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json"}, {}, 90);
    *code = c;
    size_t brace = out.find('{');
    INFO(out);
    REQUIRE(brace != std::string::npos);
    Json j(cJSON_Parse(out.c_str() + brace), cJSON_Delete);
    REQUIRE(j);
    return j;
}

const cJSON *process(const cJSON *j, const char *role)
{
    const cJSON *p;
    cJSON_ArrayForEach(p,
                       cJSON_GetObjectItem(
                           j, "processes")) if (!strcmp(cJSON_GetObjectItem(p, "role")->valuestring,
                                                        role)) return p;
    FAIL("no " << role << " process");
    return nullptr;
}

double num(const cJSON *obj, std::initializer_list<const char *> path)
{
    for (const char *k : path) {
        obj = obj ? cJSON_GetObjectItem(obj, k) : nullptr;
        if (!obj)
            return -1;
    }
    return obj->valuedouble;
}

} // namespace

TEST_CASE("a program that loops over short writes copies every byte under faults, the same way "
          "every time",
          "[faults]")
{
    // dd writes what each read returned and loops over short writes; on files no fault depends
    // on timing, so the same seed cuts the same calls in the same places.
    TempDir dir;
    write_file(dir / "in", 1 << 20);
    std::map<std::string, uint64_t> first;
    for (int round = 0; round < 2; round++) {
        CounterPage page;
        auto env = page.env(0);
        env.push_back("IOLAB_FAULTS=short=0.3,eintr=0.1,eagain=0.1,seed=7");
        std::string out_file = dir / ("out" + std::to_string(round));
        auto [code, out] =
            run({"/bin/dd", "if=" + (dir / "in"), "of=" + out_file, "bs=4096", "status=none"}, env);
        INFO(out);
        REQUIRE(code == 0);
        CHECK(slurp(out_file) == slurp(dir / "in"));
        auto f = injected(page, 0);
        CHECK(f["short_reads"] > 10);
        CHECK(f["short_writes"] > 10);
        CHECK(f["eintr"] == 0);  // files are never interrupted
        CHECK(f["eagain"] == 0); // nor are they non-blocking sockets
        if (round == 0)
            first = f;
        else
            CHECK(f == first); // a fixed seed: the same faults again
    }
    // Through a pipe, EINTR too: cat retries it and loops over short writes.
    CounterPage page;
    auto env = page.env(0);
    env.push_back("IOLAB_FAULTS=short=0.3,eintr=0.2,seed=7");
    auto [code, out] =
        run({"/bin/sh", "-c", "cat \"$0\" | cat > \"$1\"", dir / "in", dir / "piped"}, env);
    INFO(out);
    REQUIRE(code == 0);
    CHECK(slurp(dir / "piped") == slurp(dir / "in"));
    CHECK(injected(page, 0)["eintr"] > 0);
}

TEST_CASE("thread faults: condition waits wake up with nothing signalled, threads start late",
          "[faults]")
{
    // What a wait under an `if` and a thread that reads its creator's loop variable need to go
    // wrong. Without the faults, a timed wait nobody signals times out every time; with them,
    // waits of both kinds return early, every one with the caller holding its mutex as a real
    // spurious wake-up does, and new threads begin after their creator has moved on.
    std::string prog = build_dir() + "/lib/iolab/iolab-thread-faults";
    int timed = -1, untimed = -1, lost = -1, late = -1;
    {
        CounterPage page;
        auto env = page.env(0);
        env.push_back("IOLAB_FAULTS=short=0,spurious=0.5,late_start=0.999,seed=7");
        auto [code, out] = run({prog}, env, 60);
        INFO(out);
        REQUIRE(code == 0);
        REQUIRE(sscanf(out.c_str(), "timed %d untimed %d lost %d late %d", &timed, &untimed, &lost,
                       &late) == 4);
        CHECK(timed > 50);
        // The untimed waits race a thread that signals every millisecond: on a loaded machine
        // it often signals while a spurious wake-up yields the mutex, and that wake-up then
        // counts as a real one. Some of the 200 are always left (35 seen at load 6).
        CHECK(untimed > 10);
        CHECK(lost == 0);
        CHECK(late >= 45);
    }
    {
        CounterPage page;
        auto [code, out] = run({prog}, page.env(0), 60);
        INFO(out);
        REQUIRE(code == 0);
        REQUIRE(sscanf(out.c_str(), "timed %d untimed %d lost %d late %d", &timed, &untimed, &lost,
                       &late) == 4);
        CHECK(timed == 0);
        CHECK(lost == 0);
        // Threads that began late on their own (a loaded machine) say nothing either way.
    }
}

TEST_CASE("sync faults: two child exits reach the SIGCHLD handler as one call, locks and "
          "semaphores meet jitter",
          "[faults]")
{
    // What a handler that reaps one child per call and a race between two critical sections
    // need to go wrong. Under coalesce_sigchld, each pair of children that exit together is one
    // handler call (the lone child's is handed over by the shim's timer), so a handler that
    // loops reaps every child while one that reaps one per call leaves a child per pair; the
    // program still sees its own handler. Under jitter_us, about every other lock, unlock, post
    // and wait sleeps at least half of it.
    std::string prog = build_dir() + "/lib/iolab/iolab-sync-faults";
    auto sigchld = [&](std::vector<std::string> args, bool faulted) {
        CounterPage page;
        auto env = page.env(0);
        if (faulted)
            env.push_back("IOLAB_FAULTS=short=0,coalesce_sigchld=1,seed=7");
        args.insert(args.begin(), {prog, "sigchld"});
        auto [code, out] = run(args, env, 60);
        INFO(out);
        REQUIRE(code == 0);
        std::array<int, 4> r{-1, -1, -1, -1};
        REQUIRE(sscanf(out.c_str(), "calls %d reaped %d left %d own %d", &r[0], &r[1], &r[2],
                       &r[3]) == 4);
        return r;
    };
    for (const char *how : {"sigaction", "signal"}) {
        INFO("handler installed with " << how);
        auto all = sigchld({"all", how}, true);
        CHECK(all[0] <= 6); // five pairs and the lone child: one call each
        CHECK(all[1] == 11);
        CHECK(all[2] == 0);
        CHECK(all[3] == 1);
        auto one = sigchld({"one", how}, true);
        CHECK(one[1] + one[2] == 11);
        CHECK(one[2] >= 4); // a child left per pair, less the one the lone child's call reaps
        CHECK(one[3] == 1);
    }
    auto plain = sigchld({"all"}, false);
    CHECK(plain[1] == 11);
    CHECK(plain[2] == 0);
    CHECK(plain[3] == 1);

    CounterPage page;
    auto env = page.env(0);
    env.push_back("IOLAB_FAULTS=jitter_us=1000,seed=7");
    auto [code, out] = run({prog, "jitter"}, env, 60);
    INFO(out);
    REQUIRE(code == 0);
    long ms = -1;
    REQUIRE(sscanf(out.c_str(), "ms %ld", &ms) == 1);
    // 200 lock and semaphore pairs and 50 semop pairs: about half of their 500 calls (a coin of
    // the seeded generator, so the same ones every run) asleep for at least 0.5 ms. A lower
    // bound, which a loaded machine only raises.
    CHECK(ms >= 100);
}

TEST_CASE("echo-server under faults answers every request: short sends, EINTR and EAGAIN",
          "[faults]")
{
    for (std::string mode : {"epoll", "thread"}) {
        SECTION(mode)
        {
            CounterPage page;
            auto env = page.env(0);
            env.push_back("IOLAB_FAULTS=short=0.3,eintr=0.1,eagain=0.1,seed=3");
            Child srv;
            srv.start({demo("echo-server"), "--port", "0", "--mode", mode}, env);
            REQUIRE(srv.read_until("listening on", 20));
            REQUIRE(srv.read_until(" mode=", 30));
            const std::string &o = srv.output();
            size_t colon = o.find(':', o.find("listening on"));
            std::string port = o.substr(colon + 1, o.find(' ', colon) - colon - 1);
            auto [code, out] = run({demo("echo-client"), "--port", port, "--connections", "3",
                                    "--requests", "300", "--size", "1000"},
                                   page.env(1), 120);
            INFO(out);
            CHECK(code == 0);
            CHECK(out.find("errors=0") != std::string::npos);
            srv.stop();
            auto f = injected(page, 0);
            CHECK(f["short_writes"] > 0);
            CHECK(f["short_reads"] > 0);
            CHECK(f["eintr"] > 0);
            if (mode == "epoll")
                CHECK(f["eagain"] > 0); // its sockets are non-blocking
            else
                CHECK(f["eagain"] == 0);
            CHECK(injected(page, 1)["short_writes"] == 0); // the client had no faults
        }
    }
}

TEST_CASE("iolab run: a faulted file-server still serves every byte, the JSON says what was "
          "injected and where the calls went",
          "[faults]")
{
    TempDir pack;
    write_pack(pack,
               R"({"name": "server", "role": "server", "program": "file-server",
                   "args": ["--port", "{port}", "--host", "{host}", "--root", "{workdir}",
                            "--mode", "read-send", "--buffer", "16384"],
                   "ready": "listening", "faults": {"short": 0.25, "eintr": 0.05, "seed": 7}})",
               R"({"text": "read() the file", "metric": "calls:read", "fd": "file",
                   "role": "server", "min": 1},
                  {"text": "no sendfile from a file", "metric": "calls:sendfile",
                   "fd": "file>socket", "role": "server", "max": 0},
                  {"text": "no read() of a pipe", "metric": "calls:read", "fd": "pipe",
                   "role": "server", "max": 0})");
    int code;
    Json j = run_json(pack, &code);
    char *text = cJSON_Print(j.get());
    INFO(text);
    free(text);
    CHECK(code == 0);
    const cJSON *srv = process(j.get(), "server"), *cli = process(j.get(), "client");
    CHECK(num(cli, {"app", "errors"}) == 0);
    CHECK(num(cli, {"app", "requests"}) > 0);
    CHECK(num(srv, {"faults_injected", "short_writes"}) > 0);
    CHECK(num(srv, {"faults_injected", "short_reads"}) > 0);
    CHECK(num(srv, {"faults_injected", "eintr"}) > 0);
    CHECK(cJSON_GetObjectItem(cli, "faults_injected") == nullptr);
    // read() of the file and of the socket (the request) apart; sendto only on sockets.
    double reads = num(srv, {"calls", "read", "count"});
    double rf = num(srv, {"calls", "read", "fd", "file"});
    double rs = num(srv, {"calls", "read", "fd", "socket"});
    CHECK(rf > 0);
    CHECK(rs > 0);
    CHECK(rf + rs == reads);
    CHECK(num(srv, {"calls", "sendto", "fd", "socket"}) == num(srv, {"calls", "sendto", "count"}));
    CHECK(num(cli, {"calls", "read", "fd", "socket"}) == num(cli, {"calls", "read", "count"}));
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(j.get(), "checks"))
    {
        INFO(cJSON_GetObjectItem(c, "text")->valuestring);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(c, "ok")));
    }
}

TEST_CASE("iolab run: a server that ignores a short send fails visibly under faults, and only "
          "under faults",
          "[faults]")
{
    std::string prog = build_dir() + "/lib/iolab/iolab-naive-file-server";
    for (bool faults : {false, true}) {
        SECTION(faults ? "with faults" : "without faults")
        {
            TempDir pack;
            std::string server = R"({"name": "server", "role": "server", "program": ")" + prog +
                                 R"(", "args": ["--port", "{port}", "--host", "{host}",
                                      "--root", "{workdir}"], "ready": "listening")" +
                                 (faults ? R"(, "faults": {"short": 0.5, "seed": 1}})" : "}");
            write_pack(pack, server,
                       R"({"text": "downloads", "metric": "requests", "role": "client",
                           "min": 1})");
            int code;
            Json j = run_json(pack, &code);
            char *text = cJSON_Print(j.get());
            INFO(text);
            free(text);
            const cJSON *cli = process(j.get(), "client");
            if (!faults) {
                CHECK(code == 0);
                CHECK(num(cli, {"app", "errors"}) == 0);
                continue;
            }
            // The client saw short bodies: errors, a run that is not clean, exit 1.
            CHECK(code == 1);
            CHECK(num(cli, {"app", "errors"}) > 0);
            CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j.get(), "clean")));
            CHECK(num(process(j.get(), "server"), {"faults_injected", "short_writes"}) > 0);
        }
    }
}

TEST_CASE("lint: a bad \"fd\" or \"faults\" is one sentence at its place", "[faults][lint]")
{
    struct Case {
        std::string server_extra, check, want;
    } cases[] = {
        {"", R"({"text": "t", "metric": "calls:read", "fd": "disk", "max": 0})",
         "\"disk\" is not a kind of descriptor"},
        {"", R"({"text": "t", "metric": "calls:fork", "fd": "file", "max": 0})",
         "fork is not counted by kind of descriptor"},
        {"", R"({"text": "t", "metric": "calls:read", "fd": "file>socket", "max": 0})",
         "read has one descriptor"},
        {"", R"({"text": "t", "metric": "requests", "fd": "file", "min": 1})",
         "\"fd\" applies to calls:NAME and calls_per_request:NAME metrics only"},
        {R"(, "faults": {"short": 1.5})", R"({"text": "t", "metric": "requests", "min": 1})",
         "\"short\" is a probability"},
        {R"(, "faults": {"shrt": 0.5})", R"({"text": "t", "metric": "requests", "min": 1})",
         "shrt"},
        {R"(, "faults": {"seed": 3})", R"({"text": "t", "metric": "requests", "min": 1})",
         "\"faults\" injects nothing"},
        {R"(, "faults": {"spurious": 1})", R"({"text": "t", "metric": "requests", "min": 1})",
         "\"spurious\" is a probability"},
        {R"(, "faults": {"late_start": -0.5})", R"({"text": "t", "metric": "requests", "min": 1})",
         "\"late_start\" is a probability"},
        {R"(, "faults": {"jitter_us": 500000})", R"({"text": "t", "metric": "requests", "min": 1})",
         "\"jitter_us\" is a whole number of microseconds"},
        {R"(, "faults": {"coalesce_sigchld": 1})",
         R"({"text": "t", "metric": "requests", "min": 1})", "coalesce_sigchld"},
        {R"(, "faults": {"coalesce_sigchld": false})",
         R"({"text": "t", "metric": "requests", "min": 1})", "\"faults\" injects nothing"},
    };
    for (const auto &c : cases) {
        TempDir pack;
        write_pack(pack,
                   R"({"name": "server", "role": "server", "program": "file-server",
                       "args": ["--port", "{port}", "--root", "{workdir}", "--mode", "sendfile"],
                       "ready": "listening")" +
                       c.server_extra + "}",
                   c.check);
        auto [code, out] = run({bin("iolab"), "lint", pack.path});
        INFO(out);
        CHECK(code != 0);
        CHECK(out.find(c.want) != std::string::npos);
        CHECK(out.find("l.json:") != std::string::npos);
    }
}

TEST_CASE("tui: the counters pane shows the calls by descriptor and the faults injected",
          "[faults][tui]")
{
    TempDir dir;
    TempDir pack;
    write_pack(pack,
               R"({"name": "server", "role": "server", "program": "file-server",
                   "args": ["--port", "{port}", "--host", "{host}", "--root", "{workdir}",
                            "--mode", "read-send", "--buffer", "16384"],
                   "ready": "listening", "faults": {"short": 0.25, "eintr": 0.05, "seed": 7}})",
               R"({"text": "no read() of a pipe", "metric": "calls:read", "fd": "pipe",
                   "role": "server", "max": 0})");
    IolabTerm t(dir, "--pack '" + pack.path + "' --open l/s");
    REQUIRE(t.started());
    REQUIRE(t.wait_for("Enter", 15));
    t.keys("Enter");
    bool split = t.wait_for("on file", 30), faults = t.wait_for("faults injected:", 30);
    std::string screen = t.screen();
    INFO(screen);
    CHECK(split);
    CHECK(faults);
    CHECK(screen.find("short writes") != std::string::npos);
    CHECK(t.quit());
}
