// What the sandbox and cleanup tests share: hostile programs compiled at test time, the tiers
// this machine provides, and finding a scenario's processes by a tag in their environment
// (every descendant inherits it, whatever namespace or uid it ends up in).
#pragma once

#include "helpers.hpp"

#include <chrono>
#include <cjson/cJSON.h>
#include <dirent.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <vector>

namespace iolab_test
{

inline std::string sandbox()
{
    return bin("iolab-sandbox");
}

// The hostile programs, built once per test process into a directory any uid can read.
inline std::string hostile(const std::string &name)
{
    static TempDir dir;
    static std::map<std::string, std::string> built;
    auto it = built.find(name);
    if (it != built.end())
        return it->second;
    chmod(dir.path.c_str(), 0755);
    std::string out = dir / name;
    auto r = run({"/usr/bin/cc", "-std=gnu17", "-O1", "-o", out,
                  source_dir() + "/tests/hostile/" + name + ".c", "-lrt"});
    if (r.first != 0)
        throw std::runtime_error("cannot compile " + name + ": " + r.second);
    built[name] = out;
    return out;
}

inline std::string probed_tier()
{
    auto r = run({sandbox(), "--probe"});
    cJSON *j = cJSON_Parse(r.second.c_str());
    std::string tier = "none";
    if (j && cJSON_IsString(cJSON_GetObjectItem(j, "tier")))
        tier = cJSON_GetObjectItem(j, "tier")->valuestring;
    cJSON_Delete(j);
    return tier;
}

// The probed tier and every lower one.
inline std::vector<std::string> tiers()
{
    static const std::vector<std::string> all = {"full", "reduced", "minimal"};
    std::string best = probed_tier();
    std::vector<std::string> out;
    bool on = false;
    for (const auto &t : all)
        if ((on = on || t == best))
            out.push_back(t);
    return out;
}

// The variable is not named IOLAB_*: iolab passes the environment on but keeps its own names.
inline std::string new_tag()
{
    return "iolabtag" + std::to_string(getpid()) + "x" + std::to_string(rand());
}

// Processes whose environment carries TEST_TAG_IOLAB=tag (every descendant inherits it).
inline int tagged(const std::string &tag)
{
    std::string needle = "TEST_TAG_IOLAB=" + tag;
    int n = 0;
    DIR *d = opendir("/proc");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        std::string env = read_proc(std::string("/proc/") + e->d_name + "/environ");
        std::string state = read_proc(std::string("/proc/") + e->d_name + "/stat");
        bool zombie = state.find(") Z") != std::string::npos;
        if (!zombie && env.find(needle) != std::string::npos)
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

// Waits up to 1 s (the promise) for every tagged process to be gone; returns what is left.
inline int left_after_1s(const std::string &tag)
{
    for (int i = 0; i < 20; i++) {
        if (tagged(tag) == 0)
            return 0;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return tagged(tag);
}

} // namespace iolab_test
