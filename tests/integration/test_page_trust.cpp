// Issue 26 and 27: the counter page is every program's to write, so nothing a learner's program
// writes there may crash iolab or pass an exercise. A program that cuts the page or scribbles
// its header gets a run that ends with one sentence, never a SIGBUS or a hang; a "forger" that
// publishes plausible figures in its own slot without doing the work fails, whichever exercise;
// a reader that prints its verdict line without the right bytes fails on iolab's own digest; and
// a correct reader that calls syscall(SYS_read) passes, judged by the kernel's count.
#include "exercise_helpers.hpp"
#include "helpers.hpp"
#include "jail_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <cstddef>
#include <fstream>
#include <string>

extern "C" {
#include "iolab_counters.h"
}

using namespace iolab_test;

namespace
{

const Exercise kZero{"zerocopy/write-sendfile", "zerocopy/sendfile", "file-server.c", {}};
const Exercise kCopy{
    "copying/write-sendfile-copy", "copying/memfd", "copy-memfd.c", {"copy.h", "copy-main.c"}};
const Exercise kStdio{
    "stdio/write-buffered-reader", "stdio/reader", "reader.c", {"reader.h", "reader-main.c"}};
const Exercise kUpload{
    "upload/write-fork-server", "upload/fork-server", "upload-server.c", {"upload.h", "w_epoll.h"}};
const Exercise kOrdered{"ordered/write-server-loop", "ordered/exit-loop", "ordered-server.c", {}};
const Exercise kClient{"ordered/write-client-loop", "ordered/client-loop", "ordered-client.c", {}};
const Exercise kEpoll{"upload/write-epoll-server",
                      "upload/epoll-server",
                      "upload-server.c",
                      {"upload.h", "w_epoll.h"}};
const Exercise kChat{
    "chat/write-epoll-server", "chat/epoll-server", "chat-server.c", {"w_epoll.h"}};

// C for a learner's file: forge_call() and forge_app() write the calling thread's own slot of
// the counter page, reached the way the demos reach it (iolab_app_self(), the shim's), at the
// offsets of this build's iolab_counters.h. No system call is made to back the figures.
std::string forger_code()
{
    return "#include <stdint.h>\n"
           "void *iolab_app_self(void) __attribute__((weak));\n"
           "static __attribute__((unused)) void forge_call(unsigned call, uint64_t n)\n"
           "{\n"
           "    char *app = iolab_app_self ? (char *)iolab_app_self() : 0;\n"
           "    if (app)\n"
           "        *(volatile uint64_t *)(app - " +
           std::to_string(offsetof(struct iolab_slot, app)) + " + " +
           std::to_string(offsetof(struct iolab_slot, calls)) + " + call * " +
           std::to_string(sizeof(struct iolab_call)) +
           ") = n;\n"
           "}\n"
           "static __attribute__((unused)) void forge_app(uint64_t requests, uint64_t bytes)\n"
           "{\n"
           "    volatile uint64_t *app = iolab_app_self ? iolab_app_self() : 0;\n"
           "    if (app) {\n"
           "        app[" +
           std::to_string(offsetof(struct iolab_app, requests) / 8) +
           "] = requests;\n"
           "        app[" +
           std::to_string(offsetof(struct iolab_app, bytes) / 8) +
           "] = bytes;\n"
           "    }\n"
           "}\n";
}

// The forger's code put before `before`, a line of the solution.
std::pair<std::string, std::string> with_forger(const std::string &before)
{
    return {before, forger_code() + before};
}

// `iolab check` on a learner's file written whole (not an edit of the solution), so that it
// stands whatever the solution's own code looks like.
Result whole(const TempDir &home, const Exercise &e, const std::string &text)
{
    TempDir dir;
    spit(dir / e.file, text);
    for (const char *o : e.others)
        spit(dir / o, slurp(solution_dir(e) + "/" + o));
    return check(home, e, {"--dir", dir.path});
}

// The verdict of the first check whose message contains part ("" when none does).
std::string verdict_saying(const Result &r, const std::string &part)
{
    const cJSON *c;
    cJSON_ArrayForEach(c, cJSON_GetObjectItem(r.json.get(), "checks"))
    {
        std::string m = cJSON_GetObjectItem(c, "message")->valuestring;
        if (has(m, part))
            return std::string(cJSON_IsTrue(cJSON_GetObjectItem(c, "ok")) ? "ok: " : "no: ") + m;
    }
    return "";
}

// A whole reader.c for stdio that never reads its stream: a reader_read() of its own and a
// main() of its own (over iolab's weak one in reader-main.c) that runs `pass_body` per pass and
// prints, per pass, the line iolab's feeder prints for a whole pass, as if it were the feeder.
std::string stdio_forger(const std::string &pass_body)
{
    return "#include \"reader.h\"\n#include <stdio.h>\n#include <string.h>\n"
           "#include <unistd.h>\n" +
           forger_code() +
           "ssize_t reader_read(struct reader *r, char *out, size_t n)\n{\n"
           "    (void)r;\n    memset(out, 0, n);\n    return (ssize_t)n;\n}\n"
           "int main(void)\n{\n"
           "    for (unsigned pass = 1;; pass++) {\n" +
           pass_body +
           "        printf(\"pass %u: 4000037 bytes came back through reader_read(), all as "
           "sent\\n\", pass);\n"
           "        fflush(stdout);\n"
           "    }\n}\n";
}

void expect_no_crash(const Result &r)
{
    INFO(r.out);
    CHECK(r.code != 0);
    CHECK(r.code < 128); // not killed by a signal
    REQUIRE(r.json);
}

// A run step whose one program is `prog` with `args`.
void page_pack(const std::string &dir, const std::string &prog, const std::string &args)
{
    spit(dir + "/pack.json", R"({"format_version": 1, "id": "t", "title": "T",
        "version": "1", "lessons": ["l"]})");
    std::ofstream(dir + "/l.json") << R"({"id": "l", "title": "Page lesson", "summary": "s",
        "steps": [{"id": "s", "title": "Page step", "kind": "run", "text": ["x"],
        "seconds": 2, "programs": [{"name": "prog", "role": "server", "program": ")"
                                   << prog << R"(", "args": )" << args << "}]}]}";
}

// A run step: the reference echo server, tests/hostile/slotforge.c as a second server that
// forges request counts into every slot it can reach, and the reference client (client_args).
void forge_pack(const std::string &dir, const std::string &client_args)
{
    spit(dir + "/pack.json", R"({"format_version": 1, "id": "t", "title": "T",
        "version": "1", "lessons": ["l"]})");
    std::ofstream(dir + "/l.json")
        << R"({"id": "l", "title": "Forged lesson", "summary": "s",
        "steps": [{"id": "s", "title": "Forged step", "kind": "run", "text": ["x"],
        "seconds": 2, "programs": [
        {"name": "server", "role": "server", "program": ")"
        << demo("echo-server") << R"(", "args": ["--port", "{port}", "--host", "{host}",
         "--mode", "epoll"], "ready": "listening"},
        {"name": "forger", "role": "server", "program": ")"
        << hostile("slotforge") << R"(", "args": [], "ready": "forging"},
        {"name": "load", "role": "client", "program": ")"
        << demo("echo-client") << R"(", "args": ["--port", "{port}", "--host", "{host}",
         "--size", "16", )"
        << client_args << "]}]}]}";
}

struct Forged {
    bool protected_ = false, landlock = false;
    uint64_t requests = 0, bytes = 0, syscw = 0; // the client's, as iolab reports them
};

// `iolab run --json` of forge_pack's step in one tier: what it says of the client.
Forged forged_run(const std::string &tier, const std::string &client_args, const char *seconds)
{
    TempDir pack;
    forge_pack(pack.path, client_args);
    // The forger touches only the programs of this run (its tag): never another test's.
    std::string tag = "SLOTFORGE_TAG=" + std::to_string(getpid()) + "-" + tier + "-" + seconds;
    auto [code, out] = run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--seconds", seconds,
                            "--json", "--tier", tier},
                           {tag}, 120);
    INFO(tier << ": " << out);
    CHECK(code == 0);
    Forged f;
    cJSON *j = cJSON_Parse(out.c_str());
    REQUIRE(j);
    const cJSON *sb = cJSON_GetObjectItem(j, "sandbox");
    CHECK(cJSON_GetStringValue(cJSON_GetObjectItem(sb, "tier")) == tier);
    const cJSON *cp = cJSON_GetObjectItem(sb, "counts_protected");
    REQUIRE(cJSON_IsBool(cp));
    f.protected_ = cJSON_IsTrue(cp);
    const cJSON *abi = cJSON_GetObjectItem(cJSON_GetObjectItem(sb, "features"), "landlock_abi");
    f.landlock = cJSON_IsNumber(abi) && abi->valuedouble > 0;
    const cJSON *p;
    bool seen = false;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(j, "processes"))
    {
        if (std::string(cJSON_GetStringValue(cJSON_GetObjectItem(p, "name"))) != "load")
            continue;
        const cJSON *app = cJSON_GetObjectItem(p, "app"), *io = cJSON_GetObjectItem(p, "io");
        f.requests = (uint64_t)cJSON_GetObjectItem(app, "requests")->valuedouble;
        f.bytes = (uint64_t)cJSON_GetObjectItem(app, "bytes")->valuedouble;
        f.syscw = (uint64_t)cJSON_GetObjectItem(io, "syscw")->valuedouble;
        seen = true;
    }
    CHECK(seen);
    cJSON_Delete(j);
    return f;
}

} // namespace

TEST_CASE("no program can write another's counts: the client's figures are what it did",
          "[page][tiers]")
{
    // The reference client makes at most 5,000 requests of 16 bytes (all of them, unless a loaded
    // machine ends the 4 s first) while the forger writes a million requests into every slot of
    // its own page (naming every program, the client included) and of every page it can reach
    // through /proc. Where the tier protects the counts (Landlock: a program cannot open
    // another's /proc/PID/fd or mem), the client's figures are only what it did: some requests,
    // no more than it makes, 16 bytes each.
    for (const auto &tier : tiers()) {
        Forged f = forged_run(tier, R"("--connections", "1", "--requests", "5000")", "4");
        INFO(tier << ": " << f.requests << " requests, " << f.bytes << " bytes");
        CHECK(f.protected_ == (tier != "minimal" && f.landlock));
        if (f.protected_) {
            CHECK(f.requests > 0);
            CHECK(f.requests <= 5000);
            CHECK(f.bytes == f.requests * 16);
        }
    }
    // The control: where the counts are not protected the forger does reach the client's page
    // (a client that runs the whole time, so the forger cannot miss it): a figure no client
    // made, far beyond the writes the kernel saw.
    Forged open = forged_run("minimal", R"("--connections", "1")", "2");
    CHECK_FALSE(open.protected_);
    CHECK(open.requests > open.syscw + 100000);
}

TEST_CASE("iolab check says whether counts are protected, and in words where they are not",
          "[page][tiers]")
{
    TempDir home, dir;
    spit(dir / kCopy.file, slurp(solution_dir(kCopy) + "/" + kCopy.file));
    for (const char *o : kCopy.others)
        spit(dir / o, slurp(solution_dir(kCopy) + "/" + o));
    std::vector<std::string> env = {"HOME=" + home.path, "XDG_DATA_HOME=" + (home / "data"),
                                    "XDG_CACHE_HOME=" + (home / "cache")};
    for (const auto &tier : tiers()) {
        INFO(tier);
        std::vector<std::string> e = env;
        e.push_back("IOLAB_SANDBOX_TIER=" + tier);
        auto [code, out] =
            run({bin("iolab"), "check", kCopy.step, "--dir", dir.path, "--json"}, e, 120);
        INFO(out);
        cJSON *j = cJSON_Parse(out.c_str());
        REQUIRE(j);
        CHECK(cJSON_GetStringValue(cJSON_GetObjectItem(j, "tier")) == tier);
        const cJSON *cp = cJSON_GetObjectItem(j, "counts_protected");
        REQUIRE(cJSON_IsBool(cp));
        // Landlock is what keeps one program out of another's /proc entries: every tier above
        // the minimal one has it where the kernel does (the probe's landlock_abi).
        cJSON *probe = cJSON_Parse(run({sandbox(), "--probe"}).second.c_str());
        const cJSON *abi =
            cJSON_GetObjectItem(cJSON_GetObjectItem(probe, "features"), "landlock_abi");
        bool landlock = cJSON_IsNumber(abi) && abi->valuedouble > 0;
        cJSON_Delete(probe);
        CHECK(cJSON_IsTrue(cp) == (tier != "minimal" && landlock));
        cJSON_Delete(j);
        if (tier == "minimal") {
            auto [tcode, text] =
                run({bin("iolab"), "check", kCopy.step, "--dir", dir.path}, e, 120);
            INFO(text);
            CHECK(has(text, "counts not protected: in the minimal sandbox tier a program of the "
                            "run can write another's counter page through /proc"));
            // The verdict's sentence still closes the report.
            CHECK(text.find("counts not protected") < text.rfind("checks hold"));
        }
    }
}

TEST_CASE("a program that cuts or scribbles the counter page ends the run with a sentence",
          "[page]")
{
    for (const char *args : {R"([])", R"(["stay"])"}) {
        TempDir pack;
        std::string tag = new_tag();
        page_pack(pack.path, hostile("pagetrunc"), args);
        INFO("pagetrunc " << args);
        // JSON: its strings are not wrapped to the terminal's width.
        auto [code, out] =
            run({bin("iolab"), "run", "l/s", "--pack", pack.path, "--seconds", "1.5", "--json"},
                {"TEST_TAG_IOLAB=" + tag}, 60);
        INFO(out);
        // The page is sealed: the program cannot change its size, nor add a seal of its own.
        // (A program that exits during the run has its last line quoted; one that stays has
        // its output kept to itself.)
        if (has(args, "stay")) {
            CHECK_FALSE(has(out, "ftruncate to 0: done"));
        } else {
            CHECK(has(out, "ftruncate to 0: Operation not permitted; ftruncate 1 MiB longer: "
                           "Operation not permitted"));
            CHECK_FALSE(has(out, "ftruncate to 1 TiB: done"));
            CHECK(has(out, "ftruncate one byte short: Operation not permitted; add a write "
                           "seal: Operation not permitted"));
        }
        // iolab was neither killed (SIGBUS) nor stopped by the test's deadline (a hang).
        CHECK(code < 128);
        CHECK(code != 0);
        CHECK(has(out, "the counter page was tampered with; counts from this run cannot be "
                       "trusted"));
        CHECK(left_after_1s(tag) == 0);
    }
}

TEST_CASE("an exercise whose program scribbles the counter page fails with a sentence", "[page]")
{
    TempDir home;
    // The copy is right; the program also cuts the page and scribbles its header.
    Result r = variant(
        home, kCopy,
        {{"#include <errno.h>\n",
          "#include <errno.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
          "#include <sys/mman.h>\n#include <sys/stat.h>\n#include <unistd.h>\n"},
         {"    off_t offset = 0;\n",
          "    const char *pv = getenv(\"IOLAB_COUNTERS_FD\");\n"
          "    if (pv) {\n"
          "        int pfd = atoi(pv);\n"
          "        struct stat ps;\n"
          "        if (ftruncate(pfd, 0) == 0)\n"
          "            printf(\"the page was cut\\n\");\n"
          "        if (fstat(pfd, &ps) == 0 && ps.st_size >= 64) {\n"
          "            uint32_t *h = mmap(NULL, 64, PROT_READ | PROT_WRITE, MAP_SHARED, pfd, 0);\n"
          "            if (h != MAP_FAILED)\n"
          "                for (int i = 0; i < 16; i++)\n"
          "                    h[i] = 0xFFFFFFFFu;\n"
          "        }\n"
          "    }\n"
          "    off_t offset = 0;\n"}});
    expect_no_crash(r);
    expect_fail(r);
    CHECK_FALSE(has(r.out, "the page was cut"));
    std::string v = verdict(r, "go with sendfile");
    CHECK(has(v, "not judged: "));
    CHECK(has(v, "the counter page was tampered with; counts from this run cannot be trusted"));
}

TEST_CASE("forgers that publish figures in their own slot without doing the work fail", "[page]")
{
    TempDir home;

    INFO("zero-copy: a server that sends the header, no body, and claims sendfile() calls and "
         "downloads");
    Result zero = variant(home, kZero,
                          {with_forger("static void *serve(void *arg)"),
                           {"            rc = send_file(sock, file, st.st_size);",
                            "            {\n"
                            "                static uint64_t k;\n"
                            "                k += 1000;\n"
                            "                forge_call(" +
                                std::to_string(IOLAB_CALL_SENDFILE) +
                                ", k);\n"
                                "                forge_app(k, k * (uint64_t)st.st_size);\n"
                                "            }"}});
    expect_fail(zero);
    // Requests are read off the page too, which cannot be believed: not judged, no figure.
    std::string d = verdict(zero, "Downloads arrive whole");
    INFO(d);
    CHECK(has(d, "not judged: the counts could not be trusted"));
    CHECK_FALSE(has(d, "0 of 20"));
    // The sendfile() calls it claims are more than the kernel saw it make (sendfile counts in
    // syscr and in syscw: which family is compared first to exceed depends on what else the
    // process read and wrote by then): the counts are not believed.
    std::string z = verdict(zero, "go out with sendfile");
    INFO(z);
    CHECK(has(z, "not judged: "));
    CHECK(has(z, "the counts could not be trusted: server's counter page shows"));
    CHECK((has(z, "(syscr)") || has(z, "(syscw)")));

    INFO("copying: a right copy through two mappings (no system call moves a byte), with three "
         "claimed sendfile() calls");
    Result copy = variant(
        home, kCopy,
        {with_forger("int copy_all("),
         {"    off_t offset = 0;\n    while (offset < size) {",
          "    forge_call(" + std::to_string(IOLAB_CALL_SENDFILE) +
              ", 3);\n"
              "    if (ftruncate(out, size) == 0) {\n"
              "        char *to = mmap(0, (size_t)size, PROT_READ | PROT_WRITE, "
              "MAP_SHARED, out, 0);\n"
              "        char *from = mmap(0, (size_t)size, PROT_READ, MAP_SHARED, "
              "in, 0);\n"
              "        if (to != MAP_FAILED && from != MAP_FAILED) {\n"
              "            memcpy(to, from, (size_t)size);\n"
              "            return 0;\n"
              "        }\n"
              "    }\n"
              "    off_t offset = 0;\n    while (offset < size) {"},
         {"#include <errno.h>\n", "#include <errno.h>\n#include <string.h>\n#include <sys/mman.h>\n"
                                  "#include <unistd.h>\n"}});
    expect_fail(copy);
    // iolab's checker finds the memfd right: only the kernel's figures show that sendfile()
    // copied nothing.
    CHECK(has(verdict(copy, "The checker finds the whole file"), "ok: "));
    std::string c = verdict(copy, "cross the kernel in large pieces");
    CHECK(has(c, "no: yours: "));
    CHECK(has(c, "copy_all() must copy it with sendfile()"));

    INFO("stdio: no read at all, claimed read() calls, and the feeder's pass line printed by "
         "the reader itself");
    Result stdio = whole(home, kStdio,
                         stdio_forger("        forge_call(" + std::to_string(IOLAB_CALL_READ) +
                                      ", 1000 * pass);\n"
                                      "        usleep(100000);\n"));
    expect_fail(stdio);
    std::string sr = verdict(stdio, "The bytes come from read()");
    CHECK(has(sr, "no: yours: "));
    CHECK(has(sr, "read system calls"));
    // No pass came back whole; the claimed read() calls also make the page's counts untrusted:
    // the check fails, or is not judged once they are, and is never a pass.
    std::string whole_stream = verdict(stdio, "Every pass brings the whole stream");
    INFO(whole_stream);
    CHECK((has(whole_stream, "no: ") || whole_stream.rfind("not judged", 0) == 0));

    INFO("upload: a server that accepts, serves nothing and claims forks and uploads");
    Result up = variant(home, kUpload,
                        {with_forger("/* Serves the client on sock in a process of its own"),
                         {"    pid_t pid = fork();", "    static uint64_t k;\n"
                                                     "    forge_call(" +
                                                         std::to_string(IOLAB_CALL_FORK) +
                                                         ", ++k);\n"
                                                         "    forge_app(k, k << 26);\n"
                                                         "    close(sock);\n"
                                                         "    return;\n"
                                                         "    pid_t pid = fork();"}});
    expect_fail(up);
    CHECK(has(verdict(up, "Every upload arrives whole"), "no: yours: 0 of 4 requests"));

    INFO("upload (epoll): a server that reads nothing and claims uploads and epoll_wait() calls");
    Result ep = variant(
        home, kEpoll,
        {with_forger("static int on_readable(struct conn *c)"),
         {"    static uint8_t buf[UPLOAD_CHUNK];\n", "    static uint8_t buf[UPLOAD_CHUNK];\n"
                                                     "    static uint64_t k;\n"
                                                     "    forge_call(" +
                                                         std::to_string(IOLAB_CALL_EPOLL_WAIT) +
                                                         ", k += 100);\n"
                                                         "    forge_app(k / 100, k << 20);\n"
                                                         "    return 1;\n"}});
    expect_fail(ep);
    // Its early reply is the uploader's evidence, said at once; the forged uploads count nothing.
    CHECK(has(verdict(ep, "counts every byte"), "the server's reply counts 0 bytes"));
    CHECK_FALSE(has(verdict(ep, "Every upload arrives whole"), "ok: "));

    INFO("chat: a server that relays nothing and claims relayed lines");
    Result chat = variant(home, kChat,
                          {with_forger("static void relay(const struct client *from"),
                           {"    /* TODO 5: send msg to every connected client except `from` (a "
                            "free slot has fd -1) */\n",
                            "    static uint64_t k;\n"
                            "    k++;\n"
                            "    forge_app(k, k * (uint64_t)n);\n"
                            "    return;\n"}});
    expect_fail(chat);
    CHECK(has(verdict(chat, "ana hears ben"), "no: yours: 0 of 2 matching lines"));

    INFO("ordered (client): a client that never reads the replies, claims its recv() calls and "
         "prints replies of its own");
    Result cli = variant(home, kClient,
                         {with_forger("static int converse(int sock, struct script *s)"),
                          {"        if (!read_line(sock, &in, reply, sizeof reply))\n"
                           "            return -1;\n",
                           "        static uint64_t k;\n"
                           "        forge_call(" +
                               std::to_string(IOLAB_CALL_RECVFROM) +
                               ", ++k);\n"
                               "        snprintf(reply, sizeof reply, \"got it\");\n"}});
    expect_fail(cli);
    CHECK(has(verdict(cli, "Every line gets its reply"), "ok: ")); // its own words
    CHECK(has(verdict(cli, "A recv() for each reply"), "ok: "));   // its own slot
    std::string cr = verdict(cli, "Your client reads every reply");
    CHECK(has(cr, "no: yours: 0 of 1 matching lines"));
    CHECK(has(cr, "replies unread resets the connection"));

    INFO("ordered: a server that hangs up at once and claims the replies");
    Result ord = variant(home, kOrdered,
                         {with_forger("static void converse(int sock)"),
                          {"    unsigned heard = 0;\n", "    unsigned heard = 0;\n"
                                                        "    forge_app(4, 64);\n"
                                                        "    return;\n"}});
    expect_fail(ord);
    // The first client says the server hung up on it; the forged replies count nothing.
    CHECK(has(verdict(ord, "keeps the conversation until exit"), "after 0 replies"));
    std::string o = verdict(ord, "Every line gets its reply");
    INFO(o);
    CHECK_FALSE(has(o, "ok: "));
}

TEST_CASE("stdio: a reader that drops bytes and prints the feeder's verdict itself fails on the "
          "feeder's comparison, and a reader that calls syscall(SYS_read) passes",
          "[page]")
{
    TempDir home;
    // A buffered reader whose refill drops the last byte of every read(), and which prints the
    // feeder's line for a whole pass each time it reaches the end: the feeder compares the bytes.
    const std::string head = "#include \"reader.h\"\n#include <stdio.h>\n#include <string.h>\n"
                             "#include <sys/syscall.h>\n#include <unistd.h>\n"
                             "ssize_t reader_read(struct reader *r, char *out, size_t n)\n{\n"
                             "    size_t done = 0;\n"
                             "    while (done < n) {\n"
                             "        if (r->pos == r->len) {\n";
    const std::string tail = "            r->pos = 0;\n            r->len = (size_t)got;\n"
                             "        }\n"
                             "        size_t k = r->len - r->pos < n - done ? r->len - r->pos "
                             ": n - done;\n"
                             "        memcpy(out + done, r->buf + r->pos, k);\n"
                             "        r->pos += k;\n        done += k;\n"
                             "    }\n"
                             "    return (ssize_t)done;\n}\n";
    Result liar = whole(home, kStdio,
                        head +
                            "            ssize_t got = read(r->fd, r->buf, sizeof r->buf);\n"
                            "            if (got < 0)\n                return -1;\n"
                            "            if (got == 0) {\n"
                            "                printf(\"pass 1: 4000037 bytes came back through "
                            "reader_read(), all as sent\\n\");\n"
                            "                break;\n"
                            "            }\n"
                            "            if (got > 1)\n                got--;\n" +
                            tail);
    expect_fail(liar);
    std::string v = verdict_saying(liar, "differs from what was sent");
    INFO(liar.out);
    CHECK(has(v, "no: yours: "));
    // Failed, or not judged when the feeder's line decided the run first: never a pass.
    std::string liar_stream = verdict(liar, "Every pass brings the whole stream");
    INFO(liar_stream);
    CHECK((has(liar_stream, "no: ") || liar_stream.rfind("not judged", 0) == 0));

    // Issue 27: a correct buffered reader whose read() is the raw system call, which no library
    // wrapper sees.
    Result raw = whole(home, kStdio,
                       head +
                           "            long got = syscall(SYS_read, r->fd, r->buf, sizeof "
                           "r->buf);\n"
                           "            if (got < 0)\n                return -1;\n"
                           "            if (got == 0)\n                break;\n" +
                           tail);
    INFO(raw.out);
    CHECK(raw.code == 0);
}
