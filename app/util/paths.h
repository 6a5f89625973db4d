/*
 * Where iolab's parts are. Everything is found relative to the running executable, which sits in
 * PREFIX/bin both in the build tree and in an install, so the same rule serves both and an
 * installed tree can be moved anywhere.
 */
#ifndef IOLAB_PATHS_H
#define IOLAB_PATHS_H

#include <stddef.h>

enum paths_part {
    PATHS_PREFIX,   /* PREFIX */
    PATHS_SANDBOX,  /* PREFIX/bin/iolab-sandbox */
    PATHS_SHIM,     /* PREFIX/lib/iolab/libiolab-count.so */
    PATHS_LIBEXEC,  /* PREFIX/libexec/iolab: the demo programs */
    PATHS_PACK,     /* PREFIX/share/iolab/lessons: the built-in pack */
    PATHS_INCLUDE,  /* PREFIX/share/iolab/include: iolab_counters.h, for packs' own programs */
    PATHS_SCHEMA,   /* PREFIX/share/iolab/schema: the JSON Schemas of pack files */
    PATHS_TEMPLATE, /* PREFIX/share/iolab/template: the pack `iolab new` writes */
};

/* Writes the absolute path of a part into buf; 0 or a negative errno. */
int paths_get(enum paths_part part, char *buf, size_t len);

/* Writes $XDG_CACHE_HOME/iolab/SUB (default ~/.cache/iolab/SUB) into buf; 0 or -errno
   (-ENOENT when neither XDG_CACHE_HOME nor HOME is an absolute path). */
int paths_cache(const char *sub, char *buf, size_t len);

/* Writes where packs are installed, $XDG_DATA_HOME/iolab/packs (default
   ~/.local/share/iolab/packs), into buf; 0 or -errno (-ENOENT when neither is set). */
int paths_packs_dir(char *buf, size_t len);

/*
 * Appends to dirs (at most max entries in all, *n of them used) every pack directory installed
 * under $XDG_DATA_HOME/iolab/packs/ (default ~/.local/share/iolab/packs/), sorted by name so
 * that listings do not depend on the directory's order. The strings are allocated.
 */
void paths_installed_packs(char **dirs, size_t *n, size_t max);

/*
 * What a jailed program must see at the same path even where the full tier's private /tmp hides
 * the host's (iolab-sandbox --ro). paths_jail_add() appends path and its real path and, with
 * links, where each link directly inside the directory leads (the directory of its target): a
 * build tree's include/iolab_counters.h is a link into the source tree. paths_jail_tree() adds
 * iolab's own tree (PREFIX) and the real places of its parts (a build tree's lessons, schema and
 * template are links into the source tree). The strings are allocated; a path already inside a
 * listed real directory, or one listed already, is not added again; at most max in all.
 */
void paths_jail_add(const char *path, int links, char **list, size_t *n, size_t max);
void paths_jail_tree(char **list, size_t *n, size_t max);

#endif
