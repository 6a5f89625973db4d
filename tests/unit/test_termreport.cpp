// The filter between getch() and the views: a terminal's report (mouse, focus, cursor position)
// never reaches a view as keys, however far apart its bytes arrive, while a lone Esc and the
// keys typed around a report still do.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

extern "C" {
#include "ui/termreport.h"
}

namespace
{

// Feeds bytes at time t (ms), each 1 ms after the last; returns the keys delivered.
std::vector<int> feed(termreport &r, const std::string &bytes, int64_t &t)
{
    std::vector<int> keys;
    for (unsigned char b : bytes) {
        int out[2];
        int n = termreport_feed(&r, b, t++, out);
        keys.insert(keys.end(), out, out + n);
    }
    return keys;
}

std::vector<int> keys_of(const std::string &s)
{
    return std::vector<int>(s.begin(), s.end());
}

} // namespace

TEST_CASE("termreport: a whole SGR mouse report, press and release, delivers nothing")
{
    termreport r;
    termreport_init(&r);
    int64_t t = 0;
    CHECK(feed(r, "\x1b[<0;12;5M\x1b[<0;12;5m", t).empty());
    CHECK_FALSE(termreport_inside(&r));
    CHECK(feed(r, "t1", t) == keys_of("t1"));
}

TEST_CASE("termreport: a report split after its Esc by any delay is dropped whole")
{
    termreport r;
    termreport_init(&r);
    int64_t t = 0;
    CHECK(feed(r, "\x1b", t).empty());
    CHECK(termreport_holding(&r)); // the caller waits TERMREPORT_HOLD_MS for what follows
    t += 60;
    CHECK(feed(r, "[<0;", t).empty());
    CHECK(termreport_inside(&r));
    t += 5000; // inside a report, no delay ends it
    CHECK(feed(r, "12;5", t).empty());
    t += 5000;
    CHECK(feed(r, "M", t).empty());
    CHECK_FALSE(termreport_inside(&r));
    CHECK(feed(r, "2", t) == keys_of("2"));
}

TEST_CASE("termreport: a lone Esc is delivered when the hold runs out, or with the next key")
{
    termreport r;
    termreport_init(&r);
    int64_t t = 0;
    CHECK(feed(r, "\x1b", t).empty());
    CHECK(termreport_expire(&r, t) == 27);
    CHECK_FALSE(termreport_holding(&r));
    CHECK(termreport_expire(&r, t) == -1);
    // Esc then a key at once (Alt-x, or Esc typed before a key): both, in order.
    t += 5000;
    CHECK(feed(r, "\x1bq", t) == std::vector<int>{27, 'q'});
    // Esc Esc: the first is lone, the second held in its turn.
    CHECK(feed(r, "\x1b\x1b", t) == std::vector<int>{27});
    CHECK(termreport_holding(&r));
    CHECK(termreport_expire(&r, t) == 27);
}

TEST_CASE("termreport: a report whose Esc came after the hold still does not become keys")
{
    termreport r;
    termreport_init(&r);
    int64_t t = 0;
    feed(r, "\x1b", t);
    CHECK(termreport_expire(&r, t) == 27); // the Esc has acted
    t += 400;                              // the rest arrives late, within TERMREPORT_LATE_MS
    CHECK(feed(r, "[<0;12;5M", t).empty());
    CHECK(feed(r, "3t", t) == keys_of("3t"));
    // Long after a lone Esc, or after another key, '[' is a key like any.
    feed(r, "\x1b", t);
    termreport_expire(&r, t);
    t += TERMREPORT_LATE_MS + 1;
    CHECK(feed(r, "[", t) == keys_of("["));
    feed(r, "\x1b", t);
    termreport_expire(&r, t);
    CHECK(feed(r, "j[", t) == keys_of("j["));
}

TEST_CASE("termreport: X10 mouse, focus and cursor position reports end at their last byte")
{
    termreport r;
    termreport_init(&r);
    int64_t t = 0;
    // X10: Esc [ M and three bytes, which may be anything printable, digits and 'M' included.
    CHECK(feed(r, "\x1b[M 1M", t).empty());
    CHECK(feed(r, "1", t) == keys_of("1"));
    // Focus in and out.
    CHECK(feed(r, "\x1b[I\x1b[O", t).empty());
    // A cursor position report, and a CSI with an intermediate byte.
    CHECK(feed(r, "\x1b[12;40R", t).empty());
    CHECK(feed(r, "\x1b[?1;2c", t).empty());
    CHECK(feed(r, "n", t) == keys_of("n"));
}

TEST_CASE("termreport: keys curses decoded pass, even inside a report")
{
    termreport r;
    termreport_init(&r);
    int64_t t = 0;
    const int key_resize = 0x19a, key_up = 0x103;
    CHECK(feed(r, "\x1b[<0;1", t).empty());
    int out[2];
    REQUIRE(termreport_feed(&r, key_resize, t, out) == 1);
    CHECK(out[0] == key_resize);
    CHECK(feed(r, ";1M", t).empty());
    // A held Esc then a decoded key: both.
    feed(r, "\x1b", t);
    REQUIRE(termreport_feed(&r, key_up, t, out) == 2);
    CHECK(out[0] == 27);
    CHECK(out[1] == key_up);
}

TEST_CASE("termreport: a control byte or a runaway ends a report, and typing goes on")
{
    termreport r;
    termreport_init(&r);
    int64_t t = 0;
    // Esc inside a report begins another; Enter ends it and is a key.
    CHECK(feed(r, "\x1b[12\x1b[<0;1;1M", t).empty());
    CHECK(feed(r, "\x1b[12\r", t) == std::vector<int>{'\r'});
    // A report longer than TERMREPORT_MAX bytes ends there.
    std::string runaway = "\x1b[" + std::string(TERMREPORT_MAX, '1');
    feed(r, runaway, t);
    CHECK_FALSE(termreport_inside(&r));
    CHECK(feed(r, "2", t) == keys_of("2"));
}
