// A terminal for one iolab, for tests outside test_tui.cpp: a private tmux server running
// `iolab ARGS` with its state under dir and extra environment, keys sent, the screen polled, and
// quit answered when the test is done. Stopped by its own socket, never by name.
#ifndef IOLAB_TEST_TMUX_HELPERS_HPP
#define IOLAB_TEST_TMUX_HELPERS_HPP

#include "helpers.hpp"

#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace iolab_test
{

class IolabTerm
{
  public:
    IolabTerm(const TempDir &dir, const std::string &args, const std::string &env = "",
              int cols = 160, int rows = 48)
        : sock_("iolab-term-" + std::to_string(getpid()) + "-" + std::to_string(counter()++))
    {
        std::ofstream(dir / "run.sh")
            << "export HOME='" + dir.path + "' XDG_STATE_HOME='" + (dir / "state") +
                   "' XDG_DATA_HOME='" + (dir / "data") + "' XDG_CACHE_HOME='" + (dir / "cache") +
                   "' TERM=xterm-256color " + env + "\n'" + bin("iolab") + "' " + args +
                   "\necho IOLAB-EXITED\nexec sleep 600\n";
        started_ = tmux({"-f", "/dev/null", "new-session", "-d", "-x", std::to_string(cols), "-y",
                         std::to_string(rows), "sh " + (dir / "run.sh")})
                       .first == 0;
    }
    ~IolabTerm()
    {
        tmux({"kill-server"});
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
    std::string screen()
    {
        return tmux({"capture-pane", "-p"}).second;
    }
    void keys(const std::string &k)
    {
        tmux({"send-keys", k});
    }
    bool wait_for(const std::string &what, double secs)
    {
        for (int i = 0; i < secs * 10; i++) {
            if (screen().find(what) != std::string::npos)
                return true;
            usleep(100000);
        }
        return false;
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
    bool started_ = false;
};

} // namespace iolab_test

#endif
