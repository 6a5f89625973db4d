/* Hostile: ignores SIGTERM and never exits; a forked child does the same. */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    signal(SIGTERM, SIG_IGN);
    if (fork() == 0)
        for (;;)
            pause();
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
