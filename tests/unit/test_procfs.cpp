// procfs: parsers on /proc files recorded on the project machine (tests/data/proc/).
#include "helpers.hpp"
#include <catch2/catch.hpp>

extern "C" {
#include "metrics/procfs.h"
}

#include <fstream>
#include <sstream>

using namespace iolab_test;

TEST_CASE("stat with a comm holding spaces and parentheses parses from the last parenthesis")
{
    std::string s = slurp(data("proc/4242/stat"));
    REQUIRE(!s.empty());
    struct procfs_stat st;
    REQUIRE(procfs_parse_stat(s.data(), s.size(), &st) == 0);
    CHECK(st.pid == 17642);
    CHECK(std::string(st.comm) == "a) (b c");
    CHECK(st.state == 'S');
    CHECK(st.ppid == 1);
    CHECK(st.utime == 8);
    CHECK(st.stime == 0);
    CHECK(st.cutime == 0);
    CHECK(st.num_threads == 2);
    CHECK(st.starttime == 84223);
    CHECK(st.rss_pages == 247);
}

TEST_CASE("stat that is cut short or not a stat line is rejected")
{
    const char *cut = "17642 (x) S 1 17593 3497";
    struct procfs_stat st;
    CHECK(procfs_parse_stat(cut, strlen(cut), &st) == -EINVAL);
    const char *junk = "hello";
    CHECK(procfs_parse_stat(junk, strlen(junk), &st) == -EINVAL);
}

TEST_CASE("status gives the parent, threads, memory and this task's context switches")
{
    std::string s = slurp(data("proc/4242/status"));
    struct procfs_status st;
    REQUIRE(procfs_parse_status(s.data(), s.size(), &st) == 0);
    CHECK(st.ppid == 1);
    CHECK(st.threads == 2);
    CHECK(st.vm_rss_kb == 1160);
    CHECK(st.ctx_voluntary == 1);
    CHECK(st.ctx_involuntary == 29);
}

TEST_CASE("a thread's status has its own context switches")
{
    std::string s = slurp(data("proc/4242/task/4243/status"));
    struct procfs_status st;
    REQUIRE(procfs_parse_status(s.data(), s.size(), &st) == 0);
    CHECK(st.ctx_voluntary == 1);
    CHECK(st.ctx_involuntary == 0);
}

TEST_CASE("io gives the kernel's read and write counts")
{
    std::string s = slurp(data("proc/4242/io"));
    struct procfs_io io;
    REQUIRE(procfs_parse_io(s.data(), s.size(), &io) == 0);
    CHECK(io.rchar == 3980);
    CHECK(io.wchar == 0);
    CHECK(io.syscr == 8);
    CHECK(io.syscw == 0);
    const char *junk = "nothing: here\n";
    CHECK(procfs_parse_io(junk, strlen(junk), &io) == -EINVAL);
}

TEST_CASE("procfs_read reads relative to a root directory, and again through a kept descriptor")
{
    int root = open(data("proc").c_str(), O_RDONLY | O_DIRECTORY);
    REQUIRE(root >= 0);
    char buf[256];
    ssize_t n = procfs_read(-1, root, "4242/io", buf, sizeof buf);
    REQUIRE(n > 0);
    CHECK(std::string(buf).find("syscr: 8") != std::string::npos);
    int fd = openat(root, "4242/io", O_RDONLY);
    CHECK(procfs_read(fd, -1, nullptr, buf, sizeof buf) == n);
    CHECK(procfs_read(fd, -1, nullptr, buf, sizeof buf) == n); // pread: no seek needed
    // A buffer too small truncates and stays NUL-terminated.
    CHECK(procfs_read(fd, -1, nullptr, buf, 6) == 5);
    CHECK(strlen(buf) == 5);
    CHECK(procfs_read(-1, root, "4242/missing", buf, sizeof buf) == -ENOENT);
    close(fd);
    close(root);
}

TEST_CASE("procfs_file_has finds a library in a process's maps, even across two reads")
{
    int root = open(data("proc").c_str(), O_RDONLY | O_DIRECTORY);
    REQUIRE(root >= 0);
    // Recorded from `cat` run with the shim preloaded (paths rewritten to /usr/local).
    CHECK(procfs_file_has(root, "4242/maps", "/libiolab-count.so") == 1);
    CHECK(procfs_file_has(root, "4242/maps", "/ld-linux") == 1);
    CHECK(procfs_file_has(root, "4242/maps", "/libnothing.so") == 0);
    CHECK(procfs_file_has(root, "4242/missing", "/ld-linux") == -ENOENT);
    CHECK(procfs_file_has(root, "4242/maps", "") == -EINVAL);
    close(root);

    // A needle that straddles the 4096-byte reads, and one at the very end.
    TempDir tmp;
    std::string text(4090, 'x');
    text += "/libiolab-count.so\n";
    text += std::string(10000, 'y') + "END";
    spit(tmp / "maps", text);
    int dir = open(tmp.path.c_str(), O_RDONLY | O_DIRECTORY);
    REQUIRE(dir >= 0);
    CHECK(procfs_file_has(dir, "maps", "/libiolab-count.so") == 1);
    CHECK(procfs_file_has(dir, "maps", "yyyEND") == 1);
    CHECK(procfs_file_has(dir, "maps", "xy") == 0);
    close(dir);
}
