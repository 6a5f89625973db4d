/* iolab-starter: 1 */
/*
 * Your copy: size bytes of a file into a memfd (a file that lives only in memory), with
 * sendfile(). The program around it is iolab's, in copy-main.c: it opens the file, makes the
 * memfd, calls copy_all(), and hands the memfd to iolab's checker, which compares it with the
 * file byte for byte.
 *
 * sendfile() copies inside the kernel, from the page cache to the destination: no byte passes
 * through this program, so there is no read() and no write(). Like write(), it may copy less
 * than asked (a signal, a limit of the destination): the copy is a loop until every byte is
 * there.
 */
#include "copy.h"

#include <errno.h>
#include <sys/sendfile.h>

int copy_all(int out, int in, off_t size)
{
    /* TODO 9: loop sendfile(out, in, &offset, size - offset) until offset reaches size */
    off_t offset = 0;
    while (offset < size) {
        ssize_t n = sendfile(out, in, &offset, (size_t)(size - offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
    }
    return 0;
    /* REPLACE 4 */
    // (void)out;
    // (void)in;
    // (void)size;
    // return 0;
}
