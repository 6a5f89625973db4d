/*
 * siteline: see siteline.h. One Dwfl session per file, reported offline: libdw places the file at
 * an address of its choosing, so each look-up adds the module's bias to the link-time offset the
 * shim recorded. Look-ups are made at a cold moment (a report, a verdict, a code view opened),
 * never per tick; the caller keeps the map open while it needs it.
 */
#include "siteline.h"
#include "tally.h"

#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <dwarf.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct siteline_map {
    Dwfl *dwfl;
    Dwfl_Module *mod;
};

/*
 * Where libdw looks for a stripped file's debug information: its default (beside the file, in
 * .debug/ there, and /usr/lib/debug, by build ID or debug link), then the lib/iolab/debug of
 * the tree iolab runs from (PREFIX/bin/iolab: PREFIX/lib/iolab/debug), where the package ships
 * the demos' (by build ID, compressed, which libdw reads as it is: sandbox/demos/CMakeLists.txt),
 * so that an installed, unpacked or moved tree finds its own.
 */
static char siteline_debug_dirs[PATH_MAX + 64] = ":.debug:/usr/lib/debug";
static char *siteline_debug_path = siteline_debug_dirs;

static const Dwfl_Callbacks siteline_callbacks = {
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &siteline_debug_path,
};

/* Appends PREFIX/lib/iolab/debug to the search path, once. */
static void siteline_find_tree(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return;
    exe[n] = 0;
    for (int up = 0; up < 2; up++) { /* PREFIX/bin/iolab: PREFIX */
        char *slash = strrchr(exe, '/');
        if (!slash || slash == exe)
            return;
        *slash = 0;
    }
    size_t len = strlen(siteline_debug_dirs);
    snprintf(siteline_debug_dirs + len, sizeof siteline_debug_dirs - len, ":%s/lib/iolab/debug",
             exe);
}

int siteline_open(const char *path, struct siteline_map **out)
{
    *out = NULL;
    siteline_find_tree();
    struct siteline_map *m = calloc(1, sizeof *m);
    if (!m)
        return -ENOMEM;
    m->dwfl = dwfl_begin(&siteline_callbacks);
    if (!m->dwfl) {
        free(m);
        return -ENOMEM;
    }
    /* The path comes from the counter page, which the program can write: open only a regular
       file, and never block on one (a FIFO named there would stop iolab). libdw keeps fd. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        siteline_close(m);
        return -ENOENT;
    }
    m->mod = dwfl_report_offline(m->dwfl, path, path, fd);
    if (!m->mod)
        close(fd);
    if (!m->mod || dwfl_report_end(m->dwfl, NULL, NULL) != 0) {
        siteline_close(m);
        return -ENOENT;
    }
    *out = m;
    return 0;
}

void siteline_close(struct siteline_map *m)
{
    if (!m)
        return;
    dwfl_end(m->dwfl);
    free(m);
}

/* Copies a name from the program's files (its DWARF, its page): control characters become '?',
   so that a name made to move the cursor or clear the screen prints as plain text. */
static void siteline_copy(char *to, size_t len, const char *from)
{
    snprintf(to, len, "%s", from ? from : "");
    for (char *c = to; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
}

/* The function around addr and, when it was inlined, the line of its inlined call (and in
   call_path, the file of that call, when the CU's file table names it), from the scopes around
   addr (innermost first). */
static void siteline_scopes(Dwarf_Die *cu, Dwarf_Addr addr, struct siteline *out, char *call_path,
                            size_t len)
{
    Dwarf_Die *scopes = NULL;
    int n = dwarf_getscopes(cu, addr, &scopes);
    int fn = -1;
    for (int i = 0; i < n && fn < 0; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine)
            fn = i;
    }
    if (fn >= 0) {
        siteline_copy(out->function, sizeof out->function, dwarf_diename(&scopes[fn]));
        if (dwarf_tag(&scopes[fn]) == DW_TAG_inlined_subroutine) {
            Dwarf_Attribute a;
            Dwarf_Word w;
            if (dwarf_formudata(dwarf_attr(&scopes[fn], DW_AT_call_line, &a), &w) == 0)
                out->caller_line = (int)w;
            Dwarf_Files *files;
            size_t nfiles;
            const char *name;
            if (dwarf_formudata(dwarf_attr(&scopes[fn], DW_AT_call_file, &a), &w) == 0 &&
                dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && w < nfiles &&
                (name = dwarf_filesrc(files, w, NULL, NULL)))
                siteline_copy(call_path, len, name);
            for (int i = fn + 1; i < n; i++) {
                int tag = dwarf_tag(&scopes[i]);
                if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine) {
                    siteline_copy(out->caller, sizeof out->caller, dwarf_diename(&scopes[i]));
                    break;
                }
            }
        }
    }
    free(scopes);
}

int siteline_lookup(struct siteline_map *m, uint64_t offset, struct siteline *out)
{
    memset(out, 0, sizeof *out);
    if (!m || !offset)
        return -ENOENT;
    GElf_Addr bias = 0;
    if (!dwfl_module_getelf(m->mod, &bias))
        return -ENOENT;
    Dwarf_Addr addr = offset - 1 + bias;
    Dwarf_Addr start, end;
    dwfl_module_info(m->mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
    if (addr < start || addr >= end)
        return -ENOENT;

    Dwfl_Line *line = dwfl_module_getsrc(m->mod, addr);
    int lineno = 0;
    const char *file = line ? dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL) : NULL;
    if (file && lineno > 0) {
        siteline_copy(out->path, sizeof out->path, file);
        const char *base = strrchr(file, '/');
        siteline_copy(out->file, sizeof out->file, base ? base + 1 : file);
        out->line = lineno;
        Dwarf_Addr cubias;
        Dwarf_Die *cu = dwfl_module_addrdie(m->mod, addr, &cubias);
        char call_path[sizeof out->path] = "";
        if (cu)
            siteline_scopes(cu, addr - cubias, out, call_path, sizeof call_path);
        /* A libc wrapper inlined from the system's headers (_FORTIFY_SOURCE's read() and
           recv() in bits/unistd.h, bits/socket2.h) is not where the program makes the call:
           the line of the inlined call is, in the program's own file. */
        if (!strncmp(out->path, "/usr/include/", 13) && out->caller_line && call_path[0] &&
            strncmp(call_path, "/usr/include/", 13)) {
            snprintf(out->path, sizeof out->path, "%s", call_path);
            base = strrchr(call_path, '/');
            siteline_copy(out->file, sizeof out->file, base ? base + 1 : call_path);
            out->line = out->caller_line;
            out->caller_line = 0;
            memcpy(out->function, out->caller, sizeof out->function);
            out->caller[0] = 0;
        }
        /* libdw's scopes of an inlined function lead to its abstract origin, not to the
           function it was inlined into: that is the ELF symbol the code lies in. */
        if (out->caller_line && !out->caller[0])
            siteline_copy(out->caller, sizeof out->caller, dwfl_module_addrname(m->mod, addr));
    }
    if (!out->function[0] || !out->line) {
        /* No line information: the ELF symbol and the offset into it, if a symbol covers it. */
        GElf_Off off = 0;
        GElf_Sym sym;
        const char *name = dwfl_module_addrinfo(m->mod, addr, &off, &sym, NULL, NULL, NULL);
        if (name && !out->function[0])
            siteline_copy(out->function, sizeof out->function, name);
        if (name)
            out->fn_offset = off + 1; /* of the return address, as it would be printed */
    }
    return 0;
}

/* The count of b's site i minus the same site's count in a (merged by object name and offset). */
static uint64_t siteline_delta(const struct tally_sites *a, const struct tally_sites *b, uint32_t i)
{
    const struct tally_site *e = &b->site[i];
    uint64_t before = 0;
    for (uint32_t k = 0; a && k < a->n; k++) {
        const struct tally_site *f = &a->site[k];
        if (f->call == e->call && f->offset == e->offset && f->object < a->nobjects &&
            a->objects[f->object].exe == b->objects[e->object].exe &&
            !strcmp(a->objects[f->object].name, b->objects[e->object].name))
            before += f->count;
    }
    return e->count > before ? e->count - before : 0;
}

static int siteline_row_cmp(const void *x, const void *y)
{
    const struct siteline_row *a = x, *b = y;
    return a->count < b->count ? 1 : a->count > b->count ? -1 : 0;
}

/* Rows are merged into a local table this large before the caller's max is applied. */
#define SITELINE_ROWS_MAX (TALLY_SITES + IOLAB_NCALLS)

size_t siteline_rows(const struct tally_sites *a, const struct tally_sites *b,
                     struct siteline_row *rows, size_t max)
{
    struct siteline_map *maps[IOLAB_OBJECTS] = {0};
    int tried[IOLAB_OBJECTS] = {0};
    struct siteline_row *all = calloc(SITELINE_ROWS_MAX, sizeof *all);
    if (!all)
        return 0;
    size_t n = 0;
    for (uint32_t i = 0; i < b->n && i < TALLY_SITES; i++) {
        const struct tally_site *e = &b->site[i];
        uint64_t count = siteline_delta(a, b, i);
        if (!count || e->object >= b->nobjects || e->object >= IOLAB_OBJECTS)
            continue;
        const struct iolab_object *o = &b->objects[e->object];
        if (!tried[e->object]) {
            tried[e->object] = 1;
            siteline_open(o->name, &maps[e->object]);
        }
        struct siteline_row r = {
            .call = e->call, .count = count, .exe = o->exe != 0, .offset = e->offset};
        const char *base = strrchr(o->name, '/');
        siteline_copy(r.object, sizeof r.object, base ? base + 1 : o->name);
        siteline_lookup(maps[e->object], e->offset, &r.src);
        size_t k = 0;
        for (; k < n; k++) {
            struct siteline_row *m = &all[k];
            if (m->call == r.call && !strcmp(m->object, r.object) && m->src.line == r.src.line &&
                !strcmp(m->src.file, r.src.file) && (r.src.line || m->offset == r.offset))
                break;
        }
        if (k < n)
            all[k].count += count;
        else
            all[n++] = r;
    }
    for (unsigned c = 0; c < IOLAB_NCALLS && n < SITELINE_ROWS_MAX; c++) {
        uint64_t before = a ? a->other[c] : 0;
        if (b->other[c] > before)
            all[n++] = (struct siteline_row){.call = c, .count = b->other[c] - before};
    }
    for (int i = 0; i < IOLAB_OBJECTS; i++)
        siteline_close(maps[i]);
    qsort(all, n, sizeof *all, siteline_row_cmp);
    memcpy(rows, all, (n < max ? n : max) * sizeof *rows);
    free(all);
    return n;
}
