// The built-in exercises' checks that are not one row of a table (the starters, solutions and
// known-wrong variants are rows of test_exercise_variants.cpp): a sanitizer's report, an echo to
// the sender and a line to one client only (judged by how many checks fail), a small buffer
// (judged on a range of figures), learner code that never listens, loops, forks or floods (it
// must end with a clear message), and every solution built without a warning.
#include "exercise_helpers.hpp"

#include <catch2/catch.hpp>
#include <filesystem>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <cjson/cJSON.h>
#include <fstream>
#include <memory>
#include <sstream>

using namespace iolab_test;

namespace
{

const Exercise kOrdered{"ordered/write-server-loop", "ordered/exit-loop", "ordered-server.c", {}};
const Exercise kChat{
    "chat/write-epoll-server", "chat/epoll-server", "chat-server.c", {"w_epoll.h"}};
const Exercise kStdio{
    "stdio/write-buffered-reader", "stdio/reader", "reader.c", {"reader.h", "reader-main.c"}};

} // namespace

TEST_CASE("ordered: built with sanitize a heap overflow names its signal and shows the report",
          "[exercises]")
{
    TempDir home;
    Result r = variant(home, kOrdered,
                       {{"    unsigned heard = 0;\n", "    unsigned heard = 0;\n"
                                                      "    volatile char *p = malloc(8);\n"
                                                      "    p[8] = 'x';\n"
                                                      "    free((void *)p);\n"}});
    expect_fail(r);
    // The clients in line say the server hung up on them (whichever said it first decides the
    // run); the failing check's message names the signal.
    std::string v;
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(r.json.get(), "checks"))
    {
        if (!strcmp(cJSON_GetObjectItem(c, "state")->valuestring, "fail"))
            v += std::string(cJSON_GetObjectItem(c, "message")->valuestring) + "\n";
    }
    INFO(v);
    CHECK(has(v, "yours: 1 matching lines"));
    CHECK(has(v, "the server closed the connection before exit, after 0 replies"));
    CHECK(has(v, "server was killed by signal 6, SIGABRT"));
    CHECK(has(v, "the sanitizer's report is below"));
    const cJSON *rep = cJSON_GetObjectItem(r.json.get(), "report");
    REQUIRE(cJSON_IsString(rep));
    CHECK(has(rep->valuestring, "ERROR: AddressSanitizer: heap-buffer-overflow"));
    CHECK(has(rep->valuestring, "ordered-server.c:")); // where: the learner's own file
}

TEST_CASE("ordered: built with sanitize a recv() past its buffer is reported, under counting",
          "[exercises]")
{
    // The overflow is the kernel's, inside recv(): only AddressSanitizer's recv interceptor can
    // see it, so the counting shim in front of it must call it (and not make the call itself).
    TempDir home;
    Result r = variant(home, kOrdered,
                       {{"        ssize_t n = recv(sock, b->v + b->n, sizeof b->v - b->n, 0);\n",
                         "        char *tiny = malloc(4);\n"
                         "        ssize_t n = recv(sock, tiny, 64, 0);\n"
                         "        free(tiny);\n"}});
    expect_fail(r);
    const cJSON *rep = cJSON_GetObjectItem(r.json.get(), "report");
    INFO(r.out);
    REQUIRE(cJSON_IsString(rep));
    CHECK(has(rep->valuestring, "ERROR: AddressSanitizer: heap-buffer-overflow"));
    CHECK(has(rep->valuestring, "recv"));
    CHECK(has(rep->valuestring, "ordered-server.c:"));
}

TEST_CASE("chat: an echo to the sender and a line to one client only fail", "[exercises]")
{
    TempDir home;
    Result echo = variant(
        home, kChat, {{"if (clients[i].fd < 0 || &clients[i] == from)", "if (clients[i].fd < 0)"}});
    expect_fail(echo);
    // The first line that comes back to its sender decides the run (a failure that is certain
    // is told at once): that check names the fix, the others are failed the same way or, still
    // open when the run stopped, not judged; none sends the learner elsewhere.
    int named = 0;
    for (const char *who : {"ana", "ben", "cy"}) {
        std::string e = verdict(echo, std::string(who) + "'s own lines never come back");
        named += has(e, "no: yours: ") && has(e, "skip the client the line came `from`");
        CHECK((has(e, "skip the client the line came `from`") || has(e, "not judged")));
    }
    CHECK(named >= 1);
    std::string heard = verdict(echo, "ana hears ben");
    CHECK((has(heard, "ok: ") || has(heard, "not judged")));

    // Each line to one other client only: whoever joined first hears everyone, the others
    // miss lines, and the checks of every pair say who missed whom.
    Result first =
        variant(home, kChat,
                {{"        send_all(clients[i].fd, msg, (size_t)n);\n",
                  "        send_all(clients[i].fd, msg, (size_t)n);\n        break;\n"}});
    expect_fail(first);
    int missed = 0;
    for (const char *pair : {"ana hears ben", "ana hears cy", "ben hears ana", "ben hears cy",
                             "cy hears ana", "cy hears ben"}) {
        std::string v = verdict(first, pair);
        if (has(v, "no: ")) {
            missed++;
            CHECK(has(v, "relay()"));
        }
    }
    CHECK(missed >= 2); // of three clients, each line reaches one: two of six pairs at least fail
}

TEST_CASE("stdio: a workspace whose reader-main.c is of another iolab is told to delete it",
          "[exercises]")
{
    TempDir home;
    // reader-main.c is iolab's, written into the workspace once and never again: a workspace
    // made by another iolab keeps the old one, whose version the feeder compares with its own.
    const Exercise main_file{
        "stdio/write-buffered-reader", "stdio/reader", "reader-main.c", {"reader.c", "reader.h"}};
    Result old = variant(home, main_file,
                         {{"#define READER_MAIN_VERSION 2", "#define READER_MAIN_VERSION 1"}});
    expect_fail(old);
    std::string v = verdict(old, "reader-main.c is this iolab's");
    INFO(v);
    CHECK(has(v, "no: "));
    CHECK(has(v, "delete it and open the step or check it again"));
    CHECK(has(v, "your reader.c is kept"));
}

TEST_CASE("copying: a workspace whose copy-main.c is of another iolab is told to delete it",
          "[exercises]")
{
    TempDir home;
    // copy-main.c is iolab's, written into the workspace once and never again: a workspace made
    // by another iolab keeps the old one, whose version the checker compares with its own.
    const Exercise main_file{
        "copying/write-sendfile-copy", "copying/memfd", "copy-main.c", {"copy-memfd.c", "copy.h"}};
    Result old =
        variant(home, main_file, {{"#define COPY_MAIN_VERSION 1", "#define COPY_MAIN_VERSION 0"}});
    expect_fail(old);
    std::string v = verdict(old, "copy-main.c is this iolab's");
    INFO(v);
    CHECK(has(v, "no: "));
    CHECK(has(v, "delete it and open the step or check it again"));
    CHECK(has(v, "your copy-memfd.c is kept"));
}

TEST_CASE("stdio: a small buffer fails with its figure, in range", "[exercises]")
{
    TempDir home;
    Result small =
        variant(home, kStdio, {{"read(r->fd, r->buf, sizeof r->buf)", "read(r->fd, r->buf, 512)"}});
    expect_fail(small);
    std::string s = verdict(small, "One read() per 4 KiB");
    // About 512 bytes per read, and a little more for the bytes the cut ones brought; how much
    // more depends on when in a pass the counters are read, so only the range is the behaviour.
    INFO(s);
    CHECK(has(s, "no: yours: "));
    long per_read = std::strtol(s.c_str() + std::strlen("no: yours: "), nullptr, 10);
    CHECK(per_read >= 512);
    CHECK(per_read < 1024);
    CHECK(has(s, "of 4000 bytes per read system call not cut short on purpose"));
    CHECK(has(s, "not within 3 s"));
    CHECK(has(s, "(its TODO)"));
}

namespace
{

// A learner's ordered-server.c that misbehaves, checked headless: it must end, in bounded time,
// with a verdict or a sentence, never hang.
Result hostile(const TempDir &home, const std::string &body, double *seconds)
{
    TempDir dir;
    spit(dir / "ordered-server.c",
         "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n#include <unistd.h>\n"
         "int main(void)\n{\n" +
             body + "\n}\n");
    auto t0 = std::chrono::steady_clock::now();
    Result r = check(home, kOrdered, {"--dir", dir.path});
    *seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return r;
}

const char *kListening = "    printf(\"listening\\n\");\n    fflush(stdout);\n";

} // namespace

TEST_CASE("safety: a server that never listens or loops or forks or writes 1 GB ends "
          "with a clear message",
          "[exercises]")
{
    TempDir home;
    double s = 0;
    Result quiet = hostile(home, "    for (;;)\n        pause();", &s);
    INFO(quiet.out);
    CHECK(quiet.code == 2);
    REQUIRE(quiet.json);
    // The engine's start-up limit or the check's own time, whichever ends first, says it.
    std::string why = cJSON_GetObjectItem(quiet.json.get(), "error")->valuestring;
    CHECK(has(why, "server did not print"));
    CHECK(has(why, "listening"));
    CHECK(has(why, " within "));
    CHECK(s < 30);

    // Says it listens and never does: the first client cannot connect, so the scenario never
    // starts (the second waits for the first's first line), and the client's own words say why.
    Result spin = hostile(home, std::string(kListening) + "    for (;;) {\n    }", &s);
    INFO(spin.out);
    CHECK(spin.code == 2);
    REQUIRE(spin.json);
    std::string refused = cJSON_GetObjectItem(spin.json.get(), "error")->valuestring;
    CHECK(
        has(refused, "the first (ordered-client) exited with status 1 before the scenario was up"));
    CHECK(has(refused, "cannot connect to 127.0.0.1:8000: Connection refused"));
    CHECK(s < 30);

    Result forks = hostile(home, std::string(kListening) + "    for (;;)\n        fork();", &s);
    INFO(forks.out);
    CHECK((forks.code == 1 || forks.code == 2));
    REQUIRE(forks.json);
    CHECK(std::string(cJSON_GetObjectItem(forks.json.get(), "status")->valuestring) != "pass");
    CHECK(s < 60);

    Result flood = hostile(home,
                           std::string(kListening) +
                               "    static char line[65536];\n    memset(line, 'x', sizeof line);\n"
                               "    for (long i = 0; i < 16384; i++)\n"
                               "        fwrite(line, 1, sizeof line, stdout);\n"
                               "    for (;;)\n        pause();",
                           &s);
    INFO(flood.out);
    // 1 GB of output and no listen(): iolab keeps its head and says why nothing could run.
    CHECK(flood.code == 2);
    REQUIRE(flood.json);
    CHECK(has(cJSON_GetObjectItem(flood.json.get(), "error")->valuestring,
              "cannot connect to 127.0.0.1:8000: Connection refused"));
    CHECK(s < 60);
}

TEST_CASE("every built-in solution builds without a warning under the default command",
          "[exercises]")
{
    // A learner sees the warnings of a build that succeeds: the reference must have none.
    namespace fs = std::filesystem;
    int built = 0;
    for (const auto &lesson : fs::directory_iterator(source_dir() + "/lessons/exercises"))
        for (const auto &ex : fs::directory_iterator(lesson.path())) {
            std::vector<std::string> argv = {"/usr/bin/cc", "-std=gnu17", "-O2",     "-g",
                                             "-Wall",       "-Wextra",    "-Werror", "-pthread",
                                             "-o",          "/dev/null"};
            for (const auto &f : fs::directory_iterator(ex.path()))
                if (f.path().extension() == ".c")
                    argv.push_back(f.path().string());
            auto [code, out] = run(argv, {}, 120);
            INFO(ex.path().string() << ": " << out);
            CHECK(code == 0);
            built++;
        }
    CHECK(built >= 6);
}
