/*
 * human: figures as a person reads them, for the headless commands' text output: counts with
 * thousands separators (1,234,567), bytes with a binary-free SI unit (4.07 GB, 512 kB), times
 * with the unit that keeps three figures (92.3 ms, 41 us), rates per second. Each writes into
 * the caller's buffer and returns it, so several fit in one printf.
 */
#ifndef IOLAB_HUMAN_H
#define IOLAB_HUMAN_H

#include <stddef.h>
#include <stdint.h>

const char *human_count(uint64_t v, char *buf, size_t len); /* 1,234,567 */
const char *human_si(double v, char *buf, size_t len);      /* 182k, 4.07M, 0.53 */
const char *human_bytes(double v, char *buf, size_t len);   /* 4.07 GB, 512 B */
const char *human_ns(double ns, char *buf, size_t len);     /* 92.3 ms, 41.0 us, 2.10 s */

/*
 * Reads a number as a learner types one after reading the screen: "16", "0.5", "16.5k", "4.07M",
 * "2G", "512 B", "64KiB", "1.5 MiB" (k, M, G decimal as the screen writes them; KiB, MiB, GiB
 * binary; a trailing B is bytes and changes nothing). 0, or -1 with why set to one sentence.
 */
int human_parse(const char *s, double *out, char *why, size_t len);

#endif
