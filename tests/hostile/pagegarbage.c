/*
 * Hostile: scribbles on the counter page iolab gave it (IOLAB_COUNTERS_FD): a header that lies
 * (slot count, next slot, overflow claims far out of range), slots claimed with program indexes
 * and states that do not exist, counts near 2^64 and records rewritten half-way, over and over,
 * while iolab reads them. It also appends an IPC registry entry whose name runs on without a
 * newline or a NUL. Then it waits.
 */
#define _GNU_SOURCE
#include "../../sandbox/count/iolab_counters.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
    const char *v = getenv(IOLAB_ENV_FD);
    struct stat st;
    if (!v || fstat(atoi(v), &st) < 0 || st.st_size < (off_t)sizeof(struct iolab_page)) {
        printf("no counter page\n");
        return 1;
    }
    struct iolab_page *pg =
        mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, atoi(v), 0);
    if (pg == MAP_FAILED) {
        printf("cannot map the counter page\n");
        return 1;
    }
    size_t room = ((size_t)st.st_size - offsetof(struct iolab_page, slots)) / sizeof pg->slots[0];
    const char *log = getenv("IOLAB_IPC_LOG");
    int lfd = log ? open(log, O_WRONLY | O_APPEND) : -1;
    if (lfd >= 0) {
        char junk[600];
        memcpy(junk, "pshm ", 5);
        memset(junk + 5, 'A', sizeof junk - 5); /* no newline, no NUL */
        (void)!write(lfd, junk, sizeof junk);
        (void)!write(lfd, "pmq a\0b\nshm -1\nsem 99999999999999\n", 34);
        close(lfd);
    }
    const char *me_s = getenv(IOLAB_ENV_PROG);
    uint32_t me = me_s ? (uint32_t)atoi(me_s) : 0;
    printf("scribbling on %zu slots\n", room);
    fflush(stdout);
    unsigned seed = 1;
    for (long round = 0;; round++) {
        pg->nslots = 0xFFFFFFFFu;
        pg->next_slot = round % 2 ? 0xFFFFFFFFu : (uint32_t)(room + 5);
        pg->overflow_claims = 0x7FFFFFFFu;
        pg->slot_size = 1;
        for (size_t i = 0; i < room; i++) {
            struct iolab_slot *s = &pg->slots[i];
            s->state = i % 3 ? 1 : 0xDEAD;
            s->prog = i % 4 == 0 ? me : (uint32_t)rand_r(&seed);
            s->run = (uint32_t)rand_r(&seed);
            for (unsigned c = 0; c < IOLAB_MAX_CALLS; c++) {
                /* Half a record: count written, bytes and ns from another round. */
                s->calls[c].count = UINT64_MAX - (uint64_t)(round & 7);
                if (round % 2)
                    s->calls[c].bytes = UINT64_MAX / 3;
                s->calls[c].ns = (uint64_t)rand_r(&seed) << 40;
            }
            s->app.requests = UINT64_MAX - (uint64_t)round;
            s->app.hist_count = UINT64_MAX;
            for (unsigned b = 0; b < IOLAB_HIST_BUCKETS; b++)
                s->app.hist[b] = round % 2 ? UINT64_MAX : (uint64_t)rand_r(&seed);
        }
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
}
