/*
 * site_lines: counted calls on known lines, for the call-site tests (tests/unit/test_sites.cpp,
 * tests/integration/test_sites.cpp). Each counted call's line carries a "site:" comment that
 * the tests look for, so that moving a line never breaks them. Built -O2 -g like an exercise:
 * refill() is inlined into main, and the loops may be unrolled into several calls on one line.
 *
 * Usage: site_lines [N]: N one-byte reads through refill(), 2N four-byte reads, 3 writes.
 *        site_lines N many: also N rounds of 80 reads from 80 call sites on one line, more
 *        sites than a slot has room for, whose addresses share the shim's cache entries.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void refill(int fd, char *b)
{
    if (read(fd, b, 1) < 0) /* site: refill */
        exit(1);
}

#define SITE_R1  (void)!read(in, b, 1);
#define SITE_R10 SITE_R1 SITE_R1 SITE_R1 SITE_R1 SITE_R1 SITE_R1 SITE_R1 SITE_R1 SITE_R1 SITE_R1
#define SITE_R80 SITE_R10 SITE_R10 SITE_R10 SITE_R10 SITE_R10 SITE_R10 SITE_R10 SITE_R10

static void many(int in, long n)
{
    char b[1];
    for (long i = 0; i < n; i++) {
        SITE_R80 /* site: many */
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000;
    int in = open("/dev/zero", O_RDONLY); /* site: open */
    int out = open("/dev/null", O_WRONLY);
    char b[16];
    if (in < 0 || out < 0)
        return 1;
    for (long i = 0; i < n; i++)
        refill(in, b);
    for (long i = 0; i < 2 * n; i++)
        if (read(in, b, 4) < 0) /* site: read4 */
            return 1;
    for (int i = 0; i < 3; i++)
        if (write(out, b, 1) < 0) /* site: write */
            return 1;
    if (argc > 2 && !strcmp(argv[2], "many"))
        many(in, n);
    close(in);
    close(out);
    return 0;
}
