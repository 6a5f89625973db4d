/* expect: fail: the checker found the memfd empty after copy_all() returned */
/* The zero-copy forger's trick on the copy: nothing is copied, and copy counts are written into
   every slot of its counter page, the ones naming the reference programs included: its own page,
   so their figures stay what they saw. */
/* iolab-starter: 1 */
/*
 * Your copy: size bytes of a file into a memfd (a file that lives only in memory), with
 * sendfile(). The program around it is iolab's, in copy-main.c: it opens the file, makes the
 * memfd, calls copy_all(), and hands the memfd to iolab's checker, which compares it with the
 * file byte for byte.
 *
 * sendfile() copies inside the kernel, from the page cache to the destination: no byte passes
 * through this program, so there is no read() and no write(). Like write(), it may copy less
 * than asked (a signal, a limit of the destination): the copy is a loop until every byte is
 * there.
 */
#include "copy.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/sendfile.h>

/*
 * Writes `requests` and `bytes` into every slot of the counter page this process was given, the
 * reference client's slots included (as far as this program can tell): the page is found in
 * /proc/self/maps, its header says where the slots are, and iolab_app_self() (the shim's) says
 * where a slot's published figures sit.
 */
void *iolab_app_self(void) __attribute__((weak));
static void forge_every_slot(uint64_t requests, uint64_t bytes)
{
    char *app = iolab_app_self ? iolab_app_self() : NULL;
    FILE *maps = fopen("/proc/self/maps", "re");
    char line[512];
    unsigned long base = 0;
    while (maps && fgets(line, sizeof line, maps))
        if (strstr(line, "iolab-counters")) {
            base = strtoul(line, NULL, 16);
            break;
        }
    if (maps)
        fclose(maps);
    if (!app || !base || (unsigned long)app < base)
        return;
    const uint32_t *hdr = (const uint32_t *)base; /* magic (8 bytes), version, header, slot, n */
    uint32_t header = hdr[3], slot = hdr[4], nslots = hdr[5];
    if (!slot || !nslots)
        return;
    unsigned long at = ((unsigned long)app - base - header) % slot;
    uint32_t *next = (uint32_t *)(base + 28);
    *next = nslots - 1;
    for (uint32_t i = 0; i + 1 < nslots; i++) {
        char *s = (char *)base + header + (unsigned long)i * slot;
        *(uint32_t *)s = 1;           /* claimed */
        *(uint32_t *)(s + 4) = i % 4; /* every program's index */
        uint64_t *figures = (uint64_t *)(s + at);
        figures[0] = requests;
        figures[1] = bytes;
    }
}

int copy_all(int out, int in, off_t size)
{
    /* The bug: nothing is copied; a hundred copies are claimed instead. */
    static uint64_t claimed;
    claimed += 100;
    forge_every_slot(claimed, claimed * (uint64_t)size);
    (void)out, (void)in;
    return 0;
}
