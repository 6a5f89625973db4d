// No link leads a pack or a learner out of its own directory: a source, a workspace file or a
// build's product that is a symbolic link to a root-only file never has its bytes copied into a
// build, a workspace or the cache; lint names such a link at its file:line:col; build directories
// are private while they exist and gone after iolab is stopped by any signal, SIGKILL included.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <chrono>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <uv.h>

extern "C" {
#include "exercise/build.h"
#include "exercise/exercise.h"
#include "safeopen.h"
}

using namespace iolab_test;

namespace
{

const std::string SECRET = "IOLAB-ROOT-ONLY-SECRET-5d41402a";

// Every regular file under dir whose bytes hold the secret (links are not followed).
std::vector<std::string> holding_secret(const std::string &dir)
{
    std::vector<std::string> found;
    DIR *d = opendir(dir.c_str());
    if (!d)
        return found;
    while (struct dirent *e = readdir(d)) {
        std::string name = e->d_name, path = dir + "/" + name;
        struct stat st;
        if (name == "." || name == ".." || lstat(path.c_str(), &st) < 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            auto sub = holding_secret(path);
            found.insert(found.end(), sub.begin(), sub.end());
        } else if (S_ISREG(st.st_mode) && slurp(path).find(SECRET) != std::string::npos) {
            found.push_back(path);
        }
    }
    closedir(d);
    return found;
}

// Every path under dir whose name starts with prefix.
std::vector<std::string> named_under(const std::string &dir, const std::string &prefix)
{
    std::vector<std::string> found;
    DIR *d = opendir(dir.c_str());
    if (!d)
        return found;
    while (struct dirent *e = readdir(d)) {
        std::string name = e->d_name, path = dir + "/" + name;
        struct stat st;
        if (name == "." || name == ".." || lstat(path.c_str(), &st) < 0)
            continue;
        if (!name.compare(0, prefix.size(), prefix))
            found.push_back(path);
        if (S_ISDIR(st.st_mode)) {
            auto sub = named_under(path, prefix);
            found.insert(found.end(), sub.begin(), sub.end());
        }
    }
    closedir(d);
    return found;
}

// The names in dir that start with "iolab-build-".
std::vector<std::string> build_dirs(const std::string &dir)
{
    std::vector<std::string> v;
    if (DIR *d = opendir(dir.c_str())) {
        while (struct dirent *e = readdir(d))
            if (!strncmp(e->d_name, "iolab-build-", 12))
                v.push_back(dir + "/" + e->d_name);
        closedir(d);
    }
    return v;
}

// Polls until cond() holds or the deadline passes; returns whether it held.
template <class F> bool wait_for(F cond, double seconds)
{
    auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (!cond()) {
        if (std::chrono::steady_clock::now() > end)
            return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

// Whether uid 65534 (the jail's) can open path for reading: a child drops to it and tries.
bool readable_by_jail_uid(const std::string &path)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (setgid(65534) < 0 || setuid(65534) < 0)
            _exit(2);
        _exit(open(path.c_str(), O_RDONLY) >= 0 ? 0 : 1);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

// A private place: the secret (root's, 0600), a TMPDIR, a cache and the XDG directories.
struct Place {
    TempDir tmp;
    std::string secret = tmp / "secret";
    std::string tmpdir = tmp / "tmpdir";
    std::vector<std::string> env = {"TMPDIR=" + tmpdir, "XDG_CACHE_HOME=" + (tmp / "cache"),
                                    "XDG_STATE_HOME=" + (tmp / "state"),
                                    "XDG_DATA_HOME=" + (tmp / "data"), "HOME=" + (tmp / "home")};
    std::string old_tmpdir;
    bool had_tmpdir = false;
    Place()
    {
        // build.c, called in this process, makes its work directories under TMPDIR too.
        if (const char *t = getenv("TMPDIR")) {
            had_tmpdir = true;
            old_tmpdir = t;
        }
        setenv("TMPDIR", tmpdir.c_str(), 1);
        // Searchable, so that the jail's uid reaches its build directory; the secret is not.
        REQUIRE(chmod(tmp.path.c_str(), 0755) == 0);
        REQUIRE(mkdir(tmpdir.c_str(), 0755) == 0);
        spit(secret, SECRET + "\n");
        REQUIRE(chmod(secret.c_str(), 0600) == 0);
        if (geteuid() == 0) {
            REQUIRE(chown(secret.c_str(), 0, 0) == 0);
            // A real root-only file: the jail's uid cannot read it, only iolab as root can.
            REQUIRE_FALSE(readable_by_jail_uid(secret));
        } else {
            WARN("not run as root: the secret is the test user's own 0600 file");
        }
    }
    ~Place()
    {
        if (had_tmpdir)
            setenv("TMPDIR", old_tmpdir.c_str(), 1);
        else
            unsetenv("TMPDIR");
    }
    std::string cache() const
    {
        return tmp / "cache";
    }
};

// The test pack that builds its own server, copied; tools/slow.h may then be replaced.
std::string copy_own_pack(const Place &p)
{
    std::string pack = p.tmp / "own-program";
    std::string cmd = "cp -r '" + data("packs/own-program") + "' '" + pack + "'";
    REQUIRE(system(cmd.c_str()) == 0);
    return pack;
}

// Line and column (1-based) of the first occurrence of needle in the file.
std::string position_of(const std::string &file, const std::string &needle)
{
    std::string t = slurp(file);
    size_t at = t.find(needle);
    REQUIRE(at != std::string::npos);
    int line = 1, col = 1;
    for (size_t i = 0; i < at; i++, col++)
        if (t[i] == '\n') {
            line++;
            col = 0;
        }
    return std::to_string(line) + ":" + std::to_string(col);
}

struct Outcome {
    bool done = false;
    build_result r{};
    std::string log;
};

void on_done(void *data, const build_result *r)
{
    auto *o = static_cast<Outcome *>(data);
    o->done = true;
    o->r = *r;
    o->log = r->log ? r->log : "";
    o->r.log = nullptr;
}

// One build through build.c, as packprog and the exercises run it.
Outcome build_it(const std::vector<const char *> &command, const std::string &root,
                 const std::string &src, const std::vector<const char *> &files,
                 const std::vector<const char *> &sources, const std::string &cache)
{
    std::vector<const char *> cmd = command;
    cmd.push_back(nullptr);
    std::string sandbox = bin("iolab-sandbox");
    build_spec spec = {};
    spec.command = cmd.data();
    spec.src_dir = src.c_str();
    spec.root = root.empty() ? nullptr : root.c_str();
    spec.files = files.data();
    spec.nfiles = files.size();
    spec.sources = sources.data();
    spec.nsources = sources.size();
    spec.cache_dir = cache.c_str();
    spec.sandbox = sandbox.c_str();
    spec.timeout_s = 60;
    uv_loop_t loop;
    uv_loop_init(&loop);
    Outcome o;
    struct build *b = nullptr;
    REQUIRE(build_start(&loop, &spec, on_done, &o, &b) == 0);
    uv_run(&loop, UV_RUN_DEFAULT);
    CHECK(uv_loop_close(&loop) == 0);
    return o;
}

// A one-step exercise pack: ex/prog.c (with a TODO) and ex/extra.h; build is its command.
std::string exercise_pack(const Place &p, const std::string &build)
{
    std::string pack = p.tmp / "expack";
    REQUIRE(mkdir(pack.c_str(), 0755) == 0);
    REQUIRE(mkdir((pack + "/ex").c_str(), 0755) == 0);
    spit(pack + "/pack.json",
         "{\"format_version\": 1, \"id\": \"links\", \"title\": \"Links\", \"version\": \"1\",\n"
         " \"lessons\": [\"a\"]}\n");
    spit(pack + "/a.json",
         "{\"id\": \"a\", \"title\": \"A\", \"summary\": \"s\", \"steps\": [\n"
         "  {\"id\": \"ex\", \"title\": \"Ex\", \"kind\": \"exercise\", \"text\": \"x\",\n"
         "   \"dir\": \"ex\", \"workspace\": [\"prog.c\", \"extra.h\"], \"learner\": \"p\",\n"
         "   " +
             build +
             "\"programs\": [{\"name\": \"p\", \"role\": \"client\", \"program\": "
             "\"echo-client\"}]}\n"
             "]}\n");
    spit(pack + "/ex/prog.c", "#include \"extra.h\"\nint main(void)\n{\n"
                              "    /* TODO 1: return zero */\n    return 0;\n}\n");
    spit(pack + "/ex/extra.h", "/* nothing */\n");
    return pack;
}

} // namespace

TEST_CASE("a pack source that links to a root-only file is named by lint and never built",
          "[links]")
{
    Place p;
    std::string pack = copy_own_pack(p);
    REQUIRE(unlink((pack + "/tools/slow.h").c_str()) == 0);
    REQUIRE(symlink(p.secret.c_str(), (pack + "/tools/slow.h").c_str()) == 0);

    auto [code, out] = run({bin("iolab"), "lint", pack}, p.env, 120);
    INFO(out);
    CHECK(code != 0);
    std::string at = position_of(pack + "/pack.json", "\"tools/slow.h\"");
    CHECK(out.find(pack + "/pack.json:" + at +
                   ": source tools/slow.h is a link that leads out of the pack (to " + p.secret +
                   "); iolab does not follow it: copy the file itself into the pack.") !=
          std::string::npos);

    // Run and check refuse the pack as lint does.
    auto [rcode, rout] =
        run({bin("iolab"), "run", "slow/watch", "--pack", pack, "--seconds", "1"}, p.env, 120);
    INFO(rout);
    CHECK(rcode != 0);

    // The build itself refuses the link too (a pack changed after it was loaded), with the
    // kernel's openat2() and with the fallback that a kernel without it gets.
    std::string tools = pack + "/tools";
    for (bool fallback : {false, true}) {
        safeopen_force_fallback(fallback);
        Outcome o = build_it({BUILD_DEFAULT_COMMAND}, pack, tools, {"slow-echo.c", "slow.h"},
                             {"slow-echo.c"}, p.cache());
        safeopen_force_fallback(false);
        INFO("fallback " << fallback << ": " << o.r.message);
        REQUIRE(o.done);
        CHECK(o.r.status == BUILD_ERROR);
        CHECK(std::string(o.r.message)
                  .find("slow.h is a link that leads out of " + pack + " (to " + p.secret + ")") !=
              std::string::npos);
    }
    CHECK(holding_secret(p.cache()).empty());
    CHECK(holding_secret(p.tmpdir).empty());
    CHECK(build_dirs(p.tmpdir).empty());
}

TEST_CASE("a pack source or an exercise file that is a hard link is refused like a symbolic link",
          "[links]")
{
    // A hard link names no other place: the file may be a second name of a root-only file.
    Place p;
    std::string pack = copy_own_pack(p);
    REQUIRE(unlink((pack + "/tools/slow.h").c_str()) == 0);
    REQUIRE(link(p.secret.c_str(), (pack + "/tools/slow.h").c_str()) == 0);
    auto [code, out] = run({bin("iolab"), "lint", pack}, p.env, 120);
    INFO(out);
    CHECK(code != 0);
    std::string at = position_of(pack + "/pack.json", "\"tools/slow.h\"");
    CHECK(out.find(pack + "/pack.json:" + at +
                   ": source tools/slow.h is a hard link (a second name of a file that may be "
                   "anywhere); iolab does not read it: copy the file itself into the pack.") !=
          std::string::npos);
    CHECK(out.find(SECRET) == std::string::npos);

    // The build refuses it too (a pack changed after it was loaded), with either open path.
    std::string tools = pack + "/tools";
    for (bool fallback : {false, true}) {
        safeopen_force_fallback(fallback);
        Outcome o = build_it({BUILD_DEFAULT_COMMAND}, pack, tools, {"slow-echo.c", "slow.h"},
                             {"slow-echo.c"}, p.cache());
        safeopen_force_fallback(false);
        INFO("fallback " << fallback << ": " << o.r.message);
        REQUIRE(o.done);
        CHECK(o.r.status == BUILD_ERROR);
        CHECK(std::string(o.r.message).find("slow.h is a hard link") != std::string::npos);
    }
    CHECK(holding_secret(p.cache()).empty());
    CHECK(holding_secret(p.tmpdir).empty());

    // A learner's file that is a hard link is not built either.
    std::string expack = exercise_pack(p, "");
    TempDir learner;
    spit(learner / "prog.c", "#include \"extra.h\"\nint main(void) { return 0; }\n");
    std::string second = p.tmp / "second-name.h";
    REQUIRE(link(p.secret.c_str(), second.c_str()) == 0);
    REQUIRE(rename(second.c_str(), (learner / "extra.h").c_str()) == 0);
    auto [ccode, cout] =
        run({bin("iolab"), "check", "a/ex", "--pack", expack, "--dir", learner.path}, p.env, 120);
    INFO(cout);
    CHECK(ccode != 0);
    CHECK(cout.find("extra.h is a hard link") != std::string::npos);
    CHECK(holding_secret(p.cache()).empty());
    CHECK(holding_secret(p.tmpdir).empty());
}

TEST_CASE("a link that stays inside the pack is followed: the pack lints and builds", "[links]")
{
    Place p;
    std::string pack = copy_own_pack(p);
    REQUIRE(mkdir((pack + "/shared").c_str(), 0755) == 0);
    REQUIRE(rename((pack + "/tools/slow.h").c_str(), (pack + "/shared/slow.h").c_str()) == 0);
    REQUIRE(symlink("../shared/slow.h", (pack + "/tools/slow.h").c_str()) == 0);
    auto [code, out] = run({bin("iolab"), "lint", pack}, p.env, 120);
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("no problems") != std::string::npos);
    // An absolute link that points inside the pack is inside too.
    REQUIRE(unlink((pack + "/tools/slow.h").c_str()) == 0);
    REQUIRE(symlink((pack + "/shared/slow.h").c_str(), (pack + "/tools/slow.h").c_str()) == 0);
    for (bool fallback : {false, true}) {
        safeopen_force_fallback(fallback);
        Outcome o = build_it({"sh", "-c", "cp \"$1\" \"$0\"", "{out}", "{sources}"}, pack,
                             pack + "/tools", {"slow-echo.c", "slow.h"}, {"slow.h"}, p.cache());
        safeopen_force_fallback(false);
        INFO("fallback " << fallback << ": " << o.r.message << o.log);
        CHECK(o.r.status == BUILD_OK);
    }
}

TEST_CASE("an exercise file that links out is named by lint and never copied to the learner",
          "[links]")
{
    Place p;
    std::string pack = exercise_pack(p, "");
    REQUIRE(unlink((pack + "/ex/extra.h").c_str()) == 0);
    REQUIRE(symlink(p.secret.c_str(), (pack + "/ex/extra.h").c_str()) == 0);

    auto [code, out] = run({bin("iolab"), "lint", pack}, p.env, 120);
    INFO(out);
    CHECK(code != 0);
    std::string at = position_of(pack + "/a.json", "\"extra.h\"");
    CHECK(out.find(pack + "/a.json:" + at +
                   ": ex/extra.h is a link that leads out of the exercise's directory (to " +
                   p.secret + "); iolab does not follow it: put the file itself there.") !=
          std::string::npos);

    auto [ccode, cout] = run({bin("iolab"), "check", "a/ex", "--pack", pack}, p.env, 120);
    INFO(cout);
    CHECK(ccode != 0);
    CHECK(holding_secret(p.tmp / "data").empty());

    // The workspace is made without the link even when the loader did not see it (the file
    // became a link after the pack was loaded): a sentence, and no copy.
    std::string dir = p.tmp / "workspace";
    char *files[] = {const_cast<char *>("prog.c"), const_cast<char *>("extra.h")};
    std::string exdir = pack + "/ex";
    lesson_exercise ex = {};
    ex.dir = const_cast<char *>(exdir.c_str());
    ex.files = files;
    ex.nfiles = 2;
    char why[512] = "";
    CHECK(exercise_prepare(&ex, dir.c_str(), why, sizeof why) < 0);
    INFO(why);
    CHECK(std::string(why).find("extra.h is a link that leads out of the exercise's directory") !=
          std::string::npos);
    struct stat st;
    CHECK(lstat((dir + "/extra.h").c_str(), &st) < 0);
    CHECK(holding_secret(dir).empty());
}

TEST_CASE("a learner's file that links out is not built: iolab check says which and why", "[links]")
{
    Place p;
    std::string pack = exercise_pack(p, "");
    TempDir learner;
    spit(learner / "prog.c", "#include \"extra.h\"\nint main(void) { return 0; }\n");
    REQUIRE(symlink(p.secret.c_str(), (learner / "extra.h").c_str()) == 0);
    auto [code, out] =
        run({bin("iolab"), "check", "a/ex", "--pack", pack, "--dir", learner.path}, p.env, 120);
    INFO(out);
    CHECK(code != 0);
    CHECK(out.find(learner.path + "/extra.h is a link that leads out of " + learner.path + " (to " +
                   p.secret + "); iolab does not follow it") != std::string::npos);
    CHECK(holding_secret(p.cache()).empty());
    CHECK(holding_secret(p.tmpdir).empty());
}

TEST_CASE("a build whose product is a link to a root-only file fails and caches nothing", "[links]")
{
    Place p;
    TempDir src;
    spit(src / "main.c", "int main(void) { return 0; }\n");
    std::string ln = "ln -s '" + p.secret + "' \"$0\"";
    Outcome o = build_it({"sh", "-c", ln.c_str(), "{out}", "{sources}"}, "", src.path, {"main.c"},
                         {"main.c"}, p.cache());
    INFO(o.r.message << o.log);
    REQUIRE(o.done);
    CHECK(o.r.status == BUILD_ERROR);
    CHECK(std::string(o.r.message)
              .find("the build left a symbolic link where its program should "
                    "be") != std::string::npos);
    CHECK(holding_secret(p.cache()).empty());
    // Nothing named prog was kept.
    CHECK(named_under(p.cache(), "prog").empty());

    // Lint says so for a pack whose build command does it, at the build entry.
    std::string pack = copy_own_pack(p);
    std::string pj = slurp(pack + "/pack.json");
    std::string from = "\"sources\": [\"tools/slow-echo.c\", \"tools/slow.h\"]";
    size_t at = pj.find(from);
    REQUIRE(at != std::string::npos);
    pj.insert(at + from.size(), ", \"command\": [\"sh\", \"-c\", \"ln -s '" + p.secret +
                                    "' \\\"$0\\\"\", \"{out}\", \"{sources}\"]");
    spit(pack + "/pack.json", pj);
    auto [code, out] = run({bin("iolab"), "lint", pack}, p.env, 120);
    INFO(out);
    CHECK(code != 0);
    CHECK(out.find(pack + "/pack.json:" + position_of(pack + "/pack.json", "{\"program\"") +
                   ": program \"tools/slow-echo\" was not built: the build left a symbolic link "
                   "where its program should be") != std::string::npos);
    CHECK(holding_secret(p.cache()).empty());

    // A second name of another file is not a program the build made either.
    Outcome h = build_it({"sh", "-c", "ln \"$1\" \"$0\"", "{out}", "{sources}"}, "", src.path,
                         {"main.c"}, {"main.c"}, p.cache());
    INFO(h.r.message << h.log);
    CHECK(h.r.status == BUILD_ERROR);
    CHECK(std::string(h.r.message).find("a second name (a hard link) of another file") !=
          std::string::npos);
    CHECK(named_under(p.cache(), "prog").empty());
}

namespace
{

// A command that marks its start in the build directory and then waits for ever.
const char *const SLOW = "[\"sh\", \"-c\", \"touch started; exec sleep 600\", \"{out}\", "
                         "\"{sources}\"]";

// Starts iolab (argv) and waits until a build of it runs; checks the build directory's mode and
// owner; stops iolab with sig; then waits for every iolab-build-* directory to be gone.
void stop_during_build(const Place &p, const std::vector<std::string> &argv, int sig,
                       const std::string &tier = "")
{
    Child c;
    std::vector<std::string> env = p.env;
    if (!tier.empty())
        env.push_back("IOLAB_SANDBOX_TIER=" + tier);
    c.start(argv, env);
    std::string started;
    bool running = wait_for(
        [&] {
            for (const auto &d : build_dirs(p.tmpdir))
                if (access((d + "/started").c_str(), F_OK) == 0) {
                    started = d;
                    return true;
                }
            return false;
        },
        90);
    INFO(c.output());
    REQUIRE(running);
    struct stat st;
    REQUIRE(lstat(started.c_str(), &st) == 0);
    // Private while it builds: the learner's (or the pack's) sources are inside.
    CHECK((st.st_mode & 07777) == 0700);
    CHECK(st.st_uid == (geteuid() == 0 ? 65534u : geteuid()));
    REQUIRE(kill(c.pid(), sig) == 0);
    int status = c.wait(60);
    CHECK(status != -1);
    bool gone = wait_for([&] { return build_dirs(p.tmpdir).empty(); }, 60);
    auto left = build_dirs(p.tmpdir);
    INFO("signal " << sig << " left " << (left.empty() ? "" : left[0]));
    CHECK(gone);
}

} // namespace

TEST_CASE("a pack build stopped by any signal of iolab leaves no build directory", "[links]")
{
    Place p;
    std::string pack = copy_own_pack(p);
    std::string pj = slurp(pack + "/pack.json");
    std::string from = "\"sources\": [\"tools/slow-echo.c\", \"tools/slow.h\"]";
    size_t at = pj.find(from);
    REQUIRE(at != std::string::npos);
    pj.insert(at + from.size(), std::string(", \"command\": ") + SLOW);
    spit(pack + "/pack.json", pj);
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGKILL}) {
        DYNAMIC_SECTION("iolab lint, signal " << sig)
        {
            stop_during_build(p, {bin("iolab"), "lint", pack}, sig);
        }
    }
    // The lower tiers have no namespaces and a launcher that is a subreaper: the same holds.
    for (const char *tier : {"reduced", "minimal"}) {
        DYNAMIC_SECTION("iolab lint, SIGKILL, tier " << tier)
        {
            stop_during_build(p, {bin("iolab"), "lint", pack}, SIGKILL, tier);
        }
    }
}

TEST_CASE("a learner's build stopped by any signal of iolab check leaves no build directory",
          "[links]")
{
    Place p;
    std::string pack = exercise_pack(p, std::string("\"build\": ") + SLOW + ", ");
    TempDir learner;
    REQUIRE(chmod(learner.path.c_str(), 0755) == 0);
    spit(learner / "prog.c", "#include \"extra.h\"\nint main(void) { return 0; }\n");
    spit(learner / "extra.h", "/* mine */\n");
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGKILL}) {
        DYNAMIC_SECTION("iolab check, signal " << sig)
        {
            stop_during_build(
                p, {bin("iolab"), "check", "a/ex", "--pack", pack, "--dir", learner.path}, sig);
        }
    }
}

TEST_CASE("a build directory left by an iolab that died is removed by the next build", "[links]")
{
    Place p;
    // A pid that has just ended, as a crashed iolab's would be.
    pid_t dead = fork();
    if (dead == 0)
        _exit(0);
    REQUIRE(waitpid(dead, nullptr, 0) == dead);
    std::string stale = p.tmpdir + "/iolab-build-" + std::to_string(dead) + "-AbCdEf";
    REQUIRE(mkdir(stale.c_str(), 0700) == 0);
    spit(stale + "/server.c", "int main(void) { return 0; }\n");
    // A live iolab's directory (this process stands for it) is another build: it stays.
    std::string live = p.tmpdir + "/iolab-build-" + std::to_string(getppid()) + "-GhIjKl";
    REQUIRE(mkdir(live.c_str(), 0700) == 0);
    TempDir src;
    REQUIRE(chmod(src.path.c_str(), 0755) == 0);
    spit(src / "main.c", "int main(void) { return 0; }\n");
    Outcome o = build_it({BUILD_DEFAULT_COMMAND}, "", src.path, {"main.c"}, {"main.c"}, p.cache());
    INFO(o.r.message << o.log);
    CHECK(o.r.status == BUILD_OK);
    struct stat st;
    CHECK(lstat(stale.c_str(), &st) < 0);
    CHECK(lstat(live.c_str(), &st) == 0);
    CHECK(build_dirs(p.tmpdir) == std::vector<std::string>{live});
}
