// Exercises in a real terminal (tmux) with hostile learner code: a program that floods its
// output, one that spins and one that forks without end. Each is built and run on save, and the
// TUI answers keys throughout (a hint appears at once); quitting leaves no process behind, and
// the progress record counts the attempts.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>
#include <chrono>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <thread>

using namespace iolab_test;

namespace
{

std::string slurp(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void spit(const std::string &path, const std::string &text)
{
    std::ofstream(path) << text;
}

void descendants(pid_t pid, std::set<pid_t> &out)
{
    std::string dir = "/proc/" + std::to_string(pid) + "/task";
    DIR *d = opendir(dir.c_str());
    if (!d)
        return;
    while (struct dirent *e = readdir(d)) {
        if (e->d_name[0] == '.')
            continue;
        std::stringstream ss(slurp(dir + "/" + e->d_name + "/children"));
        for (pid_t c; ss >> c;)
            if (out.insert(c).second)
                descendants(c, out);
    }
    closedir(d);
}

bool gone(pid_t pid)
{
    std::string st = slurp("/proc/" + std::to_string(pid) + "/stat");
    size_t paren = st.rfind(')');
    return st.empty() ||
           (paren != std::string::npos && paren + 2 < st.size() && st[paren + 2] == 'Z');
}

// iolab in a pane of a private tmux server.
class Tui
{
  public:
    explicit Tui(const std::string &step)
    {
        static int counter;
        sock_ = "iolab-ex-" + std::to_string(getpid()) + "-" + std::to_string(counter++);
        std::string script =
            "cd '" + dir_.path + "'\nexport HOME='" + dir_.path + "' XDG_STATE_HOME='" +
            (dir_ / "state") + "' XDG_DATA_HOME='" + (dir_ / "data") + "' XDG_CACHE_HOME='" +
            (dir_ / "cache") + "' TERM=xterm-256color\n'" + bin("iolab") + "' --pack '" +
            source_dir() + "/lessons' --open '" + step + "'\necho IOLAB-EXITED\nexec sleep 600\n";
        spit(dir_ / "run.sh", script);
        auto [code, out] = run({tmux_, "-L", sock_, "-f", "/dev/null", "new-session", "-d", "-x",
                                "120", "-y", "40", "sh " + (dir_ / "run.sh")});
        if (code != 0)
            throw std::runtime_error("tmux new-session failed: " + out);
        shell_ = (pid_t)std::stol(
            run({tmux_, "-L", sock_, "display-message", "-p", "#{pane_pid}"}).second);
    }
    ~Tui()
    {
        run({tmux_, "-L", sock_, "kill-server"});
    }
    bool wait_for(const std::string &needle, double timeout_s = 10)
    {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        do {
            last_ = run({tmux_, "-L", sock_, "capture-pane", "-p"}).second;
            if (last_.find(needle) != std::string::npos)
                return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        } while (std::chrono::steady_clock::now() < deadline);
        return false;
    }
    void keys(const std::string &k)
    {
        run({tmux_, "-L", sock_, "send-keys", k});
    }
    std::set<pid_t> processes()
    {
        std::set<pid_t> d;
        descendants(shell_, d);
        return d;
    }
    const TempDir &dir() const
    {
        return dir_;
    }
    const std::string &last() const
    {
        return last_;
    }

  private:
    TempDir dir_;
    std::string tmux_ = "/usr/bin/tmux";
    std::string sock_;
    pid_t shell_ = -1;
    std::string last_;
};

const char *kHead = "#include <stdio.h>\n#include <string.h>\n#include <unistd.h>\n"
                    "int main(void)\n{\n    printf(\"listening\\n\");\n    fflush(stdout);\n";

} // namespace

TEST_CASE("tui: hostile learner code (a flood, an endless loop, a fork loop) leaves the TUI "
          "responsive and nothing behind")
{
    Tui t("ordered/write-server-loop");
    REQUIRE(t.wait_for("Build 1: ok", 60)); // the starter
    std::string file =
        t.dir() / "data/iolab/work/linux-io/ordered/write-server-loop/ordered-server.c";
    const std::vector<std::string> bodies = {
        // 1 GB of output, then silence
        "    static char line[65536];\n    memset(line, 'x', sizeof line - 1);\n"
        "    line[sizeof line - 1] = '\\n';\n    for (long i = 0; i < 16384; i++)\n"
        "        fwrite(line, 1, sizeof line, stdout);\n    for (;;)\n        pause();\n",
        // an endless loop
        "    for (volatile unsigned long i = 0;; i++) {\n    }\n",
        // a fork loop
        "    for (;;)\n        fork();\n",
    };
    for (size_t i = 0; i < bodies.size(); i++) {
        // Saved by rename, as an editor does: the watcher rebuilds and runs it.
        spit(file + ".tmp", std::string(kHead) + bodies[i] + "}\n");
        REQUIRE(rename((file + ".tmp").c_str(), file.c_str()) == 0);
        std::string build = "Build " + std::to_string(i + 2) + ": ok";
        bool built = t.wait_for(build, 60);
        INFO(t.last());
        REQUIRE(built);
        // While it runs, a key is answered at once.
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        auto t0 = std::chrono::steady_clock::now();
        t.keys("H");
        bool hint = t.wait_for("Hint " + std::to_string(i + 1) + ":", 5);
        double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        INFO(t.last());
        CHECK(hint);
        CHECK(took < 5);
    }
    // The checks say what went wrong while iolab runs on.
    CHECK(t.wait_for("yours: 0 of 4 requests", 20));
    t.keys("q");
    if (t.wait_for("quit?", 5))
        t.keys("y");
    REQUIRE(t.wait_for("IOLAB-EXITED", 20));
    // Nothing of the scenario is left: only the shell's sleep.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    std::set<pid_t> left;
    do {
        left.clear();
        for (pid_t p : t.processes())
            if (!gone(p) && slurp("/proc/" + std::to_string(p) + "/comm") != "sleep\n")
                left.insert(p);
        if (left.empty())
            break;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } while (std::chrono::steady_clock::now() < deadline);
    CHECK(left.empty());
    // The progress record counts every build of the learner's program as an attempt.
    std::string progress = slurp(t.dir() / "state/iolab/progress.json");
    INFO(progress);
    cJSON *p = cJSON_Parse(progress.c_str());
    REQUIRE(p);
    const cJSON *ex = cJSON_GetObjectItem(
        cJSON_GetObjectItem(
            cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "packs"), "linux-io"),
                                "steps"),
            "ordered/write-server-loop"),
        "fields");
    ex = cJSON_GetObjectItem(ex, "exercise");
    REQUIRE(ex);
    // The starter and three saves at least (a save by rename may be seen as two changes).
    CHECK(cJSON_GetObjectItem(ex, "attempts")->valuedouble >= 4);
    CHECK(cJSON_IsFalse(cJSON_GetObjectItem(ex, "solution_viewed")));
    CHECK(!cJSON_GetObjectItem(ex, "first_pass"));
    cJSON_Delete(p);
}
