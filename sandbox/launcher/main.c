/*
 * iolab-sandbox: runs one program and passes its fate back. The program gets the parent-death
 * signal, keeps only stdin/stdout/stderr and the descriptors named by --keep-fd, and the whole
 * environment (LD_PRELOAD and IOLAB_* must reach it for counting to work). The launcher stays as
 * the program's parent so that it can forward SIGTERM/SIGINT/SIGHUP and report the exit status
 * as the program's own, or 128+signal.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_KEEP 16

static volatile sig_atomic_t child_pid;

static void forward(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

static int keep_only(const int *keep, int nkeep)
{
    int lo = 3;
    for (;;) {
        int next = -1;
        for (int i = 0; i < nkeep; i++)
            if (keep[i] >= lo && (next < 0 || keep[i] < next))
                next = keep[i];
        if (next < 0)
            return close_range(lo, ~0U, 0) < 0 ? -errno : 0;
        if (next > lo && close_range(lo, next - 1, 0) < 0)
            return -errno;
        lo = next + 1;
    }
}

int main(int argc, char **argv)
{
    int keep[MAX_KEEP], nkeep = 0, i = 1;
    for (; i < argc && strcmp(argv[i], "--"); i++) {
        if (!strcmp(argv[i], "--keep-fd") && i + 1 < argc && nkeep < MAX_KEEP)
            keep[nkeep++] = atoi(argv[++i]);
    }
    if (i + 1 >= argc) {
        fprintf(stderr, "usage: iolab-sandbox [--keep-fd N]... -- PROGRAM [ARGS...]\n");
        return 2;
    }
    char **prog = argv + i + 1;
    struct sigaction sa = {.sa_handler = forward, .sa_flags = SA_RESTART};
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    pid_t pid = fork();
    if (pid < 0) {
        perror("iolab-sandbox: fork");
        return 127;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        keep_only(keep, nkeep);
        execvp(prog[0], prog);
        fprintf(stderr, "iolab-sandbox: cannot run %s: %s\n", prog[0], strerror(errno));
        _exit(127);
    }
    child_pid = pid;
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
