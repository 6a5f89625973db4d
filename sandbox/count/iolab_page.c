/*
 * iolab_page: the counter page's life cycle on the reader's side (iolab and the tests).
 *
 * Model: a page is a memfd holding one struct iolab_page of exactly iolab_page_size(nslots)
 * bytes. The creator writes the header before anyone else can see the descriptor, so a mapper
 * that finds the magic finds a complete header. Validation reads the header with pread() and
 * the length with fstat() before mapping, so a short or foreign file is refused without ever
 * touching memory past its end (which would be SIGBUS).
 *
 * The slots are left as ftruncate() made them, zero: a slot's owner mutex is made by the thread
 * that claims the slot first (iolab_slot_make, iolab_counters.h), so a page costs memory only
 * where its slots are used, whatever its size.
 *
 * The page is sealed before anyone else sees it: its size can never change again (F_SEAL_SHRINK,
 * F_SEAL_GROW) and no seal can be added or taken (F_SEAL_SEAL). Every program of a scenario holds
 * the descriptor, a learner's program included, and a mapping whose file was truncated under it
 * faults (SIGBUS) on the next access: iolab's reader would crash on a learner's ftruncate(). The
 * seals are the memfd's own, so they hold for every descriptor and every mapping of it; writes
 * stay allowed, because the shim writes its counts there (what a program may write, tally.c
 * refuses to believe).
 */
#include "iolab_page.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int iolab_page_create(uint32_t nslots, int *fd, struct iolab_page **page)
{
    if (nslots < 2 || nslots > IOLAB_PAGE_MAX_SLOTS)
        return -EINVAL;
    size_t size = iolab_page_size(nslots);
    int err = 0;
    void *map = MAP_FAILED;
    int mfd = memfd_create("iolab-counters", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (mfd < 0)
        return -errno;
    if (ftruncate(mfd, (off_t)size) < 0 ||
        fcntl(mfd, F_ADD_SEALS, IOLAB_PAGE_SEALS | F_SEAL_SEAL) < 0) {
        err = -errno;
        goto fail;
    }
    map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
    if (map == MAP_FAILED) {
        err = -errno;
        goto fail;
    }
    /* ftruncate zero-filled the slots; only the header needs writing. */
    struct iolab_page *p = map;
    p->magic = IOLAB_PAGE_MAGIC;
    p->version = IOLAB_PAGE_VERSION;
    p->header_size = (uint32_t)offsetof(struct iolab_page, slots);
    p->slot_size = (uint32_t)sizeof(struct iolab_slot);
    p->nslots = nslots;
    p->ncalls = IOLAB_NCALLS;
    *fd = mfd;
    *page = p;
    return 0;
fail:
    close(mfd);
    return err;
}

int iolab_page_map(int fd, struct iolab_page **page, uint32_t *nslots)
{
    struct iolab_page hdr;
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    if (!S_ISREG(st.st_mode))
        return -EINVAL;
    /* A file whose size may still change could be cut under our mapping: refuse it. */
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & IOLAB_PAGE_SEALS) != IOLAB_PAGE_SEALS)
        return -EPERM;
    memset(&hdr, 0, sizeof hdr);
    ssize_t n = pread(fd, &hdr, sizeof hdr, 0);
    if (n < 0)
        return -errno;
    int err = iolab_page_check(&hdr, (size_t)n < sizeof hdr ? (uint64_t)n : (uint64_t)st.st_size);
    if (err)
        return err;
    void *map = mmap(NULL, iolab_page_size(hdr.nslots), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return -errno;
    *page = map;
    *nslots = hdr.nslots;
    return 0;
}

void iolab_page_unmap(struct iolab_page *page, uint32_t nslots)
{
    if (page)
        munmap(page, iolab_page_size(nslots));
}

const struct iolab_slot *iolab_page_slot(const struct iolab_page *page, uint32_t nslots, uint32_t i)
{
    if (i >= nslots)
        return NULL;
    /* Acquire pairs with the claimer's release store: prog, pid and tid are then complete. */
    if (i < nslots - 1)
        return __atomic_load_n(&page->slots[i].state, __ATOMIC_ACQUIRE) != IOLAB_SLOT_FREE
                   ? &page->slots[i]
                   : NULL;
    return __atomic_load_n(&page->overflow_claims, __ATOMIC_RELAXED) ? &page->slots[i] : NULL;
}

int iolab_page_read_begin(const struct iolab_page *page, uint32_t *token)
{
    /* done before begun: a move that starts in between makes them differ. */
    uint32_t done = __atomic_load_n(&page->moves_done, __ATOMIC_ACQUIRE);
    uint32_t begun = __atomic_load_n(&page->moves_begun, __ATOMIC_ACQUIRE);
    *token = begun;
    return begun == done ? 0 : -EAGAIN;
}

int iolab_page_read_end(const struct iolab_page *page, uint32_t token)
{
    /* Pairs with the mover's release fence after moves_begun: a reader that saw any store of a
       move sees that move's moves_begun here. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    return __atomic_load_n(&page->moves_begun, __ATOMIC_RELAXED) == token ? 0 : -EAGAIN;
}
