/* Hostile: allocates and touches memory in 16 MiB steps until allocation fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
    for (long mib = 0; mib < 65536; mib += 16) {
        char *p = malloc(16L << 20);
        if (!p) {
            printf("allocation failed after %ld MiB\n", mib);
            return 0;
        }
        memset(p, 1, 16L << 20);
    }
    printf("allocation never failed\n");
    return 0;
}
