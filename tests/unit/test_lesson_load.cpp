// The lesson loader over real pack directories: a good pack becomes the model lesson.h
// promises, and every bad pack under tests/data/packs/bad/ yields exactly the diagnostics its
// expected.txt lists (file:line:col: message, all of them, in order).
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <dirent.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

extern "C" {
#include "lesson/lesson.h"
}

using namespace iolab_test;

namespace
{

struct Loaded {
    lesson_pack *pack = nullptr;
    lesson_diags diags = {};
    int rc = 0;
    explicit Loaded(const std::string &dir)
    {
        std::string libexec = build_dir() + "/libexec/iolab";
        lesson_load_options opts = {};
        opts.libexec_dir = libexec.c_str();
        rc = lesson_pack_load(dir.c_str(), &opts, &pack, &diags);
    }
    ~Loaded()
    {
        lesson_pack_free(pack);
        lesson_diags_free(&diags);
    }
    // Diagnostics as lint prints them, with the pack directory taken off the file names.
    std::vector<std::string> lines(const std::string &dir) const
    {
        std::vector<std::string> out;
        for (size_t i = 0; i < diags.n; i++) {
            std::string file = diags.v[i].file;
            if (file.rfind(dir + "/", 0) == 0)
                file = file.substr(dir.size() + 1);
            out.push_back(file + ":" + std::to_string(diags.v[i].line) + ":" +
                          std::to_string(diags.v[i].col) + ": " + diags.v[i].message);
        }
        return out;
    }
};

std::vector<std::string> read_lines(const std::string &path)
{
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);)
        if (!line.empty())
            out.push_back(line);
    return out;
}

std::vector<std::string> subdirs(const std::string &dir)
{
    std::vector<std::string> out;
    DIR *d = opendir(dir.c_str());
    while (dirent *e = d ? readdir(d) : nullptr)
        if (e->d_name[0] != '.')
            out.push_back(e->d_name);
    if (d)
        closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

} // namespace

TEST_CASE("a good pack loads into the model")
{
    Loaded l(data("packs/good"));
    REQUIRE(l.lines("") == std::vector<std::string>{});
    REQUIRE(l.rc == 0);
    lesson_pack *p = l.pack;
    CHECK(std::string(p->id) == "test-pack");
    CHECK(p->format_version == 1);
    REQUIRE(p->nlessons == 2);
    CHECK(std::string(p->lessons[1].id) == "b");
    const lesson *a = lesson_find(p, "a");
    REQUIRE(a);
    REQUIRE(a->nsteps == 2);
    CHECK(std::string(lesson_step_kind_name(&a->steps[0])) == "text");
    CHECK(std::string(a->steps[0].text) == "# Intro\n\nTwo lines.");
    CHECK(lesson_step_scenario(&a->steps[0]) == nullptr);

    const lesson_scenario *sc = lesson_step_scenario(&a->steps[1]);
    REQUIRE(sc);
    // Written client first; servers are moved to the front because they start first.
    REQUIRE(sc->nprograms == 2);
    CHECK(std::string(sc->programs[0].name) == "server");
    CHECK(sc->programs[0].role == LESSON_ROLE_SERVER);
    CHECK(sc->programs[0].path[0] == '/');
    CHECK(access(sc->programs[0].path, X_OK) == 0);
    CHECK(std::string(sc->programs[0].ready) == "listening");
    CHECK(std::string(sc->programs[1].path) == "/bin/cat");
    CHECK(sc->programs[1].ready == nullptr);
    REQUIRE(sc->nmodes == 2);
    CHECK(sc->modes[0].key == '1');
    CHECK(sc->modes[1].key == '2'); // no key given: its position
    CHECK(sc->modes[0].program == 0);
    CHECK(std::string(sc->modes[1].text) == "Fast\nmode.");
    CHECK(sc->default_mode == 1);
    CHECK(lesson_mode_find(sc, "fast") == 1);
    CHECK(lesson_mode_find(sc, "nope") == -1);
    REQUIRE(sc->nfiles == 2);
    CHECK(sc->files[0].size == 4096);
    CHECK(sc->files[1].size == 100);
    CHECK(sc->seconds == 2);
    REQUIRE(sc->nchecks == 2);
    CHECK(std::string(sc->modes[sc->checks[0].mode].id) == "fast"); // typed: the mode's index
    CHECK(sc->checks[1].mode == -1);
    CHECK(sc->checks[1].role == LESSON_ROLE_CLIENT);
}

TEST_CASE("every bad pack reports exactly its expected diagnostics")
{
    std::string root = data("packs/bad");
    auto cases = subdirs(root);
    REQUIRE(cases.size() >= 12);
    for (const auto &c : cases) {
        std::string dir = root + "/" + c;
        INFO("case " << c);
        Loaded l(dir);
        CHECK(l.rc == -EINVAL);
        CHECK(l.pack == nullptr);
        auto expected = read_lines(dir + "/expected.txt");
        REQUIRE(!expected.empty());
        CHECK(l.lines(dir) == expected);
    }
}

TEST_CASE("several problems in one file are all reported")
{
    Loaded l(data("packs/bad/several"));
    CHECK(l.diags.n >= 8);
    for (size_t i = 0; i < l.diags.n; i++)
        CHECK(std::string(l.diags.v[i].file).find("a.json") != std::string::npos);
}

TEST_CASE("a directory that is not a pack is reported, not crashed on")
{
    TempDir t;
    Loaded missing(t / "nope");
    CHECK(missing.rc == -ENOENT);
    REQUIRE(missing.diags.n == 1);
    Loaded empty(t.path);
    CHECK(empty.rc == -EINVAL);
    REQUIRE(empty.diags.n == 1);
    CHECK(std::string(empty.diags.v[0].message).find("no pack.json") != std::string::npos);
}

TEST_CASE("a pack written for a newer format is refused with advice")
{
    TempDir t;
    spit(t / "pack.json",
         "{\"format_version\": 2, \"id\": \"x\", \"title\": \"X\", \"version\": \"1\", "
         "\"lessons\": []}");
    Loaded l(t.path);
    auto lines = l.lines(t.path);
    REQUIRE(lines.size() == 2);
    CHECK(lines[0] == "pack.json:1:20: this pack is written for format 2 but this iolab reads "
                      "format 1; update iolab.");
    CHECK(lines[1].find("\"lessons\" is empty") != std::string::npos);
}

TEST_CASE("steps resolve as LESSON or LESSON/STEP")
{
    Loaded l(data("packs/good"));
    REQUIRE(l.rc == 0);
    const lesson *le = nullptr;
    const lesson_step *st = nullptr;
    char why[256];
    REQUIRE(lesson_resolve(l.pack, "a", &le, &st, why, sizeof why) == 0);
    CHECK(std::string(st->id) == "run"); // the first run step
    REQUIRE(lesson_resolve(l.pack, "b/intro", &le, &st, why, sizeof why) == 0);
    CHECK(std::string(le->id) == "b");
    CHECK(std::string(st->id) == "intro");
    CHECK(lesson_resolve(l.pack, "zz", &le, &st, why, sizeof why) == -ENOENT);
    CHECK(std::string(why).find("no lesson 'zz'") != std::string::npos);
    CHECK(lesson_resolve(l.pack, "a/zz", &le, &st, why, sizeof why) == -ENOENT);
    CHECK(std::string(why).find("no step 'zz'") != std::string::npos);
}

TEST_CASE("placeholders expand in arguments")
{
    lesson_vars v = {"8080", "127.0.0.1", "/tmp/w", nullptr};
    char buf[64];
    REQUIRE(lesson_arg_expand("{host}:{port}", &v, buf, sizeof buf) == 14);
    CHECK(std::string(buf) == "127.0.0.1:8080");
    REQUIRE(lesson_arg_expand("{workdir}/data.bin {x} {seconds}", &v, buf, sizeof buf) > 0);
    CHECK(std::string(buf) == "/tmp/w/data.bin {x} ");
    CHECK(lesson_arg_expand("{workdir}{workdir}", &v, buf, 8) == -ENAMETOOLONG);
}

// Issue 21: on main a lesson file that is a FIFO made the loader (so lint, list, run --pack and
// the TUI) block for ever in open().
TEST_CASE("a lesson file that is a FIFO or a directory is refused at once")
{
    TempDir t;
    std::string good = data("packs/good");
    REQUIRE(
        system(("cp '" + good + "/pack.json' '" + good + "/a.json' '" + t.path + "/'").c_str()) ==
        0);
    REQUIRE(mkfifo((t / "b.json").c_str(), 0600) == 0);
    Loaded l(t.path);
    CHECK(l.rc == -EINVAL);
    CHECK(l.lines(t.path) ==
          std::vector<std::string>{
              "b.json:1:1: not a regular file (a FIFO); make it a regular JSON file."});
    REQUIRE(unlink((t / "b.json").c_str()) == 0);
    REQUIRE(mkdir((t / "b.json").c_str(), 0700) == 0);
    Loaded d(t.path);
    CHECK(d.lines(t.path) ==
          std::vector<std::string>{
              "b.json:1:1: not a regular file (a directory); make it a regular JSON file."});
}

TEST_CASE("a pack reached through links loads, a lesson file linked out of the pack is refused")
{
    TempDir t;
    std::string good = data("packs/good");
    // The pack's directory is a link, and its files are links to files inside it: it loads.
    REQUIRE(mkdir((t / "pack").c_str(), 0700) == 0);
    REQUIRE(mkdir((t / "pack/real").c_str(), 0700) == 0);
    for (const char *f : {"pack.json", "a.json", "b.json"}) {
        REQUIRE(system(("cp '" + good + "/" + f + "' '" + (t / "pack/real/") + f + "'").c_str()) ==
                0);
        REQUIRE(symlink((std::string("real/") + f).c_str(), (t / "pack/" + f).c_str()) == 0);
    }
    REQUIRE(symlink((t / "pack").c_str(), (t / "link").c_str()) == 0);
    Loaded l(t / "link");
    CHECK(l.lines(t / "link") == std::vector<std::string>{});
    CHECK(l.rc == 0);
    // A lesson file that is a link out of the pack (to a file its author may not read, whose
    // text would then show in lint's messages) is named and not read.
    REQUIRE(unlink((t / "pack/b.json").c_str()) == 0);
    REQUIRE(symlink((good + "/b.json").c_str(), (t / "pack/b.json").c_str()) == 0);
    Loaded out(t / "pack");
    CHECK(out.rc == -EINVAL);
    CHECK(out.lines(t / "pack") ==
          std::vector<std::string>{"b.json:1:1: this file is a link that leads out of the pack; "
                                   "iolab does not follow it: copy the file itself into the "
                                   "pack."});
}

TEST_CASE("a pack in memory loads exactly as the same files on disk")
{
    std::string good = data("packs/good");
    std::string text[3] = {slurp(good + "/pack.json"), slurp(good + "/a.json"),
                           slurp(good + "/b.json")};
    lesson_mem_file files[3] = {{"pack.json", text[0].data(), text[0].size()},
                                {"a.json", text[1].data(), text[1].size()},
                                {"b.json", text[2].data(), text[2].size()}};
    std::string libexec = build_dir() + "/libexec/iolab";
    lesson_load_options opts = {};
    opts.libexec_dir = libexec.c_str();
    lesson_pack *pack = nullptr;
    lesson_diags diags = {};
    REQUIRE(lesson_pack_load_mem("mem", files, 3, &opts, &pack, &diags) == 0);
    REQUIRE(pack);
    CHECK(pack->nlessons == 2);
    CHECK(std::string(pack->lessons[0].steps[0].text) == "# Intro\n\nTwo lines.");
    lesson_pack_free(pack);

    // A bad one gives the same diagnostics, named after the given directory; a file that is
    // missing from memory is missing, and the file system is never looked at.
    text[1].replace(text[1].find("\"intro\""), 7, "\"in\\u0000tro\"");
    files[1].data = text[1].data();
    files[1].len = text[1].size();
    CHECK(lesson_pack_load_mem("mem", files, 2, &opts, &pack, &diags) == -EINVAL);
    CHECK(pack == nullptr);
    REQUIRE(diags.n == 2);
    CHECK(std::string(diags.v[0].file) == "mem/pack.json");
    CHECK(std::string(diags.v[0].message).find("no file b.json") != std::string::npos);
    CHECK(std::string(diags.v[1].file) == "mem/a.json");
    CHECK(std::string(diags.v[1].message).find("\\u0000") != std::string::npos);
    lesson_diags_free(&diags);
    CHECK(lesson_pack_load_mem(good.c_str(), files, 0, &opts, &pack, &diags) == -EINVAL);
    CHECK(diags.n == 1);
    lesson_diags_free(&diags);
}
