/* Hostile: forks until fork() fails at the jail's process limit, says so, and goes on running
 * (the failure ignored, as a careless server would): only the jail's own counter can tell iolab
 * that the limit was reached while it still runs. Every child sleeps. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
    printf("ready\n");
    fflush(stdout);
    for (int n = 0; n < 100000; n++) {
        pid_t pid = fork();
        if (pid == 0) {
            pause();
            _exit(0);
        }
        if (pid < 0) {
            printf("fork failed after %d: %s\n", n, strerror(errno));
            fflush(stdout);
            break;
        }
    }
    for (;;)
        pause();
}
