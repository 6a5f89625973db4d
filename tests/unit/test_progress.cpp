// The progress store: round trips through the real file, damaged files kept aside, and a crash
// between writing the temporary file and renaming it leaving the old progress intact.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <dirent.h>
#include <fstream>
#include <sstream>

extern "C" {
#include "progress/progress.h"
}

using namespace iolab_test;

static std::string slurp(const std::string &path)
{
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

static void spit(const std::string &path, const std::string &text)
{
    std::ofstream f(path);
    f << text;
}

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
