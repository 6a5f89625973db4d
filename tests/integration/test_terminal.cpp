// The TUI on terminals it cannot draw on: a real pseudo-terminal (forkpty), a TERM that curses
// knows but that cannot move the cursor, and one sentence instead of a blank screen.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace iolab_test;

namespace
{

// Runs iolab on a new pseudo-terminal with the given TERM and reads what it writes there, for
// at most a few seconds. Returns the exit status (-1 when it was still running and was killed).
std::pair<int, std::string> run_on_pty(const std::string &term, const std::string &state)
{
    int master = -1;
    struct winsize ws = {};
    ws.ws_row = 30;
    ws.ws_col = 100;
    pid_t pid = forkpty(&master, nullptr, nullptr, &ws);
    if (pid == 0) {
        setenv("TERM", term.c_str(), 1);
        setenv("XDG_STATE_HOME", state.c_str(), 1);
        setenv("HOME", state.c_str(), 1);
        std::string iolab = bin("iolab");
        execl(iolab.c_str(), "iolab", (char *)nullptr);
        _exit(127);
    }
    REQUIRE(pid > 0);
    std::string out;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < deadline) {
        struct pollfd p = {master, POLLIN, 0};
        if (poll(&p, 1, 100) <= 0)
            continue;
        char buf[4096];
        ssize_t n = read(master, buf, sizeof buf);
        if (n <= 0)
            break; // EIO: the child closed its side
        out.append(buf, (size_t)n);
    }
    // The pty reports EIO as the child closes its side, a moment before it can be reaped.
    int status = 0;
    pid_t r = 0;
    for (int i = 0; i < 100 && (r = waitpid(pid, &status, WNOHANG)) == 0; i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (r == 0) {
        kill(pid, SIGKILL); // our own child, by pid
        waitpid(pid, &status, 0);
        close(master);
        return {-1, out};
    }
    close(master);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

} // namespace

// Issue 21: on main TERM=dumb opened the TUI: a blank screen, and the footer left behind after
// quitting. It is now refused as an unknown TERM is, pointing to `iolab run`.
TEST_CASE("TERM=dumb is refused with one sentence that points to iolab run", "[terminal]")
{
    TempDir t;
    auto [code, out] = run_on_pty("dumb", t.path);
    CHECK(code == 1);
    CHECK(out.find("the terminal type 'dumb' cannot move the cursor") != std::string::npos);
    CHECK(out.find("iolab run") != std::string::npos);

    std::tie(code, out) = run_on_pty("no-such-terminal", t.path);
    CHECK(code == 1);
    CHECK(out.find("'no-such-terminal' is unknown to curses") != std::string::npos);
}
