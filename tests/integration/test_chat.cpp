// The conversation demos as a learner uses them: ordered-server/ordered-client taking turns, and
// chat-server/chat-client as a group chat. Real processes on 127.0.0.1 (port 0: the kernel picks
// a free one), real signals; a person's typing is a FIFO the test writes into. Every wait is
// bounded; every process is stopped by pid.
#include <catch2/catch.hpp>

#include "demo_helpers.hpp"
#include "helpers.hpp"
#include "sockets.hpp"

#include <cJSON.h>

#include <arpa/inet.h>
#include <cmath>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

using namespace iolab_test;

namespace
{

// What a person types: a FIFO that the program reads as its stdin (sh redirects it, then execs
// the program, so the pid is the program's). The test writes lines into it and closes it for
// Ctrl-D.
class Keyboard
{
  public:
    Keyboard(TempDir &tmp, const std::string &name) : path_(tmp / name)
    {
        REQUIRE(mkfifo(path_.c_str(), 0600) == 0);
    }
    ~Keyboard()
    {
        close_input();
    }
    // Starts argv with the FIFO as stdin and waits until it has opened it.
    void start(Child &c, const std::vector<std::string> &argv)
    {
        std::vector<std::string> sh = {"/bin/sh", "-c", "exec \"$0\" \"$@\" < '" + path_ + "'"};
        sh.insert(sh.end(), argv.begin(), argv.end());
        c.start(sh);
        for (int i = 0; i < 500 && fd_ < 0; i++) { // ENXIO until the reader has opened it
            fd_ = open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
            if (fd_ < 0)
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        REQUIRE(fd_ >= 0);
    }
    void type(const std::string &s)
    {
        REQUIRE(write(fd_, s.data(), s.size()) == (ssize_t)s.size());
    }
    void close_input()
    {
        if (fd_ >= 0)
            close(fd_);
        fd_ = -1;
    }

  private:
    std::string path_;
    int fd_ = -1;
};

int exit_code(int status)
{
    if (status == -1)
        return -1; // still running
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

size_t count_of(const std::string &hay, const std::string &needle)
{
    size_t n = 0;
    for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1))
        n++;
    return n;
}

std::vector<std::string> ordered_client(int port, const std::vector<std::string> &extra = {})
{
    std::vector<std::string> argv = {demo("ordered-client"), "--port", std::to_string(port)};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
}

std::vector<std::string> chat_client(int port, const std::string &name,
                                     const std::vector<std::string> &extra = {})
{
    std::vector<std::string> argv = {demo("chat-client"), "--port", std::to_string(port), "--name",
                                     name};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
}

// A server the test plays itself: a listener on 127.0.0.1 (its port in port) that takes one
// connection at a time, with reads that give up after 10 s.
class TestServer
{
  public:
    TestServer()
    {
        lfd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in sa = {};
        sa.sin_family = AF_INET;
        sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        REQUIRE(bind(lfd_, (struct sockaddr *)&sa, sizeof sa) == 0);
        REQUIRE(listen(lfd_, 16) == 0);
        socklen_t len = sizeof sa;
        REQUIRE(getsockname(lfd_, (struct sockaddr *)&sa, &len) == 0);
        port = ntohs(sa.sin_port);
    }
    ~TestServer()
    {
        hang_up();
        close(lfd_);
    }
    void accept_one()
    {
        struct pollfd p = {lfd_, POLLIN, 0};
        REQUIRE(poll(&p, 1, 10000) == 1);
        fd_ = accept4(lfd_, NULL, NULL, SOCK_CLOEXEC);
        REQUIRE(fd_ >= 0);
        struct timeval tv = {10, 0};
        setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
    // What one recv() brings ("" at the end of the stream).
    std::string recv_once()
    {
        char buf[4096];
        ssize_t n = recv(fd_, buf, sizeof buf, 0);
        REQUIRE(n >= 0);
        return std::string(buf, (size_t)n);
    }
    // Everything up to and with the next newline.
    std::string line()
    {
        std::string got;
        while (got.empty() || got.back() != '\n') {
            char c;
            REQUIRE(recv(fd_, &c, 1, 0) == 1);
            got += c;
        }
        return got;
    }
    void say(const std::string &s)
    {
        send_str(fd_, s);
    }
    void hang_up()
    {
        if (fd_ >= 0)
            close(fd_);
        fd_ = -1;
    }
    int port = 0;

  private:
    int lfd_ = -1, fd_ = -1;
};

} // namespace

TEST_CASE("ordered: a scripted client and a server without stdin take turns and exit ends it")
{
    Child server;
    int port = start_server(server, {demo("ordered-server"), "--port", "0"}); // stdin: /dev/null
    Child client;
    client.start(ordered_client(port, {"--script", "hi;there;exit", "--interval", "10"}));
    REQUIRE(exit_code(client.wait(10)) == 0);
    // Strict alternation: each reply comes before the next message is sent.
    CHECK(client.output() == "me: hi\nserver: ack 1\nme: there\nserver: ack 2\nme: exit\n");
    REQUIRE(server.read_until("conversation over", 30));
    CHECK(server.output().find("client: hi\nme: ack 1\nclient: there\nme: ack 2\nclient: exit\n") !=
          std::string::npos);

    // The server takes the next client, and its count starts over.
    Child second;
    second.start(ordered_client(port, {"--script", "again;exit", "--interval", "10"}));
    REQUIRE(exit_code(second.wait(10)) == 0);
    CHECK(second.output() == "me: again\nserver: ack 1\nme: exit\n");
    CHECK(exit_code(server.stop()) == 0);
}

TEST_CASE("ordered: the server's replies are what its person types, and exit from the server "
          "ends the conversation")
{
    TempDir tmp;
    Keyboard keys(tmp, "server-stdin");
    Child server;
    keys.start(server, {demo("ordered-server"), "--port", "0"});
    REQUIRE(server.read_until("listening on 127.0.0.1:", 10));
    REQUIRE(server.read_until("\n", 30));
    int port = std::stoi(server.output().substr(server.output().find(':') + 1));

    Child client;
    client.start(ordered_client(port, {"--script", "one;two;three", "--interval", "0"}));
    REQUIRE(server.read_until("client: one", 10));
    // The client is blocked in recv(): it cannot send "two" before the server answers.
    REQUIRE(client.read_until("me: one\n", 30));
    CHECK_FALSE(server.read_until("client: two", 0.3));
    CHECK(client.output() == "me: one\n");

    keys.type("hello from the server\n");
    REQUIRE(server.read_until("client: two", 10));
    keys.type("exit\n");
    REQUIRE(exit_code(client.wait(10)) == 0);
    CHECK(client.output() == "me: one\nserver: hello from the server\nme: two\nserver: exit\n");
    REQUIRE(server.read_until("conversation over", 30));
    CHECK(server.output().find("client: three") == std::string::npos);

    // Ctrl-D on the server's keyboard: it answers by itself from then on.
    keys.close_input();
    Child next;
    next.start(ordered_client(port, {"--script", "still there?;exit", "--interval", "0"}));
    REQUIRE(exit_code(next.wait(10)) == 0);
    CHECK(next.output() == "me: still there?\nserver: ack 1\nme: exit\n");
    CHECK(exit_code(server.stop()) == 0);
}

TEST_CASE("ordered: a typing client reads its next line only after the reply and --reply")
{
    TempDir tmp;
    Child server;
    int port = start_server(server, {demo("ordered-server"), "--port", "0", "--reply", "ok"});
    Keyboard keys(tmp, "client-stdin");
    Child client;
    keys.start(client, ordered_client(port));
    keys.type("a\nb\n"); // typed ahead: the second line waits in the pipe
    REQUIRE(client.read_until("server: ok\nme: b\nserver: ok\n", 10));
    CHECK(client.output() == "me: a\nserver: ok\nme: b\nserver: ok\n");
    keys.close_input(); // the end of stdin ends the conversation, status 0
    CHECK(exit_code(client.wait(10)) == 0);
    CHECK(server.read_until("conversation over", 30));
    CHECK(exit_code(server.stop()) == 0);
}

TEST_CASE("ordered: a server that goes away without exit is an error for the client")
{
    Child server;
    int port = start_server(server, {demo("ordered-server"), "--port", "0"});
    Child client;
    client.start(ordered_client(port, {"--script", "a;b;c", "--interval", "300"}));
    REQUIRE(client.read_until("server: ack 1", 10));
    REQUIRE(exit_code(server.stop()) == 0); // SIGTERM in the middle of a conversation
    CHECK(exit_code(client.wait(10)) == 1);
    CHECK(client.output().find("closed the connection") != std::string::npos);
}

TEST_CASE("ordered: --together sends lines in one segment, and the client says what the server "
          "did wrong")
{
    SECTION("two lines in one segment, both answered, exit unanswered, then a hang-up")
    {
        TestServer srv;
        Child client;
        client.start(ordered_client(srv.port, {"--script", "a;b;exit", "--together", "2",
                                               "--interval", "10", "--reply-wait", "5"}));
        srv.accept_one();
        CHECK(srv.recv_once() == "a\nb\n"); // one segment, one recv()
        srv.say("one\ntwo\n");
        CHECK(srv.line() == "exit\n");
        CHECK(srv.recv_once() == ""); // the client is done sending, and waits for our hang-up
        srv.hang_up();
        CHECK(exit_code(client.wait(10)) == 0);
        CHECK(client.output() == "me: a\nme: b\nserver: one\nserver: two\nme: exit\n");
    }
    SECTION("an answer to exit")
    {
        TestServer srv;
        Child client;
        client.start(ordered_client(srv.port, {"--script", "hi;exit", "--interval", "10"}));
        srv.accept_one();
        CHECK(srv.line() == "hi\n");
        srv.say("ack 1\n");
        CHECK(srv.line() == "exit\n");
        srv.say("ack 2\n");
        CHECK(exit_code(client.wait(10)) == 1);
        CHECK(client.output().find("problem: the server answered exit with \"ack 2\"; exit gets "
                                   "no reply\n") != std::string::npos);
    }
    SECTION("a reply without its newline")
    {
        TestServer srv;
        Child client;
        client.start(ordered_client(srv.port, {"--script", "hi;exit", "--reply-wait", "1"}));
        srv.accept_one();
        CHECK(srv.line() == "hi\n");
        srv.say("ack 1");
        CHECK(exit_code(client.wait(10)) == 1);
        CHECK(client.output().find("problem: a reply without its newline: \"ack 1\", then nothing "
                                   "more for 1 s\n") != std::string::npos);
    }
    SECTION("a hang-up before exit")
    {
        TestServer srv;
        Child client;
        client.start(ordered_client(srv.port, {"--script", "hi;exit", "--interval", "300"}));
        srv.accept_one();
        CHECK(srv.line() == "hi\n");
        srv.say("ack 1\n");
        srv.hang_up();
        CHECK(exit_code(client.wait(10)) == 1);
        CHECK(client.output().find("problem: the server closed the connection before exit, after "
                                   "1 reply\n") != std::string::npos);
    }
    SECTION("no reply at all")
    {
        TestServer srv;
        Child client;
        client.start(ordered_client(srv.port, {"--script", "hi;exit", "--reply-wait", "1"}));
        srv.accept_one();
        CHECK(srv.line() == "hi\n");
        CHECK(exit_code(client.wait(10)) == 1);
        CHECK(client.output().find("problem: no reply to \"hi\" within 1 s (reply 1)\n") !=
              std::string::npos);
    }
}

TEST_CASE("chat: a message reaches every other client and not its sender and joins and leaves")
{
    TempDir tmp;
    Child server;
    int port = start_server(server, {demo("chat-server"), "--port", "0"});

    Child alice; // stdin is /dev/null: epoll cannot watch it, and alice just listens
    alice.start(chat_client(port, "alice"));
    REQUIRE(alice.read_until("* welcome alice; 1 in the room", 10));

    Keyboard keys(tmp, "bob-stdin");
    Child bob;
    keys.start(bob, chat_client(port, "bob"));
    REQUIRE(bob.read_until("* welcome bob; 2 in the room", 10));
    REQUIRE(alice.read_until("* bob joined", 10));

    Child bot;
    bot.start(chat_client(port, "bot", {"--say", "hi", "--every", "20", "--count", "3"}));
    CHECK(exit_code(bot.wait(10)) == 0); // --count ends it
    REQUIRE(alice.read_until("* bot left", 10));
    REQUIRE(bob.read_until("* bot left", 10));
    for (Child *c : {&alice, &bob})
        CHECK(
            c->output().find("* bot joined\n[bot] hi #1\n[bot] hi #2\n[bot] hi #3\n* bot left\n") !=
            std::string::npos);
    CHECK(bot.output().find("[bot]") == std::string::npos); // not echoed to the sender

    keys.type("hello "); // a partial line is not a message yet
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    CHECK(alice.output().find("[bob]") == std::string::npos);
    keys.type("room\n");
    REQUIRE(alice.read_until("[bob] hello room\n", 10));
    keys.type("exit\n");
    CHECK(exit_code(bob.wait(10)) == 0);
    REQUIRE(alice.read_until("* bob left", 10));
    CHECK(bob.output().find("[bob]") == std::string::npos);

    CHECK(exit_code(alice.stop()) == 0);
    CHECK(exit_code(server.stop()) == 0);
    const std::string &log = server.output();
    CHECK(log.find("alice joined (1 in the room)") != std::string::npos);
    CHECK(log.find("bot left (2 in the room)") != std::string::npos);
    CHECK(log.find("bob left (1 in the room)") != std::string::npos);
}

TEST_CASE("chat: a client that disconnects mid-line takes the partial line with it")
{
    Child server;
    int port = start_server(server, {demo("chat-server"), "--port", "0"});
    Child alice;
    alice.start(chat_client(port, "alice"));
    REQUIRE(alice.read_until("* welcome alice", 10));

    int fd = tcp_connect(port);
    send_str(fd, "mal");
    send_str(fd, "lory\nfirst line\nhalf a li"); // the name arrives in two pieces
    REQUIRE(alice.read_until("* mallory joined\n[mallory] first line\n", 10));
    close(fd);
    REQUIRE(alice.read_until("* mallory left\n", 10));
    CHECK(alice.output().find("half a li") == std::string::npos);

    // The room still works after that.
    Child bot;
    bot.start(chat_client(port, "bot", {"--say", "after", "--every", "10", "--count", "1"}));
    CHECK(exit_code(bot.wait(10)) == 0);
    CHECK(alice.read_until("[bot] after #1\n", 10));
    CHECK(exit_code(server.stop()) == 0);
}

TEST_CASE("chat: a verifying client checks every byte: numbers, gaps and junk after a newline")
{
    // The test is the server: a listening socket of its own, bytes written by hand.
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t slen = sizeof sa;
    REQUIRE(bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0);
    REQUIRE(listen(lfd, 4) == 0);
    REQUIRE(getsockname(lfd, (struct sockaddr *)&sa, &slen) == 0);
    Child me;
    me.start(chat_client(ntohs(sa.sin_port), "me", {"--verify"}));
    int fd = accept(lfd, nullptr, nullptr);
    close(lfd);
    REQUIRE(fd >= 0);
    // ben #1, a longer line of someone else, then ben #2: the shorter line sits in a buffer
    // that still holds the longer one's digits after it, which are not part of its number.
    send_str(fd, "[ben] x #1\n[zz] 0000000000000 #1\n");
    send_str(fd, "[ben] x #2\n");
    REQUIRE(me.read_until("[ben] x #2\n", 10));
    // A line skipped: said at once, with the numbers around the gap.
    send_str(fd, "[ben] x #4\n");
    REQUIRE(me.read_until("problem: me missed ben's lines #3 to #3: heard #2, then #4\n", 10));
    // NUL padding after a newline: said as soon as it arrives, and never shown as a line.
    send_str(fd, std::string("[ben] x #5\n\0\0\0", 14));
    REQUIRE(me.read_until(
        "problem: a line arrived with 3 bytes after its newline (NUL bytes): \"[ben] x #5\"\n",
        10));
    send_str(fd, "[ben] x #6\n");
    REQUIRE(me.read_until("[ben] x #6\n", 10));
    // Each problem once; only the gap and the padding were problems.
    CHECK(count_of(me.output(), "problem: ") == 2);
    CHECK(me.output().find("#20000000") == std::string::npos);
    close(fd);
    me.stop();
}

TEST_CASE("chat: a client that stops reading is dropped and the others carry on")
{
    Child server;
    int port = start_server(server, {demo("chat-server"), "--port", "0"});

    // A reader that never reads, with a small receive buffer so the server's output backs up.
    int slow = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int small = 4096;
    setsockopt(slow, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
    struct sockaddr_in sa = {};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(slow, (struct sockaddr *)&sa, sizeof sa) == 0);
    send_str(slow, "slow\n");
    REQUIRE(server.read_until("slow joined", 10));

    int talker = tcp_connect(port);
    send_str(talker, "talker\n");
    REQUIRE(server.read_until("talker joined", 10));
    // Far more than the 64 KiB output bound plus both socket buffers (at most a few MB here).
    std::string line(200, 'x');
    line += '\n';
    std::string burst;
    for (int i = 0; i < 1000; i++)
        burst += line;
    bool dropped = false;
    for (int i = 0; i < 200 && !dropped; i++) { // up to 40 MB
        send_str(talker, burst);
        dropped = server.read_until("slow dropped", 0.01);
    }
    CHECK(dropped);
    // The talker hears about it; it was never slowed down to the slow reader's pace.
    std::string heard;
    char buf[4096];
    struct timeval tv = {5, 0};
    setsockopt(talker, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    while (heard.find("* slow dropped") == std::string::npos) {
        ssize_t n = recv(talker, buf, sizeof buf, 0);
        if (n <= 0)
            break;
        heard.append(buf, (size_t)n);
    }
    CHECK(heard.find("* slow dropped: it did not read its messages\n") != std::string::npos);
    close(slow);
    close(talker);
    CHECK(exit_code(server.stop()) == 0);
}

TEST_CASE("conversation demos stop with status 0 on SIGTERM while blocked")
{
    TempDir tmp;
    Child chat;
    int chat_port = start_server(chat, {demo("chat-server"), "--port", "0"});
    Child listener; // blocked in epoll_wait
    listener.start(chat_client(chat_port, "listener"));
    REQUIRE(listener.read_until("* welcome", 10));
    Child bot; // sleeping in epoll_wait with a timeout
    bot.start(chat_client(chat_port, "bot", {"--say", "zzz", "--every", "60000"}));
    REQUIRE(listener.read_until("* bot joined", 10));

    Keyboard keys(tmp, "server-stdin");
    Child ordered; // blocked reading its person's reply
    keys.start(ordered, {demo("ordered-server"), "--port", "0"});
    REQUIRE(ordered.read_until("listening on 127.0.0.1:", 10));
    REQUIRE(ordered.read_until("\n", 30));
    int port = std::stoi(ordered.output().substr(ordered.output().find(':') + 1));
    Child client; // blocked in recv()
    client.start(ordered_client(port, {"--script", "anyone?", "--interval", "0"}));
    REQUIRE(ordered.read_until("client: anyone?", 10));
    REQUIRE(client.read_until("me: anyone?", 10));
    // Each has printed its last line and is about to block; a SIGTERM that lands just before
    // the blocking call is seen only when the call returns (demo.h), so let them get there.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));

    CHECK(exit_code(client.stop()) == 0);
    CHECK(exit_code(ordered.stop()) == 0);
    CHECK(exit_code(bot.stop()) == 0);
    CHECK(exit_code(listener.stop()) == 0);
    CHECK(exit_code(chat.stop()) == 0);
}

TEST_CASE("conversation demos: --help, and bad arguments get one sentence and status 2")
{
    for (const char *prog : {"ordered-server", "ordered-client", "chat-server", "chat-client"}) {
        auto [code, out] = run({demo(prog), "--help"});
        CHECK(code == 0);
        CHECK(out.find(std::string("usage: ") + prog) != std::string::npos);
    }
    const std::vector<std::vector<std::string>> bad = {
        {"ordered-server"},
        {"ordered-server", "--port", "70000"},
        {"ordered-server", "--port", "0", "--reply", ""},
        {"ordered-server", "--port", "0", "--host", "localhost"},
        {"ordered-client", "--port", "1", "--script", ";;"},
        {"ordered-client", "--port", "1", "--script", "a;exit", "--repeat"},
        {"ordered-client", "--port", "1", "--repeat"},
        {"ordered-client", "--port", "1", "--interval", "soon"},
        {"ordered-client", "--port", "1", "--script", "a;exit", "--together", "2"},
        {"ordered-client", "--port", "1", "--together", "9"},
        {"chat-server", "--port", "0", "extra"},
        {"chat-client", "--port", "1"},
        {"chat-client", "--port", "1", "--name", "two words"},
        {"chat-client", "--port", "1", "--name", "x", "--say", "hi"},
        {"chat-client", "--port", "1", "--name", "x", "--count", "3"},
        {"chat-client", "--port", "1", "--name", "x", "--bogus"},
    };
    for (const auto &args : bad) {
        std::vector<std::string> argv = args;
        argv[0] = demo(args[0]);
        auto [code, out] = run(argv);
        INFO(args[0] << " " << (args.size() > 1 ? args[1] : "") << ": " << out);
        CHECK(code == 2);
        CHECK(count_of(out, "\n") == 1);
        CHECK(out.find("see " + args[0] + " --help.") != std::string::npos);
    }
}

TEST_CASE("iolab run: the chat room relays each message to the two others")
{
    TempDir tmp;
    auto [code, out] =
        run({bin("iolab"), "run", "chat", "--seconds", "4", "--json"}, {"TMPDIR=" + tmp.path}, 60);
    REQUIRE(code == 0);
    cJSON *root = cJSON_Parse(out.c_str());
    REQUIRE(root);
    double relayed = -1, sends = -1, ana_heard = -1, you_heard = -1;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(root, "processes"))
    {
        std::string name = cJSON_GetStringValue(cJSON_GetObjectItem(p, "name"));
        double requests =
            cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "app"), "requests"));
        if (name == "server") {
            relayed = requests;
            const cJSON *s = cJSON_GetObjectItem(cJSON_GetObjectItem(p, "calls"), "sendto");
            sends = s ? cJSON_GetNumberValue(cJSON_GetObjectItem(s, "count")) : 0;
        } else if (name == "ana") {
            ana_heard = requests;
        } else if (name == "you") {
            you_heard = requests;
        }
    }
    cJSON_Delete(root);
    // In 4 s ana (every 1.5 s) and ben (every 2.3 s) say at least 3 things between them.
    CHECK(relayed >= 3);
    CHECK(sends >= 2 * relayed); // one send per recipient: you and the other bot
    CHECK(ana_heard >= 1);       // ben's messages
    // Everything the bots said (a message still on its way at the end of the window aside).
    CHECK(you_heard + 1 >= relayed);
}

TEST_CASE("iolab run: the ordered conversation answers every message, one at a time")
{
    TempDir tmp;
    auto [code, out] = run({bin("iolab"), "run", "ordered/watch", "--seconds", "3", "--json"},
                           {"TMPDIR=" + tmp.path}, 60);
    REQUIRE(code == 0);
    cJSON *root = cJSON_Parse(out.c_str());
    REQUIRE(root);
    double server_replies = -1, client_replies = -1, client_recvs = -1;
    const cJSON *p;
    cJSON_ArrayForEach(p, cJSON_GetObjectItem(root, "processes"))
    {
        std::string role = cJSON_GetStringValue(cJSON_GetObjectItem(p, "role"));
        double requests =
            cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(p, "app"), "requests"));
        if (role == "server") {
            server_replies = requests;
        } else {
            client_replies = requests;
            const cJSON *r = cJSON_GetObjectItem(cJSON_GetObjectItem(p, "calls"), "recvfrom");
            client_recvs = r ? cJSON_GetNumberValue(cJSON_GetObjectItem(r, "count")) : 0;
        }
    }
    cJSON_Delete(root);
    CHECK(client_replies >= 3); // one message every 500 ms
    CHECK(client_replies <= 8); // and never faster: each one waits for its reply and the pause
    // One blocking recv() per reply. The shim counts a call when it starts, so a recv() that is
    // still waiting at either edge of the measured window may be counted without its reply.
    CHECK(std::abs(client_recvs - client_replies) <= 1);
    CHECK(server_replies >= client_replies);
}
