// A real counter page for tests that run programs under the counting shim: the page's own
// descriptor is close-on-exec (as iolab creates it), so children inherit a duplicate, and env()
// names that duplicate, the shim and the program index the way the engine does.
#pragma once

#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fcntl.h>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include "iolab_page.h"
}

namespace iolab_test
{

struct CounterPage {
    int fd = -1, inherit = -1;
    uint32_t nslots;
    struct iolab_page *page = nullptr;

    explicit CounterPage(uint32_t n = 64) : nslots(n)
    {
        REQUIRE(iolab_page_create(nslots, &fd, &page) == 0);
        inherit = fcntl(fd, F_DUPFD, 100);
        REQUIRE(inherit >= 100);
    }
    CounterPage(const CounterPage &) = delete;
    CounterPage &operator=(const CounterPage &) = delete;
    ~CounterPage()
    {
        close(inherit);
        close(fd);
        iolab_page_unmap(page, nslots);
    }

    // NAME=value entries that put the shim and this page into a program (Child::start's env).
    std::vector<std::string> env(int prog = 0, int run = 1) const
    {
        return {"LD_PRELOAD=" + shim(), "IOLAB_COUNTERS_FD=" + std::to_string(inherit),
                "IOLAB_PROG=" + std::to_string(prog), "IOLAB_RUN=" + std::to_string(run)};
    }

    // Calls by label, summed over every claimed slot of every program.
    std::map<std::string, uint64_t> calls() const
    {
        std::map<std::string, uint64_t> c;
        for (uint32_t i = 0; i < nslots; i++)
            if (const struct iolab_slot *s = iolab_page_slot(page, nslots, i))
                for (int k = 0; k < IOLAB_NCALLS; k++)
                    c[iolab_call_info[k].label] += iolab_slot_calls(s, k);
        return c;
    }
};

} // namespace iolab_test
