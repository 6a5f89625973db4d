/*
 * Hostile: tries to make iolab's reader of the counter page (IOLAB_COUNTERS_FD) crash or hang.
 * It cuts the page to 0 bytes, grows it by 1 MiB and to 1 TiB (a reader mapping a file cut
 * under it dies of SIGBUS), tries to add a seal of its own (F_SEAL_WRITE would stop every shim),
 * then writes garbage into every header field: magic, version, sizes, a slot count far beyond the
 * file, a high-water mark past it, and a seqlock held open (moves_begun always ahead of
 * moves_done), so that a reader which waits for it to settle waits for ever. Then it exits, or with
 * "stay" keeps rewriting the header until it is stopped.
 *
 *   pagetrunc [stay]    prints what each attempt returned, on one line
 */
#define _GNU_SOURCE
#include "../../sandbox/count/iolab_counters.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Every header field a reader might trust, set to what hurts it most. */
static void pagetrunc_scribble(struct iolab_page *pg, unsigned round)
{
    pg->magic = 0x6b6361747461ull + round; /* "attack" */
    pg->version = 0xFFFFFFFFu;
    pg->header_size = 0xFFFFFFFFu;
    pg->slot_size = 0;
    pg->nslots = 0xFFFFFFFFu;
    pg->ncalls = 0xFFFFFFFFu;
    pg->next_slot = 0xFFFFFFFFu - round;
    pg->overflow_claims = 0;
    pg->moves_done = round;
    pg->moves_begun = round + 0x40000000u; /* a move always under way */
    pg->moves_broken = 0;
}

int main(int argc, char **argv)
{
    int stay = argc > 1 && !strcmp(argv[1], "stay");
    const char *v = getenv(IOLAB_ENV_FD);
    int fd = v ? atoi(v) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(struct iolab_page)) {
        printf("no counter page\n");
        return 1;
    }
    size_t size = (size_t)st.st_size;
    struct iolab_page *pg = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (pg == MAP_FAILED) {
        printf("cannot map the counter page\n");
        return 1;
    }
    /* One line, so that iolab's "its last lines were" quotes every attempt. */
    int r = ftruncate(fd, 0);
    printf("ftruncate to 0: %s", r == 0 ? "done" : strerror(errno));
    r = ftruncate(fd, (off_t)size + (1 << 20));
    printf("; ftruncate 1 MiB longer: %s", r == 0 ? "done" : strerror(errno));
    /* Past the sandbox's file size limit the kernel refuses first (EFBIG, not SIGXFSZ here). */
    signal(SIGXFSZ, SIG_IGN);
    r = ftruncate(fd, (off_t)1 << 40);
    printf("; ftruncate to 1 TiB: %s", r == 0 ? "done" : strerror(errno));
    r = ftruncate(fd, (off_t)size - 1);
    printf("; ftruncate one byte short: %s", r == 0 ? "done" : strerror(errno));
    r = fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE);
    printf("; add a write seal: %s\n", r == 0 ? "done" : strerror(errno));
    fflush(stdout);
    if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof *pg) {
        printf("the page is cut: not writing its header\n");
        return 0;
    }
    unsigned round = 0;
    do {
        pagetrunc_scribble(pg, round++);
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    } while (stay);
    printf("header scribbled\n");
    return 0;
}
