// Each jail has its own budget (issue 26): run as root, every jail's programs are one uid, and
// one session's fork loop used to make another session's forks and execs fail. Real concurrent
// sessions here: one jail forks up to its process limit while another, started beside it, forks,
// execs and builds; a jail's memory cap stops a memory hog and says so; a jail's cgroup is gone
// when the jail ends, after SIGKILL of iolab, and (at the next start) after SIGKILL of its
// holder; a build stopped by its jail's limit says which and is not counted as an attempt; and
// `iolab check` uses the tier IOLAB_SANDBOX_TIER asks for. Every jail here is small (at most 68
// processes and threads), so these tests can run beside others.
#include "helpers.hpp"
#include "tmux_helpers.hpp"
#include "jail_helpers.hpp"
#include "lesson_helpers.hpp"

extern "C" {
#include "engine/engine.h"
}

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>

#include <chrono>
#include <dirent.h>
#include <fstream>
#include <regex>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <thread>
#include <uv.h>

using namespace iolab_test;

namespace
{

// Polls cond every 50 ms until it holds or the (generous) deadline passes.
bool within(double seconds, const std::function<bool()> &cond)
{
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    do {
        if (cond())
            return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    } while (std::chrono::steady_clock::now() < deadline);
    return cond();
}

struct Probe {
    std::string budget; // "cgroup", "user_namespace", "uid", "per_process"
    bool pids = false, memory = false;
    std::vector<std::string> lacks; // budget_missing
    std::string json;
};

Probe probe(const std::vector<std::string> &env = {})
{
    Probe p;
    p.json = run({sandbox(), "--probe"}, env).second;
    cJSON *j = cJSON_Parse(p.json.c_str());
    if (!j)
        return p;
    const cJSON *b = cJSON_GetObjectItem(j, "budget");
    const cJSON *f = cJSON_GetObjectItem(j, "features");
    p.budget = cJSON_IsString(b) ? b->valuestring : "";
    p.pids = cJSON_IsTrue(cJSON_GetObjectItem(f, "cgroup_pids"));
    p.memory = cJSON_IsTrue(cJSON_GetObjectItem(f, "cgroup_memory"));
    const cJSON *l;
    cJSON_ArrayForEach(l, cJSON_GetObjectItem(j, "budget_missing"))
    {
        if (cJSON_IsString(l))
            p.lacks.push_back(l->valuestring);
    }
    cJSON_Delete(j);
    return p;
}

bool has_word(const std::string &list, const std::string &word)
{
    std::stringstream ss(list);
    for (std::string w; std::getline(ss, w, ',');)
        if (w == word)
            return true;
    return false;
}

// The directories of the iolab jail cgroups a /proc/PID/cgroup text names, resolved through
// this process's mount table (v1 hierarchies by their controllers, v2 by its type).
std::set<std::string> jail_cgroups(const std::string &cgroup_text)
{
    std::set<std::string> out;
    std::stringstream lines(cgroup_text);
    for (std::string line; std::getline(lines, line);) {
        size_t c1 = line.find(':'), c2 = line.find(':', c1 + 1);
        if (c1 == std::string::npos || c2 == std::string::npos ||
            line.find("/iolab-", c2) == std::string::npos)
            continue;
        std::string ctrls = line.substr(c1 + 1, c2 - c1 - 1), path = line.substr(c2 + 1);
        std::ifstream mi("/proc/self/mountinfo");
        for (std::string m; std::getline(mi, m);) {
            std::stringstream ms(m);
            std::string id, parent, dev, root, mnt;
            ms >> id >> parent >> dev >> root >> mnt;
            size_t dash = m.find(" - ");
            if (dash == std::string::npos)
                continue;
            std::stringstream ts(m.substr(dash + 3));
            std::string type, source, super;
            ts >> type >> source >> super;
            std::string first = ctrls.substr(0, ctrls.find(','));
            bool match =
                ctrls.empty() ? type == "cgroup2" : type == "cgroup" && has_word(super, first);
            if (!match)
                continue;
            std::string below = path;
            if (root != "/" && below.rfind(root, 0) == 0)
                below = below.substr(root.size());
            out.insert(mnt + below);
        }
    }
    return out;
}

bool all_gone(const std::set<std::string> &dirs)
{
    for (const auto &d : dirs)
        if (access(d.c_str(), F_OK) == 0)
            return false;
    return true;
}

// `iolab new` as a pack named "budget", and the step's exercise given a build command that
// forks far past any build's process limit when the learner's file says FORKMANY (and compiles
// normally otherwise, so that the reference solution builds).
std::string new_pack(const TempDir &dir, bool forking_build)
{
    std::string pack = dir / "budget";
    auto r = run({bin("iolab"), "new", pack});
    if (r.first != 0)
        throw std::runtime_error("iolab new failed: " + r.second);
    if (forking_build) {
        std::string path = pack + "/first.json", json = slurp(path);
        const std::string at = "\"learner\": \"server\",";
        size_t pos = json.find(at);
        if (pos == std::string::npos)
            throw std::runtime_error("the template's exercise has no learner key");
        json.insert(
            pos,
            R"J("build": ["sh", "-c", "if grep -q FORKMANY \"$1\"; then i=0; while [ $i -lt 300 ]; do sleep 30 & i=$((i+1)); done; wait; fi; exec cc -o \"$0\" \"$1\"", "{out}", "{sources}"],
      )J");
        spit(path, json);
    }
    return pack;
}

struct Check {
    int code = -1;
    std::string out;
    cJSON *json = nullptr;
    ~Check()
    {
        cJSON_Delete(json);
    }
    std::string str(const char *key, const char *in = nullptr) const
    {
        const cJSON *o = in ? cJSON_GetObjectItem(json, in) : json;
        const cJSON *v = cJSON_GetObjectItem(o, key);
        return cJSON_IsString(v) ? v->valuestring : "(none)";
    }
};

void check_step(Check &c, const TempDir &home, const std::string &pack, const std::string &dir,
                const std::vector<std::string> &env = {})
{
    std::vector<std::string> e = {"HOME=" + home.path, "XDG_DATA_HOME=" + (home / "data"),
                                  "XDG_CACHE_HOME=" + (home / "cache"),
                                  "XDG_STATE_HOME=" + (home / "state")};
    e.insert(e.end(), env.begin(), env.end());
    auto r = run({bin("iolab"), "check", "--pack", pack, "first/your-echo", "--dir", dir, "--json"},
                 e, 120);
    c.code = r.first;
    c.out = r.second;
    c.json = cJSON_Parse(r.second.c_str());
}

// iolab's TUI on the budget pack's exercise in a terminal (tmux_helpers.hpp), the learner's
// echo.c seeded in the workspace; every status also goes to iolab's log, where a test cannot miss
// it (IolabTerm::status). The directory is a base before the terminal, so it outlives iolab.
struct TuiDir {
    TempDir dir;
};
struct Tui : TuiDir, IolabTerm {
    Tui(const std::string &pack, const std::string &echo_c)
    {
        if (run({"/bin/mkdir", "-p", workspace()}).first != 0)
            throw std::runtime_error("cannot create the workspace");
        spit(workspace() + "/echo.c", echo_c);
        if (!start(dir.path, "--pack '" + pack + "' --open first/your-echo", "", 120, 40))
            throw std::runtime_error("tmux new-session failed");
    }
    std::string workspace() const
    {
        return dir / "data/iolab/work/budget/first/your-echo";
    }
};

} // namespace

TEST_CASE("budget: the probe says in typed fields which budget a jail gets", "[budget]")
{
    Probe p = probe();
    INFO(p.json);
    CHECK((p.budget == "cgroup" || p.budget == "user_namespace" || p.budget == "uid" ||
           p.budget == "per_process"));
    CHECK((p.budget == "cgroup") == p.pids);
    auto lacks = [](const Probe &q, const std::string &what) {
        for (const auto &l : q.lacks)
            if (l.find(what) != std::string::npos)
                return true;
        return false;
    };
    CHECK(lacks(p, "a memory cap for the whole jail") == !p.memory);
    CHECK(lacks(p, "a process budget of its own") == (p.budget == "per_process"));

    // Without a cgroup, as root, a jail gets a uid of its own; the list says the memory cap is
    // missing.
    Probe off = probe({"IOLAB_SANDBOX_CGROUP=off"});
    INFO(off.json);
    CHECK(!off.pids);
    CHECK(off.budget == (geteuid() == 0 ? "uid" : off.budget));
    CHECK(lacks(off, "a memory cap for the whole jail"));
    // The uid fallback does not depend on the tier (the minimal one has no namespace at all).
    if (geteuid() == 0) {
        auto m = run({sandbox(), "--probe", "--tier", "minimal"}, {"IOLAB_SANDBOX_CGROUP=off"});
        CHECK(m.second.find("\"budget\":\"uid\"") != std::string::npos);
    }
}

TEST_CASE("budget: a jail forking up to its limit leaves another session's forks, execs and "
          "build alone",
          "[budget]")
{
    Probe p = probe();
    std::vector<std::pair<std::string, std::vector<std::string>>> kinds;
    if (p.budget == "cgroup")
        kinds.push_back({"cgroup", {}});
    else
        WARN("no cgroup with the pids controller here (budget: " << p.budget
                                                                 << "): only the fallback runs");
    if (geteuid() == 0)
        kinds.push_back({"uid", {"IOLAB_SANDBOX_CGROUP=off"}});
    TempDir home;
    std::string pack = new_pack(home, false);
    std::string solution = pack + "/exercises/first/echo";
    for (const auto &[kind, env] : kinds) {
        DYNAMIC_SECTION("budget " << kind)
        {
            TempDir wa, wb;
            chmod(wa.path.c_str(), 0777);
            chmod(wb.path.c_str(), 0777);
            // B starts first with a small budget of its own and waits for GO: under one shared
            // count its limit would be "what the uid has now + 8", which A then takes.
            Child b;
            b.start({sandbox(), "--workdir", wb.path, "--nproc", "8", "--", "/bin/sh", "-c",
                     "echo waiting; while [ ! -e GO ]; do sleep 0.05; done; n=0; "
                     "for i in 1 2 3 4 5 6 7 8 9 10; do /bin/true && n=$((n+1)); done; "
                     "echo \"ran $n\""},
                    env);
            REQUIRE(b.read_until("waiting", 30));
            // forkloop forks until it fails and exits; its children hold the jail at its limit
            // while sleep runs. A copy in the work directory, which every tier shows at its path.
            spit(wa / "forkloop", slurp(hostile("forkloop")));
            chmod((wa / "forkloop").c_str(), 0755);
            Child a;
            a.start({sandbox(), "--workdir", wa.path, "--nproc", "60", "--", "/bin/sh", "-c",
                     "./forkloop; echo holding; exec sleep 120"},
                    env);
            bool held = a.read_until("holding", 30);
            INFO(a.output());
            REQUIRE(held);
            CHECK(a.output().find("fork failed after") != std::string::npos);

            // While A sits at its limit, B forks and execs ten times, and a build succeeds.
            spit(wb / "GO", "");
            REQUIRE(b.wait(30) != -1);
            INFO(b.output());
            CHECK(b.output().find("ran 10") != std::string::npos);
            Check c;
            check_step(c, home, pack, solution, env);
            INFO(c.out);
            REQUIRE(c.json);
            CHECK(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(c.json, "build"), "ok")));
            CHECK(c.str("status") == "pass");
            CHECK(a.stop(10) != -1);
        }
    }
}

TEST_CASE("budget: a jail's memory cap stops a memory hog with a sentence naming the limit",
          "[budget]")
{
    TempDir wd;
    chmod(wd.path.c_str(), 0777);
    Probe p = probe();
    auto r =
        run({sandbox(), "--workdir", wd.path, "--memory", "64", "--", hostile("memhog")}, {}, 60);
    INFO(r.second);
    if (!p.memory) {
        WARN("no cgroup memory controller here: the per-process address-space limit stands in");
        auto f = run({sandbox(), "--workdir", wd.path, "--as", "256", "--", hostile("memhog")});
        CHECK(f.second.find("allocation failed after") != std::string::npos);
        return;
    }
    CHECK(r.first == 128 + SIGKILL);
    CHECK(r.second.find("used up its memory limit (64 MiB") != std::string::npos);
    CHECK((r.second.find("memory.max") != std::string::npos ||
           r.second.find("memory.limit_in_bytes") != std::string::npos));
    // The report iolab reads says the same in a typed field.
    auto rep = run({"/bin/sh", "-c",
                    "'" + sandbox() + "' --workdir '" + wd.path + "' --memory 64 --quiet " +
                        "--report-fd 3 -- '" + hostile("memhog") + "' 3>&1 >/dev/null 2>&1"});
    CHECK(rep.second.find("\"limit\":\"memory\"") != std::string::npos);
}

TEST_CASE("budget: a jail's cgroup is gone when the jail ends, after SIGKILL of iolab, and after "
          "SIGKILL of its holder",
          "[budget]")
{
    Probe p = probe();
    if (p.budget != "cgroup") {
        WARN("no cgroup here (budget: " << p.budget << "): nothing to remove");
        return;
    }
    SECTION("a standalone run removes its cgroup before it exits")
    {
        TempDir wd;
        chmod(wd.path.c_str(), 0777);
        auto r = run({sandbox(), "--workdir", wd.path, "--", "/bin/cat", "/proc/self/cgroup"});
        std::set<std::string> dirs = jail_cgroups(r.second);
        INFO(r.second);
        REQUIRE(!dirs.empty());
        CHECK(within(30, [&] { return all_gone(dirs); }));
    }

    SECTION("a standalone run (a build's form) whose parent is SIGKILLed removes its cgroup")
    {
        TempDir wd;
        chmod(wd.path.c_str(), 0777);
        std::string tag = new_tag();
        // The shell stays the launcher's parent (the trailing command keeps it from exec'ing).
        Child parent;
        parent.start({"/bin/sh", "-c",
                      "'" + sandbox() + "' --workdir '" + wd.path +
                          "' -- /bin/sh -c 'cat /proc/self/cgroup; echo END; exec sleep 120'; :"},
                     {"TEST_TAG_IOLAB=" + tag});
        bool listed = parent.read_until("END", 30);
        INFO(parent.output());
        REQUIRE(listed);
        std::set<std::string> dirs = jail_cgroups(parent.output());
        REQUIRE(!dirs.empty());
        for (const auto &d : dirs)
            CHECK(access(d.c_str(), F_OK) == 0);
        kill(parent.pid(), SIGKILL);
        CHECK(within(30, [&] { return all_gone(dirs); }));
        CHECK(within(30, [&] { return tagged(tag) == 0; }));
    }

    // A scenario whose one program prints where it is and then sleeps.
    TempDir packdir;
    spit(packdir / "pack.json", R"({"format_version": 1, "id": "budgetrun",
        "title": "Budget", "version": "1", "lessons": ["b"]})");
    spit(packdir / "b.json", R"({"id": "b", "title": "A jail's cgroup",
        "summary": "A program that sleeps in its jail.",
        "steps": [{"id": "hold", "title": "Hold", "kind": "run", "text": "Sleeps.",
                   "seconds": 60, "limits": {"processes": 1},
                   "programs": [{"name": "sleeper", "role": "server", "program": "/bin/sh",
                                 "args": ["-c", "echo ready; exec sleep 120"],
                                 "ready": "ready"}]}]})");
    TempDir home;
    std::string tag = new_tag();
    Child iolab;
    iolab.start({bin("iolab"), "run", "--pack", packdir.path, "b/hold", "--seconds", "60"},
                {"HOME=" + home.path, "XDG_STATE_HOME=" + (home / "state"),
                 "XDG_CACHE_HOME=" + (home / "cache"), "TEST_TAG_IOLAB=" + tag});
    // The sleeper, found by the tag every descendant inherits, and its cgroups.
    std::set<std::string> dirs;
    bool found = within(30, [&] {
        DIR *d = opendir("/proc");
        for (struct dirent *e; d && (e = readdir(d));) {
            std::string pid = e->d_name;
            if (pid[0] < '1' || pid[0] > '9' || read_proc("/proc/" + pid + "/comm") != "sleep\n")
                continue;
            if (read_proc("/proc/" + pid + "/environ").find("TEST_TAG_IOLAB=" + tag) !=
                std::string::npos)
                dirs = jail_cgroups(read_proc("/proc/" + pid + "/cgroup"));
        }
        if (d)
            closedir(d);
        return !dirs.empty();
    });
    INFO(iolab.output());
    REQUIRE(found);
    for (const auto &d : dirs)
        CHECK(access(d.c_str(), F_OK) == 0);

    SECTION("SIGKILL of iolab: the holder removes it at the life pipe's end")
    {
        kill(iolab.pid(), SIGKILL);
        iolab.wait(10);
        CHECK(within(30, [&] { return all_gone(dirs); }));
        CHECK(within(30, [&] { return tagged(tag) == 0; }));
    }
    SECTION("SIGKILL of the holder: the next jail's start removes it")
    {
        // The holder is iolab's child named iolab-jail.
        pid_t holder = -1;
        std::stringstream kids(read_proc("/proc/" + std::to_string(iolab.pid()) + "/task/" +
                                         std::to_string(iolab.pid()) + "/children"));
        for (pid_t k; kids >> k;)
            if (read_proc("/proc/" + std::to_string(k) + "/comm") == "iolab-jail\n")
                holder = k;
        REQUIRE(holder > 0);
        kill(holder, SIGKILL);
        // Nobody removes it until a jail is created beside it: start one each time round.
        TempDir wd;
        chmod(wd.path.c_str(), 0777);
        CHECK(within(30, [&] {
            run({sandbox(), "--workdir", wd.path, "--", "/bin/true"});
            return all_gone(dirs);
        }));
        kill(iolab.pid(), SIGKILL);
        iolab.wait(10);
        CHECK(within(30, [&] { return tagged(tag) == 0; }));
    }
}

TEST_CASE("budget: a build that writes past the file size limit names that limit, not a "
          "compiler error",
          "[budget]")
{
    TempDir home;
    std::string pack = new_pack(home, true);
    TempDir mine;
    // 80 MiB of initialised data: the assembler's object file passes the build's 64 MiB limit
    // and the kernel stops it with SIGXFSZ; the compiler driver then exits 1.
    spit(mine / "echo.c",
         slurp(pack + "/exercises/first/echo/echo.c") + "char iolab_big[80 << 20] = {1};\n");
    Check c;
    check_step(c, home, pack, mine.path);
    INFO(c.out);
    REQUIRE(c.json);
    CHECK(c.code == 2);
    CHECK(c.str("limit", "build") == "fsize");
    CHECK(c.str("error").find("file size limit (64 MiB a file") != std::string::npos);
    CHECK(c.out.find("does not build") == std::string::npos);
}

TEST_CASE("budget: a build stopped by its jail's process limit says which limit, never blames "
          "the code, and is not an attempt",
          "[budget]")
{
    Probe p = probe();
    if (p.budget != "cgroup") {
        WARN("no cgroup here (budget: " << p.budget << "): a build's fork failure cannot be "
                                        << "told from the code's; only the fallback is checked");
    }
    TempDir home;
    std::string pack = new_pack(home, true);
    TempDir mine;
    std::string source = slurp(pack + "/exercises/first/echo/echo.c");
    spit(mine / "echo.c", source + "/* FORKMANY */\n");

    Check c;
    check_step(c, home, pack, mine.path);
    INFO(c.out);
    REQUIRE(c.json);
    CHECK(c.code == 2); // nothing could be judged
    if (p.budget != "cgroup") {
        CHECK(c.str("status") == "error");
        return;
    }
    CHECK(c.str("limit", "build") == "pids");
    CHECK(c.str("error").find("process limit (64 processes and threads") != std::string::npos);
    CHECK(c.str("error").find("not by your code") != std::string::npos);
    CHECK(c.out.find("does not build") == std::string::npos);

    // In the TUI: the learner's build stopped by the limit is not an attempt; the next one is.
    Tui tui(pack, source + "/* FORKMANY */\n");
    std::string ws = tui.workspace(), log = tui.dir / "state/iolab/iolab.log";
    bool stopped = tui.status("Build 1: the build was stopped by its jail's process limit");
    INFO(slurp(log));
    REQUIRE(stopped);
    auto attempts = [&]() -> double {
        cJSON *j = cJSON_Parse(slurp(tui.dir / "state/iolab/progress.json").c_str());
        double n = 0;
        std::function<void(const cJSON *)> find = [&](const cJSON *o) {
            for (const cJSON *c = o ? o->child : nullptr; c; c = c->next) {
                if (c->string && std::string(c->string) == "exercise" && cJSON_IsObject(c) &&
                    cJSON_IsNumber(cJSON_GetObjectItem(c, "attempts")))
                    n = cJSON_GetObjectItem(c, "attempts")->valuedouble;
                else if (cJSON_IsString(c) && c->string && std::string(c->string) == "exercise") {
                    cJSON *in = cJSON_Parse(c->valuestring);
                    if (cJSON_IsNumber(cJSON_GetObjectItem(in, "attempts")))
                        n = cJSON_GetObjectItem(in, "attempts")->valuedouble;
                    cJSON_Delete(in);
                } else {
                    find(c);
                }
            }
        };
        find(j);
        cJSON_Delete(j);
        return n;
    };
    CHECK(attempts() == 0);
    // Saved without the marker (by rename, as an editor does): it builds, and that one counts.
    spit(ws + "/echo.c.tmp", source);
    REQUIRE(rename((ws + "/echo.c.tmp").c_str(), (ws + "/echo.c").c_str()) == 0);
    REQUIRE(tui.status("Build 2: ok"));
    CHECK(within(30, [&] { return attempts() == 1; }));
}

TEST_CASE("budget: iolab check uses the tier IOLAB_SANDBOX_TIER asks for", "[budget]")
{
    TempDir home;
    std::string pack = new_pack(home, false);
    std::string solution = pack + "/exercises/first/echo";
    Check minimal;
    check_step(minimal, home, pack, solution, {"IOLAB_SANDBOX_TIER=minimal"});
    INFO(minimal.out);
    REQUIRE(minimal.json);
    CHECK(minimal.str("tier") == "minimal");
    CHECK(minimal.str("status") == "pass");
    Check best;
    check_step(best, home, pack, solution);
    INFO(best.out);
    REQUIRE(best.json);
    CHECK(best.str("tier") == probed_tier());
}

TEST_CASE("budget: a scenario's programs run in the jail's cgroup, or as the jail's own uid "
          "without one, and its sandbox object says which",
          "[budget]")
{
    TempDir packdir;
    spit(packdir / "pack.json", R"({"format_version": 1, "id": "budgetuid",
        "title": "Budget", "version": "1", "lessons": ["u"]})");
    spit(packdir / "u.json", R"({"id": "u", "title": "Who runs", "summary": "s",
        "steps": [{"id": "s", "title": "S", "kind": "run", "text": "t", "seconds": 1,
          "programs": [{"name": "p", "role": "server", "program": "/bin/sh",
            "args": ["-c", "echo uid=$(id -u) jail=$IOLAB_JAIL_PIDS; cat /proc/self/cgroup; echo ready; sleep 2"],
            "ready": "ready"}],
          "checks": [
            {"text": "own uid", "metric": "output", "program": "p", "match": "uid=655(2[0-9]|3[0-3]) ", "min": 1},
            {"text": "jail pids", "metric": "output", "program": "p", "match": "jail=[0-9]+", "min": 1},
            {"text": "in its cgroup", "metric": "output", "program": "p", "match": "/iolab-[0-9]+-[0-9]+-[0-9]+$", "min": 1}]}]})");
    Probe p = probe();
    std::vector<std::string> variants = {""};
    if (geteuid() == 0)
        variants.push_back("IOLAB_SANDBOX_CGROUP=off");
    for (const auto &env : variants) {
        DYNAMIC_SECTION("environment '" << env << "'")
        {
            TempDir home;
            std::vector<std::string> e = {"HOME=" + home.path};
            if (!env.empty())
                e.push_back(env);
            auto r = run({bin("iolab"), "run", "u/s", "--pack", packdir.path, "--json"}, e, 60);
            INFO(r.second);
            cJSON *j = cJSON_Parse(r.second.c_str());
            REQUIRE(j);
            std::map<std::string, bool> ok;
            const cJSON *c;
            cJSON_ArrayForEach(c, cJSON_GetObjectItem(j, "checks"))
            {
                ok[cJSON_GetObjectItem(c, "text")->valuestring] =
                    cJSON_IsTrue(cJSON_GetObjectItem(c, "ok"));
            }
            const cJSON *budget = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "sandbox"), "budget");
            std::string b = cJSON_IsString(budget) ? budget->valuestring : "";
            if (env.empty() && p.budget == "cgroup") {
                CHECK(b == "cgroup");
                CHECK(ok["in its cgroup"]);
                CHECK(ok["jail pids"]);
                CHECK(!ok["own uid"]);
            } else if (!env.empty()) {
                CHECK(b == "uid");
                CHECK(ok["own uid"]);
                CHECK(!ok["in its cgroup"]);
                CHECK(!ok["jail pids"]);
            } else {
                WARN("budget here: " << b);
                CHECK(b == p.budget);
            }
            cJSON_Delete(j);
        }
    }
}

TEST_CASE("budget: without a cgroup, a uid or a user namespace, the probe and the step's status "
          "say the jail has no budget of its own",
          "[budget]")
{
    if (geteuid() != 0) {
        WARN("not root: cannot run iolab as another user to see the fallback");
        return;
    }
    // As uid 65534 the cgroup hierarchies here are not writable and no uid of a range can be
    // taken; the minimal tier has no user namespace: per-process limits only.
    TempDir home, packdir;
    chmod(home.path.c_str(), 0777);
    chmod(packdir.path.c_str(), 0755);
    spit(packdir / "pack.json", R"({"format_version": 1, "id": "budgetnone",
        "title": "Budget", "version": "1", "lessons": ["n"]})");
    spit(packdir / "n.json", R"({"id": "n", "title": "None", "summary": "s",
        "steps": [{"id": "s", "title": "S", "kind": "run", "text": "t", "seconds": 1,
          "programs": [{"name": "p", "role": "server", "program": "/bin/sh",
            "args": ["-c", "echo going; exit 3"], "ready": "ready"}]}]})");
    chmod((packdir / "pack.json").c_str(), 0644);
    chmod((packdir / "n.json").c_str(), 0644);
    std::vector<std::string> as_nobody = {"/usr/bin/setpriv",
                                          "--reuid",
                                          "65534",
                                          "--regid",
                                          "65534",
                                          "--clear-groups",
                                          "/usr/bin/env",
                                          "HOME=" + home.path,
                                          "IOLAB_SANDBOX_TIER=minimal"};
    auto probe_argv = as_nobody;
    probe_argv.push_back(sandbox());
    probe_argv.push_back("--probe");
    auto pr = run(probe_argv);
    INFO(pr.second);
    CHECK(pr.second.find("\"budget\":\"per_process\"") != std::string::npos);
    CHECK(pr.second.find("\"budget_missing\":[\"a process budget of its own") != std::string::npos);

    // The step's status says it beside what the tier lacks (here, as the program dies at start).
    auto run_argv = as_nobody;
    for (const std::string &a : {bin("iolab"), std::string("run"), std::string("n/s"),
                                 std::string("--pack"), packdir.path})
        run_argv.push_back(a);
    auto r = run(run_argv, {}, 60);
    INFO(r.second);
    CHECK(r.first != 0);
    CHECK(r.second.find("minimal tier") != std::string::npos);
    CHECK(r.second.find("no process or memory budget of its own") != std::string::npos);
}

namespace
{

// new_pack's exercise with the learner's server given one process of budget: the jail's is
// then 4 x 1 + 64 = 68 processes and threads.
std::string process_limited_pack(const TempDir &home)
{
    std::string pack = new_pack(home, false);
    std::string path = pack + "/first.json", json = slurp(path);
    size_t at = json.find("\"learner\": \"server\",");
    REQUIRE(at != std::string::npos);
    json.insert(at, "\"limits\": {\"processes\": 1},\n      ");
    spit(path, json);
    return pack;
}

// A server that says it listens and forks until fork() fails; then it exits 1, or (wait) it
// ignores the failure and waits for ever.
std::string fork_loop(bool wait)
{
    return std::string("#include <stdio.h>\n#include <unistd.h>\n"
                       "int main(void)\n{\n    printf(\"listening\\n\");\n"
                       "    fflush(stdout);\n    for (;;) {\n"
                       "        pid_t p = fork();\n        if (p == 0) {\n"
                       "            pause();\n            _exit(0);\n        }\n"
                       "        if (p < 0)\n") +
           (wait ? "            break;\n    }\n    for (;;)\n        pause();\n}\n"
                 : "            return 1;\n    }\n}\n");
}

} // namespace

TEST_CASE("budget: a scenario's program stopped by its jail's process limit makes iolab check "
          "name the limit instead of judging the code",
          "[budget]")
{
    Probe p = probe();
    if (p.budget != "cgroup") {
        WARN("no cgroup here (budget: " << p.budget << "): nothing tells the jail's limit");
        return;
    }
    TempDir home;
    std::string pack = process_limited_pack(home);
    TempDir mine;
    spit(mine / "echo.c", fork_loop(false));
    Check c;
    check_step(c, home, pack, mine.path);
    INFO(c.out);
    REQUIRE(c.json);
    CHECK(c.code == 2);
    CHECK(c.str("status") == "error");
    // The launcher reports the limit while the program runs and again when it ends: the run is
    // void as soon as either is read, "reached" while it ran or "was stopped by" at its end.
    std::regex named("the server \\(your program\\) (reached|was stopped by) the jail's process "
                     "limit \\(its cgroup's pids.max");
    CHECK(std::regex_search(c.str("error"), named));
    CHECK(c.str("error").find("not judged") != std::string::npos);

    // In the TUI the step's status names the limit too, in the same words (exercise/judge.c).
    Tui tui(pack, slurp(mine / "echo.c"));
    bool said = tui.status("The server (your program) ");
    std::string log = slurp(tui.dir / "state/iolab/iolab.log");
    INFO(log);
    CHECK(std::regex_search(log, std::regex("status: The server \\(your program\\) "
                                            "(reached|was stopped by) the jail's process limit")));
    CHECK(said);
}

TEST_CASE("budget: a learner's program that reaches the jail's process limit and goes on is "
          "told the limit, though iolab stops it at the end",
          "[budget]")
{
    Probe p = probe();
    if (p.budget != "cgroup") {
        WARN("no cgroup here (budget: " << p.budget << "): nothing tells the jail's limit");
        return;
    }
    TempDir home;
    std::string pack = process_limited_pack(home);
    // Forks until fork() fails, ignores the failure and waits: it never exits by itself, so
    // only the report of the jail's pids.events can say why it served nobody.
    TempDir mine;
    spit(mine / "echo.c", fork_loop(true));
    Check c;
    check_step(c, home, pack, mine.path);
    INFO(c.out);
    REQUIRE(c.json);
    CHECK(c.code == 2);
    CHECK(c.str("status") == "error");
    CHECK(c.str("error").find("your program) reached the jail's process limit") !=
          std::string::npos);

    // The TUI says so while the program still runs (it never exits by itself), in the same
    // words, and judges nothing of the run.
    Tui tui(pack, slurp(mine / "echo.c"));
    bool said = tui.status("The server (your program) reached the jail's process limit (its "
                           "cgroup's pids.max");
    INFO(slurp(tui.dir / "state/iolab/iolab.log"));
    CHECK(said);
}

TEST_CASE("budget: a learner's program that fills the jail's /tmp and fails is told the /tmp "
          "limit, not judged on it",
          "[budget]")
{
    Probe p = probe();
    if (p.json.find("\"tier\":\"full\"") == std::string::npos) {
        WARN("not the full tier: no private /tmp of the jail's own to fill");
        return;
    }
    TempDir home;
    std::string pack = new_pack(home, false);
    TempDir mine;
    spit(mine / "echo.c",
         "#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
         "int main(void)\n{\n    printf(\"listening\\n\");\n    fflush(stdout);\n"
         "    FILE *f = fopen(\"/tmp/fill\", \"w\");\n    static char mb[1 << 20];\n"
         "    memset(mb, 'x', sizeof mb);\n"
         "    while (f && fwrite(mb, 1, sizeof mb, f) == sizeof mb && fflush(f) == 0)\n"
         "        ;\n    return 1;\n}\n");
    Check c;
    check_step(c, home, pack, mine.path);
    INFO(c.out);
    REQUIRE(c.json);
    CHECK(c.code == 2);
    CHECK(c.str("error").find("the jail's /tmp limit (the jail's private /tmp was full") !=
          std::string::npos);
}

TEST_CASE("budget: without a cgroup, the process limit counts the uid's threads, not only its "
          "processes",
          "[budget]")
{
    if (geteuid() != 0) {
        WARN("not root: the programs run as this user, whose other threads are not the test's");
        return;
    }
    // A uid of the test's own (--uid: no uid from the range), whose one process holds 50
    // threads. The next program of that uid asks for 5 more: a limit set from its processes (1
    // + 5) made its exec fail with EAGAIN after the drop, as a learner's `cc` did.
    std::vector<std::string> env = {"IOLAB_SANDBOX_CGROUP=off"};
    TempDir wa, wb;
    chmod(wa.path.c_str(), 0777);
    chmod(wb.path.c_str(), 0777);
    std::string uid = std::to_string(40000 + getpid() % 10000);
    Child a;
    a.start({sandbox(), "--tier", "minimal", "--uid", uid, "--nproc", "100", "--workdir", wa.path,
             "--", hostile("threadhold"), "50"},
            env);
    bool holding = a.read_until("holding 50 threads", 30);
    INFO(a.output());
    REQUIRE(holding);
    auto b = run({sandbox(), "--tier", "minimal", "--uid", uid, "--nproc", "5", "--workdir",
                  wb.path, "--", "/bin/sh", "-c", "echo started"},
                 env);
    INFO(b.second);
    CHECK(b.first == 0);
    CHECK(b.second.find("started") != std::string::npos);
    CHECK(a.stop(10) != -1);
}

TEST_CASE("budget: without a budget of its own, a program whose uid is at its process limit "
          "cannot start, and the launcher says which limit",
          "[budget]")
{
    if (geteuid() != 0) {
        WARN("not root: cannot give another program the uid to fill");
        return;
    }
    // 50 threads of real uid U that /proc lists under another owner (their effective uid), so
    // the launcher cannot see them when it sets the limit, and the kernel, counting real uids,
    // refuses the exec after the drop: the shared count's failure, now told as such.
    std::string uid = std::to_string(50000 + getpid() % 10000);
    std::string other = std::to_string(60000 + getpid() % 5000);
    Child hidden;
    hidden.start({"/usr/bin/setpriv", "--ruid", uid, "--euid", other, "--regid", uid,
                  "--clear-groups", hostile("threadhold"), "50"});
    bool holding = hidden.read_until("holding 50 threads", 30);
    INFO(hidden.output());
    REQUIRE(holding);
    TempDir wd;
    chmod(wd.path.c_str(), 0777);
    auto r = run({"/bin/sh", "-c",
                  "'" + sandbox() + "' --tier minimal --uid " + uid + " --nproc 5 --workdir '" +
                      wd.path + "' --report-fd 3 -- /bin/true 3>&1"},
                 {"IOLAB_SANDBOX_CGROUP=off"});
    INFO(r.second);
    CHECK(r.first == 127);
    CHECK(r.second.find("\"limit\":\"pids\"") != std::string::npos);
    CHECK(r.second.find("could not start: its uid had reached its process limit "
                        "(RLIMIT_NPROC 5") != std::string::npos);
    CHECK(hidden.stop(10) != -1);
}

namespace
{

// What the engine's callbacks saw of the one program of a live-limit scenario.
struct LiveLimit {
    engine *e = nullptr;
    bool failed_fork = false; // the program printed that its fork failed
    bool exited = false;      // its exit was reported
    bool named_alive = false; // engine_limit() said "pids" while it had not exited
    bool stopped = false;     // the engine reached STOPPED (or FAILED)
    std::string limit, out;
    double deadline = 0;
};

double live_now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

TEST_CASE("budget: a program that reached the jail's process limit and runs on has the limit "
          "named by the engine while it still runs",
          "[budget]")
{
    Probe p = probe();
    if (p.budget != "cgroup") {
        WARN("no cgroup here (budget: " << p.budget << "): no pids.events to watch");
        return;
    }
    // Forks until the jail's pids.max refuses, ignores the failure and waits: before, the limit
    // was known only from the sandbox's report at the program's end.
    std::string prog = hostile("forkhold");
    MemLesson l(R"({"id": "l", "title": "L", "summary": "A fork loop that goes on.",
        "steps": [{"id": "s", "title": "S", "kind": "run", "text": "Forks.", "seconds": 60,
                   "limits": {"processes": 1},
                   "programs": [{"name": "forker", "role": "server", "program": ")" +
                prog + R"(", "ready": "ready"}]}]})");
    INFO(l.messages());
    REQUIRE(l.rc == 0);
    for (enum iolab_tier tier : {IOLAB_TIER_FULL, IOLAB_TIER_REDUCED, IOLAB_TIER_MINIMAL}) {
        DYNAMIC_SECTION("tier " << iolab_tier_name(tier))
        {
            LiveLimit st;
            uv_loop_t loop;
            REQUIRE(uv_loop_init(&loop) == 0);
            engine_callbacks cb = {};
            cb.data = &st;
            cb.on_line = [](void *d, size_t, enum engine_stream, const char *line, size_t len) {
                auto *s = static_cast<LiveLimit *>(d);
                s->out.append(line, len).append("\n");
                if (std::string(line, len).rfind("fork failed", 0) == 0)
                    s->failed_fork = true;
            };
            cb.on_exit = [](void *d, size_t, int, bool) {
                static_cast<LiveLimit *>(d)->exited = true;
            };
            cb.on_state = [](void *d, enum engine_state s) {
                if (s == ENGINE_STOPPED || s == ENGINE_FAILED)
                    static_cast<LiveLimit *>(d)->stopped = true;
            };
            engine_options opts = {};
            opts.tier = tier;
            REQUIRE(engine_create(&st.e, &loop, l.scenario(), &opts, &cb) == 0);
            REQUIRE(engine_start(st.e) == 0);
            // Polled on the loop: the engine names the limit while the program has not exited.
            uv_timer_t poll;
            uv_timer_init(&loop, &poll);
            poll.data = &st;
            st.deadline = live_now() + 30;
            uv_timer_start(
                &poll,
                [](uv_timer_t *t) {
                    auto *s = static_cast<LiveLimit *>(t->data);
                    char limit[16];
                    if (!s->exited && engine_limit(s->e, 0, limit, sizeof limit)) {
                        s->named_alive = true;
                        s->limit = limit;
                    }
                    if (s->named_alive || s->exited || s->stopped || live_now() > s->deadline)
                        uv_stop(t->loop);
                },
                50, 50);
            uv_run(&loop, UV_RUN_DEFAULT);
            INFO(st.out);
            CHECK(st.named_alive);
            CHECK(st.limit == "pids");
            CHECK(!st.exited);
            CHECK(engine_state(st.e) == ENGINE_RUNNING);
            // The limit stays named: through the stop, and after it from the final report.
            engine_stop(st.e);
            st.deadline = live_now() + 30;
            uv_timer_start(
                &poll,
                [](uv_timer_t *t) {
                    auto *s = static_cast<LiveLimit *>(t->data);
                    if (s->stopped || live_now() > s->deadline)
                        uv_stop(t->loop);
                },
                50, 50);
            uv_run(&loop, UV_RUN_DEFAULT);
            CHECK(st.stopped);
            char limit[16] = "";
            CHECK(engine_limit(st.e, 0, limit, sizeof limit));
            CHECK(std::string(limit) == "pids");
            uv_close((uv_handle_t *)&poll, nullptr);
            engine_free(st.e);
            uv_run(&loop, UV_RUN_DEFAULT);
            CHECK(uv_loop_close(&loop) == 0);
        }
    }
}
