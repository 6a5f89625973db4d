/*
 * figure: what grew between two snapshots of one run (a span), and the one table of the
 * figures a lesson can name (a check, an expected outcome, a sweep's y axis) with how each is
 * computed over a span.
 *
 * A span is the growth from a first snapshot to a last one: counts saturate at zero (a counter
 * that went backwards, a restart, counts nothing), CPU time likewise, gauges (processes,
 * threads, zombies, requests waiting) are the last snapshot's. span_between() is the one
 * routine that computes it; span_role_between() is the same for one program's or role's
 * figures (the counters pane's rows).
 *
 * The table (figure_at, figure_find) names each figure once: its name in the JSON, a label
 * for people, its unit, which way is better, and its value over a span. Where the lesson
 * formats use a name (checks, expected outcomes, sweeps) is a mask, since not every figure
 * makes sense everywhere ("exit" is a check only).
 */
#ifndef IOLAB_FIGURE_H
#define IOLAB_FIGURE_H

#include "iolab_counters.h"
#include "snapshot.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What one role (or one program) did over a span. */
struct span_role {
    uint64_t requests, bytes; /* published by the demos: completed requests, payload bytes */
    uint64_t conns;           /* connections opened */
    uint64_t errors;          /* failed requests, verification failures */
    uint64_t failed;          /* calls that failed and cost a connection, and connections shed */
    uint64_t calls[IOLAB_NCALLS];   /* counted calls by enum iolab_call_id */
    uint64_t calls_total;           /* all labels together */
    uint64_t syscr, syscw, rchar;   /* the kernel's /proc/PID/io */
    uint64_t lib_reads, lib_writes; /* counted calls the kernel counts in syscr and syscw */
    uint64_t ctx;                   /* context switches, voluntary and involuntary */
    double cpu_user_s, cpu_sys_s;   /* CPU time, each saturating at zero */
    uint64_t cpu_us; /* user + system CPU in whole microseconds, the totals rounded down before
                        they are subtracted (what a check's cpu_ms_per_request reads) */
    uint64_t uring_submissions, uring_completions, uring_enters; /* published by the demo */
    struct iolab_fdsplit fd;            /* counted calls by kind of descriptor, faults injected */
    uint32_t nprocs, nthreads, zombies; /* gauges: the last snapshot's */
    uint32_t nfds;    /* gauge: the most descriptors one process holds open, the last snapshot's */
    uint64_t waiting; /* gauge: requests out 100 ms or more at the end */
    /* What moved (the per-byte-served figures): */
    uint64_t wchar; /* the kernel's bytes through the write family, sendfile, copy_file_range */
    uint64_t call_bytes[IOLAB_NCALLS]; /* bytes the counted calls moved, by enum iolab_call_id */
};

struct span {
    double seconds;                        /* last elapsed - first elapsed, at least 0 */
    struct span_role roles[LESSON_NROLES]; /* by enum lesson_role */
    /* The role whose requests and bytes are the load's: the client, or the server when the
       scenario has no client publishing (one program). */
    int load_role;
    uint64_t requests, bytes; /* the load role's: what every "per request" figure divides by */
    uint64_t hist[IOLAB_HIST_BUCKETS]; /* the client's request latencies answered in the span */
    /* A gauge: the client's requests still unanswered at the end, by how long they had waited,
       each at most the span's length (an older age is a stale gauge or began before the span:
       it counts as having waited the whole span). The latency figures count them (waits.h). */
    uint64_t waits[IOLAB_HIST_BUCKETS];
};

/*
 * What one mode of a scenario did over every run of it in a lesson step: the spans of the
 * snapshots taken in it added (span_add), span.seconds the time its programs ran in it with its
 * server up and the load not paused, span.waits the requests still waiting at its last running
 * snapshot (span_waits_at). The grader's session keeps one per mode (grade/session.h); a
 * check, an expected outcome and a prediction read their figure over it through the table
 * (figure_at(id)->value), and so does the comparison view.
 */
struct mode_span {
    int mode; /* the mode's index in the scenario; -1 when the scenario has no modes */
    struct span span;
};

/*
 * Every field of one program's or role's figures as it grew from a to b (a NULL a counts from
 * zero): counts (calls, their bytes and time, the kernel's io, context switches, requests, bytes,
 * connections, failures, errors, the split by descriptor, io_uring) saturate at zero, CPU time
 * each of user and system clamped at zero; gauges (processes, threads, zombies, descriptors,
 * resident memory, requests in flight and waiting, ages) and the rates and latencies of the
 * sampler are b's. What `iolab run` prints of one program over a segment, and what
 * span_role_between() keeps of it.
 */
void snapshot_figures_between(const struct snapshot_figures *a, const struct snapshot_figures *b,
                              struct snapshot_figures *out);

/* The growth of one program's or role's figures from a to b; a NULL a counts from zero. */
void span_role_between(const struct snapshot_figures *a, const struct snapshot_figures *b,
                       struct span_role *out);

/* Options of span_between(). */
struct span_opts {
    /* Index of the program whose own published requests and bytes do not count (an exercise's
       learner: a program writes its own slot of the counter page); -1: none. */
    int learner;
};

/* System CPU, as a share of a span, above which a role with no counted call is said to make
   calls iolab does not count (a program that only waits stays well under 1%). */
#define SPAN_UNCOUNTED_SYS 0.05

/* Whether role made no counted call over the span yet spent system time: its call figures
   would read 0 for calls that were not counted, so they are shown as "uncounted" instead. */
bool span_role_uncounted(const struct span *s, int role);

/* Whether role's work went through an io_uring over the span (its demo published ring figures):
   the operations inside a ring pass no function the shim wraps, so the role's counted calls per
   request say nothing of what it did, and the comparison shows none ("-"). The demo's own
   io_uring_enter count is its figure (uring_enters_per_request). */
bool span_role_ring(const struct span *s, int role);

/*
 * What one of a step's units is called, from the plural the step names ("passes" -> "pass",
 * "copies" -> "copy", "uploads" -> "upload"; NULL or "" -> "request"), for a figure's label per
 * unit ("ctx switches/pass"). Written to buf, which is returned.
 */
const char *figure_unit_one(const char *plural, char *buf, size_t len);

/* What grew from first to last (first NULL: from zero, a run's first snapshot). */
void span_between(const struct snapshot *first, const struct snapshot *last,
                  const struct span_opts *opts, struct span *out);

/* The latency of the span's requests: the client's answered in it and those still waiting at
   its end, each as long as it had waited (waits.h); samples 0 when there were none. */
void span_latency(const struct span *s, struct snapshot_latency *out);

/* Sets s's waits to the client's requests still waiting at last, each at most s->seconds (as
   span_between does): what a span added over many snapshots (a mode's) waited at its end. */
void span_waits_at(struct span *s, const struct snapshot *last);

/*
 * Every figure a lesson can name, once: a check's "metric", an expected outcome's or a
 * prediction's side, a sweep's y axis or a headline's figure. The table (figure_at) is indexed
 * by it. One name means two figures in two formats ("bytes_per_syscr"): two ids, each named for
 * what it divides (FIGURE_RCHAR_PER_SYSCR, FIGURE_BYTES_PER_SYSCR). "Per request" always divides
 * by the load's requests (span_between: the client's; the server's only in a step whose clients
 * publish nothing), in a check (FIGURE_CHECK_CALL_PER_REQ, every role's calls unless the check
 * names one) as in an outcome or a sweep (FIGURE_ONE_CALL_PER_REQ, FIGURE_ALL_CALLS_PER_REQ):
 * lessons/README.md "Which figure is which".
 */
enum figure_id {
    /* Checks (FIGURE_IN_CHECK): */
    FIGURE_SECONDS,         /* "seconds": time the programs ran in the mode */
    FIGURE_REQUESTS,        /* "requests": requests the demos published as completed */
    FIGURE_BYTES,           /* "bytes": payload bytes the demos published as delivered */
    FIGURE_EXIT,            /* "exit": a program's exit status, equal to the check's "status" */
    FIGURE_OUTPUT,          /* "output": lines of a program's output that match "match" */
    FIGURE_SYSCR,           /* "syscr": read-family system calls, as the kernel counts them */
    FIGURE_SYSCW,           /* "syscw": write-family system calls, likewise */
    FIGURE_RCHAR_PER_SYSCR, /* a check's "bytes_per_syscr": the role's kernel rchar / syscr */
    FIGURE_PEAK_PROCS,      /* "peak_procs": most processes of the role seen at once */
    /* "bytes_per_uncut_syscr": rchar / (syscr - the read calls fault injection cut short): bytes
       per read the kernel was let fill, so a buffered reader is judged fairly under short reads */
    FIGURE_READ_FILL,
    FIGURE_PEAK_THREADS, /* "peak_threads": most threads (of every process) seen at once */
    FIGURE_ZOMBIES,      /* "zombies": most children left unreaped for 1 s, seen at once */
    FIGURE_SPAWNS,       /* "spawns": fork() and pthread_create() calls together */
    /* "cpu_ms_per_request": the role's CPU time (the kernel's utime + stime), in ms, over the
       load's requests: a server that sleeps between messages spends next to none */
    FIGURE_CPU_MS_PER_REQ,
    /* "peak_fds": the most descriptors one process of the role held open at once (the kernel's
       count; the open-file limit is per process): a server that keeps a socket per client
       climbs with the requests */
    FIGURE_PEAK_FDS,
    FIGURE_CALLS, /* "calls:NAME": counted calls of one label */
    /* "calls_per_request:NAME": a check's counted NAME calls (every role's, or the check's
       role's) over the load's requests, as an outcome's calls:NAME/request */
    FIGURE_CHECK_CALL_PER_REQ,
    /* Expected outcomes and predictions (FIGURE_IN_EXPECT), sweeps (FIGURE_IN_SWEEP): */
    FIGURE_REQUESTS_PER_S,    /* "requests_per_s": the load's completed requests per second */
    FIGURE_BYTES_PER_S,       /* "bytes_per_s": the client's payload bytes per second */
    FIGURE_ALL_CALLS_PER_REQ, /* "calls_per_request": a role's counted calls, every name, per
                                 request of the load */
    FIGURE_ONE_CALL_PER_REQ,  /* "calls:NAME/request": one call's count per request of the load */
    FIGURE_SYSCR_PER_REQ,     /* "syscr_per_request": the kernel's read-family calls per request */
    /* a sweep's "bytes_per_syscr": the client's payload bytes per kernel read call: the size of
       the reads the kernel really saw, whoever made them */
    FIGURE_BYTES_PER_SYSCR,
    FIGURE_CTX_PER_REQ, /* "ctx_per_request": context switches (everyone's) per request */
    FIGURE_CPU_PCT,     /* "cpu_pct": CPU of every program, % of one core */
    /* "uring_enters_per_request": a role's io_uring_enter() calls per request, as the demo
       counts them */
    FIGURE_URING_ENTERS_PER_REQ,
    FIGURE_P50_MS, /* "p50_ms": the client's median request latency, ms, the requests left
                      waiting included (span_latency); defined once a request was answered or
                      is waiting, so a server that answers nobody has one */
    FIGURE_P99_MS, /* "p99_ms": likewise its 99th percentile */
    /* Checks again (FIGURE_IN_CHECK), what a call did against the bytes served (the client's
       payload bytes, or the step's files once each when no other program publishes bytes): */
    /* "bytes_per_byte_served:NAME": bytes the role's NAME calls moved (counter page), no more
       than the kernel's rchar and wchar of the role confirm for a call the kernel counts there,
       per byte served: a sendfile() of 0 bytes beside a copy counts nothing */
    FIGURE_CALL_BYTES_PER_BYTE,
    FIGURE_RCHAR_PER_BYTE, /* "rchar_per_byte_served": the role's kernel rchar per byte served */
    FIGURE_WCHAR_PER_BYTE, /* "wchar_per_byte_served": the role's kernel wchar per byte served */
    /* Expected outcomes again (FIGURE_IN_EXPECT): "role_cpu_pct", one role's CPU (its
       processes' and threads' user + system time), % of one core: above 100, it worked on more
       than one core, which is what "works on several cores" claims */
    FIGURE_ROLE_CPU_PCT,
    /* A check's "unmapped_per_mapped": the bytes the role's munmap() calls released per byte its
       mmap() calls mapped (counter page), undefined before anything was mapped: a program that
       unmaps every mapping whole stays near 1, one that leaves mappings behind or unmaps only a
       part of each falls short */
    FIGURE_UNMAPPED_PER_MAPPED,
    FIGURE_NIDS
};

/*
 * Adds span d to acc, the growth of several spans in one (a mode's, over its runs and restarts):
 * counts, time and latencies answered add, gauges (processes, threads, zombies, descriptors,
 * requests waiting) keep their peak; the load's role and the ages of the requests still waiting
 * (waits) are d's, the later span's.
 */
void span_add(struct span *acc, const struct span *d);

/* Which way is better for a figure. */
enum figure_better { FIGURE_NEITHER, FIGURE_HIGHER, FIGURE_LOWER };

/* How a value of a figure is written for people (figure_format): a sweep's table, `iolab bench`,
   an expected outcome's sentence, a prediction. */
enum figure_show {
    FIGURE_SHOW_PLAIN,       /* three significant figures, SI above 999.5: "2.5", "8.19k" */
    FIGURE_SHOW_PER_S,       /* and an SI suffix, per second: "182k/s" */
    FIGURE_SHOW_BYTES_PER_S, /* likewise in bytes: "4.07 MB/s" */
    FIGURE_SHOW_MS,          /* a latency in ms, in the unit that keeps three figures: "1.5 ms",
                                "41 us", "2.1 s" */
    FIGURE_SHOW_PCT,         /* a whole percentage: "93%" */
};

/* Where the lesson formats accept a figure's name. */
#define FIGURE_IN_CHECK  1u /* a check's "metric" */
#define FIGURE_IN_EXPECT 2u /* an expected outcome's side */
#define FIGURE_IN_SWEEP  4u /* a sweep's or a headline's "figure" */

/* What a figure is computed for: the role and, for a per-call figure, the call. */
struct figure_arg {
    int role;      /* enum lesson_role, resolved by the caller; -1: every role's calls together
                      (a check's calls:NAME and calls_per_request:NAME without a role) */
    unsigned call; /* enum iolab_call_id, for figures that name a call */
    /* A count of calls on one kind of descriptor (a check's "fd"): enum iolab_fd_kind + 1, 0 any
       descriptor; fd_to likewise for the destination of a call between two. */
    unsigned fd_kind, fd_to;
    /* The bytes of the step's files: what a step without a program publishing bytes (one
       program that copies them, each once) served, for the "per byte served" figures; 0 none. */
    uint64_t files_bytes;
};

struct figure_def {
    const char *name;  /* as the JSON writes it; "calls:NAME" style names carry a call */
    const char *label; /* for people: "requests/s" */
    const char *unit;  /* beside a value: "/s", "ms p99" */
    enum figure_better better;
    unsigned where; /* FIGURE_IN_* */
    bool per_call;  /* the name carries a call label (prefix, or "calls:NAME/request") */
    /* The figure over a span; false when it is not defined there (a ratio over nothing). */
    bool (*value)(const struct span *s, const struct figure_arg *a, double *out);
    /* What an expected outcome's sentence writes beside the value ("requests/s", "p99
       latency"), where its wording is not the unit's; NULL: the unit. */
    const char *said;
    enum figure_show show; /* how a sweep's table and bench write a value */
};

/* Why a figure has no value over a span, which a view shows as "-" (never as 0). */
enum figure_none {
    FIGURE_HAS_VALUE,    /* it has one */
    FIGURE_NONE_NOTHING, /* nothing to divide by: no request (pass, upload...) done in the span */
    FIGURE_NONE_RING,    /* calls the shim cannot see: the role's work went through io_uring */
};

/*
 * A figure as a view shows it (the comparison, c): its value over s for role in *out (0 when
 * none), or why it has none: the table leaves it undefined (a ratio over nothing), or it counts
 * calls of a role whose work went through io_uring (span_role_ring: the ring's operations are
 * no calls the shim sees, so "0.00 calls per request" would say the opposite of what happened).
 */
enum figure_none figure_shown(const struct span *s, enum figure_id id, int role, double *out);

/* The role a figure reads: role itself, or the server's when it names none (-1) or one out of
   range. Every consumer that resolves a side's or a sweep's role asks this. */
int figure_role(int role);

/* The figure id over s for a (a NULL a: the server's, no call), through the table; false when
   the table leaves it undefined there, or it is no figure with a value (exit, output). */
bool figure_value(enum figure_id id, const struct span *s, const struct figure_arg *a, double *out);

/*
 * A value as a person reads it, the one formatter of iolab's figures: three significant figures
 * and an SI suffix above 999.5 ("0.53", "16.2", "182k", "4.07M"), written after `space` and
 * before `unit` ("4.07 MB"; "182k/s"), and a value below 1000 that is whole without decimals.
 * fixed keeps the width steady for a column that updates (a counters pane): trailing zeros
 * stay ("4.00k"), and a value below 1000 has one decimal under 10 and none above ("2.5", "13").
 */
const char *figure_format_si(double v, const char *space, const char *unit, bool fixed, char *buf,
                             size_t len);

/* A time with the unit that keeps three figures: "92.3 ms", "41 us", "1.5 s", "812 ns". */
const char *figure_format_ns(double ns, char *buf, size_t len);

/* A value written as a show says (FIGURE_SHOW_*): "2.5", "182k/s", "4.07 MB/s", "1.5 ms" or
   "1.5 s", "93%". */
const char *figure_format_show(enum figure_show show, double v, char *buf, size_t len);

/* A value of figure id as its row's .show says (figure_format_show). */
const char *figure_format(enum figure_id id, double v, char *buf, size_t len);

/* The figure an id names; NULL for an id out of range. */
const struct figure_def *figure_at(enum figure_id id);
size_t figure_count(void); /* FIGURE_NIDS */

/* The id of a figure of the table. */
enum figure_id figure_id_of(const struct figure_def *f);

/*
 * The figure a name means, or NULL: a plain name ("requests_per_s") or one that carries a call
 * ("calls:fork", "calls_per_request:read", "calls:read/request": *call is set).
 */
const struct figure_def *figure_find(const char *name, unsigned *call);

/* The same among the figures one format accepts (where: FIGURE_IN_*): a name can mean
   different figures in a check and in a sweep ("bytes_per_syscr", figure.c). */
const struct figure_def *figure_find_in(const char *name, unsigned where, unsigned *call);

#endif
