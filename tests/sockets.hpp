// Plain loopback sockets for tests that talk to a server themselves.
#pragma once

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace iolab_test
{

// A connected TCP socket to 127.0.0.1:port (the test fails when the connect does).
inline int tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {};
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0);
    return fd;
}

// Sends all of s in one call; loopback takes a test's small messages whole.
inline void send_str(int fd, const std::string &s)
{
    REQUIRE(send(fd, s.data(), s.size(), MSG_NOSIGNAL) == (ssize_t)s.size());
}

} // namespace iolab_test
