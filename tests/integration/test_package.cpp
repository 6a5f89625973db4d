// The Debian package (cmake/packaging.cmake): `cpack -G DEB` builds it from the build tree; it
// declares the shared libraries iolab links and a C compiler with the C library's headers, holds
// the whole relocatable tree under /usr and nothing else, and that tree, unpacked anywhere,
// lints the built-in pack and writes and lints a new one. lintian finds no error in it.
#include "helpers.hpp"

#include <catch2/catch.hpp>
#include <dirent.h>

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
          "./usr/share/man/man1/iolab.1.gz\n", "./usr/share/bash-completion/completions/iolab\n",
          "./usr/share/doc/iolab/copyright\n", "./usr/share/doc/iolab/changelog.gz\n"}) {
        INFO(f);
        CHECK(contents.find(f) != std::string::npos);
    }
    // Nothing of the tests, nothing outside /usr.
    CHECK(contents.find("iolab-tap") == std::string::npos);
    CHECK(contents.find("it_") == std::string::npos);
    CHECK(contents.find(" ./usr/local") == std::string::npos);
    CHECK(contents.find(" ./etc") == std::string::npos);

    // Debian's own checker: no error (stripped binaries, a copyright file, a changelog, a
    // compressed man page, a real maintainer address, every program iolab runs depended on).
    auto [lintcode, lintout] = run({"/bin/sh", "-c",
                                    "command -v lintian >/dev/null || { echo 'lintian is not "
                                    "installed: apt-get install lintian'; exit 99; }; lintian "
                                    "--fail-on error \"$0\"",
                                    deb},
                                   {}, 600);
    INFO(lintout);
    CHECK(lintcode == 0);
    CHECK(lintout.find("E: ") == std::string::npos);

    // Unpacked anywhere, the tree finds its own parts.
    std::string root = t / "root";
    REQUIRE(run({"/usr/bin/dpkg-deb", "-x", deb, root}).first == 0);
    auto [lcode, lout] = run({root + "/usr/bin/iolab", "lint", root + "/usr/share/iolab/lessons"});
    INFO(lout);
    CHECK(lcode == 0);
    std::vector<std::string> env = {"XDG_CACHE_HOME=" + (t / "cache")};
    REQUIRE(run({root + "/usr/bin/iolab", "new", t / "pack"}, env).first == 0);
    auto [ncode, nout] = run({root + "/usr/bin/iolab", "lint", t / "pack"}, env, 120);
    INFO(nout);
    CHECK(ncode == 0);
}
