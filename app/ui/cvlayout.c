/*
 * cvlayout: which calls and columns of the counters pane and the comparison fit, as pure
 * functions of counts and widths. The promise they keep at every size: the calls a step names
 * come before any other, and the mode running now always has its row.
 */
#include "cvlayout.h"

size_t cvlayout_order(const uint64_t *count, const double *rate, size_t ncalls,
                      const unsigned *watch, size_t nwatch, unsigned *out, size_t *nwatched)
{
    size_t n = 0;
    for (size_t k = 0; k < nwatch; k++)
        if (watch[k] < ncalls && count[watch[k]]) {
            bool dup = false;
            for (size_t j = 0; j < n; j++)
                dup |= out[j] == watch[k];
            if (!dup)
                out[n++] = watch[k];
        }
    *nwatched = n;
    for (unsigned i = 0; i < ncalls; i++) {
        bool listed = false;
        for (size_t j = 0; j < *nwatched; j++)
            listed |= out[j] == i;
        if (listed || !count[i])
            continue;
        /* Insertion by rate, then count, after the watched calls: the busiest first. */
        size_t k = n++;
        while (k > *nwatched) {
            unsigned p = out[k - 1];
            if (rate[p] > rate[i] || (rate[p] == rate[i] && count[p] >= count[i]))
                break;
            out[k] = p;
            k--;
        }
        out[k] = i;
    }
    return n;
}

size_t cvlayout_pack(const int *w, size_t n, int linew, int gap, int lines)
{
    size_t k = 0;
    for (int line = 0; line < lines && k < n; line++) {
        int used = w[k++]; /* a line holds at least one item */
        while (k < n && used + gap + w[k] <= linew)
            used += gap + w[k++];
    }
    return k;
}

int cvlayout_pack_rows(const int *w, size_t n, int linew, int gap)
{
    int rows = 0;
    while (cvlayout_pack(w, n, linew, gap, rows) < n)
        rows++;
    return rows;
}

bool cvlayout_compare_cols(int w, int name_need, const int *value_w, const int *full,
                           const int *brief, int ncols, int *namew, int *colw)
{
    bool shorter = false;
    for (int pass = 0; pass < 2; pass++) {
        shorter = pass == 1;
        int sum = 0;
        for (int k = 0; k < ncols; k++) {
            int head = shorter ? brief[k] : full[k];
            colw[k] = (value_w[k] > head ? value_w[k] : head) + 1;
            sum += colw[k];
        }
        if (sum + name_need <= w || shorter) {
            *namew = w - sum < name_need ? w - sum : name_need;
            if (*namew < 1)
                *namew = 1;
            /* What is left makes the bars longer, shared evenly. */
            int extra = ncols ? (w - sum - *namew) / ncols : 0;
            if (extra > 0)
                for (int k = 0; k < ncols; k++)
                    colw[k] += extra;
            break;
        }
    }
    return shorter;
}

int cvlayout_compare_rows(int avail, int n)
{
    if (3 * n <= avail)
        return 3;
    return 2 * n <= avail ? 2 : 1;
}

size_t cvlayout_compare_pick(size_t n, size_t fit, int now, size_t *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < fit; i++)
        out[k++] = i;
    if (k > 0 && k < n && now >= 0 && (size_t)now >= k && (size_t)now < n)
        out[k - 1] = (size_t)now;
    return k;
}
