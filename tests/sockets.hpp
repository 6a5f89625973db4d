// Plain loopback sockets for tests that talk to a server themselves.
#pragma once

#include <arpa/inet.h>
#include <catch2/catch.hpp>
#include <netinet/in.h>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/time.h>
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

// A listening socket on 127.0.0.1 for a server the test plays itself; its port in *port.
inline int test_listener(int *port)
{
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(bind(lfd, (struct sockaddr *)&sa, sizeof sa) == 0);
    REQUIRE(listen(lfd, 16) == 0);
    socklen_t len = sizeof sa;
    REQUIRE(getsockname(lfd, (struct sockaddr *)&sa, &len) == 0);
    *port = ntohs(sa.sin_port);
    return lfd;
}

// The next connection on lfd, waited for at most 10 s; its reads give up after 10 s too.
inline int test_accept(int lfd)
{
    struct pollfd p = {lfd, POLLIN, 0};
    REQUIRE(poll(&p, 1, 10000) == 1);
    int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    REQUIRE(fd >= 0);
    struct timeval tv = {10, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

} // namespace iolab_test
