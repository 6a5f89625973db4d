// The file-I/O demos (copy-file, read-sizes, page-cache) as a learner and the engine use them:
// real files in a temporary directory on the disk, real memfds read back through /proc, the
// counting shim with a real counter page, real signals. Sizes are a few MiB so every run is short.
#include <catch2/catch.hpp>

#include "counter_page.hpp"
#include "helpers.hpp"

extern "C" {
#include "iolab_counters.h"
#include "iolab_page.h"
}

#include <algorithm>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/mman.h>
#include <sys/statfs.h>

using namespace iolab_test;

namespace
{

const uint64_t kSize = 4u << 20; // bytes per copy or pass: 4 MiB

// The value of key=NUMBER on the first line that starts with `prefix`, or -1.
double field(const std::string &out, const std::string &prefix, const std::string &key)
{
    std::istringstream in(out);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind(prefix, 0) != 0)
            continue;
        for (size_t at = line.find(key + "="); at != std::string::npos;
             at = line.find(key + "=", at + 1))
            if (at == 0 || line[at - 1] == ' ')
                return std::stod(line.substr(at + key.size() + 1));
    }
    return -1;
}

// copy-file's source pattern, as the program writes it.
bool is_copy_pattern(const std::string &data)
{
    for (uint64_t at = 0; at < data.size(); at++)
        if ((unsigned char)data[at] != (unsigned char)((at * 2654435761u) >> 24 ^ at >> 12))
            return false;
    return true;
}

// The contents of the memfd named `name` that process pid holds, read through /proc.
std::string memfd_contents(pid_t pid, const std::string &name)
{
    std::string dir = "/proc/" + std::to_string(pid) + "/fd";
    DIR *d = opendir(dir.c_str());
    REQUIRE(d != nullptr);
    std::string found;
    while (struct dirent *e = readdir(d)) {
        char target[512];
        ssize_t n = readlink((dir + "/" + e->d_name).c_str(), target, sizeof target - 1);
        if (n > 0 && std::string(target, (size_t)n).find("memfd:" + name) != std::string::npos)
            found = dir + "/" + e->d_name;
    }
    closedir(d);
    REQUIRE(!found.empty());
    return slurp(found);
}

// The shared counter page, with the demos' published figures summed.
struct Page : CounterPage {
    uint64_t app(uint64_t iolab_app::*field) const
    {
        uint64_t v = 0;
        for (uint32_t i = 0; i < nslots; i++)
            if (const struct iolab_slot *s = iolab_page_slot(page, nslots, i))
                v += iolab_load(&(s->app.*field));
        return v;
    }
};

// Runs a demo under the shim to completion; returns {status, output} and fills the counts.
std::pair<int, std::string> run_counted(const std::vector<std::string> &argv,
                                        std::map<std::string, uint64_t> &calls,
                                        uint64_t *requests = nullptr)
{
    Page page;
    auto res = run(argv, page.env(), 60);
    calls = page.calls();
    if (requests)
        *requests = page.app(&iolab_app::requests);
    return res;
}

bool have_demos()
{
    for (const char *p : {"copy-file", "read-sizes", "page-cache"})
        if (access(demo(p).c_str(), X_OK) != 0)
            return false;
    return access(shim().c_str(), R_OK) == 0;
}

// Directory entries other than . and ..
std::vector<std::string> entries(const std::string &dir)
{
    std::vector<std::string> v;
    DIR *d = opendir(dir.c_str());
    while (struct dirent *e = d ? readdir(d) : nullptr)
        if (std::string(e->d_name) != "." && std::string(e->d_name) != "..")
            v.push_back(e->d_name);
    if (d)
        closedir(d);
    return v;
}

// A file of n bytes with no short period.
void write_data(const std::string &path, size_t n)
{
    std::string s(n, '\0');
    for (size_t i = 0; i < n; i++)
        s[i] = (char)((i * 131 + i / 4096) & 0xff);
    spit(path, s);
}

} // namespace

TEST_CASE("copy-file: every method copies the right bytes, into a memfd or a file",
          "[fileio][copy]")
{
    REQUIRE(have_demos());
    struct Case {
        std::string mode, to, buffer;
    };
    const std::vector<Case> cases = {
        {"read-write", "memfd", "4K"},   {"read-write", "file", "1M"}, {"sendfile", "memfd", ""},
        {"splice", "memfd", ""},         {"mmap", "memfd", ""},        {"sendfile", "file", ""},
        {"copy-file-range", "file", ""},
    };
    for (const auto &c : cases) {
        DYNAMIC_SECTION(c.mode << " into a " << c.to << (c.buffer.empty() ? "" : " buffer ")
                               << c.buffer)
        {
            TempDir dir;
            std::vector<std::string> argv = {demo("copy-file"), "--dir", dir.path, "--size", "4M",
                                             "--mode",          c.mode,  "--to",   c.to};
            if (!c.buffer.empty())
                argv.insert(argv.end(), {"--buffer", c.buffer});
            Child p;
            p.start(argv);
            // The first report comes after about a second of copies: the target is complete.
            REQUIRE(p.read_until("\nmode=" + c.mode, 20));
            std::string src = slurp(dir / "copy-file.src");
            REQUIRE(src.size() == kSize);
            CHECK(is_copy_pattern(src));
            std::string dst = c.to == "memfd" ? memfd_contents(p.pid(), "copy-file-target")
                                              : slurp(dir / "copy-file.dst");
            REQUIRE(dst.size() == kSize);
            CHECK(dst == src);
            int st = p.stop();
            INFO(p.output());
            REQUIRE(WIFEXITED(st));
            CHECK(WEXITSTATUS(st) == 0);
            CHECK(field(p.output(), "total: ", "copies") >= 1);
            CHECK(field(p.output(), "total: ", "errors") == 0);
            CHECK(entries(dir.path).empty()); // source and file target removed
        }
    }
}

TEST_CASE("copy-file: calls per copy as the lesson says, counted by the shim", "[fileio][copy]")
{
    REQUIRE(have_demos());
    TempDir dir;
    auto counted = [&](const std::vector<std::string> &extra, std::map<std::string, uint64_t> &c,
                       std::string &out) {
        std::vector<std::string> argv = {demo("copy-file"), "--dir", dir.path, "--size", "4M",
                                         "--rounds",        "3"};
        argv.insert(argv.end(), extra.begin(), extra.end());
        uint64_t requests = 0;
        auto res = run_counted(argv, c, &requests);
        out = res.second;
        INFO(out);
        REQUIRE(res.first == 0);
        CHECK(requests == 3); // published: one request per copy
    };
    std::map<std::string, uint64_t> c;
    std::string out;

    SECTION("read-write with a 4 KiB buffer: a read and a write per 4 KiB")
    {
        counted({"--mode", "read-write", "--buffer", "4K"}, c, out);
        CHECK(c["read"] == 3 * (kSize / 4096 + 1)); // + the read that returns 0
        CHECK(c["write"] == 3 * (kSize / 4096));    // a memfd takes every write whole
        CHECK(c["sendfile"] == 0);
        CHECK(field(out, "total: ", "calls_per_copy") == 2 * (kSize / 4096) + 1);
    }
    SECTION("read-write with 1 MiB: 256 times fewer calls than 4 KiB")
    {
        counted({"--mode", "read-write", "--buffer", "1M"}, c, out);
        CHECK(c["read"] == 3 * (kSize / (1 << 20) + 1));
        CHECK(c["write"] == 3 * (kSize / (1 << 20)));
    }
    SECTION("sendfile: one call per copy, no read or write")
    {
        counted({"--mode", "sendfile"}, c, out);
        CHECK(c["sendfile"] == 3);
        CHECK(c["read"] == 0);
        CHECK(c["write"] == 0);
    }
    SECTION("splice: two calls per pipe full, nothing through our memory")
    {
        counted({"--mode", "splice"}, c, out);
        CHECK(c["splice"] >= 3 * 2 * (kSize / (1 << 20)));
        CHECK(c["splice"] < 3 * 2 * (kSize / 4096));
        CHECK(c["read"] == 0);
        CHECK(c["write"] == 0);
    }
    SECTION("copy_file_range into a file: one call per copy")
    {
        counted({"--mode", "copy-file-range"}, c, out);
        CHECK(c["copy_file_range"] == 3);
        CHECK(c["read"] == 0);
        CHECK(c["write"] == 0);
    }
    SECTION("mmap: a mapping and one write per copy, and page faults")
    {
        counted({"--mode", "mmap"}, c, out);
        CHECK(c["mmap"] == 3 + 1); // + the mapping that fills the source at start
        CHECK(c["munmap"] == 3 + 1);
        CHECK(c["write"] == 3);
        CHECK(c["read"] == 0);
        CHECK(field(out, "total: ", "faults") >= 3);
    }
}

TEST_CASE("copy-file: copy_file_range into a memfd fails with EXDEV and says why", "[fileio][copy]")
{
    REQUIRE(have_demos());
    TempDir dir;
    std::map<std::string, uint64_t> c;
    auto res = run_counted({demo("copy-file"), "--dir", dir.path, "--size", "1M", "--mode",
                            "copy-file-range", "--to", "memfd", "--rounds", "1"},
                           c);
    INFO(res.second);
    CHECK(res.first == 1);
    CHECK(res.second.find("EXDEV") != std::string::npos);
    CHECK(res.second.find("only within one filesystem") != std::string::npos);
    CHECK(field(res.second, "total: ", "copies") == 0);
    CHECK(field(res.second, "total: ", "errors") == 1);
    CHECK(c["copy_file_range"] == 1); // the call was made, and failed

    // Left running, it keeps trying (the failed call stays visible) and stops cleanly.
    Child p;
    p.start({demo("copy-file"), "--dir", dir.path, "--size", "1M", "--mode", "copy-file-range",
             "--to", "memfd"});
    REQUIRE(p.read_until("EXDEV", 10));
    int st = p.stop();
    INFO(p.output());
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
    CHECK(p.output().find("total: mode=copy-file-range") != std::string::npos);
    CHECK(entries(dir.path).empty());
}

TEST_CASE("read-sizes: every mode reads the right bytes", "[fileio][stdio]")
{
    REQUIRE(have_demos());
    TempDir dir;
    const size_t n = 1000003; // not a multiple of any transfer size: the last one is short
    write_data(dir / "data.bin", n);
    std::string data = slurp(dir / "data.bin");
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (uint64_t)(unsigned char)data[i] * (i + 1);
    char want[64];
    snprintf(want, sizeof want, "check: rounds=2 sum=%016llx", (unsigned long long)(2 * sum));
    for (const char *mode : {"read", "fread", "fread-setvbuf", "aio"})
        for (const char *size : {"8", "4096", "65536"}) {
            auto res = run({demo("read-sizes"), "--file", dir / "data.bin", "--size", size,
                            "--mode", mode, "--rounds", "2", "--check"});
            INFO(mode << " " << size << ": " << res.second);
            CHECK(res.first == 0);
            CHECK(res.second.find(want) != std::string::npos);
            CHECK(field(res.second, "total: ", "bytes") == 2.0 * n);
        }
}

TEST_CASE("read-sizes: the shim sees read() but not the reads inside fread() and syscr sees both",
          "[fileio][stdio]")
{
    REQUIRE(have_demos());
    TempDir dir;
    const size_t n = 1 << 20;
    write_data(dir / "data.bin", n);
    std::map<std::string, uint64_t> c;
    auto argv = [&](const char *mode, const char *size) {
        return std::vector<std::string>{
            demo("read-sizes"), "--file", dir / "data.bin", "--size", size,
            "--mode",           mode,     "--rounds",       "1"};
    };

    auto res = run_counted(argv("read", "64"), c);
    INFO(res.second);
    REQUIRE(res.first == 0);
    CHECK(c["read"] == n / 64);                                     // one per transfer
    CHECK(field(res.second, "total: ", "syscr") >= (double)n / 64); // the kernel agrees

    res = run_counted(argv("fread", "64"), c);
    INFO(res.second);
    REQUIRE(res.first == 0);
    CHECK(c["read"] == 0); // glibc's read() inside fread() is not the program's call
    double syscr = field(res.second, "total: ", "syscr");
    CHECK(syscr >= (double)n / 65536); // but the kernel counts it: at least a read per buffer
    CHECK(syscr < (double)n / 64 / 8); // and far fewer than one per transfer

    res = run_counted(argv("fread-setvbuf", "64"), c);
    INFO(res.second);
    REQUIRE(res.first == 0);
    CHECK(c["read"] == 0);
    double syscr_big = field(res.second, "total: ", "syscr");
    CHECK(syscr_big >= (double)n / 65536);
    CHECK(syscr_big < syscr); // our 64 KiB buffer: fewer refills than the default one
}

TEST_CASE("read-sizes aio: glibc's helper thread does a pread() per transfer that only the "
          "kernel's syscr sees",
          "[fileio][stdio][aio]")
{
    REQUIRE(have_demos());
    TempDir dir;
    const size_t n = 1 << 20, size = 4096, transfers = n / size;
    write_data(dir / "data.bin", n);
    std::map<std::string, uint64_t> c;
    uint64_t rounds = 0;
    auto res = run_counted({demo("read-sizes"), "--file", dir / "data.bin", "--size",
                            std::to_string(size), "--mode", "aio", "--rounds", "3"},
                           c, &rounds);
    INFO(res.second);
    REQUIRE(res.first == 0);
    CHECK(rounds == 3); // published: one request per round
    CHECK(field(res.second, "total: ", "transfers") == 3.0 * transfers);
    // The kernel counts a read system call per transfer, as in read mode: the pread()s of the
    // helper thread count for the process (+ the program's own reads of /proc/self/io).
    double syscr = field(res.second, "total: ", "syscr");
    CHECK(syscr >= 3.0 * transfers);
    CHECK(syscr <= 3.0 * transfers + 8);
    // The shim sees none of them: glibc calls its own pread() and pthread_create() inside.
    // The program's own pread64s are its reads of /proc/self/io: two at least, a few at most.
    CHECK(c["read"] == 0);
    CHECK(c["pread64"] >= 2);
    CHECK(c["pread64"] < 8);
    CHECK(c["pthread_create"] == 0);
    CHECK(c["readv"] + c["preadv"] == 0);

    // And a real thread did them: while aio mode runs, the process has more than one.
    Child p;
    p.start({demo("read-sizes"), "--file", dir / "data.bin", "--size", "8", "--mode", "aio"});
    REQUIRE(p.read_until("\nmode=aio", 20));
    std::ifstream status("/proc/" + std::to_string(p.pid()) + "/status");
    std::string key;
    long threads = 0;
    while (status >> key)
        if (key == "Threads:")
            status >> threads;
    CHECK(threads >= 2);
    int st = p.stop();
    INFO(p.output());
    REQUIRE(WIFEXITED(st));
    CHECK(WEXITSTATUS(st) == 0);
    CHECK(p.output().find("total: mode=aio") != std::string::npos);
    CHECK(field(p.output(), "total: ", "bytes") > 0);
}

TEST_CASE("page-cache: cold really evicts, warm is all cached", "[fileio][pagecache]")
{
    REQUIRE(have_demos());
    TempDir dir;
    struct statfs fs;
    REQUIRE(statfs(dir.path.c_str(), &fs) == 0);
    if (fs.f_type == 0x01021994) // TMPFS_MAGIC: nothing can be evicted there
        FAIL("the temporary directory is on tmpfs; run the tests with TMPDIR on a disk");

    // The kernel's read_bytes (bytes fetched from storage) of a running process.
    auto read_bytes = [](pid_t pid) {
        std::ifstream in("/proc/" + std::to_string(pid) + "/io");
        std::string key;
        uint64_t v;
        while (in >> key >> v)
            if (key == "read_bytes:")
                return v;
        return (uint64_t)0;
    };
    for (const char *mode : {"cold", "warm"}) {
        DYNAMIC_SECTION(mode)
        {
            Child p;
            p.start({demo("page-cache"), "--dir", dir.path, "--size", "4M", "--mode", mode});
            REQUIRE(p.read_until("\nmode=", 20)); // about a second of passes
            uint64_t fetched = read_bytes(p.pid());
            int st = p.stop();
            INFO(p.output());
            REQUIRE(WIFEXITED(st));
            CHECK(WEXITSTATUS(st) == 0);
            double passes = field(p.output(), "total: ", "passes");
            double resident = field(p.output(), "total: ", "resident_pct");
            REQUIRE(passes >= 2);
            CHECK(field(p.output(), "total: ", "bytes") == passes * kSize);
            if (std::string(mode) == "cold") {
                CHECK(resident < 5); // mincore before each pass: dropped
                // Independent of the program's own figure: the kernel fetched the file from
                // storage again and again.
                CHECK(fetched >= 2 * kSize);
            } else {
                CHECK(resident > 95);
                CHECK(fetched < kSize); // at most one warm-up after the kernel reclaimed some
            }
            CHECK(entries(dir.path).empty());
        }
    }
}

TEST_CASE("file-I/O demos: SIGTERM prints the total and exits 0", "[fileio][signals]")
{
    REQUIRE(have_demos());
    TempDir dir;
    write_data(dir / "data.bin", 1 << 20);
    const std::vector<std::vector<std::string>> progs = {
        {demo("copy-file"), "--dir", dir.path, "--size", "4M", "--mode", "read-write"},
        {demo("read-sizes"), "--file", dir / "data.bin", "--size", "8", "--mode", "read"},
        {demo("read-sizes"), "--file", dir / "data.bin", "--size", "8", "--mode", "aio"},
        {demo("page-cache"), "--dir", dir.path, "--size", "4M", "--mode", "cold"},
    };
    for (const auto &argv : progs) {
        Child p;
        p.start(argv);
        REQUIRE(p.read_until("\n", 20)); // the start line: files created, loop running
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        int st = p.stop();
        INFO(p.output());
        REQUIRE(WIFEXITED(st));
        CHECK(WEXITSTATUS(st) == 0);
        CHECK(p.output().find("total: mode=") != std::string::npos);
        CHECK(field(p.output(), "total: ", "bytes") > 0);
    }
    CHECK(entries(dir.path) == std::vector<std::string>{"data.bin"});
}

TEST_CASE("file-I/O demos: bad arguments get one sentence and status 2", "[fileio][args]")
{
    REQUIRE(have_demos());
    TempDir dir;
    write_data(dir / "data.bin", 4096);
    struct Bad {
        std::vector<std::string> argv;
        std::string says;
    };
    const std::vector<Bad> bad = {
        {{demo("copy-file"), "--dir", dir.path, "--mode", "cp"}, "--mode must be read-write"},
        {{demo("copy-file"), "--mode", "sendfile"}, "--dir is required"},
        {{demo("copy-file"), "--dir", dir.path, "--mode", "sendfile", "--size", "0"},
         "--size wants a size"},
        {{demo("copy-file"), "--dir", dir.path, "--mode", "sendfile", "--to", "pipe"},
         "--to must be memfd or file"},
        {{demo("copy-file"), "--dir", dir / "missing", "--mode", "sendfile"}, "cannot be used"},
        {{demo("read-sizes"), "--file", dir / "data.bin", "--size", "8", "--mode", "mmap"},
         "--mode must be read, fread, fread-setvbuf or aio"},
        {{demo("read-sizes"), "--file", dir / "nothing", "--size", "8", "--mode", "read"},
         "must be a non-empty regular file"},
        {{demo("read-sizes"), "--file", dir / "data.bin", "--mode", "read"}, "--size is required"},
        {{demo("page-cache"), "--dir", dir.path, "--mode", "hot"}, "--mode must be cold or warm"},
        {{demo("page-cache"), "--dir", dir.path, "--mode", "cold", "--bogus"}, "unknown option"},
    };
    for (const auto &b : bad) {
        auto res = run(b.argv);
        INFO(b.argv[0] << " " << b.argv[1] << ": " << res.second);
        CHECK(res.first == 2);
        CHECK(res.second.find(b.says) != std::string::npos);
        CHECK(res.second.find("--help.") != std::string::npos);
        CHECK(std::count(res.second.begin(), res.second.end(), '\n') == 1);
    }
    struct statfs fs;
    if (statfs("/dev/shm", &fs) == 0 && fs.f_type == 0x01021994) {
        auto res = run({demo("page-cache"), "--dir", "/dev/shm", "--mode", "cold"});
        INFO(res.second);
        CHECK(res.first == 2);
        CHECK(res.second.find("tmpfs") != std::string::npos);
    }
    for (const char *p : {"copy-file", "read-sizes", "page-cache"}) {
        auto res = run({demo(p), "--help"});
        CHECK(res.first == 0);
        CHECK(res.second.rfind(std::string("usage: ") + p, 0) == 0);
    }
    CHECK(entries(dir.path) == std::vector<std::string>{"data.bin"});
}
