// The counter page and the shim's bookkeeping: page creation, validation and mapping (bad
// magic, short file), histogram bucket math, and slot claiming by real threads and a real
// forked child of iolab-count-probe running under the real shim on a real memfd.
#include <catch2/catch.hpp>

#include <set>
#include <sys/mman.h>

#include "counter_page.hpp"
#include "helpers.hpp"

extern "C" {
#include "iolab_counters.h"
#include "iolab_page.h"
}

using namespace iolab_test;

namespace
{

std::string probe()
{
    return build_dir() + "/lib/iolab/iolab-count-probe";
}

// The shared counter page; these tests mark their runs with IOLAB_RUN=7.
struct Page : CounterPage {
    using CounterPage::CounterPage;
    std::vector<std::string> env(int prog) const
    {
        return CounterPage::env(prog, 7);
    }
};

uint64_t count(const struct iolab_slot *s, enum iolab_call_id id)
{
    return iolab_slot_calls(s, id);
}

} // namespace

TEST_CASE("a created page has a complete header and maps again from its descriptor", "[page]")
{
    int fd;
    struct iolab_page *p;
    REQUIRE(iolab_page_create(16, &fd, &p) == 0);
    CHECK(p->magic == IOLAB_PAGE_MAGIC);
    CHECK(p->version == IOLAB_PAGE_VERSION);
    CHECK(p->nslots == 16);
    CHECK(p->ncalls == IOLAB_NCALLS);
    CHECK(p->next_slot == 0);
    CHECK(p->moves_begun == 0);
    CHECK(p->slots[0].state == IOLAB_SLOT_FREE);
    // No slot is made until a claimer takes it (a page costs memory only where it is used); a
    // slot's owner mutex, once made, is robust and process-shared: when a process that holds
    // one ends without unlocking it, the next taker learns that its owner died.
    CHECK(p->slots[15].made == 0);
    REQUIRE(iolab_slot_make(&p->slots[15]) == 0);
    pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0)
        _exit(pthread_mutex_lock(&p->slots[15].owner) == 0 ? 0 : 1);
    int status;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    CHECK(pthread_mutex_trylock(&p->slots[15].owner) == EOWNERDEAD);
    CHECK(pthread_mutex_consistent(&p->slots[15].owner) == 0);
    CHECK(pthread_mutex_unlock(&p->slots[15].owner) == 0);
    CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
    struct stat st;
    REQUIRE(fstat(fd, &st) == 0);
    CHECK((size_t)st.st_size == iolab_page_size(16));

    struct iolab_page *q;
    uint32_t n = 0;
    REQUIRE(iolab_page_map(fd, &q, &n) == 0);
    CHECK(n == 16);
    p->slots[3].calls[IOLAB_CALL_READ].count = 42; // shared: the second mapping sees it
    CHECK(q->slots[3].calls[IOLAB_CALL_READ].count == 42);
    iolab_page_unmap(q, n);
    iolab_page_unmap(p, 16);
    close(fd);

    CHECK(iolab_page_create(1, &fd, &p) == -EINVAL);
    CHECK(iolab_page_create(IOLAB_PAGE_MAX_SLOTS + 1, &fd, &p) == -EINVAL);
}

TEST_CASE("a new page is backed only by its header: every program has one", "[page]")
{
    // iolab makes a page of 1,024 slots (4.6 MB) for every program start; creating one must not
    // write into its slots (version 3 made every slot's mutex and so backed the whole page).
    int fd;
    struct iolab_page *p;
    REQUIRE(iolab_page_create(1024, &fd, &p) == 0);
    long ps = sysconf(_SC_PAGESIZE);
    size_t len = iolab_page_size(1024), npages = (len + (size_t)ps - 1) / (size_t)ps;
    std::vector<unsigned char> vec(npages);
    REQUIRE(mincore(p, len, vec.data()) == 0);
    size_t resident = 0;
    for (unsigned char v : vec)
        resident += v & 1;
    INFO(resident << " of " << npages << " pages resident");
    CHECK(resident <= 2);
    iolab_page_unmap(p, 1024);
    close(fd);
}

TEST_CASE("mapping refuses what is not a page of this layout", "[page]")
{
    int fd;
    struct iolab_page *p, *q;
    uint32_t n;
    REQUIRE(iolab_page_create(8, &fd, &p) == 0);

    SECTION("bad magic")
    {
        p->magic ^= 1;
        CHECK(iolab_page_map(fd, &q, &n) == -EINVAL);
    }
    SECTION("other version")
    {
        p->version = IOLAB_PAGE_VERSION + 1;
        CHECK(iolab_page_map(fd, &q, &n) == -EINVAL);
    }
    SECTION("other slot size")
    {
        p->slot_size += 8;
        CHECK(iolab_page_map(fd, &q, &n) == -EINVAL);
    }
    SECTION("header claims more slots than the file holds")
    {
        p->nslots = 9;
        CHECK(iolab_page_map(fd, &q, &n) == -ENODATA);
    }
    SECTION("short file")
    {
        // A page is sealed; a file of the right kind but one byte short is made by hand.
        int m = memfd_create("short", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        REQUIRE(m >= 0);
        REQUIRE(write(m, p, iolab_page_size(8) - 1) == (ssize_t)iolab_page_size(8) - 1);
        REQUIRE(fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
        CHECK(iolab_page_map(m, &q, &n) == -ENODATA);
        close(m);
    }
    SECTION("shorter than a header")
    {
        int m = memfd_create("short", MFD_CLOEXEC | MFD_ALLOW_SEALING);
        REQUIRE(m >= 0);
        REQUIRE(write(m, p, 10) == 10);
        REQUIRE(fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) == 0);
        CHECK(iolab_page_map(m, &q, &n) == -ENODATA);
        close(m);
    }
    SECTION("a file whose size may still change")
    {
        // A mapping of a file that is cut under it faults (SIGBUS): only a sealed page is mapped.
        int m = memfd_create("unsealed", MFD_CLOEXEC);
        REQUIRE(m >= 0);
        REQUIRE(write(m, p, iolab_page_size(8)) == (ssize_t)iolab_page_size(8));
        CHECK(iolab_page_map(m, &q, &n) == -EPERM);
        close(m);
    }
    SECTION("the page's size can never change, and no seal can be added")
    {
        CHECK(ftruncate(fd, 0) == -1);
        CHECK(errno == EPERM);
        CHECK(ftruncate(fd, (off_t)iolab_page_size(8) + 4096) == -1);
        CHECK(errno == EPERM);
        CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) == -1);
        CHECK(errno == EPERM);
        struct stat st;
        REQUIRE(fstat(fd, &st) == 0);
        CHECK((size_t)st.st_size == iolab_page_size(8));
        CHECK(p->magic == IOLAB_PAGE_MAGIC); // still mapped, still readable
    }
    SECTION("not a regular file")
    {
        int pp[2];
        REQUIRE(pipe(pp) == 0);
        CHECK(iolab_page_map(pp[0], &q, &n) == -EINVAL);
        close(pp[0]);
        close(pp[1]);
    }
    iolab_page_unmap(p, 8);
    close(fd);
}

TEST_CASE("histogram buckets: known latencies land where the header says", "[hist]")
{
    CHECK(iolab_hist_bucket(0) == 0);
    CHECK(iolab_hist_bucket(255) == 0);
    CHECK(iolab_hist_bucket(256) == 1); // 256 ns: first octave, first quarter
    CHECK(iolab_hist_bucket(319) == 1);
    CHECK(iolab_hist_bucket(320) == 2); // 256 + 64
    CHECK(iolab_hist_bucket(511) == 4);
    CHECK(iolab_hist_bucket(512) == 5);
    CHECK(iolab_hist_bucket(1000) == 1 + 1 * 4 + 3);  // 1000 in [512,1024): quarter 3 (896..)
    CHECK(iolab_hist_bucket(53000) == 1 + 7 * 4 + 2); // 53 us: 2^15 = 32768, quarter 2 (49152..)
    CHECK(iolab_hist_bucket(~0ull) == IOLAB_HIST_BUCKETS - 1);
    CHECK(iolab_hist_lower_ns(0) == 0);
    CHECK(iolab_hist_lower_ns(1) == 256);
    CHECK(iolab_hist_lower_ns(2) == 320);
    CHECK(iolab_hist_lower_ns(1 + 7 * 4 + 2) == 49152);
    // Every bucket's lower bound maps back to that bucket, and bounds increase.
    for (unsigned b = 1; b + 1 < IOLAB_HIST_BUCKETS; b++) {
        INFO(b);
        CHECK(iolab_hist_bucket(iolab_hist_lower_ns(b)) == b);
        CHECK(iolab_hist_bucket(iolab_hist_lower_ns(b + 1) - 1) == b);
        CHECK(iolab_hist_lower_ns(b + 1) > iolab_hist_lower_ns(b));
    }
}

TEST_CASE("the probe's calls are counted exactly, per thread and per process", "[shim]")
{
    const int iterations = 25, threads = 4;
    TempDir tmp;
    Page pg(64);
    Child c;
    c.start({probe(), "--dir", tmp.path, "--iterations", std::to_string(iterations), "--threads",
             std::to_string(threads)},
            pg.env(5));
    int st = c.wait(30);
    INFO(c.output());
    REQUIRE(WIFEXITED(st));
    REQUIRE(WEXITSTATUS(st) == 0);
    CHECK(c.output().empty()); // the shim prints nothing

    // The main thread keeps slot 0 for its whole life. The child and the threads each had a
    // slot of their own while they lived; one that ended may have handed its slot, counts and
    // all, to a later one of the same program and run, so only the sums are fixed.
    REQUIRE(pg.page->next_slot >= 2);
    REQUIRE(pg.page->next_slot <= (uint32_t)(2 + threads));
    CHECK(pg.page->overflow_claims == 0);
    const struct iolab_slot *main_slot = iolab_page_slot(pg.page, pg.nslots, 0);
    REQUIRE(main_slot != nullptr);
    pid_t probe_pid = main_slot->pid;
    CHECK(main_slot->tid == probe_pid);
    uint64_t other_writes = 0, other_bytes = 0, other_reads = 0;
    for (uint32_t i = 0; i < pg.page->next_slot; i++) {
        const struct iolab_slot *s = iolab_page_slot(pg.page, pg.nslots, i);
        REQUIRE(s != nullptr);
        CHECK(s->state == IOLAB_SLOT_OWNED);
        CHECK(s->prog == 5);
        CHECK(s->run == 7);
        if (i == 0)
            continue;
        other_writes += count(s, IOLAB_CALL_WRITE);
        other_bytes += iolab_load(&s->calls[IOLAB_CALL_WRITE].bytes);
        other_reads += count(s, IOLAB_CALL_READ);
    }
    // The child writes 2 x iterations bytes to /dev/null, each thread iterations bytes.
    CHECK(other_writes == (uint64_t)(2 + threads) * iterations);
    CHECK(other_bytes == (uint64_t)(2 + threads) * iterations);
    CHECK(other_reads == 0);

    // The main thread's sequence, as probe.c makes it (the _chk variants fold into plain labels).
    const struct iolab_slot *m = main_slot;
    CHECK(count(m, IOLAB_CALL_READ) ==
          iterations + 1 /* EBADF */ + 1 /* sendfile pipe */ + 1 /* __read_chk */);
    CHECK(count(m, IOLAB_CALL_WRITE) == iterations + 1 /* waits */ + 1 /* fortify file */);
    CHECK(count(m, IOLAB_CALL_PREAD64) == 2);  // pread + __pread_chk
    CHECK(count(m, IOLAB_CALL_SENDFILE) == 2); // sendfile + sendfile64
    CHECK(iolab_load(&m->calls[IOLAB_CALL_SENDFILE].bytes) == 16);
    CHECK(count(m, IOLAB_CALL_SENDTO) == iterations + 1 + 1);   // send, sendto, send in fortify
    CHECK(count(m, IOLAB_CALL_RECVFROM) == iterations + 1 + 2); // + __recv_chk, __recvfrom_chk
    CHECK(count(m, IOLAB_CALL_POLL) == 2);                      // poll + __poll_chk
    CHECK(count(m, IOLAB_CALL_PPOLL) == 2);
    CHECK(count(m, IOLAB_CALL_SELECT) == 1);
    CHECK(count(m, IOLAB_CALL_PSELECT6) == 1);
    CHECK(count(m, IOLAB_CALL_OPENAT) == 6); // open x4 (one through __open_2), openat, /dev/null
    CHECK(count(m, IOLAB_CALL_CREAT) == 1);
    CHECK(count(m, IOLAB_CALL_MMAP) == 1);
    CHECK(iolab_load(&m->calls[IOLAB_CALL_MMAP].bytes) == 8192);
    CHECK(iolab_load(&m->calls[IOLAB_CALL_MUNMAP].bytes) == 8192);
    CHECK(count(m, IOLAB_CALL_FORK) == 1);
    CHECK(count(m, IOLAB_CALL_PTHREAD_CREATE) == threads);
    CHECK(count(m, IOLAB_CALL_ACCEPT) == 1);
    CHECK(count(m, IOLAB_CALL_ACCEPT4) == 1);
    CHECK(count(m, IOLAB_CALL_CONNECT) == 3); // two TCP clients and the UDP pair of the mmsg calls
    // Three datagrams in one sendmmsg, read back by recvmmsg: one call each (or a few reads
    // when the datagrams trickle in), their bytes all of the datagrams' 4 each.
    CHECK(count(m, IOLAB_CALL_SENDMMSG) == 1);
    CHECK(iolab_load(&m->calls[IOLAB_CALL_SENDMMSG].bytes) == 12);
    CHECK(count(m, IOLAB_CALL_RECVMMSG) >= 1);
    CHECK(iolab_load(&m->calls[IOLAB_CALL_RECVMMSG].bytes) == 12);
    CHECK(count(m, IOLAB_CALL_SPLICE) == 1);
    CHECK(iolab_load(&m->calls[IOLAB_CALL_SPLICE].bytes) == 32);
    // Time is measured: a connect() or fsync() takes far more than nothing.
    CHECK(iolab_load(&m->calls[IOLAB_CALL_CONNECT].ns) > 0);
    CHECK(iolab_load(&m->calls[IOLAB_CALL_FSYNC].ns) > 0);
}

TEST_CASE("threads that end hand their slots on: a small page loses nothing", "[shim]")
{
    const int iterations = 10, threads = 6;
    TempDir tmp;
    Page pg(3); // two slots and the overflow slot
    auto res = run({probe(), "--dir", tmp.path, "--iterations", std::to_string(iterations),
                    "--threads", std::to_string(threads)},
                   pg.env(0));
    REQUIRE(res.first == 0);
    // The main thread holds one slot; the child, then each thread, takes the other in turn, or
    // the overflow slot when the previous one is still alive. Nothing is lost either way.
    CHECK(pg.page->next_slot == 2);
    const struct iolab_slot *other = iolab_page_slot(pg.page, pg.nslots, 1);
    const struct iolab_slot *of = iolab_page_slot(pg.page, pg.nslots, 2);
    REQUIRE(other != nullptr);
    uint64_t overflowed = of ? count(of, IOLAB_CALL_WRITE) : 0;
    CHECK(count(other, IOLAB_CALL_WRITE) + overflowed == (uint64_t)(2 + threads) * iterations);
    CHECK((pg.page->overflow_claims == 0) == (overflowed == 0));
}

TEST_CASE("without a valid page the shim is silent and changes nothing", "[shim]")
{
    TempDir tmp;
    int junk = open((tmp / "junk").c_str(), O_RDWR | O_CREAT, 0600);
    REQUIRE(junk >= 0);
    std::string zeros(8192, '\0');
    REQUIRE(write(junk, zeros.data(), zeros.size()) == (ssize_t)zeros.size());
    int inherit = fcntl(junk, F_DUPFD, 100);
    close(junk);
    std::vector<std::vector<std::string>> envs = {
        {"LD_PRELOAD=" + shim()},
        {"LD_PRELOAD=" + shim(), "IOLAB_COUNTERS_FD=" + std::to_string(inherit)}, // bad magic
        {"LD_PRELOAD=" + shim(), "IOLAB_COUNTERS_FD=99"},                         // not open
        {"LD_PRELOAD=" + shim(), "IOLAB_COUNTERS_FD=banana"},
    };
    for (const auto &env : envs) {
        INFO(env.back());
        auto res = run({probe(), "--dir", tmp.path, "--iterations", "5"}, env);
        CHECK(res.first == 0);
        CHECK(res.second.empty());
    }
    // The file that was not a page is untouched.
    char buf[8192];
    CHECK(pread(inherit, buf, sizeof buf, 0) == (ssize_t)sizeof buf);
    CHECK(std::string(buf, sizeof buf) == zeros);
    close(inherit);
}

TEST_CASE("errors reach the program with the real errno", "[shim]")
{
    // The probe itself exits 3 when read(-1) does not fail with EBADF; run it counted.
    TempDir tmp;
    Page pg(8);
    auto res = run({probe(), "--dir", tmp.path, "--iterations", "1", "--threads", "0"}, pg.env(0));
    INFO(res.second);
    CHECK(res.first == 0);
    // and the failed read was counted, with no bytes
    const struct iolab_slot *m = iolab_page_slot(pg.page, pg.nslots, 0);
    REQUIRE(m != nullptr);
    CHECK(count(m, IOLAB_CALL_READ) == 1 + 1 + 1 + 1);
}

TEST_CASE("time in call: sampled calls that wait are timed call by call, counts stay exact",
          "[shim][timing]")
{
    // cat reads a fifo whose writer waits until cat sleeps (blocked in its read()), then
    // pauses 10 ms before each line: every read() waits at least that long, however late a
    // loaded machine runs either of them. read() is a sampled call, but a timed call that
    // waited makes the next one timed too, so the time inside read() is the whole of the waits,
    // not a sixteenth of them; and the count is exact whatever is timed. (Lower bounds only.)
    Page pg(16);
    TempDir tmp;
    auto [code, out] =
        run({"/bin/sh", "-c",
             "f=\"$0/f\"; mkfifo \"$f\" || exit 9; cat \"$f\" & c=$!; exec 3>\"$f\"; "
             "i=0; while [ $i -lt 60 ]; do "
             "while read -r l < /proc/$c/stat; do "
             "case \"$l\" in *') S '*) break;; esac; done; "
             "sleep 0.01; echo x >&3; i=$((i+1)); done; exec 3>&-; wait $c",
             tmp.path},
            pg.env(5));
    INFO(out);
    REQUIRE(code == 0);
    uint64_t reads = 0, ns = 0;
    for (uint32_t i = 0; i + 1 < pg.nslots; i++)
        if (const struct iolab_slot *s = iolab_page_slot(pg.page, pg.nslots, i))
            if (s->prog == 5) {
                reads += count(s, IOLAB_CALL_READ);
                ns += iolab_load(&s->calls[IOLAB_CALL_READ].ns);
            }
    CHECK(reads >= 61); // 60 lines and the end of the pipe, at least
    // Before the first timed call up to 30 calls go untimed (the sampling gap, seeded apart in
    // each process). When that first timed call is a write that did not wait, the reads go
    // untimed until the next sampled one: about 23 reads of cat's read/write pairs can be left
    // out (CI saw 8.9 ms once with 20 lines). Every read after a timed one that waited is timed
    // on its own, so at least 20 of the 60 pauses are in (about 37 at worst); a sixteenth of
    // them (the sampling alone) would be 37.5 ms.
    CHECK(ns >= 20 * 10000000ull);
    CHECK(!iolab_call_time_exact(IOLAB_CALL_READ));
    CHECK(iolab_call_time_exact(IOLAB_CALL_EPOLL_WAIT));
    CHECK(iolab_call_time_exact(IOLAB_CALL_SENDFILE));
}

TEST_CASE("a thread blocked in a counted call can be cancelled", "[shim]")
{
    // The shim makes these calls itself; in a process with threads it must make each one a
    // cancellation point, as libc does, so that pthread_cancel still reaches a thread blocked in
    // it. Each run cancels a thread 100 ms into a call that would block forever; the program
    // exits 1 if the thread is still blocked 3 s later.
    const std::string prog = build_dir() + "/lib/iolab/iolab-cancel-blocked";
    for (const char *call : {"read", "recv", "recvmsg", "write"}) {
        INFO(call);
        Page pg(8);
        auto res = run({prog, call}, pg.env(0), 20);
        INFO(res.second);
        CHECK(res.first == 0);
        CHECK(res.second.find("cancelled") != std::string::npos);
        // and the calls were counted, the single-threaded read among them
        const struct iolab_slot *m = iolab_page_slot(pg.page, pg.nslots, 0);
        REQUIRE(m != nullptr);
        CHECK(count(m, IOLAB_CALL_READ) >= 1);
    }
}
