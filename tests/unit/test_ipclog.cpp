// The IPC registry's line format (sandbox/count/iolab_ipclog.h): what the shim writes, the
// sandbox's sweep reads back exactly, and a line a program forged or cut short is refused rather
// than guessed at, since the sweep removes what it names.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>

extern "C" {
#include "iolab_ipclog.h"
}

namespace
{

std::string format(enum iolab_ipc_kind kind, int id, const char *name)
{
    char buf[IOLAB_IPC_LINE_MAX];
    size_t n = iolab_ipclog_format(buf, kind, id, name);
    return std::string(buf, n);
}

bool parse(const std::string &line, struct iolab_ipc_rec *rec)
{
    return iolab_ipclog_parse(line.data(), line.size(), rec) == 0;
}

} // namespace

TEST_CASE("ipclog: each kind of record is one line that parses back to itself", "[ipclog]")
{
    struct iolab_ipc_rec rec;
    CHECK(format(IOLAB_IPC_SHM, 32769, nullptr) == "shm 32769\n");
    CHECK(format(IOLAB_IPC_MSG, 0, nullptr) == "msg 0\n");
    CHECK(format(IOLAB_IPC_SEM, 2147483647, nullptr) == "sem 2147483647\n");
    CHECK(format(IOLAB_IPC_PSHM, 0, "/iolab-12-0-shm") == "pshm iolab-12-0-shm\n");
    CHECK(format(IOLAB_IPC_PMQ, 0, "//q") == "pmq q\n");

    for (int kind = IOLAB_IPC_SHM; kind <= IOLAB_IPC_SEM; kind++) {
        REQUIRE(parse(format((enum iolab_ipc_kind)kind, 98307, nullptr), &rec));
        CHECK(rec.kind == kind);
        CHECK(rec.id == 98307);
    }
    REQUIRE(parse(format(IOLAB_IPC_PSHM, 0, "/my.segment"), &rec));
    CHECK(rec.kind == IOLAB_IPC_PSHM);
    CHECK(std::string(rec.name) == "my.segment");
    REQUIRE(parse("pmq queue", &rec)); // the last line may lack its newline
    CHECK(rec.kind == IOLAB_IPC_PMQ);
    CHECK(std::string(rec.name) == "queue");

    std::string longest(IOLAB_IPC_NAME_MAX, 'n');
    std::string line = format(IOLAB_IPC_PMQ, 0, longest.c_str());
    CHECK(line.size() <= IOLAB_IPC_LINE_MAX);
    REQUIRE(parse(line, &rec));
    CHECK(std::string(rec.name) == longest);
}

TEST_CASE("ipclog: nothing is written for an object that has no valid record", "[ipclog]")
{
    CHECK(format(IOLAB_IPC_SHM, -1, nullptr).empty());
    CHECK(format(IOLAB_IPC_PSHM, 0, nullptr).empty());
    CHECK(format(IOLAB_IPC_PSHM, 0, "/").empty());
    CHECK(format(IOLAB_IPC_PSHM, 0, "/a/b").empty());
    CHECK(format(IOLAB_IPC_PMQ, 0, "/..").empty());
    CHECK(format(IOLAB_IPC_PMQ, 0, "two words").empty());
    CHECK(format(IOLAB_IPC_PMQ, 0, std::string(IOLAB_IPC_NAME_MAX + 1, 'n').c_str()).empty());
    CHECK(format(IOLAB_IPC_KINDS, 1, nullptr).empty());
}

TEST_CASE("ipclog: forged, cut or foreign lines are refused", "[ipclog]")
{
    struct iolab_ipc_rec rec;
    const char *bad[] = {
        "",
        "\n",
        "shm\n",
        "shm \n",
        "shm  5\n",
        "shm -5\n",
        "shm +5\n",
        "shm 05\n",
        "shm 5 \n",
        "shm 5x\n",
        "shm 2147483648\n",
        "shm 99999999999999999999\n",
        "SHM 5\n",
        "shmx 5\n",
        "pshm\n",
        "pshm /etc/passwd\n",
        "pshm ../../etc/passwd\n",
        "pshm ..\n",
        "pshm .\n",
        "pshm a b\n",
        "pshm a\tb\n",
        "pmq a/b\n",
        "sem 5\nshm 6\n",
        "key 0x0000 shmid\n",
    };
    for (const char *line : bad) {
        INFO("line: " << line);
        CHECK_FALSE(parse(line, &rec));
    }
    std::string nul = "pshm ok";
    nul += '\0';
    nul += "rest\n";
    CHECK_FALSE(parse(nul, &rec));
    CHECK_FALSE(parse("pmq " + std::string(IOLAB_IPC_NAME_MAX + 1, 'n') + "\n", &rec));
    CHECK(parse("shm 0\n", &rec));
    CHECK(rec.id == 0);
}
