/*
 * codeview: source files with, in the margin of each line that made counted calls, how many and
 * which (a program's call sites, resolved to lines by metrics/siteline.c). The exercise's `L`
 * shows the learner's files with it.
 */
#ifndef IOLAB_CODEVIEW_H
#define IOLAB_CODEVIEW_H

#include "metrics/siteline.h"

#include <stddef.h>

/* One file shown: its name as the heading says it, and where its text is read. Its lines are
   matched with the rows of the program's executable by base name. */
struct codeview_file {
    const char *name; /* as shown ("reader.c", "src/reader.c") */
    const char *path; /* read from */
};

/*
 * The files as Markdown: a heading, a sentence under it, then each file in a code block whose
 * lines carry in their margin the calls that rows place on them (summed over the calls of the
 * line, the most frequent named). NULL when out of memory.
 */
char *codeview_md(const char *heading, const char *intro, const struct siteline_row *rows,
                  size_t nrows, const struct codeview_file *files, size_t nfiles);

#endif
