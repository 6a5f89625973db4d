/*
 * tally: see tally.h. Only the first next_slot slots can be in use, and the slot count
 * used to bound every loop is the one validated when the page was mapped, never the header's
 * current value, which any program of the scenario could overwrite. Every value read is bounded
 * too (tally_take): a program may write anything into its slots, and the sums must neither wrap
 * nor pass for true.
 *
 * One scan (tally_scan) sums the slots; tally_sum repeats it until no move of counts between
 * slots overlapped it (iolab_page_read_begin/end), so a move is seen whole or not at all.
 *
 * The header is the creator's: iolab wrote it once, before any program ran, and no shim ever
 * writes magic, version, sizes or the slot count again. A header that no longer says what iolab
 * wrote, or a seqlock with more moves under way than the page has slots, was written by a program
 * on purpose: the totals are marked forged (the page was tampered with), and the seqlock is not
 * waited on (a program could hold it open for ever).
 */
#include "tally.h"
#include "iolab_page.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/*
 * A value the shim cannot have written, because no run lasts long enough to reach it: 2^48 calls
 * (at 10 M/s, about eight hours), bytes (256 TiB) or ns (78 hours). Only a program scribbling on
 * the page makes one. Such a value is left out of the sums and the totals are marked forged, so
 * the figures are wrong but say so; and since every value added is below 2^48 and there are at
 * most IOLAB_PAGE_MAX_SLOTS (2^12) slots, no sum (nor a sum of SNAPSHOT_MAX_PROGS sums) wraps.
 */
#define TALLY_PLAUSIBLE_MAX (1ull << 48)

static uint64_t tally_take(const uint64_t *field, bool *forged)
{
    uint64_t v = iolab_load(field);
    if (v < TALLY_PLAUSIBLE_MAX)
        return v;
    *forged = true;
    return 0;
}

/* struct iolab_fdsplit is a run of uint64_t counters, summed as one array. */
#define TALLY_FD_FIELDS (sizeof(struct iolab_fdsplit) / sizeof(uint64_t))

/* Whether the header still says what iolab_page_create() wrote for a page of nslots slots. */
static bool tally_header_intact(const struct iolab_page *page, uint32_t nslots)
{
    uint32_t begun = __atomic_load_n(&page->moves_begun, __ATOMIC_RELAXED);
    uint32_t done = __atomic_load_n(&page->moves_done, __ATOMIC_RELAXED);
    return __atomic_load_n(&page->magic, __ATOMIC_RELAXED) == IOLAB_PAGE_MAGIC &&
           __atomic_load_n(&page->version, __ATOMIC_RELAXED) == IOLAB_PAGE_VERSION &&
           __atomic_load_n(&page->header_size, __ATOMIC_RELAXED) ==
               offsetof(struct iolab_page, slots) &&
           __atomic_load_n(&page->slot_size, __ATOMIC_RELAXED) == sizeof(struct iolab_slot) &&
           __atomic_load_n(&page->nslots, __ATOMIC_RELAXED) == nslots &&
           __atomic_load_n(&page->ncalls, __ATOMIC_RELAXED) == IOLAB_NCALLS &&
           begun - done <= nslots; /* each move empties one slot: no more at once */
}

/* The index of object (name, exe) in t, added when new; UINT32_MAX when t has no room. */
static uint32_t tally_object(struct tally_sites *t, const char *name, uint32_t exe)
{
    for (uint32_t i = 0; i < t->nobjects; i++)
        if (t->objects[i].exe == exe && !strcmp(t->objects[i].name, name))
            return i;
    if (t->nobjects == IOLAB_OBJECTS)
        return UINT32_MAX;
    struct iolab_object *o = &t->objects[t->nobjects];
    snprintf(o->name, sizeof o->name, "%s", name);
    o->exe = exe;
    o->state = IOLAB_OBJECT_READY;
    return t->nobjects++;
}

/*
 * An index of a tally_sites' entries by (object, offset, call), made for one scan or one merge:
 * the sampler scans every slot of every page each tick, up to 64 sites a slot, so a linear
 * search of 128 sites per site would cost a thousand-thread program millions of compares.
 */
#define TALLY_INDEX 512 /* a power of two, four times TALLY_SITES */
struct tally_index {
    uint16_t at[TALLY_INDEX]; /* 0: empty, else the site's index + 1 */
};

static uint32_t tally_index_hash(uint32_t object, uint64_t offset, uint32_t call)
{
    uint64_t h =
        (offset ^ ((uint64_t)object << 48) ^ ((uint64_t)call << 56)) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> 55) & (TALLY_INDEX - 1);
}

static void tally_index_make(struct tally_index *x, const struct tally_sites *t)
{
    memset(x, 0, sizeof *x);
    for (uint32_t i = 0; i < t->n; i++) {
        const struct tally_site *e = &t->site[i];
        uint32_t h = tally_index_hash(e->object, e->offset, e->call);
        while (x->at[h])
            h = (h + 1) & (TALLY_INDEX - 1);
        x->at[h] = (uint16_t)(i + 1);
    }
}

/* Adds count calls of `call` from (object, offset) to t (to other[] when t is full). */
static void tally_site_add(struct tally_sites *t, struct tally_index *x, uint32_t object,
                           uint64_t offset, uint32_t call, uint64_t count)
{
    if (object == UINT32_MAX) {
        t->other[call] += count;
        return;
    }
    uint32_t h = tally_index_hash(object, offset, call);
    for (; x->at[h]; h = (h + 1) & (TALLY_INDEX - 1)) {
        struct tally_site *e = &t->site[x->at[h] - 1];
        if (e->object == object && e->offset == offset && e->call == call) {
            e->count += count;
            return;
        }
    }
    if (t->n == TALLY_SITES) {
        t->other[call] += count;
        return;
    }
    x->at[h] = (uint16_t)(t->n + 1);
    t->site[t->n++] =
        (struct tally_site){.offset = offset, .object = object, .call = call, .count = count};
}

/* Not looked up yet, in a page's map of its objects to t's (tally_scan_sites). */
#define TALLY_OBJ_UNSEEN (UINT32_MAX - 1)

/* The sites of slot s into t; a page's object names are copied (bounded: the program can write
   them) into t's own table, once per page and object (objmap). */
static void tally_scan_sites(const struct iolab_page *page, const struct iolab_slot *s,
                             struct tally_sites *t, struct tally_index *x, uint32_t *objmap,
                             bool *forged)
{
    uint32_t n = __atomic_load_n(&s->sites.n, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < IOLAB_SITES; i++) {
        const struct iolab_site *e = &s->sites.site[i];
        uint32_t call1 = __atomic_load_n(&e->call, __ATOMIC_ACQUIRE);
        uint32_t object = e->object;
        uint64_t count = tally_take(&e->count, forged);
        if (!call1 || !count)
            continue;
        if (call1 > IOLAB_NCALLS || object >= IOLAB_OBJECTS) {
            *forged = true;
            continue;
        }
        if (objmap[object] == TALLY_OBJ_UNSEEN) {
            const struct iolab_object *o = &page->objects[object];
            char name[IOLAB_OBJECT_NAME];
            memcpy(name, o->name, sizeof name);
            name[sizeof name - 1] = 0;
            objmap[object] = __atomic_load_n(&o->state, __ATOMIC_ACQUIRE) == IOLAB_OBJECT_READY
                                 ? tally_object(t, name, o->exe != 0)
                                 : UINT32_MAX;
        }
        tally_site_add(t, x, objmap[object], e->offset, call1 - 1, count);
    }
    for (unsigned c = 0; c < IOLAB_NCALLS; c++)
        t->other[c] += tally_take(&s->sites.other[c], forged);
}

uint64_t tally_sites_calls(const struct tally_sites *t, unsigned call)
{
    uint64_t n = call < IOLAB_NCALLS ? t->other[call] : 0;
    for (uint32_t i = 0; i < t->n; i++)
        if (t->site[i].call == call)
            n += t->site[i].count;
    return n;
}

/* a += b for sites: b's objects are named again in a's table. */
static void tally_sites_add(struct tally_sites *a, const struct tally_sites *b)
{
    struct tally_index x;
    tally_index_make(&x, a);
    for (uint32_t i = 0; i < b->n; i++) {
        const struct tally_site *e = &b->site[i];
        uint32_t at = e->object < b->nobjects
                          ? tally_object(a, b->objects[e->object].name, b->objects[e->object].exe)
                          : UINT32_MAX;
        tally_site_add(a, &x, at, e->offset, e->call, e->count);
    }
    for (unsigned c = 0; c < IOLAB_NCALLS; c++)
        a->other[c] += b->other[c];
}

static void tally_scan(const struct iolab_page *page, uint32_t nslots, uint32_t prog, uint32_t run,
                       struct tally_totals *out)
{
    memset(out, 0, sizeof *out);
    if (!page || nslots < 2)
        return;
    if (!tally_header_intact(page, nslots))
        out->forged = true;
    struct tally_index x;
    memset(&x, 0, sizeof x);
    uint32_t objmap[IOLAB_OBJECTS];
    for (unsigned o = 0; o < IOLAB_OBJECTS; o++)
        objmap[o] = TALLY_OBJ_UNSEEN;
    uint32_t used = __atomic_load_n(&page->next_slot, __ATOMIC_ACQUIRE);
    if (used > nslots - 1) {
        used = nslots - 1;
        out->forged = true; /* a claim beyond the validated page: someone wrote the header */
    }
    for (uint32_t i = 0; i < used; i++) {
        const struct iolab_slot *s = iolab_page_slot(page, nslots, i);
        if (!s || (prog != TALLY_ANY_PROG && s->prog != prog) ||
            (run != TALLY_ANY_RUN && s->run != run))
            continue;
        out->slots++;
        bool *f = &out->forged;
        if (s->run > out->max_run || out->slots == 1) {
            /* A newer run: the gauges of older runs are what a restarted program left. */
            out->max_run = s->run;
            out->in_flight = out->waiting = out->in_flight_oldest_ns = 0;
            memset(out->in_flight_hist, 0, sizeof out->in_flight_hist);
        }
        if (s->run == out->max_run) {
            out->in_flight += tally_take(&s->app.in_flight, f);
            out->waiting += tally_take(&s->app.waiting, f);
            uint64_t oldest = tally_take(&s->app.in_flight_oldest_ns, f);
            if (oldest > out->in_flight_oldest_ns)
                out->in_flight_oldest_ns = oldest;
            for (unsigned b = 0; b < IOLAB_HIST_BUCKETS; b++)
                out->in_flight_hist[b] += tally_take(&s->app.in_flight_hist[b], f);
        }
        for (unsigned c = 0; c < IOLAB_FAIL_NCALLS; c++)
            for (unsigned k = 0; k < IOLAB_FAIL_NCAUSES; k++)
                out->failed[c][k] += tally_take(&s->app.failed[c][k], f);
        out->shed += tally_take(&s->app.shed, f);
        for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
            out->calls[c].count += tally_take(&s->calls[c].count, f);
            out->calls[c].bytes += tally_take(&s->calls[c].bytes, f);
            out->calls[c].ns += tally_take(&s->calls[c].ns, f);
        }
        out->requests += tally_take(&s->app.requests, f);
        out->bytes += tally_take(&s->app.bytes, f);
        out->conns_opened += tally_take(&s->app.conns_opened, f);
        out->conns_closed += tally_take(&s->app.conns_closed, f);
        out->errors += tally_take(&s->app.errors, f);
        for (unsigned b = 0; b < IOLAB_HIST_BUCKETS; b++)
            out->hist[b] += tally_take(&s->app.hist[b], f);
        out->uring_submissions += tally_take(&s->app.uring_submissions, f);
        out->uring_completions += tally_take(&s->app.uring_completions, f);
        out->uring_enters += tally_take(&s->app.uring_enters, f);
        const uint64_t *from = (const uint64_t *)&s->fd;
        uint64_t *to = (uint64_t *)&out->fd;
        for (size_t k = 0; k < TALLY_FD_FIELDS; k++)
            to[k] += tally_take(&from[k], f);
        tally_scan_sites(page, s, &out->sites, &x, objmap, f);
    }
    /* A call split by kind of descriptor is counted in its kinds only (iolab_fdsplit_total). */
    for (unsigned c = 0; c < IOLAB_NCALLS; c++)
        out->calls[c].count += iolab_fdsplit_total(&out->fd, c);
}

/*
 * Moves happen only when the page is full and the (prog, run) pairs change, one per claim, so a
 * read that overlaps one is rare and the next is very likely clean. A mover killed half-way
 * leaves the seqlock open until the next claim finishes its move: after TALLY_TRIES the last
 * scan stands and says so (unsettled). A program can hold the seqlock open on purpose, so the
 * tries are few: each is a scan of up to every slot, on every tick, for every program.
 */
#define TALLY_TRIES 8

void tally_sum(const struct iolab_page *page, uint32_t nslots, uint32_t prog, uint32_t run,
               struct tally_totals *out)
{
    int i;
    for (i = 0; i < TALLY_TRIES; i++) {
        uint32_t token;
        int begun = page ? iolab_page_read_begin(page, &token) : 0;
        tally_scan(page, nslots, prog, run, out);
        if (!page || out->forged || (begun == 0 && iolab_page_read_end(page, token) == 0))
            break;
    }
    out->unsettled = i == TALLY_TRIES;
    out->lost = tally_overflow(page);
}

void tally_page(const struct iolab_page *page, uint32_t nslots, struct tally_totals *out)
{
    tally_sum(page, nslots, TALLY_ANY_PROG, TALLY_ANY_RUN, out);
}

void tally_add(struct tally_totals *a, const struct tally_totals *b)
{
    for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
        a->calls[c].count += b->calls[c].count;
        a->calls[c].bytes += b->calls[c].bytes;
        a->calls[c].ns += b->calls[c].ns;
    }
    a->requests += b->requests;
    a->bytes += b->bytes;
    a->conns_opened += b->conns_opened;
    a->conns_closed += b->conns_closed;
    a->errors += b->errors;
    for (unsigned h = 0; h < IOLAB_HIST_BUCKETS; h++)
        a->hist[h] += b->hist[h];
    a->uring_submissions += b->uring_submissions;
    a->uring_completions += b->uring_completions;
    a->uring_enters += b->uring_enters;
    tally_fd_add(&a->fd, &b->fd);
    a->slots += b->slots;
    a->unsettled |= b->unsettled;
    a->forged = a->forged || b->forged;
    a->lost += b->lost;
    for (unsigned c = 0; c < IOLAB_FAIL_NCALLS; c++)
        for (unsigned k = 0; k < IOLAB_FAIL_NCAUSES; k++)
            a->failed[c][k] += b->failed[c][k];
    a->shed += b->shed;
    tally_sites_add(&a->sites, &b->sites);
}

uint32_t tally_overflow(const struct iolab_page *page)
{
    if (!page)
        return 0;
    return __atomic_load_n(&page->overflow_claims, __ATOMIC_RELAXED) +
           __atomic_load_n(&page->moves_broken, __ATOMIC_RELAXED);
}

void tally_fd_add(struct iolab_fdsplit *a, const struct iolab_fdsplit *b)
{
    uint64_t *to = (uint64_t *)a;
    const uint64_t *from = (const uint64_t *)b;
    for (size_t k = 0; k < TALLY_FD_FIELDS; k++)
        to[k] += from[k];
}
