// What the tests of the demo programs share: starting a server and learning its port from its
// "listening on 127.0.0.1:PORT" line, reading figures from a client's summary line, counting a
// server's children and threads in /proc, waiting (bounded) for a condition, and a file of the
// lessons' known bytes (make_file()).
#pragma once

#include "helpers.hpp"

extern "C" {
#include "lesson/lesson.h"
}

#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <dirent.h>
#include <fstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <vector>

namespace iolab_test
{

// A file of size bytes with the lessons' known content (lesson_file_byte()), which a client
// can verify byte for byte; returns its path.
inline std::string make_file(const TempDir &dir, const std::string &name, uint64_t size)
{
    std::string data(size, '\0');
    for (uint64_t i = 0; i < size; i++)
        data[i] = (char)lesson_file_byte(i);
    spit(dir / name, data);
    return dir / name;
}

// Starts a server and returns the port it printed in "listening on 127.0.0.1:PORT ...". The
// deadline is for a loaded machine: with four tests at once on 2 cores, file-server's first
// line once took more than 10 s.
inline int start_server(Child &c, const std::vector<std::string> &argv,
                        const std::vector<std::string> &env = {})
{
    c.start(argv, env);
    REQUIRE(c.read_until("\n", 30));
    const std::string &out = c.output();
    auto at = out.find("listening on 127.0.0.1:");
    REQUIRE(at != std::string::npos);
    return std::stoi(out.substr(at + 23));
}

// The value of key=NUMBER in a program's output (key at a line start or after a space), or -1.
inline long long field(const std::string &out, const std::string &key)
{
    for (size_t at = out.find(key + "="); at != std::string::npos; at = out.find(key + "=", at + 1))
        if (at == 0 || out[at - 1] == ' ' || out[at - 1] == '\n')
            return std::stoll(out.substr(at + key.size() + 1));
    return -1;
}

// Live (not zombie) children of pid, read from /proc/*/stat (the field after the state).
inline int count_children(pid_t pid)
{
    int n = 0;
    DIR *d = opendir("/proc");
    while (struct dirent *e = readdir(d)) {
        std::ifstream f(std::string("/proc/") + e->d_name + "/stat");
        std::string line;
        if (!std::getline(f, line))
            continue;
        auto close = line.rfind(')');
        char state;
        int ppid;
        if (close != std::string::npos &&
            sscanf(line.c_str() + close + 1, " %c %d", &state, &ppid) == 2 && ppid == pid &&
            state != 'Z')
            n++;
    }
    closedir(d);
    return n;
}

// Threads of pid (/proc/PID/status), or -1.
inline int count_threads(pid_t pid)
{
    std::ifstream f("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("Threads:", 0) == 0)
            return std::stoi(line.substr(8));
    return -1;
}

// Bytes the process has read through read-family calls (/proc/PID/io rchar), or -1.
inline long long read_bytes(pid_t pid)
{
    std::ifstream f("/proc/" + std::to_string(pid) + "/io");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("rchar:", 0) == 0)
            return std::stoll(line.substr(6));
    return -1;
}

// Polls cond for up to timeout_s; the wait is bounded, the assertion is on the outcome.
template <class F> bool eventually(F cond, double timeout_s = 5)
{
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (!cond()) {
        if (std::chrono::steady_clock::now() > deadline)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

// A wait status (Child::wait) that says the program exited with status 0.
inline bool exited_zero(int st)
{
    return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

} // namespace iolab_test
