/*
 * Hostile: tries every way a jailed program (or a pack's build step) could type into the
 * person's terminal: TIOCSTI of LINE through /dev/tty, through its descriptors 0, 1 and 2,
 * through every /dev/pts/N it can open (with and without O_NOCTTY, after trying to make it its
 * controlling terminal), and TIOCLINUX on all of them; last, on a pseudo-terminal of its own,
 * made its controlling terminal, where TIOCSTI needs no privilege at all (only the seccomp filter
 * or Landlock's device-ioctl right can refuse it there). One line per attempt on stdout:
 *
 *   ATTEMPT <what> ok | ATTEMPT <what> fail <ERRNO>
 *   SESSION pid=P sid=S tty_nr=T        (from getpid, getsid and /proc/self/stat)
 *   FD n tty=yes|no
 *   INJECTED n                          (how many ioctls reached a terminal and succeeded)
 *
 * DEVIOCTL is not an attack: an ioctl on /dev/urandom, which only Landlock's device-ioctl right
 * (ABI 5) refuses, to show whether that wall is up.
 *
 * Usage: tiocsti LINE [-- COMMAND ARGS...]: with a command, it then execs it, as a build
 * wrapper would, so that the build it pretends to be still succeeds.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/random.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

static int injected;

static void report(const char *what, int ok, int err)
{
    if (ok)
        printf("ATTEMPT %s ok\n", what);
    else
        printf("ATTEMPT %s fail %s\n", what, strerrorname_np(err) ? strerrorname_np(err) : "?");
    fflush(stdout);
}

/* Pushes every byte of line into fd's terminal input; one report for the whole line. */
static void sti(int fd, const char *what, const char *line)
{
    char name[300];
    snprintf(name, sizeof name, "TIOCSTI:%s", what);
    int ok = 1, err = 0;
    for (const char *p = line; *p; p++)
        if (ioctl(fd, TIOCSTI, p) < 0) {
            ok = 0;
            err = errno;
            break;
        }
    injected += ok;
    report(name, ok, err);
    /* The same request with junk in the upper half of the request word: the kernel's tty
       layer truncates it to 32 bits, so a filter comparing all 64 would let it through. */
    snprintf(name, sizeof name, "TIOCSTI-high-bits:%s", what);
    char c = '#';
    int r = (int)ioctl(fd, (unsigned long)TIOCSTI | 0x100000000UL, &c);
    injected += r == 0;
    report(name, r == 0, errno);
}

static void linux_ioctl(int fd, const char *what)
{
    char name[300];
    snprintf(name, sizeof name, "TIOCLINUX:%s", what);
    /* Subcode 6 (get shift state) only reads; 3 would paste the console selection. */
    char arg[8] = {6};
    int r = ioctl(fd, TIOCLINUX, arg);
    injected += r == 0;
    report(name, r == 0, errno);
}

static void try_fd(int fd, const char *what, const char *line)
{
    sti(fd, what, line);
    linux_ioctl(fd, what);
}

static void try_path(const char *path, int flags, const char *tag, const char *line)
{
    char name[300];
    snprintf(name, sizeof name, "open:%s%s", path, tag);
    int fd = open(path, flags);
    report(name, fd >= 0, errno);
    if (fd < 0)
        return;
    /* A session leader without a terminal may try to take this one as its own. */
    snprintf(name, sizeof name, "TIOCSCTTY:%s%s", path, tag);
    int r = ioctl(fd, TIOCSCTTY, 1);
    report(name, r == 0, errno);
    snprintf(name, sizeof name, "%s%s", path, tag);
    try_fd(fd, name, line);
    close(fd);
}

/* An ioctl on a device that is not a terminal and harmless (the entropy count): refused only by
 * Landlock's device-ioctl right, so it shows whether that second wall is up. */
static void device_ioctl(void)
{
    int fd = open("/dev/urandom", O_RDONLY);
    int n = 0, r = fd < 0 ? -1 : ioctl(fd, RNDGETENTCNT, &n);
    report("DEVIOCTL:/dev/urandom", r == 0, errno);
    if (fd >= 0)
        close(fd);
}

/* A pseudo-terminal of its own as controlling terminal: the one place TIOCSTI always works. */
static void own_pty(const char *line)
{
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    report("open:/dev/ptmx", m >= 0, errno);
    if (m < 0)
        return;
    int r = grantpt(m) == 0 && unlockpt(m) == 0 ? 0 : -1;
    report("unlockpt:own-pty", r == 0, errno);
    char *name = r == 0 ? ptsname(m) : NULL;
    if (name) {
        /* Without O_NOCTTY, a session leader with no terminal takes this one. */
        int s = open(name, O_RDWR);
        report("open:own-pty-slave", s >= 0, errno);
        if (s >= 0) {
            sti(s, "own-pty", line);
            linux_ioctl(s, "own-pty");
            close(s);
        }
    }
    close(m);
}

static void session(void)
{
    char buf[1024] = "";
    FILE *f = fopen("/proc/self/stat", "r");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = '\0';
        fclose(f);
    }
    /* Field 7, tty_nr, counted from the end of the command name (which may hold spaces). */
    long tty_nr = -1;
    char *p = strrchr(buf, ')');
    if (p) {
        char state;
        int ppid, pgrp, sid;
        if (sscanf(p + 1, " %c %d %d %d %ld", &state, &ppid, &pgrp, &sid, &tty_nr) != 5)
            tty_nr = -1;
    }
    printf("SESSION pid=%d sid=%d tty_nr=%ld\n", (int)getpid(), (int)getsid(0), tty_nr);
    for (int fd = 0; fd <= 2; fd++)
        printf("FD %d tty=%s\n", fd, isatty(fd) ? "yes" : "no");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: tiocsti LINE [-- COMMAND ARGS...]\n");
        return 2;
    }
    const char *line = argv[1];
    session();
    try_path("/dev/tty", O_RDWR, "", line);
    try_path("/dev/tty", O_WRONLY, ":wronly", line);
    for (int fd = 0; fd <= 2; fd++) {
        char name[16];
        snprintf(name, sizeof name, "fd%d", fd);
        try_fd(fd, name, line);
    }
    DIR *d = opendir("/dev/pts");
    if (!d)
        report("opendir:/dev/pts", 0, errno);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        char path[300];
        snprintf(path, sizeof path, "/dev/pts/%s", e->d_name);
        try_path(path, O_RDWR | O_NOCTTY, "", line);
        try_path(path, O_RDWR, ":ctty", line);
    }
    if (d)
        closedir(d);
    try_path("/dev/tty0", O_RDWR | O_NOCTTY, "", line);
    try_path("/dev/console", O_RDWR | O_NOCTTY, "", line);
    signal(SIGHUP, SIG_IGN); /* the pty's hang-up when its master closes */
    own_pty(line);
    device_ioctl();
    printf("INJECTED %d\n", injected);
    fflush(stdout);
    if (argc > 3 && !strcmp(argv[2], "--")) {
        execvp(argv[3], argv + 3);
        fprintf(stderr, "tiocsti: cannot run %s: %s\n", argv[3], strerror(errno));
        return 127;
    }
    return 0;
}
