/*
 * Hostile: a forger of other programs' figures. Run as a scenario's server, it writes plausible
 * request, byte and sendfile() counts into every slot it can find: every slot of its own counter
 * page, with every program index in the slots' prog field (the reference client's included), and
 * every slot of any other counter page it can reach through /proc: another process's descriptor
 * (/proc/PID/fd/N, a memfd named "iolab-counters") or its memory (/proc/PID/mem at the page's
 * mapping). The values stay below what tally.c calls impossible, so only attribution can stop
 * them. It says once per path what it reached and what was refused, then keeps forging until it
 * is stopped.
 *
 * It forges only its own scenario: another process is touched only when its environment carries
 * the same SLOTFORGE_TAG (the test sets a fresh one for each run, and iolab hands its environment
 * to every program). Without that, a forger in the minimal tier, where every jail's programs
 * share one uid, would write into the pages of every other iolab on the machine: the tests
 * running beside it first. Where a process's environment cannot be read, its descriptors cannot
 * be either; the forger only tries to list them, to report the refusal, and never writes.
 */
#define _GNU_SOURCE
#include "../../sandbox/count/iolab_counters.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FORGE_MAX_PAGES 64
#define FORGE_MAX_SEEN  4096
#define FORGE_VALUE     1000000ull /* far more requests than any client of a test makes */

/* Grows every round, so that a forged figure also grows while iolab measures. */
static uint64_t forge_round;

struct forged_page {
    dev_t dev;
    ino_t ino;
    struct iolab_page *map;
    size_t room; /* slots that fit in the file, the overflow slot included */
};

static struct forged_page pages[FORGE_MAX_PAGES];
static size_t npages;
static char seen[FORGE_MAX_SEEN][600]; /* paths already reported */
static size_t nseen;

/* Says s once (per path), so that a forger that keeps trying does not flood its output. */
static void forge_say_once(const char *path, const char *s)
{
    for (size_t i = 0; i < nseen; i++)
        if (!strcmp(seen[i], path))
            return;
    if (nseen < FORGE_MAX_SEEN)
        snprintf(seen[nseen++], sizeof seen[0], "%s", path);
    printf("slotforge: %s: %s\n", path, s);
    fflush(stdout);
}

/* Every slot claimed, every program's index, plausible counts. */
static void forge_slots(struct iolab_page *pg, size_t room)
{
    if (room < 2)
        return;
    __atomic_store_n(&pg->next_slot, (uint32_t)(room - 1), __ATOMIC_RELEASE);
    for (size_t i = 0; i + 1 < room; i++) {
        struct iolab_slot *s = &pg->slots[i];
        s->prog = (uint32_t)(i % 4);
        uint64_t v = FORGE_VALUE + forge_round * 1000;
        s->app.requests = v;
        s->app.bytes = v * 7;
        s->calls[IOLAB_CALL_SENDFILE].count = v;
        __atomic_store_n(&s->state, 1u, __ATOMIC_RELEASE); /* OWNED */
    }
}

/* Maps the page behind fd (already open) unless it is one we have; keeps it forged. */
static void forge_fd(int fd, const char *path)
{
    struct stat st;
    if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(struct iolab_page))
        return;
    for (size_t i = 0; i < npages; i++)
        if (pages[i].dev == st.st_dev && pages[i].ino == st.st_ino)
            return;
    if (npages == FORGE_MAX_PAGES)
        return;
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        forge_say_once(path, strerror(errno));
        return;
    }
    size_t room =
        ((size_t)st.st_size - offsetof(struct iolab_page, slots)) / sizeof(struct iolab_slot);
    pages[npages++] = (struct forged_page){st.st_dev, st.st_ino, m, room};
    if (strcmp(path, "own"))
        forge_say_once(path, "reached another program's counter page");
}

/* Writes a forged request count at the page mapped at addr in pid's memory, through its mem. */
static void forge_mem(const char *pid, unsigned long addr)
{
    char path[300];
    snprintf(path, sizeof path, "/proc/%s/mem", pid);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0) {
        forge_say_once(path, strerror(errno));
        return;
    }
    uint64_t v = FORGE_VALUE + forge_round * 1000;
    off_t at = (off_t)(addr + offsetof(struct iolab_page, slots) +
                       offsetof(struct iolab_slot, app) + offsetof(struct iolab_app, requests));
    if (pwrite(fd, &v, sizeof v, at) == (ssize_t)sizeof v)
        forge_say_once(path, "wrote into another program's counter page");
    else
        forge_say_once(path, strerror(errno));
    close(fd);
}

/* Whether pid's environment carries SLOTFORGE_TAG=tag: 1, 0, or -1 when it cannot be read. */
static int forge_ours(const char *pid, const char *tag)
{
    char path[300], env[65536];
    snprintf(path, sizeof path, "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, env, sizeof env - 1);
    close(fd);
    if (n < 0)
        return -1;
    env[n] = '\0';
    char want[300];
    snprintf(want, sizeof want, "SLOTFORGE_TAG=%s", tag);
    for (ssize_t at = 0; at < n; at += (ssize_t)strlen(env + at) + 1)
        if (!strcmp(env + at, want))
            return 1;
    return 0;
}

/* Every other process's descriptors and mappings of a counter page, in our scenario only. */
static void forge_others(const char *tag)
{
    DIR *procs = opendir("/proc");
    /* Our pid as /proc names it: in a PID namespace of our own, getpid() is not that number. */
    char self[16] = "";
    ssize_t sn = readlink("/proc/self", self, sizeof self - 1);
    self[sn > 0 ? sn : 0] = '\0';
    for (struct dirent *p; procs && (p = readdir(procs));) {
        if (p->d_name[0] < '1' || p->d_name[0] > '9' || !strcmp(p->d_name, self))
            continue;
        char dir[300];
        struct stat owner;
        snprintf(dir, sizeof dir, "/proc/%s", p->d_name);
        /* The scenario's programs run under our uid; other users' processes are not the point. */
        if (stat(dir, &owner) < 0 || owner.st_uid != getuid())
            continue;
        int ours = forge_ours(p->d_name, tag);
        if (ours == 0)
            continue; /* another scenario's, or nobody's: never touched */
        snprintf(dir, sizeof dir, "/proc/%s/fd", p->d_name);
        DIR *fds = opendir(dir);
        if (!fds && errno != ENOENT)
            forge_say_once(dir, strerror(errno));
        if (ours < 0) {
            /* Its environment is closed to us: whose it is cannot be told, so nothing is
               written, and the refusal (or the surprise) is said. */
            if (fds) {
                forge_say_once(dir, "listed, but its environment was refused: left alone");
                closedir(fds);
            }
            continue;
        }
        for (struct dirent *f; fds && (f = readdir(fds));) {
            char path[600], target[256];
            if (f->d_name[0] == '.')
                continue;
            snprintf(path, sizeof path, "%s/%s", dir, f->d_name);
            ssize_t n = readlink(path, target, sizeof target - 1);
            if (n <= 0) {
                if (errno != ENOENT)
                    forge_say_once(dir, strerror(errno));
                continue;
            }
            target[n] = '\0';
            if (!strstr(target, "iolab-counters"))
                continue;
            int fd = open(path, O_RDWR | O_CLOEXEC);
            if (fd < 0) {
                forge_say_once(path, strerror(errno));
                continue;
            }
            forge_fd(fd, path);
            close(fd);
        }
        if (fds)
            closedir(fds);
        char maps[300], line[512];
        snprintf(maps, sizeof maps, "/proc/%s/maps", p->d_name);
        FILE *m = fopen(maps, "re");
        if (!m && errno != ENOENT)
            forge_say_once(maps, strerror(errno));
        while (m && fgets(line, sizeof line, m))
            if (strstr(line, "iolab-counters"))
                forge_mem(p->d_name, strtoul(line, NULL, 16));
        if (m)
            fclose(m);
    }
    if (procs)
        closedir(procs);
}

int main(void)
{
    const char *v = getenv(IOLAB_ENV_FD);
    if (v)
        forge_fd(atoi(v), "own");
    const char *tag = getenv("SLOTFORGE_TAG");
    printf("slotforge: forging (own page: %s; other programs: %s)\n", npages ? "yes" : "no",
           tag && tag[0] ? "those of this run's SLOTFORGE_TAG" : "none, SLOTFORGE_TAG is not set");
    fflush(stdout);
    for (;; forge_round++) {
        if (tag && tag[0])
            forge_others(tag);
        for (size_t i = 0; i < npages; i++)
            forge_slots(pages[i].map, pages[i].room);
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
}
