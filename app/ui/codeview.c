/*
 * codeview: see codeview.h. A line's margin sums every counted call the program's executable
 * made there; a row of a library or of the page's overflow names no line of these files and is
 * not shown.
 */
#include "codeview.h"
#include "human.h"
#include "iolab_counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *codeview_md(const char *heading, const char *intro, const struct siteline_row *rows,
                  size_t nrows, const struct codeview_file *files, size_t nfiles)
{
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    if (!f)
        return NULL;
    fprintf(f, "# %s\n\n%s\n\n", heading, intro);
    for (size_t i = 0; i < nfiles; i++) {
        const char *base = strrchr(files[i].name, '/');
        base = base ? base + 1 : files[i].name;
        FILE *src = fopen(files[i].path, "r");
        fprintf(f, "## %s\n\n```\n", files[i].name);
        char text[512];
        for (int line = 1; src && fgets(text, sizeof text, src); line++) {
            uint64_t n = 0, top = 0;
            unsigned call = 0;
            for (size_t k = 0; k < nrows; k++)
                if (rows[k].exe && rows[k].src.line == line && !strcmp(rows[k].src.file, base)) {
                    n += rows[k].count;
                    if (rows[k].count > top)
                        top = rows[k].count, call = rows[k].call;
                }
            text[strcspn(text, "\n")] = 0;
            char count[16] = "", margin[40] = "";
            if (n) {
                human_si((double)n, count, sizeof count);
                snprintf(margin, sizeof margin, "%s %.8s", count, iolab_call_info[call].label);
            }
            fprintf(f, "%14s %3d  %s\n", margin, line, text);
        }
        if (src)
            fclose(src);
        else
            fprintf(f, "(cannot be read)\n");
        fprintf(f, "```\n\n");
    }
    if (fclose(f) != 0) {
        free(md);
        return NULL;
    }
    return md;
}
