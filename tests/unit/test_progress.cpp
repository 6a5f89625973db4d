// The progress store: round trips through the real file, damaged files kept aside, and a crash
// between writing the temporary file and renaming it leaving the old progress intact.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <ctime>
#include <unistd.h>

extern "C" {
#include "progress/progress.h"
}

using namespace iolab_test;

static std::vector<std::string> files_in(const std::string &dir)
{
    std::vector<std::string> out;
    DIR *d = opendir(dir.c_str());
    while (struct dirent *e = d ? readdir(d) : nullptr)
        if (e->d_name[0] != '.')
            out.push_back(e->d_name);
    if (d)
        closedir(d);
    return out;
}

TEST_CASE("progress: a missing file is empty progress, and a save round-trips")
{
    TempDir t;
    std::string path = t / "state/iolab/progress.json";
    struct progress *p = nullptr;
    REQUIRE(progress_load(path.c_str(), &p) == 0);
    CHECK(p->npacks == 0);
    CHECK(p->damaged == nullptr);
    REQUIRE(progress_mark_done(p, "core", "echo", "epoll") == 0);
    REQUIRE(progress_mark_done(p, "core", "echo", "epoll") == 0); // idempotent
    REQUIRE(progress_mark_done(p, "core", "echo", "fork") == 0);
    REQUIRE(progress_mark_done(p, "core", "files", "sendfile") == 0);
    REQUIRE(progress_set_last(p, "core", "files", "sendfile") == 0);
    REQUIRE(progress_set_answer(p, "core", "echo", "quiz", "b") == 0);
    REQUIRE(progress_save(p) == 0); // creates state/iolab/
    progress_free(p);

    REQUIRE(progress_load(path.c_str(), &p) == 0);
    CHECK(progress_is_done(p, "core", "echo", "epoll"));
    CHECK(progress_is_done(p, "core", "echo", "fork"));
    CHECK_FALSE(progress_is_done(p, "core", "echo", "thread"));
    CHECK_FALSE(progress_is_done(p, "other", "echo", "epoll"));
    CHECK(progress_lesson_done(p, "core", "echo") == 2);
    CHECK(progress_lesson_done(p, "core", "ech") == 0); // a prefix is not a lesson
    const struct progress_pack *pk = progress_pack_find(p, "core");
    REQUIRE(pk);
    CHECK(std::string(pk->last_lesson) == "files");
    CHECK(std::string(pk->last_step) == "sendfile");
    REQUIRE(pk->nanswers == 1);
    CHECK(std::string(pk->answers[0].value) == "b");
    progress_free(p);
    // Nothing but the file itself is left in the directory (no temporary files).
    CHECK(files_in(t / "state/iolab") == std::vector<std::string>{"progress.json"});
}

TEST_CASE("progress: a step's records survive a save, each feature's field on its own")
{
    TempDir t;
    std::string path = t / "progress.json";
    struct progress *p = nullptr;
    REQUIRE(progress_load(path.c_str(), &p) == 0);
    long long before = (long long)time(nullptr);
    REQUIRE(progress_field_set(p, "core", "echo", "quiz", "quiz",
                               "{\"tries\": 2, \"answers\": [[1]]}") == 0);
    REQUIRE(progress_field_set(p, "core", "echo", "quiz", "predict", "{\"guess\": 7.5}") == 0);
    // Setting a field again replaces it; other fields stay.
    REQUIRE(progress_field_set(p, "core", "echo", "quiz", "quiz", "{\"tries\": 3}") == 0);
    REQUIRE(progress_mark_done(p, "core", "echo", "quiz") == 0);
    // Only a JSON object is a record, and a field has a name.
    CHECK(progress_field_set(p, "core", "echo", "quiz", "quiz", "[1]") == -EINVAL);
    CHECK(progress_field_set(p, "core", "echo", "quiz", "quiz", "{\"a\": ") == -EINVAL);
    CHECK(progress_field_set(p, "core", "echo", "quiz", "", "{}") == -EINVAL);
    REQUIRE(progress_save(p) == 0);
    progress_free(p);

    REQUIRE(progress_load(path.c_str(), &p) == 0);
    REQUIRE(p->damaged == nullptr);
    CHECK(std::string(progress_field_get(p, "core", "echo", "quiz", "quiz")) == "{\"tries\":3}");
    CHECK(std::string(progress_field_get(p, "core", "echo", "quiz", "predict")) ==
          "{\"guess\":7.5}");
    CHECK(progress_field_get(p, "core", "echo", "quiz", "sweep") == nullptr);
    CHECK(progress_field_get(p, "core", "echo", "other", "quiz") == nullptr);
    CHECK(progress_field_get(p, "core", "ech", "quiz", "quiz") == nullptr);
    const struct progress_record *r = progress_record_find(p, "core", "echo", "quiz");
    REQUIRE(r);
    CHECK(r->done_at >= before);
    CHECK(r->updated >= r->done_at);
    CHECK(r->nfields == 2);

    // An import puts a record as it comes, times included.
    struct progress_field f = {(char *)"exercise", (char *)"{\"attempts\": 4}"};
    struct progress_record in = {(char *)"files/sendfile", 1000, 900, &f, 1};
    REQUIRE(progress_record_put(p, "core", &in) == 0);
    r = progress_record_find(p, "core", "files", "sendfile");
    REQUIRE(r);
    CHECK(r->updated == 1000);
    CHECK(r->done_at == 900);
    CHECK(std::string(progress_field_get(p, "core", "files", "sendfile", "exercise")) ==
          "{\"attempts\":4}");
    struct progress_field bad = {(char *)"exercise", (char *)"7"};
    struct progress_record wrong = {(char *)"files/x", 1, 1, &bad, 1};
    CHECK(progress_record_put(p, "core", &wrong) == -EINVAL);
    CHECK(progress_record_find(p, "core", "files", "x") == nullptr);

    // A time of 16 digits is kept to the second (the fuzzer found 8820150033333329 coming back
    // as ...330 when it went out through cJSON's 15-digit number printer).
    struct progress_record far = {(char *)"files/far", 8820150033333329LL, 9007199254740992LL,
                                  nullptr, 0};
    REQUIRE(progress_record_put(p, "core", &far) == 0);
    REQUIRE(progress_save(p) == 0);
    progress_free(p);
    REQUIRE(progress_load(path.c_str(), &p) == 0);
    r = progress_record_find(p, "core", "files", "far");
    REQUIRE(r);
    CHECK(r->updated == 8820150033333329LL);
    CHECK(r->done_at == 9007199254740992LL);

    // Resetting a lesson forgets its records, and only its.
    CHECK(progress_reset(p, "core", "echo") >= 2);
    CHECK(progress_record_find(p, "core", "echo", "quiz") == nullptr);
    CHECK(progress_record_find(p, "core", "files", "sendfile") != nullptr);
    progress_free(p);
}

TEST_CASE("progress: a record of the wrong shape is damage, moved aside")
{
    TempDir t;
    std::string path = t / "progress.json";
    const char *damaged[] = {
        R"({"format":1,"packs":{"core":{"steps":{"echo/a":{"fields":{"quiz":3}}}}}})",
        R"({"format":1,"packs":{"core":{"steps":{"echo/a":{"updated":-1}}}}})",
        R"({"format":1,"packs":{"core":{"steps":{"noslash":{}}}}})",
        R"({"format":1,"packs":{"core":{"steps":{"echo/a":{},"echo/a":{}}}}})",
    };
    for (const char *text : damaged) {
        INFO(text);
        spit(path, text);
        struct progress *p = nullptr;
        REQUIRE(progress_load(path.c_str(), &p) == 0);
        CHECK(p->damaged != nullptr);
        CHECK(p->npacks == 0);
        progress_free(p);
    }
}

TEST_CASE("progress: reset forgets one lesson or everything")
{
    TempDir t;
    struct progress *p = nullptr;
    REQUIRE(progress_load((t / "p.json").c_str(), &p) == 0);
    progress_mark_done(p, "core", "echo", "epoll");
    progress_mark_done(p, "core", "files", "sendfile");
    progress_set_last(p, "core", "echo", "epoll");
    CHECK(progress_reset(p, nullptr, "echo") == 2);
    CHECK_FALSE(progress_is_done(p, "core", "echo", "epoll"));
    CHECK(progress_is_done(p, "core", "files", "sendfile"));
    CHECK(progress_pack_find(p, "core")->last_lesson == nullptr);
    CHECK(progress_reset(p, nullptr, nullptr) == 1);
    CHECK(p->npacks == 0);
    progress_free(p);
}

TEST_CASE("progress: a damaged file is moved aside and reported, never overwritten")
{
    const char *bad[] = {"{\"format\": 1, \"packs\": {\"core\": {\"done\": [\"echo/ep",
                         "{\"format\": 1, \"packs\": {\"core\": {\"done\": [42]}}}",
                         "{\"format\": 99, \"packs\": {}}", "\x01\x02garbage", ""};
    for (const char *text : bad) {
        TempDir t;
        std::string path = t / "progress.json";
        spit(path, text);
        struct progress *p = nullptr;
        REQUIRE(progress_load(path.c_str(), &p) == 0);
        REQUIRE(p->damaged != nullptr);
        CHECK(p->npacks == 0);
        std::string aside = p->damaged;
        CHECK(aside.find(path + ".damaged-") == 0);
        CHECK(slurp(aside) == text); // kept byte for byte
        CHECK(access(path.c_str(), F_OK) != 0);
        // A save after that writes a fresh file and leaves the damaged copy alone.
        progress_mark_done(p, "core", "echo", "epoll");
        REQUIRE(progress_save(p) == 0);
        progress_free(p);
        CHECK(slurp(aside) == text);
        REQUIRE(progress_load(path.c_str(), &p) == 0);
        CHECK(p->damaged == nullptr);
        CHECK(progress_is_done(p, "core", "echo", "epoll"));
        progress_free(p);
    }
}

TEST_CASE("progress: an unreadable damaged file that cannot be moved aside fails the load")
{
    if (geteuid() == 0) {
        // Root ignores directory permissions; a read-only bind mount would be needed instead.
        TempDir t;
        std::string path = t / "progress.json";
        spit(path, "not json");
        struct progress *p = nullptr;
        REQUIRE(progress_load(path.c_str(), &p) == 0);
        CHECK(p->damaged != nullptr);
        progress_free(p);
        return;
    }
    TempDir t;
    std::string path = t / "progress.json";
    spit(path, "not json");
    chmod(t.path.c_str(), 0500);
    struct progress *p = nullptr;
    CHECK(progress_load(path.c_str(), &p) < 0);
    CHECK(p == nullptr);
    chmod(t.path.c_str(), 0700);
    CHECK(slurp(path) == "not json");
}

TEST_CASE("progress: a crash between write and rename keeps the old progress")
{
    TempDir t;
    std::string path = t / "progress.json";
    struct progress *p = nullptr;
    REQUIRE(progress_load(path.c_str(), &p) == 0);
    progress_mark_done(p, "core", "echo", "epoll");
    REQUIRE(progress_save(p) == 0);
    progress_free(p);
    std::string before = slurp(path);

    // A real process writes the new version's temporary file and dies by SIGKILL before the
    // rename, as a crash or a power cut would leave it.
    int ready[2];
    REQUIRE(pipe(ready) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        struct progress *q = nullptr;
        if (progress_load(path.c_str(), &q) < 0)
            _exit(1);
        progress_mark_done(q, "core", "echo", "fork");
        char tmp[4096];
        if (progress_write_temp(q, tmp, sizeof tmp) < 0)
            _exit(1);
        if (write(ready[1], "x", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    close(ready[1]);
    char c;
    REQUIRE(read(ready[0], &c, 1) == 1);
    close(ready[0]);
    kill(pid, SIGKILL);
    int st;
    waitpid(pid, &st, 0);

    CHECK(slurp(path) == before);
    auto names = files_in(t.path);
    CHECK(names.size() == 2); // the file and the orphaned temporary file
    REQUIRE(progress_load(path.c_str(), &p) == 0);
    CHECK(p->damaged == nullptr);
    CHECK(progress_is_done(p, "core", "echo", "epoll"));
    CHECK_FALSE(progress_is_done(p, "core", "echo", "fork"));
    progress_free(p);
}

TEST_CASE("iolab progress: prints, and reset needs --yes without a terminal")
{
    TempDir t;
    std::vector<std::string> env = {"XDG_STATE_HOME=" + t.path, "HOME=" + t.path};
    auto [code, out] = run({bin("iolab"), "progress"}, env);
    CHECK(code == 0);
    CHECK(out.find("No progress yet") != std::string::npos);

    struct progress *p = nullptr;
    REQUIRE(progress_load((t / "iolab/progress.json").c_str(), &p) == 0);
    progress_mark_done(p, "core", "echo", "epoll");
    progress_set_last(p, "core", "echo", "epoll");
    REQUIRE(progress_save(p) == 0);
    progress_free(p);

    std::tie(code, out) = run({bin("iolab"), "progress"}, env);
    CHECK(code == 0);
    CHECK(out.find("done  echo/epoll") != std::string::npos);
    std::tie(code, out) = run({bin("iolab"), "progress", "--json"}, env);
    CHECK(code == 0);
    CHECK(out.find("\"echo/epoll\"") != std::string::npos);

    std::tie(code, out) = run({bin("iolab"), "progress", "--reset", "echo"}, env);
    CHECK(code == 2);
    CHECK(out.find("--yes") != std::string::npos);
    std::tie(code, out) = run({bin("iolab"), "progress"}, env);
    CHECK(out.find("done  echo/epoll") != std::string::npos); // still there

    std::tie(code, out) = run({bin("iolab"), "progress", "--reset", "echo", "--yes"}, env);
    CHECK(code == 0);
    std::tie(code, out) = run({bin("iolab"), "progress"}, env);
    CHECK(out.find("echo/epoll") == std::string::npos);

    spit(t / "iolab/progress.json", "{broken");
    std::tie(code, out) = run({bin("iolab"), "progress"}, env);
    CHECK(code == 0);
    CHECK(out.find("was damaged") != std::string::npos);
    CHECK(out.find("progress.json.damaged-") != std::string::npos);
}

// Issue 21: on main each of these was read as valid progress (a duplicated key's records then
// vanished at the next save; a NUL cut a string short or hid what followed it).
TEST_CASE("progress: a key given twice, a NUL, bytes that are not UTF-8 or trailing text are "
          "damage")
{
    const std::string bad[] = {
        R"({"format": 1, "packs": {"core": {"done": ["a/x"]}, "core": {"done": ["b/y"]}}})",
        R"({"format": 1, "packs": {"core": {"done": ["a/x"], "done": ["b/y"]}}})",
        R"({"format": 1, "packs": {"core": {"answers": {"a/q": "1", "a/q": "2"}}}})",
        R"({"format": 1, "format": 1, "packs": {}})",
        R"({"format": 1, "packs": {"core": {"done": ["a/x\u0000y"]}}})",
        std::string(R"({"format": 1, "packs": {"core": {"done": ["a/x"]}}})") + '\0' + "junk",
        std::string(R"({"format": 1, "packs": {"core": {"done": ["a/x)") + "\xff" + R"("]}}})",
        R"({"format": 1, "packs": {}} {"more": 1})",
    };
    for (const auto &text : bad) {
        INFO("file: " << text);
        TempDir t;
        std::string path = t / "progress.json";
        spit(path, text);
        struct progress *p = nullptr;
        REQUIRE(progress_load(path.c_str(), &p) == 0);
        REQUIRE(p->damaged != nullptr);
        CHECK(p->npacks == 0);
        CHECK(slurp(p->damaged) == text); // kept byte for byte
        progress_free(p);
    }
}

// Issue 21: on main a FIFO blocked progress_load() (and `iolab progress`) for ever.
TEST_CASE("progress: a FIFO or a directory is refused at once and left alone")
{
    TempDir t;
    std::string fifo = t / "progress.json";
    REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
    struct progress *p = nullptr;
    CHECK(progress_load(fifo.c_str(), &p) == -EINVAL);
    CHECK(p == nullptr);
    struct stat st;
    REQUIRE(stat(fifo.c_str(), &st) == 0);
    CHECK(S_ISFIFO(st.st_mode)); // not moved aside: it is not a file iolab wrote

    std::string dir = t / "dir.json";
    REQUIRE(mkdir(dir.c_str(), 0700) == 0);
    CHECK(progress_load(dir.c_str(), &p) == -EINVAL);

    // A link to a regular file is followed.
    std::string real = t / "real.json", link = t / "link.json";
    spit(real, R"({"format": 1, "packs": {"core": {"done": ["a/x"]}}})");
    REQUIRE(symlink(real.c_str(), link.c_str()) == 0);
    REQUIRE(progress_load(link.c_str(), &p) == 0);
    CHECK(progress_is_done(p, "core", "a", "x"));
    progress_free(p);

    std::vector<std::string> env = {"XDG_STATE_HOME=" + t.path, "HOME=" + t.path};
    REQUIRE(mkdir((t / "iolab").c_str(), 0700) == 0);
    REQUIRE(mkfifo((t / "iolab/progress.json").c_str(), 0600) == 0);
    auto [code, out] = run({bin("iolab"), "progress"}, env);
    CHECK(code == 1);
    CHECK(out.find("progress.json: not a regular file (a FIFO); move it away") !=
          std::string::npos);
}

// Issue 21: on main a file of any size was read whole (the bound was 16 MiB and then the file
// was called damaged). The bound is now PROGRESS_MAX_BYTES, said in the message.
TEST_CASE("progress: a file above the bound is refused without being read")
{
    TempDir t;
    std::string path = t / "progress.json";
    int fd = open(path.c_str(), O_WRONLY | O_CREAT, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(ftruncate(fd, (off_t)PROGRESS_MAX_BYTES + 1) == 0); // sparse: no disk used
    close(fd);
    struct progress *p = nullptr;
    CHECK(progress_load(path.c_str(), &p) == -EFBIG);
    CHECK(access(path.c_str(), F_OK) == 0);

    std::vector<std::string> env = {"XDG_STATE_HOME=" + t.path, "HOME=" + t.path};
    REQUIRE(mkdir((t / "iolab").c_str(), 0700) == 0);
    REQUIRE(rename(path.c_str(), (t / "iolab/progress.json").c_str()) == 0);
    auto [code, out] = run({bin("iolab"), "progress"}, env);
    CHECK(code == 1);
    CHECK(out.find("larger than 256 MiB") != std::string::npos);
}

// Issue 21: on main this load took seconds (each record searched the ones before it). Only
// completeness is checked here; tests/bench/bench_progress times it.
TEST_CASE("progress: 400,000 records load completely and in order")
{
    TempDir t;
    std::string path = t / "progress.json";
    const size_t n = 400000;
    {
        std::ofstream f(path);
        f << R"({"format": 1, "packs": {"core": {"done": [)";
        for (size_t i = 0; i < n; i++)
            f << (i ? "," : "") << "\"l" << i % 1000 << "/s" << i << "\"";
        f << "], \"answers\": {";
        for (size_t i = 0; i < 1000; i++)
            f << (i ? "," : "") << "\"l" << i << "/q\": \"" << i << "\"";
        f << R"(}, "last": {"lesson": "l7", "step": "s7"}}}})";
    }
    struct progress *p = nullptr;
    REQUIRE(progress_load(path.c_str(), &p) == 0);
    REQUIRE(p->damaged == nullptr);
    REQUIRE(p->npacks == 1);
    const progress_pack *pk = &p->packs[0];
    REQUIRE(pk->ndone == n);
    CHECK(std::string(pk->done[0]) == "l0/s0");
    CHECK(std::string(pk->done[n - 1]) == "l999/s399999");
    CHECK(pk->nanswers == 1000);
    CHECK(progress_lesson_done(p, "core", "l7") == n / 1000);
    CHECK(std::string(pk->last_step) == "s7");
    progress_free(p);
}

// Issue 21: on main `--reset nosuch --yes` said it forgot 0 records and exited 0.
TEST_CASE("iolab progress --reset of a lesson or pack with no records is an error")
{
    TempDir t;
    std::vector<std::string> env = {"XDG_STATE_HOME=" + t.path, "HOME=" + t.path};
    struct progress *p = nullptr;
    REQUIRE(progress_load((t / "iolab/progress.json").c_str(), &p) == 0);
    progress_mark_done(p, "core", "echo", "epoll");
    progress_mark_done(p, "core", "files", "sendfile");
    REQUIRE(progress_save(p) == 0);
    progress_free(p);

    auto [code, out] = run({bin("iolab"), "progress", "--reset", "nosuch", "--yes"}, env);
    CHECK(code == 1);
    CHECK(out.find("no progress is recorded for lesson 'nosuch'; lessons with progress: echo, "
                   "files.") != std::string::npos);
    std::tie(code, out) =
        run({bin("iolab"), "progress", "--reset", "--pack", "nope", "--yes"}, env);
    CHECK(code == 1);
    CHECK(out.find("packs with progress: core") != std::string::npos);
    std::tie(code, out) = run({bin("iolab"), "progress"}, env);
    CHECK(out.find("done  echo/epoll") != std::string::npos); // nothing was changed
    std::tie(code, out) = run({bin("iolab"), "progress", "--reset", "echo", "--yes"}, env);
    CHECK(code == 0);
    CHECK(out.find("(1 record)") != std::string::npos);
}

TEST_CASE("progress: a save under the lock takes in what another process saved meanwhile")
{
    TempDir t;
    std::string path = t / "iolab/progress.json";
    // Two iolab processes on one file, as a TUI and `iolab progress --import` would be.
    struct progress *tui = nullptr, *other = nullptr;
    REQUIRE(progress_load(path.c_str(), &tui) == 0);
    REQUIRE(progress_mark_done(tui, "p", "a", "seen") == 0);
    REQUIRE(progress_save(tui) == 0);
    REQUIRE(progress_load(path.c_str(), &other) == 0);

    // The other process imports two steps and forgets one the TUI had.
    REQUIRE(progress_mark_done(other, "p", "b", "imported") == 0);
    REQUIRE(progress_field_set(other, "p", "b", "quiz", "quiz", "{\"tries\": 3}") == 0);
    REQUIRE(progress_reset(other, "p", "a") > 0);
    int lock = progress_lock(path.c_str());
    REQUIRE(lock >= 0);
    REQUIRE(progress_save(other) == 0);
    progress_unlock(lock);

    // The TUI, which never saw those, marks a step of its own and saves the usual way.
    REQUIRE(progress_mark_done(tui, "p", "c", "mine") == 0);
    lock = progress_lock(path.c_str());
    REQUIRE(lock >= 0);
    CHECK(progress_sync(tui) == 1);
    REQUIRE(progress_save(tui) == 0);
    progress_unlock(lock);

    struct progress *after = nullptr;
    REQUIRE(progress_load(path.c_str(), &after) == 0);
    CHECK(progress_is_done(after, "p", "b", "imported"));
    CHECK(progress_field_get(after, "p", "b", "quiz", "quiz") != nullptr);
    CHECK(progress_is_done(after, "p", "c", "mine"));
    CHECK_FALSE(progress_is_done(after, "p", "a", "seen")); // the reset elsewhere holds
    // Nothing changed on disk since: a second sync is a no-op.
    lock = progress_lock(path.c_str());
    CHECK(progress_sync(tui) == 0);
    progress_unlock(lock);
    progress_free(after);
    progress_free(tui);
    progress_free(other);
}

TEST_CASE("progress: a step changed here after another process reset it stays")
{
    TempDir t;
    std::string path = t / "iolab/progress.json";
    struct progress *tui = nullptr, *other = nullptr;
    REQUIRE(progress_load(path.c_str(), &tui) == 0);
    REQUIRE(progress_field_set(tui, "p", "a", "ex", "exercise", "{\"attempts\": 1}") == 0);
    REQUIRE(progress_save(tui) == 0);
    REQUIRE(progress_load(path.c_str(), &other) == 0);
    REQUIRE(progress_reset(other, "p", "a") > 0);
    REQUIRE(progress_save(other) == 0);
    // The TUI records a later attempt: its own newer work is not thrown away by the reset.
    struct progress_record *r = (struct progress_record *)progress_record_find(tui, "p", "a", "ex");
    REQUIRE(r);
    REQUIRE(progress_field_set(tui, "p", "a", "ex", "exercise", "{\"attempts\": 2}") == 0);
    r = (struct progress_record *)progress_record_find(tui, "p", "a", "ex");
    r->updated += 10; // later than the base's record, whatever the clock's resolution
    CHECK(progress_sync(tui) == 0);
    REQUIRE(progress_save(tui) == 0);
    struct progress *after = nullptr;
    REQUIRE(progress_load(path.c_str(), &after) == 0);
    CHECK(std::string(progress_field_get(after, "p", "a", "ex", "exercise")) == "{\"attempts\":2}");
    progress_free(after);
    progress_free(tui);
    progress_free(other);
}
