// The Debian package (cmake/packaging.cmake): `cpack -G DEB` builds it from the build tree; it
// declares the shared libraries iolab links and a C compiler with the C library's headers, holds
// the whole relocatable tree under /usr and nothing else, and that tree, unpacked anywhere,
// lints the built-in pack and writes and lints a new one. Its copyright file names the MIT
// licence of LICENSE in Debian's machine-readable form, and lintian finds neither an error nor a
// warning in it, nor a hardening gap (each binary fully RELRO; iolab and the launcher fortified).
// A machine without lintian fails the test (setup.sh installs it; CI must never pass by skipping).
#include "helpers.hpp"
#include "tmux_helpers.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <set>
#include <sstream>

using namespace iolab_test;

TEST_CASE("package: cpack -G DEB builds iolab's package with its files and dependencies")
{
    TempDir t;
    auto [code, out] = run({"/usr/bin/cpack", "-G", "DEB", "-B", t.path, "--config",
                            build_dir() + "/CPackConfig.cmake"},
                           {}, 600);
    INFO(out);
    REQUIRE(code == 0);
    std::string deb;
    if (DIR *d = opendir(t.path.c_str())) {
        while (struct dirent *e = readdir(d)) {
            std::string n = e->d_name;
            if (n.size() > 4 && n.substr(n.size() - 4) == ".deb")
                deb = t / n;
        }
        closedir(d);
    }
    REQUIRE(!deb.empty());

    auto [fcode, fields] = run({"/usr/bin/dpkg-deb", "-f", deb});
    INFO(fields);
    REQUIRE(fcode == 0);
    CHECK(fields.find("Package: iolab\n") != std::string::npos);
    std::string depends = fields.substr(fields.find("Depends: "));
    depends = depends.substr(0, depends.find('\n'));
    for (const char *dep : {"gcc | c-compiler", "libc6-dev", "sensible-utils", "libc6 ", "libuv1 ",
                            "libcjson1 ", "libncursesw6 "})
        CHECK(depends.find(dep) != std::string::npos);

    auto [ccode, contents] = run({"/usr/bin/dpkg-deb", "-c", deb});
    REQUIRE(ccode == 0);
    for (const char *f :
         {"./usr/bin/iolab\n", "./usr/bin/iolab-sandbox\n", "./usr/lib/iolab/libiolab-count.so\n",
          "./usr/libexec/iolab/echo-server\n", "./usr/libexec/iolab/file-client\n",
          "./usr/share/iolab/lessons/pack.json\n",
          "./usr/share/iolab/lessons/exercises/zerocopy/sendfile/file-server.c\n",
          "./usr/share/iolab/schema/pack.schema.json\n",
          "./usr/share/iolab/schema/lesson.schema.json\n",
          "./usr/share/iolab/include/iolab_counters.h\n", "./usr/share/iolab/template/pack.json\n",
          "./usr/share/man/man1/iolab.1.gz\n", "./usr/share/man/man1/iolab-sandbox.1.gz\n",
          "./usr/share/bash-completion/completions/iolab\n", "./usr/share/doc/iolab/copyright\n",
          "./usr/lib/iolab/debug/.build-id/", "./usr/share/iolab/demos/echo-server.c\n",
          "./usr/share/doc/iolab/changelog.gz\n"}) {
        INFO(f);
        CHECK(contents.find(f) != std::string::npos);
    }
    // Nothing of the tests, nothing outside /usr.
    CHECK(contents.find("iolab-tap") == std::string::npos);
    CHECK(contents.find("it_") == std::string::npos);
    CHECK(contents.find(" ./usr/local") == std::string::npos);
    CHECK(contents.find(" ./etc") == std::string::npos);

    // Debian's own checker at its default level: no error (stripped binaries, a copyright file, a
    // changelog, compressed man pages, a real maintainer address) and no warning (an ldconfig
    // call for the private shim, a program without a manual page). Its informational level shows
    // no hardening tag either (RELRO and BIND_NOW everywhere, every program fortified; the shim
    // calls nothing glibc fortifies) and no override, used or not.
    auto [lintcode, lintout] = run({"/bin/sh", "-c",
                                    "command -v lintian >/dev/null || { echo 'lintian is not "
                                    "installed: apt-get install lintian (setup.sh does)'; exit "
                                    "99; }; lintian -I --fail-on error,warning \"$0\"",
                                    deb},
                                   {}, 600);
    INFO(lintout);
    REQUIRE(lintcode != 99);
    CHECK(lintcode == 0);
    CHECK(lintout.find("E: ") == std::string::npos);
    CHECK(lintout.find("W: ") == std::string::npos);
    CHECK(lintout.find("hardening-") == std::string::npos);
    CHECK(lintout.find("override") == std::string::npos);

    // Unpacked anywhere, the tree finds its own parts.
    std::string root = t / "root";
    REQUIRE(run({"/usr/bin/dpkg-deb", "-x", deb, root}).first == 0);

    // The licence: DEP-5, every file under the MIT licence (Expat, in DEP-5's words), whose text
    // is LICENSE's own.
    std::string copyright = slurp(root + "/usr/share/doc/iolab/copyright");
    std::string license = slurp(source_dir() + "/LICENSE");
    INFO(copyright);
    CHECK(copyright.rfind(
              "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n", 0) ==
          0);
    CHECK(copyright.find("\nFiles: *\nCopyright: 2026 the iolab authors\nLicense: Expat\n") !=
          std::string::npos);
    CHECK(copyright.find("\nLicense: Expat\n Permission is hereby granted, free of charge,") !=
          std::string::npos);
    CHECK(copyright.find("ask the") == std::string::npos);
    CHECK(license.rfind("MIT License\n\nCopyright (c) 2026 the iolab authors\n", 0) == 0);
    auto [lcode, lout] = run({root + "/usr/bin/iolab", "lint", root + "/usr/share/iolab/lessons"});
    INFO(lout);
    CHECK(lcode == 0);
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (t / "cache")};
    REQUIRE(run({root + "/usr/bin/iolab", "new", t / "pack"}, env).first == 0);
    auto [ncode, nout] = run({root + "/usr/bin/iolab", "lint", t / "pack"}, env, 120);
    INFO(nout);
    CHECK(ncode == 0);

    // The demos' calls by line from the unpacked tree: the binary is stripped, its line table
    // is the debug file shipped under the tree's lib/iolab/debug by its build ID
    // (sandbox/demos/CMakeLists.txt), and the code view reads the demo's source from
    // share/iolab/demos.
    auto [scode, sections] =
        run({"/usr/bin/readelf", "-S", root + "/usr/libexec/iolab/echo-server"});
    CHECK(sections.find(".debug_info") == std::string::npos);
    auto [rcode, notes] = run({"/usr/bin/readelf", "-n", root + "/usr/libexec/iolab/echo-server"});
    CHECK(notes.find("Build ID: ") != std::string::npos);
    std::string debug = root + "/usr/lib/iolab/debug";
    std::string source = slurp(root + "/usr/share/iolab/demos/echo-server.c");
    auto epoll_wait_line = [&](bool &found) {
        auto [rcode, rout] = run({root + "/usr/bin/iolab", "run", "concurrency/compare", "--mode",
                                  "epoll", "--seconds", "2", "--json"},
                                 env, 120);
        INFO(rout);
        REQUIRE(rcode == 0);
        // "call":"epoll_wait", then the site's file and line.
        size_t at = rout.find("\"call\":\"epoll_wait\"");
        found = at != std::string::npos;
        size_t file = rout.find("\"file\":\"", at), line = rout.find("\"line\":", at);
        if (!found || file == std::string::npos || line == std::string::npos)
            return std::make_pair(std::string(), 0);
        file += 8;
        return std::make_pair(rout.substr(file, rout.find('"', file) - file),
                              std::atoi(rout.c_str() + line + 7));
    };
    bool found = false;
    auto [file, line] = epoll_wait_line(found);
    REQUIRE(found);
    CHECK(file == "echo-server.c");
    std::istringstream src(source);
    std::string text;
    for (int k = 1; std::getline(src, text) && k < line; k++)
        ;
    INFO("line " << line << ": " << text);
    CHECK(text.find("epoll_wait(") != std::string::npos);
    // Without the shipped debug files nothing else gives the lines: the site has no line.
    REQUIRE(rename(debug.c_str(), (debug + "-aside").c_str()) == 0);
    auto [bare, bare_line] = epoll_wait_line(found);
    CHECK(bare_line == 0);
    REQUIRE(rename((debug + "-aside").c_str(), debug.c_str()) == 0);

    // The code view at 80x24 from the unpacked tree: the epoll server's epoll_wait() line has
    // its count and its call in the margin.
    IolabTerm term;
    std::string home = t / "home";
    REQUIRE(mkdir(home.c_str(), 0755) == 0);
    spit(home + "/run.sh", "cd '" + home + "'\nexport HOME='" + home + "' XDG_STATE_HOME='" + home +
                               "/state' XDG_DATA_HOME='" + home + "/data' XDG_CACHE_HOME='" + home +
                               "/cache' TERM=xterm-256color\n'" + root +
                               "/usr/bin/iolab' --open concurrency/compare\nexec sleep 600\n");
    REQUIRE(term.launch("sh '" + home + "/run.sh'", 80, 24));
    REQUIRE(term.wait_for("1-4 modes (? names them)", 30));
    term.keys("Enter");
    REQUIRE(term.wait_for("Predict before you run", 20));
    term.keys("Escape");
    REQUIRE(term.wait_for("mode: epoll", 30));
    term.keys("L");
    REQUIRE(term.wait_for("server's calls by line", 15));
    bool counted = term.wait_until(
        [&](const std::string &) {
            term.keys("g");
            for (int page = 0; page < 40; page++) {
                std::string screen = term.screen();
                std::istringstream rows(screen);
                for (std::string row; std::getline(rows, row);)
                    if (row.find("epoll_wait(ep, events") != std::string::npos &&
                        row.find(" epoll_wait ") < row.find("epoll_wait(ep"))
                        return true;
                term.keys("NPage");
                if (!term.wait_until([&](const std::string &s) { return s != screen; }, 3))
                    break;
            }
            return false;
        },
        60);
    INFO(term.last());
    CHECK(counted);
}

// Debian asks for a manual page per program in bin/ (lintian's no-manual-page): iolab-sandbox's
// describes the options its --help lists, every one of them and no other.
TEST_CASE("package: iolab-sandbox's manual page names exactly the options of its --help")
{
    auto [code, help] = run({bin("iolab-sandbox"), "--help"});
    INFO(help);
    REQUIRE(code == 0);
    std::set<std::string> listed, documented;
    std::istringstream hs(help);
    for (std::string line; std::getline(hs, line);)
        if (line.rfind("  --", 0) == 0)
            listed.insert(line.substr(2, line.find(' ', 2) - 2));
    for (const char *opt : {"--workdir", "--probe", "--help"})
        CHECK(listed.count(opt) == 1);

    // OPTIONS: ".TP", then ".B \-\-name" or ".BI \-\-name " ARG"".
    std::istringstream ms(slurp(source_dir() + "/assets/iolab-sandbox.1"));
    bool in_options = false, next_is_name = false;
    for (std::string line; std::getline(ms, line);) {
        if (line.rfind(".SH ", 0) == 0) {
            in_options = line == ".SH OPTIONS";
            continue;
        }
        if (!in_options)
            continue;
        if (next_is_name && (line.rfind(".B ", 0) == 0 || line.rfind(".BI ", 0) == 0)) {
            std::string name = line.substr(line.find(' ') + 1);
            name = name.substr(0, name.find(' '));
            std::string plain;
            for (size_t i = 0; i < name.size(); i++)
                if (!(name[i] == '\\' && i + 1 < name.size() && name[i + 1] == '-'))
                    plain += name[i];
            documented.insert(plain);
        }
        next_is_name = line == ".TP";
    }
    CHECK(documented == listed);
}
