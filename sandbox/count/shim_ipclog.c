/*
 * shim_ipclog: the shim's side of the IPC registry (iolab_ipclog.h): every IPC object a program
 * really creates is appended to the file IOLAB_IPC_LOG names, so that the sandbox removes those
 * objects and no other of the same uid. Independent of the counter page: it records whenever
 * the variable is set. Its writes are raw system calls through syscall(), never counted, and
 * errno is kept.
 */
#include "shim_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * IOLAB_IPC_LOG as it was at start-up: a program that later empties its environment still
 * records. Until the constructor has run (a call from another library's constructor), the
 * variable is read at each record instead.
 */
static char shim_ipc_log[4096];

void shim_ipc_init(void)
{
    const char *v = getenv(IOLAB_ENV_IPC_LOG);
    size_t n = 0;
    if (!v || v[0] != '/')
        return;
    while (v[n] && n < sizeof shim_ipc_log - 1)
        n++;
    if (v[n])
        return; /* too long to be a work directory's file: record nothing rather than elsewhere */
    for (size_t i = 0; i <= n; i++)
        shim_ipc_log[i] = v[i];
}

/*
 * Appends one record. The file is opened for each record rather than kept open, so that the
 * program never sees a descriptor it did not open; one write() of one short line with O_APPEND
 * lands whole however many processes append at once. A record that cannot be written (no
 * registry, no descriptor left) is lost, and the object is then left to the other nets.
 */
void shim_ipc_record(enum iolab_ipc_kind kind, int id, const char *name)
{
    const char *path = shim_ipc_log[0] ? shim_ipc_log : getenv(IOLAB_ENV_IPC_LOG);
    char line[IOLAB_IPC_LINE_MAX];
    size_t n;
    if (!path || path[0] != '/' || !(n = iolab_ipclog_format(line, kind, id, name)))
        return;
    int saved = errno;
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path,
                          O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
        syscall(SYS_write, fd, line, n);
        syscall(SYS_close, fd);
    }
    errno = saved;
}
