/* iolab-starter: 1 */
/*
 * The buffered reader's shape, shared by reader.c (yours) and reader-main.c (iolab's, which
 * calls it). Nothing to change here.
 */
#ifndef READER_H
#define READER_H

#include <sys/types.h>

#define READER_BUF 4096

struct reader {
    int fd;               /* where the bytes come from: the read end of a pipe */
    char buf[READER_BUF]; /* bytes read from fd ... */
    size_t pos, len;      /* ... of which buf[pos..len) are not handed out yet */
};

/* Copies up to n bytes into out: fewer only at the end of the stream. Returns how many; 0 at the
   end, or -1 on an error. One read() per READER_BUF bytes, or per what the kernel gives when a
   read() brings less (only a read() of 0 is the end). Written in reader.c. */
ssize_t reader_read(struct reader *r, char *out, size_t n);

#endif
