/* Hostile: a new session and a double fork, the classic escape from a process group; the
 * grandchild sleeps for a minute. The parent exits at once. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            sleep(60);
            _exit(0);
        }
        _exit(0);
    }
    sleep(1);
    printf("escaped\n");
    return 0;
}
