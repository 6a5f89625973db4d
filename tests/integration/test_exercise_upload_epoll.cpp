// The upload lesson's one-thread exercise (upload/write-epoll-server), headless (`iolab check`):
// the starter fails at its TODO, the solution passes, and the servers a learner is likely to
// write instead each fail with the message that learner needs: a process per client (no epoll),
// a loop that reads one upload to its end before the next (it waits forever on the client that
// goes quiet), and reads that take EAGAIN for the end or a short read for a full one (the
// exercise injects both into the learner's server).
#include "exercise_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <memory>
#include <sstream>

using namespace iolab_test;

namespace
{

const Exercise kEpoll{"upload/write-epoll-server",
                      "upload/epoll-server",
                      "upload-server.c",
                      {"upload.h", "w_epoll.h"}};

// The checks' texts, as upload.json names them.
const char *kWhole = "Every upload arrives whole";
const char *kSameTime = "never waits for one client";
const char *kEpollWait = "found with epoll_wait()";
const char *kNoFork = "No fork()";
const char *kNoThread = "No thread";

} // namespace

TEST_CASE("upload epoll: the starter fails at its TODO and the solution passes", "[exercises]")
{
    TempDir home;
    Result starter = check(home, kEpoll, {}); // the workspace, created from the starter
    expect_fail(starter);
    std::string w = verdict(starter, kWhole);
    INFO(starter.out);
    CHECK(has(w, "no: yours: 0 of 4 requests"));
    CHECK(has(w, "not within 5 s"));
    CHECK(has(w, "on_readable()"));
    CHECK(has(w, "(its TODO)"));
    // The starter hangs up at once: it waits for no one, and is one thread.
    CHECK(has(verdict(starter, kNoFork), "ok: "));

    Result ok = check(home, kEpoll, {"--dir", solution_dir(kEpoll)});
    INFO(ok.out);
    CHECK(ok.code == 0);
    REQUIRE(ok.json);
    CHECK(std::string(cJSON_GetObjectItem(ok.json.get(), "status")->valuestring) == "pass");
    for (const char *part : {kWhole, kSameTime, kEpollWait, kNoFork, kNoThread})
        CHECK(has(verdict(ok, part), "ok: "));
}

TEST_CASE("upload epoll: a process per client without epoll fails on fork and epoll_wait",
          "[exercises]")
{
    TempDir home;
    Result fork = variant(home, kEpoll,
                          {{"    for (;;) {\n        struct epoll_event events[64];",
                            "    signal(SIGCHLD, SIG_IGN);\n"
                            "    for (;;) {\n"
                            "        int sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);\n"
                            "        if (sock < 0)\n"
                            "            continue;\n"
                            "        if (fork() == 0) {\n"
                            "            struct conn c = {.fd = sock};\n"
                            "            int r;\n"
                            "            while ((r = on_readable(&c)) == 0) {\n"
                            "            }\n"
                            "            if (r == 1)\n"
                            "                send_reply(sock, c.got, "
                            "upload_sum_value(&c.sum));\n"
                            "            _exit(0);\n"
                            "        }\n"
                            "        close(sock);\n"
                            "    }\n"
                            "    for (;;) {\n        struct epoll_event events[64];"}});
    expect_fail(fork);
    std::string f = verdict(fork, kNoFork);
    CHECK(has(f, "no: yours: "));
    CHECK(has(f, "fork calls, at most 0"));
    CHECK(has(f, "the one epoll loop"));
    std::string e = verdict(fork, kEpollWait);
    CHECK(has(e, "no: yours: 0 of 1 epoll_wait calls"));
    CHECK(has(e, "epoll_wait() which sockets are ready"));
    // A child per client waits for its own client only: the uploads arrive, whole.
    CHECK(has(verdict(fork, kWhole), "ok: "));
}

TEST_CASE("upload epoll: a loop that reads one upload to its end waits forever on a quiet client",
          "[exercises]")
{
    TempDir home;
    // Blocking sockets, and on_readable() called until the upload is complete: the seed's first
    // server. The quiet client's header never completes, and the loop never comes back.
    Result serial = variant(home, kEpoll,
                            {{"SOCK_NONBLOCK | SOCK_CLOEXEC", "SOCK_CLOEXEC"},
                             {"            int r = on_readable(c);\n",
                              "            int r;\n"
                              "            while ((r = on_readable(c)) == 0) {\n"
                              "            }\n"}});
    expect_fail(serial);
    std::string s = verdict(serial, kSameTime);
    CHECK(has(s, "no: yours: "));
    CHECK(has(s, "of 50 epoll_wait calls"));
    CHECK(has(s, "not within 5 s"));
    CHECK(has(s, "waits for one client's next bytes"));
    CHECK(has(s, "on_readable() must recv() once"));
    CHECK(has(verdict(serial, kNoFork), "ok: "));
    CHECK(has(verdict(serial, kNoThread), "ok: "));
}

TEST_CASE("upload epoll: reads that end on EAGAIN or take a short read for a full one fail",
          "[exercises]")
{
    TempDir home;
    // EAGAIN and EINTR taken for the client's end: the connection is closed mid-upload.
    Result again = variant(
        home, kEpoll,
        {{"    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))\n"
          "        return 0; /* nothing after all, or interrupted: epoll_wait() reports the "
          "socket again */\n",
          ""}});
    expect_fail(again);
    std::string a = verdict(again, kWhole);
    CHECK(has(a, "no: yours: 0 of 4 requests"));
    CHECK(has(a, "EAGAIN or EINTR only mean 'not now'"));
    // It does not wait for anyone: the loop goes on.
    CHECK(has(verdict(again, kSameTime), "ok: "));

    // recv() taken to have filled what it was asked for: the byte count and checksum are off.
    Result shortr = variant(home, kEpoll,
                            {{"        upload_sum_add(&c->sum, buf, (size_t)n);\n"
                              "        c->got += (size_t)n;\n",
                              "        upload_sum_add(&c->sum, buf, want);\n"
                              "        c->got += want;\n"}});
    expect_fail(shortr);
    std::string r = verdict(shortr, kWhole);
    CHECK(has(r, "no: yours: 0 of 4 requests"));
    CHECK(has(r, "a recv() may bring fewer bytes than asked"));
    CHECK(has(verdict(shortr, kSameTime), "ok: "));
}
