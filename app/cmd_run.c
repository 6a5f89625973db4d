/*
 * iolab run LESSON[/STEP] [--pack DIR] [--mode M[,M...]] [--seconds N] [--json] [--tier T]:
 * a step's scenario, headless, on the same engine the TUI drives.
 *
 * Model: one loop, one engine. Each requested mode is one measured segment: it starts with the
 * snapshot the engine publishes when the mode's server is ready (and, for the first mode, every
 * program is spawned) and ends with the snapshot published right before the next switch or the
 * stop. A segment's figures are the difference of those two snapshots, so start-up and
 * shut-down work and the gap while a server restarts are never counted. The load keeps running
 * across switches. The output (text or one JSON object; format in engine/README.md) is printed
 * once, after every program has been reaped and the work directory removed.
 *
 * Exit: 0; 1 when the pack is bad or a program failed or died early (one sentence with its last
 * lines); 2 for a bad command line, lesson, step or mode; 128+signal after SIGINT/SIGTERM.
 */
#include "cmd.h"
#include "engine/engine.h"
#include "lesson/lesson.h"
#include "metrics/stats.h"
#include "paths.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_MAX_MODES 16

struct run_segment {
    int mode; /* scenario mode index, -1 without modes */
    bool started, ended;
    struct snapshot first, last; /* the segment's bounds */
    uint32_t peak_threads[SNAPSHOT_MAX_PROGS];
    uint32_t peak_procs[SNAPSHOT_MAX_PROGS];
};

struct run {
    uv_loop_t loop;
    struct engine *engine;
    const struct lesson *lesson;
    const struct lesson_step *step;
    uv_signal_t sigint, sigterm;
    uv_timer_t segment_timer;
    double seconds;
    bool json;
    size_t nsegments, current;
    bool awaiting_next; /* a switch was asked for: the next running snapshot opens a segment */
    struct run_segment segments[RUN_MAX_MODES];
    int exit_code;      /* set once: the first reason to end wins */
    char message[1536]; /* the sentence printed for a failure */
    char sandbox[1024]; /* jail_describe_json, taken while the jail exists */
    bool done;
};

static const struct {
    const char *name;
    enum jail_tier tier;
} run_tiers[] = {
    {"full", JAIL_TIER_FULL},
    {"reduced", JAIL_TIER_REDUCED},
    {"minimal", JAIL_TIER_MINIMAL},
};

static void run_usage(FILE *out)
{
    fputs("usage: iolab run LESSON[/STEP] [--pack DIR] [--mode M[,M...]] [--seconds N] [--json]\n"
          "                 [--tier full|reduced|minimal]\n\n"
          "Runs a step's scenario without the TUI for N seconds (default: the step's own), then\n"
          "stops it and prints what it cost: calls by name, CPU, context switches, kernel I/O\n"
          "counts, throughput and latency. Several modes separated by commas run one after the\n"
          "other, N seconds each, with the load kept running across the switches.\n",
          out);
}

static void run_finish(struct run *r, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void run_finish(struct run *r, int code, const char *fmt, ...)
{
    if (r->exit_code < 0) {
        r->exit_code = code;
        if (fmt) {
            va_list ap;
            va_start(ap, fmt);
            vsnprintf(r->message, sizeof r->message, fmt, ap);
            va_end(ap);
        }
    }
    uv_timer_stop(&r->segment_timer);
    if (engine_state(r->engine) == ENGINE_STARTING || engine_state(r->engine) == ENGINE_RUNNING)
        engine_stop(r->engine);
}

static void run_segment_end(uv_timer_t *t)
{
    struct run *r = t->data;
    if (r->current + 1 < r->nsegments) {
        const struct run_segment *next = &r->segments[r->current + 1];
        int rc = engine_switch_mode(r->engine, (size_t)next->mode);
        if (rc < 0)
            run_finish(r, 1, "could not switch to mode %s: %s", r->step->run->modes[next->mode].id,
                       strerror(-rc));
        else
            r->awaiting_next = true; /* after the call: its own snapshot closes this segment */
        return;
    }
    run_finish(r, 0, NULL);
}

static void run_on_snapshot(void *data, const struct snapshot *snap)
{
    struct run *r = data;
    if (!snap->mode_running || r->current >= r->nsegments)
        return;
    if (r->awaiting_next) {
        r->awaiting_next = false;
        r->segments[r->current].ended = true;
        if (++r->current >= r->nsegments)
            return;
    }
    struct run_segment *seg = &r->segments[r->current];
    if (!seg->started) {
        seg->started = true;
        seg->first = *snap;
        uv_timer_start(&r->segment_timer, run_segment_end, (uint64_t)(r->seconds * 1000), 0);
    }
    seg->last = *snap;
    for (uint32_t i = 0; i < snap->nprogs; i++) {
        if (snap->progs[i].f.nthreads > seg->peak_threads[i])
            seg->peak_threads[i] = snap->progs[i].f.nthreads;
        if (snap->progs[i].f.nprocs > seg->peak_procs[i])
            seg->peak_procs[i] = snap->progs[i].f.nprocs;
    }
}

/* The last few lines a program printed, joined, for a one-sentence error. */
static void run_last_lines(struct run *r, size_t prog, char *buf, size_t len)
{
    size_t n = engine_lines(r->engine, prog), used = 0;
    buf[0] = '\0';
    for (size_t i = n > 3 ? n - 3 : 0; i < n && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", used ? " | " : "",
                         engine_line(r->engine, prog, i, NULL));
        if (w < 0)
            break;
        used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
    if (!buf[0])
        snprintf(buf, len, "(no output)");
}

static void run_on_exit(void *data, size_t prog, int status, bool expected)
{
    struct run *r = data;
    if (expected || engine_state(r->engine) != ENGINE_RUNNING)
        return;
    const struct lesson_program *p = &r->step->run->programs[prog];
    /* A client that finishes its work (copy-file --rounds N) is the load ending, not a failure:
       the snapshot published at its exit, with its reconciled totals, closes the segment; when
       it was the last program, the engine stops by itself. */
    if (status == 0 && p->role == LESSON_ROLE_CLIENT)
        return;
    char last[768];
    run_last_lines(r, prog, last, sizeof last);
    run_finish(r, 1,
               "the %s (%s) exited with status %d while the scenario ran; its last lines "
               "were: %s",
               p->name, p->program, status, last);
}

static void run_close_all(struct run *r)
{
    if (r->done)
        return;
    r->done = true;
    uv_close((uv_handle_t *)&r->sigint, NULL);
    uv_close((uv_handle_t *)&r->sigterm, NULL);
    uv_close((uv_handle_t *)&r->segment_timer, NULL);
    engine_free(r->engine);
}

static void run_on_state(void *data, enum engine_state state)
{
    struct run *r = data;
    if (state == ENGINE_RUNNING && engine_jail(r->engine))
        jail_describe_json(engine_jail(r->engine), r->sandbox, sizeof r->sandbox);
    if (state == ENGINE_FAILED) {
        run_finish(r, 1, "%s", engine_error(r->engine));
        run_close_all(r);
    } else if (state == ENGINE_STOPPED) {
        if (r->exit_code < 0)
            r->exit_code = 0;
        run_close_all(r);
    }
}

static void run_on_signal(uv_signal_t *s, int sig)
{
    struct run *r = s->data;
    run_finish(r, 128 + sig, NULL);
    if (engine_state(r->engine) != ENGINE_STOPPING)
        run_close_all(r);
}

/* ---- output ---- */

static void run_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            fprintf(out, "\\%c", ch);
        else if (ch < 0x20)
            fprintf(out, "\\u%04x", ch);
        else
            fputc(ch, out);
    }
    fputc('"', out);
}

static double run_us(uint64_t ns)
{
    return (double)ns / 1000.0;
}

static void run_segment_latency(const struct run_segment *seg, struct snapshot_latency *lat)
{
    uint64_t hist[IOLAB_HIST_BUCKETS];
    stats_hist_sub(hist, seg->last.latency_hist[SNAPSHOT_ROLE_CLIENT],
                   seg->first.latency_hist[SNAPSHOT_ROLE_CLIENT], IOLAB_HIST_BUCKETS);
    stats_latency(lat, hist);
}

static void run_print_json_segment(struct run *r, FILE *out, const struct run_segment *seg)
{
    const struct snapshot *a = &seg->first, *b = &seg->last;
    double dur = b->elapsed_s - a->elapsed_s;
    fputs("{\"lesson\":", out);
    run_json_string(out, r->lesson->id);
    fputs(",\"step\":", out);
    run_json_string(out, r->step->id);
    fputs(",\"mode\":", out);
    if (seg->mode >= 0)
        run_json_string(out, r->step->run->modes[seg->mode].id);
    else
        fputs("null", out);
    /* started_s/ended_s: the segment on the run's clock, so the gap between two segments is
       the time a mode switch took until the new server was ready. */
    fprintf(out, ",\"duration_s\":%.3f,\"started_s\":%.3f,\"ended_s\":%.3f,\"processes\":[", dur,
            a->elapsed_s, b->elapsed_s);
    for (uint32_t i = 0; i < b->nprogs; i++) {
        const struct snapshot_prog *p = &b->progs[i];
        const struct snapshot_figures *fa = &a->progs[i].f, *fb = &p->f;
        fprintf(out, "%s{\"role\":\"%s\",\"name\":", i ? "," : "",
                p->role == SNAPSHOT_ROLE_CLIENT ? "client" : "server");
        run_json_string(out, p->name);
        fprintf(out, ",\"pid\":%d,\"calls\":{", p->pid);
        bool first = true;
        for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
            uint64_t n = stats_delta(fb->calls[c].count, fa->calls[c].count);
            if (!n)
                continue;
            fprintf(out, "%s\"%s\":{\"count\":%llu,\"bytes\":%llu,\"ns\":%llu}", first ? "" : ",",
                    snapshot_call_label(c), (unsigned long long)n,
                    (unsigned long long)stats_delta(fb->calls[c].bytes, fa->calls[c].bytes),
                    (unsigned long long)stats_delta(fb->calls[c].ns, fa->calls[c].ns));
            first = false;
        }
        fprintf(out,
                "},\"cpu\":{\"user_s\":%.3f,\"sys_s\":%.3f},"
                "\"ctx_switches\":{\"voluntary\":%llu,\"involuntary\":%llu},"
                "\"io\":{\"syscr\":%llu,\"syscw\":%llu,\"rchar\":%llu,\"wchar\":%llu,"
                "\"read_bytes\":%llu,\"write_bytes\":%llu},"
                "\"lib_reads\":%llu,\"lib_writes\":%llu,"
                "\"app\":{\"requests\":%llu,\"bytes\":%llu,\"conns_opened\":%llu,"
                "\"conns_closed\":%llu,\"errors\":%llu},"
                "\"threads\":%u,\"processes\":%u,\"rss_bytes\":%llu}",
                fmax(0, fb->cpu_user_s - fa->cpu_user_s), fmax(0, fb->cpu_sys_s - fa->cpu_sys_s),
                (unsigned long long)stats_delta(fb->ctx_voluntary, fa->ctx_voluntary),
                (unsigned long long)stats_delta(fb->ctx_involuntary, fa->ctx_involuntary),
                (unsigned long long)stats_delta(fb->syscr, fa->syscr),
                (unsigned long long)stats_delta(fb->syscw, fa->syscw),
                (unsigned long long)stats_delta(fb->rchar, fa->rchar),
                (unsigned long long)stats_delta(fb->wchar, fa->wchar),
                (unsigned long long)stats_delta(fb->read_bytes, fa->read_bytes),
                (unsigned long long)stats_delta(fb->write_bytes, fa->write_bytes),
                (unsigned long long)stats_delta(fb->lib_reads, fa->lib_reads),
                (unsigned long long)stats_delta(fb->lib_writes, fa->lib_writes),
                (unsigned long long)stats_delta(fb->requests, fa->requests),
                (unsigned long long)stats_delta(fb->app_bytes, fa->app_bytes),
                (unsigned long long)stats_delta(fb->conns_opened, fa->conns_opened),
                (unsigned long long)stats_delta(fb->conns_closed, fa->conns_closed),
                (unsigned long long)stats_delta(fb->errors, fa->errors), seg->peak_threads[i],
                seg->peak_procs[i], (unsigned long long)fb->rss_bytes);
    }
    const struct snapshot_figures *ca = &a->roles[SNAPSHOT_ROLE_CLIENT],
                                  *cb = &b->roles[SNAPSHOT_ROLE_CLIENT];
    struct snapshot_latency lat;
    run_segment_latency(seg, &lat);
    fprintf(out,
            "],\"throughput\":{\"bytes_per_s\":%.1f,\"requests_per_s\":%.1f},"
            "\"latency_us\":{\"samples\":%llu,\"p50\":%.1f,\"p99\":%.1f,\"p999\":%.1f,"
            "\"max\":%.1f},\"sandbox\":%s}",
            stats_rate(stats_delta(cb->app_bytes, ca->app_bytes), dur),
            stats_rate(stats_delta(cb->requests, ca->requests), dur),
            (unsigned long long)lat.samples, run_us(lat.p50_ns), run_us(lat.p99_ns),
            run_us(lat.p999_ns), run_us(lat.max_ns), r->sandbox[0] ? r->sandbox : "null");
}

static void run_print_text_segment(struct run *r, FILE *out, const struct run_segment *seg)
{
    const struct snapshot *a = &seg->first, *b = &seg->last;
    double dur = b->elapsed_s - a->elapsed_s;
    fprintf(out, "%s/%s", r->lesson->id, r->step->id);
    if (seg->mode >= 0)
        fprintf(out, " mode %s", r->step->run->modes[seg->mode].id);
    fprintf(out, ": %.1f s measured\n", dur);
    for (uint32_t i = 0; i < b->nprogs; i++) {
        const struct snapshot_prog *p = &b->progs[i];
        const struct snapshot_figures *fa = &a->progs[i].f, *fb = &p->f;
        fprintf(out, "\n  %s (%s, pid %d): %u process(es), %u thread(s) at most\n", p->name,
                p->role == SNAPSHOT_ROLE_CLIENT ? "client" : "server", p->pid, seg->peak_procs[i],
                seg->peak_threads[i]);
        if (p->counts_forged)
            fprintf(out, "    counts: the program wrote values on its counter page that no "
                         "counting makes; the figures below are wrong\n");
        fprintf(out, "    %-16s %12s %14s %10s\n", "call", "count", "bytes", "ms inside");
        for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
            uint64_t n = stats_delta(fb->calls[c].count, fa->calls[c].count);
            if (n)
                fprintf(out, "    %-16s %12llu %14llu %10.1f\n", snapshot_call_label(c),
                        (unsigned long long)n,
                        (unsigned long long)stats_delta(fb->calls[c].bytes, fa->calls[c].bytes),
                        (double)stats_delta(fb->calls[c].ns, fa->calls[c].ns) / 1e6);
        }
        fprintf(out,
                "    cpu %.2f s user, %.2f s sys; context switches %llu voluntary, %llu "
                "involuntary\n",
                fmax(0, fb->cpu_user_s - fa->cpu_user_s), fmax(0, fb->cpu_sys_s - fa->cpu_sys_s),
                (unsigned long long)stats_delta(fb->ctx_voluntary, fa->ctx_voluntary),
                (unsigned long long)stats_delta(fb->ctx_involuntary, fa->ctx_involuntary));
        fprintf(out,
                "    kernel: syscr %llu (counted reads %llu), syscw %llu (counted writes %llu), "
                "from storage %llu bytes\n",
                (unsigned long long)stats_delta(fb->syscr, fa->syscr),
                (unsigned long long)stats_delta(fb->lib_reads, fa->lib_reads),
                (unsigned long long)stats_delta(fb->syscw, fa->syscw),
                (unsigned long long)stats_delta(fb->lib_writes, fa->lib_writes),
                (unsigned long long)stats_delta(fb->read_bytes, fa->read_bytes));
    }
    const struct snapshot_figures *ca = &a->roles[SNAPSHOT_ROLE_CLIENT],
                                  *cb = &b->roles[SNAPSHOT_ROLE_CLIENT];
    struct snapshot_latency lat;
    run_segment_latency(seg, &lat);
    fprintf(out, "\n  throughput: %.0f requests/s, %.2f MB/s\n",
            stats_rate(stats_delta(cb->requests, ca->requests), dur),
            stats_rate(stats_delta(cb->app_bytes, ca->app_bytes), dur) / 1e6);
    if (lat.samples)
        fprintf(out, "  latency: p50 %.1f us, p99 %.1f us, p99.9 %.1f us, max %.1f us\n",
                run_us(lat.p50_ns), run_us(lat.p99_ns), run_us(lat.p999_ns), run_us(lat.max_ns));
}

static void run_print(struct run *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->nsegments; i++)
        if (r->segments[i].started)
            n++;
    if (r->json) {
        bool multi = r->nsegments > 1;
        if (multi)
            fputs("{\"modes\":[", stdout);
        for (size_t i = 0, k = 0; i < r->nsegments; i++)
            if (r->segments[i].started) {
                if (k++)
                    fputc(',', stdout);
                run_print_json_segment(r, stdout, &r->segments[i]);
            }
        if (multi)
            fputs("]}", stdout);
        if (!multi && n == 0)
            fputs("{}", stdout);
        fputc('\n', stdout);
    } else {
        for (size_t i = 0; i < r->nsegments; i++)
            if (r->segments[i].started) {
                run_print_text_segment(r, stdout, &r->segments[i]);
                fputc('\n', stdout);
            }
    }
    fflush(stdout);
}

/* ---- command line ---- */

/* "a, b, c" of the ids of a list, for one-sentence errors. */
static void run_join(char *buf, size_t len, size_t n, const char *(*id)(const void *, size_t),
                     const void *v)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used + 1 < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", id(v, i));
        if (w < 0)
            break;
        used += (size_t)w < len - used ? (size_t)w : len - used - 1;
    }
}

static const char *run_lesson_id(const void *v, size_t i)
{
    return ((const struct lesson_pack *)v)->lessons[i].id;
}

static const char *run_mode_id(const void *v, size_t i)
{
    return ((const struct lesson_scenario *)v)->modes[i].id;
}

/* Finds LESSON[/STEP] with a sentence naming the valid choices when it fails. */
static int run_resolve(struct run *r, const struct lesson_pack *pack, const char *spec)
{
    char why[256], list[1024];
    if (lesson_resolve(pack, spec, &r->lesson, &r->step, why, sizeof why) == 0 &&
        r->step->kind == LESSON_STEP_RUN && r->step->run)
        return 0;
    char lid[128];
    snprintf(lid, sizeof lid, "%.*s", (int)strcspn(spec, "/"), spec);
    const struct lesson *l = lesson_find(pack, lid);
    if (!l) {
        run_join(list, sizeof list, pack->nlessons, run_lesson_id, pack);
        cmd_error("there is no lesson '%s'; the lessons are: %s.", lid, list);
        return -ENOENT;
    }
    size_t used = 0;
    list[0] = '\0';
    for (size_t i = 0; i < l->nsteps; i++)
        if (l->steps[i].kind == LESSON_STEP_RUN && used + 1 < sizeof list) {
            int w = snprintf(list + used, sizeof list - used, "%s%s/%s", used ? ", " : "", lid,
                             l->steps[i].id);
            used += w > 0 && (size_t)w < sizeof list - used ? (size_t)w : 0;
        }
    cmd_error("'%s' is not a step that runs anything; the run steps of '%s' are: %s.", spec, lid,
              list[0] ? list : "(none)");
    return -ENOENT;
}

static int run_parse_modes(struct run *r, const char *arg)
{
    const struct lesson_scenario *sc = r->step->run;
    char list[1024];
    run_join(list, sizeof list, sc->nmodes, run_mode_id, sc);
    if (!arg) {
        r->segments[0].mode = sc->nmodes ? (int)sc->default_mode : -1;
        r->nsegments = 1;
        return 0;
    }
    if (sc->nmodes == 0) {
        cmd_error("step %s/%s has no modes to choose from; leave out --mode.", r->lesson->id,
                  r->step->id);
        return -EINVAL;
    }
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", arg);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int m = lesson_mode_find(sc, tok);
        if (m < 0) {
            cmd_error("'%s' is not a mode of %s/%s; its modes are: %s.", tok, r->lesson->id,
                      r->step->id, list);
            return -EINVAL;
        }
        if (r->nsegments == RUN_MAX_MODES) {
            cmd_error("at most %d modes in one run.", RUN_MAX_MODES);
            return -EINVAL;
        }
        r->segments[r->nsegments++].mode = m;
    }
    if (!r->nsegments) {
        cmd_error("--mode needs a mode; the modes of %s/%s are: %s.", r->lesson->id, r->step->id,
                  list);
        return -EINVAL;
    }
    return 0;
}

static int cmd_run_exec(int argc, char **argv)
{
    const char *spec = NULL, *pack_dir = NULL, *modes = NULL;
    double seconds = 0;
    bool json = false;
    enum jail_tier tier = JAIL_TIER_AUTO;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_val = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            run_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json")) {
            json = true;
        } else if (!strcmp(a, "--pack") && has_val) {
            pack_dir = argv[++i];
        } else if (!strcmp(a, "--mode") && has_val) {
            modes = argv[++i];
        } else if (!strcmp(a, "--seconds") && has_val) {
            char *end;
            seconds = strtod(argv[++i], &end);
            if (*end || !(seconds > 0) || seconds > 86400) {
                cmd_error("--seconds takes a number of seconds above 0, not '%s'.", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--tier") && has_val) {
            const char *t = argv[++i];
            size_t k = 0;
            while (k < sizeof run_tiers / sizeof *run_tiers && strcmp(run_tiers[k].name, t))
                k++;
            if (k == sizeof run_tiers / sizeof *run_tiers) {
                cmd_error("--tier is full, reduced or minimal, not '%s'.", t);
                return 2;
            }
            tier = run_tiers[k].tier;
        } else if (a[0] != '-' && !spec) {
            spec = a;
        } else {
            cmd_error("run takes LESSON[/STEP] and --pack DIR, --mode M, --seconds N, --json, "
                      "--tier T; '%s' is none of them (or lacks its value).",
                      a);
            return 2;
        }
    }
    if (!spec) {
        cmd_error("run needs a lesson: `iolab run LESSON[/STEP]`; `iolab list` shows them.");
        return 2;
    }

    char builtin[PATH_MAX], libexec[PATH_MAX];
    if (!pack_dir) {
        if (paths_get(PATHS_PACK, builtin, sizeof builtin) < 0) {
            cmd_error("cannot find the built-in lessons next to the iolab program.");
            return 1;
        }
        pack_dir = builtin;
    }
    struct lesson_load_options lo = {.libexec_dir = NULL};
    if (paths_get(PATHS_LIBEXEC, libexec, sizeof libexec) == 0)
        lo.libexec_dir = libexec;
    struct lesson_pack *pack = NULL;
    struct lesson_diags diags = {0};
    if (lesson_pack_load(pack_dir, &lo, &pack, &diags) < 0) {
        lesson_diags_print(stderr, &diags);
        lesson_diags_free(&diags);
        cmd_error("the pack in %s has the problems above; `iolab lint %s` checks it.", pack_dir,
                  pack_dir);
        return 1;
    }
    lesson_diags_free(&diags);

    struct run *r = calloc(1, sizeof *r);
    int status = 2;
    if (!r) {
        cmd_error("out of memory.");
        status = 1;
        goto out_pack;
    }
    r->exit_code = -1;
    r->json = json;
    if (run_resolve(r, pack, spec) < 0 || run_parse_modes(r, modes) < 0)
        goto out;
    r->seconds = seconds > 0 ? seconds : r->step->run->seconds > 0 ? r->step->run->seconds : 5;

    status = 1;
    if (uv_loop_init(&r->loop) < 0) {
        cmd_error("cannot set up the event loop.");
        goto out;
    }
    struct engine_options eo = {
        .mode = r->segments[0].mode >= 0 ? r->step->run->modes[r->segments[0].mode].id : NULL,
        /* {seconds}: the whole run, so a client told to stop by itself outlasts every mode. */
        .seconds = r->seconds * (double)r->nsegments,
        .tick_hz = 10,
        .tier = tier,
    };
    struct engine_callbacks cb = {.data = r,
                                  .on_exit = run_on_exit,
                                  .on_snapshot = run_on_snapshot,
                                  .on_state = run_on_state};
    int rc = engine_create(&r->engine, &r->loop, r->step, &eo, &cb);
    if (rc < 0) {
        cmd_error("cannot prepare the scenario: %s.", strerror(-rc));
        uv_loop_close(&r->loop);
        goto out;
    }
    uv_signal_init(&r->loop, &r->sigint);
    uv_signal_init(&r->loop, &r->sigterm);
    uv_timer_init(&r->loop, &r->segment_timer);
    r->sigint.data = r->sigterm.data = r->segment_timer.data = r;
    uv_signal_start(&r->sigint, run_on_signal, SIGINT);
    uv_signal_start(&r->sigterm, run_on_signal, SIGTERM);
    if (engine_start(r->engine) < 0 && engine_state(r->engine) == ENGINE_FAILED) {
        run_finish(r, 1, "%s", engine_error(r->engine));
        run_close_all(r);
    }
    uv_run(&r->loop, UV_RUN_DEFAULT);
    if (uv_loop_close(&r->loop) != 0)
        fprintf(stderr, "iolab: internal: handles left open at exit\n");
    status = r->exit_code < 0 ? 1 : r->exit_code;
    if (status == 0) {
        run_print(r);
    } else if (status == 1) {
        cmd_error("%s", r->message[0] ? r->message : "the scenario failed.");
    }
out:
    free(r);
out_pack:
    lesson_pack_free(pack);
    return status;
}

const struct cmd_entry cmd_run_entry = {
    .name = "run",
    .usage = "LESSON[/STEP] [--mode M] [--seconds N] [--json]",
    .summary = "run a step's scenario without the TUI and print what it cost",
    .exec = cmd_run_exec,
};
