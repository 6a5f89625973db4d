/*
 * iolab_page_check: the parts of the counter page that both sides use. Pure (no system call):
 * the shim, which wraps the system calls iolab_page.c makes, validates a header it read itself
 * and makes the slots it claims first with these, and needs nothing else of iolab_page.c, so the
 * shim and the reader's side of the page depend on this file and never on each other.
 */
#include "iolab_page.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>

int iolab_slot_make(struct iolab_slot *s)
{
    pthread_mutexattr_t attr;
    int rc = pthread_mutexattr_init(&attr);
    if (rc)
        return rc;
    rc = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    if (!rc)
        rc = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    if (!rc)
        rc = pthread_mutex_init(&s->owner, &attr);
    pthread_mutexattr_destroy(&attr);
    return rc;
}

int iolab_page_check(const struct iolab_page *hdr, uint64_t file_size)
{
    if (file_size < sizeof *hdr)
        return -ENODATA;
    if (hdr->magic != IOLAB_PAGE_MAGIC || hdr->version != IOLAB_PAGE_VERSION)
        return -EINVAL;
    if (hdr->header_size != offsetof(struct iolab_page, slots) ||
        hdr->slot_size != sizeof(struct iolab_slot))
        return -EINVAL;
    /* The shim needs a real slot besides the overflow slot, and the calls must fit a slot. */
    if (hdr->nslots < 2 || hdr->nslots > IOLAB_PAGE_MAX_SLOTS || hdr->ncalls > IOLAB_MAX_CALLS)
        return -EINVAL;
    if (file_size < iolab_page_size(hdr->nslots))
        return -ENODATA;
    return 0;
}
