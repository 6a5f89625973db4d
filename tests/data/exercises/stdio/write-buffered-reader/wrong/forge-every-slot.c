/* expect: fail: reader_read() returned 0 before the end of the stream */
/* The zero-copy forger's trick on the reader: nothing is read (the end of the file at once), and
   read counts are written into every slot of its counter page, the ones naming the reference
   programs included: its own page, so their figures stay what they saw. */
/* iolab-starter: 1 */
/*
 * Your buffered reader: one read() system call fills a 4 KiB buffer, and the small requests
 * (7 and 13 bytes in turn, the way a parser asks) are served from it, as fread() does. The
 * program around it is iolab's, in reader-main.c: it hands reader_read() the read end of a pipe
 * from iolab's feeder and sends back every byte it returns, and the feeder compares them with
 * what it sent. Write reader_read() with read() and memcpy(): stdio's fread() and getc() would
 * do the buffering for you, and the exercise is to do it yourself.
 */
#include "reader.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

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

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    /* The bug: nothing is read; a hundred reads are claimed instead. */
    static uint64_t claimed;
    claimed += 100;
    forge_every_slot(claimed, claimed * (uint64_t)n);
    (void)r, (void)out;
    return 0;
}
