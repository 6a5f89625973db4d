// The one way tests drive iolab in a real terminal: a private tmux server (its own socket, stopped
// by that socket, never by name) whose pane runs `iolab ARGS` from dir, with HOME and the XDG
// directories under dir and extra environment (which may set another TERM). Keys by name or as
// literal text, the screen captured with or without its escapes, waits for a text or any
// predicate with a deadline, a status read from iolab.log, a resize, the pane's processes, and
// quit answered when the test is done. start() again runs a new iolab on the same state; launch()
// runs another command line in the pane (test_tty_trust.cpp's interactive shell).
#ifndef IOLAB_TEST_TMUX_HELPERS_HPP
#define IOLAB_TEST_TMUX_HELPERS_HPP

#include "helpers.hpp"

#include <chrono>
#include <functional>
#include <initializer_list>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace iolab_test
{

class IolabTerm
{
  public:
    // A terminal not started yet: start() runs iolab in it.
    IolabTerm()
        : sock_("iolab-term-" + std::to_string(getpid()) + "-" + std::to_string(counter()++))
    {
    }
    IolabTerm(const TempDir &dir, const std::string &args, const std::string &env = "",
              int cols = 160, int rows = 48)
        : IolabTerm()
    {
        start(dir.path, args, env, cols, rows);
    }
    IolabTerm(const IolabTerm &) = delete;
    IolabTerm &operator=(const IolabTerm &) = delete;
    ~IolabTerm()
    {
        tmux({"kill-server"});
    }

    // Runs iolab (a previous one on this terminal is killed with its server). The pane prints
    // "IOLAB-EXITED" when iolab ends, then waits, so the last screen stays readable.
    bool start(const std::string &dir, const std::string &args, const std::string &env = "",
               int cols = 160, int rows = 48)
    {
        home_ = dir;
        spit(dir + "/run.sh", "cd '" + dir + "'\nexport HOME='" + dir + "' XDG_STATE_HOME='" + dir +
                                  "/state' XDG_DATA_HOME='" + dir + "/data' XDG_CACHE_HOME='" +
                                  dir + "/cache' TERM=xterm-256color " + env + "\n" + before_ +
                                  "'" + bin(program_) + "' " + args + "\nst=$?\n" + after_ +
                                  "echo IOLAB-EXITED" + (with_status_ ? " $st" : "") +
                                  "\nexec sleep 600\n");
        return launch("sh '" + dir + "/run.sh'", cols, rows);
    }
    // For the next start(): another built program than iolab, and shell lines to run before it
    // and after it (where $st is its exit status), each ending in a newline.
    void program(const std::string &name)
    {
        program_ = name;
    }
    void around(const std::string &before, const std::string &after)
    {
        before_ = before;
        after_ = after;
    }
    // For the next start(): the last line says iolab's exit status too ("IOLAB-EXITED 0").
    void exit_status_shown()
    {
        with_status_ = true;
    }
    // Any command line in the pane instead of iolab (an interactive shell, say).
    bool launch(const std::string &cmd, int cols, int rows)
    {
        tmux({"kill-server"});
        auto r = tmux({"-f", "/dev/null", "new-session", "-d", "-x", std::to_string(cols), "-y",
                       std::to_string(rows), cmd});
        started_ = r.first == 0;
        if (!started_)
            last_ = r.second;
        return started_;
    }
    bool started() const
    {
        return started_;
    }
    std::pair<int, std::string> tmux(std::vector<std::string> args)
    {
        args.insert(args.begin(), {"/usr/bin/tmux", "-L", sock_});
        return run(args);
    }

    // The screen as text, or with its colours and attributes as escape sequences.
    std::string screen(bool escapes = false)
    {
        std::vector<std::string> a = {"capture-pane", "-p"};
        if (escapes)
            a.push_back("-e");
        if (history_ > 0)
            a.insert(a.end(), {"-S", "-" + std::to_string(history_)});
        return tmux(a).second;
    }
    // From now on screen() (and every wait) also holds up to `lines` lines scrolled off the top.
    void scrollback(int lines)
    {
        history_ = lines;
    }
    // The screen the last wait saw.
    const std::string &last() const
    {
        return last_;
    }

    // Each argument one tmux key name ("Enter", "C-c", "F5") or text; literal() sends bytes.
    void keys(const std::string &k)
    {
        tmux({"send-keys", k});
    }
    void keys(std::initializer_list<std::string> k)
    {
        keys(std::vector<std::string>(k));
    }
    void keys(const std::vector<std::string> &k)
    {
        std::vector<std::string> a = {"send-keys"};
        a.insert(a.end(), k.begin(), k.end());
        tmux(a);
    }
    void literal(const std::string &bytes)
    {
        tmux({"send-keys", "-l", bytes});
    }
    // An SGR mouse press and release at column x, row y (0-based), as a terminal sends them.
    void click(int x, int y)
    {
        std::string at = std::to_string(x + 1) + ";" + std::to_string(y + 1);
        literal("\x1b[<0;" + at + "M\x1b[<0;" + at + "m");
    }
    void resize(int cols, int rows)
    {
        tmux({"resize-window", "-x", std::to_string(cols), "-y", std::to_string(rows)});
    }

    // Polls the screen until pred holds or secs have passed; last() is the screen it last saw.
    bool wait_until(const std::function<bool(const std::string &)> &pred, double secs = 15,
                    bool escapes = false)
    {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
        do {
            last_ = screen(escapes);
            if (pred(last_))
                return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        } while (std::chrono::steady_clock::now() < deadline);
        return false;
    }
    bool wait_for(const std::string &what, double secs = 15)
    {
        return wait_until([&](const std::string &s) { return s.find(what) != std::string::npos; },
                          secs);
    }
    bool wait_gone(const std::string &what, double secs = 15)
    {
        return wait_until([&](const std::string &s) { return s.find(what) == std::string::npos; },
                          secs);
    }

    // iolab's log, where the TUI writes every status it shows: a status replaced on screen at
    // once (a build's, by the run it starts) is still there. True once a status line begins so.
    std::string log() const
    {
        return slurp(home_ + "/state/iolab/iolab.log");
    }
    bool status(const std::string &start, double secs = 90)
    {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
        do {
            if (log().find("status: " + start) != std::string::npos)
                return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        } while (std::chrono::steady_clock::now() < deadline);
        return false;
    }

    // The next status after the one the last call found that begins with `start` (a build's
    // "Build 2: ok" is found even when the run it starts replaced it on screen at once);
    // last_status() is that whole status.
    bool wait_status(const std::string &start, double secs = 60)
    {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(secs);
        const std::string key = " status: " + start;
        do {
            std::string text = log();
            size_t at = text.find(key, log_seen_);
            if (at != std::string::npos) {
                size_t end = text.find('\n', at);
                status_ = text.substr(at + 9, end == std::string::npos ? end : end - at - 9);
                log_seen_ = end == std::string::npos ? text.size() : end;
                return true;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        } while (std::chrono::steady_clock::now() < deadline);
        return false;
    }
    const std::string &last_status() const
    {
        return status_;
    }

    // A tmux format about the pane ("#{pane_title}", "#{alternate_on}"), its first line.
    std::string format(const std::string &f)
    {
        std::string s = tmux({"display-message", "-p", f}).second;
        return s.substr(0, s.find('\n'));
    }

    // Every process below the pane's shell (iolab, its jails and programs).
    pid_t pane_pid()
    {
        return atoi(format("#{pane_pid}").c_str());
    }
    std::set<pid_t> processes()
    {
        pid_t p = pane_pid();
        std::set<pid_t> out;
        if (p > 0)
            descendants(p, out);
        return out;
    }

    // q, and y if iolab asks; true when iolab has exited.
    bool quit()
    {
        keys("q");
        if (wait_for("quit?", 5))
            keys("y");
        return wait_for("IOLAB-EXITED", 15);
    }

  private:
    static int &counter()
    {
        static int n;
        return n;
    }
    std::string sock_;
    std::string home_, program_ = "iolab", before_, after_;
    std::string last_, status_;
    size_t log_seen_ = 0;
    int history_ = 0;
    bool started_ = false, with_status_ = false;
};

} // namespace iolab_test

#endif
