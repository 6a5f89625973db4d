/* Hostile: opens descriptors until the limit refuses one, says how many, then waits. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    long n = 0;
    for (;;) {
        int fd = open("/dev/null", O_RDONLY);
        if (fd < 0) {
            printf("open failed after %ld descriptors: %s\n", n, strerror(errno));
            break;
        }
        if (++n > 10000000)
            break;
    }
    fflush(stdout);
    for (;;)
        pause();
}
