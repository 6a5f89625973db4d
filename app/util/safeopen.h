/*
 * safeopen: opens a file that a pack or a learner names, without letting a link lead out of the
 * directory the name belongs to.
 *
 * iolab reads a pack's sources and an exercise's files as itself, which may be root: a source
 * that is a symbolic link to /etc/shadow would otherwise be read with iolab's rights and its bytes
 * copied into a build, a learner's workspace or the cache. So every such file is opened relative
 * to its own directory with openat2(RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS): the kernel resolves
 * every component and refuses (EXDEV) a "..", an absolute link or a relative one that climbs out.
 * A link that stays inside is followed; an absolute link that happens to point inside is
 * accepted too, after realpath() shows where it leads. iolab keeps its own rights, so a pack
 * under a private home directory still works when iolab runs as that home's owner.
 *
 * Where the kernel has no openat2() (before Linux 5.6, ENOSYS; or a seccomp filter that answers
 * EPERM), the fallback resolves the path
 * with realpath(), checks that it lies under the directory's own real path, and opens that
 * resolved path with O_NOFOLLOW. It refuses the same links, but leaves a window in which a
 * directory of the path could be swapped for a link between the check and the open.
 */
#ifndef IOLAB_SAFEOPEN_H
#define IOLAB_SAFEOPEN_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Opens rel (a relative path) under dir with flags (O_RDONLY and the like; O_CLOEXEC is added).
 * Returns a descriptor, or a negative errno: -EXDEV when a link or ".." leads out of dir, or rel
 * is absolute; -EMLINK when it is a regular file with more than one name (a hard link, which
 * may be a second name of a file anywhere); -ENOENT, -EACCES, ... as open() would.
 */
int safeopen_beneath(const char *dir, const char *rel, int flags);

/* The same relative to an open directory; dir_path is its path, used only by the fallback. */
int safeopen_beneath_at(int dirfd, const char *dir_path, const char *rel, int flags);

/*
 * Where the first link of rel that leads out of dir points ("/root/secret"), for a sentence;
 * "" when none is found (a ".." in rel, or the file changed meanwhile).
 */
void safeopen_escape(const char *dir, const char *rel, char *buf, size_t len);

/*
 * Removes the directory path and everything in it without following a link anywhere: each
 * level is opened with O_NOFOLLOW relative to the one above, so that a link planted in it
 * (by a program that could write there) is removed, never followed, and nothing on another
 * mount (a mount point inside it) is entered. 0 or a negative errno.
 */
int safeopen_rmtree(const char *path);

/* Tests only: behave as on a kernel without openat2() (the fallback), or not. */
void safeopen_force_fallback(bool on);

#endif
