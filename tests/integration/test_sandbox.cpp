// iolab-sandbox against hostile programs, in every tier this machine provides (lower tiers are
// forced with --tier), and the scenario jail (jail_open + --join) surviving nothing of itself
// after the process that opened it is SIGKILLed. The hostile programs (tests/hostile/*.c) are
// compiled here, at test time, with the system C compiler.
#include "helpers.hpp"
#include "tmux_helpers.hpp"
#include "jail_helpers.hpp"

#include <catch2/catch.hpp>
#include <cjson/cJSON.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <fstream>
#include <mqueue.h>
#include <netinet/in.h>
#include <sstream>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>

extern "C" {
#include "engine/jail.h"
}

using namespace iolab_test;

namespace
{

struct Jailed {
    int code;
    std::string out;
};

Jailed jailed(const std::string &tier, const std::string &workdir, std::vector<std::string> opts,
              const std::vector<std::string> &prog, const std::string &tag)
{
    std::vector<std::string> argv = {sandbox(), "--tier", tier, "--workdir", workdir};
    argv.insert(argv.end(), opts.begin(), opts.end());
    argv.push_back("--");
    argv.insert(argv.end(), prog.begin(), prog.end());
    auto r = run(argv, {"TEST_TAG_IOLAB=" + tag}, 30);
    return {r.first, r.second};
}

int loopback_listener(int *port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in sa = {};
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    bind(fd, (struct sockaddr *)&sa, sizeof sa);
    listen(fd, 4);
    getsockname(fd, (struct sockaddr *)&sa, &len);
    *port = ntohs(sa.sin_port);
    return fd;
}

} // namespace

TEST_CASE("the probe option reports a tier and the features behind it as JSON", "[sandbox]")
{
    auto r = run({sandbox(), "--probe"});
    REQUIRE(r.first == 0);
    cJSON *j = cJSON_Parse(r.second.c_str());
    REQUIRE(j != nullptr);
    std::string tier = cJSON_GetObjectItem(j, "tier")->valuestring;
    CHECK((tier == "full" || tier == "reduced" || tier == "minimal"));
    CHECK(cJSON_IsObject(cJSON_GetObjectItem(j, "features")));
    CHECK(cJSON_IsArray(cJSON_GetObjectItem(j, "missing")));
    CHECK((tier == "full") == (cJSON_GetArraySize(cJSON_GetObjectItem(j, "missing")) == 0));
    cJSON_Delete(j);
}

TEST_CASE("the help option documents the command line and a bad option is one clear sentence",
          "[sandbox]")
{
    auto h = run({sandbox(), "--help"});
    CHECK(h.first == 0);
    for (const char *o : {"--workdir", "--tier", "--timeout", "--nproc", "--as", "--port"})
        CHECK(h.second.find(o) != std::string::npos);
    auto bad = run({sandbox(), "--frobnicate", "--", "/bin/true"});
    CHECK(bad.first == 2);
    CHECK(bad.second.find("unknown option --frobnicate") != std::string::npos);
    auto missing = run({sandbox(), "--", "/nonexistent/prog"});
    CHECK(missing.first == 127);
    CHECK(missing.second.find("cannot run /nonexistent/prog") != std::string::npos);
}

TEST_CASE("Hostile programs are contained in every tier", "[sandbox]")
{
    for (const auto &tier : tiers()) {
        DYNAMIC_SECTION("tier " << tier)
        {
            TempDir wd;
            chmod(wd.path.c_str(), 0777);
            std::string tag = new_tag();

            INFO("exit status is the program's, or 128+signal");
            CHECK(jailed(tier, wd.path, {}, {"/bin/sh", "-c", "exit 7"}, tag).code == 7);
            CHECK(jailed(tier, wd.path, {}, {"/bin/sh", "-c", "kill -TERM $$"}, tag).code ==
                  128 + SIGTERM);

            INFO("a fork loop stops at the process limit and leaves no process");
            auto f = jailed(tier, wd.path, {"--nproc", "20"}, {hostile("forkloop")}, tag);
            CHECK(f.code == 0);
            int forks = -1;
            auto at = f.out.find("fork failed after ");
            REQUIRE(at != std::string::npos);
            forks = atoi(f.out.c_str() + at + 18);
            CHECK(forks <= 40);
            CHECK(left_after_1s(tag) == 0);

            INFO("a memory hog stops at the address-space limit");
            auto m = jailed(tier, wd.path, {"--as", "256"}, {hostile("memhog")}, tag);
            at = m.out.find("allocation failed after ");
            REQUIRE(at != std::string::npos);
            CHECK(atoi(m.out.c_str() + at + 24) < 256);

            INFO("an endless CPU loop is stopped by its CPU limit, with a report");
            auto c = jailed(tier, wd.path, {"--cpu", "1"}, {hostile("cpuloop")}, tag);
            CHECK(c.code == 128 + SIGXCPU);
            CHECK(c.out.find("CPU time limit") != std::string::npos);

            INFO("a disk filler is stopped at the file size limit, with a report");
            auto d = jailed(tier, wd.path, {"--fsize", "8"}, {hostile("diskfill")}, tag);
            CHECK(d.code == 128 + SIGXFSZ);
            CHECK(d.out.find("file size limit") != std::string::npos);
            struct stat st = {};
            CHECK(stat((wd / "fill.bin").c_str(), &st) == 0);
            CHECK(st.st_size <= 8 << 20);

            INFO("an endless program is stopped by the wall-clock timeout");
            auto t = jailed(tier, wd.path, {"--timeout", "0.3", "--grace", "0.2"},
                            {"/bin/sleep", "30"}, tag);
            CHECK(t.code == 128 + SIGTERM);
            CHECK(t.out.find("timeout") != std::string::npos);

            INFO("a setsid + double-fork escape leaves nothing once the launcher is gone");
            auto e = jailed(tier, wd.path, {}, {hostile("escape")}, tag);
            CHECK(e.code == 0);
            CHECK(e.out.find("escaped") != std::string::npos);
            CHECK(left_after_1s(tag) == 0);

            INFO("a write outside the work directory");
            TempDir outside;
            // World-writable, so that only the jail (not file modes) can refuse it.
            chmod(outside.path.c_str(), tier == "minimal" ? 0755 : 0777);
            auto w = jailed(tier, wd.path, {}, {hostile("writeout"), outside / "escaped.txt"}, tag);
            if (tier != "minimal" || geteuid() == 0) {
                CHECK(w.out.find("denied") != std::string::npos);
                CHECK(access((outside / "escaped.txt").c_str(), F_OK) != 0);
            }
            CHECK(jailed(tier, wd.path, {}, {hostile("writeout"), wd / "mine.txt"}, tag)
                      .out.find("created") != std::string::npos);

            INFO("bind and connect to loopback ports the scenario does not own");
            int host_port = 0, own = 0;
            int lfd = loopback_listener(&host_port);
            int ofd = loopback_listener(&own); // a free port, released for the jail to use
            close(ofd);
            int other = host_port + 1 == own ? host_port + 2 : host_port + 1;
            auto p = jailed(tier, wd.path, {"--port", std::to_string(own)},
                            {hostile("portgrab"), std::to_string(other), std::to_string(host_port)},
                            tag);
            if (tier == "full") {
                // Its own loopback: the host's listener does not exist there.
                CHECK(p.out.find("connect Connection refused") != std::string::npos);
            } else if (tier == "reduced") {
                CHECK(p.out.find("bind Permission denied") != std::string::npos);
                CHECK(p.out.find("connect Permission denied") != std::string::npos);
            }
            if (tier != "minimal")
                CHECK(accept(lfd, nullptr, nullptr) < 0); // nothing reached the host's listener
            close(lfd);
            auto mine =
                jailed(tier, wd.path, {"--port", std::to_string(own)},
                       {hostile("portgrab"), std::to_string(own), std::to_string(own)}, tag);
            CHECK(mine.out.find("bind ok") != std::string::npos);

            INFO("a program that ignores SIGTERM is killed after the grace, children too");
            Child ign;
            ign.start({sandbox(), "--tier", tier, "--workdir", wd.path, "--grace", "0.3", "--",
                       hostile("termignore")},
                      {"TEST_TAG_IOLAB=" + tag});
            REQUIRE(ign.read_until("ready"));
            CHECK(tagged(tag) >= 2);
            kill(ign.pid(), SIGTERM);
            int s = ign.wait(5);
            REQUIRE(s != -1);
            CHECK(WIFEXITED(s));
            CHECK(WEXITSTATUS(s) == 128 + SIGKILL);
            CHECK(ign.output().find("still running") != std::string::npos);
            CHECK(left_after_1s(tag) == 0);
        }
    }
}

namespace
{

// What the "iolab" below reports about the scenario it started.
struct Scenario {
    std::string workdir, shm, mq, tier;
    int sysv[3] = {-1, -1, -1};
    pid_t holder_pid = -1;
};

} // namespace

TEST_CASE("Killing iolab with SIGKILL mid-scenario leaves nothing behind", "[sandbox]")
{
    for (const auto &tier : tiers()) {
        DYNAMIC_SECTION("tier " << tier)
        {
            std::string tag = new_tag();
            std::string prog = hostile("ipcmaker");
            int p[2];
            REQUIRE(pipe(p) == 0);
            // A stand-in for iolab: opens the jail, starts a program in it, then waits to die.
            pid_t iolab = fork();
            REQUIRE(iolab >= 0);
            if (iolab == 0) {
                close(p[0]);
                dup2(p[1], 1);
                dup2(p[1], 2);
                setenv("TEST_TAG_IOLAB", tag.c_str(), 1);
                char wd[] = "/tmp/iolab-it-XXXXXX";
                if (!mkdtemp(wd))
                    _exit(1);
                printf("workdir %s\n", wd);
                fflush(stdout);
                std::string sb = sandbox();
                struct jail_options o = {};
                o.sandbox_path = sb.c_str();
                o.workdir = wd;
                o.tier = tier == "full"      ? IOLAB_TIER_FULL
                         : tier == "reduced" ? IOLAB_TIER_REDUCED
                                             : IOLAB_TIER_MINIMAL;
                struct jail *j = nullptr;
                char why[256];
                if (jail_open(&j, &o, why, sizeof why) < 0) {
                    printf("jail_open: %s\n", why);
                    _exit(1);
                }
                printf("tier %s\n", iolab_tier_name(jail_tier(j)));
                fflush(stdout);
                char *const pargv[] = {const_cast<char *>(prog.c_str()), nullptr};
                char **argv = jail_argv(j, pargv, nullptr, 0);
                if (fork() == 0) {
                    setenv("IOLAB_SESSION", jail_session(j), 1);
                    // As iolab does: the shim records the IPC objects the program creates, and
                    // the lower tiers sweep exactly those.
                    setenv("IOLAB_PRELOAD", shim().c_str(), 1);
                    execv(argv[0], argv);
                    _exit(127);
                }
                for (;;)
                    pause();
            }
            close(p[1]);
            Scenario sc;
            std::string out;
            auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (out.find("ready") == std::string::npos &&
                   std::chrono::steady_clock::now() < deadline) {
                struct pollfd pfd = {p[0], POLLIN, 0};
                char buf[512];
                if (poll(&pfd, 1, 100) > 0) {
                    ssize_t n = read(p[0], buf, sizeof buf);
                    if (n <= 0)
                        break;
                    out.append(buf, (size_t)n);
                }
            }
            INFO(out);
            if (out.find("ready") == std::string::npos) {
                kill(iolab, SIGKILL);
                waitpid(iolab, nullptr, 0);
                close(p[0]);
                FAIL("the scenario did not start");
            }
            std::istringstream in(out);
            for (std::string word; in >> word;) {
                if (word == "workdir")
                    in >> sc.workdir;
                else if (word == "tier")
                    in >> sc.tier;
                else if (word == "posix")
                    in >> sc.shm >> sc.mq;
                else if (word == "sysv")
                    in >> sc.sysv[0] >> sc.sysv[1] >> sc.sysv[2];
            }
            CHECK(sc.tier == tier);
            CHECK(tagged(tag) >= 3); // launcher, program and its child at least
            if (tier != "full") {
                // Outside namespaces the objects are on the host until the sweep.
                CHECK(access(("/dev/shm" + sc.shm).c_str(), F_OK) == 0);
                struct shmid_ds before;
                struct msqid_ds mbefore;
                struct semid_ds ebefore;
                CHECK(shmctl(sc.sysv[0], IPC_STAT, &before) == 0);
                CHECK(msgctl(sc.sysv[1], IPC_STAT, &mbefore) == 0);
                CHECK(semctl(sc.sysv[2], 0, IPC_STAT, &ebefore) == 0);
            }

            kill(iolab, SIGKILL);
            waitpid(iolab, nullptr, 0);
            close(p[0]);

            CHECK(left_after_1s(tag) == 0);
            if (tagged(tag)) {
                std::string cmd =
                    "ps -eo pid,ppid,user,stat,cmd | grep -e iolab-sandbox -e ipcmaker";
                auto ps = run({"/bin/sh", "-c", cmd});
                FAIL_CHECK(ps.second);
            }
            CHECK(access(sc.workdir.c_str(), F_OK) != 0);
            CHECK(access(("/dev/shm" + sc.shm).c_str(), F_OK) != 0);
            if (tier != "full") {
                struct shmid_ds sd;
                struct msqid_ds md;
                CHECK(shmctl(sc.sysv[0], IPC_STAT, &sd) < 0);
                CHECK(msgctl(sc.sysv[1], IPC_STAT, &md) < 0);
                struct semid_ds ed;
                CHECK(semctl(sc.sysv[2], 0, IPC_STAT, &ed) < 0);
                // Never created in the reduced tier (Landlock refuses mq_open), swept otherwise.
                mqd_t q = mq_open(sc.mq.c_str(), O_RDONLY);
                CHECK(q == (mqd_t)-1);
                if (q != (mqd_t)-1)
                    mq_close(q);
            }
        }
    }
}

TEST_CASE("Outside the full tier, IPC objects the programs create are swept whatever their names",
          "[sandbox]")
{
    // No session prefix here: only the shim's registry knows these objects are the program's.
    // In the reduced tier Landlock refuses mq_open(), but only after the kernel made the queue.
    for (const auto &tier : tiers()) {
        if (tier == "full")
            continue;
        DYNAMIC_SECTION("tier " << tier)
        {
            TempDir wd;
            chmod(wd.path.c_str(), 0777);
            std::string tag = new_tag();
            std::string stem = "iolabtest-own-" + std::to_string(getpid()) + "-";
            auto r = run(
                {sandbox(), "--tier", tier, "--workdir", wd.path, "--timeout", "0.5", "--grace",
                 "0.2", "--quiet", "--", hostile("ipcmaker")},
                {"TEST_TAG_IOLAB=" + tag, "IOLAB_PRELOAD=" + shim(), "TEST_IPC_STEM=" + stem}, 30);
            INFO(r.second);
            CHECK(r.first == 128 + SIGTERM);
            std::string shm, mq;
            int sysv[3] = {-1, -1, -1};
            std::istringstream in(
                r.second.substr(std::min(r.second.size(), r.second.find("posix "))));
            std::string word;
            in >> word >> shm >> mq >> word >> sysv[0] >> sysv[1] >> sysv[2];
            REQUIRE(shm == "/" + stem + "shm");
            REQUIRE(mq == "/" + stem + "mq");
            CHECK(sysv[0] >= 0);
            CHECK(sysv[1] >= 0);
            CHECK(sysv[2] >= 0);
            CHECK(access(("/dev/shm" + shm).c_str(), F_OK) != 0);
            mqd_t q = mq_open(mq.c_str(), O_RDONLY);
            CHECK(q == (mqd_t)-1);
            if (q != (mqd_t)-1) {
                mq_close(q);
                mq_unlink(mq.c_str());
            }
            struct shmid_ds sd;
            struct msqid_ds md;
            struct semid_ds ed;
            CHECK(shmctl(sysv[0], IPC_STAT, &sd) < 0);
            CHECK(msgctl(sysv[1], IPC_STAT, &md) < 0);
            CHECK(semctl(sysv[2], 0, IPC_STAT, &ed) < 0);
            CHECK(access((wd / ".iolab-ipc").c_str(), F_OK) != 0); // the registry goes too
            CHECK(left_after_1s(tag) == 0);
        }
    }
}

TEST_CASE("As an ordinary user, the jail holds the same way", "[sandbox]")
{
    // Learners are not root: when the suite runs as root (CI), repeat the key cases as uid
    // 65534 through setpriv, which changes nothing on the machine.
    if (geteuid() != 0 || access("/usr/bin/setpriv", X_OK) != 0)
        return; // the whole suite already runs unprivileged
    const std::vector<std::string> as_user = {"/usr/bin/setpriv", "--reuid=65534", "--regid=65534",
                                              "--clear-groups"};
    auto probe = as_user;
    probe.push_back(sandbox());
    probe.push_back("--probe");
    auto pr = run(probe);
    REQUIRE(pr.first == 0);
    CHECK(pr.second.find("\"root\":false") != std::string::npos);
    for (const auto &tier : tiers()) {
        DYNAMIC_SECTION("tier " << tier)
        {
            TempDir wd;
            chmod(wd.path.c_str(), 0777);
            std::string tag = new_tag();
            auto argv = as_user;
            for (const auto &a : {sandbox(), std::string("--tier"), tier, std::string("--workdir"),
                                  wd.path, std::string("--nproc"), std::string("20"),
                                  std::string("--"), hostile("forkloop")})
                argv.push_back(a);
            auto f = run(argv, {"TEST_TAG_IOLAB=" + tag});
            CHECK(f.first == 0);
            CHECK(f.second.find("fork failed after") != std::string::npos);
            CHECK(left_after_1s(tag) == 0);
            argv.back() = hostile("escape");
            auto e = run(argv, {"TEST_TAG_IOLAB=" + tag});
            CHECK(e.second.find("escaped") != std::string::npos);
            CHECK(left_after_1s(tag) == 0);
        }
    }
}

// ---- Issue 21: hostile programs not tried before ----------------------------------------------

TEST_CASE("More hostile programs are contained in every tier: closed descriptors, the descriptor "
          "limit, unshare and setns",
          "[sandbox]")
{
    for (const auto &tier : tiers()) {
        DYNAMIC_SECTION("tier " << tier)
        {
            TempDir wd;
            chmod(wd.path.c_str(), 0777);
            std::string tag = new_tag();

            INFO("a program that closes every descriptor (and execs itself without its counter "
                 "page) is stopped at its timeout, with a report, and leaves nothing");
            auto c = jailed(tier, wd.path, {"--timeout", "0.5", "--grace", "0.2"},
                            {hostile("closeall")}, tag);
            CHECK(c.out.find("closing every descriptor") != std::string::npos);
            CHECK(c.code == 128 + SIGTERM);
            CHECK(c.out.find("ran past its timeout") != std::string::npos);
            CHECK(left_after_1s(tag) == 0);

            INFO("a program that opens descriptors until the limit stops there");
            auto f = jailed(tier, wd.path, {"--timeout", "0.5", "--grace", "0.2"},
                            {hostile("fdlimit")}, tag);
            auto at = f.out.find("open failed after ");
            REQUIRE(at != std::string::npos);
            CHECK(atol(f.out.c_str() + at + 18) <= 65536);
            CHECK(f.out.find("Too many open files") != std::string::npos);
            CHECK(f.out.find("ran past its timeout") != std::string::npos);
            CHECK(left_after_1s(tag) == 0);

            INFO("a program that calls setns and unshare gets out of nothing");
            int host_port = 0;
            int lfd = loopback_listener(&host_port);
            TempDir outside;
            chmod(outside.path.c_str(), tier == "minimal" ? 0755 : 0777);
            auto n =
                jailed(tier, wd.path, {"--timeout", "0.5", "--grace", "0.2"},
                       {hostile("nsescape"), std::to_string(host_port), outside / "x.txt"}, tag);
            CHECK(n.out.find("done") != std::string::npos);
            // /proc/1 is the jail's own init in the full tier; elsewhere the host's, which an
            // unprivileged program cannot enter.
            for (const char *ns : {"user", "mnt", "net", "pid", "ipc", "uts", "cgroup"})
                CHECK(n.out.find(std::string("setns ") + ns + ": ok") == std::string::npos);
            if (tier != "minimal") {
                CHECK(n.out.find("connect ok") == std::string::npos);
                CHECK(accept(lfd, nullptr, nullptr) < 0); // nothing reached the host
            }
            if (tier != "minimal" || geteuid() == 0)
                CHECK(access((outside / "x.txt").c_str(), F_OK) != 0);
            close(lfd);
            CHECK(n.out.find("ran past its timeout") != std::string::npos);
            // Its child sits in the namespaces it made (a new PID namespace among them).
            CHECK(left_after_1s(tag) == 0);
        }
    }
}

namespace
{

// A pack of one lesson whose one run step runs prog with args (a JSON array) as its server.
void hostile_pack(const std::string &dir, const std::string &prog, const std::string &args)
{
    spit(dir + "/pack.json", R"({"format_version": 1, "id": "t", "title": "T",
        "version": "1", "lessons": ["l"]})");
    std::ofstream(dir + "/l.json") << R"({"id": "l", "title": "Hostile lesson", "summary": "s",
        "steps": [{"id": "s", "title": "Hostile step", "kind": "run", "text": ["x"],
        "seconds": 2, "programs": [{"name": "prog", "role": "server", "program": ")"
                                   << prog << R"(", "args": )" << args << "}]}]}";
}

// Runs `iolab run l/s` on a hostile pack and follows iolab's own peak memory (VmHWM) while it
// runs. Returns the exit code, the output and that peak in KiB.
struct Watched {
    int code;
    std::string out;
    long hwm_kb;
};

Watched run_watched(const std::string &pack, const std::string &tag, double seconds)
{
    Child io;
    io.start({bin("iolab"), "run", "l/s", "--pack", pack, "--seconds", std::to_string(seconds)},
             {"TEST_TAG_IOLAB=" + tag});
    long hwm = 0;
    int st = -1;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (st == -1 && std::chrono::steady_clock::now() < deadline) {
        std::ifstream f("/proc/" + std::to_string(io.pid()) + "/status");
        for (std::string line; std::getline(f, line);)
            if (line.rfind("VmHWM:", 0) == 0)
                hwm = std::max(hwm, atol(line.c_str() + 6));
        st = io.wait(0.05);
    }
    if (st == -1)
        st = io.stop();
    return {WIFEXITED(st) ? WEXITSTATUS(st) : -1, io.output(), hwm};
}

} // namespace

TEST_CASE("iolab stays bounded and right against a flood, a closed stdout and a scribbled "
          "counter page",
          "[sandbox]")
{
    TempDir quiet, flood, closeall, garbage;
    std::string tag = new_tag();
    hostile_pack(quiet.path, "/bin/sleep", R"(["100"])");
    hostile_pack(flood.path, hostile("flood"), R"(["300"])");
    hostile_pack(closeall.path, hostile("closeall"), "[]");
    hostile_pack(garbage.path, hostile("pagegarbage"), "[]");

    INFO("300 MiB on stdout without a newline: iolab's memory stays where a quiet program "
         "leaves it (measured: about 4 MB for 800 MB)");
    auto base = run_watched(quiet.path, tag, 3);
    REQUIRE(base.code == 0);
    auto f = run_watched(flood.path, tag, 3);
    INFO("quiet: " << base.hwm_kb << " KiB, flood: " << f.hwm_kb << " KiB");
    CHECK(f.code == 0);
    CHECK(f.out.find("write") != std::string::npos);
    CHECK(f.hwm_kb > 0);
    CHECK(f.hwm_kb - base.hwm_kb < 16 * 1024);
    CHECK(left_after_1s(tag) == 0);

    INFO("a program that closes its stdout, stderr and counter page is measured and stopped");
    // The program goes on calling every 10 ms after its first burst: beside a CPU hog iolab's
    // first look at the run (where its measuring starts) can come after the burst.
    auto c = run_watched(closeall.path, tag, 4);
    INFO(c.out);
    CHECK(c.code == 0);
    CHECK(c.out.find(" s measured") != std::string::npos);
    CHECK(c.out.find("close ") != std::string::npos);
    CHECK(left_after_1s(tag) == 0);

    // Issue 21: on main the sums wrapped and were shown as true: 18446744073709550766 calls.
    INFO("a program that scribbles on the counter page gets wrong figures, marked as such");
    auto g = run_watched(garbage.path, tag, 1.5);
    // The figures are printed either way; a scribbled header may also read as lost counts,
    // which iolab run reports with exit 3, else the run is not clean (exit 1, issue 26): never
    // a clean 0 with wrong figures unmarked.
    CHECK((g.code == 1 || g.code == 3));
    CHECK(g.out.find("the figures below are wrong") != std::string::npos);
    CHECK(g.out.find("counts from this run cannot be trusted") != std::string::npos);
    CHECK(g.out.find("18446744073709") == std::string::npos);
    CHECK(left_after_1s(tag) == 0);
}

TEST_CASE("Escape sequences a program prints do not reach the TUI's terminal", "[sandbox]")
{
    TempDir t;
    chmod(t.path.c_str(), 0755);
    REQUIRE(mkdir((t / "pack").c_str(), 0755) == 0);
    hostile_pack(t / "pack", hostile("termescape"), "[]");
    IolabTerm term(t, "--pack '" + (t / "pack") + "'", "", 120, 40);
    REQUIRE(term.started());
    bool started = term.wait_for("Start:", 20);
    if (started) {
        term.keys("Enter");
        started = term.wait_for("Enter starts the scenario", 20);
    }
    std::string title_before = term.format("#{pane_title}");
    if (started) {
        term.keys("Enter");
        started = term.wait_for("ESCAPES-SENT", 20);
    }
    std::string shown = term.screen(), coloured = term.screen(true);
    std::string title = term.format("#{pane_title}"), alt = term.format("#{alternate_on}");
    term.keys("q");
    term.wait_for("IOLAB-EXITED", 20);
    INFO(shown);
    REQUIRE(started);
    CHECK(title.find("PWNED") == std::string::npos); // the window title is untouched
    CHECK(title == title_before);
    CHECK(alt == "1");                                        // still on iolab's alternate screen
    CHECK(shown.find("Hostile step") != std::string::npos);   // iolab's frame is still drawn
    CHECK(coloured.find("\033[41m") == std::string::npos);    // the red background never arrived
    CHECK(shown.find("red background") != std::string::npos); // the text itself is shown
}
