// A stranger's pack and its programs cannot drive the person's terminal through a headless
// command: a build's compiler messages, a program's output and an export's names carry raw OSC,
// CSI, BEL and C1 sequences, and every command prints them with each control visibly escaped
// (app/util/termsafe.h), on stdout and stderr alike, its CSV included. The text is still there
// to read. Titles, mode labels and checks with such sequences never get that far: lint refuses a
// control character in a pack's prose at its file:line:col, and no command loads such a pack.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <fstream>

using namespace iolab_test;

namespace
{

// A JSON string of the sequences a hostile pack would try: OSC 0 (retitle the window, ended by
// BEL), CSI 2J (clear the screen), and U+009B, the one-character CSI.
const std::string evil_json = R"(\u001b]0;pwned\u0007 \u001b[2J \u009b31m)";
// How each command shows them.
const std::string evil_shown = "^[]0;pwned^G ^[[2J \\u009b31m";

// Every byte a terminal would act on: C0 but newline and tab, DEL, a C1 control as a character
// or as a byte, and bytes that are not UTF-8. Returns a description of the first, or "".
std::string first_control(const std::string &s)
{
    for (size_t i = 0; i < s.size();) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
                return "byte " + std::to_string(c) + " at " + std::to_string(i);
            i++;
            continue;
        }
        size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
        if (n == 0 || i + n > s.size())
            return "non-UTF-8 byte " + std::to_string(c) + " at " + std::to_string(i);
        for (size_t k = 1; k < n; k++)
            if (((unsigned char)s[i + k] & 0xc0) != 0x80)
                return "non-UTF-8 sequence at " + std::to_string(i);
        if (c == 0xc2 && (unsigned char)s[i + 1] < 0xa0)
            return "C1 control at " + std::to_string(i);
        i += n;
    }
    return "";
}

// The hostile pack, written where the test says. Its own program prints the sequences on stdout
// and stderr; with --loud it exits at once, so its output is what iolab reports. With
// evil_titles its titles, mode labels and check carry them too, which lint refuses.
struct HostilePack {
    TempDir tmp;
    std::string dir = tmp / "hostile";
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (tmp / "cache"),
                                    "XDG_STATE_HOME=" + (tmp / "state"),
                                    "XDG_DATA_HOME=" + (tmp / "data"), "HOME=" + tmp.path};
    explicit HostilePack(bool evil_titles = false)
    {
        const std::string evil = evil_titles ? evil_json : std::string("plain");
        REQUIRE(system(("mkdir -p '" + dir + "/tools'").c_str()) == 0);
        spit(dir + "/pack.json", R"({"format_version": 1, "id": "hostile",
  "title": "Hostile )" + evil + R"( pack", "version": "1", "lessons": ["evil"],
  "build": [{"program": "tools/noisy", "sources": ["tools/noisy.c"]}]})");
        std::string server = R"({"name": "server", "role": "server", "program": "./tools/noisy",
           "args": ["--port", "{port}"ARGS], "ready": "listening"},
          {"name": "load", "role": "client", "program": "echo-client",
           "args": ["--port", "{port}", "--host", "{host}", "--connections", "1", "--size", "16"]})";
        std::string modes = R"("modes": [
          {"id": "plain", "title": "Plain )" +
                            evil +
                            R"(", "key": "1", "program": "server", "args": []},
          {"id": "loud", "title": "Loud )" +
                            evil + R"(", "key": "2", "program": "server", "args": ["--loud"]}])";
        std::string watch = server, sweep = server;
        watch.replace(watch.find("ARGS"), 4, "");
        sweep.replace(sweep.find("ARGS"), 4, R"(, "--n", "{n}")");
        spit(dir + "/evil.json", R"({"id": "evil", "title": "Evil )" + evil +
                                     R"( lesson", "summary": "Summary )" + evil + R"(",
  "steps": [
    {"id": "watch", "title": "Watch )" +
                                     evil +
                                     R"(", "kind": "run", "text": "Text.",
     "programs": [)" + watch + "], " +
                                     modes + R"(, "seconds": 1,
     "checks": [{"text": "Check )" + evil +
                                     R"(", "metric": "calls:read", "role": "server", "min": 1}]},
    {"id": "sweep", "title": "Sweep", "kind": "run", "text": "Text.",
     "programs": [)" + sweep + "], " +
                                     modes + R"(, "seconds": 1,
     "sweep": {"param": "n", "values": ["1", "2"], "figure": "requests_per_s", "role": "client",
               "seconds": 0.5}}
  ]})");
        // The compiler quotes the #warning line, raw ESC and BEL bytes included.
        spit(dir + "/tools/noisy.c",
             "/* noisy: prints terminal control sequences, as a hostile pack's program would. */\n"
             "#warning \"\x1b]0;pwned-build\x07 \x1b[2J\"\n"
             "#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n"
             "int main(int argc, char **argv)\n{\n"
             "    printf(\"\\033]0;pwned-out\\007 \\033[2J \\x9b\" \"31m listening\\n\");\n"
             "    fprintf(stderr, \"\\033]0;pwned-err\\007 failed: \\x9b\" \"2J\\n\");\n"
             "    fflush(stdout);\n"
             "    for (int i = 1; i < argc; i++)\n"
             "        if (!strcmp(argv[i], \"--loud\"))\n"
             "            return 1;\n"
             "    for (;;)\n        pause();\n}\n");
    }
};

// Runs iolab; the merged stdout and stderr must hold no control, and the exit status is given.
std::pair<int, std::string> run_inert(const std::vector<std::string> &args,
                                      const std::vector<std::string> &env, double timeout = 120)
{
    std::vector<std::string> argv = {bin("iolab")};
    argv.insert(argv.end(), args.begin(), args.end());
    auto r = run(argv, env, timeout);
    std::string cmd;
    for (const auto &a : args)
        cmd += " " + a;
    INFO("iolab" << cmd << "\n" << r.second);
    CHECK(first_control(r.second) == "");
    return r;
}

size_t count(const std::string &s, const std::string &what)
{
    size_t n = 0;
    for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1))
        n++;
    return n;
}

} // namespace

TEST_CASE("headless escape: the checker's own test sees raw controls, and lets escaped text by")
{
    CHECK(first_control("plain\ttext\n caf\xc3\xa9 " + evil_shown) == "");
    CHECK(first_control("\x1b[2J") != "");
    CHECK(first_control("\x07") != "");
    CHECK(first_control("\x9b") != "");
    CHECK(first_control("\xc2\x9b") != "");
}

TEST_CASE("headless escape: a pack's titles, modes and checks with control sequences are refused "
          "by lint and by every command, inertly")
{
    HostilePack p(true);
    auto [lcode, lout] = run_inert({"lint", p.dir}, p.env);
    CHECK(lcode == 1);
    CHECK(lout.find("pack.json:2:21: \"title\" contains a control character (U+001B) here") !=
          std::string::npos);
    CHECK(lout.find("evil.json:1:31: \"title\" contains a control character (U+001B)") !=
          std::string::npos);
    // The pack's title, the lesson's title and summary, two steps' titles, two modes' titles in
    // each, the check's text: every one of them, each at its first ESC.
    CHECK(count(lout, "contains a control character (U+001B)") == 9);
    auto [ncode, nout] = run_inert({"list", "--pack", p.dir}, p.env);
    CHECK(ncode != 0);
    CHECK(nout.find("pwned") == std::string::npos);
}

TEST_CASE("headless escape: lint, list, run, its CSV and check show a hostile pack's sequences "
          "escaped")
{
    HostilePack p;

    // lint builds the program: the first build says so once, and the compiler's quote of the
    // #warning line comes through escaped.
    auto [lcode, lout] = run_inert({"lint", p.dir}, p.env);
    CHECK(lcode == 0);
    CHECK(count(lout, "iolab: Building 1 program of pack") == 1);
    CHECK(lout.find("#warning \"^[]0;pwned-build^G ^[[2J\"") != std::string::npos);

    auto [ncode, nout] = run_inert({"list", "--pack", p.dir}, p.env);
    CHECK(ncode == 0);
    CHECK(nout.find("hostile: Hostile plain pack") != std::string::npos);

    // The run's report quotes the loud mode's server's last lines.
    auto [rcode, rout] = run_inert(
        {"run", "evil/watch", "--pack", p.dir, "--mode", "plain,loud", "--seconds", "1"}, p.env);
    CHECK(rcode == 1);
    CHECK(count(rout, "iolab: Building") == 0); // built by lint: nothing to announce
    CHECK(rout.find("^[]0;pwned-out^G ^[[2J \\x9b31m listening") != std::string::npos);
    CHECK(rout.find("^[]0;pwned-err^G failed: \\x9b2J") != std::string::npos);

    // A sweep's CSV: a point's problem quotes the program's output, escaped, in one field.
    auto [scode, sout] = run_inert(
        {"run", "evil/sweep", "--pack", p.dir, "--mode", "loud", "--csv", "--seconds", "0.5"},
        p.env);
    CHECK(scode == 1); // no point could be measured: the server exits
    CHECK(sout.find("loud,1,1,") != std::string::npos);
    CHECK(sout.find("server exited with status 1: ^[]0;pwned") != std::string::npos);

    // bench, text and CSV: its stderr repeats the cached build's warning, escaped.
    for (bool csv : {false, true}) {
        std::vector<std::string> args = {"bench",    "evil/watch", "--pack",    p.dir,
                                         "--repeat", "1",          "--seconds", "0.5"};
        if (csv)
            args.push_back("--csv");
        auto [bcode, bout] = run_inert(args, p.env);
        CHECK(bcode == 1); // the loud mode measures nothing
        CHECK(bout.find("#warning \"^[]0;pwned-build^G ^[[2J\"") != std::string::npos);
    }

    // check --pack starts every mode of every run step: the loud one's output is the reason.
    auto [ccode, cout] = run_inert({"check", "--pack", p.dir}, p.env);
    CHECK(ccode == 1);
    CHECK(cout.find("evil/watch mode plain: starts") != std::string::npos);
    CHECK(cout.find("evil/watch mode loud: does not start:") != std::string::npos);
    // Its reason quotes the program's last lines when it had printed them by then (a loaded
    // machine can end the start before): whatever is quoted is escaped, never raw.
    INFO(cout);
    CHECK(cout.find("\x1b]0;pwned-out") == std::string::npos);
    if (cout.find("pwned-out") != std::string::npos)
        CHECK(cout.find("^[]0;pwned-out^G") != std::string::npos);
}

TEST_CASE("headless escape: check shows a learner's build log and program output escaped")
{
    HostilePack p;
    std::string ws = p.tmp / "mine";
    REQUIRE(system(("mkdir -p '" + ws + "'").c_str()) == 0);
    std::ifstream in(source_dir() + "/lessons/exercises/zerocopy/sendfile/file-server.c");
    std::string src((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string head = "static int send_file(int sock, int file, off_t size)\n{";
    size_t at = src.find(head);
    REQUIRE(at != std::string::npos);
    // The solution, with a #warning of raw sequences and a stderr line of them per download.
    src.insert(at + head.size(),
               "\n    fprintf(stderr, \"\\033]0;pwned-learner\\007 \\x9b\" \"2J\\n\");");
    spit(ws + "/file-server.c", "#warning \"\x1b]0;pwned-learner-build\x07 \x1b[2J\"\n" + src);
    auto [code, out] =
        run_inert({"check", "zerocopy/write-sendfile", "--dir", ws, "--seconds", "2"}, p.env);
    CHECK(code <= 1); // built and judged (the verdict is it_exercise's business)
    CHECK(out.find("#warning \"^[]0;pwned-learner-build^G ^[[2J\"") != std::string::npos);
    CHECK(out.find("  | ^[]0;pwned-learner^G \\x9b2J\n") != std::string::npos);
}

TEST_CASE("headless escape: lint's messages quote a pack's keys and values escaped")
{
    HostilePack p;
    spit(p.dir + "/pack.json", R"({"format_version": 1, "id": "hostile", "title": "t",
      "version": "1", "lessons": ["evil"], "\u001b]0;bad\u0007key": 1,
      "build": [{"program": "tools/noisy", "sources": ["tools/noisy.c"]}]})");
    auto [code, out] = run_inert({"lint", p.dir}, p.env);
    CHECK(code == 1);
    CHECK(out.find("has no key \"^[]0;bad^Gkey\"") != std::string::npos);
}

TEST_CASE("headless escape: progress --import, the progress list and --summary (text and CSV) "
          "show an export's names escaped")
{
    HostilePack p;
    std::string file = p.tmp / "export.json";
    spit(file, R"({"iolab_progress": 1, "learner": "eve)" + evil_json + R"(", "exported_at": 1,
      "packs": [{"id": "evil\u001b[2J", "version": null, "title": "t", "steps": [
        {"step": "les\u001b]0;x\u0007/st\u009bep", "done": true, "done_at": 1, "updated": 1}]}]})");

    // Another learner's export is refused by its name; as the learner's own, its record (of a
    // pack not installed) is named and left out.
    auto [rcode, rout] = run_inert({"progress", "--import", file}, p.env);
    CHECK(rcode == 1);
    CHECK(rout.find(" is eve" + evil_shown + "'s progress, not yours") != std::string::npos);
    auto [icode, iout] = run_inert({"progress", "--import", file, "--as-mine"}, p.env);
    CHECK(icode == 0);
    CHECK(iout.find(": evil^[[2J/les^[]0;x^G/st\\u009bep: pack evil^[[2J is not installed "
                    "here") != std::string::npos);
    CHECK(iout.find("Imported eve" + evil_shown + "'s progress") != std::string::npos);

    // The store holds such names when an older iolab imported them.
    REQUIRE(system(("mkdir -p '" + p.tmp / "state/iolab" + "'").c_str()) == 0);
    spit(
        p.tmp / "state/iolab/progress.json",
        R"({"format": 1, "packs": {"evil\u001b[2J": {"done": ["les\u001b]0;x\u0007/st\u009bep"]}}})");
    auto [pcode, pout] = run_inert({"progress"}, p.env);
    CHECK(pcode == 0);
    CHECK(pout.find("pack evil^[[2J: 1 step done") != std::string::npos);

    auto [tcode, tout] = run_inert({"progress", "--summary", file}, p.env);
    CHECK(tcode == 0);
    CHECK(tout.find("eve" + evil_shown) != std::string::npos);

    // The summary leaves out what the import leaves out (a pack not installed), named in the
    // import's words, escaped; the learner's row is still there.
    CHECK(tout.find(": evil^[[2J/les^[]0;x^G/st\\u009bep: pack evil^[[2J is not installed "
                    "here") != std::string::npos);
    auto [vcode, vout] = run_inert({"progress", "--summary", file, "--csv"}, p.env);
    CHECK(vcode == 0);
    CHECK(vout.find("\nlearner\neve" + evil_shown + "\n") != std::string::npos);
}

TEST_CASE("headless escape: --json keeps its own escaping")
{
    // A program's last lines, quoted in run --json's problems: JSON's escapes, which a parser
    // turns back into the bytes the program wrote.
    HostilePack p;
    auto [code, out] = run({bin("iolab"), "run", "evil/watch", "--pack", p.dir, "--mode", "loud",
                            "--seconds", "1", "--json"},
                           p.env, 120);
    INFO(out);
    REQUIRE(code == 1);
    size_t at = out.find("{\"lesson\"");
    REQUIRE(at != std::string::npos);
    std::string json = out.substr(at, out.find('\n', at) - at);
    cJSON *root = cJSON_Parse(json.c_str());
    REQUIRE(root);
    bool found = false;
    const cJSON *pr;
    cJSON_ArrayForEach(pr, cJSON_GetObjectItem(root, "problems"))
    {
        found |= cJSON_IsString(pr) &&
                 std::string(pr->valuestring).find("\x1b]0;pwned-out\x07") != std::string::npos;
    }
    CHECK(found); // the line as the program wrote it, once parsed
    CHECK(json.find("\\u001b]0;pwned-out\\u0007") != std::string::npos);
    CHECK(first_control(json) == "");
    cJSON_Delete(root);
}
