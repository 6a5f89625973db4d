/*
 * packfind: which pack a command means when it is not given a directory. `--pack ID` names a
 * pack by its id (the built-in one's or one installed under the data directory, paths.h), and a
 * lesson that is not in the built-in pack is looked up in the installed ones. Ids are meant to
 * be unique; two packs seen with one id are an ambiguity the caller reports, never a guess.
 */
#ifndef IOLAB_PACKFIND_H
#define IOLAB_PACKFIND_H

#include <stdbool.h>
#include <stddef.h>

#define PACKFIND_MAX 64 /* packs looked at: the built-in one and the installed ones */

/* Packs found: their directories (allocated), in the order iolab lists them (the built-in
   first, then the installed ones by name). */
struct packfind {
    char *dirs[PACKFIND_MAX];
    size_t n;
};

/* The packs whose id is id. installed_only leaves the built-in pack out. */
void packfind_by_id(const char *id, bool installed_only, struct packfind *out);

/* The installed packs (not the built-in one) that have a lesson with this id. */
void packfind_by_lesson(const char *lesson, struct packfind *out);

void packfind_free(struct packfind *f);

struct lesson_pack;
struct lesson_diags;
/*
 * The one loop over the packs iolab can see: the built-in pack first when builtin, then the
 * nnamed directories of named (a command's --pack), then the installed ones by name (paths.h).
 * For each one that loads it calls visit(data, dir, pack); visit returns true when it keeps pack
 * (then it is the visitor's to free). A pack that does not load is passed over, or, when
 * failed is not NULL, told to failed(data, dir, diags) with its loader's problems (`iolab list`
 * prints them). dir and diags are borrowed for the call.
 */
struct packfind_visitor {
    bool (*visit)(void *data, const char *dir, struct lesson_pack *pack);
    void (*failed)(void *data, const char *dir, const struct lesson_diags *diags);
    void *data;
};
void packfind_each(bool builtin, const char *const *named, size_t nnamed,
                   const struct packfind_visitor *v);

/* Whether arg names a directory (it holds a '/' or is one), rather than a pack id. */
bool packfind_is_dir(const char *arg);

#endif
