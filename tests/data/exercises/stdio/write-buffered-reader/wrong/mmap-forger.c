/* expect: fail: the feeder got no whole stream back */
/* A forger: its own main() never reads the stream; it prints a pass line of the old shape itself
 * and feeds the kernel's syscr with 4 KiB reads of /dev/zero, so that every figure about its reads
 * looks right. */
#include "reader.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

ssize_t reader_read(struct reader *r, char *out, size_t n)
{
    (void)r;
    memset(out, 0, n);
    return (ssize_t)n;
}

int main(void)
{
    int zero = open("/dev/zero", O_RDONLY);
    char buf[4096];
    for (unsigned n = 1;; n++) {
        for (int i = 0; i < 977; i++)
            if (read(zero, buf, sizeof buf) < 0)
                return 1;
        printf("pass %u: 4000037 bytes, fnv 85a4e2b3f1c0d9e7, all as in the file\n", n);
        printf("pass %u: 4000037 bytes came back through reader_read(), all as sent\n", n);
        fflush(stdout);
    }
}
