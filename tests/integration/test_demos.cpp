// The demo programs as a learner and the engine use them: real servers on 127.0.0.1 (port 0, so
// the kernel picks a free one), real clients, real signals. Every run is bounded.
#include <catch2/catch.hpp>

#include "counter_page.hpp"
#include "demo_helpers.hpp"
#include "helpers.hpp"
#include "sockets.hpp"

extern "C" {
#include "lesson/lesson.h"
}

#include <algorithm>
#include <arpa/inet.h>
#include <dirent.h>
#include <fstream>
#include <netinet/in.h>
#include <sys/socket.h>

using namespace iolab_test;

namespace
{

int echo_server(Child &c, const std::string &mode, int port = 0,
                const std::vector<std::string> &extra = {})
{
    std::vector<std::string> argv = {demo("echo-server"), "--port", std::to_string(port), "--mode",
                                     mode};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return start_server(c, argv);
}

int file_server(Child &c, const std::string &root, const std::string &mode)
{
    return start_server(c, {demo("file-server"), "--port", "0", "--root", root, "--mode", mode});
}

std::string recv_n(int fd, size_t n)
{
    std::string got;
    char buf[65536];
    while (got.size() < n) {
        ssize_t r = read(fd, buf, std::min(sizeof buf, n - got.size()));
        if (r <= 0)
            break;
        got.append(buf, (size_t)r);
    }
    return got;
}

const char *const echo_modes[] = {"iterative", "epoll", "fork", "thread", "io_uring"};

} // namespace

TEST_CASE("every echo mode answers several concurrent clients with their own bytes", "[demos]")
{
    for (const char *mode : echo_modes) {
        DYNAMIC_SECTION(mode)
        {
            Child server;
            int port = echo_server(server, mode);
            // Three client processes at once; the iterative server takes them in turn.
            Child clients[3];
            for (auto &c : clients)
                c.start({demo("echo-client"), "--port", std::to_string(port), "--requests", "300",
                         "--size", "100"});
            for (auto &c : clients) {
                REQUIRE(exited_zero(c.wait(30)));
                CHECK(field(c.output(), "requests") == 300);
                CHECK(field(c.output(), "bytes") == 30000);
                CHECK(field(c.output(), "errors") == 0); // a wrong echo counts as an error
            }
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("echo-client --per-connection hangs up after K replies so an iterative server serves "
          "every connection in turn",
          "[demos]")
{
    // Counted, so the test sees the server's accepts the way a learner does.
    CounterPage page;
    Child server;
    int port = start_server(server, {demo("echo-server"), "--port", "0", "--mode", "iterative"},
                            page.env(0));
    Child client;
    client.start({demo("echo-client"), "--port", std::to_string(port), "--connections", "4",
                  "--per-connection", "10", "--requests", "200"});
    REQUIRE(exited_zero(client.wait(30)));
    CHECK(field(client.output(), "requests") == 200);
    CHECK(field(client.output(), "errors") == 0);
    CHECK(exited_zero(server.stop()));
    // 200 replies, 10 per connection: at least 20 connections accepted, one after another.
    CHECK(page.calls()["accept"] + page.calls()["accept4"] >= 20);
}

TEST_CASE("large messages come back whole: short writes are finished", "[demos]")
{
    for (const char *mode : echo_modes) {
        DYNAMIC_SECTION(mode)
        {
            Child server;
            int port = echo_server(server, mode);
            // 4 MB does not fit in the socket buffers: both sides must loop over short writes.
            auto [code, out] = run({demo("echo-client"), "--port", std::to_string(port),
                                    "--requests", "4", "--size", "4000000"},
                                   {}, 30);
            CHECK(code == 0);
            CHECK(field(out, "requests") == 4);
            CHECK(field(out, "errors") == 0);
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("plain echo returns bytes with no newline and --fib answers line by line", "[demos]")
{
    Child plain;
    int port = echo_server(plain, "epoll");
    int fd = tcp_connect(port);
    send_str(fd, "no newline here");
    CHECK(recv_n(fd, 15) == "no newline here");
    close(fd);

    for (const char *mode : {"epoll", "thread"}) {
        DYNAMIC_SECTION(mode)
        {
            Child fib;
            int fport = echo_server(fib, mode, 0, {"--fib", "20"});
            int f = tcp_connect(fport);
            send_str(f, "one\ntw"); // a line and a half: only the line is answered
            CHECK(recv_n(f, 4) == "one\n");
            send_str(f, "o\n");
            CHECK(recv_n(f, 3) == "two");
            close(f);
            auto [code, out] = run({demo("echo-client"), "--port", std::to_string(fport),
                                    "--connections", "4", "--requests", "200", "--fib"});
            CHECK(code == 0);
            CHECK(field(out, "requests") == 200);
            CHECK(field(out, "errors") == 0);
        }
    }
}

TEST_CASE("fork mode forks a child per connection and reaps it", "[demos]")
{
    Child server;
    int port = echo_server(server, "fork");
    std::vector<int> fds;
    for (int i = 0; i < 4; i++) {
        fds.push_back(tcp_connect(port));
        send_str(fds.back(), "x"); // answered only once a child serves the connection
        CHECK(recv_n(fds.back(), 1) == "x");
    }
    CHECK(count_children(server.pid()) == 4);
    for (int fd : fds)
        close(fd);
    CHECK(eventually([&] { return count_children(server.pid()) == 0; }));
    CHECK(exited_zero(server.stop()));
}

TEST_CASE("fork mode passes SIGTERM on to its children", "[demos]")
{
    Child server;
    int port = echo_server(server, "fork");
    int fd = tcp_connect(port);
    send_str(fd, "x");
    CHECK(recv_n(fd, 1) == "x");
    CHECK(exited_zero(server.stop()));
    char b;
    CHECK(read(fd, &b, 1) == 0); // the child closed the connection as it exited
    close(fd);
}

TEST_CASE("thread mode runs a thread per connection", "[demos]")
{
    Child server;
    int port = echo_server(server, "thread");
    int base = count_threads(server.pid());
    std::vector<int> fds;
    for (int i = 0; i < 4; i++) {
        fds.push_back(tcp_connect(port));
        send_str(fds.back(), "x");
        CHECK(recv_n(fds.back(), 1) == "x");
    }
    CHECK(count_threads(server.pid()) == base + 4);
    for (int fd : fds)
        close(fd);
    CHECK(eventually([&] { return count_threads(server.pid()) == base; }));
    CHECK(exited_zero(server.stop()));
}

TEST_CASE("echo-client keeps the load going across a server restart", "[demos]")
{
    Child first;
    int port = echo_server(first, "epoll");
    Child client;
    long long idle = read_bytes(first.pid()); // what it read to start (its libraries)
    // Stopped by the test once the second server has answered, however long that takes.
    client.start({demo("echo-client"), "--port", std::to_string(port), "--connections", "2",
                  "--seconds", "120"});
    REQUIRE(eventually([&] { return read_bytes(first.pid()) > idle; }, 30)); // it has echoed
    REQUIRE(exited_zero(first.stop()));
    std::this_thread::sleep_for(std::chrono::milliseconds(200)); // a gap the client runs into
    Child second;
    REQUIRE(echo_server(second, "thread", port) == port);
    long long idle2 = read_bytes(second.pid());
    // The client's two connections come back: one thread each, besides the main thread.
    CHECK(eventually([&] { return count_threads(second.pid()) == 3; }, 30));
    REQUIRE(eventually([&] { return read_bytes(second.pid()) > idle2; }, 30));
    REQUIRE(exited_zero(client.stop(10)));
    CHECK(field(client.output(), "errors") >= 2); // each lost connection counts
    CHECK(field(client.output(), "requests") > 0);
    CHECK(exited_zero(second.stop()));
}

TEST_CASE("SIGTERM ends every program with status 0 and clients print their summary", "[demos]")
{
    TempDir dir;
    make_file(dir, "f.bin", 1 << 20);
    for (const char *mode : echo_modes) {
        DYNAMIC_SECTION(std::string("echo ") + mode)
        {
            Child server, client;
            int port = echo_server(server, mode);
            client.start({demo("echo-client"), "--port", std::to_string(port)});
            // The client and the server are busy (no limit given) when the signals arrive.
            CHECK(eventually([&] { return count_threads(server.pid()) > 0; }));
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            int st = client.stop();
            CHECK(exited_zero(st));
            CHECK(field(client.output(), "requests") > 0);
            CHECK(field(client.output(), "p999_us") >= 0);
            CHECK(exited_zero(server.stop()));
        }
    }
    for (const char *mode : {"read-send", "sendfile", "epoll", "io_uring"}) {
        DYNAMIC_SECTION(std::string("file ") + mode)
        {
            Child server, client;
            int port = file_server(server, dir.path, mode);
            client.start({demo("file-client"), "--port", std::to_string(port), "--path", "/f.bin",
                          "--connections", "2"});
            std::this_thread::sleep_for(std::chrono::milliseconds(300));
            CHECK(exited_zero(client.stop()));
            CHECK(field(client.output(), "requests") > 0);
            CHECK(field(client.output(), "bytes_per_s") > 0);
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("fib-client --lull: once every client has its answer, no request for S seconds",
          "[demos]")
{
    // The test plays the server. One client: its first answer starts the lull, so its next
    // connection comes no sooner than 2 s later (a lower bound, which load only lengthens), and
    // after the lull the load goes on.
    int port = 0, lfd = test_listener(&port);
    Child client;
    client.start({demo("fib-client"), "--port", std::to_string(port), "--clients", "1", "--n", "10",
                  "--lull", "2"});
    auto answer = [&](int fd) {
        std::string req;
        char c;
        while (req.find('\n') == std::string::npos && recv(fd, &c, 1, 0) == 1)
            req += c;
        CHECK(req == "10\n");
        send_str(fd, "55\n");
    };
    int fd = test_accept(lfd);
    answer(fd);
    auto answered = std::chrono::steady_clock::now();
    close(fd);
    fd = test_accept(lfd);
    double gap = std::chrono::duration<double>(std::chrono::steady_clock::now() - answered).count();
    CHECK(gap >= 1.9);
    answer(fd);
    close(fd);
    close(test_accept(lfd)); // the load goes on after the lull
    CHECK(exited_zero(client.stop()));
    CHECK(field(client.output(), "requests") >= 2);
    close(lfd);
}

TEST_CASE("file-server serves curl: status, length, bytes, keep-alive, 404, ..", "[demos]")
{
    TempDir dir;
    std::string file = make_file(dir, "f.bin", 3 << 20);
    for (const char *mode : {"read-send", "sendfile", "epoll", "io_uring"}) {
        DYNAMIC_SECTION(mode)
        {
            Child server;
            int port = file_server(server, dir.path, mode);
            std::string url = "http://127.0.0.1:" + std::to_string(port);
            std::string got = dir / "got.bin", headers = dir / "headers.txt";
            auto [code, out] = run({"/usr/bin/curl", "-sS", "-o", got, "-D", headers, "-w",
                                    "%{http_code}", url + "/f.bin"});
            CHECK(code == 0);
            CHECK(out == "200");
            CHECK(slurp(headers).find("Content-Length: 3145728\r\n") != std::string::npos);
            CHECK(slurp(got) == slurp(file));

            // Two downloads, one connection.
            auto [kcode, kout] = run({"/usr/bin/curl", "-sSv", "-o", "/dev/null", "-o", "/dev/null",
                                      url + "/f.bin", url + "/f.bin"});
            CHECK(kcode == 0);
            CHECK(kout.find("Re-using existing connection") != std::string::npos);

            auto [ncode, nout] = run(
                {"/usr/bin/curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", url + "/missing"});
            CHECK(nout == "404");
            // curl would normalise "..", so send it as is; the server must not leave --root.
            auto [dcode, dout] =
                run({"/usr/bin/curl", "-s", "--path-as-is", "-o", "/dev/null", "-w", "%{http_code}",
                     url + "/../" + dir.path.substr(5) + "/f.bin"});
            CHECK(dout == "400");
            auto [mcode, mout] = run({"/usr/bin/curl", "-s", "-X", "DELETE", "-o", "/dev/null",
                                      "-w", "%{http_code}", url + "/f.bin"});
            CHECK(mout == "405");
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("file-server under wrk: keep-alive, only 2xx", "[demos]")
{
    // setup.sh installs wrk; its absence is a broken set-up, not a reason to pass quietly.
    REQUIRE(access("/usr/bin/wrk", X_OK) == 0);
    TempDir dir;
    make_file(dir, "f.bin", 65536);
    for (const char *mode : {"read-send", "sendfile", "epoll", "io_uring"}) {
        DYNAMIC_SECTION(mode)
        {
            Child server;
            int port = file_server(server, dir.path, mode);
            auto [code, out] = run({"/usr/bin/wrk", "-t1", "-c4", "-d1s",
                                    "http://127.0.0.1:" + std::to_string(port) + "/f.bin"});
            CHECK(code == 0);
            CHECK(out.find("requests in") != std::string::npos);
            CHECK(out.find("Non-2xx") == std::string::npos);
            CHECK(out.find("Socket errors") == std::string::npos);
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("a large file reaches a slow reader whole", "[demos]")
{
    TempDir dir;
    const size_t size = 24 << 20;
    std::string file = make_file(dir, "big.bin", size);
    for (const char *mode : {"read-send", "sendfile", "epoll", "io_uring"}) {
        DYNAMIC_SECTION(mode)
        {
            Child server;
            int port = file_server(server, dir.path, mode);
            int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            int small = 4096; // a small receive window keeps the server's sends short
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
            struct sockaddr_in sa = {};
            sa.sin_family = AF_INET;
            sa.sin_port = htons((uint16_t)port);
            sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            REQUIRE(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
            send_str(fd, "GET /big.bin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            std::this_thread::sleep_for(std::chrono::milliseconds(200)); // the server blocks
            std::string got;
            char buf[4096];
            ssize_t n;
            while ((n = read(fd, buf, sizeof buf)) > 0)
                got.append(buf, (size_t)n);
            close(fd);
            auto body = got.find("\r\n\r\n");
            REQUIRE(body != std::string::npos);
            CHECK(got.find("Content-Length: " + std::to_string(size)) != std::string::npos);
            CHECK(got.size() - body - 4 == size);
            CHECK(got.compare(body + 4, std::string::npos, slurp(file)) == 0);
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("file-client --verify passes a good file and catches a corrupted one", "[demos]")
{
    TempDir dir, ref;
    std::string served = make_file(dir, "f.bin", 1 << 20);
    std::string reference = make_file(ref, "f.bin", 1 << 20);
    Child server;
    int port = file_server(server, dir.path, "sendfile");
    std::vector<std::string> argv = {demo("file-client"),
                                     "--port",
                                     std::to_string(port),
                                     "--path",
                                     "/f.bin",
                                     "--connections",
                                     "2",
                                     "--requests",
                                     "20",
                                     "--verify",
                                     reference};
    auto [good, gout] = run(argv);
    CHECK(good == 0);
    CHECK(field(gout, "requests") == 20);
    CHECK(field(gout, "errors") == 0);

    // One byte in the middle of the served file changes; the length stays the same.
    {
        std::fstream f(served, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(500000);
        char c = (char)(lesson_file_byte(500000) ^ 0x01);
        f.write(&c, 1);
    }
    auto [bad, bout] = run(argv);
    CHECK(bad == 1);
    CHECK(field(bout, "errors") > 0);
    CHECK(bout.find("wrong") != std::string::npos);
    CHECK(exited_zero(server.stop()));
}

TEST_CASE("the help option prints usage and bad arguments get one sentence and status 2", "[demos]")
{
    const std::vector<std::vector<std::string>> bad = {
        {"echo-server", "--port", "0", "--mode", "turbo"},
        {"echo-server", "--mode", "epoll"},
        {"echo-server", "--port", "99999", "--mode", "epoll"},
        {"echo-server", "--port", "0", "--mode", "epoll", "--colour"},
        {"echo-client", "--port", "1", "--connections", "0"},
        {"echo-client", "--port", "1", "--requests", "5", "--seconds", "1"},
        {"echo-client", "--port", "1", "--host", "example.org"},
        {"file-server", "--port", "0", "--mode", "sendfile"},
        {"file-server", "--port", "0", "--root", "/nonexistent", "--mode", "sendfile"},
        {"file-client", "--port", "1", "--path", "nofirstslash"},
        {"file-client", "--port", "1", "--path", "/x", "--seconds", "-1"},
    };
    for (const auto &args : bad) {
        std::vector<std::string> argv = args;
        argv[0] = demo(args[0]);
        auto [code, out] = run(argv);
        INFO(out);
        CHECK(code == 2);
        CHECK(out.rfind(args[0] + ": ", 0) == 0);
        CHECK(std::count(out.begin(), out.end(), '\n') == 1);
    }
    for (const char *prog : {"echo-server", "echo-client", "file-server", "file-client"}) {
        auto [code, out] = run({demo(prog), "--help"});
        CHECK(code == 0);
        CHECK(out.rfind("usage: ", 0) == 0);
    }
}
