/*
 * counterview: the counters pane and the comparison view, drawn from the latest snapshot copy
 * (tui.snap). Per role: CPU user vs system, context switches, processes and threads; the
 * kernel's syscr/syscw beside the library-level counts with a mark where they disagree; a table
 * of calls by name, the calls the step watches first (a compact list when the table has no room
 * for all of them). Under the roles: client throughput over the last minute as a sparkline and
 * latency percentiles, each only once the client has published it. The comparison view has one
 * row per mode tried in this session, every one of them shown at 80x24 (cvlayout.c decides).
 */
#include "counterview.h"
#include "cvlayout.h"
#include "human.h"
#include "metrics/figure.h"
#include "widgets.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The library count and the kernel's disagree by more than noise (1%, at least 2 calls). */
static bool counterview_disagree(uint64_t kernel, uint64_t lib)
{
    uint64_t d = kernel > lib ? kernel - lib : lib - kernel;
    uint64_t big = kernel > lib ? kernel : lib;
    return d > 2 && d * 100 > big;
}

/* The calls of one role to list, with their counts since the base (the mode's start): the
   calls the step names first (nwatched of them), then the busiest. */
struct counterview_calls {
    unsigned id[IOLAB_NCALLS];
    uint64_t count[IOLAB_NCALLS];
    size_t n, nwatched;
};

static void counterview_calls(const struct snapshot_figures *f, const struct snapshot_figures *base,
                              const unsigned *watch, size_t nwatch, struct counterview_calls *out)
{
    struct span_role d;
    span_role_between(base, f, &d);
    const uint64_t *count = d.calls;
    double rate[IOLAB_NCALLS];
    for (unsigned i = 0; i < IOLAB_NCALLS; i++)
        rate[i] = f->calls[i].count_rate;
    out->n = cvlayout_order(count, rate, IOLAB_NCALLS, watch, nwatch, out->id, &out->nwatched);
    for (size_t k = 0; k < out->n; k++)
        out->count[k] = count[out->id[k]];
}

/*
 * Where one call's counts since the base went, by kind of descriptor: "file 1,000  socket 24",
 * or for a call between two descriptors "file>socket 10". Empty when the call is not split.
 */
static void counterview_split(const struct snapshot_figures *f, const struct snapshot_figures *base,
                              unsigned call, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    struct span_role sp;
    span_role_between(base, f, &sp);
    int one = iolab_split_one_index(call), two = iolab_split_two_index(call);
    for (int k = 0; k < IOLAB_NFDKINDS && (one >= 0 || two >= 0); k++)
        for (int t = 0; t < (two >= 0 ? IOLAB_NFDKINDS : 1); t++) {
            uint64_t d = one >= 0 ? sp.fd.one[one][k] : sp.fd.two[two][k][t];
            char num[32];
            if (!d || n + 1 >= len)
                continue;
            int w = two >= 0 ? snprintf(buf + n, len - n, "%s%s>%s %s", n ? "  " : "",
                                        iolab_fd_kind_name[k], iolab_fd_kind_name[t],
                                        human_count(d, num, sizeof num))
                             : snprintf(buf + n, len - n, "%s%s %s", n ? "  " : "",
                                        iolab_fd_kind_name[k], human_count(d, num, sizeof num));
            n += w > 0 && (size_t)w < len - n ? (size_t)w : len - n - 1;
        }
}

/* "injected: 312 short writes  5 EINTR" since the base, or "" when no fault was injected. */
static void counterview_faults(const struct snapshot_figures *f,
                               const struct snapshot_figures *base, char *buf, size_t len)
{
    static const char *const words[IOLAB_NFAULTS] = {
        [IOLAB_FAULT_SHORT_READ] = "short reads",
        [IOLAB_FAULT_SHORT_WRITE] = "short writes",
        [IOLAB_FAULT_EINTR] = "EINTR",
        [IOLAB_FAULT_EAGAIN] = "EAGAIN",
    };
    size_t n = 0;
    buf[0] = '\0';
    struct span_role sp;
    span_role_between(base, f, &sp);
    for (int i = 0; i < IOLAB_NFAULTS && n + 1 < len; i++) {
        uint64_t d = sp.fd.faults[i];
        char num[32];
        if (!d)
            continue;
        int w = snprintf(buf + n, len - n, "%s%s %s",
                         n ? "  " : "faults injected: ", human_count(d, num, sizeof num), words[i]);
        n += w > 0 && (size_t)w < len - n ? (size_t)w : len - n - 1;
    }
}

/*
 * The call table's columns, in the order they are dropped when the pane is narrow: names are
 * never cut for a column's sake.
 */
enum { CV_COL_CALLS, CV_COL_RATE, CV_COL_BYTES, CV_COL_SHARE, CV_COL_BUSY, CV_NCOLS };
static const struct {
    const char *head;
    int w;
} counterview_cols[CV_NCOLS] = {
    [CV_COL_CALLS] = {"calls", 11},   [CV_COL_RATE] = {"calls/s", 9},
    [CV_COL_BYTES] = {"bytes/s", 10}, [CV_COL_SHARE] = {"share", 6},
    [CV_COL_BUSY] = {"busy", 6},
};
static const int counterview_drop_order[CV_NCOLS] = {CV_COL_BUSY, CV_COL_SHARE, CV_COL_BYTES,
                                                     CV_COL_CALLS, CV_COL_RATE};
#define CV_NAME_W 16

/* The sampler's rate of the snapshot being drawn, for the age marks of counterview_role(). */
static double counterview_tick_hz = 10;

void counterview_age(char *buf, size_t len, const struct snapshot_figures *f, double tick_hz)
{
    /* Half a tick of slack: a figure read at the start of the last tick is not stale. */
    double tick = tick_hz > 0 ? 1.0 / tick_hz : 0.1;
    int n = 0;
    buf[0] = '\0';
    if (f->proc_age_s > 1.5 * tick)
        n = snprintf(buf, len, "  oldest %.1f s", f->proc_age_s);
    if (f->proc_unread && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, "  %u unread", f->proc_unread);
}

/*
 * The io_uring line, when a program publishes ring figures: the demo counts its own submissions,
 * completions and io_uring_enter() calls (since the mode started, like the calls table), since
 * the operations inside a ring pass no function the shim wraps. The label says so. Returns
 * whether there was anything to show.
 */
static bool counterview_uring(const struct screen_caps *c, const struct snapshot *s,
                              const struct snapshot *base, int x, int y, int w)
{
    uint64_t sub = 0, comp = 0, ent = 0;
    for (int r = 0; r < LESSON_NROLES; r++) {
        struct span_role d;
        span_role_between(base ? &base->roles[r] : NULL, &s->roles[r], &d);
        sub += d.uring_submissions;
        comp += d.uring_completions;
        ent += d.uring_enters;
    }
    if (!sub && !ent)
        return false;
    char a[32], bb[32], cc[32];
    widgets_printf(c, x, y, w, A_NORMAL,
                   "io_uring, from the demo, not counted by the shim: %s io_uring_enter, %s "
                   "submitted, %s completed",
                   widgets_si_fixed((double)ent, a, sizeof a),
                   widgets_si_fixed((double)sub, bb, sizeof bb),
                   widgets_si_fixed((double)comp, cc, sizeof cc));
    return true;
}

/* A call as the compact list shows it: "epoll_wait 12.4k/s", or "accept 8 calls" when it
   makes none now. */
static int counterview_item(char *buf, size_t len, unsigned call, uint64_t count,
                            const struct snapshot_call *sc)
{
    char v[32];
    if (sc->count_rate > 0 && sc->count_rate < 10)
        snprintf(v, sizeof v, "%.1f/s", sc->count_rate);
    else if (sc->count_rate > 0)
        snprintf(v + strlen(widgets_si_fixed(sc->count_rate, v, sizeof v - 2)), 3, "/s");
    else
        snprintf(v, sizeof v, "%llu call%s", (unsigned long long)count, count == 1 ? "" : "s");
    int n = snprintf(buf, len, "%s %s", snapshot_call_label(call), v);
    return n < 0 ? 0 : n >= (int)len ? (int)len - 1 : n;
}

/*
 * The calls as a compact list, several on a line, when the table has too few rows for the calls
 * the step names: "accept 8 calls  epoll_wait 12.4k/s  read 44.6k/s". The named calls come
 * first, in bold; the others follow as far as the lines go. Returns the rows used.
 */
static int counterview_call_list(const struct screen_caps *c, const struct snapshot_figures *f,
                                 const struct counterview_calls *calls, int x, int y, int w,
                                 int lines)
{
    char text[IOLAB_NCALLS][64];
    int iw[IOLAB_NCALLS];
    for (size_t k = 0; k < calls->n; k++)
        iw[k] = counterview_item(text[k], sizeof text[k], calls->id[k], calls->count[k],
                                 &f->calls[calls->id[k]]);
    size_t fit = cvlayout_pack(iw, calls->n, w - 2, 2, lines);
    size_t k = 0;
    int row = 0;
    for (; row < lines && k < fit; row++) {
        size_t on = cvlayout_pack(iw + k, fit - k, w - 2, 2, 1);
        int cx = x + 2;
        for (size_t j = 0; j < on; j++, k++) {
            const struct snapshot_call *sc = &f->calls[calls->id[k]];
            attr_t a = k < calls->nwatched  ? A_BOLD
                       : sc->count_rate > 0 ? A_NORMAL
                                            : screen_attr(SCREEN_DIM);
            cx += widgets_text(c, cx, y + row, x + w - cx, a, text[k]) + 2;
        }
    }
    return row;
}

/* The kernel's read and write counts beside the library's, like with like over the same span. */
static void counterview_kernel(const struct screen_caps *c, const struct snapshot_figures *f,
                               const struct snapshot_figures *base, int x, int y, int w)
{
    char a[32], b[32], d[32], e[32];
    int row = 0;
    struct span_role sp;
    span_role_between(base, f, &sp);
    uint64_t kr = sp.syscr, kw = sp.syscw, lr = sp.lib_reads, lw = sp.lib_writes;
    /* A process of the role not read from /proc yet is in none of the kernel's sums: until the
       first one is, the kernel's counts are not known, and a 0 would be a number never measured. */
    bool unread = f->proc_unread > 0 && kr == 0 && kw == 0;
    bool rd = !unread && counterview_disagree(kr, lr), wr = !unread && counterview_disagree(kw, lw);
    int cx = x;
    cx += widgets_printf(c, cx, y + row, w, screen_attr(SCREEN_DIM),
                         "       kernel syscr %s vs library %s ",
                         unread ? "-" : widgets_si_fixed((double)kr, a, sizeof a),
                         widgets_si_fixed((double)lr, b, sizeof b));
    cx += widgets_text(c, cx, y + row, x + w - cx, screen_attr(rd ? SCREEN_BAD : SCREEN_GOOD),
                       rd ? c->g->mismatch : "=");
    cx += widgets_printf(c, cx, y + row, x + w - cx, screen_attr(SCREEN_DIM),
                         "   syscw %s vs library %s ",
                         unread ? "-" : widgets_si_fixed((double)kw, d, sizeof d),
                         widgets_si_fixed((double)lw, e, sizeof e));
    cx += widgets_text(c, cx, y + row, x + w - cx, screen_attr(wr ? SCREEN_BAD : SCREEN_GOOD),
                       wr ? c->g->mismatch : "=");
    /* Storage reads are the page cache's misses: the proof that a "cold" read was cold. */
    widgets_printf(c, cx, y + row, x + w - cx, screen_attr(SCREEN_DIM), "   disk %s/s",
                   widgets_si_fixed(f->read_bytes_rate, d, sizeof d));
}

/* The calls as a table from row `row` of the block: a heading, then a row per call (and one for
   where a read or write call's counts went, while rows remain for every named call). Returns
   the next row. */
static int counterview_table(const struct screen_caps *c, const struct snapshot_figures *f,
                             const struct snapshot_figures *base,
                             const struct counterview_calls *calls, int x, int y, int w, int row,
                             int h)
{
    bool col[CV_NCOLS];
    int need = 2 + CV_NAME_W;
    for (int k = 0; k < CV_NCOLS; k++) {
        col[k] = true;
        need += 1 + counterview_cols[k].w;
    }
    for (int k = 0; k < CV_NCOLS - 1 && need > w; k++) {
        col[counterview_drop_order[k]] = false;
        need -= 1 + counterview_cols[counterview_drop_order[k]].w;
    }
    char line[256];
    int n = snprintf(line, sizeof line, "  %-*s", CV_NAME_W, "counted call");
    for (int k = 0; k < CV_NCOLS; k++)
        if (col[k])
            n += snprintf(line + n, sizeof line - (size_t)n, " %*s", counterview_cols[k].w,
                          counterview_cols[k].head);
    widgets_text(c, x, y + row, w, A_BOLD, line);
    if (++row >= h)
        return row;
    for (size_t k = 0; k < calls->n && row < h; k++, row++) {
        const struct snapshot_call *sc = &f->calls[calls->id[k]];
        char v[CV_NCOLS][32];
        snprintf(v[CV_COL_CALLS], sizeof v[0], "%llu", (unsigned long long)calls->count[k]);
        if (sc->count_rate > 0 && sc->count_rate < 10)
            snprintf(v[CV_COL_RATE], sizeof v[0], "%.1f", sc->count_rate);
        else
            widgets_si_fixed(sc->count_rate, v[CV_COL_RATE], sizeof v[0]);
        if (sc->bytes_rate > 0)
            widgets_bytes_fixed(sc->bytes_rate, v[CV_COL_BYTES], sizeof v[0]);
        else
            snprintf(v[CV_COL_BYTES], sizeof v[0], "-");
        snprintf(v[CV_COL_SHARE], sizeof v[0], "%.1f%%", sc->share * 100);
        /* "~": estimated from the sampled calls' time (every call that waits is timed). */
        snprintf(v[CV_COL_BUSY], sizeof v[0], "%.2f%s", sc->busy,
                 iolab_call_time_exact(calls->id[k]) ? " " : "~");
        n = snprintf(line, sizeof line, "  %-*s", CV_NAME_W, snapshot_call_label(calls->id[k]));
        for (int j = 0; j < CV_NCOLS; j++)
            if (col[j])
                n += snprintf(line + n, sizeof line - (size_t)n, " %*s", counterview_cols[j].w,
                              v[j]);
        widgets_text(c, x, y + row, w,
                     k < calls->nwatched  ? A_BOLD
                     : sc->count_rate > 0 ? A_NORMAL
                                          : screen_attr(SCREEN_DIM),
                     line);
        /* The read and write families on a line of their own: which descriptors they used,
           when that leaves a row for each named call still to come. */
        size_t named_left = k + 1 < calls->nwatched ? calls->nwatched - k - 1 : 0;
        counterview_split(f, base, calls->id[k], line, sizeof line);
        if (line[0] && row + 1 < h && (size_t)(h - row - 2) >= named_left)
            widgets_printf(c, x, y + ++row, w, screen_attr(SCREEN_DIM), "    on %s", line);
    }
    return row;
}

/* Under the calls: the faults injected, or why there is no call to list. Returns the rows. */
static int counterview_role_end(const struct screen_caps *c, const struct snapshot_figures *f,
                                const struct snapshot_figures *base,
                                const struct counterview_calls *calls, int x, int y, int w, int row,
                                int h)
{
    char line[256];
    counterview_faults(f, base, line, sizeof line);
    if (line[0] && row < h)
        widgets_text(c, x + 2, y + row++, w - 2, screen_attr(SCREEN_BAD), line);
    /* Time in the kernel with no counted call is calls iolab does not count (or a program it
       cannot see): said in those words, so that an empty table never reads as "no calls". */
    if (calls->n == 0 && row < h && !f->uncounted && f->cpu_sys_pct >= 100 * SPAN_UNCOUNTED_SYS)
        widgets_printf(c, x + 2, y + row++, w - 2, screen_attr(SCREEN_BAD),
                       "no counted call, yet %.0f%% system CPU: it makes calls iolab does not "
                       "count (iolab list --json lists those it does)",
                       f->cpu_sys_pct);
    else if (calls->n == 0 && row < h)
        widgets_text(c, x + 2, y + row++, w - 2, screen_attr(SCREEN_DIM),
                     f->uncounted ? "not counted (static binary?): the kernel's totals are above"
                     : base       ? "no calls counted in this mode yet"
                                  : "no calls counted yet");
    return row;
}

/* One role's block; returns the rows used. The calls of watch (the step's) are listed first,
   and all of them are shown whenever the block has a few rows. */
static int counterview_role(const struct screen_caps *c, const struct snapshot_figures *f,
                            const struct snapshot_figures *base, const char *name,
                            const unsigned *watch, size_t nwatch, int x, int y, int w, int h)
{
    char a[32], b[32];
    int row = 0;
    if (h <= 0)
        return 0;
    /* The header in full where it fits; else shorter, threads and processes before the
       context switches: a step watches threads (c10k), and what a narrow pane cuts is the end. */
    char head[160];
    widgets_si_fixed(f->ctx_voluntary_rate + f->ctx_involuntary_rate, a, sizeof a);
    widgets_si_fixed(f->ctx_voluntary_rate, b, sizeof b);
    int hn = snprintf(head, sizeof head,
                      "%-6s cpu %5.1f%% user %5.1f%% sys  ctx/s %s (%s vol)  procs %u  threads %u",
                      name, f->cpu_user_pct, f->cpu_sys_pct, a, b, f->nprocs, f->nthreads);
    if (hn > w)
        snprintf(head, sizeof head,
                 "%s cpu %.0f%% user %.0f%% sys threads %u procs %u ctx/s %s (%s vol)", name,
                 f->cpu_user_pct, f->cpu_sys_pct, f->nthreads, f->nprocs, a, b);
    int hx = x + widgets_text(c, x, y + row, w, screen_attr(SCREEN_HEADING), head);
    /* Past a hundred or so processes and threads the sampler reads a slice a tick: say how
       old the oldest /proc figure is when it is older than a tick (the legend explains). */
    char age[48];
    counterview_age(age, sizeof age, f, counterview_tick_hz);
    if (age[0] && hx < x + w)
        widgets_text(c, hx, y + row, x + w - hx, screen_attr(SCREEN_BAD), age);
    if (++row >= h)
        return row;
    struct counterview_calls calls;
    counterview_calls(f, base, watch, nwatch, &calls);
    /* The table has a row per call under its heading; when that leaves out a call the step
       names, the calls go on a compact list instead, and if even that is too long for the rows
       under the kernel's counts, the list takes their row too. */
    int iw[IOLAB_NCALLS];
    char item[64];
    for (size_t k = 0; k < calls.nwatched; k++)
        iw[k] = counterview_item(item, sizeof item, calls.id[k], calls.count[k],
                                 &f->calls[calls.id[k]]);
    bool compact = h - row - 2 < (int)calls.nwatched;
    bool kernel = !compact || cvlayout_pack_rows(iw, calls.nwatched, w - 2, 2) <= h - row - 1;
    if (kernel) {
        counterview_kernel(c, f, base, x, y + row, w);
        if (++row >= h)
            return row;
    }
    /* The faults a lesson injects are what its step is about: their row is kept under the
       calls, whose table gives up its last row for it rather than push it off the block. */
    char faults[256];
    counterview_faults(f, base, faults, sizeof faults);
    int hc = faults[0] && h - row > 2 ? h - 1 : h;
    if (compact)
        row += counterview_call_list(c, f, &calls, x, y + row, w, hc - row);
    else
        row = counterview_table(c, f, base, &calls, x, y, w, row, hc);
    return counterview_role_end(c, f, base, &calls, x, y, w, row, h);
}

/*
 * The failures the programs published (a limit reached: a connection shed or refused), as one
 * line: "limit reached: server fork 37x (processes), accept 5x (open files); 5 shed". 0 when none.
 */
static int counterview_failures(const struct snapshot *s, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < s->nprogs; i++) {
        const struct snapshot_figures *f = &s->progs[i].f;
        if (!f->failed_total && !f->shed)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%s",
                                 used ? "; " : "limit reached: ", s->progs[i].name);
        for (unsigned k = 0; k < IOLAB_FAIL_NCALLS && used < len; k++)
            for (unsigned q = 0; q < IOLAB_FAIL_NCAUSES && used < len; q++)
                if (f->failed[k][q])
                    used += (size_t)snprintf(
                        buf + used, len - used, " %s %llux (%s)", iolab_fail_call_name[k],
                        (unsigned long long)f->failed[k][q], iolab_fail_cause_name[q]);
        if (f->shed && used < len)
            used += (size_t)snprintf(buf + used, len - used, ", %llu shed",
                                     (unsigned long long)f->shed);
        if (used >= len)
            break;
    }
    return buf[0] != '\0';
}

/*
 * Why the latency line has no figure: the load has completed requests all along and timed none
 * (its requests carry no timing: a chat bot's messages), it timed some but none in the last few
 * seconds, or nothing was timed yet.
 */
static const char *counterview_no_latency(const struct snapshot *s, const char *unit)
{
    static char buf[96];
    uint64_t timed = 0;
    for (unsigned k = 0; k < IOLAB_HIST_BUCKETS; k++)
        timed += s->latency_hist[LESSON_ROLE_CLIENT][k];
    if (timed)
        snprintf(buf, sizeof buf, "latency: none timed in the last %d s", SNAPSHOT_RECENT_S);
    else if (s->roles[LESSON_ROLE_CLIENT].requests)
        snprintf(buf, sizeof buf, "latency: this load times no %s", unit);
    else
        snprintf(buf, sizeof buf, "latency: none measured yet");
    return buf;
}

/* The client's latency line of the counters pane at (x, y), w wide: p50 and p99 of the last
   seconds, and the clients still waiting, the oldest drawn as bad from a second on. */
static void counterview_latency_line(const struct screen_caps *c, int x, int y, int w,
                                     const struct snapshot_figures *cl, const char *unit)
{
    const struct snapshot_latency *lat = &cl->latency_recent;
    char p50[32], p99[32], oldest[32];
    /* In full where it fits; else shorter, with the clients waiting (0 too) before how old
       the oldest is, so that a narrow pane still shows them: c10k asks the learner to watch
       them, and they come and go from one sample to the next. */
    char line[192];
    int n =
        cl->waiting
            ? snprintf(line, sizeof line,
                       "latency p50 %s  p99 %s  (last %d s; %llu waiting, oldest %s)",
                       widgets_ns_fixed((double)lat->p50_ns, p50, sizeof p50),
                       widgets_ns_fixed((double)lat->p99_ns, p99, sizeof p99), SNAPSHOT_RECENT_S,
                       (unsigned long long)cl->waiting,
                       widgets_ns_fixed((double)cl->in_flight_oldest_ns, oldest, sizeof oldest))
            : snprintf(line, sizeof line, "latency p50 %s  p99 %s  (last %d s, %llu %s)",
                       widgets_ns_fixed((double)lat->p50_ns, p50, sizeof p50),
                       widgets_ns_fixed((double)lat->p99_ns, p99, sizeof p99), SNAPSHOT_RECENT_S,
                       (unsigned long long)lat->samples, unit ? unit : "requests");
    if (n > w) {
        n = snprintf(line, sizeof line, "latency p50 %s p99 %s; %llu waiting",
                     human_ns((double)lat->p50_ns, p50, sizeof p50),
                     human_ns((double)lat->p99_ns, p99, sizeof p99),
                     (unsigned long long)cl->waiting);
        if (cl->waiting && n > 0 && (size_t)n < sizeof line)
            snprintf(line + n, sizeof line - (size_t)n, ", oldest %s",
                     human_ns((double)cl->in_flight_oldest_ns, oldest, sizeof oldest));
    }
    widgets_text(c, x, y, w,
                 cl->waiting && cl->in_flight_oldest_ns >= 1000000000u ? screen_attr(SCREEN_BAD)
                                                                       : A_NORMAL,
                 line);
}

/*
 * How many of the connections it keeps the load holds now, from its own count (connections
 * established less those closed, published on its counter page), so that a server switched
 * under it says at once whether it holds them all: "connections held 10,000 of 10,000", or
 * "connections held 4,306 of 10,000 (5,694 short)" while it reconnects. Returns how many it
 * holds.
 */
static uint64_t counterview_conns(const struct snapshot_figures *cl, uint64_t want, char *buf,
                                  size_t len)
{
    uint64_t open = cl->conns_opened > cl->conns_closed ? cl->conns_opened - cl->conns_closed : 0;
    char held[32], of[32], shortn[32];
    human_count(open, held, sizeof held);
    human_count(want, of, sizeof of);
    if (open >= want)
        snprintf(buf, len, "connections held %s of %s", held, of);
    else
        snprintf(buf, len, "connections held %s of %s (%s short)", held, of,
                 human_count(want - open, shortn, sizeof shortn));
    return open;
}

/* The pane's title: what its counts are since (a mode's start, or the scenario's). */
static const char *counterview_title(const struct counterview_in *vin, char *title, size_t len)
{
    snprintf(title, len, "Counters: %s%s", vin->base ? "calls since " : "totals since the start",
             vin->base ? (vin->mode_name ? vin->mode_name : "the start") : "");
    if (vin->base)
        strncat(title, vin->mode_name ? " started (t: totals)" : " (t: totals)",
                len - strlen(title) - 1);
    return title;
}

void counterview_draw(const struct screen_caps *c, struct layout_rect r, bool focused,
                      const struct counterview_in *vin)
{
    const struct snapshot *s = vin->s;
    char title[96];
    struct layout_rect in = widgets_box(c, r, counterview_title(vin, title, sizeof title), focused);
    if (!s) {
        widgets_text(c, in.x + 1, in.y, in.w - 2, screen_attr(SCREEN_DIM),
                     vin->started ? "Waiting for the first sample..."
                                  : "Enter starts the scenario; the counters appear here.");
        return;
    }
    int x = in.x + 1, w = in.w - 2;
    counterview_tick_hz = s->tick_hz;
    const struct snapshot_figures *cl = &s->roles[LESSON_ROLE_CLIENT];
    /* A figure the client never published in this scenario has no meaning here (a reader that
       completes no requests): its line is left out rather than read as a zero. */
    bool has_req = cl->requests > 0, has_bytes = cl->app_bytes > 0;
    for (size_t i = 0; i < s->history_len && i < SNAPSHOT_HISTORY; i++) {
        has_req |= s->history_requests[i] > 0;
        has_bytes |= s->history_bytes[i] > 0;
    }
    const struct snapshot_latency *lat = &cl->latency_recent;
    bool has_lat = has_req || lat->samples || cl->waiting;
    /* The connections the load holds: a line where the step is about holding them. */
    bool has_conns = vin->conns_want > 0;
    /* The throughput lines, the connections, latency, where the numbers come from. */
    int bottom = has_req + has_bytes + has_conns + has_lat + 1;
    int avail = in.h - bottom;
    int y = in.y;
    const struct snapshot *b = vin->base;
    /* A role the step has no program of gets no block. The server's table gets the larger share
       when both are there: it is what the modes change. */
    bool srv = vin->has_role[LESSON_ROLE_SERVER], cli = vin->has_role[LESSON_ROLE_CLIENT];
    if (srv) {
        int hs = cli ? avail * 11 / 20 : avail;
        y += counterview_role(
            c, &s->roles[LESSON_ROLE_SERVER], b ? &b->roles[LESSON_ROLE_SERVER] : NULL,
            lesson_role_name(LESSON_ROLE_SERVER), vin->watch, vin->nwatch, x, y, w, hs);
        y++;
    }
    if (cli)
        counterview_role(c, &s->roles[LESSON_ROLE_CLIENT], b ? &b->roles[LESSON_ROLE_CLIENT] : NULL,
                         lesson_role_name(LESSON_ROLE_CLIENT), vin->watch, vin->nwatch, x, y, w,
                         in.y + avail - y);

    char label[48];
    int yb = in.y + in.h - bottom;
    /* Sparklines over the last minute, one column per second, after aligned labels. */
    snprintf(label, sizeof label, "%s/s", vin->unit ? vin->unit : "requests");
    /* At a low rate the count itself says more than a rate: "2.0, 3 in 1.5 s". */
    char rate[64];
    double win = s->rate_window_s;
    if (cl->requests_rate > 0 && cl->requests_rate < 10 && win > 0)
        snprintf(rate, sizeof rate, "%.1f, %.0f in %.1f s", cl->requests_rate,
                 cl->requests_rate * win, win);
    else
        widgets_si_fixed(cl->requests_rate, rate, sizeof rate);
    /* No load completed in the rate's window, yet some did since the mode started (a few
       requests, then a pause): "0" alone would read as nothing done, so the count says it. */
    const struct snapshot_figures *bcl = vin->base ? &vin->base->roles[LESSON_ROLE_CLIENT] : NULL;
    uint64_t done = cl->requests - (bcl && bcl->requests <= cl->requests ? bcl->requests : 0);
    uint64_t moved = cl->app_bytes - (bcl && bcl->app_bytes <= cl->app_bytes ? bcl->app_bytes : 0);
    char brate[48];
    widgets_bytes_fixed(cl->app_bytes_rate, brate, sizeof brate);
    if (win <= 0) {
        /* Before a second sample no rate has a difference to stand on. */
        snprintf(rate, sizeof rate, "-");
        snprintf(brate, sizeof brate, "-");
    } else {
        if (cl->requests_rate <= 0 && done)
            snprintf(rate, sizeof rate, "0, %llu done", (unsigned long long)done);
        if (cl->app_bytes_rate <= 0 && moved) {
            char m[32];
            snprintf(brate, sizeof brate, "0, %s done", human_bytes((double)moved, m, sizeof m));
        }
    }
    /* The label always keeps a space before its value ("downloads/s 3.0"). */
    char rate_label[128], bytes_label[96];
    snprintf(rate_label, sizeof rate_label, "%-11s %8s  ", label, rate);
    snprintf(bytes_label, sizeof bytes_label, "%-11s %8s  ", "bytes/s", brate);
    /* Both sparklines start after the longer of the two labels, so that neither is drawn over. */
    int lw = (int)strlen(rate_label), blw = (int)strlen(bytes_label);
    if (has_req && has_bytes && blw > lw)
        lw = blw;
    else if (!has_req)
        lw = blw;
    int sw = w - lw;
    if (sw > SNAPSHOT_HISTORY)
        sw = SNAPSHOT_HISTORY;
    if (has_req) {
        widgets_text(c, x, yb, w, A_BOLD, rate_label);
        widgets_sparkline(c, x + lw, yb, sw, s->history_requests, s->history_len);
        yb++;
    }
    if (has_bytes) {
        widgets_text(c, x, yb, w, A_BOLD, bytes_label);
        widgets_sparkline(c, x + lw, yb, sw, s->history_bytes, s->history_len);
        yb++;
    }
    if (has_conns) {
        char line[128];
        uint64_t open = counterview_conns(cl, vin->conns_want, line, sizeof line);
        widgets_text(c, x, yb, w, open < vin->conns_want ? screen_attr(SCREEN_BAD) : A_NORMAL,
                     line);
        yb++;
    }
    /* yb is the first free line; latency is drawn at yb + 1 and the sources at yb + 2. */
    yb -= has_lat ? 1 : 2;
    /* Clients waiting for an answer are part of the latency (waits.h), and said by name. */
    if (!has_lat)
        ; /* no request was ever timed: no latency line */
    else if (lat->samples)
        counterview_latency_line(c, x, yb + 1, w, cl, vin->unit);
    else
        widgets_text(c, x, yb + 1, w, screen_attr(SCREEN_DIM),
                     counterview_no_latency(s, vin->unit ? vin->unit : "requests"));
    /* Say it loudly when a figure is short or wrong: lost counts, a program that wrote garbage
       on its counter page, /proc reads that failed (a process vanishing mid-read is normal; a
       steady count is not). */
    bool forged = false;
    for (uint32_t i = 0; i < s->nprogs; i++)
        forged |= s->progs[i].counts_forged;
    if (s->overflow_claims || forged || s->sample_errors)
        widgets_printf(c, x, yb + 2, w, screen_attr(SCREEN_BAD), "incomplete or wrong: %s%s%s",
                       s->overflow_claims ? "counter page full, counts lost  " : "",
                       forged ? "a program wrote garbage on its counter page  " : "",
                       s->sample_errors ? "some /proc reads failed in the last sample" : "");
    else if (counterview_uring(c, s, vin->base, x, yb + 2, w))
        ; /* the line says where the io_uring figures come from */
    else
        widgets_printf(c, x, yb + 2, w, screen_attr(SCREEN_DIM),
                       "calls: counted in libc (preload)  cpu/ctx/syscr: /proc  %.0f Hz  i: what "
                       "these mean%s%s",
                       s->tick_hz, vin->missing ? "  sandbox: " : "",
                       vin->missing ? vin->missing : "");

    /* A limit reached takes the line unless counts are short or wrong, which says more. */
    char failed[160];
    if (!s->overflow_claims && !forged && !s->sample_errors &&
        counterview_failures(s, failed, sizeof failed)) {
        widgets_clear((struct layout_rect){.x = x, .y = yb + 2, .w = w, .h = 1});
        widgets_text(c, x, yb + 2, w, screen_attr(SCREEN_BAD), failed);
    }
}

/* The comparison's figures, in column order. */
enum { CV_CMP_RATE, CV_CMP_BYTES, CV_CMP_CALLS, CV_CMP_SYSCR, CV_CMP_CTX, CV_CMP_CPU, CV_CMP_N };

/* One figure of one mode as the comparison prints it. */
static void counterview_cmp_value(char *val, size_t len, int k, double v, bool latency,
                                  bool uncounted, enum figure_none none)
{
    if (none != FIGURE_HAS_VALUE)
        snprintf(val, len, "-");
    else if (latency && (k == CV_CMP_BYTES || k == CV_CMP_CPU))
        widgets_ns_fixed(v, val, len);
    else if (k == CV_CMP_BYTES)
        widgets_bytes_fixed(v, val, len);
    else if (k == CV_CMP_CALLS && uncounted)
        snprintf(val, len, "uncounted");
    else if ((k == CV_CMP_CALLS || k == CV_CMP_SYSCR || k == CV_CMP_CTX) && v < 100)
        snprintf(val, len, "%.2f", v);
    else if (k == CV_CMP_CPU)
        snprintf(val, len, "%.0f%%", v);
    else
        widgets_si_fixed(v, val, len);
}

/* Whether the step is about read calls (it watches one the kernel counts in syscr): the
   comparison then shows the kernel's read calls per request beside the counted calls, which
   leave out the reads made inside libc (fread's). */
static bool counterview_about_reads(const struct lesson_scenario *sc)
{
    for (size_t i = 0; i < sc->nwatch; i++)
        if (sc->watch[i] == IOLAB_CALL_READ || sc->watch[i] == IOLAB_CALL_READV ||
            sc->watch[i] == IOLAB_CALL_PREAD64 || sc->watch[i] == IOLAB_CALL_PREADV)
            return true;
    return false;
}

/* The modes that have run, in the order they first did, into rows and ids (the id "" for a
   scenario without modes); how many. */
static uint32_t counterview_cmp_rows(const struct lesson_scenario *sc,
                                     const struct mode_span *modes, size_t nmodes,
                                     const struct span *rows[SNAPSHOT_MAX_MODES],
                                     const char *ids[SNAPSHOT_MAX_MODES])
{
    uint32_t nrows = 0;
    for (size_t i = 0; i < nmodes && nrows < SNAPSHOT_MAX_MODES; i++) {
        int mode = modes[i].mode;
        bool known = mode >= 0 ? (size_t)mode < sc->nmodes : sc->nmodes == 0;
        if (!known || modes[i].span.seconds <= 0)
            continue;
        ids[nrows] = mode >= 0 ? sc->modes[mode].id : "";
        rows[nrows++] = &modes[i].span;
    }
    return nrows;
}

/* A mode's figures in the comparison's columns, into v (none: why one has no value); with
   latency, p50 and p99 take the bytes/s and CPU columns. Whether the mode has a latency. */
static bool counterview_cmp_figures(const struct span *m, enum lesson_role study_role, bool latency,
                                    double v[CV_CMP_N], enum figure_none none[CV_CMP_N])
{
    static const enum figure_id ids_of[CV_CMP_N] = {
        [CV_CMP_RATE] = FIGURE_REQUESTS_PER_S,     [CV_CMP_BYTES] = FIGURE_BYTES_PER_S,
        [CV_CMP_CALLS] = FIGURE_ALL_CALLS_PER_REQ, [CV_CMP_SYSCR] = FIGURE_SYSCR_PER_REQ,
        [CV_CMP_CTX] = FIGURE_CTX_PER_REQ,         [CV_CMP_CPU] = FIGURE_CPU_PCT,
    };
    for (int k = 0; k < CV_CMP_N; k++)
        none[k] = figure_shown(m, ids_of[k], (int)study_role, &v[k]);
    /* The latencies count the clients left waiting, answered or not (the table's); no
       request answered or waiting in the mode: no latency, not 0 ns. */
    double p50_ms, p99_ms;
    enum figure_none lat_none = figure_shown(m, FIGURE_P99_MS, (int)study_role, &p99_ms);
    figure_shown(m, FIGURE_P50_MS, (int)study_role, &p50_ms);
    if (latency) {
        v[CV_CMP_BYTES] = p50_ms * 1e6;
        v[CV_CMP_CPU] = p99_ms * 1e6;
        none[CV_CMP_BYTES] = none[CV_CMP_CPU] = lat_none;
    }
    return lat_none == FIGURE_HAS_VALUE;
}

/* The columns that fit w with the modes' names whole (name_need): a step about reads gives up
   its rate first, then its kernel reads per request. The columns into col (shown updated),
   their widths; whether the headers are the brief ones. */
static bool counterview_cmp_fit(int w, int name_need, const int value_wk[CV_CMP_N],
                                const char *const full[CV_CMP_N], const char *const brief[CV_CMP_N],
                                bool latency, bool shown[CV_CMP_N], int col[CV_CMP_N], int *ncols,
                                int *namew, int colw[CV_CMP_N])
{
    bool shorter = false;
    /* When the modes' names would be cut (a row must say which mode it is), a step about reads
       gives up its rate of requests first, which bytes/s says as well for requests of one size
       (stdio's passes), and then the kernel's reads per request (stdio/aio's seven modes). */
    bool fits_all = false;
    bool tries[3][CV_CMP_N];
    memcpy(tries[0], shown, sizeof tries[0]);
    memcpy(tries[1], shown, sizeof tries[1]);
    memcpy(tries[2], shown, sizeof tries[2]);
    tries[1][CV_CMP_RATE] = !(shown[CV_CMP_SYSCR] && shown[CV_CMP_BYTES] && !latency);
    tries[2][CV_CMP_SYSCR] = false;
    for (int t = 0; t < 3 && !fits_all; t++) {
        int value_w[CV_CMP_N], full_w[CV_CMP_N], brief_w[CV_CMP_N];
        *ncols = 0;
        for (int k = 0; k < CV_CMP_N; k++)
            if (tries[t][k]) {
                value_w[*ncols] = value_wk[k];
                full_w[*ncols] = (int)strlen(full[k]);
                brief_w[*ncols] = (int)strlen(brief[k]);
                col[(*ncols)++] = k;
            }
        shorter =
            cvlayout_compare_cols(w, name_need, value_w, full_w, brief_w, *ncols, namew, colw);
        fits_all = *namew >= name_need - 1;
        memcpy(shown, tries[t], sizeof tries[t]);
    }
    return shorter;
}

/* What the comparison's footer says: the columns shown (their short headers spelled out when
   those are used), the marks, what the rows cover. */
struct counterview_cmp_legend {
    const char *const *full, *const *brief;   /* the columns' headers */
    const bool *shown;                        /* which figures have a column */
    const int *col;                           /* the columns, by figure */
    int ncols;                                /* how many */
    bool shorter;                             /* the short headers are used */
    bool latency;                             /* p50 and p99 for bytes/s and CPU */
    const enum figure_none (*none)[CV_CMP_N]; /* per row, why a figure has no value */
    uint32_t nrows;                           /* the rows */
    const char *unit, *one, *study, *now_id;  /* the step's words, the mode running */
};

static void counterview_cmp_foot(char *foot, size_t len, const struct counterview_cmp_legend *lg)
{
    bool none_nothing = false, none_ring = false;
    for (int j = 0; j < lg->ncols; j++)
        for (uint32_t i = 0; i < lg->nrows; i++) {
            none_nothing |= lg->none[i][lg->col[j]] == FIGURE_NONE_NOTHING;
            none_ring |= lg->none[i][lg->col[j]] == FIGURE_NONE_RING;
        }

    /* What the columns and marks mean, under the rows: in full words, or the short headers
       spelled out when they are used (the legend, i, has them too). */
    size_t fn = 0;
    foot[0] = '\0';
#define CV_FOOT(...)                                                                               \
    do {                                                                                           \
        if (fn < len) {                                                                            \
            int n_ = snprintf(foot + fn, len - fn, __VA_ARGS__);                                   \
            fn += n_ > 0 ? (size_t)n_ : 0;                                                         \
        }                                                                                          \
    } while (0)
    if (!lg->shorter) {
        if (lg->shown[CV_CMP_CALLS])
            CV_FOOT("%s: %s's counted calls per %s. ", lg->full[CV_CMP_CALLS], lg->study, lg->one);
        if (lg->shown[CV_CMP_SYSCR])
            CV_FOOT("%s: the kernel's read calls, libc's own included. ", lg->full[CV_CMP_SYSCR]);
    } else {
        CV_FOOT("%s", lg->now_id ? "* running now; rows cover only their mode's time. "
                                 : "Rows cover only the time the scenario ran. ");
        for (int j = 0; j < lg->ncols; j++) {
            int k = lg->col[j];
            if (k == CV_CMP_RATE)
                CV_FOOT("%s: %s/s. ", lg->brief[k], lg->unit);
            else if (k == CV_CMP_BYTES && !lg->latency)
                CV_FOOT("%s: bytes/s. ", lg->brief[k]);
            else if (k == CV_CMP_CALLS)
                CV_FOOT("%s: %s's counted calls per %s. ", lg->brief[k], lg->study, lg->one);
            else if (k == CV_CMP_SYSCR)
                CV_FOOT("%s: the kernel's read calls per %s. ", lg->brief[k], lg->one);
            else if (k == CV_CMP_CTX)
                CV_FOOT("%s: ctx switches per %s. ", lg->brief[k], lg->one);
            else if (k == CV_CMP_CPU && !lg->latency)
                CV_FOOT("%s: of one core. ", lg->brief[k]);
        }
    }
    if (none_nothing)
        CV_FOOT("-: no %s done in that mode yet. ", lg->one);
    if (none_ring)
        CV_FOOT("-: the shim cannot see io_uring's calls. ");
    if (!lg->shorter)
        CV_FOOT("%s", lg->now_id
                          ? "* the mode running now. Figures cover only the time each mode ran."
                          : "Figures cover only the time the scenario ran, every run of it.");
    else
        CV_FOOT("i: legend.");
#undef CV_FOOT
}

void counterview_compare(const struct screen_caps *c, struct layout_rect r,
                         const struct lesson_scenario *sc, const struct mode_span *modes,
                         size_t nmodes, const char *now_id, const char *unit,
                         enum lesson_role study_role, const char *study, bool latency)
{
    struct layout_rect in = widgets_box(c, r, "Comparison of the modes tried (c closes)", true);
    /* The modes that have run, in the order they first did (the session's): a span the session
       opened for a mode that never ran (starting, switching) has no row. */
    const struct span *rows[SNAPSHOT_MAX_MODES];
    const char *ids[SNAPSHOT_MAX_MODES];
    uint32_t nrows = counterview_cmp_rows(sc, modes, nmodes, rows, ids);
    if (nrows == 0) {
        widgets_text(c, in.x + 1, in.y, in.w - 2, screen_attr(SCREEN_DIM),
                     "Run the scenario and switch modes; each mode tried gets a row here.");
        return;
    }
    /* Columns: mode name, then up to six figures, each a value and (when there is room) a bar
       scaled to the column's largest value, so the difference shows at a glance. Calls per
       request are the program under study's (the server's unless the lesson names another): the
       load is the same in every mode, so its calls are what a mode changes (2 per request for
       epoll echo, one per 64 KiB for read-send). A step about reads shows the kernel's read
       calls per request beside them (fread's own reads, which the shim does not see). Context
       switches and CPU are everything's: what the machine paid. A figure no mode ever measured
       (no request completed in any: a reader that publishes none) has no column rather than a
       column of zeros, and a mode without a figure another mode has shows "-". Every "per"
       figure is per the step's unit, named as the step names it: per pass, per upload. */
    const char *u = unit ? unit : "requests";
    char one[48];
    figure_unit_one(unit, one, sizeof one);
    /* Headers say "req" for a request, as they always have, and a step's own unit in full. */
    const char *per_head = unit ? one : "req";
    char rate_head[64], calls_head[64], syscr_head[64], ctx_head[64];
    snprintf(rate_head, sizeof rate_head, "%s/s", u);
    snprintf(calls_head, sizeof calls_head, "calls/%s", per_head);
    snprintf(syscr_head, sizeof syscr_head, "syscr/%s", per_head);
    snprintf(ctx_head, sizeof ctx_head, "ctx sw/%s", per_head);
    /* A step about waiting shows the latencies where the others show bytes/s and CPU. */
    const char *full[CV_CMP_N] = {rate_head, latency ? "p50" : "bytes/s",  calls_head, syscr_head,
                                  ctx_head,  latency ? "p99" : "cpu %core"};
    const char *brief[CV_CMP_N] = {
        unit ? "done/s" : "req/s", latency ? "p50" : "B/s", "call/r", "syscr/r", "ctx/r",
        latency ? "p99" : "cpu%"};
    double v[SNAPSHOT_MAX_MODES][CV_CMP_N], max[CV_CMP_N] = {0};
    enum figure_none none[SNAPSHOT_MAX_MODES][CV_CMP_N];
    bool has_req = false, has_bytes = false;
    for (uint32_t i = 0; i < nrows; i++) {
        const struct span *m = rows[i];
        bool lat = counterview_cmp_figures(m, study_role, latency, v[i], none[i]);
        for (int k = 0; k < CV_CMP_N; k++)
            if (v[i][k] > max[k])
                max[k] = v[i][k];
        has_req |= m->requests > 0 || lat;
        has_bytes |= m->bytes > 0;
    }
    bool shown[CV_CMP_N] = {
        [CV_CMP_RATE] = has_req,  [CV_CMP_BYTES] = latency ? has_req : has_bytes,
        [CV_CMP_CALLS] = has_req, [CV_CMP_SYSCR] = has_req && counterview_about_reads(sc),
        [CV_CMP_CTX] = has_req,   [CV_CMP_CPU] = latency ? has_req : true,
    };
    char val[SNAPSHOT_MAX_MODES][CV_CMP_N][32];
    int value_wk[CV_CMP_N] = {0};
    for (int k = 0; k < CV_CMP_N; k++)
        for (uint32_t i = 0; i < nrows && shown[k]; i++) {
            counterview_cmp_value(val[i][k], sizeof val[i][k], k, v[i][k], latency,
                                  k == CV_CMP_CALLS && span_role_uncounted(rows[i], study_role),
                                  none[i][k]);
            int vw = (int)strlen(val[i][k]);
            value_wk[k] = vw > value_wk[k] ? vw : value_wk[k];
        }
    /* The mode column fits the longest id and its "now" mark (a long id like read-64k-work is
       not cut while the figures can be narrower). */
    int name_need = 4;
    for (uint32_t i = 0; i < nrows; i++) {
        int need = (int)strlen(ids[i][0] ? ids[i] : "this run") + 3; /* " *" */
        name_need = need > name_need ? need : name_need;
    }
    int col[CV_CMP_N], ncols, namew, colw[CV_CMP_N];
    int w = in.w - 2;
    bool shorter = counterview_cmp_fit(w, name_need, value_wk, full, brief, latency, shown, col,
                                       &ncols, &namew, colw);
    /* What the columns and marks mean, under the rows. */
    char foot[768];
    struct counterview_cmp_legend lg = {.full = full,
                                        .brief = brief,
                                        .shown = shown,
                                        .col = col,
                                        .ncols = ncols,
                                        .shorter = shorter,
                                        .latency = latency,
                                        .none = none,
                                        .nrows = nrows,
                                        .unit = u,
                                        .one = one,
                                        .study = study,
                                        .now_id = now_id};
    counterview_cmp_foot(foot, sizeof foot, &lg);
    struct wrap_doc fd = {0};
    int foot_rows = 0;
    if (wrap_plain(foot, w, c->utf8, &fd) == 0)
        foot_rows = (int)fd.nlines;
    /* Rows per mode in what is left over at least two rows of footer; the footer then takes
       what the modes leave. */
    int avail = in.h - 1 - (foot_rows < 2 ? foot_rows : 2);
    int per = cvlayout_compare_rows(avail, (int)nrows);
    size_t fit = (size_t)(avail > 0 ? avail / per : 0);
    int now = -1;
    for (uint32_t i = 0; i < nrows && now_id; i++)
        if (!strcmp(now_id, ids[i]))
            now = (int)i;
    size_t pick[SNAPSHOT_MAX_MODES];
    size_t npick = cvlayout_compare_pick(nrows, fit, now, pick);

    int y = in.y;
    widgets_text(c, in.x + 1, y, namew, A_BOLD, "mode");
    for (int j = 0, cx = in.x + 1 + namew; j < ncols; cx += colw[j], j++)
        widgets_text(c, cx, y, colw[j] - 1, A_BOLD, shorter ? brief[col[j]] : full[col[j]]);
    y++;
    for (size_t p = 0; p < npick; p++) {
        const struct span *m = rows[pick[p]];
        bool is_now = (int)pick[p] == now;
        const char *id = ids[pick[p]][0] ? ids[pick[p]] : "this run";
        char secs[32];
        snprintf(secs, sizeof secs, "%.1f s", m->seconds);
        /* The mark loses its space before the name loses a letter. */
        widgets_printf(c, in.x + 1, y, namew - 1, is_now ? A_BOLD : A_NORMAL, "%s%s", id,
                       !is_now                        ? ""
                       : (int)strlen(id) + 3 <= namew ? " *"
                                                      : "*");
        /* One row a mode has no room for how long it ran; the footer says rows cover only that
           time. */
        if (per > 1)
            widgets_text(c, in.x + 1, y + 1, namew - 1, screen_attr(SCREEN_DIM), secs);
        for (int j = 0, cx = in.x + 1 + namew; j < ncols; cx += colw[j], j++) {
            widgets_text(c, cx, y, colw[j] - 1, A_NORMAL, val[pick[p]][col[j]]);
            if (per > 1)
                widgets_bar(c, cx, y + 1, colw[j] - 2, v[pick[p]][col[j]], max[col[j]]);
        }
        y += per;
    }
    /* The footer takes the rows the modes leave, at the bottom, its first lines first. */
    int used = 1 + (int)npick * per - (per == 3 ? 1 : 0);
    int rows_left = in.h - used;
    int nfoot = (int)fd.nlines < rows_left ? (int)fd.nlines : rows_left;
    for (int k = 0; k < nfoot; k++)
        widgets_text(c, in.x + 1, in.y + in.h - nfoot + k, w, screen_attr(SCREEN_DIM),
                     fd.lines[k].text);
    wrap_doc_free(&fd);
}

/* The term of the mismatch mark's entry, which the terminal's mark follows ("!" in ASCII). */
static const char counterview_legend_mark[] = "= / ";

/*
 * What every figure and mark of the counters pane and the comparison means, for the legend (i),
 * each checked against the code that computes it (metrics/sampler.c, snapshot.h; the comparison:
 * figure.c). An entry with no term is a heading. The text wraps to the box, so a terminal of any
 * width shows all of it, and the box scrolls when it is taller than the terminal.
 */
static const struct counterview_legend_entry {
    const char *term; /* the label as the pane shows it; NULL: text is a heading */
    const char *text;
} counterview_legend_entries[] = {
    {NULL, "Each role (server, client): its programs' processes and threads together"},
    {"cpu user / sys", "CPU time in user mode and in the kernel, % of one core (100% is one core "
                       "busy), over about the last second"},
    {"ctx/s (vol)", "context switches per second of every thread, over the last 1 to 2 s like "
                    "calls/s; vol: the voluntary ones, where a thread waited (for I/O, a peer, a "
                    "lock) rather than being preempted"},
    {"procs, threads", "processes and threads of the role's programs now"},
    {"kernel syscr", "read-family system calls as the kernel counts them (/proc/PID/io), since "
                     "the mode started like the calls: read, readv, pread64 and preadv on any "
                     "descriptor (a socket too), sendfile and copy_file_range; recv, splice and "
                     "mmap are not in it"},
    {"syscw", "likewise for writes: write, writev, pwrite64, pwritev, sendfile and "
              "copy_file_range; send is not in it"},
    {"vs library", "the same calls as the counting shim saw them, over the same span"},
    {counterview_legend_mark,
     "the kernel's count and the library's agree, or they differ by more than 1% and more "
     "than 2 calls: calls made inside libc (fread's own read), a static binary or raw "
     "syscall() reach the kernel but not the shim"},
    {"disk/s", "bytes read from storage per second (/proc read_bytes): page cache misses; a "
               "read served from the cache adds nothing"},
    {"oldest N s", "past a hundred or so processes and threads, /proc is read a slice a tick "
                   "(under 2% of a core): the oldest figure shown was read N s ago"},
    {"N unread", "processes and threads not read even once yet: their figures are not in the "
                 "sums"},
    {"counted call", "the calls the counting shim counts (iolab list --json lists them); any "
                     "other call is not counted and never shows as 0"},
    {"named calls", "the calls the step is about come first, in bold, in every role that made "
                    "them; when the role has few rows they are listed several to a line: "
                    "\"epoll_wait 12.4k/s\" is per second now, \"accept4 8 calls\" a count "
                    "since the mode started of a call not made any more"},
    {"calls", "calls since the current mode started (t: totals since the scenario started), "
              "failed ones included"},
    {"calls/s, bytes/s", "per second over the last 1 to 2 s, or since the mode started when that "
                         "is shorter; bytes: what the successful calls moved"},
    {"share", "this call's part of all the role's calls over the same time"},
    {"busy", "time inside this call per second: threads inside it on average (1.00: one thread "
             "all the time); a call is booked when it returns, so one long call can push it past "
             "the number of threads"},
    {"busy ~", "estimated: about one call in 16 is timed (and every call after a slow one); "
               "the calls that wait (epoll_wait, poll, accept, fork, fsync...) and those that "
               "move a whole file (sendfile, splice, copy_file_range) are always timed"},
    {"on file  socket", "the read and write calls by kind of descriptor: file, socket, pipe, "
                        "other (devices, epoll); a>b: from a to b"},
    {"faults injected", "the lesson's fault injection: lengths cut short, EINTR and EAGAIN "
                        "returned"},
    {"not counted", "the counting shim is not in that program (a static binary?): no calls, "
                    "the kernel's figures still hold"},
    {"no counted call", "the program spends system CPU on calls iolab does not count: its "
                        "counted figures say nothing of them"},
    {NULL, "Under the roles: the client's figures"},
    {"requests/s", "what the load completed per second over the same 1 to 2 s, as the demo "
                   "published it (a step may count copies, uploads...); below 10/s the count "
                   "too: \"2.0, 6 in 3.0 s\"; none in that time after some earlier, the count "
                   "since the mode started: \"0, 4 done\"; \"-\" before a second sample. A "
                   "figure the programs never published (a reader completes no requests) has no "
                   "line: it is not a zero"},
    {"bytes/s", "the payload the load moved per second"},
    {"sparklines", "the last minute of both, one column per second"},
    {"connections held", "in a step about holding connections: how many the load has open now, "
                         "by its own count (established less closed), of the ones it keeps; "
                         "after a switch, how many the new server holds again, and the "
                         "shortfall while the load reconnects"},
    {"latency p50/p99", "half, or 99 in 100, of the requests of the last 5 s took at most this "
                        "long (within about 19%), the clients still waiting included"},
    {"waiting, oldest", "requests out for 100 ms or more with no answer yet, and the longest "
                        "wait: each counts in the latency for as long as it has waited, and for "
                        "the requests its connection would have sent meanwhile; a narrow pane "
                        "always says how many wait, 0 too"},
    {"no latency", "\"this load times no requests\": the load completes requests but times "
                   "none (a chat bot's messages); \"none timed in the last 5 s\": it did "
                   "earlier"},
    {"limit reached", "calls that failed at a limit (open files, processes, memory) and cost a "
                      "connection; shed: connections accepted only to be closed at once"},
    {"incomplete", "counts lost (the counter page was full), garbage on a counter page, or "
                   "/proc reads that failed: those figures are short or wrong"},
    {"io_uring line", "counted by the demo itself, not the shim: io_uring_enter calls, "
                      "operations submitted to the ring and completions reaped, since the mode "
                      "started"},
    {NULL, "The comparison (c): one row per mode tried, over only the time it ran"},
    {"calls/req", "the counted calls of the studied program's role (the server's unless the "
                  "lesson names another) per completed request; a step with its own unit says "
                  "it: calls/pass, calls/upload"},
    {"syscr/req", "a step about reads: the same role's read calls as the kernel counts them "
                  "(syscr), per request: the reads libc makes inside fread, which the counted "
                  "calls leave out, are in it"},
    {"ctx sw/req", "every program's context switches per completed request (or pass, upload)"},
    {"-", "no figure: nothing to divide by (no request, pass or upload done in that mode yet), "
          "or calls the shim cannot see (an io_uring server's work goes through its ring: the "
          "io_uring line has the demo's own count). Never a 0 in its place"},
    {"cpu %core", "every program's CPU while the mode ran, % of one core"},
    {"p50, p99", "a step about waiting shows these instead of bytes/s and cpu: the latency of "
                 "all the mode's requests, the clients left waiting included"},
    {"short headers", "on a narrow terminal: req/s is requests/s (done/s: the step's own unit), "
                      "B/s bytes/s, call/r calls/req, syscr/r syscr/req, ctx/r ctx sw/req, cpu% "
                      "cpu %core, each per the step's unit as the footer says; a column no mode "
                      "measured (no request completed) is left out"},
};

#define CV_TERM_W 17 /* the terms' column, a space included */

/*
 * The legend as rows of the box's width: the term on an entry's first row, its text wrapped
 * beside it. Calls fn for each row in [first, first + n) with its index; returns the row count.
 */
static int counterview_legend_rows(const struct screen_caps *c, int textw, int first, int n,
                                   void (*fn)(const struct screen_caps *, void *, int row,
                                              const char *term, const char *text, bool heading),
                                   void *arg)
{
    size_t ne = sizeof counterview_legend_entries / sizeof *counterview_legend_entries;
    int row = 0;
    for (size_t i = 0; i < ne; i++) {
        const struct counterview_legend_entry *e = &counterview_legend_entries[i];
        bool heading = !e->term;
        /* A heading after the first gets a blank row above it: the sections read apart. */
        if (heading && i > 0)
            row++;
        char term[48];
        snprintf(term, sizeof term, "%s%s", e->term ? e->term : "",
                 e->term == counterview_legend_mark ? c->g->mismatch : "");
        struct wrap_doc d = {0};
        if (wrap_plain(e->text, heading ? textw + CV_TERM_W : textw, c->utf8, &d) < 0)
            continue;
        for (size_t k = 0; k < d.nlines; k++, row++)
            if (fn && row >= first && row < first + n)
                fn(c, arg, row - first, k == 0 ? term : "", d.lines[k].text, heading);
        wrap_doc_free(&d);
    }
    return row;
}

struct counterview_legend_at {
    int x, y, w;
};

static void counterview_legend_row(const struct screen_caps *c, void *arg, int row,
                                   const char *term, const char *text, bool heading)
{
    const struct counterview_legend_at *at = arg;
    if (heading) {
        widgets_text(c, at->x, at->y + row, at->w, A_BOLD, text);
        return;
    }
    widgets_text(c, at->x, at->y + row, CV_TERM_W - 1, screen_attr(SCREEN_HEADING), term);
    widgets_text(c, at->x + CV_TERM_W, at->y + row, at->w - CV_TERM_W, A_NORMAL, text);
}

int counterview_legend(const struct screen_caps *c, int *top)
{
    /* 100 columns keep a line of text to a comfortable length; a narrower terminal wraps more. */
    int w = COLS - 2 < 100 ? COLS - 2 : 100;
    int textw = w - 4 - CV_TERM_W; /* the border and a column of margin each side */
    if (textw < 8)
        textw = 8;
    int total = counterview_legend_rows(c, textw, 0, 0, NULL, NULL);
    /* Above the status line and the footer, which are drawn after the step's panes. */
    struct layout_rect r = layout_center(COLS, LINES - 1, w, total + 2);
    widgets_clear(r);
    bool scrolls = total > r.h - 2;
    struct layout_rect in =
        widgets_box(c, r,
                    scrolls ? "What the figures mean (j/k, arrows, PgUp/PgDn scroll; other keys "
                              "close)"
                            : "What the figures mean (any key closes)",
                    true);
    int page = in.h > 0 ? in.h : 1;
    if (*top > total - page)
        *top = total - page;
    if (*top < 0)
        *top = 0;
    struct counterview_legend_at at = {in.x + 1, in.y, in.w - 2};
    counterview_legend_rows(c, textw, *top, in.h, counterview_legend_row, &at);
    /* Where the rest is, on the bottom border (never over the text): the "more" mark. */
    if (scrolls) {
        char more[64];
        bool below = *top + page < total;
        snprintf(more, sizeof more, " %d-%d of %d%s ", *top + 1, *top + page, total,
                 below ? ", more: j" : ", top: k");
        int mw = (int)strlen(more);
        widgets_text(c, r.x + r.w - 2 - mw, r.y + r.h - 1, mw,
                     screen_attr(below ? SCREEN_FOCUS : SCREEN_DIM), more);
    }
    return page;
}
