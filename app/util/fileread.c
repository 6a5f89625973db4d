/*
 * fileread: see fileread.h. The read loop grows its buffer geometrically up to the bound (and
 * starts at the size fstat() reports, so an ordinary file is read with one allocation); a file
 * that grows while it is read is still cut at the bound, never read on without limit.
 */
#include "fileread.h"
#include "safeopen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* What each kind of file is called in a sentence; the regular file is not among them because it
 * is never refused. */
static const struct {
    mode_t type;
    const char *name;
} fileread_kinds[] = {
    {.type = S_IFIFO, .name = "a FIFO"},         {.type = S_IFDIR, .name = "a directory"},
    {.type = S_IFSOCK, .name = "a socket"},      {.type = S_IFCHR, .name = "a character device"},
    {.type = S_IFBLK, .name = "a block device"}, {.type = S_IFLNK, .name = "a symbolic link"},
};

const char *fileread_kind(mode_t mode)
{
    for (size_t i = 0; i < sizeof fileread_kinds / sizeof fileread_kinds[0]; i++)
        if ((mode & S_IFMT) == fileread_kinds[i].type)
            return fileread_kinds[i].name;
    return (mode & S_IFMT) == S_IFREG ? "a regular file" : "not a file iolab knows";
}

/* Reads the open descriptor fd whole (see fileread_regular) and closes it. */
static int fileread_fd(int fd, size_t max, char **text, size_t *len, mode_t *mode)
{
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int rc = -errno;
        close(fd);
        return rc;
    }
    if (mode)
        *mode = st.st_mode;
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return -EINVAL;
    }
    if ((unsigned long long)st.st_size > max) {
        close(fd);
        return -EFBIG;
    }
    /* One byte more than the bound, to tell "exactly max" from "more than max". */
    size_t cap = (size_t)st.st_size + 2, n = 0;
    char *buf = malloc(cap);
    int rc = buf ? 0 : -ENOMEM;
    while (rc == 0) {
        if (n + 1 >= cap) {
            size_t want = cap > max / 2 ? max + 2 : cap * 2;
            char *bigger = want > cap ? realloc(buf, want) : NULL;
            if (!bigger) {
                rc = want > cap ? -ENOMEM : -EFBIG;
                break;
            }
            buf = bigger;
            cap = want;
        }
        ssize_t r = read(fd, buf + n, cap - n - 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            rc = -errno;
        else if (r == 0)
            break;
        else if ((n += (size_t)r) > max)
            rc = -EFBIG;
    }
    close(fd);
    if (rc < 0) {
        free(buf);
        return rc;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

int fileread_regular(const char *path, size_t max, char **text, size_t *len, mode_t *mode)
{
    *text = NULL;
    *len = 0;
    /* O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer for ever. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return -errno;
    return fileread_fd(fd, max, text, len, mode);
}

int fileread_beneath(const char *dir, const char *rel, size_t max, char **text, size_t *len,
                     mode_t *mode)
{
    *text = NULL;
    *len = 0;
    int fd = safeopen_beneath(dir, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return fd;
    return fileread_fd(fd, max, text, len, mode);
}
