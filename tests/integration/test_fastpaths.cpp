// The fast paths of the demos and the production server beside them: the file server's event
// loop and io_uring modes, the echo server's io_uring mode and the figures it publishes about
// its ring (checked against strace), the build without liburing, nginx run by nginx-run (alone
// and inside iolab, leaving nothing behind), and the ipc proxy fed open descriptors by the cache.
// Real servers on 127.0.0.1 (port 0 where the program allows it), real clients (curl, wrk,
// file-client, echo-client), every run bounded.
#include <catch2/catch.hpp>

#include "counter_page.hpp"
#include "demo_helpers.hpp"
#include "helpers.hpp"
#include "sockets.hpp"

extern "C" {
#include "iolab_counters.h"
#include "lesson/lesson.h"
}

#include <arpa/inet.h>
#include <cJSON.h>
#include <dirent.h>
#include <fstream>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

using namespace iolab_test;

namespace
{

int connect_port(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
    return fd;
}

std::string read_all(int fd)
{
    std::string got;
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        got.append(buf, (size_t)n);
    return got;
}

// A free loopback port for a program that cannot pick its own (nginx).
int free_port()
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd, (struct sockaddr *)&sa, sizeof sa);
    socklen_t len = sizeof sa;
    getsockname(fd, (struct sockaddr *)&sa, &len);
    close(fd);
    return ntohs(sa.sin_port);
}

// Every live process whose command line mentions `text`.
std::vector<pid_t> processes_mentioning(const std::string &text)
{
    std::vector<pid_t> found;
    DIR *d = opendir("/proc");
    while (struct dirent *e = readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        std::string cmd = read_proc(std::string("/proc/") + e->d_name + "/cmdline");
        for (auto &ch : cmd)
            if (ch == '\0')
                ch = ' ';
        if (cmd.find(text) != std::string::npos)
            found.push_back(std::stoi(e->d_name));
    }
    closedir(d);
    return found;
}

bool have_nginx()
{
    return access("/usr/sbin/nginx", X_OK) == 0;
}

// The one-thread modes, as file-server's arguments: epoll (small files copied, larger ones by
// sendfile), epoll --copy (every file copied, as nginx with sendfile off) and io_uring.
const std::vector<std::vector<std::string>> fast_modes = {
    {"--mode", "epoll"}, {"--mode", "epoll", "--copy"}, {"--mode", "io_uring"}};

std::string joined(const std::vector<std::string> &words)
{
    std::string out;
    for (const auto &w : words)
        out += (out.empty() ? "" : " ") + w;
    return out;
}

// file-client downloading /f.bin `requests` times over `conns` connections, checking every byte
// against `file`: its exit status and output.
std::pair<int, std::string> download_verified(int port, const std::string &file, int conns,
                                              int requests)
{
    return run({demo("file-client"), "--port", std::to_string(port), "--path", "/f.bin",
                "--connections", std::to_string(conns), "--requests", std::to_string(requests),
                "--verify", file});
}

// file-server serving dir in one of fast_modes, on a port it picks.
std::vector<std::string> file_server(const std::string &dir, const std::vector<std::string> &mode)
{
    std::vector<std::string> argv = {demo("file-server"), "--port", "0", "--root", dir};
    argv.insert(argv.end(), mode.begin(), mode.end());
    return argv;
}

} // namespace

TEST_CASE("file-server's event loop and io_uring modes serve curl whole, with nginx-sized heads",
          "[fastpaths]")
{
    TempDir dir;
    std::string small = make_file(dir, "small.bin", 1024), mid = make_file(dir, "mid.bin", 20000),
                big = make_file(dir, "big.bin", 3 << 20);
    for (const auto &mode : fast_modes) {
        for (bool split : {false, true}) {
            DYNAMIC_SECTION(joined(mode) << (split ? " --split-head" : ""))
            {
                Child server;
                std::vector<std::string> argv = file_server(dir.path, mode);
                if (split)
                    argv.push_back("--split-head");
                int port = start_server(server, argv);
                std::string url = "http://127.0.0.1:" + std::to_string(port);
                for (const std::string name : {"small.bin", "mid.bin", "big.bin"}) {
                    std::string got = dir / "got", headers = dir / "headers";
                    // Two downloads of the same file on one connection: keep-alive works.
                    auto [code, out] = run({"/usr/bin/curl", "-sSv", "-o", got, "-o", got + "2",
                                            "-D", headers, url + "/" + name, url + "/" + name});
                    INFO(name << ": " << out);
                    CHECK(code == 0);
                    CHECK(out.find("Re-using existing connection") != std::string::npos);
                    CHECK(slurp(got) == slurp(dir / name));
                    CHECK(slurp(got + "2") == slurp(dir / name));
                    std::string h = slurp(headers);
                    CHECK(h.find("Last-Modified: ") != std::string::npos);
                    CHECK(h.find("ETag: ") != std::string::npos);
                }
                // The head is about nginx's (about 250 bytes for a file): count it as curl -sI.
                auto [hc, head] = run({"/usr/bin/curl", "-sI", url + "/small.bin"});
                CHECK(head.size() >= 200);
                CHECK(head.size() <= 320);
                auto [nc, nout] = run({"/usr/bin/curl", "-s", "-o", "/dev/null", "-w",
                                       "%{http_code}", url + "/missing"});
                CHECK(nout == "404");
                auto [mc, mout] = run({"/usr/bin/curl", "-s", "-X", "DELETE", "-o", "/dev/null",
                                       "-w", "%{http_code}", url + "/small.bin"});
                CHECK(mout == "405");
                auto [dc, dout] =
                    run({"/usr/bin/curl", "-s", "--path-as-is", "-o", "/dev/null", "-w",
                         "%{http_code}", url + "/../" + dir.path.substr(5) + "/small.bin"});
                CHECK(dout == "400");
                CHECK(exited_zero(server.stop()));
            }
        }
    }
}

TEST_CASE("pipelined requests in one packet get their answers in order", "[fastpaths]")
{
    TempDir dir;
    make_file(dir, "a.bin", 1000);
    make_file(dir, "b.bin", 100000);
    for (const auto &mode : fast_modes) {
        DYNAMIC_SECTION(joined(mode))
        {
            Child server;
            int port = start_server(server, file_server(dir.path, mode));
            int fd = connect_port(port);
            send_str(fd, "GET /a.bin HTTP/1.1\r\nHost: x\r\n\r\nGET /b.bin HTTP/1.1\r\nHost: "
                         "x\r\n\r\nHEAD /a.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            std::string got = read_all(fd);
            close(fd);
            std::string a = slurp(dir / "a.bin"), b = slurp(dir / "b.bin");
            size_t first = got.find("\r\n\r\n");
            REQUIRE(first != std::string::npos);
            CHECK(got.compare(first + 4, a.size(), a) == 0);
            size_t second = got.find("\r\n\r\n", first + 4 + a.size());
            REQUIRE(second != std::string::npos);
            CHECK(got.compare(second + 4, b.size(), b) == 0);
            size_t third = got.find("HTTP/1.1 200 OK", second + 4 + b.size());
            REQUIRE(third != std::string::npos);
            CHECK(got.find("Connection: close", third) != std::string::npos);
            CHECK(got.size() == got.find("\r\n\r\n", third) + 4); // HEAD: no body
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("slow readers get large files whole while others are served: partial sends resume",
          "[fastpaths]")
{
    REQUIRE(access("/usr/bin/wrk", X_OK) == 0);
    TempDir dir;
    const size_t size = 24 << 20;
    std::string file = make_file(dir, "big.bin", size);
    // Larger than a small file: with --copy its chunks pass through the buffer the slow readers'
    // chunks also use, so a slow reader's unsent bytes must be read again, not taken from it.
    make_file(dir, "mid.bin", 100000);
    for (const auto &mode : fast_modes) {
        DYNAMIC_SECTION(joined(mode))
        {
            Child server;
            int port = start_server(server, file_server(dir.path, mode));
            int fds[2];
            for (int &fd : fds) {
                fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
                int tiny = 4096; // a small receive window keeps every send short
                setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &tiny, sizeof tiny);
                struct sockaddr_in sa = {};
                sa.sin_family = AF_INET;
                sa.sin_port = htons((uint16_t)port);
                sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
                REQUIRE(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
                send_str(fd, "GET /big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            }
            // While both big replies wait for their readers, one thread serves everyone else.
            auto [code, out] = run({"/usr/bin/wrk", "-t1", "-c4", "-d1s",
                                    "http://127.0.0.1:" + std::to_string(port) + "/mid.bin"});
            CHECK(code == 0);
            CHECK(out.find("Non-2xx") == std::string::npos);
            CHECK(out.find("Socket errors") == std::string::npos);
            CHECK(out.find("requests in") != std::string::npos);
            std::string want = slurp(file);
            for (int fd : fds) {
                std::string got = read_all(fd);
                close(fd);
                auto body = got.find("\r\n\r\n");
                REQUIRE(body != std::string::npos);
                CHECK(got.size() - body - 4 == size);
                CHECK(got.compare(body + 4, std::string::npos, want) == 0);
            }
            CHECK(exited_zero(server.stop()));
        }
    }
}

// The bytes the kernel holds unsent on the server's side of connections to `port`, as ss shows
// them (its "notsent:" figure; -1 while it shows none).
static long unsent_bytes(int port)
{
    std::string filter = "( sport = :" + std::to_string(port) + " )";
    auto [code, out] = run({"/usr/bin/ss", "-tinH", "state", "established", filter});
    size_t at = out.find("notsent:");
    return code != 0 || at == std::string::npos ? -1 : std::stol(out.substr(at + 8));
}

TEST_CASE("file-server --unsent: a sendfile() mode hands the kernel at most that much of a "
          "file ahead of its reader, and readers who leave mid-download are let go",
          "[fastpaths]")
{
    TempDir dir;
    std::string f = make_file(dir, "f.bin", 8 << 20);
    for (const std::string mode : {"epoll", "io_uring"}) {
        for (int unlimited : {0, 1}) {
            DYNAMIC_SECTION(mode << (unlimited ? " --no-unsent-limit" : ""))
            {
                std::vector<std::string> argv = {"--mode", mode};
                if (unlimited)
                    argv.push_back("--no-unsent-limit");
                Child server;
                int port = start_server(server, file_server(dir.path, argv));
                // A reader that asks for 8 MiB and reads none of it: the kernel queues what the
                // server hands it, up to the limit (96 KiB, and one more packet), or without one
                // up to the send buffer, which grows to MiBs.
                int fd = connect_port(port);
                send_str(fd, "GET /f.bin HTTP/1.1\r\nHost: x\r\n\r\n");
                long want = unlimited ? 4 * 98304 : 65536, unsent = -1;
                auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
                while ((unsent = unsent_bytes(port)) < want &&
                       std::chrono::steady_clock::now() < deadline)
                    usleep(20000);
                INFO("unsent: " << unsent << " bytes");
                CHECK(unsent >= want);
                if (!unlimited)
                    for (int i = 0; i < 10; i++) // and it stays there while the reader sleeps
                        CHECK(unsent_bytes(port) <= 98304 + 65536);
                close(fd);
                // Readers that take a little and hang up while the server waits for room: each
                // connection is closed, and the server goes on serving whole files.
                for (int i = 0; i < 10; i++) {
                    int r = connect_port(port);
                    send_str(r, "GET /f.bin HTTP/1.1\r\nHost: x\r\n\r\n");
                    char buf[4096];
                    CHECK(read(r, buf, sizeof buf) > 0);
                    close(r);
                }
                auto [code, out] = download_verified(port, f, 4, 8);
                INFO(out);
                CHECK(code == 0);
                CHECK(field(out, "errors") == 0);
                CHECK(exited_zero(server.stop()));
            }
        }
    }
}

// A server in a child process that answers every request with the head of a 1 MiB response and
// 1000 bytes of it, then closes the connection. With `stays` it goes on taking connections and
// doing the same; without, it takes the next connection and exits without answering it, as a
// server being stopped does (an exiting process lets its connections go before its listening
// socket, which still takes connections for that moment). Its port goes to *port.
static pid_t cutting_server(bool stays, int *port)
{
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    REQUIRE(bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0);
    REQUIRE(listen(lfd, 16) == 0);
    REQUIRE(getsockname(lfd, (struct sockaddr *)&sa, &len) == 0);
    *port = ntohs(sa.sin_port);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid > 0) {
        close(lfd);
        return pid;
    }
    std::string reply =
        "HTTP/1.1 200 OK\r\nContent-Length: 1048576\r\n\r\n" + std::string(1000, 'x');
    for (int served = 0;; served++) {
        int c = accept(lfd, NULL, NULL);
        if (c < 0)
            _exit(1);
        if (served > 0 && !stays)
            _exit(0); // taken, never answered: the listener and c close as the process ends
        std::string req;
        char buf[4096];
        ssize_t n;
        while (req.find("\r\n\r\n") == std::string::npos && (n = read(c, buf, sizeof buf)) > 0)
            req.append(buf, (size_t)n);
        if (send(c, reply.data(), reply.size(), MSG_NOSIGNAL) < 0)
            _exit(1);
        close(c);
    }
}

TEST_CASE("file-client --whole says a download cut mid-response only when the server answers "
          "again, not when it was stopping",
          "[fastpaths]")
{
    for (bool stays : {true, false}) {
        DYNAMIC_SECTION((stays ? "a server that gives up mid-body and goes on serving"
                               : "a server that is stopping"))
        {
            int port = 0;
            pid_t server = cutting_server(stays, &port);
            auto [code, out] = run({demo("file-client"), "--port", std::to_string(port), "--path",
                                    "/f.bin", "--connections", "1", "--seconds", "1", "--whole"},
                                   {}, 30);
            kill(server, SIGKILL);
            waitpid(server, nullptr, 0);
            INFO(out);
            CHECK(field(out, "errors") >= 1); // the cut download counted either way
            bool said =
                out.find("the connection dropped after 1000 of 1048576 bytes") != std::string::npos;
            CHECK(said == stays);
        }
    }
}

TEST_CASE("file-client verifies every byte from the fast modes under load", "[fastpaths]")
{
    TempDir dir;
    std::string f = make_file(dir, "f.bin", 1 << 20);
    for (const auto &mode : fast_modes) {
        DYNAMIC_SECTION(joined(mode))
        {
            Child server;
            int port = start_server(server, file_server(dir.path, mode));
            auto [code, out] = download_verified(port, f, 8, 200);
            INFO(out);
            CHECK(code == 0);
            CHECK(field(out, "requests") == 200);
            CHECK(field(out, "errors") == 0);
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("epoll --copy sends every file from its own memory: preads and writevs, no sendfile",
          "[fastpaths]")
{
    TempDir dir;
    std::string f = make_file(dir, "f.bin", 1 << 20);
    for (bool copy : {false, true}) {
        DYNAMIC_SECTION((copy ? "epoll --copy" : "epoll"))
        {
            CounterPage page(64);
            std::vector<std::string> mode = {"--mode", "epoll"};
            if (copy)
                mode.push_back("--copy");
            Child server;
            int port = start_server(server, file_server(dir.path, mode), page.env(0));
            auto [code, out] = download_verified(port, f, 4, 40);
            INFO(out);
            REQUIRE(code == 0);
            CHECK(field(out, "errors") == 0);
            CHECK(exited_zero(server.stop()));
            auto calls = page.calls();
            if (copy) { // 1 MiB in 64 KiB preads: 16 a download, each chunk written from memory
                CHECK(calls["sendfile"] == 0);
                CHECK(calls["pread64"] >= 40 * 16);
                CHECK(calls["writev"] >= 40 * 16);
            } else { // the head by send, the body by sendfile: the file never enters the process
                CHECK(calls["sendfile"] >= 40);
                CHECK(calls["pread64"] == 0);
            }
        }
    }
    // --copy belongs to the epoll mode: elsewhere it is refused in one sentence.
    for (const char *other : {"read-send", "sendfile", "io_uring"}) {
        auto [code, out] =
            run({demo("file-server"), "--port", "0", "--root", dir.path, "--mode", other, "--copy"},
                {}, 5);
        INFO(other << ": " << out);
        CHECK(code == 2);
        CHECK(out.find("--copy applies to the epoll mode only") != std::string::npos);
        CHECK(std::count(out.begin(), out.end(), '\n') == 1);
    }
}

TEST_CASE("the io_uring modes publish their ring figures, and io_uring_enter agrees with strace",
          "[fastpaths][strace]")
{
    for (const std::string prog : {"echo-server", "file-server"}) {
        DYNAMIC_SECTION(prog)
        {
            TempDir dir, trace;
            // Up to 16 KiB a file goes all through the ring; a larger one by plain calls.
            std::string f = make_file(dir, "f.bin", 10000);
            CounterPage page(128);
            std::vector<std::string> argv = {"/usr/bin/strace",      "-f", "-qq",      "-e",
                                             "trace=io_uring_enter", "-o", trace / "t"};
            for (const auto &e : page.env(0)) {
                argv.push_back("-E");
                argv.push_back(e);
            }
            argv.push_back(demo(prog));
            for (const char *a : {"--port", "0", "--mode", "io_uring"})
                argv.push_back(a);
            if (prog == "file-server") {
                argv.push_back("--root");
                argv.push_back(dir.path);
            }
            Child server;
            int port = start_server(server, argv);
            std::pair<int, std::string> res =
                prog == "echo-server"
                    ? run({demo("echo-client"), "--port", std::to_string(port), "--connections",
                           "4", "--requests", "2000", "--size", "16"})
                    : download_verified(port, f, 4, 300);
            INFO(res.second);
            REQUIRE(res.first == 0);
            // Stop the traced server itself (strace passes the signal on and exits with it).
            auto server_pid = processes_mentioning(demo(prog) + " --port 0 --mode io_uring");
            for (pid_t p : server_pid)
                if (p != server.pid())
                    kill(p, SIGTERM);
            server.wait(30);
            uint64_t enters = 0, submissions = 0, completions = 0, requests = 0;
            for (uint32_t i = 0; i + 1 < page.nslots; i++)
                if (const struct iolab_slot *s = iolab_page_slot(page.page, page.nslots, i)) {
                    enters += iolab_load(&s->app.uring_enters);
                    submissions += iolab_load(&s->app.uring_submissions);
                    completions += iolab_load(&s->app.uring_completions);
                    requests += iolab_load(&s->app.requests);
                }
            std::string log = slurp(trace / "t");
            uint64_t traced_enters = 0;
            for (size_t at = log.find("io_uring_enter("); at != std::string::npos;
                 at = log.find("io_uring_enter(", at + 1))
                traced_enters++;
            // The last enter may be cut short by SIGTERM and not be counted by the demo (it
            // returned -EINTR after strace logged its start): at most one apart.
            CHECK(enters > 0);
            CHECK(enters <= traced_enters);
            CHECK(traced_enters <= enters + 1);
            CHECK(requests >= (prog == "echo-server" ? 2000u : 300u));
            // Every submission completed, but for the few still pending when SIGTERM came (a
            // multishot accept completes many times for one submission). How many enters a
            // request takes depends on how completions bunch up: the lesson shows it, a test
            // cannot assert it.
            CHECK(completions + 8 >= submissions);
            CHECK(submissions >= requests);
            // The shim itself saw no recv or send in the ring mode.
            auto calls = page.calls();
            CHECK(calls["recvfrom"] == 0);
            CHECK(calls["sendto"] == 0);
            CHECK(calls["write"] == 0);
        }
    }
}

TEST_CASE("built without liburing, the io_uring modes say so in one sentence and exit 1",
          "[fastpaths]")
{
    // The build-time option off, for real: the demos compiled without IOLAB_HAVE_LIBURING.
    TempDir out;
    std::string src = source_dir() + "/sandbox/demos";
    for (const std::string prog : {"echo-server", "file-server"}) {
        DYNAMIC_SECTION(prog)
        {
            auto [cc, ccout] =
                run({"/usr/bin/cc", "-std=gnu17", "-D_GNU_SOURCE", "-O0", "-Wall", "-Wextra",
                     "-Werror", "-I" + src, "-I" + source_dir() + "/sandbox/count", "-o",
                     out / prog, src + "/" + prog + ".c", src + "/demo.c", src + "/demo_uring.c",
                     "-pthread", "-lm"},
                    {}, 120);
            INFO(ccout);
            REQUIRE(cc == 0);
            std::vector<std::string> argv = {out / prog, "--port", "0", "--mode", "io_uring"};
            if (prog == "file-server") {
                argv.push_back("--root");
                argv.push_back(out.path);
            }
            auto [code, msg] = run(argv, {}, 20);
            CHECK(code == 1);
            CHECK(msg.find(prog + ": the io_uring mode is not in this build: liburing") !=
                  std::string::npos);
            // One sentence and never the ready line: a missing mode must not look ready.
            CHECK(std::count(msg.begin(), msg.end(), '\n') == 1);
            CHECK(msg.find("listening") == std::string::npos);
            // The other modes of the same build still work.
            std::vector<std::string> other = argv;
            other[4] = "epoll";
            Child server;
            int port = start_server(server, other);
            CHECK(port > 0);
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("nginx-run serves the files with nginx and stops it on SIGTERM", "[fastpaths][nginx]")
{
    // setup.sh --test installs nginx-light; a missing nginx is a broken set-up here.
    REQUIRE(have_nginx());
    TempDir dir;
    // Started by root, nginx reads the files as its worker user (nobody): let it.
    chmod(dir.path.c_str(), 0755);
    std::string f = make_file(dir, "f.bin", 300000);
    for (const char *mode : {"sendfile-off", "sendfile-on"}) {
        DYNAMIC_SECTION(mode)
        {
            int port = free_port();
            Child server;
            server.start({demo("nginx-run"), "--port", std::to_string(port), "--root", dir.path,
                          "--dir", dir.path, "--mode", mode});
            REQUIRE(server.read_until("listening on 127.0.0.1:" + std::to_string(port), 20));
            auto [code, out] = download_verified(port, f, 2, 50);
            INFO(out);
            CHECK(code == 0);
            CHECK(field(out, "errors") == 0);
            CHECK(slurp(dir / "nginx/nginx.conf").find(std::string("sendfile ") + (mode + 9)) !=
                  std::string::npos);
            CHECK(!processes_mentioning(dir.path + "/nginx/nginx.conf").empty());
            CHECK(exited_zero(server.stop()));
            // nginx's master and worker are gone with it.
            CHECK(eventually([&] { return processes_mentioning(dir / "nginx").empty(); }, 10));
        }
    }
    SECTION("a missing nginx is one sentence and status 1")
    {
        auto [code, out] =
            run({demo("nginx-run"), "--port", "1", "--root", dir.path, "--dir", dir.path, "--mode",
                 "sendfile-on", "--nginx", "/nonexistent/nginx"});
        CHECK(code == 1);
        CHECK(out == "nginx-run: --nginx /nonexistent/nginx is not a program we can run.\n");
    }
}

TEST_CASE("nginx beside the demo runs inside iolab and leaves nothing behind", "[fastpaths][nginx]")
{
    REQUIRE(have_nginx());
    TempDir tmp; // iolab's work directory goes under TMPDIR: ours, to look for leftovers
    auto [code, out] =
        run({bin("iolab"), "run", "zerocopy/nginx", "--pack", source_dir() + "/lessons", "--mode",
             "demo-epoll,nginx-sendfile-off,nginx-sendfile-on", "--seconds", "2", "--json"},
            {"TMPDIR=" + tmp.path}, 120);
    INFO(out);
    CHECK(code == 0);
    cJSON *doc = cJSON_Parse(out.c_str());
    REQUIRE(doc != nullptr);
    const cJSON *segs = cJSON_GetObjectItem(doc, "segments");
    if (!segs)
        segs = cJSON_GetObjectItem(doc, "modes");
    int served = 0;
    const cJSON *seg;
    cJSON_ArrayForEach(seg, segs)
    {
        const cJSON *procs = cJSON_GetObjectItem(seg, "processes"), *p;
        cJSON_ArrayForEach(p, procs)
        {
            const cJSON *app = cJSON_GetObjectItem(p, "app");
            const cJSON *role = cJSON_GetObjectItem(p, "role");
            if (app && role && cJSON_IsString(role) && !strcmp(role->valuestring, "client") &&
                cJSON_GetObjectItem(app, "requests")->valuedouble > 0 &&
                cJSON_GetObjectItem(app, "errors")->valuedouble == 0)
                served++;
        }
    }
    cJSON_Delete(doc);
    CHECK(served == 3); // every mode's client downloaded, without an error
    CHECK(processes_mentioning(tmp.path).empty());
    DIR *d = opendir(tmp.path.c_str());
    int left = 0;
    while (struct dirent *e = readdir(d))
        left += e->d_name[0] != '.';
    closedir(d);
    CHECK(left == 0);
}

TEST_CASE("the ipc proxy serves a verifying client from shared memory and from passed "
          "descriptors",
          "[fastpaths][ipc]")
{
    TempDir dir;
    std::string f = make_file(dir, "page.bin", 1 << 20);
    std::vector<std::string> env = {"IOLAB_SESSION=it-fastpaths-" + std::to_string(getpid())};
    Child cache;
    cache.start({demo("ipc-cache"), "--dir", dir.path, "--segments", "2", "--segment-size", "64K"},
                env);
    REQUIRE(cache.read_until("fd-socket=" + dir.path + "/ipc-cache.sock", 10));
    for (const char *via : {"shm", "fd-sendfile", "fd-splice"}) {
        DYNAMIC_SECTION(via)
        {
            int port = free_port();
            Child proxy;
            proxy.start({demo("ipc-proxy"), "--dir", dir.path, "--listen", std::to_string(port),
                         "--via", via},
                        env);
            REQUIRE(proxy.read_until("listening on 127.0.0.1:", 10));
            auto [code, out] =
                run({demo("file-client"), "--port", std::to_string(port), "--path", "/page.bin",
                     "--connections", "2", "--requests", "100", "--verify", f},
                    env);
            INFO(out);
            CHECK(code == 0);
            CHECK(field(out, "requests") == 100);
            CHECK(field(out, "errors") == 0);
            auto [nc, nout] = run({"/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                                   "http://127.0.0.1:" + std::to_string(port) + "/missing"});
            CHECK(nout == "404");
            CHECK(exited_zero(proxy.stop()));
        }
    }
    CHECK(exited_zero(cache.stop()));
    CHECK(access((dir / "ipc-cache.sock").c_str(), F_OK) != 0); // removed on SIGTERM
}

TEST_CASE("ipc-proxy refuses a descriptor mode without a client to send to", "[fastpaths][ipc]")
{
    auto [code, out] =
        run({demo("ipc-proxy"), "--dir", "/tmp", "--file", "x", "--via", "fd-sendfile"});
    CHECK(code == 2);
    CHECK(out.find("--via fd-sendfile needs --listen") != std::string::npos);
}
