/*
 * siteline: a call site (an offset into an object, as the shim records it) to a source line,
 * with the program's DWARF through libdw (elfutils).
 *
 * The offset is a return address, the instruction after the call: the lookup is made at
 * offset - 1, which lies inside the call instruction, so that the line is the call's own even
 * when the next instruction belongs to the next line. Inlining is followed: the line is where
 * the call is written (inside an inlined function, say), `function` the function written around
 * it, and `caller` the function it was inlined into, with the line of that inlined call.
 * A site with no line information (a stripped program, a library without debug information)
 * keeps line 0 and names its ELF symbol and the offset into it, or nothing: never a guess.
 */
#ifndef IOLAB_SITELINE_H
#define IOLAB_SITELINE_H

#include <stddef.h>
#include <stdint.h>

struct siteline {
    char file[128];     /* the source file's base name ("reader.c"); "" without line info */
    char path[256];     /* the source file as the DWARF names it (absolute when it can be) */
    int line;           /* 1-based line of the call; 0: no line information */
    char function[96];  /* the function the call is written in; "" when not known */
    uint64_t fn_offset; /* offset of the call into `function`'s symbol (no line info only) */
    char caller[96];    /* the function `function` was inlined into at this site; "" none */
    int caller_line;    /* the line of that inlined call; 0 none */
};

struct siteline_map; /* one ELF file opened for look-ups */

/* Opens the ELF file at path (an executable or a shared library): 0 or a negative errno. */
int siteline_open(const char *path, struct siteline_map **out);

/* The source of the call whose return address is at `offset` (a link-time address of the file,
   as the shim records it): 0, or -ENOENT when the offset lies in no part of the file. */
int siteline_lookup(struct siteline_map *m, uint64_t offset, struct siteline *out);

void siteline_close(struct siteline_map *m);

/*
 * A program's calls by line: the sites counted between two snapshots of its tally (b minus a; a
 * NULL: since the start), resolved with each object's file and merged by (call, object, file,
 * line), most calls first. Sites in the executable get file and line when it has DWARF; sites
 * in a library are named by the library and its symbol ("in libuv.so.1"); sites beyond the
 * page's tables are one row with call and count only (object "", line 0, function "").
 */
struct siteline_row {
    unsigned call;       /* enum iolab_call_id */
    uint64_t count;      /* calls made there */
    char object[64];     /* the object's base name ("reader", "libuv.so.1"); "" for other sites */
    int exe;             /* the object is the program's executable */
    uint64_t offset;     /* of the first site merged into the row, in the object */
    struct siteline src; /* where: file, line, function (line 0: not known) */
};

struct tally_sites;

/* Fills rows[0, max) and returns how many rows there are (may exceed max: the rest were cut). */
size_t siteline_rows(const struct tally_sites *a, const struct tally_sites *b,
                     struct siteline_row *rows, size_t max);

#endif
