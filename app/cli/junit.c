/*
 * The JUnit writer of `iolab check` (junit.h). Every byte of a learner's output goes through
 * junit_escape(), so no program can make the report unreadable to the CI's parser.
 */
#include "junit.h"
#include "cmd.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Writes s[0..n) as XML character data or an attribute value: the five special characters as
   entities, a control character that XML 1.0 cannot carry (ESC of a coloured compiler message)
   as a visible \xNN, and a byte that is not part of UTF-8 as U+FFFD, so that no learner's
   output can make the report unreadable to the CI's parser. */
static void junit_escape(FILE *f, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    for (size_t i = 0; i < n;) {
        unsigned char c = s[i];
        if (c < 0x80) {
            if (c == '&')
                fputs("&amp;", f);
            else if (c == '<')
                fputs("&lt;", f);
            else if (c == '>')
                fputs("&gt;", f);
            else if (c == '"')
                fputs("&quot;", f);
            else if (c == '\'')
                fputs("&apos;", f);
            else if (c == '\n' || c == '\t')
                fputc(c, f);
            else if (c < 0x20 || c == 0x7f)
                fprintf(f, "\\x%02x", c);
            else
                fputc(c, f);
            i++;
            continue;
        }
        /* A UTF-8 sequence: its length from the lead byte, then its continuation bytes, with
           the overlong forms, the surrogates, code points past U+10FFFF and the non-characters
           U+FFFE and U+FFFF refused (XML forbids the last ones too). */
        size_t len = c >= 0xc2 && c <= 0xdf   ? 2
                     : c >= 0xe0 && c <= 0xef ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;
        bool ok = len && i + len <= n;
        for (size_t k = 1; ok && k < len; k++)
            ok = (s[i + k] & 0xc0) == 0x80;
        if (ok && len == 3) {
            ok = !(c == 0xe0 && s[i + 1] < 0xa0) && !(c == 0xed && s[i + 1] >= 0xa0) &&
                 !(c == 0xef && s[i + 1] == 0xbf && s[i + 2] >= 0xbe);
        } else if (ok && len == 4) {
            ok = !(c == 0xf0 && s[i + 1] < 0x90) && !(c == 0xf4 && s[i + 1] >= 0x90);
        }
        if (!ok) {
            fputs("\xef\xbf\xbd", f);
            i++;
            continue;
        }
        fwrite(s + i, 1, len, f);
        i += len;
    }
}

static void junit_text(FILE *f, const char *s)
{
    junit_escape(f, s ? s : "", s ? strlen(s) : 0);
}

/* Opens n's stream of properties (junit_props_end closes it and frees the text). */
void junit_props_begin(struct junit_counts *n)
{
    n->props = open_memstream(&n->props_text, &n->props_len);
}

void junit_props_end(struct junit_counts *n)
{
    if (n->props)
        fclose(n->props);
    n->props = NULL;
    free(n->props_text);
    n->props_text = NULL;
}

/* The seconds an attempt took as its suite reports it: from its start to its last verdict,
   never less than what one of its test cases reports (the build; a check, timed from the
   build's verdict), so that the suite's time covers its cases. */
double junit_attempt_seconds(const struct attempt *a)
{
    double t = a->decided_s > 0 ? a->decided_s : attempt_since(a);
    if (a->mine.seconds > t)
        t = a->mine.seconds;
    for (size_t i = 0; a->check_s && a->judge_ready && i < a->run.sc.nchecks; i++)
        if (a->build_verdict_s + a->check_s[i] > t)
            t = a->build_verdict_s + a->check_s[i];
    return t;
}

/* One test case; kind is NULL (passed), "failure", "error" or "skipped" (a check the run never
   judged: no figure, no points, and its reason as the message); body may be NULL. */
void junit_case(FILE *f, struct junit_counts *n, const char *classname, const char *name,
                double seconds, const char *kind, const char *message, const char *body)
{
    n->tests++;
    fputs("    <testcase classname=\"", f);
    junit_text(f, classname);
    fputs("\" name=\"", f);
    junit_text(f, name);
    fprintf(f, "\" time=\"%.3f\"", seconds > 0 ? seconds : 0);
    if (!kind) {
        fputs("/>\n", f);
        return;
    }
    if (!strcmp(kind, "skipped")) {
        n->skipped++;
        fputs(">\n      <skipped message=\"", f);
        junit_text(f, message);
        fputs("\"/>\n    </testcase>\n", f);
        return;
    }
    if (!strcmp(kind, "failure"))
        n->failures++;
    else
        n->errors++;
    fprintf(f, ">\n      <%s message=\"", kind);
    junit_text(f, message);
    fprintf(f, "\" type=\"%s\">", !strcmp(kind, "failure") ? "check" : "build");
    junit_text(f, body ? body : message);
    fprintf(f, "</%s>\n    </testcase>\n", kind);
}

/* The suite of one attempt: a test case for the build (an error with the compiler's messages
   when it does not build, its warnings as output when it does), then one per check, named by
   its text (its points are a property of the suite, "points:TEXT"): a failure with the
   grader's sentence when it does not hold, an error when it could not be judged. suffix names
   the attempt ("", " solution", " starter"). */
void junit_attempt(FILE *f, struct junit_counts *n, const struct attempt *a, const char *suffix)
{
    char cls[512], name[640];
    snprintf(cls, sizeof cls, "%s.%s%s", a->lesson->id, a->step->id, suffix);
    const char *log = a->mine_log ? a->mine_log : "";
    if (a->mine_ok) {
        n->tests++;
        fprintf(f, "    <testcase classname=\"");
        junit_text(f, cls);
        fprintf(f, "\" name=\"build\" time=\"%.3f\"", a->mine.seconds);
        if (log[0]) {
            fputs(">\n      <system-out>", f);
            junit_text(f, log);
            fputs("</system-out>\n    </testcase>\n", f);
        } else {
            fputs("/>\n", f);
        }
    } else {
        /* The compiler's messages are this element's body, not above it as in the text. */
        const char *why = a->error[0] ? a->error : "the program does not build";
        if (a->mine_built && a->mine.status == BUILD_FAILED)
            why = a->for_author ? "it does not build (the compiler's messages are in this "
                                  "element)"
                                : "your program does not build (the compiler's messages are "
                                  "in this element)";
        junit_case(f, n, cls, "build", a->mine.seconds, "error", why,
                   log[0] ? log : (a->error[0] ? a->error : NULL));
    }
    const struct lesson_scenario *sc = a->ex->sc;
    for (size_t i = 0; i < sc->nchecks; i++) {
        const struct lesson_check *c = &sc->checks[i];
        snprintf(name, sizeof name, "%s", c->text);
        if (n->props) {
            fputs("      <property name=\"points:", n->props);
            junit_text(n->props, c->text);
            fprintf(n->props, "\" value=\"%g\"/>\n", c->points);
        }
        if (!a->mine_ok) {
            junit_case(f, n, cls, name, 0, "error", "not judged: the program does not build", NULL);
            continue;
        }
        if (!a->judge_ready || a->error[0]) {
            char why[1100];
            snprintf(why, sizeof why, "not judged: %s", a->error[0] ? a->error : "no run");
            junit_case(f, n, cls, name, 0, "error", why, NULL);
            continue;
        }
        char msg[768], body[1400];
        grade_message(&a->grader, i, msg, sizeof msg);
        double t = a->check_s ? a->check_s[i] : 0;
        enum grade_state st = grade_state(&a->grader, i);
        if (st == GRADE_PASS) {
            junit_case(f, n, cls, name, t, NULL, NULL, NULL);
        } else if (st != GRADE_FAIL) {
            junit_case(f, n, cls, name, t, "skipped", msg, NULL);
        } else {
            /* The grader's sentence carries the check's "fail" hint when it explains a failure
               (grade_message): the body adds it only when the sentence does not. */
            bool hinted = !c->fail || strstr(msg, c->fail);
            snprintf(body, sizeof body, "%s%s%s", msg, hinted ? "" : "\n", hinted ? "" : c->fail);
            junit_case(f, n, cls, name, t, "failure", msg, body);
        }
    }
    if (a->audit && a->mine_ok && a->judge_ready && !a->error[0]) {
        const struct judge_audit *au = &a->au;
        static char audited[640];
        if (au->audited)
            snprintf(audited, sizeof audited, "true");
        else
            snprintf(audited, sizeof audited, "false: %s",
                     au->why[0] ? au->why : "the audit run was not made");
        n->audited = audited;
        /* A step without call-count checks has nothing to audit: no test case for it. */
        if (au->calls[0] && !au->audited)
            junit_case(f, n, cls, "audit", au->run_s, "skipped", audited + 7, NULL);
        else if (au->calls[0] && au->failed)
            junit_case(f, n, cls, "audit", au->run_s, "failure", au->failure, au->counts);
        else if (au->calls[0])
            junit_case(f, n, cls, "audit", au->run_s, NULL, NULL, NULL);
    }
    double got, max;
    attempt_score(a, &got, &max);
    n->score += got;
    n->max_score += max;
    n->seconds += junit_attempt_seconds(a);
}

/* Wraps suites (already written into body) in <testsuites> and writes the report to path
   through a temporary file renamed over it, so a CI never reads half a report. 0 or -1 (said). */
int junit_write(const char *path, const char *suites, const struct junit_counts *n)
{
    char tmp[PATH_MAX + 16];
    snprintf(tmp, sizeof tmp, "%s.tmp-%d", path, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        cmd_error("cannot write the JUnit report %s: %s.", path, strerror(errno));
        return -1;
    }
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"iolab check\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
            "skipped=\"%zu\" time=\"%.3f\">\n%s</testsuites>\n",
            n->tests, n->failures, n->errors, n->skipped, n->seconds, suites);
    bool bad = ferror(f);
    if (fclose(f) != 0 || bad || rename(tmp, path) != 0) {
        cmd_error("cannot write the JUnit report %s: %s.", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Opens one <testsuite> into out (a memory stream) after its cases were written to cases. */
void junit_suite(FILE *out, const char *name, const struct junit_counts *n, const char *cases,
                 time_t started)
{
    char stamp[32] = "";
    struct tm tm;
    if (gmtime_r(&started, &tm))
        strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);
    fputs("  <testsuite name=\"", out);
    junit_text(out, name);
    fprintf(out,
            "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"%.3f\" "
            "timestamp=\"%s\">\n"
            "    <properties>\n"
            "      <property name=\"score\" value=\"%g\"/>\n"
            "      <property name=\"max_score\" value=\"%g\"/>\n",
            n->tests, n->failures, n->errors, n->skipped, n->seconds, stamp, n->score,
            n->max_score);
    if (n->props && fflush(n->props) == 0 && n->props_text)
        fputs(n->props_text, out);
    if (n->audited) {
        fputs("      <property name=\"audited\" value=\"", out);
        junit_text(out, n->audited);
        fputs("\"/>\n", out);
    }
    fprintf(out, "    </properties>\n%s  </testsuite>\n", cases);
}

/* The report of one `iolab check LESSON/STEP`. */
int junit_single(const char *path, const struct attempt *a)
{
    char *cases = NULL, *suites = NULL;
    size_t clen = 0, slen = 0;
    FILE *cf = open_memstream(&cases, &clen);
    if (!cf)
        return -1;
    struct junit_counts n = {0};
    junit_props_begin(&n);
    junit_attempt(cf, &n, a, "");
    if (a->ntail) {
        fputs("    <system-out>", cf);
        for (size_t i = 0; i < a->ntail; i++) {
            junit_text(cf, attempt_tail_line(a, i));
            fputc('\n', cf);
        }
        fputs("</system-out>\n", cf);
    }
    fclose(cf);
    FILE *sf = open_memstream(&suites, &slen);
    if (!sf) {
        free(cases);
        junit_props_end(&n);
        return -1;
    }
    char name[512];
    snprintf(name, sizeof name, "%s/%s", a->lesson->id, a->step->id);
    junit_suite(sf, name, &n, cases, a->started);
    junit_props_end(&n);
    fclose(sf);
    int rc = junit_write(path, suites, &n);
    free(cases);
    free(suites);
    return rc;
}
