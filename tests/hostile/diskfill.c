/* Hostile: appends 1 MiB blocks to a file in the current directory forever. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    static char block[1 << 20];
    memset(block, 'x', sizeof block);
    int fd = open("fill.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror("open");
        return 1;
    }
    for (long mib = 0;; mib++)
        if (write(fd, block, sizeof block) < 0) {
            printf("write failed after %ld MiB\n", mib);
            return 0;
        }
}
