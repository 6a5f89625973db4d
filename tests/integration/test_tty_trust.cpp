// Issue 26: the terminal is the person's, never a jailed program's. A pack's build program, and
// any program run through iolab-sandbox in any tier, tries every way to type into the terminal
// it was started from (tests/hostile/tiocsti.c: TIOCSTI and TIOCLINUX through /dev/tty, its
// descriptors, every /dev/pts/N, a pseudo-terminal of its own). The terminal is real: a shell in
// a private tmux server, where a pushed line would run as root after iolab exits. The host
// allows TIOCSTI (dev.tty.legacy_tiocsti=1 here), so a control run outside the jail shows that
// the attack works and that these tests would see it.
#include "helpers.hpp"
#include "tmux_helpers.hpp"
#include "jail_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>

#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace iolab_test;

namespace
{

bool exists(const std::string &path)
{
    return access(path.c_str(), F_OK) == 0;
}

std::vector<std::string> lines_of(const std::string &text)
{
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) {
        while (!l.empty() && (l.back() == ' ' || l.back() == '\r'))
            l.pop_back();
        out.push_back(l);
    }
    return out;
}

const char *const PROMPT = "tty-trust$";

// An interactive shell on a real terminal (a private tmux server, stopped by its own socket):
// what a person types iolab into, and what would run a line pushed into its input.
class Shell : public IolabTerm
{
  public:
    explicit Shell(const TempDir &dir)
    {
        scrollback(200);
        launch("env HOME='" + dir.path + "' XDG_STATE_HOME='" + (dir / "state") +
                   "' XDG_DATA_HOME='" + (dir / "data") + "' XDG_CACHE_HOME='" + (dir / "cache") +
                   "' TERM=xterm-256color PS1='" + PROMPT + " ' bash --norc --noprofile -i",
               200, 60);
    }
    // Types a command line literally and presses Enter.
    void type(const std::string &line)
    {
        literal(line);
        keys("Enter");
    }
    // Runs `cmd` and waits for it to end: its exit status, or -1 when it never ended.
    int run_line(const std::string &cmd, double secs)
    {
        int n = counter()++;
        std::string tag = "DONE" + std::to_string(n);
        // Split in the typed line, whole only in the output.
        type(cmd + "; echo \"" + tag.substr(0, 2) + "\"\"" + tag.substr(2) + "=$?\"");
        if (!wait_for(tag + "=", secs))
            return -1;
        std::string s = screen();
        auto at = s.rfind(tag + "=");
        return atoi(s.c_str() + at + tag.size() + 1);
    }
    // After a command has ended: types a harmless sentinel and checks that the prompt line it
    // was typed on held nothing else, i.e. that no keystrokes were pushed into the shell's
    // input while the command ran (a pushed line ending in a newline would also have run, and
    // shows above the sentinel). Returns the offending line, or "" when the line was clean.
    std::string pushed_input()
    {
        int n = counter()++;
        std::string word = "SENTINEL" + std::to_string(n);
        std::string typed = "echo \"SENT\"\"" + word.substr(4) + "\"";
        type(typed);
        if (!wait_for("\n" + word, 30))
            return "the sentinel never ran: " + screen();
        auto ls = lines_of(screen());
        std::string expect = std::string(PROMPT) + " " + typed;
        for (size_t i = 1; i < ls.size(); i++)
            if (ls[i] == word) {
                // The line above the sentinel's output is where it was typed; the line above
                // that is the previous command's last output (its DONE line).
                if (ls[i - 1] != expect)
                    return ls[i - 1];
                if (i >= 2 && ls[i - 2].rfind(PROMPT, 0) == 0)
                    return ls[i - 2]; // a prompt of its own: something ran in between
                return "";
            }
        return "the sentinel's output was not found";
    }

  private:
    static int &counter()
    {
        static int n;
        return n;
    }
};

// What the hostile program reported, line by line.
struct Attempts {
    std::vector<std::string> lines;
    bool has(const std::string &prefix) const
    {
        for (const auto &l : lines)
            if (l.rfind(prefix, 0) == 0)
                return true;
        return false;
    }
    std::string line(const std::string &prefix) const
    {
        for (const auto &l : lines)
            if (l.rfind(prefix, 0) == 0)
                return l;
        return "";
    }
};

// Every attempt to reach a terminal failed the way the jail makes it fail: no terminal to open
// (ENXIO), and every TIOCSTI and TIOCLINUX refused by the seccomp filter (EPERM), whatever the
// descriptor. Opening another user's /dev/pts/N may also fail for its permissions (EACCES).
void check_refused(const Attempts &a)
{
    REQUIRE(a.has("INJECTED "));
    CHECK(a.line("INJECTED ") == "INJECTED 0");
    for (const auto &l : a.lines) {
        INFO(l);
        if (l.rfind("ATTEMPT TIOCSTI", 0) == 0 || l.rfind("ATTEMPT TIOCLINUX", 0) == 0)
            CHECK(l.substr(l.size() - 10) == "fail EPERM");
        if (l.rfind("ATTEMPT TIOCSCTTY", 0) == 0)
            CHECK(l.find(" ok") == std::string::npos);
        if (l.rfind("ATTEMPT open:/dev/tty", 0) == 0 && l.find("/dev/tty0") == std::string::npos)
            CHECK(l.substr(l.size() - 10) == "fail ENXIO");
    }
    // In a session of its own (it leads it), with no controlling terminal, and with no
    // descriptor on a terminal.
    std::string s = a.line("SESSION ");
    REQUIRE(!s.empty());
    int pid = -1, sid = -2;
    long tty_nr = -1;
    REQUIRE(sscanf(s.c_str(), "SESSION pid=%d sid=%d tty_nr=%ld", &pid, &sid, &tty_nr) == 3);
    CHECK(tty_nr == 0);
    for (int fd = 0; fd <= 2; fd++)
        CHECK(a.has("FD " + std::to_string(fd) + " tty=no"));
}

Attempts attempts_in(const std::string &text)
{
    Attempts a;
    for (auto &l : lines_of(text))
        if (l.rfind("ATTEMPT ", 0) == 0 || l.rfind("SESSION ", 0) == 0 || l.rfind("FD ", 0) == 0 ||
            l.rfind("INJECTED ", 0) == 0)
            a.lines.push_back(l);
    return a;
}

// What the probe says this machine and a tier do against the terminal.
struct TermProbe {
    bool seccomp = false, landlock_ioctl = false;
};

TermProbe term_probe(const std::string &tier)
{
    auto r = run({sandbox(), "--probe", "--tier", tier});
    TermProbe p;
    cJSON *j = cJSON_Parse(r.second.c_str());
    const cJSON *t = j ? cJSON_GetObjectItem(j, "terminal") : nullptr;
    if (t) {
        p.seccomp = cJSON_IsTrue(cJSON_GetObjectItem(t, "seccomp_tiocsti"));
        p.landlock_ioctl = cJSON_IsTrue(cJSON_GetObjectItem(t, "landlock_ioctl"));
    }
    cJSON_Delete(j);
    return p;
}

std::string legacy_tiocsti()
{
    std::string v = slurp("/proc/sys/dev/tty/legacy_tiocsti");
    return v.empty() ? "absent" : v.substr(0, 1);
}

} // namespace

TEST_CASE("the probe reports the terminal walls of each tier", "[tty]")
{
    for (const auto &tier : tiers()) {
        INFO(tier);
        auto r = run({sandbox(), "--probe", "--tier", tier});
        REQUIRE(r.first == 0);
        cJSON *j = cJSON_Parse(r.second.c_str());
        REQUIRE(j != nullptr);
        const cJSON *t = cJSON_GetObjectItem(j, "terminal");
        REQUIRE(cJSON_IsObject(t));
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(t, "own_session")));
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(t, "no_terminal_fds")));
        const cJSON *f = cJSON_GetObjectItem(j, "features");
        bool seccomp = cJSON_IsTrue(cJSON_GetObjectItem(f, "seccomp_tty"));
        bool ll = cJSON_IsTrue(cJSON_GetObjectItem(f, "landlock_ioctl"));
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(t, "seccomp_tiocsti")) == seccomp);
        // The minimal tier has no Landlock at all, so no device-ioctl wall either.
        CHECK(cJSON_IsTrue(cJSON_GetObjectItem(t, "landlock_ioctl")) == (ll && tier != "minimal"));
        // A kernel without the filter is named among what is missing.
        std::string missing = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "missing"));
        CHECK((missing.find("terminal ioctl filter") == std::string::npos) == seccomp);
        if (!seccomp)
            WARN("this kernel has no seccomp filter: TIOCSTI is refused only by the session");
        if (!ll)
            WARN("this kernel's Landlock has no device-ioctl right (ABI 5): one wall fewer");
        cJSON_Delete(j);
    }
}

TEST_CASE("a pack whose build pushes keystrokes into the terminal reaches neither the shell nor "
          "the files",
          "[tty]")
{
    TempDir t;
    chmod(t.path.c_str(), 0755);
    std::string marker = "/tmp/iolab-tty-marker-" + std::to_string(getpid()) + "-pack";
    unlink(marker.c_str());
    // The test pack that brings its own program, whose build command compiles the hostile
    // program, runs it (it pushes `touch MARKER` and a newline), and then builds the real
    // program, so that lint has nothing to say: what a stranger's pack would do.
    std::string pack = t / "evil-pack";
    REQUIRE(system(("cp -r '" + data("packs/own-program") + "' '" + pack + "'").c_str()) == 0);
    REQUIRE(system(("cp '" + source_dir() + "/tests/hostile/tiocsti.c' '" + pack + "/tools/'")
                       .c_str()) == 0);
    std::string script = "cc -o evil tiocsti.c && ./evil 'touch " + marker +
                         "\n'; cc -std=gnu17 -O2 \"$1\" \"$2\" -o \"$0\" slow-echo.c";
    cJSON *j = cJSON_Parse(slurp(pack + "/pack.json").c_str());
    REQUIRE(j);
    cJSON_DeleteItemFromObject(j, "$schema");
    cJSON *b = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "build"), 0);
    REQUIRE(b);
    cJSON_AddItemToArray(cJSON_GetObjectItem(b, "sources"), cJSON_CreateString("tools/tiocsti.c"));
    const char *cmd[] = {"sh", "-c", script.c_str(), "{out}", "-I{include}", "{sources}"};
    cJSON_AddItemToObject(b, "command", cJSON_CreateStringArray(cmd, 6));
    char *text = cJSON_Print(j);
    spit(pack + "/pack.json", text);
    free(text);
    cJSON_Delete(j);

    Shell sh(t);
    REQUIRE(sh.started());
    REQUIRE(sh.wait_for(PROMPT, 30));
    int code = sh.run_line("'" + bin("iolab") + "' lint '" + pack + "'", 180);
    std::string screen = sh.screen();
    INFO(screen);
    REQUIRE(code >= 0);
    // The build really ran the hostile program (lint shows the build's log)...
    Attempts a = attempts_in(screen);
    REQUIRE(a.has("INJECTED "));
    CHECK(code == 0);
    CHECK(screen.find("no problems") != std::string::npos);
    // ...and nothing reached the shell: no marker, and the prompt after lint is clean.
    CHECK(sh.pushed_input() == "");
    CHECK_FALSE(exists(marker));
    check_refused(a);
    unlink(marker.c_str());
}

TEST_CASE("a program run through iolab-sandbox from a terminal cannot type into it, in every tier",
          "[tty]")
{
    TempDir t;
    chmod(t.path.c_str(), 0755);
    std::string prog = hostile("tiocsti");
    Shell sh(t);
    REQUIRE(sh.started());
    REQUIRE(sh.wait_for(PROMPT, 30));
    for (const auto &tier : tiers()) {
        INFO("tier " << tier);
        std::string marker = "/tmp/iolab-tty-marker-" + std::to_string(getpid()) + "-" + tier;
        unlink(marker.c_str());
        std::string wd = t / ("wd-" + tier), out = t / ("out-" + tier);
        REQUIRE(mkdir(wd.c_str(), 0755) == 0);
        // stdin and stderr are the terminal; stdout goes to a file the test reads.
        int code = sh.run_line("'" + sandbox() + "' --tier " + tier + " --workdir '" + wd +
                                   "' -- '" + prog + "' $'touch " + marker + "\\n' > '" + out + "'",
                               60);
        INFO(sh.screen());
        REQUIRE(code == 0);
        CHECK(sh.pushed_input() == "");
        CHECK_FALSE(exists(marker));
        Attempts a = attempts_in(slurp(out));
        INFO(slurp(out));
        check_refused(a);
        // Landlock's device-ioctl right, where the tier and kernel have it, refuses even a
        // harmless ioctl on a device that is not a terminal; without it, that ioctl works.
        TermProbe p = term_probe(tier);
        if (p.landlock_ioctl)
            CHECK(a.line("ATTEMPT DEVIOCTL:") == "ATTEMPT DEVIOCTL:/dev/urandom fail EACCES");
        else
            CHECK(a.line("ATTEMPT DEVIOCTL:") == "ATTEMPT DEVIOCTL:/dev/urandom ok");
        // The one terminal a program can always reach, a pseudo-terminal of its own made its
        // controlling terminal: Landlock refuses to create it, or the filter refuses TIOCSTI.
        if (a.has("ATTEMPT open:own-pty-slave ok"))
            CHECK(a.line("ATTEMPT TIOCSTI:own-pty") == "ATTEMPT TIOCSTI:own-pty fail EPERM");
        unlink(marker.c_str());
    }

    // The control: the same program, outside the jail, as the same unprivileged uid. Where the
    // host allows TIOCSTI on a controlling terminal, the pushed line runs in the shell, as root:
    // the attack is real and the checks above would have seen it.
    std::string marker = "/tmp/iolab-tty-marker-" + std::to_string(getpid()) + "-control";
    unlink(marker.c_str());
    std::string out = t / "out-control";
    int code = sh.run_line("setpriv --reuid 65534 --regid 65534 --clear-groups '" + prog +
                               "' $'touch " + marker + "\\n' > '" + out + "'",
                           60);
    REQUIRE(code == 0);
    if (legacy_tiocsti() == "1") {
        bool ran = false;
        for (int i = 0; i < 300 && !(ran = exists(marker)); i++)
            usleep(100000);
        CHECK(ran);
        CHECK(attempts_in(slurp(out)).line("ATTEMPT TIOCSTI:/dev/tty ok") ==
              "ATTEMPT TIOCSTI:/dev/tty ok");
    } else {
        WARN("dev.tty.legacy_tiocsti is " << legacy_tiocsti()
                                          << ": the kernel itself refuses TIOCSTI here, so the "
                                             "control cannot show the attack");
    }
    sh.keys("C-u"); // what the control pushed without a newline
    unlink(marker.c_str());
}

TEST_CASE("a learner's program that pushes keystrokes when it runs reaches neither the shell nor "
          "the files",
          "[tty]")
{
    TempDir t;
    chmod(t.path.c_str(), 0755);
    std::string marker = "/tmp/iolab-tty-marker-" + std::to_string(getpid()) + "-exercise";
    unlink(marker.c_str());
    // The solution of an exercise, so that the check passes (and so surely ran the program),
    // with a constructor that tries, before main(), what the hostile program tries first. The
    // engine already started scenario programs in a session of their own before issue 26; this
    // guards that path, now walled twice (the launcher's session and the filter).
    std::string dir = t / "work";
    REQUIRE(mkdir(dir.c_str(), 0755) == 0);
    std::string src = slurp(source_dir() + "/lessons/exercises/zerocopy/sendfile/file-server.c");
    REQUIRE(!src.empty());
    src += "\n#include <fcntl.h>\n#include <sys/ioctl.h>\n"
           "__attribute__((constructor)) static void push_keys(void)\n{\n"
           "    static const char line[] = \"touch " +
           marker +
           "\\n\";\n"
           "    int fds[4] = {open(\"/dev/tty\", O_RDWR), 0, 1, 2};\n"
           "    for (int i = 0; i < 4; i++)\n"
           "        for (const char *p = line; *p; p++)\n"
           "            ioctl(fds[i], TIOCSTI, p);\n"
           "}\n";
    spit(dir + "/file-server.c", src);

    Shell sh(t);
    REQUIRE(sh.started());
    REQUIRE(sh.wait_for(PROMPT, 30));
    int code = sh.run_line("'" + bin("iolab") + "' check zerocopy/write-sendfile --dir '" + dir +
                               "' --seconds 2",
                           180);
    INFO(sh.screen());
    CHECK(code == 0);
    CHECK(sh.pushed_input() == "");
    CHECK_FALSE(exists(marker));
    unlink(marker.c_str());
}
