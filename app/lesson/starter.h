/*
 * starter: the learner's starting point, generated from an exercise's solution by markers in
 * its comments, so that the two never drift apart (the scheme of the course the seeds come
 * from). A marker is a C comment alone on its line:
 *
 *   /\* TODO n: what to do *\/   kept as the learner's instruction; the n lines after it (the
 *                               solution's answer) are removed. The learner reads the TODO's
 *                               ordinal in its file instead of n ("TODO 2: ..."), the number
 *                               check messages use ("TODO 2 of w_epoll.h")
 *   /\* REPLACE n *\/            removed; the n lines after it are `// code` comments in the
 *                               solution (code only the starter has) and are uncommented
 *   /\* REMOVE n *\/             removed with the n lines after it (support only the solution
 *                               needs)
 *
 * Pure text in, text out: no files, no curses, unit-tested on its own.
 */
#ifndef IOLAB_STARTER_H
#define IOLAB_STARTER_H

#include <stddef.h>

/* A problem with the markers: the solution's line (1-based) and one sentence. */
struct starter_diag {
    int line;
    char message[200];
};

/*
 * Generates the starter from src (len bytes). 0 with *out (malloc'ed, NUL-terminated) and the
 * number of TODO markers in *ntodo; -EINVAL with the first problem in *diag (a count that is not
 * a positive number, a marker that runs past the end of the file, a REPLACE line that is not a
 * `//` comment, a marker left in the starter); -ENOMEM.
 */
int starter_generate(const char *src, size_t len, char **out, size_t *ntodo,
                     struct starter_diag *diag);

/*
 * The solution as a learner reads it: every TODO comment above its answer, REPLACE markers and
 * their `// code` lines (the starter's alone) gone, REMOVE markers gone with their lines kept.
 * 0 with *out (malloc'ed); -ENOMEM. Markers are read as starter_generate() reads them.
 */
int starter_solution(const char *src, size_t len, char **out);

/*
 * A file's starter version stamp: one line of its own, `/\* iolab-starter: N *\/` (or `// ...`,
 * `# ...` in a script), N from 1 to STARTER_STAMP_MAX. A pack raises N in a solution file when
 * the code a starter keeps around its TODOs changes, so that a workspace made from the older
 * starter can be told so (exercise.c). A file without a stamp is version 1.
 */
#define STARTER_STAMP      "iolab-starter:"
#define STARTER_STAMP_MAX  9999
#define STARTER_STAMP_NONE 1 /* the version of a file that carries no stamp */

/*
 * Finds the stamp in text (len bytes): 1 with *version (and *line, 1-based, when line is not
 * NULL), 0 when there is none, -EINVAL when a line names the stamp but is not one (a version
 * that is not a whole number in range, other text on its line) or a second stamp follows; *line
 * then says where.
 */
int starter_stamp(const char *text, size_t len, int *version, int *line);

#endif
