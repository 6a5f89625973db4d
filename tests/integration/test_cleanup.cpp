// Nothing left behind: iolab itself (not a stand-in) is killed in the middle of a scenario whose
// program has forked and created POSIX and System V IPC objects, in every tier this machine
// provides; within one second no process, IPC object or work directory of it may remain. And
// nothing more is taken: the objects the learner's other programs (same uid) create while a
// session runs outlive it.
#include "helpers.hpp"
#include "jail_helpers.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <fstream>
#include <functional>
#include <grp.h>
#include <mqueue.h>
#include <set>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace iolab_test;

namespace
{

// A one-lesson pack whose only program is the compiled ipcmaker (an absolute path is allowed).
void write_pack(const TempDir &dir, const std::string &program)
{
    spit(dir / "pack.json", R"({"format_version": 1, "id": "cleanup",
        "title": "Cleanup", "version": "1", "lessons": ["ipc"]})");
    spit(dir / "ipc.json", R"({"id": "ipc", "title": "IPC left behind?",
        "summary": "A program that creates IPC objects and forks.",
        "steps": [{"id": "hold", "title": "Hold", "kind": "run", "text": "Holds IPC objects.",
                   "seconds": 60,
                   "programs": [{"name": "maker", "role": "server", "program": ")" +
                               program + R"(", "args": [], "ready": "ready"}]}]})");
}

// Every System V object on the host, as "shm:ID", "msg:ID", "sem:ID". The tables name no
// creator for queues and semaphores, so the test takes what appeared while its scenario ran;
// ctest runs this test and the sandbox tests (the other makers of such objects) one at a time.
std::set<std::string> sysv_objects()
{
    std::set<std::string> out;
    for (const char *kind : {"shm", "msg", "sem"}) {
        std::ifstream f(std::string("/proc/sysvipc/") + kind);
        std::string line;
        std::getline(f, line); // header
        while (std::getline(f, line)) {
            std::istringstream in(line);
            std::string key, id;
            if (in >> key >> id)
                out.insert(std::string(kind) + ":" + id);
        }
    }
    return out;
}

// The maker's System V objects, as "shm:ID", "msg:ID", "sem:ID": the ids it wrote into its work
// directory (other tests make objects of their own meanwhile, so what appeared is no guide).
std::set<std::string> maker_ids(const std::string &workdir)
{
    std::string file = workdir + "/sysv-ids";
    for (int i = 0; i < 1500 && access(file.c_str(), F_OK) != 0; i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    int sid = -1, mid = -1, eid = -1;
    std::ifstream(file) >> sid >> mid >> eid;
    if (sid < 0 || mid < 0 || eid < 0)
        return {};
    return {"shm:" + std::to_string(sid), "msg:" + std::to_string(mid),
            "sem:" + std::to_string(eid)};
}

// The host's System V segments whose creator (shm_cpid, as this pid namespace sees it) is
// one of pids.
std::set<long> host_segments_made_by(const std::set<int> &pids)
{
    std::set<long> out;
    std::ifstream f("/proc/sysvipc/shm");
    std::string line;
    std::getline(f, line); // header
    while (std::getline(f, line)) {
        std::istringstream in(line);
        long key, id, perms, size, cpid;
        if (in >> key >> id >> perms >> size >> cpid && pids.count((int)cpid))
            out.insert(id);
    }
    return out;
}

// Every process carrying the tag, by pid.
std::set<int> tagged_pids(const std::string &tag)
{
    std::set<int> out;
    std::string needle = "TEST_TAG_IOLAB=" + tag;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        if (read_proc(std::string("/proc/") + e->d_name + "/environ").find(needle) !=
            std::string::npos)
            out.insert(atoi(e->d_name));
    }
    if (d)
        closedir(d);
    return out;
}

std::set<std::string> dev_shm_with(const std::string &prefix)
{
    std::set<std::string> out;
    DIR *d = opendir("/dev/shm");
    for (struct dirent *e; d && (e = readdir(d));)
        if (std::string(e->d_name).rfind(prefix, 0) == 0)
            out.insert(e->d_name);
    if (d)
        closedir(d);
    return out;
}

// Whether gone() becomes true: polled for up to 30 s (a loaded machine can take seconds to run
// the cleaner), so the wait ends at the event.
bool gone_soon(const std::function<bool()> &gone)
{
    for (int i = 0; i < 600 && !gone(); i++)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return gone();
}

// The programs' uid: as root they run as 65534, otherwise as the learner.
uid_t programs_uid()
{
    return geteuid() == 0 ? 65534 : geteuid();
}

// IPC objects of "another program" of the programs' uid: made by a forked child that becomes
// that uid, as a desktop application or a database of the learner's would.
struct Bystanders {
    int shm = -1, msg = -1, sem = -1, keyed = -1;
    std::string pshm, pmq;

    // key: also a segment under that System V key (0: none).
    bool create(key_t key)
    {
        std::string stem =
            "/iolabtest-bystander-" + std::to_string(getpid()) + "-" + std::to_string(rand());
        pshm = stem + "-shm";
        pmq = stem + "-mq";
        int p[2];
        if (pipe(p) < 0)
            return false;
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            uid_t uid = programs_uid();
            if (geteuid() == 0 && (setgroups(0, nullptr) < 0 || setresgid(uid, uid, uid) < 0 ||
                                   setresuid(uid, uid, uid) < 0))
                _exit(1);
            int ids[4] = {shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600),
                          msgget(IPC_PRIVATE, IPC_CREAT | 0600),
                          semget(IPC_PRIVATE, 1, IPC_CREAT | 0600),
                          key ? shmget(key, 4096, IPC_CREAT | IPC_EXCL | 0600) : -1};
            int fd = shm_open(pshm.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
            mqd_t q = mq_open(pmq.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600, nullptr);
            bool ok = ids[0] >= 0 && ids[1] >= 0 && ids[2] >= 0 && (!key || ids[3] >= 0) &&
                      fd >= 0 && q != (mqd_t)-1;
            _exit(write(p[1], ids, sizeof ids) == sizeof ids && ok ? 0 : 1);
        }
        close(p[1]);
        int ids[4] = {-1, -1, -1, -1};
        bool got = pid > 0 && read(p[0], ids, sizeof ids) == sizeof ids;
        close(p[0]);
        int st = -1;
        if (pid > 0)
            waitpid(pid, &st, 0);
        shm = ids[0];
        msg = ids[1];
        sem = ids[2];
        keyed = ids[3];
        return got && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }

    // What of them still exists, as "shm", "msg", ... (the test runs as root or as their uid).
    std::set<std::string> alive() const
    {
        std::set<std::string> out;
        struct shmid_ds sd;
        struct msqid_ds md;
        struct semid_ds ed;
        if (shm >= 0 && shmctl(shm, IPC_STAT, &sd) == 0)
            out.insert("shm");
        if (msg >= 0 && msgctl(msg, IPC_STAT, &md) == 0)
            out.insert("msg");
        if (sem >= 0 && semctl(sem, 0, IPC_STAT, &ed) == 0)
            out.insert("sem");
        if (keyed >= 0 && shmctl(keyed, IPC_STAT, &sd) == 0)
            out.insert("keyed");
        if (access(("/dev/shm" + pshm).c_str(), F_OK) == 0)
            out.insert("pshm");
        mqd_t q = mq_open(pmq.c_str(), O_RDONLY);
        if (q != (mqd_t)-1) {
            out.insert("pmq");
            mq_close(q);
        }
        return out;
    }

    ~Bystanders()
    {
        if (shm >= 0)
            shmctl(shm, IPC_RMID, nullptr);
        if (msg >= 0)
            msgctl(msg, IPC_RMID, nullptr);
        if (sem >= 0)
            semctl(sem, 0, IPC_RMID);
        if (keyed >= 0)
            shmctl(keyed, IPC_RMID, nullptr);
        if (!pshm.empty())
            shm_unlink(pshm.c_str());
        if (!pmq.empty())
            mq_unlink(pmq.c_str());
    }
};

// Starts `iolab run` on the pack and waits for the maker and its forked child; their pids.
std::set<int> start_maker(Child &iolab, const std::string &pack, const std::string &tier,
                          const std::string &tag, const std::vector<std::string> &env = {})
{
    std::vector<std::string> e = env;
    e.push_back("TEST_TAG_IOLAB=" + tag);
    iolab.start({bin("iolab"), "run", "ipc/hold", "--pack", pack, "--tier", tier}, e);
    std::set<int> pids;
    for (int i = 0; i < 200 && pids.size() < 2; i++) {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
        pids.clear();
        for (int p : tagged_pids(tag)) {
            char exe[4096] = "";
            ssize_t n =
                readlink(("/proc/" + std::to_string(p) + "/exe").c_str(), exe, sizeof exe - 1);
            if (n > 0 && std::string(exe, (size_t)n).find("ipcmaker") != std::string::npos)
                pids.insert(p);
        }
    }
    return pids;
}

} // namespace

TEST_CASE("cleanup: iolab run killed with SIGKILL mid-scenario leaves nothing behind")
{
    TempDir pack;
    write_pack(pack, hostile("ipcmaker"));
    for (const auto &tier : tiers()) {
        for (int sig : {SIGKILL, SIGSEGV}) {
            DYNAMIC_SECTION("tier " << tier << ", signal " << sig)
            {
                std::string tag = new_tag();
                Child iolab;
                std::set<int> pids = start_maker(iolab, pack.path, tier, tag);
                INFO(iolab.output());
                REQUIRE(pids.size() >= 2);
                std::this_thread::sleep_for(std::chrono::milliseconds(100));

                // Where its objects are: its work directory, and outside the full tier's own
                // namespaces, host IPC objects under the session's prefix or its creator pid.
                char cwd[4096] = "";
                ssize_t n = readlink(("/proc/" + std::to_string(*pids.begin()) + "/cwd").c_str(),
                                     cwd, sizeof cwd - 1);
                REQUIRE(n > 0);
                std::string workdir(cwd, (size_t)n);
                CHECK(workdir.rfind("/tmp/iolab-", 0) == 0);
                std::string prefix = "iolab-" + std::to_string(iolab.pid()) + "-";
                std::set<std::string> shm = dev_shm_with(prefix);
                // A segment, a message queue and a semaphore set: on the host outside the full
                // tier, in the session's own IPC namespace in it.
                std::set<std::string> sysv = maker_ids(workdir);
                REQUIRE(sysv.size() == 3);
                if (tier != "full") {
                    CHECK(!shm.empty());
                    std::set<std::string> host = sysv_objects();
                    for (const std::string &id : sysv)
                        CHECK(host.count(id) == 1);
                } else {
                    CHECK(shm.empty()); // its own /dev/shm and IPC namespace hold them
                    CHECK(host_segments_made_by(pids).empty());
                    sysv.clear(); // its ids name nothing on the host
                }

                kill(iolab.pid(), sig);
                iolab.wait(10);

                CHECK(gone_soon([&] { return tagged(tag) == 0; }));
                CHECK(gone_soon([&] { return access(workdir.c_str(), F_OK) != 0; }));
                CHECK(gone_soon([&] { return dev_shm_with(prefix).empty(); }));
                CHECK(gone_soon([&] {
                    std::set<std::string> left = sysv_objects();
                    for (const auto &id : sysv)
                        if (left.count(id))
                            return false;
                    return true;
                }));
            }
        }
    }
}

TEST_CASE("cleanup: the same uid's other IPC objects survive a session without namespaces")
{
    // Outside the full tier the host's IPC tables are shared with everything else the learner
    // runs. Objects created by that uid while the session runs (and one the scenario's program
    // merely opened by its key) must outlive the session; the program's own must not.
    TempDir pack;
    write_pack(pack, hostile("ipcmaker"));
    for (const auto &tier : tiers()) {
        if (tier == "full")
            continue; // its own IPC namespace: nothing of the host's is ever touched
        DYNAMIC_SECTION("tier " << tier)
        {
            key_t key = (key_t)(0x10ab0000 | (getpid() & 0xffff));
            Bystanders early; // existed before the session; the program opens it by key
            REQUIRE(early.create(key));
            std::string tag = new_tag();
            Child iolab;
            std::set<int> pids =
                start_maker(iolab, pack.path, tier, tag, {"TEST_IPC_KEY=" + std::to_string(key)});
            INFO(iolab.output());
            REQUIRE(pids.size() >= 2);
            Bystanders during; // created while the scenario runs
            REQUIRE(during.create(0));
            std::this_thread::sleep_for(std::chrono::milliseconds(100));

            char cwd[4096] = "";
            ssize_t n = readlink(("/proc/" + std::to_string(*pids.begin()) + "/cwd").c_str(), cwd,
                                 sizeof cwd - 1);
            REQUIRE(n > 0);
            std::string workdir(cwd, (size_t)n);
            // The program's own, as it wrote them; the bystanders are not among them.
            std::set<std::string> own = maker_ids(workdir);
            REQUIRE(own.size() == 3);
            CHECK_FALSE(own.count("shm:" + std::to_string(during.shm)));
            std::set<std::string> host = sysv_objects();
            for (const auto &id : own)
                CHECK(host.count(id) == 1);
            std::set<std::string> all = {"shm", "msg", "sem", "pshm", "pmq"};
            CHECK(during.alive() == all);
            // The program did open the early segment by its key: it attached it.
            struct shmid_ds kd = {};
            REQUIRE(shmctl(early.keyed, IPC_STAT, &kd) == 0);
            CHECK(pids.count(kd.shm_lpid) == 1);
            CHECK(kd.shm_nattch >= 1);

            kill(iolab.pid(), SIGKILL);
            iolab.wait(10);
            // The work directory goes last, after the sweep.
            REQUIRE(gone_soon([&] { return access(workdir.c_str(), F_OK) != 0; }));
            CHECK(tagged(tag) == 0);
            std::set<std::string> left = sysv_objects();
            for (const auto &id : own)
                CHECK_FALSE(left.count(id));
            CHECK(during.alive() == all);
            all.insert("keyed");
            CHECK(early.alive() == all);
        }
    }
}
