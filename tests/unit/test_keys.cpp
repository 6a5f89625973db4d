// Key tables: lookup, the footer's choice of what fits (by priority, shown in table order), and
// the man page's KEYS section against the tables the TUI really has.
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <set>
#include <string>

extern "C" {
#include "ui/keys.h"
#include "ui/tui.h"
}

TEST_CASE("the footer keeps the highest priorities that fit, in their own order")
{
    const keys_item items[] = {
        {"1", "iterative", 100}, {"2", "epoll", 100}, {"Enter", "start", 90}, {"p", "prev", 30},
        {"n", "next", 95},       {"?", "help", 99},   {"q", "quit", 98},
    };
    char buf[256];
    // Everything fits in 160 columns.
    CHECK(keys_footer(items, 7, 160, buf, sizeof buf) == 7);
    CHECK(std::string(buf) == "1 iterative  2 epoll  Enter start  p prev  n next  ? help  q quit");
    // In 50, the lowest priorities go first (prev, then start), the order stays.
    CHECK(keys_footer(items, 7, 50, buf, sizeof buf) == 5);
    CHECK(std::string(buf) == "1 iterative  2 epoll  n next  ? help  q quit");
    // A lower-priority entry that still fits in the leftover space is taken.
    CHECK(keys_footer(items, 7, 56, buf, sizeof buf) == 6);
    CHECK(std::string(buf) == "1 iterative  2 epoll  p prev  n next  ? help  q quit");
    // Nothing fits in 3 columns: an empty footer, not a cut entry.
    CHECK(keys_footer(items, 7, 3, buf, sizeof buf) == 0);
    CHECK(std::string(buf).empty());
}

TEST_CASE("keys are found by key or alternative, documentation-only bindings never")
{
    int calls = 0;
    auto fn = [](void *self, view_ctx *, int, view_action *) {
        ++*static_cast<int *>(self);
        return 0;
    };
    const keybind v[] = {
        {'a', 'b', "a/b", "alpha", "first", 1, fn},
        {'1', 0, "1-9", nullptr, "modes, handled by the screen", 0, nullptr},
    };
    keytable t = {"t", v, 2};
    REQUIRE(keys_find(&t, 'a'));
    REQUIRE(keys_find(&t, 'b'));
    keys_find(&t, 'b')->fn(&calls, nullptr, 'b', nullptr);
    CHECK(calls == 1);
    CHECK(keys_find(&t, '1') == nullptr);
    CHECK(keys_find(&t, 'z') == nullptr);
}

TEST_CASE("the man page lists every key of every table, and no other")
{
    // KEYS: ".SS Table title" then ".TP" / ".B name" / help, as iolab.1 writes them.
    std::ifstream man(IOLAB_SOURCE_DIR "/assets/iolab.1");
    REQUIRE(man);
    std::map<std::string, std::set<std::string>> documented;
    std::string line, table;
    bool in_keys = false, next_is_name = false;
    while (std::getline(man, line)) {
        if (line.rfind(".SH ", 0) == 0) {
            in_keys = line == ".SH KEYS";
            continue;
        }
        if (!in_keys)
            continue;
        if (line.rfind(".SS ", 0) == 0)
            table = line.substr(4);
        else if (line == ".TP")
            next_is_name = true;
        else if (next_is_name && line.rfind(".B ", 0) == 0) {
            std::string name = line.substr(3), plain;
            for (size_t i = 0; i < name.size(); i++)
                if (!(name[i] == '\\' && i + 1 < name.size() && name[i + 1] == '-'))
                    plain += name[i];
            documented[table].insert(plain);
            next_is_name = false;
        }
    }
    const keytable *tables[8];
    size_t n = tui_all_keytables(tables, 8);
    REQUIRE(n >= 4);
    std::map<std::string, std::set<std::string>> real;
    for (size_t t = 0; t < n; t++)
        for (size_t i = 0; i < tables[t]->n; i++)
            if (tables[t]->v[i].help)
                real[tables[t]->title].insert(tables[t]->v[i].name);
    CHECK(documented == real);
}
