/*
 * ipc-segment: what ipc-cache and ipc-proxy agree on: the names of the POSIX objects, the
 * command message and the layout of one shared-memory segment.
 *
 * A segment is one shm_open() object: a header page, then SIZE bytes of data. The two
 * semaphores in the header are process-shared (sem_init(..., 1, ...)) and carry the handshake
 * of one chunk:
 *
 *   cache: sem_wait(room)  -> pread() the next chunk into data -> sem_post(ready)
 *   proxy: sem_wait(ready) -> copy data out                    -> sem_post(room)
 *
 * room starts at 1 (the data area is free), ready at 0. A request that fails (no such file)
 * is one chunk with len < 0 (a negative errno). Every name starts with $IOLAB_SESSION, so
 * that the sandbox's removal of leftovers finds anything a killed program left behind.
 *
 * The other way, which moves no byte through either process: the cache also listens on a Unix
 * socket (IPC_FD_SOCKET in its --dir). A proxy connects once, sends a struct ipc_request (the
 * segment is ignored) per file, and gets back one message: a struct ipc_fd_reply (the size, or
 * a negative errno) carrying the open file itself as SCM_RIGHTS ancillary data. The proxy then
 * has its own descriptor of the cache's file and sendfile()s or splice()s it to its client.
 */
#ifndef IOLAB_IPC_SEGMENT_H
#define IOLAB_IPC_SEGMENT_H

#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define IPC_HEADER_SIZE 4096u /* the data starts on its own page */
#define IPC_FILE_MAX    120u  /* longest file name in a request */
#define IPC_QUIT        UINT32_MAX

struct ipc_segment {
    sem_t room;         /* 1: the data area may be written (by the cache) */
    sem_t ready;        /* 1: a chunk is waiting in the data area (for the proxy) */
    uint64_t size;      /* bytes in the data area */
    uint32_t nsegments; /* how many segments the cache made: the proxy learns it here */
    uint32_t last;      /* 1 on the last chunk of a request */
    int64_t len;        /* bytes of this chunk, or a negative errno */
    uint64_t total;     /* the whole file's size, set with every chunk (a proxy in front of a
                           client needs it for the header before the body) */
};

/* The descriptor-passing socket's name inside the cache's --dir. */
#define IPC_FD_SOCKET "ipc-cache.sock"

/* The cache's answer on that socket; the descriptor rides along when size >= 0. */
struct ipc_fd_reply {
    int64_t size; /* the file's size, or a negative errno (no descriptor then) */
};

/* The command: "send FILE through segment SEGMENT" (IPC_QUIT stops a cache worker). */
struct ipc_request {
    uint32_t segment;
    char file[IPC_FILE_MAX + 4];
};

static inline char *ipc_segment_data(struct ipc_segment *s)
{
    return (char *)s + IPC_HEADER_SIZE;
}

/* "/PREFIX-ipc-queue" or "/PREFIX-ipc-segK", PREFIX being $IOLAB_SESSION (default "iolab"). */
static inline void ipc_name(char *out, size_t len, const char *what, int k)
{
    const char *prefix = getenv("IOLAB_SESSION");
    if (!prefix || !*prefix)
        prefix = "iolab";
    if (k < 0)
        snprintf(out, len, "/%s-ipc-%s", prefix, what);
    else
        snprintf(out, len, "/%s-ipc-%s%d", prefix, what, k);
}

#endif
