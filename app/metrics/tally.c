/*
 * tally: see tally.h. Only the first next_slot slots can be in use, and the slot count
 * used to bound every loop is the one validated when the page was mapped, never the header's
 * current value, which any program of the scenario could overwrite.
 *
 * One scan (tally_scan) sums the slots; tally_sum repeats it until no move of counts between
 * slots overlapped it (iolab_page_read_begin/end), so a move is seen whole or not at all.
 */
#include "tally.h"
#include "iolab_page.h"

#include <string.h>

static void tally_scan(const struct iolab_page *page, uint32_t nslots, uint32_t prog, uint32_t run,
                       struct tally_totals *out)
{
    memset(out, 0, sizeof *out);
    if (!page || nslots < 2)
        return;
    uint32_t used = __atomic_load_n(&page->next_slot, __ATOMIC_ACQUIRE);
    if (used > nslots - 1)
        used = nslots - 1;
    for (uint32_t i = 0; i < used; i++) {
        const struct iolab_slot *s = iolab_page_slot(page, nslots, i);
        if (!s || s->prog != prog || (run != TALLY_ANY_RUN && s->run != run))
            continue;
        out->slots++;
        if (s->run > out->max_run)
            out->max_run = s->run;
        for (unsigned c = 0; c < IOLAB_NCALLS; c++) {
            out->calls[c].count += iolab_load(&s->calls[c].count);
            out->calls[c].bytes += iolab_load(&s->calls[c].bytes);
            out->calls[c].ns += iolab_load(&s->calls[c].ns);
        }
        out->requests += iolab_load(&s->app.requests);
        out->bytes += iolab_load(&s->app.bytes);
        out->conns_opened += iolab_load(&s->app.conns_opened);
        out->conns_closed += iolab_load(&s->app.conns_closed);
        out->errors += iolab_load(&s->app.errors);
        for (unsigned b = 0; b < IOLAB_HIST_BUCKETS; b++)
            out->hist[b] += iolab_load(&s->app.hist[b]);
    }
}

/*
 * Moves happen only when the page is full and the (prog, run) pairs change, one per claim, so a
 * read that overlaps one is rare and the next is very likely clean. A mover killed half-way
 * leaves the seqlock open until the next claim finishes its move: after TALLY_TRIES the last
 * scan stands and says so (unsettled).
 */
#define TALLY_TRIES 64

void tally_sum(const struct iolab_page *page, uint32_t nslots, uint32_t prog, uint32_t run,
               struct tally_totals *out)
{
    for (int i = 0; i < TALLY_TRIES; i++) {
        uint32_t token;
        int begun = page ? iolab_page_read_begin(page, &token) : 0;
        tally_scan(page, nslots, prog, run, out);
        if (!page || (begun == 0 && iolab_page_read_end(page, token) == 0))
            return;
    }
    out->unsettled = 1;
}

uint32_t tally_overflow(const struct iolab_page *page)
{
    if (!page)
        return 0;
    return __atomic_load_n(&page->overflow_claims, __ATOMIC_RELAXED) +
           __atomic_load_n(&page->moves_broken, __ATOMIC_RELAXED);
}
