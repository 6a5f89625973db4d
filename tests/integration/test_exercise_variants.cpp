// Exercises as one table, headless (`iolab check --json`): each row is a program (the starter in
// the learner's workspace, the solution, or the solution with string edits: a known-wrong
// variant a learner is likely to write) and what each named check must say about it ("ok: " or
// "no: " and the parts of the sentence the learner must see). The starter fails at its TODO, the
// solution passes, every variant fails with its sentence. One test case per exercise, so that
// ctest runs them side by side; each row is a section of its own.
//
// ordered/write-client-loop: the learner writes the client's send/recv loop and the reference
// ordered-server answers; the wrong loops send everything first, never recv(), stop at the first
// reply, wait for a reply to "exit", or spin on recv() returning 0.
// ordered/write-server-loop: the server's loop; the wrong ones hang up after one reply or never end
// at EOF (more in tests/data/exercises/ordered/write-server-loop). chat/write-epoll-server: a
// forking server. upload/write-fork-server: serial, fork and wait, a short read.
// copying/write-sendfile-copy: read+write instead of sendfile. stdio/write-buffered-reader: a
// refill that drops the bytes left in the buffer. concurrency/write-fib-server,
// pagecache/count-resident: the starter and the solution only. zerocopy/write-sendfile: read+send,
// one short sendfile(), one sendfile() without a loop. upload/write-epoll-server: one thread and
// epoll; the wrong servers fork per client (no epoll), read one upload to its end before the next
// (waiting forever on the quiet client), take EAGAIN for the end, or take a short read for a full
// one (the exercise injects both); the uploader's line that names the failed upload is quoted (more
// in tests/data/exercises/upload/).
#include "exercise_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>

using namespace iolab_test;

namespace
{

using Edits = std::vector<std::pair<std::string, std::string>>;

// A check (found by a part of its text) and the parts its "ok: "/"no: " verdict must hold; with
// no check, parts of the whole output (a sentence of a check that was not judged, say). The run
// stops at its first certain failure, so a check its own figure had not settled by then says
// "not judged" (lessons/README.md).
struct Expect {
    std::string check;
    std::vector<std::string> parts;
};

enum class From { kStarter, kSolution, kVariant };

struct Row {
    std::string name; // what the row stands for
    From from;
    Edits edits; // on the solution, for a variant
    std::vector<Expect> expect;
};

void run_row(const Exercise &e, const Row &row)
{
    TempDir home;
    Result r = row.from == From::kStarter    ? check(home, e, {}) // the workspace: the starter
               : row.from == From::kSolution ? check(home, e, {"--dir", solution_dir(e)})
                                             : variant(home, e, row.edits);
    INFO(row.name);
    INFO(r.out);
    if (row.from == From::kSolution) {
        CHECK(r.code == 0);
        REQUIRE(r.json);
        CHECK(std::string(cJSON_GetObjectItem(r.json.get(), "status")->valuestring) == "pass");
    } else {
        expect_fail(r);
    }
    for (const auto &x : row.expect) {
        std::string v = x.check.empty() ? r.out : verdict(r, x.check);
        INFO(x.check << ": " << v);
        for (const auto &part : x.parts)
            CHECK(has(v, part));
    }
}

void run_table(const Exercise &e, const std::vector<Row> &rows)
{
    for (const auto &row : rows)
        DYNAMIC_SECTION(e.step << " " << row.name)
        {
            run_row(e, row);
        }
}

// ordered/write-client-loop

const Exercise kClient{"ordered/write-client-loop", "ordered/client-loop", "ordered-client.c", {}};

// The loop's lines in the solution, as the variants cut them.
const std::string kExitReturn =
    "        if (strcmp(line, \"exit\") == 0)\n"
    "            return 0; /* we ended it; \"exit\" gets no answer */\n";
const std::string kReadReply = "        if (!read_line(sock, &in, reply, sizeof reply))\n"
                               "            return -1;\n";
const std::string kPrintReply = "        printf(\"server: %s\\n\", reply);\n"
                                "        fflush(stdout);\n"
                                "        if (strcmp(reply, \"exit\") == 0)\n"
                                "            return 0; /* the server ended it */\n"
                                "    }\n";

const std::vector<Row> kClientRows = {
    {"the starter fails at its TODO",
     From::kStarter,
     {},
     {{"Every line gets its reply",
       {"no: yours: 0 of 3 matching lines", "converse()", "(its TODO)"}},
      {"The server hears exit", {"no: yours: 0 of 1 matching lines"}}}},
    {"the solution passes",
     From::kSolution,
     {},
     {{"One connection", {"ok: yours: 1 connect calls"}}}},
    // Every line first, then the replies: they wait together in the socket and one recv()
    // takes them all, so the client cannot tell which answers which.
    {"every line sent before the replies are read",
     From::kVariant,
     {{kExitReturn + kReadReply + kPrintReply,
       "    }\n"
       "    while (read_line(sock, &in, reply, sizeof reply)) {\n"
       "        printf(\"server: %s\\n\", reply);\n"
       "        fflush(stdout);\n"
       "    }\n"}},
     {{"A recv() for each reply",
       {"no: yours: ", " of 3 recvfrom calls", "right after its send_line()"}}}},
    // No recv() at all: not one reply is printed.
    {"no recv() at all",
     From::kVariant,
     {{kReadReply + "        printf(\"server: %s\\n\", reply);\n",
       "        (void)in, (void)reply;\n"}},
     {{"Every line gets its reply",
       {"no: yours: 0 of 3 matching lines", "not within 5 s",
        "read_line() the reply after each send_line()"}},
      {"A recv() for each reply", {"no: yours: 0 of 3 recvfrom calls"}}}},
    // One line, one reply, and the client hangs up without "exit".
    {"one line and hang up",
     From::kVariant,
     {{"while ((line = next_line(s))) {",
       "for (int once = 0; once < 1 && (line = next_line(s)); once++) {"}},
     {{"Every line gets its reply", {"no: yours: 1 of 3 matching lines"}},
      {"The server hears exit", {"no: yours: 0 of 1 matching lines", "exit included"}}}},
    // "exit" sent like any other line: the server does not answer it but hangs up.
    {"waits for a reply to exit",
     From::kVariant,
     {{kExitReturn, ""}},
     {{"ends with status 0 after exit",
       {"no: yours: client exited with status 1, expected 0",
        "status 0 right after sending \"exit\""}},
      {"Every line gets its reply", {"ok: "}}}},
    // recv() returning 0 taken for "nothing yet", and no stop after "exit": once the server
    // hangs up, the client calls recv() forever. A reader that takes a byte per recv() stays far
    // below the bound; a spin passes it at once.
    {"spins on recv() returning 0",
     From::kVariant,
     {{kExitReturn + kReadReply, "        while (!read_line(sock, &in, reply, sizeof reply))\n"
                                 "            continue; /* nothing yet: try again */\n"}},
     {{"stops reading when the server hangs up",
       {"no: yours: ", "recvfrom calls, at most 400", "end the loop when read_line() returns 0"}},
      {"ends with status 0 after exit", {"not judged"}}}},
};

// upload/write-epoll-server

const Exercise kEpoll{"upload/write-epoll-server",
                      "upload/epoll-server",
                      "upload-server.c",
                      {"upload.h", "w_epoll.h"}};

// The checks' texts, as upload.json names them.
const std::string kWhole = "Every upload arrives whole";
const std::string kSameTime = "never waits for one client";
const std::string kEpollWait = "found with epoll_wait()";
const std::string kNoFork = "No fork()";
const std::string kNoThread = "No thread";
const std::string kClosed = "keeps each client until its upload is complete";
const std::string kChecksum = "added to the checksum once";
const std::string kUnread = "No upload is left unread";
const std::string kSleeps = "sleeps in epoll_wait()";
const std::string kCpu = "CPU goes to the uploads";

// Four uploaders run at once, so a wrong server may fail more than one upload before the check
// looks: the rows ask for a failing count, not for exactly one line.
const std::vector<Row> kEpollRows = {
    // The starter hangs up at once, in the middle of the first header: the uploader says so.
    {"the starter fails at its TODO",
     From::kStarter,
     {},
     {{kClosed,
       {"no: yours: ", " matching lines", "on_readable() (its TODO)",
        "failed: the server closed the connection without a reply after 3 of 16777224 bytes"}}}},
    {"the solution passes",
     From::kSolution,
     {},
     {{kWhole, {"ok: "}},
      {kClosed, {"ok: "}},
      {kChecksum, {"ok: "}},
      {kUnread, {"ok: "}},
      {kSameTime, {"ok: "}},
      {kEpollWait, {"ok: "}},
      {kSleeps, {"ok: "}},
      {kCpu, {"ok: "}},
      {kNoFork, {"ok: "}},
      {kNoThread, {"ok: "}}}},
    // A child per client waits for its own client only: the uploads arrive, whole.
    {"a process per client without epoll",
     From::kVariant,
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
       "                send_reply(sock, c.got, upload_sum_value(&c.sum));\n"
       "            _exit(0);\n"
       "        }\n"
       "        close(sock);\n"
       "    }\n"
       "    for (;;) {\n        struct epoll_event events[64];"}},
     {{kNoFork, {"no: yours: ", "fork calls, at most 0", "the one epoll loop"}},
      {kEpollWait, {"not judged"}},
      {kWhole, {"not judged"}}}},
    // Blocking sockets, and on_readable() called until the upload is complete: the seed's first
    // server. The quiet client's header never completes, and the loop never comes back.
    {"a loop that reads one upload to its end",
     From::kVariant,
     {{"SOCK_NONBLOCK | SOCK_CLOEXEC", "SOCK_CLOEXEC"},
      {"            int r = on_readable(c);\n", "            int r;\n"
                                                "            while ((r = on_readable(c)) == 0) {\n"
                                                "            }\n"}},
     {{kUnread,
       {"no: yours: ", " matching lines", "quiet sends 6 header bytes",
        "on_readable() must recv() once", "(uploads said: \"upload "}}}},
    // EAGAIN and EINTR taken for the client's end: the connection is closed mid-upload. It does
    // not wait for anyone: the loop goes on.
    {"EAGAIN taken for the end",
     From::kVariant,
     {{"    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))\n"
       "        return 0; /* nothing after all, or interrupted: epoll_wait() reports the "
       "socket again */\n",
       ""}},
     {{kClosed,
       {"no: yours: ", " matching lines", "other than EAGAIN and EINTR, which only mean 'not now'",
        "failed: the server closed the connection without a reply"}}}},
    // recv() taken to have filled what it was asked for: the byte count and checksum are off.
    {"a short read taken for a full one",
     From::kVariant,
     {{"        upload_sum_add(&c->sum, buf, (size_t)n);\n"
       "        c->got += (size_t)n;\n",
       "        upload_sum_add(&c->sum, buf, want);\n"
       "        c->got += want;\n"}},
     {{kChecksum,
       {"no: yours: ", " matching lines", "n of them, not what was asked for",
        "the server's reply counts all 16777216 bytes, but its checksum is"}}}},
};

// ordered/write-server-loop

const Exercise kOrdered{"ordered/write-server-loop", "ordered/exit-loop", "ordered-server.c", {}};

const std::vector<Row> kOrderedRows = {
    // The starter hangs up at once: the first client says so, before its first reply.
    {"the starter fails at its TODO",
     From::kStarter,
     {},
     {{"keeps the conversation until exit",
       {"no: ", "(its TODO)", "the server closed the connection before exit, after 0 replies"}}}},
    {"the solution passes",
     From::kSolution,
     {},
     {{"Every line gets its reply", {"ok: yours: 6 requests"}},
      {"Two lines that arrive in one segment", {"ok: "}},
      {"exit gets no reply", {"ok: "}},
      {"third client gets its turn", {"ok: "}}}},
    // The first client sent two lines in one segment: the second is never answered.
    {"one reply and hang up",
     From::kVariant,
     {{"while (read_line(sock, &in, line, sizeof line)) {",
       "for (int once = 0; once < 1 && read_line(sock, &in, line, sizeof line); once++) {"}},
     {{"keeps the conversation until exit",
       {"no: yours: 1 matching lines", "converse() must go on",
        "after 1 reply, with \"how are you?\" unanswered"}}}},
    // recv() returning 0 taken for "nothing yet": "exit" ends a conversation, but the second
    // client hangs up without it, the server spins, and the third never gets its turn.
    {"a loop that never ends at EOF",
     From::kVariant,
     {{"while (read_line(sock, &in, line, sizeof line)) {",
       "for (;;) {\n        if (!read_line(sock, &in, line, sizeof line))\n"
       "            continue;"}},
     {{"stops reading", {"no: yours: ", "recvfrom calls, at most 400", "read_line() returns 0"}},
      {"third client gets its turn", {"not judged"}}}},
};

// chat/write-epoll-server (an echo to the sender and a line to one client only are judged by
// how many checks fail: their own test cases in test_exercises.cpp)

const Exercise kChat{
    "chat/write-epoll-server", "chat/epoll-server", "chat-server.c", {"w_epoll.h"}};

const std::vector<Row> kChatRows = {
    {"the starter fails at its TODO", From::kStarter, {}, {{"ana hears ben", {"no: ", "TODO"}}}},
    {"a forking server",
     From::kVariant,
     {{"            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);\n",
       "            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);\n"
       "            if (fd >= 0 && fork() == 0) {\n"
       "                char b[512];\n"
       "                while (recv(fd, b, sizeof b, 0) > 0) {\n"
       "                }\n"
       "                _exit(0);\n"
       "            }\n"
       "            if (fd >= 0) {\n"
       "                close(fd);\n"
       "                continue;\n"
       "            }\n"}},
     {{"No fork()", {"no: yours: ", "fork calls, at most 0", "one epoll loop"}},
      {"ana hears ben", {"not judged"}}}},
};

// upload/write-fork-server

const Exercise kUpload{
    "upload/write-fork-server", "upload/fork-server", "upload-server.c", {"upload.h", "w_epoll.h"}};

const std::vector<Row> kUploadRows = {
    {"the starter fails at its TODO",
     From::kStarter,
     {},
     {{"Every upload arrives whole", {"no: ", "TODO"}}}},
    {"serial: one upload at a time",
     From::kVariant,
     {{"    pid_t pid = fork();", "    pid_t pid = 1;\n"
                                  "    serve_upload(sock);"}},
     {{"served at the same time", {"no: yours: 1 of 3 processes at once", "handle_client()"}},
      {"A process per upload", {"no: yours: 0 of 4 fork calls"}}}},
    {"fork and wait for the child",
     From::kVariant,
     {{"        _exit(0);\n    }\n    close(sock);\n",
       "        _exit(0);\n    }\n    close(sock);\n"
       "    waitpid(pid, NULL, 0);\n"}},
     {{"served at the same time", {"no: yours: ", "without waiting"}}}},
    {"a short read taken for the whole upload",
     From::kVariant,
     {{"    while (got < size) {", "    for (int once = 0; once < 1 && got < size; once++) {"}},
     {{"Every upload arrives whole",
       {"no: yours: 0 of 4 requests", "serve_upload() must read until size bytes"}}}},
};

// copying/write-sendfile-copy (the other known-wrong copies: no loop, EINTR taken for a failure,
// a restart at offset 0, an offset moved twice, are rows of tests/data/exercises/copying, run by
// test_exercise_table.cpp)

// copy-memfd.c holds only copy_all(); copy.h and iolab's copy-main.c (the program around it,
// which hands the memfd to iolab's checker) are copied as they are.
const Exercise kCopy{
    "copying/write-sendfile-copy", "copying/memfd", "copy-memfd.c", {"copy.h", "copy-main.c"}};

const std::vector<Row> kCopyRows = {
    {"the starter fails at its TODO",
     From::kStarter,
     {},
     {{"copy_all() copies something", {"no: ", "TODO"}}}},
    // Its write() is cut short too (fault injection), and it does not loop: no copy either.
    {"a copy through read+write",
     From::kVariant,
     {{"    off_t offset = 0;\n    while (offset < size) {",
       "    static char buf[65536];\n"
       "    for (off_t left = size; left > 0;) {\n"
       "        ssize_t r = read(in, buf, sizeof buf);\n"
       "        if (r <= 0 || write(out, buf, (size_t)r) != r)\n"
       "            return -1;\n"
       "        left -= r;\n"
       "    }\n"
       "    return 0;\n"
       "    off_t offset = 0;\n    while (offset < size) {"}},
     {{"no read()", {"no: yours: ", "sendfile() copies inside the kernel"}},
      {"go with sendfile", {"not judged"}},
      {"The checker finds the whole file", {"not judged"}}}},
};

// stdio/write-buffered-reader (a small buffer is judged on a range of figures: its own test case
// in test_exercises.cpp)

const Exercise kStdio{
    "stdio/write-buffered-reader", "stdio/reader", "reader.c", {"reader.h", "reader-main.c"}};

const std::vector<Row> kStdioRows = {
    {"the starter fails at its TODO",
     From::kStarter,
     {},
     {{"One read() per 4 KiB the kernel fills", {"no: ", "TODO"}}}},
    {"the solution passes", From::kSolution, {}, {}},
    {"a refill that drops bytes",
     From::kVariant,
     {{"if (r->pos == r->len) {", "if (r->len - r->pos <= 8) {"}},
     {{"No byte is lost, doubled or changed",
       {"no: yours: ", "a refill must keep the bytes still in the buffer"}}}},
};

// concurrency/write-fib-server and pagecache/count-resident (their known-wrong and other correct
// programs are rows of tests/data/exercises, run by test_exercise_table.cpp)

const Exercise kFib{"concurrency/write-fib-server", "concurrency/fib-server", "fib-server.c", {}};

const std::vector<Row> kFibRows = {
    // Served one after another: the check that fails names the bug and the TODO that fixes it.
    // The starter still answers every request, one at a time, right.
    {"the starter fails at its TODO",
     From::kStarter,
     {},
     {{"served at the same time",
       {"no: yours: ", "requests are served one after another", "TODO 1 of fib-server.c"}},
      {"A process or a thread per request",
       {"no: yours: 0 of 8 fork and pthread_create calls", "TODO 1 of fib-server.c"}},
      {"Every answer is fib(n)", {"ok: "}},
      {"No wrong answer", {"ok: "}}}},
    {"the solution passes", From::kSolution, {}, {}},
};

const Exercise kResident{"pagecache/count-resident", "pagecache/resident", "resident-server.c", {}};

const std::vector<Row> kResidentRows = {
    // The run stops at the first check that is certain to fail (a wrong count), whose sentence
    // points at the TODO; the checks still open then are "not judged": no figure, no pass
    // (the starter calls mincore(), so a "0 of 1 mincore calls" there would be untrue).
    {"the starter fails at its TODO",
     From::kStarter,
     {},
     {{"No wrong count", {"no: yours: 1 matching lines", "(its TODO)"}},
      {"Every count is the kernel's", {"not judged: the run stopped at a check that failed"}},
      {"mincore()", {"not judged: the run stopped at a check that failed"}},
      {"measured, not changed", {"not judged"}}}},
    {"the solution passes", From::kSolution, {}, {}},
};

// zerocopy/write-sendfile (its starter, whose workspace is the learner's from then on, and a
// build error are test cases of test_exercise.cpp); its checks run 2 s

const Exercise kSendfile{
    "zerocopy/write-sendfile", "zerocopy/sendfile", "file-server.c", {}, {"--seconds", "2"}};

// The solution's send_file() body, as the variants replace it.
const std::string kSendLoop =
    "    off_t offset = 0;\n"
    "    while (offset < size) {\n"
    "        ssize_t n = sendfile(sock, file, &offset, (size_t)(size - offset));\n"
    "        if (n < 0 && errno == EINTR)\n"
    "            continue;\n"
    "        if (n <= 0)\n"
    "            return -1;\n"
    "    }\n"
    "    return 0;\n";

const std::vector<Row> kSendfileRows = {
    {"the solution passes", From::kSolution, {}, {}},
    // The forbidden way: read() the file into a buffer and send() it.
    {"read+send",
     From::kVariant,
     {{kSendLoop, "    char buf[65536];\n"
                  "    for (off_t left = size; left > 0;) {\n"
                  "        ssize_t n = read(file, buf, sizeof buf);\n"
                  "        if (n < 0 && errno == EINTR)\n"
                  "            continue; /* wrong in one way only: it copies */\n"
                  "        if (n <= 0)\n"
                  "            return -1;\n"
                  "        if (send_all(sock, buf, (size_t)n) < 0)\n"
                  "            return -1;\n"
                  "        left -= n;\n"
                  "    }\n"
                  "    return 0;\n"}},
     {{"no read() of the file", {"no: yours: ", "read() copies the file into your buffer"}},
      {"go out with sendfile", {"not judged"}}}},
    // One call and no loop, asking for too little: the downloads never complete.
    {"one sendfile() of 4 KiB",
     From::kVariant,
     {{kSendLoop, "    off_t offset = 0;\n"
                  "    (void)size;\n"
                  "    return sendfile(sock, file, &offset, 4096) < 0 ? -1 : 0;\n"}},
     // The client's stall decides the run; the request count it cut short is not judged.
     {{"stops half-way", {"no: ", "stalled at 4096 of"}}, {"complete the TODO", {"not judged"}}}},
    // The whole file in one sendfile() and no loop: right until a call is cut short (the
    // exercise's fault injection does that, as a full socket buffer or a signal would). The
    // client then says where its download stalled (its own line quoted), and the check says
    // what to do.
    {"the whole file in one sendfile() and no loop",
     From::kVariant,
     {{kSendLoop, "    off_t offset = 0;\n"
                  "    return sendfile(sock, file, &offset, (size_t)size) < 0 ? -1 : 0;\n"}},
     {{"stops half-way",
       {"no: yours: 1 matching lines", "loop until offset reaches size",
        "(load said: \"file-client: a download stalled at ", " of 1048576 bytes"}}}},
};

} // namespace

TEST_CASE("exercise variants ordered/write-client-loop: starter, solution and wrong loops",
          "[exercises]")
{
    run_table(kClient, kClientRows);
}

TEST_CASE("exercise variants upload/write-epoll-server: starter, solution and wrong servers",
          "[exercises]")
{
    run_table(kEpoll, kEpollRows);
}

TEST_CASE("exercise variants ordered/write-server-loop: starter, solution and wrong loops",
          "[exercises]")
{
    run_table(kOrdered, kOrderedRows);
}

TEST_CASE("exercise variants chat/write-epoll-server: starter and a forking server", "[exercises]")
{
    run_table(kChat, kChatRows);
}

TEST_CASE("exercise variants upload/write-fork-server: starter and wrong servers", "[exercises]")
{
    run_table(kUpload, kUploadRows);
}

TEST_CASE("exercise variants copying/write-sendfile-copy: starter and a read+write copy",
          "[exercises]")
{
    run_table(kCopy, kCopyRows);
}

TEST_CASE("exercise variants stdio/write-buffered-reader: starter, solution and a lossy refill",
          "[exercises]")
{
    run_table(kStdio, kStdioRows);
}

TEST_CASE("exercise variants concurrency/write-fib-server: starter and solution", "[exercises]")
{
    run_table(kFib, kFibRows);
}

TEST_CASE("exercise variants pagecache/count-resident: starter and solution", "[exercises]")
{
    run_table(kResident, kResidentRows);
}

TEST_CASE("exercise variants zerocopy/write-sendfile: solution and wrong transfers", "[exercises]")
{
    run_table(kSendfile, kSendfileRows);
}
