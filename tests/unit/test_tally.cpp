// tally: the sums of a hand-built counter page: the whole page for its program, whatever its
// slots say, and by (prog, run) for the shim's tests that share one page.
#include <catch2/catch.hpp>

extern "C" {
#include "iolab_page.h"
#include "metrics/tally.h"
}

#include <cstdio>
#include <string>
#include <unistd.h>

static struct iolab_slot *claim(struct iolab_page *p, uint32_t prog, uint32_t run)
{
    uint32_t i = __atomic_fetch_add(&p->next_slot, 1, __ATOMIC_RELAXED);
    struct iolab_slot *s = &p->slots[i];
    s->prog = prog;
    s->run = run;
    __atomic_store_n(&s->state, 1, __ATOMIC_RELEASE);
    return s;
}

TEST_CASE("slots are summed by program, across runs or for one run, never the unclaimed ones")
{
    int fd = -1;
    struct iolab_page *page = nullptr;
    REQUIRE(iolab_page_create(16, &fd, &page) == 0);
    struct iolab_slot *a = claim(page, 0, 1); // server, first run
    struct iolab_slot *b = claim(page, 0, 2); // server after a restart
    struct iolab_slot *c = claim(page, 1, 1); // client
    a->calls[IOLAB_CALL_EPOLL_WAIT].count = 10;
    b->calls[IOLAB_CALL_FORK].count = 3;
    b->calls[IOLAB_CALL_READ] = {5, 500, 50};
    a->calls[IOLAB_CALL_READ] = {1, 100, 10};
    c->calls[IOLAB_CALL_SENDTO].count = 7;
    c->app.requests = 40;
    c->app.bytes = 640;
    c->app.errors = 1;
    c->app.hist[3] = 40;
    c->app.hist_count = 40;
    // A slot with data that was never claimed (state 0) must not count.
    page->slots[5].prog = 0;
    page->slots[5].calls[IOLAB_CALL_FORK].count = 1000;

    struct tally_totals t;
    tally_sum(page, 16, 0, TALLY_ANY_RUN, &t);
    CHECK(t.slots == 2);
    CHECK(t.max_run == 2);
    CHECK(t.calls[IOLAB_CALL_EPOLL_WAIT].count == 10);
    CHECK(t.calls[IOLAB_CALL_FORK].count == 3);
    CHECK(t.calls[IOLAB_CALL_READ].count == 6);
    CHECK(t.calls[IOLAB_CALL_READ].bytes == 600);
    CHECK(t.calls[IOLAB_CALL_READ].ns == 60);
    CHECK(t.requests == 0);

    tally_sum(page, 16, 0, 2, &t);
    CHECK(t.slots == 1);
    CHECK(t.calls[IOLAB_CALL_EPOLL_WAIT].count == 0);
    CHECK(t.calls[IOLAB_CALL_FORK].count == 3);

    tally_sum(page, 16, 1, TALLY_ANY_RUN, &t);
    CHECK(t.calls[IOLAB_CALL_SENDTO].count == 7);
    CHECK(t.requests == 40);
    CHECK(t.bytes == 640);
    CHECK(t.errors == 1);
    CHECK(t.hist[3] == 40);

    tally_sum(page, 16, 2, TALLY_ANY_RUN, &t);
    CHECK(t.slots == 0);

    // A header scribbled on by a program cannot push the reader past the validated slots.
    page->next_slot = 1000000;
    tally_sum(page, 16, 0, TALLY_ANY_RUN, &t);
    CHECK(t.calls[IOLAB_CALL_FORK].count == 3);
    CHECK(tally_overflow(page) == 0);
    iolab_page_unmap(page, 16);
    close(fd);
}

TEST_CASE("a page is its program's: slots that name other programs count for it all the same")
{
    int fd = -1;
    struct iolab_page *page = nullptr;
    REQUIRE(iolab_page_create(16, &fd, &page) == 0);
    // A learner's server writes request counts into slots that name the reference client (1)
    // and every other index: on its own page they are its own figures, never the client's.
    for (uint32_t prog : {0u, 1u, 2u, 99u}) {
        struct iolab_slot *s = claim(page, prog, 1);
        s->app.requests = 100;
        s->calls[IOLAB_CALL_SENDFILE].count = 5;
    }
    struct tally_totals t;
    tally_page(page, 16, &t);
    CHECK(t.slots == 4);
    CHECK(t.requests == 400);
    CHECK(t.calls[IOLAB_CALL_SENDFILE].count == 20);

    // A finished page carried as a base: counts add up, the gauges stay the newest page's.
    struct tally_totals base = t;
    base.in_flight = 7;
    tally_page(nullptr, 0, &t);
    CHECK(t.slots == 0);
    t.in_flight = 2;
    tally_add(&t, &base);
    CHECK(t.requests == 400);
    CHECK(t.calls[IOLAB_CALL_SENDFILE].count == 20);
    CHECK(t.in_flight == 2);
    iolab_page_unmap(page, 16);
    close(fd);
}

TEST_CASE("retired and moving slots count, a read that overlaps a move is retried or flagged")
{
    int fd = -1;
    struct iolab_page *page = nullptr;
    REQUIRE(iolab_page_create(8, &fd, &page) == 0);
    struct iolab_slot *live = claim(page, 0, 1), *retired = claim(page, 0, 1);
    struct iolab_slot *moving = claim(page, 0, 1);
    live->calls[IOLAB_CALL_READ].count = 1;
    retired->calls[IOLAB_CALL_READ].count = 10;
    __atomic_store_n(&retired->state, IOLAB_SLOT_RETIRED, __ATOMIC_RELEASE);
    moving->calls[IOLAB_CALL_READ].count = 100;
    __atomic_store_n(&moving->state, IOLAB_SLOT_MOVING, __ATOMIC_RELEASE);

    struct tally_totals t;
    tally_sum(page, 8, 0, TALLY_ANY_RUN, &t);
    CHECK(t.calls[IOLAB_CALL_READ].count == 111);
    CHECK(t.slots == 3);
    CHECK(t.unsettled == 0);

    // A move begun and never finished (its mover was killed): the reader gives up retrying,
    // keeps its last figures and says they are unsettled.
    page->moves_begun = 1;
    tally_sum(page, 8, 0, TALLY_ANY_RUN, &t);
    CHECK(t.calls[IOLAB_CALL_READ].count == 111);
    CHECK(t.unsettled == 1);
    // Once the next claimer has finished the move, it is counted as broken: loud, like the
    // overflow slot.
    page->moves_done = 1;
    page->moves_broken = 1;
    tally_sum(page, 8, 0, TALLY_ANY_RUN, &t);
    CHECK(t.unsettled == 0);
    CHECK(tally_overflow(page) == 1);
    page->overflow_claims = 2;
    CHECK(tally_overflow(page) == 3);
    iolab_page_unmap(page, 8);
}

// Issue 21: on main a program that wrote huge counts into its slots made the sums wrap (iolab
// showed 18446744073709550766 calls) and nothing said the figures were forged.
TEST_CASE("values no shim writes are left out of the sums, which never wrap, and are marked")
{
    int fd = -1;
    struct iolab_page *page = nullptr;
    REQUIRE(iolab_page_create(16, &fd, &page) == 0);
    struct iolab_slot *a = claim(page, 0, 1);
    struct iolab_slot *b = claim(page, 0, 1);
    a->calls[IOLAB_CALL_READ].count = 5;
    b->calls[IOLAB_CALL_READ].count = UINT64_MAX - 3;
    b->calls[IOLAB_CALL_WRITE].bytes = UINT64_MAX;
    b->app.hist[2] = UINT64_MAX;
    struct tally_totals t;
    tally_sum(page, 16, 0, TALLY_ANY_RUN, &t);
    CHECK(t.forged);
    CHECK(t.calls[IOLAB_CALL_READ].count == 5);
    CHECK(t.calls[IOLAB_CALL_WRITE].bytes == 0);
    CHECK(t.hist[2] == 0);

    // A header that claims more slots than the page validated has: bounded, and marked.
    b->calls[IOLAB_CALL_READ].count = 1;
    b->calls[IOLAB_CALL_WRITE].bytes = 0;
    b->app.hist[2] = 0;
    tally_sum(page, 16, 0, TALLY_ANY_RUN, &t);
    CHECK_FALSE(t.forged);
    CHECK(t.calls[IOLAB_CALL_READ].count == 6);
    page->next_slot = UINT32_MAX;
    page->nslots = UINT32_MAX;
    tally_sum(page, 16, 0, TALLY_ANY_RUN, &t);
    CHECK(t.forged);
    CHECK(t.calls[IOLAB_CALL_READ].count == 6);
    iolab_page_unmap(page, 16);
    close(fd);
}

// Issue 26: a program can write every header field of the page. A header that no longer says
// what iolab wrote marks the figures forged, and a seqlock held open on purpose is not waited on.
TEST_CASE("a scribbled header marks the figures forged and a seqlock held open never hangs a read")
{
    int fd = -1;
    struct iolab_page *page = nullptr;
    REQUIRE(iolab_page_create(16, &fd, &page) == 0);
    struct iolab_slot *a = claim(page, 0, 1);
    a->calls[IOLAB_CALL_READ].count = 5;
    struct tally_totals t;
    tally_sum(page, 16, 0, TALLY_ANY_RUN, &t);
    CHECK_FALSE(t.forged);

    SECTION("magic")
    {
        page->magic = 0;
    }
    SECTION("slot size")
    {
        page->slot_size = 1;
    }
    SECTION("slot count")
    {
        page->nslots = 17;
    }
    SECTION("more moves under way than the page has slots")
    {
        page->moves_begun = page->moves_done + 17;
    }
    tally_sum(page, 16, 0, TALLY_ANY_RUN, &t);
    CHECK(t.forged);
    CHECK(t.calls[IOLAB_CALL_READ].count == 5); // the slots are still read, within bounds
    iolab_page_unmap(page, 16);
    close(fd);
}

TEST_CASE("a move that never ends is read a bounded number of times and said to be unsettled")
{
    int fd = -1;
    struct iolab_page *page = nullptr;
    REQUIRE(iolab_page_create(16, &fd, &page) == 0);
    claim(page, 0, 1)->calls[IOLAB_CALL_READ].count = 2;
    page->moves_begun = page->moves_done + 1; // one move open, as a killed mover leaves it
    struct tally_totals t;
    tally_sum(page, 16, 0, TALLY_ANY_RUN, &t); // returns: the retries are bounded
    CHECK(t.unsettled == 1);
    CHECK_FALSE(t.forged);
    CHECK(t.calls[IOLAB_CALL_READ].count == 2);
    iolab_page_unmap(page, 16);
    close(fd);
}

static void put_site(struct iolab_slot *s, uint32_t object, uint64_t offset, unsigned call,
                     uint64_t count)
{
    struct iolab_site *e = &s->sites.site[s->sites.n++];
    e->object = object;
    e->offset = offset;
    e->count = count;
    e->call = call + 1;
}

static void put_object(struct iolab_page *p, uint32_t i, const char *name, uint32_t exe)
{
    snprintf(p->objects[i].name, sizeof p->objects[i].name, "%s", name);
    p->objects[i].exe = exe;
    p->objects[i].state = IOLAB_OBJECT_READY;
}

TEST_CASE("call sites are merged by object name and offset, across slots and pages")
{
    int fd1 = -1, fd2 = -1;
    struct iolab_page *p1 = nullptr, *p2 = nullptr;
    REQUIRE(iolab_page_create(8, &fd1, &p1) == 0);
    REQUIRE(iolab_page_create(8, &fd2, &p2) == 0);
    // The same two objects, named in another order on each page (each page names its own).
    put_object(p1, 0, "/srv/prog", 1);
    put_object(p1, 1, "/lib/libuv.so.1", 0);
    put_object(p2, 0, "/lib/libuv.so.1", 0);
    put_object(p2, 1, "/srv/prog", 1);
    struct iolab_slot *a = claim(p1, 0, 1), *b = claim(p1, 0, 1), *c = claim(p2, 0, 2);
    put_site(a, 0, 0x1234, IOLAB_CALL_READ, 10);
    put_site(b, 0, 0x1234, IOLAB_CALL_READ, 5); // the same site in another thread's slot
    put_site(b, 1, 0x99, IOLAB_CALL_READ, 2);   // libuv's read()
    a->sites.other[IOLAB_CALL_READ] = 1;
    put_site(c, 1, 0x1234, IOLAB_CALL_READ, 100); // the program's site on its second start
    put_site(c, 1, 0x1234, IOLAB_CALL_WRITE, 7);  // same address, another call (a pointer)

    struct tally_totals t1, t2;
    tally_page(p1, 8, &t1);
    CHECK_FALSE(t1.forged);
    REQUIRE(t1.sites.n == 2);
    CHECK(t1.sites.site[0].count == 15);
    CHECK(tally_sites_calls(&t1.sites, IOLAB_CALL_READ) == 18);
    tally_page(p2, 8, &t2);
    tally_add(&t1, &t2);
    REQUIRE(t1.sites.n == 3);
    CHECK(t1.sites.site[0].count == 115); // /srv/prog+0x1234 read, both pages
    CHECK(std::string(t1.sites.objects[t1.sites.site[0].object].name) == "/srv/prog");
    CHECK(tally_sites_calls(&t1.sites, IOLAB_CALL_READ) == 118);
    CHECK(tally_sites_calls(&t1.sites, IOLAB_CALL_WRITE) == 7);

    // An object index no page can hold is a forged site: left out, and said.
    put_site(c, 40, 0x10, IOLAB_CALL_READ, 1);
    tally_page(p2, 8, &t2);
    CHECK(t2.forged);
    iolab_page_unmap(p1, 8);
    iolab_page_unmap(p2, 8);
    close(fd1);
    close(fd2);
}
