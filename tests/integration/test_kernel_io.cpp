// The kernel's own accounting of each counted call, against the table iolab sets the library's
// counts beside it by (sampler_kernel_family): for every call, 200 of them made here move
// /proc/self/io's syscr and syscw exactly when the table says they do. A call the table files
// wrongly would put a false mismatch mark on the counters pane (copy_file_range did).
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

extern "C" {
#include "metrics/sampler.h"
}

using namespace iolab_test;

namespace
{

std::pair<long long, long long> io_counts()
{
    std::ifstream f("/proc/self/io");
    std::string key;
    long long v, r = -1, w = -1;
    while (f >> key >> v) {
        if (key == "syscr:")
            r = v;
        else if (key == "syscw:")
            w = v;
    }
    return {r, w};
}

} // namespace

TEST_CASE("each counted call adds to syscr/syscw exactly as iolab's table says", "[kernel]")
{
    TempDir dir;
    std::string path = dir / "f";
    int file = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    REQUIRE(file >= 0);
    char buf[64] = {1};
    REQUIRE(pwrite(file, buf, sizeof buf, 0) == (ssize_t)sizeof buf);
    int out = open((dir / "g").c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    REQUIRE(out >= 0);
    int sv[2];
    REQUIRE(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
    int pipefd[2];
    REQUIRE(pipe2(pipefd, O_CLOEXEC) == 0);
    struct iovec iov = {buf, 1};
    const int n = 200;
    struct Case {
        iolab_call_id call;
        std::function<void()> once;
    };
    std::vector<Case> cases = {
        {IOLAB_CALL_READ,
         [&] {
             (void)pread(file, buf, 1, 0);
             (void)lseek(file, 0, SEEK_SET);
             (void)read(file, buf, 1);
         }},
        {IOLAB_CALL_WRITE, [&] { (void)write(out, buf, 1); }},
        {IOLAB_CALL_READV,
         [&] {
             (void)lseek(file, 0, SEEK_SET);
             (void)readv(file, &iov, 1);
         }},
        {IOLAB_CALL_WRITEV, [&] { (void)writev(out, &iov, 1); }},
        {IOLAB_CALL_PREAD64, [&] { (void)pread(file, buf, 1, 0); }},
        {IOLAB_CALL_PWRITE64, [&] { (void)pwrite(out, buf, 1, 0); }},
        {IOLAB_CALL_PREADV, [&] { (void)preadv(file, &iov, 1, 0); }},
        {IOLAB_CALL_PWRITEV, [&] { (void)pwritev(out, &iov, 1, 0); }},
        {IOLAB_CALL_SENDTO,
         [&] {
             (void)send(sv[0], buf, 1, 0);
             (void)recv(sv[1], buf, 1, 0);
         }},
        {IOLAB_CALL_SENDFILE,
         [&] {
             off_t o = 0;
             (void)sendfile(out, file, &o, 1);
         }},
        {IOLAB_CALL_COPY_FILE_RANGE,
         [&] {
             loff_t a = 0, b = 0;
             (void)copy_file_range(file, &a, out, &b, 1, 0);
         }},
        {IOLAB_CALL_SPLICE,
         [&] {
             loff_t o = 0;
             (void)splice(file, &o, pipefd[1], nullptr, 1, 0);
             (void)splice(pipefd[0], nullptr, out, nullptr, 1, 0);
         }},
        {IOLAB_CALL_MMAP,
         [&] {
             void *p = mmap(nullptr, 4096, PROT_READ, MAP_PRIVATE, file, 0);
             if (p != MAP_FAILED)
                 munmap(p, 4096);
         }},
    };
    for (const auto &c : cases) {
        INFO(iolab_call_info[c.call].label);
        auto [r0, w0] = io_counts();
        for (int i = 0; i < n; i++)
            c.once();
        auto [r1, w1] = io_counts();
        int fam = sampler_kernel_family(c.call);
        // The read case reads twice per round (pread to keep the offset simple, then read):
        // what matters is whether the counter moves by at least n, or by next to nothing.
        if (c.call == IOLAB_CALL_READ || fam & SAMPLER_IN_SYSCR)
            CHECK(r1 - r0 >= n);
        else
            CHECK(r1 - r0 < n / 4);
        if (fam & SAMPLER_IN_SYSCW)
            CHECK(w1 - w0 >= n);
        else
            CHECK(w1 - w0 < n / 4);
    }
    // read() and write() on a socket count too (unlike send and recv): the kernel counts the
    // system call, not the kind of descriptor.
    auto [r0, w0] = io_counts();
    for (int i = 0; i < n; i++) {
        REQUIRE(write(sv[0], buf, 1) == 1);
        REQUIRE(read(sv[1], buf, 1) == 1);
    }
    auto [r1, w1] = io_counts();
    CHECK(r1 - r0 >= n);
    CHECK(w1 - w0 >= n);
    close(file);
    close(out);
    close(sv[0]);
    close(sv[1]);
    close(pipefd[0]);
    close(pipefd[1]);
}
