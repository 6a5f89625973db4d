/* Hostile: writes argv[1] MiB to stdout without a single newline, then waits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long mib = argc > 1 ? atol(argv[1]) : 800;
    static char buf[1 << 16];
    memset(buf, 'x', sizeof buf);
    for (long i = 0; i < mib * 16; i++)
        if (write(1, buf, sizeof buf) < 0)
            return 1;
    /* Stderr, so that the line is not stuck behind the unterminated one on stdout. */
    fprintf(stderr, "flood done\n");
    for (;;)
        pause();
}
