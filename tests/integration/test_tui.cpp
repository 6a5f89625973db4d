// The TUI end to end in a real terminal: a private tmux server runs iolab in a pane, the test
// types with send-keys and reads the screen with capture-pane, polling for what a learner would
// see (never sleeping and hoping). Each test uses its own HOME/XDG_STATE_HOME and its own small
// lesson pack that runs the echo demos, and checks afterwards that the terminal settings are
// what they were and that no scenario process is left.
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <dirent.h>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace iolab_test;

namespace
{

// A pack with one lesson: a text step, then a run step (epoll and thread modes, keys 1 and 2).
void write_pack(const std::string &dir)
{
    mkdir(dir.c_str(), 0755);
    spit(dir + "/pack.json", R"({"format_version": 1, "id": "tui-test", "title": "TUI test pack",
        "version": "1", "lessons": ["echo"]})");
    spit(dir + "/echo.json", R"({
  "id": "echo", "title": "Echo under load", "summary": "An echo server and its load.",
  "steps": [
    {"id": "intro", "title": "Before the run", "kind": "text",
     "text": ["# Before the run", "", "Read this, then press **n**.", "", "- one", "- two"]},
    {"id": "watch", "title": "Watch the calls", "kind": "run",
     "text": ["# Watch the calls", "", "Switch modes with `1` and `2`."],
     "programs": [
       {"name": "server", "role": "server", "program": "echo-server",
        "args": ["--port", "{port}", "--host", "{host}"], "ready": "listening"},
       {"name": "load", "role": "client", "program": "echo-client",
        "args": ["--port", "{port}", "--host", "{host}", "--connections", "4"]}],
     "modes": [
       {"id": "epoll", "title": "epoll", "key": "1", "program": "server", "args": ["--mode", "epoll"]},
       {"id": "thread", "title": "thread", "key": "2", "program": "server", "args": ["--mode", "thread"]}],
     "default_mode": "epoll", "seconds": 5,
     "checks": [{"text": "Run epoll for 1 s", "mode": "epoll", "metric": "seconds", "min": 1}]},
    {"id": "type", "title": "Type to a program", "kind": "run",
     "text": ["Tab to the program, type, Enter."],
     "programs": [{"name": "cat", "role": "client", "program": "cat", "interactive": true}]}
  ]})");
}

std::vector<std::string> lines_of(const std::string &s)
{
    std::vector<std::string> v;
    std::stringstream ss(s);
    for (std::string l; std::getline(ss, l);)
        v.push_back(l);
    return v;
}

// Whitespace-separated words of a string.
// The mode ids that have a row in the comparison view on screen: lines below its title whose
// box border is followed by an id and a number (the id stands alone at the row's start).
std::set<std::string> compare_rows(const std::string &screen)
{
    static const std::regex row("(?:\u2502|\\|) ([a-z0-9_-]+)(?: \\*)? +[0-9]");
    std::set<std::string> ids;
    bool below = false;
    for (const auto &line : lines_of(screen)) {
        if (line.find("Comparison of the modes tried") != std::string::npos) {
            below = true;
            continue;
        }
        std::smatch m;
        if (below && std::regex_search(line, m, row))
            ids.insert(m[1]);
    }
    return ids;
}

std::vector<std::string> words(const std::string &s)
{
    std::vector<std::string> v;
    std::stringstream ss(s);
    for (std::string w; ss >> w;)
        v.push_back(w);
    return v;
}

std::string cmdline(pid_t pid)
{
    std::string s = read_proc("/proc/" + std::to_string(pid) + "/cmdline");
    for (char &c : s)
        if (c == '\0')
            c = ' ';
    return s;
}

// iolab running in a terminal (tmux_helpers.hpp) on the pack above, inside a shell that records
// `stty -g` before and after, and iolab's exit status. The directory is a base before the
// terminal, so it outlives iolab.
struct SessionDir {
    TempDir dir_;
};
class TuiSession : SessionDir, public IolabTerm
{
  public:
    TuiSession(const std::vector<std::string> &iolab_args, const std::vector<std::string> &env = {},
               const std::string &program_name = "iolab")
    {
        write_pack(dir_ / "pack");
        std::string args = "--pack '" + (dir_ / "pack") + "'";
        for (const auto &a : iolab_args)
            args += " '" + a + "'";
        std::string exports;
        for (const auto &e : env)
            exports += e + " ";
        program(program_name);
        around("stty -g > stty.before\n", "echo $st > status\nstty -g > stty.after\n");
        if (!start(dir_.path, args, exports, 120, 40))
            throw std::runtime_error("tmux new-session failed: " + last());
    }

    template <class Pred> bool wait(Pred pred, double timeout_s = 10)
    {
        return wait_until(pred, timeout_s);
    }
    bool wait_for(const std::string &needle, double timeout_s = 10)
    {
        return IolabTerm::wait_for(needle, timeout_s);
    }

    // The iolab process: the shell's child that is not the final sleep.
    pid_t iolab_pid()
    {
        for (pid_t p : processes())
            if (cmdline(p).find(bin("iolab") + " ") == 0)
                return p;
        return -1;
    }

    std::set<pid_t> scenario_pids()
    {
        std::set<pid_t> d;
        pid_t io = iolab_pid();
        if (io > 0)
            descendants(io, d);
        return d;
    }

    const TempDir &dir() const
    {
        return dir_;
    }
};

// The calls/s column (third word) of the first counters row for label under the role header.
double rate_of(const std::string &screen, const std::string &role, const std::string &label)
{
    bool in_role = false;
    for (const auto &line : lines_of(screen)) {
        size_t at = line.find("Counters");
        (void)at;
        if (line.find(role + " cpu") != std::string::npos) {
            in_role = true;
            continue;
        }
        if (in_role && line.find(" cpu ") != std::string::npos)
            break;
        if (!in_role)
            continue;
        // The counters pane is the right part of the line: find the label there.
        size_t pos = line.find("  " + label + " ");
        if (pos == std::string::npos)
            continue;
        auto w = words(line.substr(pos));
        if (w.size() >= 3 && w[0] == label) {
            std::string r = w[2];
            double mult = 1;
            if (!r.empty() && (r.back() == 'k' || r.back() == 'M')) {
                mult = r.back() == 'k' ? 1e3 : 1e6;
                r.pop_back();
            }
            try {
                return std::stod(r) * mult;
            } catch (...) {
                return -1;
            }
        }
    }
    return -1;
}

// Whether the counters pane lists label in a role's call table (at any rate, 0 included).
bool listed(const std::string &screen, const std::string &role, const std::string &label)
{
    bool in_role = false;
    for (const auto &line : lines_of(screen)) {
        if (line.find(role + " cpu") != std::string::npos) {
            in_role = true;
            continue;
        }
        if (in_role && line.find(" cpu ") != std::string::npos)
            break;
        if (in_role && line.find("  " + label + " ") != std::string::npos)
            return true;
    }
    return false;
}

// The "threads N" figure of a role's header line in the counters pane; -1 when not shown.
long threads_of(const std::string &screen, const std::string &role)
{
    for (const auto &line : lines_of(screen)) {
        size_t at = line.find(role + " cpu");
        size_t th = at == std::string::npos ? at : line.find("threads ", at);
        if (th != std::string::npos)
            return std::stol(line.substr(th + 8));
    }
    return -1;
}

bool wait_gone(const std::set<pid_t> &pids, double timeout_s = 10)
{
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    for (;;) {
        bool all = true;
        for (pid_t p : pids)
            all = all && gone(p);
        if (all)
            return true;
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
}

} // namespace

TEST_CASE("tui: without a terminal iolab points to `iolab run` and exits 2")
{
    TempDir t;
    auto [code, out] = run({bin("iolab")}, {"HOME=" + t.path, "XDG_STATE_HOME=" + t.path});
    CHECK(code == 2);
    CHECK(out.find("iolab run") != std::string::npos);
    CHECK(std::count(out.begin(), out.end(), '\n') == 1);
}

TEST_CASE("tui: a learner's session in a real terminal")
{
    TuiSession s({});
    REQUIRE(s.wait_for("Start:"));
    CHECK(s.last().find("Continue:") == std::string::npos); // nothing was started yet
    CHECK(s.last().find("Echo under load") != std::string::npos);

    // Start (selected by default) opens the first step; n goes to the run step.
    s.keys({"Enter"});
    REQUIRE(s.wait_for("Read this, then press n."));
    s.keys({"n"});
    // The footer lists the mode keys; the status line and the footer come in one frame, which a
    // capture can catch half drawn, so the wait is for both.
    REQUIRE(s.wait([](const std::string &sc) {
        return sc.find("Enter starts the scenario") != std::string::npos &&
               sc.find("1 epoll") != std::string::npos;
    }));

    // Enter starts the scenario; the server's epoll_wait shows with a non-zero rate.
    s.keys({"Enter"});
    INFO(s.last());
    REQUIRE(
        s.wait([](const std::string &sc) { return rate_of(sc, "server", "epoll_wait") > 0; }, 20));
    CHECK(s.last().find("mode: epoll") != std::string::npos);
    std::set<pid_t> pids = s.scenario_pids();
    CHECK(pids.size() >= 2);
    // The step's check (epoll for 1 s) comes true while the learner watches, and the step is
    // marked done.
    REQUIRE(s.wait_for("(done)"));
    // The check shows its figure against its goal; how far past 1 s it is depends on the load.
    CHECK(std::regex_search(s.last(), std::regex("epoll: [0-9.]+ s of 1 s")));

    // Thread mode: the server runs a thread per connection and stops calling epoll_wait, while
    // the load keeps running.
    s.keys({"2"});
    REQUIRE(s.wait(
        [](const std::string &sc) {
            return sc.find("mode: thread") != std::string::npos &&
                   rate_of(sc, "server", "epoll_wait") <= 0 && threads_of(sc, "server") > 1 &&
                   rate_of(sc, "server", "read") > 0;
        },
        20));
    for (pid_t p : s.scenario_pids())
        pids.insert(p);

    // The comparison view has a row per mode tried.
    s.keys({"c"});
    REQUIRE(s.wait_for("Comparison of the modes tried"));
    CHECK(compare_rows(s.last()) == std::set<std::string>{"epoll", "thread"});
    CHECK(s.last().find("thread *") != std::string::npos);
    s.keys({"c"});
    REQUIRE(s.wait_for("Counters"));

    // A restart keeps the comparison: the modes tried before it keep their rows.
    s.keys({"r"});
    REQUIRE(s.wait([](const std::string &sc) { return rate_of(sc, "server", "read") > 0; }, 20));
    for (pid_t p : s.scenario_pids())
        pids.insert(p);
    s.keys({"c"});
    REQUIRE(s.wait_for("Comparison of the modes tried"));
    std::set<std::string> rows = compare_rows(s.last());
    INFO(s.last());
    CHECK(rows.count("epoll") == 1);
    CHECK(rows.count("thread") == 1);
    s.keys({"c"});
    REQUIRE(s.wait_for("Counters"));

    // Help lists every key; any key closes it.
    s.keys({"?"});
    REQUIRE(s.wait_for("Keys (any key closes"));
    CHECK(s.last().find("pause or resume the load") != std::string::npos);
    s.keys({"Escape"});
    REQUIRE(s.wait(
        [](const std::string &sc) { return sc.find("Keys (any key") == std::string::npos; }));

    // Too small: a short message instead of a garbled screen; back to normal when enlarged.
    s.resize(60, 15);
    REQUIRE(s.wait_for("Please enlarge the terminal"));
    s.resize(120, 40);
    REQUIRE(s.wait_for("Counters"));
    CHECK(s.last().find("Please enlarge") == std::string::npos);

    for (pid_t p : s.scenario_pids())
        pids.insert(p);
    // q asks first while a scenario runs; y quits.
    s.keys({"q"});
    REQUIRE(s.wait_for("Stop it and quit?"));
    s.keys({"y"});
    REQUIRE(s.wait_for("IOLAB-EXITED", 15));
    CHECK(slurp(s.dir() / "status") == "0\n");
    CHECK(slurp(s.dir() / "stty.before") == slurp(s.dir() / "stty.after"));
    CHECK(wait_gone(pids));
    // The progress store remembers the place (and the run step's check held after 1 s).
    std::string progress = slurp(s.dir() / "state/iolab/progress.json");
    CHECK(progress.find("\"lesson\":\t\"echo\"") != std::string::npos);
    CHECK(progress.find("echo/watch") != std::string::npos);
}

TEST_CASE("tui: SIGTERM while a scenario runs restores the terminal and stops the programs")
{
    TuiSession s({"--open", "echo/watch"});
    REQUIRE(s.wait_for("Enter starts the scenario"));
    s.keys({"Enter"});
    REQUIRE(
        s.wait([](const std::string &sc) { return rate_of(sc, "server", "epoll_wait") > 0; }, 20));
    std::set<pid_t> pids = s.scenario_pids();
    pid_t io = s.iolab_pid();
    REQUIRE(io > 0);
    REQUIRE(pids.size() >= 2);
    kill(io, SIGTERM);
    REQUIRE(s.wait_for("IOLAB-EXITED", 15));
    CHECK(slurp(s.dir() / "status") == "143\n");
    CHECK(slurp(s.dir() / "stty.before") == slurp(s.dir() / "stty.after"));
    CHECK(wait_gone(pids));
}

TEST_CASE("tui: packs installed under XDG_DATA_HOME are listed and open, a broken one is named")
{
    TempDir data;
    std::string packs = data / "iolab/packs";
    REQUIRE(system(("mkdir -p '" + packs + "/extra' '" + packs + "/broken'").c_str()) == 0);
    spit(packs + "/extra/pack.json", R"({"format_version": 1, "id": "extra",
        "title": "An instructor's pack", "version": "1", "lessons": ["hello"]})");
    spit(packs + "/extra/hello.json", R"({"id": "hello", "title": "Hello from the instructor",
        "summary": "An installed lesson.", "steps": [{"id": "only", "title": "The only step",
        "kind": "text", "text": "Installed packs are listed after the opened one."}]})");
    spit(packs + "/broken/pack.json", "{ not json");
    TuiSession s({}, {"XDG_DATA_HOME='" + data.path + "'"});
    REQUIRE(s.wait_for("An instructor's pack"));
    CHECK(s.last().find("TUI test pack") != std::string::npos); // the opened pack's heading
    // The installed lesson is the last row: up from "continue" wraps around to it.
    s.keys({"Up", "Enter"});
    REQUIRE(s.wait_for("Installed packs are listed after the opened one."));
    s.keys({"q"});
    REQUIRE(s.wait_for("IOLAB-EXITED", 15));
    CHECK(slurp(s.dir() / "status") == "0\n");
    // The broken pack was named before the screen opened (the shell's scrollback keeps it).
    CHECK(s.wait_for("is left out"));
}

TEST_CASE("tui: NO_COLOR and a non-UTF-8 locale render in plain ASCII")
{
    TuiSession s({}, {"LANG=C", "LC_ALL=C", "NO_COLOR=1"});
    REQUIRE(s.wait_for("Start:"));
    std::string sc = s.last();
    CHECK(sc.find("+- Lessons") != std::string::npos);
    bool ascii = true;
    for (unsigned char ch : sc)
        ascii = ascii && ch < 0x80;
    CHECK(ascii);
    s.keys({"q"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
    CHECK(slurp(s.dir() / "status") == "0\n");
    CHECK(slurp(s.dir() / "stty.before") == slurp(s.dir() / "stty.after"));
}

TEST_CASE("tui: typing into an interactive program's stdin")
{
    TuiSession s({"--open", "echo/type"});
    REQUIRE(s.wait_for("Enter starts the scenario"));
    s.keys({"Enter"});
    REQUIRE(s.wait_for("cat [running"));
    // Tab focuses the program's pane; what is typed goes to its stdin and cat echoes it back.
    s.keys({"Tab"});
    REQUIRE(s.wait_for("Typing goes to cat"));
    s.keys({"-l", "hello, q and n are just letters here"});
    REQUIRE(s.wait_for("> hello, q and n are just letters here_"));
    s.keys({"Enter"});
    REQUIRE(s.wait([](const std::string &sc) {
        // The echoed line is in the pane, and the prompt is empty again.
        return sc.find("hello, q and n are just letters here ") != std::string::npos &&
               sc.find("> _") != std::string::npos;
    }));
    // Esc leaves the pane; q then asks to quit again.
    s.keys({"Escape", "q"});
    REQUIRE(s.wait_for("Stop it and quit?"));
    s.keys({"y"});
    REQUIRE(s.wait_for("IOLAB-EXITED", 15));
    CHECK(slurp(s.dir() / "status") == "0\n");
}

TEST_CASE("tui: a crashing program is reported and iolab stays usable")
{
    TuiSession s({"--open", "echo/watch"});
    REQUIRE(s.wait_for("Enter starts the scenario"));
    s.keys({"Enter"});
    REQUIRE(
        s.wait([](const std::string &sc) { return rate_of(sc, "server", "epoll_wait") > 0; }, 20));
    // The server pane's title shows its pid.
    pid_t server = -1;
    for (const auto &line : lines_of(s.last())) {
        size_t at = line.find("server [running ");
        if (at != std::string::npos)
            server = (pid_t)std::stol(line.substr(at + 16));
    }
    REQUIRE(server > 0);
    kill(server, SIGSEGV);
#ifdef __SANITIZE_ADDRESS__
    // A server built with ASan catches the SIGSEGV itself, prints its report and aborts: 128 +
    // SIGABRT (the sanitize suite runs with abort_on_error=1).
    REQUIRE(s.wait_for("server exited with status 134"));
#else
    REQUIRE(s.wait_for("server exited with status 139"));
#endif
    // Still responsive: r restarts the scenario and the counters come back.
    s.keys({"r"});
    REQUIRE(
        s.wait([](const std::string &sc) { return rate_of(sc, "server", "epoll_wait") > 0; }, 20));
    s.keys({"q", "y"});
    REQUIRE(s.wait_for("IOLAB-EXITED", 15));
    CHECK(slurp(s.dir() / "stty.before") == slurp(s.dir() / "stty.after"));
}

TEST_CASE("tui: when iolab itself crashes the terminal is restored and the scenario ends")
{
    TuiSession s({"--open", "echo/watch"});
    REQUIRE(s.wait_for("Enter starts the scenario"));
    s.keys({"Enter"});
    REQUIRE(
        s.wait([](const std::string &sc) { return rate_of(sc, "server", "epoll_wait") > 0; }, 20));
    std::set<pid_t> pids = s.scenario_pids();
    pid_t io = s.iolab_pid();
    REQUIRE(io > 0);
    kill(io, SIGSEGV);
    REQUIRE(s.wait_for("IOLAB-EXITED", 15));
    CHECK(slurp(s.dir() / "status") == "139\n");
    CHECK(s.last().find("iolab crashed; the terminal was restored") != std::string::npos);
    CHECK(slurp(s.dir() / "stty.before") == slurp(s.dir() / "stty.after"));
    CHECK(wait_gone(pids));
}

TEST_CASE("tui: a step kind only the tests have is drawn, keyed and completed by its own row")
{
    // iolab-tap is iolab plus tests/kinds/tap.c, which registers a "tap" kind (done after t).
    TempDir pack;
    spit(pack / "pack.json", R"({"format_version": 1, "id": "tap-pack", "title": "Tap pack",
        "version": "1", "lessons": ["tap"]})");
    spit(pack / "tap.json", R"({"id": "tap", "title": "Tapping", "summary": "s", "steps": [
        {"id": "tap", "title": "Tap once", "kind": "tap", "text": "A step of a kind iolab lacks."},
        {"id": "after", "title": "After", "kind": "text", "text": "Done."}]})");
    // The real iolab does not know the kind: lint says so where it is written.
    auto [code, out] = run({bin("iolab"), "lint", pack.path});
    CHECK(code == 1);
    CHECK(out.find("tap.json:2:52: step kind \"tap\" is not known") != std::string::npos);
    CHECK(run({bin("iolab-tap"), "lint", pack.path}).first == 0);

    TuiSession s({"--pack", pack.path, "--open", "tap/tap"}, {}, "iolab-tap");
    REQUIRE(s.wait_for("Press t to tap."));
    // Its footer entry, from its key table (waited for: a capture can fall between the text
    // pane's bytes and the footer's on a loaded machine).
    CHECK(s.wait_for("t tap"));
    s.keys({"?"});
    REQUIRE(s.wait_for("Tap step")); // its table in the help
    s.keys({"Escape"});
    s.keys({"t"});
    REQUIRE(s.wait_for("Tapped."));
    REQUIRE(s.wait_for("Step done"));
    s.keys({"q"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
    auto [pc, prog] = run({bin("iolab-tap"), "progress", "--json"},
                          {"HOME=" + s.dir().path, "XDG_STATE_HOME=" + (s.dir() / "state")});
    INFO(prog);
    CHECK(prog.find("\"tap\"") != std::string::npos);
    CHECK(prog.find("done") != std::string::npos);
}

TEST_CASE("tui: a step with 40 checks is completed when all of them hold")
{
    TempDir pack;
    std::string checks;
    for (int i = 0; i < 40; i++)
        checks += std::string(i ? "," : "") + R"({"text": "check )" + std::to_string(i) +
                  R"(", "metric": "requests", "min": )" + std::to_string(i + 1) + "}";
    spit(pack / "pack.json", R"({"format_version": 1, "id": "many", "title": "Many checks",
        "version": "1", "lessons": ["many"]})");
    spit(pack / "many.json", R"({"id": "many", "title": "Many", "summary": "s", "steps": [
        {"id": "run", "title": "Forty checks", "kind": "run", "text": "Run it.",
         "programs": [
           {"name": "server", "role": "server", "program": "echo-server",
            "args": ["--port", "{port}", "--host", "{host}", "--mode", "epoll"],
            "ready": "listening"},
           {"name": "load", "role": "client", "program": "echo-client",
            "args": ["--port", "{port}", "--host", "{host}", "--connections", "2"]}],
         "checks": [)" + checks + "]}]}");
    TuiSession s({"--pack", pack.path, "--open", "many/run"});
    REQUIRE(s.wait_for("To complete this step"));
    s.keys({"Enter"});
    bool done = s.wait_for("Step done", 20);
    INFO(s.last());
    REQUIRE(done);
    s.keys({"q"});
    REQUIRE(s.wait_for("Stop it and quit?"));
    s.keys({"y"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
}

TEST_CASE("tui: at 160x48 checks, help, mode titles and program lines wrap instead of losing "
          "their end, at 80x24 every check keeps its row")
{
    TempDir pack;
    mkdir((pack / "p").c_str(), 0755);
    spit((pack / "p") + "/pack.json", R"({"format_version": 1, "id": "wrap", "title": "W",
        "version": "1", "lessons": ["l"]})");
    // A server that prints one long line: its end must be on screen, wrapped in its pane.
    spit((pack / "p") + "/l.json", R"({"id": "l", "title": "L", "summary": "s", "steps": [
      {"id": "s", "title": "S", "kind": "run", "text": ["Short text."],
       "programs": [
         {"name": "server", "role": "server", "program": "/bin/sh",
          "args": ["-c", "echo listening; echo a server line long enough to need three rows of a narrow pane and the end of it is TAILWORD; exec sleep 60"],
          "ready": "listening"}],
       "modes": [
         {"id": "slow", "title": "slow: a mode whose title goes on for a long while before it finally ends with MODEEND", "key": "1", "program": "server"},
         {"id": "fast", "title": "fast", "key": "2", "program": "server"}],
       "checks": [
         {"text": "Run the slow mode for a while, long enough to read the whole sentence to CHECKEND", "mode": "slow", "metric": "seconds", "min": 600},
         {"text": "Run the fast mode too, so that the comparison has a second row to show", "mode": "fast", "metric": "seconds", "min": 600},
         {"text": "A third check, so that three rows must stay in sight at 80x24", "mode": "fast", "metric": "seconds", "min": 600}]}
    ]})");
    TuiSession t({"--pack", pack / "p", "--open", "l/s"});
    t.resize(160, 48);
    REQUIRE(t.wait_for("To complete this step"));
    t.keys({"Enter"});
    // The check's last word and the program line's last word: on main both were cut.
    CHECK(t.wait_for("CHECKEND"));
    CHECK(t.wait_for("TAILWORD"));
    t.keys({"?"});
    REQUIRE(t.wait_for("Keys (any key closes this help)"));
    INFO(t.last());
    CHECK(t.last().find("MODEEND") != std::string::npos);
    // What the mode keys restart, from the step: its server, with no load to keep running.
    CHECK(t.last().find("each restarts the server in that mode") != std::string::npos);
    CHECK(t.last().find("the load keeps running") == std::string::npos);
    // "mode slow: slow: ..." says the name once.
    CHECK(t.last().find("mode slow: slow") == std::string::npos);
    t.keys({"Escape"});
    REQUIRE(t.wait([](const std::string &s) {
        return s.find("Keys (any key closes this help)") == std::string::npos;
    }));
    // At 80x24 the checks do not fit wrapped: one row each, every one in sight, the footer whole.
    t.resize(80, 24);
    // The three are still open (not decided, so no failure mark): each row keeps its "-".
    REQUIRE(t.wait([](const std::string &s) {
        return s.find("- Run the slow mode") != std::string::npos &&
               s.find("- Run the fast mode") != std::string::npos &&
               s.find("- A third check") != std::string::npos &&
               s.find("\u2717") == std::string::npos && s.find("? help") != std::string::npos &&
               s.find("q quit") != std::string::npos;
    }));
    t.keys({"q"});
}

TEST_CASE("tui: a server at its open-file limit: the counters pane and its own pane say which "
          "limit, and it keeps serving")
{
    TempDir pack;
    mkdir((pack / "p").c_str(), 0755);
    spit((pack / "p") + "/pack.json", R"({"format_version": 1, "id": "lim", "title": "L",
        "version": "1", "lessons": ["l"]})");
    spit((pack / "p") + "/l.json", R"({"id": "l", "title": "L", "summary": "s", "steps": [
      {"id": "s", "title": "S", "kind": "run", "text": ["Short text."],
       "programs": [
         {"name": "server", "role": "server", "program": "/bin/bash",
          "args": ["-c", "ulimit -n 40; exec )" +
                                       demo("echo-server") +
                                       R"( --port {port} --host {host} --mode epoll"],
          "ready": "listening"},
         {"name": "load", "role": "client", "program": "echo-client",
          "args": ["--port", "{port}", "--host", "{host}", "--connections", "60"]}]}
    ]})");
    TuiSession t({"--pack", pack / "p", "--open", "l/s"});
    t.resize(160, 48);
    REQUIRE(t.wait_for("Short text."));
    t.keys({"Enter"});
    // The pane names the call and the cause; the server's own pane says the limit and its value.
    CHECK(t.wait_for("limit reached: server accept", 30));
    CHECK(t.wait_for("(open files)", 30));
    CHECK(t.wait_for("RLIMIT_NOFILE", 10));
    t.keys({"q"});
}

TEST_CASE("tui: at 80x24 a run step's footer keeps its modes and the keys that matter most")
{
    TuiSession s({"--open", "echo/watch"});
    s.resize(80, 24);
    REQUIRE(s.wait_for("Watch the calls"));
    // A capture can fall in the middle of the frame the resize redraws: wait for a whole footer.
    const char *keys[] = {"1 epoll", "2 thread",    "n next",   "? help",
                          "q quit",  "Enter start", "c compare"};
    auto footer_of = [](const std::string &sc) {
        auto lines = lines_of(sc);
        return lines.empty() ? std::string() : lines.back();
    };
    s.wait([&](const std::string &sc) {
        std::string f = footer_of(sc);
        for (const char *k : keys)
            if (f.find(k) == std::string::npos)
                return false;
        return true;
    });
    std::string footer = footer_of(s.last());
    INFO(s.last());
    for (const char *k : keys)
        CHECK(footer.find(k) != std::string::npos);
    // Every figure explains itself: i opens the legend, any key closes it.
    s.keys({"i"});
    REQUIRE(s.wait_for("What the figures mean"));
    CHECK(s.last().find("kernel syscr") != std::string::npos);
    s.keys({"x"});
    REQUIRE(s.wait([](const std::string &sc) {
        return sc.find("What the figures mean") == std::string::npos;
    }));
    // At 80x24 the legend is taller than the terminal: its lines wrap inside the box instead of
    // losing their ends, it says there is more, and j scrolls down to its last line.
    s.keys({"i"});
    REQUIRE(s.wait_for("more: j"));
    INFO(s.last());
    CHECK(s.last().find("Each role (server, client)") != std::string::npos); // the first line
    CHECK(s.last().find("cpu user / sys") != std::string::npos);
    CHECK(s.last().find("p50, p99") == std::string::npos); // the last entry: below, for now
    bool in_box = false;
    for (const auto &line : lines_of(s.last())) {
        if (line.find("What the figures mean") != std::string::npos)
            in_box = true;
        else if (line.find("more: j") != std::string::npos)
            in_box = false;
        else if (in_box)
            CHECK(line.find("\u2026") == std::string::npos); // no line cut with the "more" mark
    }
    s.keys(std::vector<std::string>(40, "j"));
    s.keys(std::vector<std::string>(20, "NPage")); // the legend is over 100 rows long
    REQUIRE(s.wait_for("top: k"));
    INFO(s.last());
    CHECK(s.last().find("p50, p99") != std::string::npos);
    CHECK(s.last().find("left waiting included") != std::string::npos); // its last words
    CHECK(s.last().find("Each role (server, client)") == std::string::npos);
    // Up again with PgUp; a key that does not scroll closes it.
    s.keys(std::vector<std::string>(20, "PPage"));
    REQUIRE(s.wait_for("Each role (server, client)"));
    s.keys({"x"});
    REQUIRE(s.wait([](const std::string &sc) {
        return sc.find("What the figures mean") == std::string::npos;
    }));
    s.keys({"q"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
}

TEST_CASE("tui: text typed after one Tab too many never leaves a running step")
{
    TuiSession s({"--open", "echo/type"});
    REQUIRE(s.wait_for("Type to a program"));
    s.keys({"Enter"});
    bool running = s.wait_for("running");
    INFO(s.last());
    REQUIRE(running);
    s.keys({"Tab"});
    REQUIRE(s.wait_for("Typing goes to cat"));
    s.keys({"-l", "hi client"});
    s.keys({"Enter"});
    REQUIRE(s.wait_for("hi client")); // cat echoed it: the keys went to the program
    // One Tab too many: the only other pane that takes keys is the text, where keys are commands.
    s.keys({"Tab"});
    REQUIRE(s.wait_for("Keys are commands again"));
    s.keys({"-l", "hi client"}); // h (back), i, space (pause), c, l, i, e, n (next), t
    REQUIRE(s.wait_for("Stayed in the step"));
    CHECK(s.last().find("Type to a program") != std::string::npos);
    CHECK(s.last().find("Leave the step?") == std::string::npos);
    // Leaving on purpose still works, after a y.
    s.keys({"h"});
    REQUIRE(s.wait_for("Leave the step?"));
    s.keys({"y"});
    REQUIRE(s.wait_for("Continue:"));
    CHECK(s.scenario_pids().empty());
    s.keys({"q"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
}

TEST_CASE("tui: two requests a second read as about two a second, with the count, never 0 or 10")
{
    // ordered/watch: the client sends a line every 500 ms and the server answers each one.
    TuiSession s({"--pack", source_dir() + "/lessons", "--open", "ordered/watch"});
    REQUIRE(s.wait_for("Watch"));
    s.keys({"Enter"});
    std::regex line(R"(requests/s\s+([0-9.]+), (\d+) in ([0-9.]+) s)");
    // Once the mode has run a second, the window is at least a second long.
    REQUIRE(s.wait(
        [&](const std::string &sc) {
            std::smatch m;
            return std::regex_search(sc, m, line) && std::stod(m[3]) >= 1.0;
        },
        15));
    int seen = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (std::chrono::steady_clock::now() < deadline) {
        std::string sc = s.screen();
        std::smatch m;
        INFO(sc);
        REQUIRE(std::regex_search(sc, m, line)); // a rate this low always shows its count
        double rate = std::stod(m[1]);
        CHECK(rate >= 0.5);
        CHECK(rate <= 4.0);
        CHECK(std::stod(m[3]) >= 1.0); // over a second or more, not over one 100 ms tick
        CHECK(std::stod(m[2]) >= 1);   // the count it is made of
        seen++;
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    CHECK(seen >= 5);
    s.keys({"q"});
    REQUIRE(s.wait_for("Stop it and quit?"));
    s.keys({"y"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
}

TEST_CASE("tui: at 80x24 the comparison of a one-program step shows that program's calls")
{
    // copying/methods has one program, the copy itself (a client): its calls per copy are what
    // the comparison must show, not a server's 0.00.
    TuiSession s({"--pack", source_dir() + "/lessons", "--open", "copying/methods"});
    s.resize(80, 24);
    REQUIRE(s.wait_for("Copy 64 MiB"));
    s.keys({"Enter"});
    REQUIRE(s.wait_for("running", 20));
    s.keys({"c"});
    REQUIRE(s.wait_for("Comparison of the modes tried"));
    // Wait until a whole copy or more was measured: a row with a calls/req figure above zero.
    std::regex row(R"((read-write|sendfile)\S*\s+\S+\s+\S+\s+([0-9.]+))");
    bool seen = s.wait(
        [&](const std::string &sc) {
            std::smatch m;
            return std::regex_search(sc, m, row) && std::stod(m[2]) > 0;
        },
        20);
    INFO(s.last());
    CHECK(seen);
    CHECK(s.last().find("copy's counted calls") != std::string::npos);
    std::string footer = lines_of(s.last()).back();
    for (const char *k : {"1-6 modes", "n next", "? help", "q quit", "c compare"})
        CHECK(footer.find(k) != std::string::npos);
    s.keys({"q"});
    REQUIRE(s.wait_for("Stop it and quit?"));
    s.keys({"y"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
}

TEST_CASE("tui: an exercise: edit, build error at its line, rename-on-save, checks turn green")
{
    // A fake editor that breaks the file, as a learner's typo would.
    TempDir tools;
    spit(tools / "break.sh", "#!/bin/sh\nprintf 'int oops = ;\\n' >> \"$1\"\n");
    chmod((tools / "break.sh").c_str(), 0755);
    TuiSession s({"--pack", source_dir() + "/lessons", "--open", "zerocopy/write-sendfile"},
                 {"EDITOR='" + (tools / "break.sh") + "'"});
    REQUIRE(s.wait_for("Your files:"));
    REQUIRE(s.wait_for("Build 1: ok", 30));
    REQUIRE(s.wait_for("0 of 20 requests", 20)); // the starter runs and fails where its TODO is
    // Hints, one at a time.
    s.keys({"H"});
    REQUIRE(s.wait_for("Hint 1:"));
    // The editor adds a syntax error: the build fails at the learner's own file and line.
    s.keys({"e"});
    std::string file = s.dir() / "data/iolab/work/linux-io/zerocopy/write-sendfile/file-server.c";
    REQUIRE(s.wait_for("failed", 30));
    REQUIRE(s.wait_for("file-server.c:", 10));
    CHECK(std::regex_search(s.last(), std::regex("file-server\\.c:\\d+:\\d+: error")));
    // The solution arrives by rename, as vim saves: the watcher rebuilds and the checks pass.
    spit(file + ".tmp", slurp(source_dir() + "/lessons/exercises/zerocopy/sendfile/file-server.c"));
    REQUIRE(rename((file + ".tmp").c_str(), file.c_str()) == 0);
    bool done = s.wait_for("Step done", 40);
    INFO(s.last());
    REQUIRE(done);
    // Once passed, the solution is shown without asking.
    s.keys({"S"});
    REQUIRE(s.wait_for("The reference solution:"));
    // Reset asks first, and keeps the learner's files aside.
    s.keys({"R"});
    REQUIRE(s.wait_for("Reset your files"));
    s.keys({"y"});
    REQUIRE(s.wait_for("Build 4", 30)); // the starter, built again
    CHECK(slurp(file).find("/* TODO 1:") != std::string::npos);
    s.keys({"q"});
    if (s.wait_for("Stop it and quit?", 3))
        s.keys({"y"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
    DIR *d = opendir((s.dir() / "data/iolab/work/linux-io/zerocopy").c_str());
    REQUIRE(d);
    bool kept = false;
    while (struct dirent *e = readdir(d))
        kept |= std::string(e->d_name).rfind("write-sendfile.old-", 0) == 0;
    closedir(d);
    CHECK(kept);
}

TEST_CASE("tui: the io_uring mode's own figures show, labelled as the demo's")
{
    // The shim cannot see inside the ring: the screen must say where the figures come from.
    TuiSession s({"--pack", source_dir() + "/lessons", "--open", "concurrency/io_uring"});
    REQUIRE(s.wait_for("the kernel does the waiting"));
    s.keys({"Enter"});
    REQUIRE(s.wait_for("running", 20));
    s.keys({"2"});
    bool shown = s.wait_for("io_uring, from the demo, not counted by the shim", 20);
    INFO(s.last());
    REQUIRE(shown);
    CHECK(s.last().find("io_uring_enter") != std::string::npos);
    s.keys({"q"});
    REQUIRE(s.wait_for("Stop it and quit?"));
    s.keys({"y"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
}

TEST_CASE("tui: after a switch from epoll to fork the counters list fork's calls and no epoll_wait")
{
    TuiSession s({"--pack", source_dir() + "/lessons", "--open", "concurrency/compare"});
    REQUIRE(s.wait_for("Compare them under load"));
    s.keys({"Enter"});
    REQUIRE(s.wait_for("Predict before you run")); // the step asks first; Esc skips and starts
    s.keys({"Escape"});
    REQUIRE(
        s.wait([](const std::string &sc) { return rate_of(sc, "server", "epoll_wait") > 0; }, 20));
    s.keys({"3"});
    // The pane shows what the current mode did since it started: epoll_wait is not listed at
    // all, not merely listed at a rate of 0.
    bool switched = s.wait(
        [](const std::string &sc) {
            return sc.find("calls since fork started") != std::string::npos &&
                   listed(sc, "server", "fork") && rate_of(sc, "server", "read") > 0;
        },
        20);
    INFO(s.last());
    REQUIRE(switched);
    CHECK_FALSE(listed(s.last(), "server", "epoll_wait"));
    // And it stays so while fork runs (a second of samples).
    std::this_thread::sleep_for(std::chrono::seconds(1));
    CHECK_FALSE(listed(s.screen(), "server", "epoll_wait"));
    // The scenario's totals are still there, labelled as such.
    s.keys({"t"});
    REQUIRE(s.wait_for("Counters: totals since the start"));
    CHECK(s.wait([](const std::string &sc) { return listed(sc, "server", "epoll_wait"); }));
    s.keys({"q"});
    REQUIRE(s.wait_for("Stop it and quit?"));
    s.keys({"y"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
}

TEST_CASE("tui: a step whose modes restart a client never speaks of a server")
{
    // copying/methods has one program, the copy (a client): the status line, the help and the
    // counters name it, and nothing on screen says "server".
    TuiSession s({"--pack", source_dir() + "/lessons", "--open", "copying/methods"});
    REQUIRE(s.wait_for("Copy 64 MiB"));
    s.keys({"Enter"});
    REQUIRE(s.wait_for("switch the copy's mode", 20));
    INFO(s.last());
    CHECK(s.last().find("server") == std::string::npos);
    CHECK(s.last().find("load keeps running") == std::string::npos); // there is no load
    s.keys({"2"});
    REQUIRE(s.wait_for("Switching the copy to sendfile."));
    CHECK(s.last().find("server") == std::string::npos);
    s.keys({"?"});
    REQUIRE(s.wait_for("Keys (any key closes"));
    // The step's own keys come after the common ones: j scrolls the help down to them.
    for (int press = 0; press < 6 && !s.wait_for("each restarts the copy in that mode", 2); press++)
        s.keys({"j"});
    CHECK(s.last().find("each restarts the copy in that mode") != std::string::npos);
    CHECK(s.last().find("switch the server") == std::string::npos);
    s.keys({"Escape"});
    REQUIRE(s.wait(
        [](const std::string &sc) { return sc.find("Keys (any key") == std::string::npos; }));
    s.keys({"q"});
    REQUIRE(s.wait_for("Stop it and quit?"));
    s.keys({"y"});
    REQUIRE(s.wait_for("IOLAB-EXITED"));
}
