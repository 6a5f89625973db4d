/*
 * uncounted_spin: a "server" that spends its time in system calls iolab does not count (getppid
 * through syscall(), which no wrapper sees), for the tests of what iolab says then
 * (tests/integration/test_uncounted.cpp): never "0 calls", but calls it does not count.
 *
 *   uncounted_spin      prints "listening", then spins in the kernel until SIGTERM
 */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void)
{
    /* One line through stdio, before the spin: its write is the only counted call. */
    printf("listening\n");
    fflush(stdout);
    for (;;)
        syscall(SYS_getppid);
}
