/*
 * iolab_page_check: the one part of the counter page that both sides use. Pure (no system call):
 * the shim, which wraps the system calls iolab_page.c makes, validates a header it read itself
 * with it and needs nothing else of iolab_page.c, so the shim and the reader's side of the page
 * depend on this file and never on each other.
 */
#include "iolab_page.h"

#include <errno.h>
#include <stddef.h>

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
