/*
 * buildmsg: what the learner is shown of a compiler's and a sanitizer's words, as text: paths of
 * the workspace's files shortened to their names, a sanitizer's report condensed to the lines
 * about the learner's code, a compiler's source excerpt told apart from its messages. Pure; the
 * exercise view (ui/stepview_exercise.c) draws the result.
 */
#include "buildmsg.h"
#include "grade/grade.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

/* line with every "PATH/NAME:" of a workspace file written "NAME:". The screen says where the
   workspace is, and the text pane is narrow while the run is on: the learner's file:line:col
   must not be cut off by a path they already know (or by the build's copy, gone anyway). */
void exercise_shorten(const struct lesson_exercise *ex, const char *line, char *out, size_t len)
{
    size_t n = 0, start = 0; /* where the current word began in out */
    for (const char *s = line; *s && n + 1 < len;) {
        bool cut = false;
        for (size_t k = 0; *s == '/' && k < ex->nfiles && !cut; k++) {
            size_t l = strlen(ex->files[k]);
            cut = !strncmp(s + 1, ex->files[k], l) && s[1 + l] == ':';
        }
        if (cut) {
            n = start;
            s++;
            continue;
        }
        if (*s == ' ' || *s == '(')
            start = n + 1;
        out[n++] = *s++;
    }
    out[n] = '\0';
}

/* Appends line to the n bytes of out unless it is there already: UBSan and then AddressSanitizer
   report the same bad access with the same frames, and the second copy teaches nothing. */
static size_t buildmsg_brief_add(char *out, size_t n, size_t len, const char *line)
{
    size_t l = strlen(line);
    for (const char *s = out; s < out + n; s = strchr(s, '\n') + 1)
        if (!strncmp(s, line, l) && s[l] == '\n')
            return n;
    if (n + l + 2 > len)
        return n;
    memcpy(out + n, line, l);
    out[n + l] = '\n';
    out[n + l + 1] = '\0';
    return n + l + 1;
}

/*
 * The lines of a sanitizer's report about the learner's code: what went wrong (the ERROR and
 * "runtime error:" lines, the access, where that memory is), the frames in the workspace's files
 * without their addresses, and the SUMMARY. The shadow-memory map and the frames of libc and
 * of the runtime are left out: the whole report is iolab check's to print.
 */
void exercise_sanitizer_brief(const struct lesson_exercise *ex, const char *report, char *out,
                              size_t len)
{
    size_t n = 0;
    bool shadow = false;
    out[0] = '\0';
    for (const char *s = report; *s;) {
        const char *nl = strchr(s, '\n');
        int l = nl ? (int)(nl - s) : (int)strlen(s);
        char line[640], kept[640];
        snprintf(line, sizeof line, "%.*s", l, s);
        s += l + (nl != NULL);
        char *t = line;
        while (*t == ' ')
            t++;
        if (!strncmp(t, "==", 2) && strstr(t + 2, "==")) /* "==1234==ERROR: ..." */
            t = strstr(t + 2, "==") + 2;
        bool error = grade_sanitizer_error(t);
        if (error || !strncmp(t, "SUMMARY:", 8))
            shadow = false;
        else if (!strncmp(t, "Shadow bytes", 12))
            shadow = true;
        if (shadow)
            continue;
        char *pc = strstr(t, " at pc 0x"); /* registers: nothing to learn from */
        if (error && pc)
            *pc = '\0';
        bool keep = error || !strncmp(t, "SUMMARY:", 8) || !strncmp(t, "READ of size", 12) ||
                    !strncmp(t, "WRITE of size", 13) || strstr(t, " is located ") ||
                    (strlen(t) > 6 && !strcmp(t + strlen(t) - 6, " here:"));
        if (t[0] == '#') {
            /* "#1 0x55d1 in converse /tmp/iolab-build-x/server.c:76": a frame of the learner's
               code when the shortening finds one of their files in it. */
            char *in = strstr(t, " in ");
            exercise_shorten(ex, t, kept, sizeof kept);
            if (!in || !strcmp(kept, t))
                continue;
            char frame[sizeof line + sizeof kept];
            *strchr(t, ' ') = '\0';
            exercise_shorten(ex, in + 4, kept, sizeof kept);
            snprintf(frame, sizeof frame, "%s %s", t, kept);
            n = buildmsg_brief_add(out, n, len, frame);
            continue;
        }
        if (!keep)
            continue;
        exercise_shorten(ex, t, kept, sizeof kept);
        n = buildmsg_brief_add(out, n, len, kept);
    }
}

/* Whether a compiler line is part of its source excerpt ("   48 |     x = ;" and the caret line
   "      |       ^"): drawn as it is, never wrapped, so that the caret stays under its column. */
bool exercise_compiler_excerpt(const char *line)
{
    while (*line == ' ' || (*line >= '0' && *line <= '9'))
        line++;
    return line[0] == '|' && (line[1] == ' ' || line[1] == '\0');
}
