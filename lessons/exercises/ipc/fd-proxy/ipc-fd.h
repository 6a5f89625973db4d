/* iolab-starter: 1 */
/*
 * What the proxy and ipc-cache agree on for handing over a file (the same layout as the demos'
 * ipc-segment.h). The cache listens on the Unix socket DIR/ipc-cache.sock. A proxy connects
 * once, then for each file sends a struct ipc_request and gets back exactly one message: a
 * struct ipc_fd_reply (the file's size, or a negative errno) and, when the size is not negative,
 * the open file itself as an SCM_RIGHTS control message. The cache closes its own copy at once:
 * from then on the descriptor the kernel installed in the proxy is the proxy's to close.
 */
#ifndef IPC_FD_H
#define IPC_FD_H

#include <stdint.h>

#define IPC_FD_SOCKET "ipc-cache.sock"
#define IPC_FILE_MAX  120u

struct ipc_request {
    uint32_t segment; /* unused on the socket */
    char file[IPC_FILE_MAX + 4];
};

struct ipc_fd_reply {
    int64_t size; /* the file's size, or a negative errno (then no descriptor comes) */
};

#endif
