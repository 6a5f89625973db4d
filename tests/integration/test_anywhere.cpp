// iolab from anywhere: in the full tier each jail has a /tmp of its own (a size-capped tmpfs),
// which hides the host's /tmp; iolab's tree, a pack and the include directory, and where their
// links lead, stay visible to the programs at the same paths, read-only, wherever they are.
// Each case runs iolab from a copy of this build installed under /tmp (cmake --install), as a
// checkout or an unpacked release under /tmp would be, and a pack copied under /tmp.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

using namespace iolab_test;

namespace
{

void replace_in(const std::string &path, const std::string &from, const std::string &to)
{
    std::string t = slurp(path);
    auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    t.replace(at, from.size(), to);
    spit(path, t);
}

void sh(const std::string &cmd)
{
    INFO(cmd);
    REQUIRE(system(cmd.c_str()) == 0);
}

// Whether this machine gives the full tier, where /tmp is private. Elsewhere the probe must say
// that /tmp is the host's, and the cases below have nothing of their own to show.
bool full_tier()
{
    auto [code, out] = run({bin("iolab-sandbox"), "--probe"});
    REQUIRE(code == 0);
    if (out.find("\"tier\":\"full\"") != std::string::npos)
        return true;
    WARN("no full sandbox tier here (" << out << "): /tmp is the host's, nothing is hidden");
    CHECK(out.find("private /tmp") != std::string::npos);
    return false;
}

// This build installed under a fresh /tmp directory, with the installed header replaced by a
// link into another /tmp directory, the way a build tree's header links into its source tree;
// a pack copied beside it, and XDG directories of its own.
struct TmpTree {
    TempDir tmp;
    std::string prefix = tmp / "prefix";
    std::string pack = tmp / "own-program";
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (tmp / "cache"),
                                    "XDG_STATE_HOME=" + (tmp / "state"),
                                    "XDG_DATA_HOME=" + (tmp / "data")};
    TmpTree()
    {
        // One install at a time: each writes the build's install_manifest.txt.
        sh("flock '" + build_dir() + "/.it_anywhere.lock' cmake --install '" + build_dir() +
           "' --prefix '" + prefix + "' >/dev/null");
        std::string header = prefix + "/share/iolab/include/iolab_counters.h";
        sh("mkdir '" + (tmp / "src") + "' && mv '" + header + "' '" + (tmp / "src") +
           "/' && ln -s '" + (tmp / "src/iolab_counters.h") + "' '" + header + "'");
        sh("cp -r '" + data("packs/own-program") + "' '" + pack + "'");
    }
    std::string iolab() const
    {
        return prefix + "/bin/iolab";
    }
    std::string demo(const std::string &name) const
    {
        return prefix + "/libexec/iolab/" + name;
    }
};

} // namespace

TEST_CASE("anywhere: a pack under /tmp whose program is a shell script runs, and it can exec a "
          "demo of an iolab tree under /tmp by its path")
{
    if (!full_tier())
        return;
    TmpTree t;
    // The script reads a file of its pack and execs the installed demo, both by /tmp paths; a
    // step whose server cannot start fails the run (its last lines are in the output).
    spit(t.pack + "/tools/motd", "hello from the pack\n");
    spit(t.pack + "/tools/serve.sh", "#!/bin/sh\ncat '" + t.pack +
                                         "/tools/motd' || exit 5\nexec '" + t.demo("echo-server") +
                                         "' --mode epoll \"$@\"\n");
    REQUIRE(chmod((t.pack + "/tools/serve.sh").c_str(), 0755) == 0);
    replace_in(t.pack + "/slow.json", "\"./tools/slow-echo\"", "\"./tools/serve.sh\"");
    // Nothing to build: only the script's own paths are at stake here.
    spit(t.pack + "/pack.json", R"({"format_version": 1, "id": "own-program", "title": "T",
        "version": "1", "lessons": ["slow"]})");
    auto [code, out] =
        run({t.iolab(), "run", "slow/watch", "--pack", t.pack, "--seconds", "1"}, t.env, 120);
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("No such file or directory") == std::string::npos);
}

TEST_CASE("anywhere: a pack's C program includes <iolab_counters.h> from an include directory "
          "under /tmp whose header is a link into another /tmp directory")
{
    if (!full_tier())
        return;
    TmpTree t;
    // lint builds the pack's program with -I PREFIX/share/iolab/include.
    auto [code, out] = run({t.iolab(), "lint", t.pack}, t.env, 120);
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("iolab_counters.h") == std::string::npos); // no "file not found" about it
    auto [rcode, rout] = run(
        {t.iolab(), "run", "slow/watch", "--pack", t.pack, "--seconds", "1", "--json"}, t.env, 120);
    INFO(rout);
    CHECK(rcode == 0);
    CHECK(rout.find("\"counted\":true") != std::string::npos);
}

TEST_CASE("anywhere: nginx-run execs the demo file-server by its path in an iolab tree under "
          "/tmp")
{
    if (!full_tier())
        return;
    TmpTree t;
    // The demo-epoll mode needs no nginx: nginx-run execs file-server beside its own file.
    auto [code, out] = run(
        {t.iolab(), "run", "zerocopy/nginx", "--mode", "demo-epoll", "--seconds", "1", "--json"},
        t.env, 120);
    INFO(out);
    CHECK(code == 0);
    CHECK(out.find("cannot run") == std::string::npos);
    CHECK(out.find("\"requests\"") != std::string::npos);
}

TEST_CASE("anywhere: a program writing past the jail's /tmp cap gets ENOSPC, is told so, and the "
          "host's disk gets nothing")
{
    if (!full_tier())
        return;
    TempDir work;
    // A name that nothing else uses: it must not appear on the host's /tmp afterwards.
    std::string name = "iolab-anywhere-" + std::to_string(getpid()) + ".big";
    auto [code, out] =
        run({bin("iolab-sandbox"), "--workdir", work.path, "--tmp-size", "8", "--", "/bin/sh", "-c",
             "dd if=/dev/zero of=/tmp/" + name + " bs=1M count=20 2>&1; exit 3"});
    INFO(out);
    CHECK(code == 3);
    CHECK(out.find("No space left on device") != std::string::npos);
    CHECK(out.find("the jail's /tmp limit (8 MiB") != std::string::npos);
    CHECK(access(("/tmp/" + name).c_str(), F_OK) != 0);
    CHECK(access((work / ("tmp/" + name)).c_str(), F_OK) != 0);

    SECTION("the lower tiers say that their /tmp is the host's, not private and not capped")
    {
        for (const char *tier : {"reduced", "minimal"}) {
            auto [pcode, probe] = run({bin("iolab-sandbox"), "--tier", tier, "--probe"});
            INFO(probe);
            CHECK(pcode == 0);
            CHECK(probe.find("private /tmp (/tmp is the host's, shared and not capped") !=
                  std::string::npos);
        }
        // What that means: TMPDIR is the work directory's tmp/, on the host's disk, uncapped.
        auto [rcode, rout] = run({bin("iolab-sandbox"), "--tier", "reduced", "--workdir", work.path,
                                  "--tmp-size", "8", "--", "/bin/sh", "-c",
                                  "dd if=/dev/zero of=\"$TMPDIR/big\" bs=1M count=12 status=none"});
        INFO(rout);
        CHECK(rcode == 0);
        struct stat st {
        };
        CHECK(stat((work / "tmp/big").c_str(), &st) == 0);
        CHECK(st.st_size == 12 << 20);
    }

    SECTION("through iolab, a step's own limit, and the message where iolab reports the failure")
    {
        TmpTree t;
        spit(t.pack + "/tools/fill.sh",
             "#!/bin/sh\ndd if=/dev/zero of=/tmp/" + name +
                 " bs=1M count=40 status=none || exit 1\necho listening\n"
                 "exec sleep 30\n");
        REQUIRE(chmod((t.pack + "/tools/fill.sh").c_str(), 0755) == 0);
        replace_in(t.pack + "/slow.json", "\"./tools/slow-echo\"", "\"./tools/fill.sh\"");
        replace_in(t.pack + "/slow.json", "\"seconds\": 2,",
                   "\"seconds\": 2, \"limits\": {\"tmp_mb\": 16},");
        auto [rcode, rout] =
            run({t.iolab(), "run", "slow/watch", "--pack", t.pack, "--seconds", "1"}, t.env, 120);
        INFO(rout);
        CHECK(rcode != 0);
        CHECK(rout.find("No space left on device") != std::string::npos);
        CHECK(rout.find("the jail's /tmp limit (16 MiB") != std::string::npos);
        CHECK(access(("/tmp/" + name).c_str(), F_OK) != 0);
    }
}
