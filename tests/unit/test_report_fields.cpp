// What the jail can do travels as typed fields of the sandbox's report, read by engine/jail.c
// through engine/sandbox_line.c: iolab never looks for a sentence of the launcher's "missing" list.
#include <catch2/catch.hpp>

extern "C" {
#include "engine/sandbox_line.h"
}

TEST_CASE("report booleans are read typed, and a sentence that names a feature is not one")
{
    struct sandbox_line *r = sandbox_line_parse(
        R"j({"pid":1,"sandbox":{"tier":"reduced","features":{"cgroup_memory":true},)j"
        R"j("posix_mqueue":false,"missing":["POSIX message queues (mount /dev/mqueue)"]}})j");
    REQUIRE(r);
    bool b = true;
    CHECK(sandbox_line_bool(r, "sandbox.posix_mqueue", &b));
    CHECK_FALSE(b);
    b = false;
    CHECK(sandbox_line_bool(r, "sandbox.features.cgroup_memory", &b)); // nested: by its path
    CHECK(b);
    CHECK_FALSE(sandbox_line_bool(r, "sandbox.tier", &b));        // a string is not a boolean
    CHECK_FALSE(sandbox_line_bool(r, "sandbox.seccomp_tty", &b)); // missing
    sandbox_line_free(r);

    // A launcher that names queues only in prose (no field) leaves the field missing: the
    // caller keeps its default rather than guessing from the sentence.
    r = sandbox_line_parse(R"j({"sandbox":{"missing":["POSIX message queues"]}})j");
    REQUIRE(r);
    CHECK_FALSE(sandbox_line_bool(r, "sandbox.posix_mqueue", &b));
    sandbox_line_free(r);
}
