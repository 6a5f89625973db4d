// upload-server and upload-client as the upload lesson runs them: real servers on 127.0.0.1
// (port 0, so the kernel picks a free one), real uploads, real signals. The test checks the
// replies with its own checksum, written from the protocol comment in upload.h, so a server
// that drops, doubles or reorders a chunk fails here. Every run is bounded (well under 10 s).
#include <catch2/catch.hpp>

#include "demo_helpers.hpp"
#include "helpers.hpp"
#include "sockets.hpp"

#include <algorithm>
#include <dirent.h>
#include <endian.h>
#include <fstream>
#include <poll.h>
#include <sys/socket.h>

using namespace iolab_test;

namespace
{

// The modes that read several uploads at once (the interleaved test needs that), and all of them.
const char *const upload_modes[] = {"epoll", "fork", "thread"};
const char *const every_mode[] = {"epoll-whole", "epoll", "fork", "thread"};

int upload_server(Child &c, const std::string &mode, int port = 0)
{
    c.start(
        {demo("upload-server"), "--port", std::to_string(port), "--mode", mode, "--work-us", "20"});
    REQUIRE(c.read_until("\n", 10));
    const std::string &out = c.output();
    auto at = out.find("listening on 127.0.0.1:");
    REQUIRE(at != std::string::npos);
    CHECK(out.find("mode=" + mode) != std::string::npos);
    return std::stoi(out.substr(at + 23));
}

// upload.h's checksum: little-endian 64-bit words (the last one zero-padded), a += w, b += a,
// then a ^ rotl(b, 1).
uint64_t checksum(const std::string &data)
{
    uint64_t a = 0, b = 0;
    for (size_t i = 0; i < data.size(); i += 8) {
        uint64_t w = 0;
        for (size_t k = 0; k < 8 && i + k < data.size(); k++)
            w |= (uint64_t)(uint8_t)data[i + k] << (8 * k);
        a += w;
        b += a;
    }
    return a ^ (b << 1 | b >> 63);
}

std::string header(uint64_t size)
{
    uint64_t be = htobe64(size);
    return std::string((const char *)&be, 8);
}

std::string random_bytes(size_t n, unsigned seed)
{
    std::string s(n, '\0');
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (auto &c : s) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        c = (char)x;
    }
    return s;
}

void send_all(int fd, const std::string &s)
{
    for (size_t off = 0; off < s.size();) {
        ssize_t n = send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
        REQUIRE(n > 0);
        off += (size_t)n;
    }
}

// Reads the 16-byte reply: {bytes, checksum}; {-1, 0} when the server closed without one.
std::pair<int64_t, uint64_t> read_reply(int fd)
{
    uint8_t r[16];
    size_t got = 0;
    while (got < sizeof r) {
        ssize_t n = read(fd, r + got, sizeof r - got);
        if (n <= 0)
            return {-1, 0};
        got += (size_t)n;
    }
    uint64_t v[2];
    memcpy(v, r, sizeof v);
    return {(int64_t)be64toh(v[0]), be64toh(v[1])};
}

// Bytes the process has read so far (/proc/PID/io rchar: every read() counts, sockets too).
long long proc_rchar(pid_t pid)
{
    std::ifstream f("/proc/" + std::to_string(pid) + "/io");
    std::string line;
    while (std::getline(f, line))
        if (line.rfind("rchar:", 0) == 0)
            return std::stoll(line.substr(6));
    return -1;
}

// Bytes received but not yet read by the server on the server's end of the connection fd
// (rx_queue in /proc/net/tcp; a connection still in the listen backlog has one too), or -1.
long long server_rx_queue(int server_port, int fd)
{
    struct sockaddr_in me = {};
    socklen_t len = sizeof me;
    getsockname(fd, (struct sockaddr *)&me, &len);
    std::ifstream f("/proc/net/tcp");
    std::string line;
    std::getline(f, line); // the column titles
    while (std::getline(f, line)) {
        unsigned lport, rport, tx, rx;
        if (sscanf(line.c_str(), " %*d: %*x:%x %*x:%x %*x %x:%x", &lport, &rport, &tx, &rx) == 4 &&
            (int)lport == server_port && rport == ntohs(me.sin_port))
            return rx;
    }
    return -1;
}

} // namespace

TEST_CASE("every mode returns the right count and checksum to concurrent uploads", "[upload]")
{
    for (const char *mode : upload_modes) {
        SECTION(mode)
        {
            Child server;
            int port = upload_server(server, mode);
            // Three uploads open at once, interleaved, with sizes that are not multiples of 8
            // or of 64 KiB, so that a chunk or word boundary handled wrongly shows.
            const size_t sizes[] = {1, 200003, 1048583};
            std::vector<std::string> data;
            std::vector<int> fds;
            for (size_t i = 0; i < 3; i++) {
                data.push_back(random_bytes(sizes[i], (unsigned)i + 1));
                fds.push_back(tcp_connect(port));
                send_all(fds[i], header(sizes[i]) + data[i].substr(0, sizes[i] / 2));
            }
            for (size_t i = 0; i < 3; i++)
                send_all(fds[i], data[i].substr(sizes[i] / 2));
            for (size_t i = 0; i < 3; i++) {
                auto reply = read_reply(fds[i]);
                CHECK(reply.first == (int64_t)sizes[i]);
                CHECK(reply.second == checksum(data[i]));
                close(fds[i]);
            }

            // And the real client: four uploaders, twelve uploads, all confirmed.
            auto [code, out] = run({demo("upload-client"), "--port", std::to_string(port),
                                    "--clients", "4", "--size", "3M", "--uploads", "12"},
                                   {}, 20);
            CHECK(code == 0);
            CHECK(field(out, "requests") == 12);
            CHECK(field(out, "bytes") == 12ll * 3 * 1024 * 1024);
            CHECK(field(out, "errors") == 0);

            // Headers in three pieces with pauses between them: every mode collects them.
            auto [pcode, pout] =
                run({demo("upload-client"), "--port", std::to_string(port), "--clients", "4",
                     "--size", "1M", "--uploads", "8", "--split-header", "20"},
                    {}, 20);
            INFO(pout);
            CHECK(pcode == 0);
            CHECK(field(pout, "requests") == 8);
            CHECK(field(pout, "errors") == 0);
            CHECK(pout.find("failed") == std::string::npos);
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("upload-client splits the header when asked and names a failed upload and its bytes",
          "[upload]")
{
    int port = 0, lfd = test_listener(&port);
    Child client;
    client.start({demo("upload-client"), "--port", std::to_string(port), "--size", "1M",
                  "--split-header", "300", "--seconds", "60"});
    // The first piece comes alone: the next is 300 ms away.
    int fd = test_accept(lfd);
    char head[8];
    REQUIRE(recv(fd, head, sizeof head, 0) == 3);
    CHECK(std::string(head, 3) == header(1 << 20).substr(0, 3));
    // A server that took those 3 bytes for the header: a size of 0, answered at once.
    send_str(fd, std::string(8, '\0') + std::string(8, '\0'));
    close(fd);
    REQUIRE(client.read_until("failed", 10));
    REQUIRE(client.read_until("\n", 10));
    CHECK(client.output().find("upload 1 failed: the server's reply counts 0 bytes, 1048576 were "
                               "to come; it answered after ") != std::string::npos);

    // A server that reads the header and part of the data, then hangs up without a reply.
    fd = test_accept(lfd);
    std::string got;
    char buf[65536];
    while (got.size() < 8 + 1000) {
        ssize_t n = recv(fd, buf, sizeof buf, 0);
        REQUIRE(n > 0);
        got.append(buf, (size_t)n);
    }
    CHECK(got.substr(0, 8) == header(1 << 20));
    close(fd);
    REQUIRE(client.read_until("upload 2 failed: ", 10));
    REQUIRE(client.read_until("\n", 10));
    std::string out = client.output();
    std::string line = out.substr(out.find("upload 2 failed: "));
    INFO(line);
    CHECK((line.find("the server closed the connection without a reply after ") !=
               std::string::npos ||
           line.find("the server closed the connection after all 1048584 bytes") !=
               std::string::npos));
    CHECK(exited_zero(client.stop(10)));
    close(lfd);
}

TEST_CASE("an upload cut short gets no reply and the server carries on", "[upload]")
{
    for (const char *mode : every_mode) {
        SECTION(mode)
        {
            Child server;
            int port = upload_server(server, mode);
            int fd = tcp_connect(port);
            send_all(fd, header(100000) + std::string(5000, 'x'));
            shutdown(fd, SHUT_WR);
            CHECK(read_reply(fd).first == -1);
            close(fd);
            fd = tcp_connect(port);
            send_all(fd, header(5) + "hello");
            auto reply = read_reply(fd);
            CHECK(reply.first == 5);
            CHECK(reply.second == checksum("hello"));
            close(fd);
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("a SIGTERM just after an upload's child exits still ends the fork server", "[upload]")
{
    // The child that answered exits as the test sends SIGTERM, so the server's SIGCHLD and the
    // SIGTERM land close together. A SIGTERM taken between the loop's check of its stop flag and
    // accept() would leave accept() asleep until killed (seen once in about 20 tries under
    // load). Every one of these stops must be a clean exit.
    for (int i = 0; i < 60; i++) {
        Child server;
        int port = upload_server(server, "fork");
        int fd = tcp_connect(port);
        send_all(fd, header(5) + "hello");
        auto reply = read_reply(fd);
        REQUIRE(reply.first == 5);
        close(fd);
        INFO("stop " << i + 1 << " of 60");
        REQUIRE(exited_zero(server.stop()));
    }
}

TEST_CASE("epoll-whole leaves a second upload unread until the first is complete, epoll does not",
          "[upload]")
{
    // Upload A is started (the server has read its first bytes) but not complete; upload B is
    // then sent in full. The seed's first server stays inside A, so B's bytes sit unread in the
    // kernel and B is answered only after A; the per-chunk epoll server answers B while A is
    // still open. Both replies carry the right count and checksum either way.
    for (const std::string mode : {"epoll-whole", "epoll"}) {
        SECTION(mode)
        {
            Child server;
            int port = upload_server(server, mode);
            long long base = proc_rchar(server.pid());
            const std::string a = random_bytes(300001, 7), b = random_bytes(20003, 8);
            int fa = tcp_connect(port);
            send_all(fa, header(a.size()) + a.substr(0, 1000));
            REQUIRE(eventually([&] { return proc_rchar(server.pid()) - base == 8 + 1000; }));
            int fb = tcp_connect(port);
            send_all(fb, header(b.size()) + b);
            if (mode == "epoll-whole") {
                CHECK(eventually([&] { return server_rx_queue(port, fb) == 8 + 20003; }));
                uint8_t byte;
                CHECK(recv(fb, &byte, 1, MSG_DONTWAIT | MSG_PEEK) == -1); // no reply for B yet
                CHECK(errno == EAGAIN);
                CHECK(proc_rchar(server.pid()) - base == 8 + 1000); // nothing of B was read
                send_all(fa, a.substr(1000));
                auto ra = read_reply(fa);
                CHECK(ra.first == (int64_t)a.size());
                CHECK(ra.second == checksum(a));
                auto rb = read_reply(fb); // only now does the server turn to B
                CHECK(rb.first == (int64_t)b.size());
                CHECK(rb.second == checksum(b));
            } else {
                auto rb = read_reply(fb); // answered while A is still incomplete
                CHECK(rb.first == (int64_t)b.size());
                CHECK(rb.second == checksum(b));
                send_all(fa, a.substr(1000));
                auto ra = read_reply(fa);
                CHECK(ra.first == (int64_t)a.size());
                CHECK(ra.second == checksum(a));
            }
            close(fa);
            close(fb);

            // Two real uploaders against the same server: every upload confirmed, none lost
            // while it waited for the other.
            auto [code, out] = run({demo("upload-client"), "--port", std::to_string(port),
                                    "--clients", "2", "--size", "2M", "--uploads", "8"},
                                   {}, 20);
            CHECK(code == 0);
            CHECK(field(out, "requests") == 8);
            CHECK(field(out, "bytes") == 8ll * 2 * 1024 * 1024);
            CHECK(field(out, "errors") == 0);
            CHECK(exited_zero(server.stop()));
        }
    }
}

TEST_CASE("fork mode serves each upload in its own child, thread mode in its own thread",
          "[upload]")
{
    Child forker;
    int port = upload_server(forker, "fork");
    std::vector<int> fds;
    for (int i = 0; i < 3; i++) {
        fds.push_back(tcp_connect(port));
        send_all(fds.back(), header(1 << 20) + std::string(1000, 'a'));
    }
    CHECK(eventually([&] { return count_children(forker.pid()) == 3; }));
    for (int fd : fds) {
        send_all(fd, std::string((1 << 20) - 1000, 'a'));
        CHECK(read_reply(fd).first == 1 << 20);
        close(fd);
    }
    CHECK(eventually([&] { return count_children(forker.pid()) == 0; }));
    CHECK(exited_zero(forker.stop()));

    Child threads;
    port = upload_server(threads, "thread");
    int base = count_threads(threads.pid());
    fds.clear();
    for (int i = 0; i < 3; i++) {
        fds.push_back(tcp_connect(port));
        send_all(fds.back(), header(1 << 20) + std::string(1000, 'a'));
    }
    CHECK(eventually([&] { return count_threads(threads.pid()) == base + 3; }));
    for (int fd : fds) {
        send_all(fd, std::string((1 << 20) - 1000, 'a'));
        CHECK(read_reply(fd).first == 1 << 20);
        close(fd);
    }
    CHECK(eventually([&] { return count_threads(threads.pid()) == base; }));
    CHECK(exited_zero(threads.stop()));
}

TEST_CASE("SIGTERM mid-upload ends the server with status 0, children included", "[upload]")
{
    for (const char *mode : every_mode) {
        SECTION(mode)
        {
            Child server;
            int port = upload_server(server, mode);
            int fd = tcp_connect(port);
            send_all(fd, header(1 << 30) + std::string(4096, 'z')); // far from complete
            if (std::string(mode) == "fork")
                REQUIRE(eventually([&] { return count_children(server.pid()) == 1; }));
            CHECK(exited_zero(server.stop()));
            CHECK(read_reply(fd).first == -1); // the connection closed, without a reply
            close(fd);
        }
    }
}

TEST_CASE("upload-client carries on across a server restart", "[upload]")
{
    Child first;
    int port = upload_server(first, "epoll");
    Child client;
    // Stopped by the test once the second server has taken an upload, however long that takes.
    client.start({demo("upload-client"), "--port", std::to_string(port), "--clients", "2", "--size",
                  "1M", "--seconds", "120"});
    // Each server has read at least one whole upload before it counts as having served.
    REQUIRE(eventually([&] { return read_bytes(first.pid()) > (1 << 20); }, 30));
    REQUIRE(exited_zero(first.stop()));
    std::this_thread::sleep_for(std::chrono::milliseconds(200)); // a gap the client runs into
    Child second;
    upload_server(second, "thread", port);
    REQUIRE(eventually([&] { return read_bytes(second.pid()) > (1 << 20); }, 30));
    int st = client.stop(10);
    REQUIRE(exited_zero(st));
    long long before = field(client.output(), "requests");
    CHECK(before > 0);
    CHECK(field(client.output(), "errors") >= 1); // the refused reconnects while it was down
    CHECK(exited_zero(second.stop()));
}

TEST_CASE("upload demos reject bad arguments with one sentence and status 2", "[upload]")
{
    const std::vector<std::vector<std::string>> bad = {
        {demo("upload-server"), "--mode", "epoll"},
        {demo("upload-server"), "--port", "0", "--mode", "select"},
        {demo("upload-server"), "--port", "0", "--mode", "fork", "--work-us", "lots"},
        {demo("upload-client"), "--port", "1"},
        {demo("upload-client"), "--port", "1", "--size", "0"},
        {demo("upload-client"), "--port", "1", "--size", "1M", "--uploads", "2", "--seconds", "1"},
        {demo("upload-client"), "--port", "1", "--size", "1M", "extra"},
        {demo("upload-client"), "--port", "1", "--size", "1M", "--split-header", "0"},
    };
    for (const auto &argv : bad) {
        auto [code, out] = run(argv, {}, 5);
        INFO(argv[1] << " " << argv.back() << ": " << out);
        CHECK(code == 2);
        CHECK(std::count(out.begin(), out.end(), '\n') == 1);
        CHECK(out.find("--help") != std::string::npos);
    }
    auto [code, out] = run({demo("upload-server"), "--help"}, {}, 5);
    CHECK(code == 0);
    CHECK(out.find("--work-us") != std::string::npos);
}
