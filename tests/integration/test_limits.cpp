// Every client accounted for, every limit said out loud: clients an iterative server leaves
// waiting are counted and weigh in the latency; a server at its open-file limit keeps serving
// and says which limit it hit; a fork that fails is counted with its cause, in --json and in the
// exit status; 1,000 connections in every echo mode and 10,000 in the event loops'.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <memory>

using namespace iolab_test;

namespace
{

using Json = std::unique_ptr<cJSON, decltype(&cJSON_Delete)>;

void write_pack(const TempDir &dir, const std::string &programs, const std::string &extra = "")
{
    spit(dir / "pack.json", R"({"format_version": 1, "id": "lim", "title": "L",
        "version": "1", "lessons": ["l"]})");
    spit(dir / "l.json", R"({"id": "l", "title": "L", "summary": "s", "steps": [
        {"id": "s", "title": "S", "kind": "run", "text": "x", "seconds": 3, )" +
                             extra + R"( "programs": [)" + programs + "]}]}");
}

Json parse_run(const std::string &out)
{
    size_t brace = out.find('{');
    return Json(brace == std::string::npos ? nullptr : cJSON_Parse(out.c_str() + brace),
                cJSON_Delete);
}

const cJSON *process(const cJSON *j, const char *name)
{
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(j, "processes"))
    {
        const cJSON *n = cJSON_GetObjectItem(p, "name");
        if (cJSON_IsString(n) && std::string(n->valuestring) == name)
            return p;
    }
    return nullptr;
}

double number(const cJSON *o, const char *a, const char *b = nullptr)
{
    const cJSON *v = cJSON_GetObjectItem(o, a);
    if (b)
        v = cJSON_GetObjectItem(v, b);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

// The count of app.failed of a process for one call and cause; 0 when absent.
double failed(const cJSON *proc, const std::string &call, const std::string &cause)
{
    const cJSON *f;
    cJSON_ArrayForEach(f, cJSON_GetObjectItem(cJSON_GetObjectItem(proc, "app"), "failed"))
    {
        if (call == cJSON_GetObjectItem(f, "call")->valuestring &&
            cause == cJSON_GetObjectItem(f, "cause")->valuestring)
            return number(f, "count");
    }
    return 0;
}

} // namespace

TEST_CASE("the iterative server's unanswered clients are counted and weigh in the latency",
          "[limits][waiting]")
{
    // The built-in comparison step: 8 persistent connections; the iterative server serves one.
    auto [code, out] = run({bin("iolab"), "run", "concurrency/compare", "--mode", "iterative",
                            "--seconds", "2", "--json"});
    INFO(out);
    CHECK(code == 0); // waiting their turn is the lesson, not a failure
    Json j = parse_run(out);
    REQUIRE(j);
    const cJSON *lat = cJSON_GetObjectItem(j.get(), "latency_us");
    CHECK(number(lat, "waiting") == 7);
    double dur_us = number(j.get(), "duration_s") * 1e6;
    // The seven waited about the whole run; at the pace of the one answered they stand for most
    // of the requests, so p99 is of the order of the run, not a round trip of microseconds.
    CHECK(number(lat, "p99") > 0.25 * dur_us);
    CHECK(number(lat, "oldest_wait_us") > 0.5 * dur_us);
    const cJSON *load = process(j.get(), "load");
    REQUIRE(load);
    CHECK(number(load, "app", "waiting") == 7);
    CHECK(number(load, "app", "in_flight") == 8);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j.get(), "clean")));

    // The text output says it in words.
    auto [c2, text] =
        run({bin("iolab"), "run", "concurrency/compare", "--mode", "iterative", "--seconds", "1"});
    INFO(text);
    CHECK(c2 == 0);
    CHECK(text.find("waiting: 7 clients still waiting") != std::string::npos);
}

TEST_CASE("an epoll server at its open-file limit keeps serving and names the limit",
          "[limits][emfile]")
{
    TempDir pack;
    // 40 descriptors: some 30 connections fit; the other 30 are shed as they come.
    write_pack(pack, R"({"name": "server", "role": "server", "program": "/bin/bash",
                         "args": ["-c", "ulimit -n 40; exec )" +
                         demo("echo-server") + R"( --port {port} --host {host} --mode epoll"],
                         "ready": "listening"},
                        {"name": "load", "role": "client", "program": "echo-client",
                         "args": ["--port", "{port}", "--host", "{host}", "--connections", "60"]})");
    auto [code, out] =
        run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json", "--seconds", "2"});
    INFO(out);
    CHECK(code == 1); // not clean: connections were shed
    Json j = parse_run(out);
    REQUIRE(j);
    const cJSON *server = process(j.get(), "server");
    REQUIRE(server);
    // Still serving: the event loop did not stall at the limit (on main it served nothing).
    CHECK(number(server, "app", "requests") > 1000);
    CHECK(failed(server, "accept", "open files") > 0);
    CHECK(number(server, "app", "shed") > 0);
    std::string why = run_problems(j.get());
    CHECK(why.find("accept failed") != std::string::npos);
    CHECK(why.find("40 open files per process (RLIMIT_NOFILE)") != std::string::npos);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j.get(), "clean")));
}

TEST_CASE("a fork or a pthread_create that fails is counted with its cause, in --json and in "
          "the exit status",
          "[limits][fork]")
{
    // RLIMIT_NPROC counts threads as well as processes: the thread mode's pthread_create meets
    // the same limit as the fork mode's fork.
    auto [mode, call] =
        GENERATE(std::make_pair(std::string("fork"), std::string("fork")),
                 std::make_pair(std::string("thread"), std::string("pthread_create")));
    INFO(mode);
    TempDir pack;
    // One process allowed for the uid in the jail: the server itself. Every fork fails.
    write_pack(pack, R"({"name": "server", "role": "server", "program": "/bin/bash",
                         "args": ["-c", "ulimit -u 1; exec )" +
                         demo("echo-server") + " --port {port} --host {host} --mode " + mode +
                         R"("],
                         "ready": "listening"},
                        {"name": "load", "role": "client", "program": "echo-client",
                         "args": ["--port", "{port}", "--host", "{host}", "--connections", "2"]})");
    auto [code, out] =
        run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json", "--seconds", "1"});
    INFO(out);
    CHECK(code == 1);
    Json j = parse_run(out);
    REQUIRE(j);
    const cJSON *server = process(j.get(), "server");
    REQUIRE(server);
    CHECK(failed(server, call, "processes") > 0);
    std::string why = run_problems(j.get());
    CHECK(why.find(call + " failed") != std::string::npos);
    CHECK(why.find("(RLIMIT_NPROC)") != std::string::npos);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j.get(), "clean")));
}

namespace
{

// Every echo mode with 1,000 connections, within the limits the step asks for.
void write_scale_pack(const TempDir &dir)
{
    write_pack(dir, R"({"name": "server", "role": "server", "program": "echo-server",
                         "args": ["--port", "{port}", "--host", "{host}"], "ready": "listening"},
                        {"name": "load", "role": "client", "program": "echo-client",
                         "args": ["--port", "{port}", "--host", "{host}", "--connections", "1000"]})",
               R"("limits": {"open_files": 4096, "processes": 2048},
                  "modes": [
                    {"id": "iterative", "title": "i", "key": "1", "program": "server", "args": ["--mode", "iterative"]},
                    {"id": "epoll", "title": "e", "key": "2", "program": "server", "args": ["--mode", "epoll"]},
                    {"id": "fork", "title": "f", "key": "3", "program": "server", "args": ["--mode", "fork"]},
                    {"id": "thread", "title": "t", "key": "4", "program": "server", "args": ["--mode", "thread"]},
                    {"id": "io_uring", "title": "u", "key": "5", "program": "server", "args": ["--mode", "io_uring"]}],)");
}

} // namespace

TEST_CASE("1,000 connections run cleanly in every echo mode, iterative clients wait, not lost",
          "[limits][scale]")
{
    TempDir pack;
    write_scale_pack(pack);
    for (const char *mode : {"iterative", "epoll", "fork", "thread", "io_uring"}) {
        auto [code, out] = run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--mode", mode,
                                "--seconds", "2", "--json"});
        INFO(mode << ": " << out);
        CHECK(code == 0);
        Json j = parse_run(out);
        REQUIRE(j);
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j.get(), "clean")));
        const cJSON *load = process(j.get(), "load");
        const cJSON *server = process(j.get(), "server");
        REQUIRE(load);
        REQUIRE(server);
        CHECK(number(load, "app", "errors") == 0);
        CHECK(number(load, "app", "conns_opened") == 1000);
        if (std::string(mode) == "iterative") {
            // One served, 999 waiting their turn in the backlog: counted, not lost.
            CHECK(number(load, "app", "waiting") == 999);
            CHECK(number(server, "app", "conns_opened") == 1);
        } else {
            // Every connection is in (the client's count); the server may still be forking or
            // starting threads for the last ones when a slow build's segment ends.
            CHECK(number(server, "app", "conns_opened") > 0);
            CHECK(number(server, "app", "requests") > 1000);
        }
    }
}

TEST_CASE("the C10K step: the epoll and io_uring servers hold 10,000 connections in one thread",
          "[limits][scale][c10k]")
{
    std::string mode = GENERATE("epoll", "io_uring");
    // 10 s: under the sanitizers the io_uring server accepted 9,790 of the 10,000 in 3 s, on a
    // loaded machine 5,973 in 6 s. The burst of 10,000 connects overflows the listen queue
    // (4,096), and a connection the queue dropped comes back only with the client's or the
    // kernel's retransmission, a second and then seconds later: a busy io_uring server (its
    // ring shared with a recv per open connection) may not have them all by the end of 10 s
    // (CI: 5,392 with a 256-deep ring; 8,311-9,706 of 10,000 at load 3 with 4,096). What the step
    // claims is that it holds them all, not when: a segment that ends short is followed by one
    // of 30 s, the deadline.
    std::string out;
    int code = 0;
    Json j(nullptr, cJSON_Delete);
    for (const char *seconds : {"10", "30"}) {
        std::tie(code, out) = run({bin("iolab"), "run", "concurrency/c10k", "--mode", mode,
                                   "--seconds", seconds, "--json"},
                                  {}, 120);
        j = parse_run(out);
        const cJSON *server = j ? process(j.get(), "server") : nullptr;
        if (server && number(server, "app", "conns_opened") == 10000)
            break;
    }
    INFO(mode << ": " << out);
    CHECK(code == 0);
    REQUIRE(j);
    CHECK(cJSON_IsTrue(cJSON_GetObjectItem(j.get(), "clean")));
    const cJSON *load = process(j.get(), "load");
    const cJSON *server = process(j.get(), "server");
    REQUIRE(load);
    REQUIRE(server);
    CHECK(number(load, "app", "conns_opened") == 10000);
    CHECK(number(server, "app", "conns_opened") == 10000);
    CHECK(number(load, "app", "errors") == 0);
    CHECK(number(server, "threads") == 1);
    CHECK(number(server, "app", "requests") >= 10000);
}

TEST_CASE("limits beyond iolab's ceiling are a lint error at their place", "[limits][lint]")
{
    TempDir pack;
    write_pack(pack, R"({"name": "load", "role": "client", "program": "echo-client",
                         "args": ["--port", "{port}"]})",
               R"("limits": {"open_files": 100000, "procs": 3},)");
    auto [code, out] = run({bin("iolab"), "lint", pack.path});
    INFO(out);
    CHECK(code != 0);
    CHECK(out.find("l.json:2:") != std::string::npos); // where "limits" is written
    CHECK(out.find("\"open_files\" must be a whole number from 1 to 65536 (iolab's ceiling)") !=
          std::string::npos);
    CHECK(out.find("\"limits\" has no \"procs\"") != std::string::npos);
}

TEST_CASE("a load that dies before anything is measured still gets its JSON and exit 1",
          "[limits][failures]")
{
    TempDir pack;
    // The client runs out of something at once (here: it just exits), as echo-client did at
    // 1,019 connections when it ran out of descriptors: on main iolab printed no JSON at all.
    write_pack(pack, R"({"name": "server", "role": "server", "program": "echo-server",
                         "args": ["--port", "{port}", "--host", "{host}", "--mode", "epoll"],
                         "ready": "listening"},
                        {"name": "load", "role": "client", "program": "/bin/sh",
                         "args": ["-c", "echo out of descriptors >&2; exit 3"]})");
    auto [code, out] =
        run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json", "--seconds", "2"});
    INFO(out);
    CHECK(code == 1);
    Json j = parse_run(out);
    REQUIRE(j);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j.get(), "clean")));
    CHECK(run_problems(j.get()).find("out of descriptors") != std::string::npos);
}

TEST_CASE("a scenario that fails before its first figure still prints its JSON, exit 1",
          "[limits][failures]")
{
    TempDir pack;
    // Nothing is ever measured: on main iolab printed no JSON at all, only the sentence.
    write_pack(pack, R"({"name": "server", "role": "server", "program": "/bin/sh",
                         "args": ["-c", "echo cannot listen: too many open files >&2; exit 1"],
                         "ready": "listening"},
                        {"name": "load", "role": "client", "program": "echo-client",
                         "args": ["--port", "{port}", "--host", "{host}"]})");
    auto [code, out] =
        run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--json", "--seconds", "2"});
    INFO(out);
    CHECK(code == 1);
    Json j = parse_run(out);
    REQUIRE(j);
    CHECK(cJSON_GetArraySize(cJSON_GetObjectItem(j.get(), "modes")) == 0);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(j.get(), "clean")));
    CHECK(run_problems(j.get()).find("too many open files") != std::string::npos);
}
