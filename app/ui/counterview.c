/*
 * counterview: the counters pane and the comparison view, drawn from the latest snapshot copy
 * (tui.snap). Per role: CPU user vs system, context switches, processes and threads; the
 * kernel's syscr/syscw beside the library-level counts with a mark where they disagree; a table
 * of calls by name. Under the roles: client throughput over the last minute as a sparkline and
 * latency percentiles. The comparison view has one row per mode tried in this session.
 */
#include "tui.h"
#include "metrics/stats.h"
#include "widgets.h"

#include <stdlib.h>
#include <string.h>

static const char *const counterview_role_names[SNAPSHOT_NROLES] = {
    [SNAPSHOT_ROLE_SERVER] = "server",
    [SNAPSHOT_ROLE_CLIENT] = "client",
};

/* The library count and the kernel's disagree by more than noise (1%, at least 2 calls). */
static bool counterview_disagree(uint64_t kernel, uint64_t lib)
{
    uint64_t d = kernel > lib ? kernel - lib : lib - kernel;
    uint64_t big = kernel > lib ? kernel : lib;
    return d > 2 && d * 100 > big;
}

static int counterview_cmp_rate(const void *a, const void *b, void *arg)
{
    const struct snapshot_figures *f = arg;
    const struct snapshot_call *x = &f->calls[*(const unsigned *)a];
    const struct snapshot_call *y = &f->calls[*(const unsigned *)b];
    if (x->count_rate != y->count_rate)
        return x->count_rate < y->count_rate ? 1 : -1;
    return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/* One role's block; returns the rows used. */
static int counterview_role(struct tui *t, const struct snapshot_figures *f, const char *name,
                            int x, int y, int w, int h)
{
    const struct screen_caps *c = &t->caps;
    char a[32], b[32], d[32], e[32];
    int row = 0;
    if (h <= 0)
        return 0;
    widgets_printf(c, x, y + row, w, screen_attr(SCREEN_HEADING),
                   "%-6s cpu %5.1f%% user %5.1f%% sys  ctx/s %s (%s vol)  procs %u  threads %u",
                   name, f->cpu_user_pct, f->cpu_sys_pct,
                   widgets_si(f->ctx_voluntary_rate + f->ctx_involuntary_rate, a, sizeof a),
                   widgets_si(f->ctx_voluntary_rate, b, sizeof b), f->nprocs, f->nthreads);
    if (++row >= h)
        return row;
    bool rd = counterview_disagree(f->syscr, f->lib_reads);
    bool wr = counterview_disagree(f->syscw, f->lib_writes);
    int cx = x;
    cx += widgets_printf(
        c, cx, y + row, w, screen_attr(SCREEN_DIM), "       kernel syscr %s vs library %s ",
        widgets_si((double)f->syscr, a, sizeof a), widgets_si((double)f->lib_reads, b, sizeof b));
    cx += widgets_text(c, cx, y + row, x + w - cx, screen_attr(rd ? SCREEN_BAD : SCREEN_GOOD),
                       rd ? c->g->mismatch : "=");
    cx += widgets_printf(c, cx, y + row, x + w - cx, screen_attr(SCREEN_DIM),
                         "   syscw %s vs library %s ", widgets_si((double)f->syscw, d, sizeof d),
                         widgets_si((double)f->lib_writes, e, sizeof e));
    cx += widgets_text(c, cx, y + row, x + w - cx, screen_attr(wr ? SCREEN_BAD : SCREEN_GOOD),
                       wr ? c->g->mismatch : "=");
    /* Storage reads are the page cache's misses: the proof that a "cold" read was cold. */
    widgets_printf(c, cx, y + row, x + w - cx, screen_attr(SCREEN_DIM), "   disk %s/s",
                   widgets_si(f->read_bytes_rate, d, sizeof d));
    if (++row >= h)
        return row;
    widgets_printf(c, x, y + row, w, A_BOLD, "  %-16s %10s %9s %10s %6s %7s", "call", "calls",
                   "calls/s", "bytes/s", "share", "in call");
    if (++row >= h)
        return row;
    unsigned order[IOLAB_NCALLS], n = 0;
    for (unsigned i = 0; i < IOLAB_NCALLS; i++)
        if (f->calls[i].count > 0)
            order[n++] = i;
    qsort_r(order, n, sizeof *order, counterview_cmp_rate, (void *)f);
    for (unsigned k = 0; k < n && row < h; k++, row++) {
        const struct snapshot_call *sc = &f->calls[order[k]];
        char cnt[32], rate[32], bytes[32];
        widgets_printf(c, x, y + row, w, sc->count_rate > 0 ? A_NORMAL : screen_attr(SCREEN_DIM),
                       "  %-16s %10llu %9s %10s %5.1f%% %6.1f%%", snapshot_call_label(order[k]),
                       (unsigned long long)sc->count, widgets_si(sc->count_rate, rate, sizeof rate),
                       sc->bytes_rate > 0 ? widgets_bytes(sc->bytes_rate, bytes, sizeof bytes)
                                          : "-",
                       sc->share * 100, sc->busy * 100);
        (void)cnt;
    }
    if (n == 0 && row < h)
        widgets_text(c, x + 2, y + row++, w - 2, screen_attr(SCREEN_DIM),
                     f->uncounted ? "not counted (static binary?): the kernel's totals are above"
                                  : "no calls counted yet");
    return row;
}

void counterview_draw(struct tui *t, struct layout_rect r)
{
    const struct screen_caps *c = &t->caps;
    struct layout_rect in = widgets_box(c, r, "Counters", t->focus == (int)t->layout.nprogs + 1);
    if (!t->have_snap) {
        widgets_text(c, in.x + 1, in.y, in.w - 2, screen_attr(SCREEN_DIM),
                     t->engine ? "Waiting for the first sample..."
                               : "Enter starts the scenario; the counters appear here.");
        return;
    }
    const struct snapshot *s = &t->snap;
    int x = in.x + 1, w = in.w - 2;
    int bottom = 4; /* two throughput lines, latency, where the numbers come from */
    int avail = in.h - bottom;
    int y = in.y;
    /* The server's table gets the larger share: it is what the modes change. */
    int hs = avail * 11 / 20;
    y += counterview_role(t, &s->roles[SNAPSHOT_ROLE_SERVER],
                          counterview_role_names[SNAPSHOT_ROLE_SERVER], x, y, w, hs);
    y++;
    counterview_role(t, &s->roles[SNAPSHOT_ROLE_CLIENT],
                     counterview_role_names[SNAPSHOT_ROLE_CLIENT], x, y, w, in.y + avail - y);

    const struct snapshot_figures *cl = &s->roles[SNAPSHOT_ROLE_CLIENT];
    char a[32], b[32], p50[32], p99[32];
    int yb = in.y + in.h - bottom;
    /* Two sparklines over the last minute, one column per second, after aligned labels. */
    int lw = widgets_printf(c, x, yb, w, A_BOLD, "requests/s %9s  ",
                            widgets_si(cl->requests_rate, a, sizeof a));
    widgets_printf(c, x, yb + 1, w, A_BOLD, "bytes/s    %9s  ",
                   widgets_bytes(cl->app_bytes_rate, b, sizeof b));
    int sw = w - lw;
    if (sw > SNAPSHOT_HISTORY)
        sw = SNAPSHOT_HISTORY;
    widgets_sparkline(c, x + lw, yb, sw, s->history_requests, s->history_len);
    widgets_sparkline(c, x + lw, yb + 1, sw, s->history_bytes, s->history_len);
    yb++;
    const struct snapshot_latency *lat = &cl->latency_recent;
    if (lat->samples)
        widgets_printf(c, x, yb + 1, w, A_NORMAL,
                       "latency p50 %s  p99 %s  (last %d s, %llu requests)",
                       widgets_ns((double)lat->p50_ns, p50, sizeof p50),
                       widgets_ns((double)lat->p99_ns, p99, sizeof p99), SNAPSHOT_RECENT_S,
                       (unsigned long long)lat->samples);
    else
        widgets_text(c, x, yb + 1, w, screen_attr(SCREEN_DIM), "latency: no requests measured yet");
    const struct jail *j = t->engine ? engine_jail(t->engine) : NULL;
    const char *missing = j ? jail_missing(j) : NULL;
    widgets_printf(c, x, yb + 2, w, screen_attr(SCREEN_DIM),
                   "calls: counted in libc (preload)  cpu/ctx/syscr: /proc  %.0f Hz%s%s%s",
                   s->tick_hz, s->overflow_claims ? "  counter page full!" : "",
                   missing ? "  sandbox: " : "", missing ? missing : "");
}

void counterview_compare(struct tui *t, struct layout_rect r)
{
    const struct screen_caps *c = &t->caps;
    struct layout_rect in = widgets_box(c, r, "Comparison of the modes tried (c closes)", true);
    /* This run's rows on top of the earlier runs' of the same step (restarts). */
    struct snapshot_mode_row rows[SNAPSHOT_MAX_MODES];
    uint32_t nrows = t->npast_modes;
    memcpy(rows, t->past_modes, nrows * sizeof *rows);
    if (t->have_snap)
        stats_mode_rows_merge(rows, &nrows, SNAPSHOT_MAX_MODES, t->snap.modes, t->snap.nmodes);
    if (nrows == 0) {
        widgets_text(c, in.x + 1, in.y, in.w - 2, screen_attr(SCREEN_DIM),
                     "Run the scenario and switch modes; each mode tried gets a row here.");
        return;
    }
    /* Columns: mode name, then five metrics, each a value and a bar scaled to the column's
       largest value, so the difference shows at a glance. */
    /* Calls per request are the server's: the load is the same in every mode, so the server's
       calls are what a mode changes (2 per request for epoll echo, one per 64 KiB for
       read-send). Context switches and CPU are everything's: they are what the machine paid. */
    static const char *const heads[] = {"requests/s", "bytes/s", "server calls/req", "ctx sw/req",
                                        "cpu %core"};
    double max[5] = {0};
    for (uint32_t i = 0; i < nrows; i++) {
        const struct snapshot_mode_row *m = &rows[i];
        double v[5] = {m->requests_per_s, m->bytes_per_s, m->server_calls_per_request,
                       m->ctx_per_request, m->cpu_pct};
        for (int k = 0; k < 5; k++)
            if (v[k] > max[k])
                max[k] = v[k];
    }
    int namew = 12;
    int colw = (in.w - 2 - namew) / 5;
    int y = in.y;
    widgets_text(c, in.x + 1, y, namew, A_BOLD, "mode");
    for (int k = 0; k < 5; k++)
        widgets_text(c, in.x + 1 + namew + k * colw, y, colw - 1, A_BOLD, heads[k]);
    y++;
    int cur = t->have_snap ? t->snap.mode : -1;
    for (uint32_t i = 0; i < nrows && y + 1 < in.y + in.h; i++) {
        const struct snapshot_mode_row *m = &rows[i];
        double v[5] = {m->requests_per_s, m->bytes_per_s, m->server_calls_per_request,
                       m->ctx_per_request, m->cpu_pct};
        const struct lesson_step *st = tui_step(t);
        bool now = st && st->run && cur >= 0 && (size_t)cur < st->run->nmodes &&
                   !strcmp(st->run->modes[cur].id, m->id);
        widgets_printf(c, in.x + 1, y, namew, now ? A_BOLD : A_NORMAL, "%s%s",
                       m->id[0] ? m->id : "-", now ? " *" : "");
        widgets_printf(c, in.x + 1, y + 1, namew, screen_attr(SCREEN_DIM), "%.1f s", m->seconds);
        for (int k = 0; k < 5; k++) {
            char val[32];
            int cx = in.x + 1 + namew + k * colw;
            if (k == 1)
                widgets_bytes(v[k], val, sizeof val);
            else if (k == 2 || k == 3)
                snprintf(val, sizeof val, "%.2f", v[k]);
            else if (k == 4)
                snprintf(val, sizeof val, "%.0f%%", v[k]);
            else
                widgets_si(v[k], val, sizeof val);
            widgets_text(c, cx, y, colw - 1, A_NORMAL, val);
            widgets_bar(c, cx, y + 1, colw - 2, v[k], max[k]);
        }
        y += 3;
    }
    widgets_text(c, in.x + 1, in.y + in.h - 1, in.w - 2, screen_attr(SCREEN_DIM),
                 "* the mode running now. Figures cover only the time each mode ran.");
}
