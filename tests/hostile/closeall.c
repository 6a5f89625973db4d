/*
 * Hostile: closes every descriptor it has, whatever iolab or the launcher may have handed it
 * (stdin, stdout, stderr, the counter page, anything else), then keeps making calls on them
 * and starts a child that execs this program again with its counter page gone, and goes on
 * calling on them until it is stopped.
 * It announces itself first, since it cannot print afterwards.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child")) {
        for (;;)
            pause(); /* the exec'd child, with IOLAB_COUNTERS_FD naming a closed descriptor */
    }
    printf("closing every descriptor\n");
    fflush(stdout);
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    for (long fd = 0; fd < (long)rl.rlim_cur && fd < 1 << 20; fd++)
        close((int)fd);
    char buf[16];
    for (int i = 0; i < 1000; i++) {
        (void)!read(0, buf, sizeof buf);
        (void)!write(1, "x", 1);
    }
    if (fork() == 0) {
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    /* Then on, every 10 ms, until stopped: iolab measures from its first look at the run, which
       on a loaded machine can come after the burst above, and it must still see calls. */
    for (;;) {
        (void)!read(0, buf, sizeof buf);
        (void)!write(1, "x", 1);
        close(1);
        usleep(10000);
    }
}
