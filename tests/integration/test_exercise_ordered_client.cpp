// The ordered lesson's client exercise, headless (`iolab check --dir`): the learner writes the
// client's send/recv loop and the reference ordered-server answers. The starter fails with a
// message that points at its TODO, the solution passes, and the usual wrong loops (send
// everything first, no recv at all, stop at the first reply, wait for a reply to "exit", spin on
// recv() returning 0) each fail with the message a learner needs.
#include "exercise_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>
#include <memory>
#include <sstream>

using namespace iolab_test;

namespace
{

const Exercise kClient{"ordered/write-client-loop", "ordered/client-loop", "ordered-client.c", {}};

// The loop's lines in the solution, as the variants cut them.
const char *kExitReturn = "        if (strcmp(line, \"exit\") == 0)\n"
                          "            return 0; /* we ended it; \"exit\" gets no answer */\n";
const char *kReadReply = "        if (!read_line(sock, &in, reply, sizeof reply))\n"
                         "            return -1;\n";
const char *kPrintReply = "        printf(\"server: %s\\n\", reply);\n"
                          "        fflush(stdout);\n"
                          "        if (strcmp(reply, \"exit\") == 0)\n"
                          "            return 0; /* the server ended it */\n"
                          "    }\n";

} // namespace

TEST_CASE("ordered client: the starter fails at its TODO and the solution passes", "[exercises]")
{
    TempDir home;
    Result starter = check(home, kClient, {});
    expect_fail(starter);
    std::string v = verdict(starter, "Every line gets its reply");
    INFO(starter.out);
    CHECK(has(v, "no: yours: 0 of 3 matching lines"));
    CHECK(has(v, "converse()"));
    CHECK(has(v, "(its TODO)"));
    CHECK(has(verdict(starter, "The server hears exit"), "no: yours: 0 of 1 matching lines"));

    Result ok = check(home, kClient, {"--dir", solution_dir(kClient)});
    INFO(ok.out);
    CHECK(ok.code == 0);
    REQUIRE(ok.json);
    CHECK(std::string(cJSON_GetObjectItem(ok.json.get(), "status")->valuestring) == "pass");
    CHECK(has(verdict(ok, "One connection"), "ok: yours: 1 connect calls"));
}

TEST_CASE("ordered client: sending every line before reading the replies fails", "[exercises]")
{
    TempDir home;
    // Every line first, then the replies: they wait together in the socket and one recv()
    // takes them all, so the client cannot tell which answers which.
    Result first = variant(home, kClient,
                           {{std::string(kExitReturn) + kReadReply + kPrintReply,
                             "    }\n"
                             "    while (read_line(sock, &in, reply, sizeof reply)) {\n"
                             "        printf(\"server: %s\\n\", reply);\n"
                             "        fflush(stdout);\n"
                             "    }\n"}});
    expect_fail(first);
    std::string r = verdict(first, "A recv() for each reply");
    CHECK(has(r, "no: yours: "));
    CHECK(has(r, " of 3 recvfrom calls"));
    CHECK(has(r, "right after its send_line()"));

    // No recv() at all: not one reply is printed.
    Result deaf = variant(home, kClient,
                          {{std::string(kReadReply) + "        printf(\"server: %s\\n\", "
                                                      "reply);\n",
                            "        (void)in, (void)reply;\n"}});
    expect_fail(deaf);
    std::string d = verdict(deaf, "Every line gets its reply");
    CHECK(has(d, "no: yours: 0 of 3 matching lines"));
    CHECK(has(d, "not within 5 s"));
    CHECK(has(d, "read_line() the reply after each send_line()"));
    CHECK(has(verdict(deaf, "A recv() for each reply"), "no: yours: 0 of 3 recvfrom calls"));
}

TEST_CASE("ordered client: stopping at the first reply or waiting for a reply to exit fails",
          "[exercises]")
{
    TempDir home;
    // One line, one reply, and the client hangs up without "exit".
    Result once = variant(home, kClient,
                          {{"while ((line = next_line(s))) {",
                            "for (int once = 0; once < 1 && (line = next_line(s)); once++) {"}});
    expect_fail(once);
    CHECK(has(verdict(once, "Every line gets its reply"), "no: yours: 1 of 3 matching lines"));
    std::string e = verdict(once, "The server hears exit");
    CHECK(has(e, "no: yours: 0 of 1 matching lines"));
    CHECK(has(e, "exit included"));

    // "exit" sent like any other line: the server does not answer it but hangs up.
    Result waits = variant(home, kClient, {{kExitReturn, ""}});
    expect_fail(waits);
    std::string w = verdict(waits, "ends with status 0 after exit");
    CHECK(has(w, "no: yours: client exited with status 1, expected 0"));
    CHECK(has(w, "return 0 right after sending \"exit\""));
    CHECK(has(verdict(waits, "Every line gets its reply"), "ok: "));
}

TEST_CASE("ordered client: a loop that spins on recv() returning 0 fails", "[exercises]")
{
    TempDir home;
    // recv() returning 0 taken for "nothing yet", and no stop after "exit": once the server
    // hangs up, the client calls recv() forever.
    Result spin = variant(home, kClient,
                          {{std::string(kExitReturn) + kReadReply,
                            "        while (!read_line(sock, &in, reply, sizeof reply))\n"
                            "            continue; /* nothing yet: try again */\n"}});
    expect_fail(spin);
    std::string s = verdict(spin, "stops reading when the server hangs up");
    CHECK(has(s, "no: yours: "));
    // A reader that takes a byte per recv() stays far below the bound; a spin passes it at once.
    CHECK(has(s, "recvfrom calls, at most 400"));
    CHECK(has(s, "end the loop when read_line() returns 0"));
    std::string x = verdict(spin, "ends with status 0 after exit");
    CHECK(has(x, "no: yours: client has not exited yet"));
    CHECK(has(x, "still waiting or spinning"));
}
