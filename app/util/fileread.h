/*
 * fileread: reads a whole file into memory without ever waiting on it and without reading
 * without limit.
 *
 * The files iolab reads (lesson files, pack.json, progress.json) are named by the learner or an
 * instructor, and any of them may turn out to be a FIFO, a device, a socket or a directory: a
 * plain open() of a FIFO with no writer blocks for ever, and a character device may never end.
 * So the file is opened with O_NONBLOCK (fileread_regular follows symbolic links: a pack's
 * lesson files may be a tree of links; fileread_beneath, for the files whose bytes iolab copies
 * or compiles, never follows one out of their directory), whatever it then is gets checked with
 * fstat(), and anything that is not a regular file is refused before a single byte is read. A
 * regular file is read up to a bound the caller gives.
 *
 * Invariant: on success the text is NUL-terminated and len is its length without the NUL (the
 * text may contain NUL bytes of its own: callers that care must look for them).
 */
#ifndef IOLAB_FILEREAD_H
#define IOLAB_FILEREAD_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Reads path whole. Returns 0 with *text (free() it) and *len; -ENOENT when it does not exist;
 * -EINVAL when it is not a regular file (after following links; *mode says what it is);
 * -EFBIG when it is larger than max bytes; another negative errno when it cannot be read.
 * mode may be NULL.
 */
int fileread_regular(const char *path, size_t max, char **text, size_t *len, mode_t *mode);

/*
 * The same for a file a pack or a learner names: rel is opened under dir without following a
 * link out of it (safeopen.h), and -EXDEV says that one would lead out.
 */
int fileread_beneath(const char *dir, const char *rel, size_t max, char **text, size_t *len,
                     mode_t *mode);

/* "a FIFO", "a directory", "a socket", "a character device", ...: what a file of this mode is,
 * for sentences such as "not a regular file (a FIFO)". */
const char *fileread_kind(mode_t mode);

#endif
