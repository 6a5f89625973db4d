/*
 * iolab_page: creating, validating and mapping the counter page (layout in iolab_counters.h).
 *
 * iolab creates one page per program start with iolab_page_create() and keeps the descriptor
 * close-on-exec: it hands the page to a program on purpose, by dup2()ing it onto a known
 * number in the child and naming that number in IOLAB_COUNTERS_FD, so no other child of iolab
 * inherits it by accident.
 *
 * Every program of the scenario can write the whole page, header included, and a learner's
 * program may scribble on it. So a reader trusts the header only once, when it maps the page:
 * iolab_page_map() returns the slot count it validated, and every later loop, and the unmap,
 * uses that number, never the header's current one.
 */
#ifndef IOLAB_PAGE_H
#define IOLAB_PAGE_H

#include <fcntl.h>
#include <stdint.h>

#include "iolab_counters.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The seals every page carries: its size is fixed for good (iolab_page.c says why). */
#define IOLAB_PAGE_SEALS (F_SEAL_SHRINK | F_SEAL_GROW)

/* Most slots a page may have: a page of 4096 slots is about 8 MiB of (mostly untouched) memory. */
#define IOLAB_PAGE_MAX_SLOTS 4096u

/*
 * Creates a page of nslots slots (the last is the overflow slot; 2 <= nslots <= MAX_SLOTS) in a
 * close-on-exec memfd named "iolab-counters", with its header initialised, sealed against any
 * change of size (IOLAB_PAGE_SEALS, and F_SEAL_SEAL), and maps it shared. 0 or a negative errno;
 * on failure nothing is left open.
 */
int iolab_page_create(uint32_t nslots, int *fd, struct iolab_page **page);

/*
 * Checks a header against the size of the file that holds it: magic, version, header and slot
 * sizes of this build, a slot count in range, room for the calls, a file long enough. Pure: the
 * shim uses it on a header it read itself. 0 or -EINVAL (not a page, or another layout) or
 * -ENODATA (file shorter than the header says).
 */
int iolab_page_check(const struct iolab_page *hdr, uint64_t file_size);

/*
 * Makes a slot's owner mutex robust and process-shared, as its first claimer does before it
 * locks it and stores `made` (iolab_counters.h). Pure, like iolab_page_check(): no system call.
 * 0 or a positive pthread error.
 */
int iolab_slot_make(struct iolab_slot *s);

/*
 * Validates the page behind fd (a page iolab_page_create() made, possibly in another process)
 * and maps it shared, read-write. *nslots gets the validated slot count. 0 or a negative errno:
 * -EPERM for a file not sealed with IOLAB_PAGE_SEALS (it could shrink under the mapping).
 */
int iolab_page_map(int fd, struct iolab_page **page, uint32_t *nslots);

/* Unmaps a page created or mapped with nslots slots. NULL is ignored. */
void iolab_page_unmap(struct iolab_page *page, uint32_t nslots);

/*
 * The ith slot if it holds counts (claimed once: owned, retired or being moved; its header fields
 * are then complete), else NULL. nslots is the validated count; i may be the overflow slot
 * (nslots - 1), which is returned whenever some thread has used it.
 */
const struct iolab_slot *iolab_page_slot(const struct iolab_page *page, uint32_t nslots,
                                         uint32_t i);

/*
 * A consistent read of several slots (the counts of a program are spread over many, and a move
 * takes counts out of one slot and puts them into another): call iolab_page_read_begin(), read,
 * then iolab_page_read_end() with the same token; when either returns -EAGAIN a move began or
 * ran meanwhile and the figures may count it twice or not at all, so read again. Both return 0
 * or -EAGAIN. A reader that reads only after every program has ended needs neither.
 */
int iolab_page_read_begin(const struct iolab_page *page, uint32_t *token);
int iolab_page_read_end(const struct iolab_page *page, uint32_t token);

#ifdef __cplusplus
}
#endif
#endif
