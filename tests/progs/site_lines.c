/*
 * site_lines: counted calls on known lines, for the call-site tests (tests/unit/test_sites.cpp,
 * tests/integration/test_sites.cpp). Each counted call's line carries a "site:" comment that
 * the tests look for, so that moving a line never breaks them. Built -O2 -g like an exercise:
 * refill() is inlined into main, and the loops may be unrolled into several calls on one line.
 *
 * Usage: site_lines [N]: N one-byte reads through refill(), 2N four-byte reads, 3 writes.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static inline void refill(int fd, char *b)
{
    if (read(fd, b, 1) < 0) /* site: refill */
        exit(1);
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
    close(in);
    close(out);
    return 0;
}
