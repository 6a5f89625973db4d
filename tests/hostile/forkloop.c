/* Hostile: forks until fork() fails; every child sleeps. The sandbox's process limit must stop
 * it, and every child must be gone once the launcher has exited. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    for (int n = 0; n < 100000; n++) {
        pid_t pid = fork();
        if (pid == 0) {
            pause();
            _exit(0);
        }
        if (pid < 0) {
            printf("fork failed after %d: %s\n", n, strerror(errno));
            return 0;
        }
    }
    printf("fork never failed\n");
    return 0;
}
