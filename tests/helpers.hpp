// Shared test helpers: where the built programs are, and real child processes with their output
// captured, started in their own process group and always stopped by pid (never by name).
#pragma once

#include <cerrno>
#include <cjson/cJSON.h>
#include <stdexcept>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <poll.h>
#include <string>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace iolab_test
{

inline std::string build_dir()
{
    return IOLAB_BUILD_DIR;
}
inline std::string source_dir()
{
    return IOLAB_SOURCE_DIR;
}
inline std::string bin(const std::string &name)
{
    return build_dir() + "/bin/" + name;
}
inline std::string demo(const std::string &name)
{
    return build_dir() + "/libexec/iolab/" + name;
}
inline std::string shim()
{
    return build_dir() + "/lib/iolab/libiolab-count.so";
}
inline std::string data(const std::string &rel)
{
    return source_dir() + "/tests/data/" + rel;
}

// A whole file's bytes ("" when it cannot be read), a file written with exactly these bytes, and
// these bytes added at a file's end (a learner's edit).
inline std::string slurp(const std::string &path)
{
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}
inline void spit(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}
inline void spit_append(const std::string &path, const std::string &text)
{
    std::ofstream(path, std::ios::binary | std::ios::app) << text;
}

// Every process below pid (children, theirs, ...), from each thread's /proc/PID/task/TID/children.
inline void descendants(pid_t pid, std::set<pid_t> &out)
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
inline std::set<pid_t> descendants(pid_t pid)
{
    std::set<pid_t> out;
    descendants(pid, out);
    return out;
}

// A temporary directory removed (recursively) when the object goes away.
struct TempDir {
    std::string path;
    TempDir()
    {
        char tmpl[] = "/tmp/iolab-test-XXXXXX";
        if (!mkdtemp(tmpl))
            throw std::runtime_error("mkdtemp failed");
        path = tmpl;
    }
    ~TempDir()
    {
        std::string cmd = "rm -rf '" + path + "'";
        if (system(cmd.c_str()) != 0) {
        }
    }
    std::string operator/(const std::string &name) const
    {
        return path + "/" + name;
    }
};

// A child process in its own process group, stdout and stderr merged into one pipe that the
// test reads with read_until()/read_all(). The destructor kills the group and reaps the child.
class Child
{
  public:
    Child() = default;
    Child(const Child &) = delete;
    Child &operator=(const Child &) = delete;

    // env entries are "NAME=value" added to (or replacing in) the test's own environment.
    void start(const std::vector<std::string> &argv, const std::vector<std::string> &env = {},
               const std::string &cwd = "")
    {
        int p[2];
        if (pipe2(p, O_CLOEXEC) < 0)
            throw std::runtime_error("pipe failed");
        pid_ = fork();
        if (pid_ < 0)
            throw std::runtime_error("fork failed");
        if (pid_ == 0) {
            setpgid(0, 0);
            dup2(p[1], 1);
            dup2(p[1], 2);
            int devnull = open("/dev/null", O_RDONLY);
            dup2(devnull, 0);
            if (!cwd.empty() && chdir(cwd.c_str()) < 0)
                _exit(126);
            for (const auto &e : env)
                putenv(strdup(e.c_str()));
            std::vector<char *> args;
            for (const auto &a : argv)
                args.push_back(const_cast<char *>(a.c_str()));
            args.push_back(nullptr);
            execv(args[0], args.data());
            dprintf(2, "exec %s: %s\n", args[0], strerror(errno));
            _exit(127);
        }
        setpgid(pid_, pid_);
        close(p[1]);
        fd_ = p[0];
    }

    pid_t pid() const
    {
        return pid_;
    }

    // Reads output until `needle` appears or the timeout passes; returns whether it appeared.
    bool read_until(const std::string &needle, double timeout_s = 10)
    {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        while (out_.find(needle) == std::string::npos) {
            auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            if (left.count() <= 0 || !pump((int)left.count()))
                return out_.find(needle) != std::string::npos;
        }
        return true;
    }

    // Waits for the child to exit (up to timeout), collecting all output; returns the wait
    // status, or -1 on timeout (the child is then still running).
    int wait(double timeout_s = 30)
    {
        auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
        for (;;) {
            int st;
            pid_t r = waitpid(pid_, &st, WNOHANG);
            if (r == pid_) {
                while (pump(50)) {
                }
                pid_ = -1;
                status_ = st;
                return st;
            }
            if (std::chrono::steady_clock::now() > deadline)
                return -1;
            if (!pump(20))
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
    }

    // SIGTERM, then SIGKILL after grace_s; returns the wait status.
    int stop(double grace_s = 5)
    {
        if (pid_ <= 0)
            return status_;
        kill(pid_, SIGTERM);
        int st = wait(grace_s);
        if (st == -1) {
            kill(-pid_, SIGKILL);
            st = wait(5);
        }
        return st;
    }

    const std::string &output() const
    {
        return out_;
    }

    ~Child()
    {
        if (pid_ > 0) {
            kill(-pid_, SIGKILL);
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        if (fd_ >= 0)
            close(fd_);
    }

  private:
    // Reads what is available within timeout_ms; false at end of output or on timeout.
    bool pump(int timeout_ms)
    {
        if (fd_ < 0)
            return false;
        struct pollfd pfd = {fd_, POLLIN, 0};
        if (poll(&pfd, 1, timeout_ms) <= 0)
            return false;
        char buf[4096];
        ssize_t n = read(fd_, buf, sizeof buf);
        if (n <= 0) {
            close(fd_);
            fd_ = -1;
            return false;
        }
        out_.append(buf, (size_t)n);
        return true;
    }

    pid_t pid_ = -1;
    int fd_ = -1;
    int status_ = 0;
    std::string out_;
};

// Runs a command to completion; returns {exit status or 128+signal, combined output}.
inline std::pair<int, std::string> run(const std::vector<std::string> &argv,
                                       const std::vector<std::string> &env = {},
                                       double timeout_s = 60)
{
    Child c;
    c.start(argv, env);
    int st = c.wait(timeout_s);
    if (st == -1)
        st = c.stop(1);
    int code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return {code, c.output()};
}

// A file of /proc (another process's cmdline, environ, stat...), read whole with read(2): ""
// when the process is gone, or went while it was read (ESRCH), never an exception, as an
// ifstream's rdbuf() throws then.
inline std::string read_proc(const std::string &path)
{
    std::string out;
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return out;
    char buf[4096];
    for (;;) {
        ssize_t n = read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        out.append(buf, (size_t)n);
    }
    close(fd);
    return out;
}

// A process is gone when /proc has no entry or only a zombie (no code runs any more).
inline bool gone(pid_t pid)
{
    std::string st = read_proc("/proc/" + std::to_string(pid) + "/stat");
    if (st.empty())
        return true;
    size_t paren = st.rfind(')');
    return paren != std::string::npos && paren + 2 < st.size() && st[paren + 2] == 'Z';
}

// The problems of an `iolab run --json` object, one a line ("" for a clean run).
inline std::string run_problems(const cJSON *j)
{
    std::string all;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(j, "problems")) all +=
        std::string(p->valuestring) + "\n";
    return all;
}

} // namespace iolab_test
