/*
 * run_report: `iolab run`'s text report and its --json writer (interface and model in
 * run_report.h). Each segment's figures are what grew between its two snapshots, as the figure
 * table computes it (metrics/figure.h): a program's with snapshot_figures_between(), the rates
 * and latencies over the segment's span, so the text, the side by side table, the JSON and the
 * TUI's comparison agree.
 */
#include "run_report.h"
#include "cmd.h"
#include "cmd_run_args.h"
#include "grade.h"
#include "human.h"
#include "json.h"
#include "lesson/lesson.h"
#include "metrics/figure.h"
#include "metrics/siteline.h"
#include "metrics/stats.h"
#include "termsafe.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/*
 * A load's errors that the switch into this segment caused. Restarting the server breaks the
 * connections the load had open to it; the load counts one error for each as it notices, which
 * on a busy machine can be after the new server is ready and the segment has begun. At most one
 * error per connection that was open when the segment began and closed during it.
 */
static uint64_t run_switch_breaks(const struct run_segment *seg, uint32_t p)
{
    const struct snapshot_prog *last = &seg->last.progs[p];
    const struct snapshot_figures *fa = &seg->first.progs[p].f;
    if (!seg->after_switch || last->role != LESSON_ROLE_CLIENT)
        return 0;
    struct snapshot_figures d;
    snapshot_figures_between(fa, &last->f, &d);
    /* Open when the segment began: the connections opened before it and not closed by then. */
    uint64_t open = stats_delta(fa->conns_opened, fa->conns_closed);
    uint64_t n = open < d.conns_closed ? open : d.conns_closed;
    return n < d.errors ? n : d.errors;
}

/*
 * What made a run not clean: the error it ended with, and every program that counted errors in
 * a segment (with its last word on stderr). Partial figures are still printed beside them.
 */
void run_report_problems(const struct run_report *r, struct run_problems *pr)
{
    pr->n = 0;
    if (r->failure && r->failure[0])
        snprintf(pr->v[pr->n++], sizeof pr->v[0], "%.*s", (int)sizeof pr->v[0] - 1, r->failure);
    if (grade_untrusted(r->grader)) /* a tampered counter page, counts the kernel denies */
        snprintf(pr->v[pr->n++], sizeof pr->v[0], "%.*s", (int)sizeof pr->v[0] - 1,
                 grade_untrusted(r->grader));
    for (size_t i = 0; i < r->nsegments && pr->n < RUN_MAX_PROBLEMS; i++) {
        const struct run_segment *seg = &r->segments[i];
        if (!seg->started)
            continue;
        for (uint32_t p = 0; p < seg->last.nprogs && pr->n < RUN_MAX_PROBLEMS; p++) {
            struct snapshot_figures d;
            snapshot_figures_between(&seg->first.progs[p].f, &seg->last.progs[p].f, &d);
            for (unsigned k = 0; k < IOLAB_FAIL_NCALLS && pr->n < RUN_MAX_PROBLEMS; k++)
                for (unsigned q = 0; q < IOLAB_FAIL_NCAUSES && pr->n < RUN_MAX_PROBLEMS; q++) {
                    uint64_t n = d.failed[k][q];
                    if (!n)
                        continue;
                    const char *why = p < SNAPSHOT_MAX_PROGS ? r->words->fail[p] : "";
                    snprintf(pr->v[pr->n++], sizeof pr->v[0],
                             "%s%s%s: %s failed %llu time%s (%s)%s%s", seg->last.progs[p].name,
                             seg->mode >= 0 ? " in mode " : "",
                             seg->mode >= 0 ? r->sc->modes[seg->mode].id : "",
                             iolab_fail_call_name[k], (unsigned long long)n, n == 1 ? "" : "s",
                             iolab_fail_cause_name[q], why[0] ? ": " : "", why);
                }
            uint64_t e = d.errors - run_switch_breaks(seg, p);
            if (!e)
                continue;
            const char *why = p < SNAPSHOT_MAX_PROGS ? r->words->err[p] : "";
            snprintf(pr->v[pr->n++], sizeof pr->v[0], "%s%s%s: %llu error%s%s%s",
                     seg->last.progs[p].name, seg->mode >= 0 ? " in mode " : "",
                     seg->mode >= 0 ? r->sc->modes[seg->mode].id : "", (unsigned long long)e,
                     e == 1 ? "" : "s", why[0] ? "; its last message: " : "", why);
        }
    }
}

static void run_report_problems_json(const struct run_problems *pr, struct json_out *j)
{
    json_bool(j, "clean", pr->n == 0);
    json_array(j, "problems");
    for (size_t i = 0; i < pr->n; i++)
        json_string(j, NULL, pr->v[i]);
    json_end(j);
}

static double run_report_us(uint64_t ns)
{
    return (double)ns / 1000.0;
}

/* The segment's span (figure.h): what grew from its first snapshot to its last, its requests
   and bytes the load role's (the client's, or the server's when no client publishes), its
   latency the requests answered in it and those still waiting at its end, each as long as it
   had waited within the segment: the span a mode's comparison row is made of. */
static void run_report_segment_span(const struct run_segment *seg, struct span *sp)
{
    span_between(&seg->first, &seg->last, NULL, sp);
}

/* A figure of a segment's span as the figure table computes it (role: whose calls); false
   where it is undefined (a ratio over no request), shown as "-". */
static bool run_report_figure(enum figure_id id, const struct span *sp, int role, double *out)
{
    struct figure_arg a = {.role = role};
    return figure_value(id, sp, &a, out);
}

/* A split call's counts by kind of descriptor: "fd": {"file": 1000, "socket": 24}, or for a call
   between two descriptors {"file>socket": 10}. Kinds with no call are left out. d: what grew. */
static void run_report_json_fd(struct json_out *j, const struct snapshot_figures *d, unsigned c)
{
    int one = iolab_split_one_index(c), two = iolab_split_two_index(c);
    if (one < 0 && two < 0)
        return;
    json_object(j, "fd");
    for (int k = 0; k < IOLAB_NFDKINDS; k++)
        for (int t = 0; t < (two >= 0 ? IOLAB_NFDKINDS : 1); t++) {
            uint64_t n = one >= 0 ? d->fd.one[one][k] : d->fd.two[two][k][t];
            char key[32];
            snprintf(key, sizeof key, two >= 0 ? "%s>%s" : "%s", iolab_fd_kind_name[k],
                     iolab_fd_kind_name[t]);
            if (n)
                json_u64(j, key, n);
        }
    json_end(j);
}

/* What fault injection did to the program (IOLAB_FAULTS): present only when it was asked for
   (fb: its totals at the segment's end, d: what grew in the segment). */
static void run_report_json_faults(struct json_out *j, const struct snapshot_figures *d,
                                   const struct snapshot_figures *fb)
{
    uint64_t any = 0;
    for (int i = 0; i < IOLAB_NFAULTS; i++)
        any |= fb->fd.faults[i];
    if (!any)
        return;
    json_object(j, "faults_injected");
    for (int i = 0; i < IOLAB_NFAULTS; i++)
        json_u64(j, iolab_fault_name[i], d->fd.faults[i]);
    json_end(j);
}

/* Where the segment's counted calls were made, by source line (sandbox/count/README.md). */
static void run_report_json_sites(struct json_out *j, const struct snapshot_prog *a,
                                  const struct snapshot_prog *b)
{
    static struct siteline_row rows[TALLY_SITES + IOLAB_NCALLS];
    size_t n = siteline_rows(&a->sites, &b->sites, rows, sizeof rows / sizeof rows[0]);
    json_array(j, "sites");
    for (size_t k = 0; k < n && k < sizeof rows / sizeof rows[0]; k++) {
        const struct siteline_row *r = &rows[k];
        json_object(j, NULL);
        json_string(j, "call", snapshot_call_label(r->call));
        json_u64(j, "count", r->count);
        json_string(j, "object", r->object);
        json_string(j, "file", r->src.file);
        json_int(j, "line", r->src.line);
        json_string(j, "function", r->src.function);
        if (r->src.caller[0])
            json_string(j, "inlined_into", r->src.caller);
        json_end(j);
    }
    json_end(j);
}

static void run_report_json_process(struct json_out *j, const struct run_segment *seg, uint32_t i)
{
    const struct snapshot_prog *p = &seg->last.progs[i];
    struct snapshot_figures d; /* what grew; its gauges are the segment's end's */
    snapshot_figures_between(&seg->first.progs[i].f, &p->f, &d);
    json_object(j, NULL);
    json_string(j, "role", lesson_role_name(p->role));
    json_string(j, "name", p->name);
    /* counted: false when the shim is not in the program (static binary?): calls is empty for
       that reason, and only the kernel's figures (io, cpu) are the program's. */
    if (p->counted < 0)
        json_null(j, "counted");
    else
        json_bool(j, "counted", p->counted);
    json_int(j, "pid", p->pid);
    json_object(j, "calls");
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        uint64_t n = d.calls[c].count;
        if (!n)
            continue;
        json_object(j, snapshot_call_label(c));
        json_u64(j, "count", n);
        json_u64(j, "bytes", d.calls[c].bytes);
        json_u64(j, "ns", d.calls[c].ns);
        /* ns_sampled: ns is estimated from a sample of the calls (iolab_counters.h). */
        json_bool(j, "ns_sampled", !iolab_call_time_exact(c));
        run_report_json_fd(j, &d, c);
        json_end(j);
    }
    json_end(j);
    run_report_json_sites(j, &seg->first.progs[i], p);
    run_report_json_faults(j, &d, &p->f);
    json_object(j, "cpu");
    json_double(j, "user_s", d.cpu_user_s, 3);
    json_double(j, "sys_s", d.cpu_sys_s, 3);
    json_end(j);
    json_object(j, "ctx_switches");
    json_u64(j, "voluntary", d.ctx_voluntary);
    json_u64(j, "involuntary", d.ctx_involuntary);
    json_end(j);
    json_object(j, "io");
    json_u64(j, "syscr", d.syscr);
    json_u64(j, "syscw", d.syscw);
    json_u64(j, "rchar", d.rchar);
    json_u64(j, "wchar", d.wchar);
    json_u64(j, "read_bytes", d.read_bytes);
    json_u64(j, "write_bytes", d.write_bytes);
    json_end(j);
    json_u64(j, "lib_reads", d.lib_reads);
    json_u64(j, "lib_writes", d.lib_writes);
    json_object(j, "app");
    json_u64(j, "requests", d.requests);
    json_u64(j, "bytes", d.app_bytes);
    json_u64(j, "conns_opened", d.conns_opened);
    json_u64(j, "conns_closed", d.conns_closed);
    /* Gauges at the segment's end: connections still waiting for an answer. */
    json_u64(j, "in_flight", d.in_flight);
    json_u64(j, "waiting", d.waiting);
    json_double(j, "oldest_wait_us", run_report_us(d.in_flight_oldest_ns), 1);
    json_array(j, "failed");
    for (unsigned k = 0; k < IOLAB_FAIL_NCALLS; k++)
        for (unsigned q = 0; q < IOLAB_FAIL_NCAUSES; q++) {
            uint64_t n = d.failed[k][q];
            if (!n)
                continue;
            json_object(j, NULL);
            json_string(j, "call", iolab_fail_call_name[k]);
            json_string(j, "cause", iolab_fail_cause_name[q]);
            json_u64(j, "count", n);
            json_end(j);
        }
    json_end(j);
    json_u64(j, "shed", d.shed);
    json_u64(j, "errors", d.errors);
    /* Of those errors, the connections the switch into this mode broke (not the mode's doing). */
    json_u64(j, "broken_by_switch", run_switch_breaks(seg, i));
    if (d.uring_enters || d.uring_submissions) {
        /* The demo's own count of its io_uring ring: the shim cannot see inside it. */
        json_object(j, "uring");
        json_string(j, "source", "demo");
        json_u64(j, "submissions", d.uring_submissions);
        json_u64(j, "completions", d.uring_completions);
        json_u64(j, "enters", d.uring_enters);
        json_end(j);
    }
    json_end(j);
    json_u64(j, "threads", seg->peak_threads[i]);
    json_u64(j, "processes", seg->peak_procs[i]);
    json_u64(j, "rss_bytes", d.rss_bytes);
    /* How fresh the /proc figures were at the segment's end (the sampler reads a slice a tick;
       a program's totals at its exit are the kernel's own, whatever the age). */
    json_double(j, "proc_age_s", d.proc_age_s, 3);
    json_u64(j, "proc_unread", d.proc_unread);
    json_end(j);
}

/* One segment's object; the verdicts of the step's checks go in when with_checks. */
static void run_report_json_segment(const struct run_report *r, struct json_out *j,
                                    const struct run_segment *seg, const struct run_problems *pr)
{
    const struct snapshot *a = &seg->first, *b = &seg->last;
    struct span sp;
    run_report_segment_span(seg, &sp);
    double dur = sp.seconds;
    json_object(j, NULL);
    json_string(j, "lesson", r->lesson->id);
    json_string(j, "step", r->step->id);
    json_string(j, "mode", seg->mode >= 0 ? r->sc->modes[seg->mode].id : NULL);
    /* Threads whose counts the page could not keep (0 when every count is exact): since start. */
    json_u64(j, "counts_lost", b->overflow_claims);
    json_double(j, "duration_s", dur, 3);
    /* started_s/ended_s: the segment on the run's clock, so the gap between two segments is
       the time a mode switch took until the new server was ready. */
    json_double(j, "started_s", a->elapsed_s, 3);
    json_double(j, "ended_s", b->elapsed_s, 3);
    /* /proc reads that failed while the mode ran: a process that ends between the listing and
       the read is normal; many of them say that some figures of that tick were not read. */
    json_u64(j, "proc_read_failures", seg->proc_read_failures);
    json_array(j, "processes");
    for (uint32_t i = 0; i < b->nprogs; i++)
        run_report_json_process(j, seg, i);
    json_end(j);
    /* The load's throughput and the client's latency, as the figure table has them. */
    const struct snapshot_figures *client = &b->roles[LESSON_ROLE_CLIENT];
    struct snapshot_latency lat;
    span_latency(&sp, &lat);
    double rate = 0, bytes_rate = 0;
    run_report_figure(FIGURE_BYTES_PER_S, &sp, LESSON_ROLE_SERVER, &bytes_rate);
    run_report_figure(FIGURE_REQUESTS_PER_S, &sp, LESSON_ROLE_SERVER, &rate);
    json_object(j, "throughput");
    json_double(j, "bytes_per_s", bytes_rate, 1);
    json_double(j, "requests_per_s", rate, 1);
    json_end(j);
    json_object(j, "latency_us");
    json_u64(j, "samples", lat.samples);
    json_u64(j, "waiting", sp.roles[LESSON_ROLE_CLIENT].waiting);
    json_double(j, "oldest_wait_us", run_report_us(client->in_flight_oldest_ns), 1);
    json_double(j, "p50", run_report_us(lat.p50_ns), 1);
    json_double(j, "p99", run_report_us(lat.p99_ns), 1);
    json_double(j, "p999", run_report_us(lat.p999_ns), 1);
    json_double(j, "max", run_report_us(lat.max_ns), 1);
    json_end(j);
    json_raw(j, "sandbox", r->sandbox && r->sandbox[0] ? r->sandbox : "null");
    if (pr) {
        grade_json(r->grader, j, "checks");
        grade_expect_json(r->grader, j, "expected");
        run_report_problems_json(pr, j);
    }
    json_end(j);
}

static void run_report_print_text_segment(const struct run_report *r, FILE *out,
                                          const struct run_segment *seg)
{
    const struct snapshot *a = &seg->first, *b = &seg->last;
    struct span sp;
    run_report_segment_span(seg, &sp);
    double dur = sp.seconds;
    char h[8][48];
    fprintf(out, "%s/%s", r->lesson->id, r->step->id);
    if (seg->mode >= 0)
        fprintf(out, " mode %s", r->sc->modes[seg->mode].id);
    fprintf(out, ": %.1f s measured\n", dur);
    for (uint32_t i = 0; i < b->nprogs; i++) {
        const struct snapshot_prog *p = &b->progs[i];
        struct snapshot_figures d; /* what grew in the segment */
        snapshot_figures_between(&a->progs[i].f, &p->f, &d);
        fprintf(out, "\n  %s (%s, pid %d): %u process%s, %u thread%s at most\n", p->name,
                lesson_role_name(p->role), p->pid, seg->peak_procs[i],
                seg->peak_procs[i] == 1 ? "" : "es", seg->peak_threads[i],
                seg->peak_threads[i] == 1 ? "" : "s");
        if (p->counts_forged)
            fprintf(out, "    counts: the program wrote values on its counter page that no "
                         "counting makes; the figures below are wrong\n");
        fprintf(out, "    %-16s %12s %12s %12s\n", "counted call", "count", "bytes",
                "time in call");
        for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
            uint64_t n = d.calls[c].count;
            if (n)
                fprintf(out, "    %-16s %12s %12s %12s%s\n", snapshot_call_label(c),
                        human_count(n, h[0], sizeof h[0]),
                        human_bytes((double)d.calls[c].bytes, h[1], sizeof h[1]),
                        human_ns((double)d.calls[c].ns, h[2], sizeof h[2]),
                        iolab_call_time_exact(c) ? "" : " ~");
        }
        uint64_t counted = 0;
        for (unsigned c = 0; c < IOLAB_NCALLS; c++)
            counted += d.calls[c].count;
        double sys_s = d.cpu_sys_s;
        if (p->counted == 0)
            fputs("    not counted (static binary?): only the kernel's figures below\n", out);
        else if (!counted && dur > 0 && sys_s >= SPAN_UNCOUNTED_SYS * dur)
            fprintf(out,
                    "    no counted call, yet %.2f s of system time (%.0f%% of a core): it makes "
                    "calls iolab does not count (`iolab list --json` lists those it does)\n",
                    sys_s, 100 * sys_s / dur);
        if (d.uring_enters || d.uring_submissions)
            fprintf(out,
                    "    io_uring, from the demo, not counted by the shim: %s io_uring_enter, "
                    "%s submissions, %s completions\n",
                    human_count(d.uring_enters, h[0], sizeof h[0]),
                    human_count(d.uring_submissions, h[1], sizeof h[1]),
                    human_count(d.uring_completions, h[2], sizeof h[2]));
        fprintf(out,
                "    cpu %.2f s user, %.2f s system; context switches %s voluntary, %s "
                "involuntary\n",
                d.cpu_user_s, d.cpu_sys_s, human_count(d.ctx_voluntary, h[0], sizeof h[0]),
                human_count(d.ctx_involuntary, h[1], sizeof h[1]));
        fprintf(
            out,
            "    kernel: syscr %s (counted reads %s), syscw %s (counted writes %s), %s "
            "from storage\n",
            human_count(d.syscr, h[0], sizeof h[0]), human_count(d.lib_reads, h[1], sizeof h[1]),
            human_count(d.syscw, h[2], sizeof h[2]), human_count(d.lib_writes, h[3], sizeof h[3]),
            human_bytes((double)d.read_bytes, h[4], sizeof h[4]));
    }
    const struct snapshot_figures *fb = &b->roles[LESSON_ROLE_CLIENT];
    struct snapshot_latency lat;
    span_latency(&sp, &lat);
    double rate = 0, bytes_rate = 0;
    run_report_figure(FIGURE_REQUESTS_PER_S, &sp, LESSON_ROLE_SERVER, &rate);
    run_report_figure(FIGURE_BYTES_PER_S, &sp, LESSON_ROLE_SERVER, &bytes_rate);
    fprintf(out, "\n  throughput: %s %s/s, %s/s\n", human_si(rate, h[0], sizeof h[0]),
            r->sc->unit ? r->sc->unit : "requests", human_bytes(bytes_rate, h[1], sizeof h[1]));
    if (lat.samples)
        fprintf(out, "  latency: p50 %s, p99 %s, p99.9 %s, max %s\n",
                human_ns((double)lat.p50_ns, h[0], sizeof h[0]),
                human_ns((double)lat.p99_ns, h[1], sizeof h[1]),
                human_ns((double)lat.p999_ns, h[2], sizeof h[2]),
                human_ns((double)lat.max_ns, h[3], sizeof h[3]));
    if (fb->waiting)
        fprintf(out,
                "  waiting: %s client%s still waiting for an answer (100 ms or more) at the "
                "end, the oldest for %s;\n"
                "           the latency counts each as long as it waited, at the pace of the "
                "answered\n",
                human_count(fb->waiting, h[0], sizeof h[0]), fb->waiting == 1 ? "" : "s",
                human_ns((double)fb->in_flight_oldest_ns, h[1], sizeof h[1]));
}

/* Several modes: one table with a column per mode, the figures a lesson compares. */
static void run_report_print_side_by_side(const struct run_report *r, FILE *out)
{
    const struct run_segment *segs[RUN_MAX_MODES];
    size_t n = 0;
    for (size_t i = 0; i < r->nsegments; i++)
        if (r->segments[i].started)
            segs[n++] = &r->segments[i];
    if (n < 2)
        return;
    const struct lesson_program *study = r->sc->study >= 0 ? &r->sc->programs[r->sc->study] : NULL;
    enum lesson_role srole = study ? study->role : LESSON_ROLE_SERVER;
    char label[64];
    fprintf(out, "side by side (each mode over its own segment):\n  %-24s", "");
    for (size_t k = 0; k < n; k++)
        fprintf(out, " %12.12s", r->sc->modes[segs[k]->mode].id);
    fputc('\n', out);
    enum { SBS_RATE, SBS_BYTES, SBS_CALLS, SBS_CTX, SBS_CPU, SBS_P50, SBS_P99, SBS_WAIT, SBS_N };
    for (int row = 0; row < SBS_N; row++) {
        static const char *const names[SBS_N] = {
            [SBS_RATE] = NULL,
            [SBS_BYTES] = "bytes/s",
            [SBS_CALLS] = NULL,
            [SBS_CTX] = "context switches/req",
            [SBS_CPU] = "cpu, % of a core",
            [SBS_P50] = "latency p50",
            [SBS_P99] = "latency p99",
            [SBS_WAIT] = "clients waiting at end",
        };
        if (row == SBS_RATE)
            snprintf(label, sizeof label, "%s/s", r->sc->unit ? r->sc->unit : "requests");
        else if (row == SBS_CALLS)
            snprintf(label, sizeof label, "%s counted calls/req", study ? study->name : "server");
        else
            snprintf(label, sizeof label, "%s", names[row]);
        fprintf(out, "  %-24s", label);
        for (size_t k = 0; k < n; k++) {
            const struct run_segment *seg = segs[k];
            struct span sp;
            run_report_segment_span(seg, &sp);
            const struct span_role *client = &sp.roles[LESSON_ROLE_CLIENT];
            double x;
            char v[48] = "-";
            switch (row) {
            case SBS_RATE:
                if (run_report_figure(FIGURE_REQUESTS_PER_S, &sp, srole, &x))
                    human_si(x, v, sizeof v);
                break;
            case SBS_BYTES:
                if (run_report_figure(FIGURE_BYTES_PER_S, &sp, srole, &x))
                    human_bytes(x, v, sizeof v);
                break;
            case SBS_CALLS: {
                /* No counted call while the role burned system time: its calls are ones iolab
                   does not count, and 0.00 would be a figure for what was not measured. */
                if (span_role_uncounted(&sp, srole))
                    snprintf(v, sizeof v, "uncounted");
                else if (run_report_figure(FIGURE_ALL_CALLS_PER_REQ, &sp, srole, &x))
                    snprintf(v, sizeof v, "%.2f", x);
                break;
            }
            case SBS_CTX:
                if (run_report_figure(FIGURE_CTX_PER_REQ, &sp, srole, &x))
                    snprintf(v, sizeof v, "%.2f", x);
                break;
            case SBS_CPU:
                if (run_report_figure(FIGURE_CPU_PCT, &sp, srole, &x))
                    snprintf(v, sizeof v, "%.0f%%", x);
                break;
            case SBS_WAIT:
                human_count(client->waiting, v, sizeof v);
                break;
            default:
                if (run_report_figure(row == SBS_P50 ? FIGURE_P50_MS : FIGURE_P99_MS, &sp, srole,
                                      &x))
                    figure_format(row == SBS_P50 ? FIGURE_P50_MS : FIGURE_P99_MS, x, v, sizeof v);
                break;
            }
            fprintf(out, " %12s", v);
        }
        fputc('\n', out);
    }
    fputc('\n', out);
}

/* The verdicts of the step's checks, one line each, for the text output. */
static void run_report_print_checks(const struct run_report *r, FILE *out)
{
    if (r->sc->nexpects)
        fprintf(out, "what the lesson expects:\n");
    for (size_t i = 0; i < r->sc->nexpects; i++) {
        char msg[512];
        struct expect_verdict v = grade_expect(r->grader, i, msg, sizeof msg);
        fprintf(out, "  [%s] %s: %s\n",
                v.state == EXPECT_AGREES    ? "ok"
                : v.state == EXPECT_DIFFERS ? "!!"
                                            : "..",
                r->sc->expects[i].text, msg);
    }
    if (!r->sc->nchecks)
        return;
    size_t unjudged = grade_count(r->grader, GRADE_UNJUDGED);
    fprintf(out, "checks (%zu of %zu hold", grade_count(r->grader, GRADE_PASS), r->sc->nchecks);
    if (unjudged)
        fprintf(out, ", %zu not judged", unjudged);
    fprintf(out, "):\n");
    for (size_t i = 0; i < r->sc->nchecks; i++) {
        char msg[256];
        grade_message(r->grader, i, msg, sizeof msg);
        fprintf(out, "  [%s] %s: %s\n", grade_state_tag(grade_state(r->grader, i)),
                r->sc->checks[i].text, msg);
    }
}

void run_report_print(const struct run_report *r, const struct run_problems *pr, bool json)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nsegments; i++)
        n += r->segments[i].started;
    if (json) {
        struct json_out j;
        json_init(&j, stdout);
        /* One mode: the segment's object with the verdicts in it; several: a list of them and
           the verdicts beside it, since the checks judge the whole run. */
        bool multi = r->nsegments > 1;
        if (multi || n == 0) {
            json_object(&j, NULL);
            json_array(&j, "modes");
        }
        for (size_t i = 0; i < r->nsegments; i++)
            if (r->segments[i].started)
                run_report_json_segment(r, &j, &r->segments[i], multi ? NULL : pr);
        if (multi || n == 0) {
            json_end(&j);
            grade_json(r->grader, &j, "checks");
            grade_expect_json(r->grader, &j, "expected");
            run_report_problems_json(pr, &j);
            json_end(&j);
        }
        fputc('\n', stdout);
    } else {
        /* Program names, mode ids, checks and the programs' last words are the pack's and the
           programs' text: the whole report goes through the escaping stream. */
        FILE *out = termsafe_open(stdout);
        if (!out) {
            cmd_error("out of memory.");
            return;
        }
        for (size_t i = 0; i < r->nsegments; i++)
            if (r->segments[i].started) {
                run_report_print_text_segment(r, out, &r->segments[i]);
                fputc('\n', out);
            }
        run_report_print_side_by_side(r, out);
        fputs("time in call: wall time the program's threads spent inside the call, counted "
              "by the shim;\n~: sampled, estimated from about one call in 16 timed (the calls "
              "that wait are all timed);\nsyscr/syscw: the kernel's own counts of read-family and "
              "write-family calls, set beside\nthe counted calls it counts the same way.\n\n",
              out);
        run_report_print_checks(r, out);
        if (pr->n)
            fputs("problems (the run was not clean):\n", out);
        for (size_t i = 0; i < pr->n; i++)
            fprintf(out, "  %s\n", pr->v[i]);
        fclose(out);
    }
    fflush(stdout);
}
