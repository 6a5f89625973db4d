/*
 * footrows: the arithmetic behind footrows.h. Every function takes counts and returns counts, so
 * a layout is checked at any size without a terminal.
 */
#include "footrows.h"

int footrows_page(int shown)
{
    return shown > 1 ? shown - 1 : 1;
}

int footrows_text_need(int text_rows)
{
    /* R rows, the last of them the more hint's (it may not fit after the last word), so R - 1
       rows of text and FOOTROWS_TEXT_PRESSES pages of R - 2 rows after them: R - 1 + p (R - 2)
       >= N, R = ceil((N + 2p + 1) / (p + 1)). A text that fits has no hint. */
    int p = FOOTROWS_TEXT_PRESSES;
    int need = (text_rows + 2 * p + 1 + p) / (p + 1);
    if (need > text_rows)
        need = text_rows;
    return need > 3 ? need : (text_rows < 3 ? text_rows : 3);
}

int footrows_split(int inner_h, int text_rows, int want, int least, bool foot_first)
{
    if (inner_h <= 0 || want <= 0)
        return 0;
    if (want > inner_h)
        want = inner_h;
    if (text_rows + want <= inner_h)
        return want;
    int keep = foot_first ? 2 : footrows_text_need(text_rows);
    if (keep > inner_h)
        keep = inner_h;
    int foot = inner_h - keep;
    /* The foot's heading and first check stay in sight, even at the text's expense. */
    if (least > want)
        least = want;
    if (foot < least)
        foot = least < inner_h ? least : inner_h;
    return foot < want ? foot : want;
}

bool footrows_more_fits(int line_w, int hint_w, int w)
{
    return line_w + 1 + hint_w <= w;
}

void footrows_checks(struct footrows_check *ck, size_t n, int room, bool open_passes,
                     struct footrows_plan *plan)
{
    *plan = (struct footrows_plan){0};
    size_t ntodo = 0, nunj = 0;
    for (size_t i = 0; i < n; i++) {
        ck[i].rows = 0;
        if (ck[i].whole < 1)
            ck[i].whole = 1;
        ntodo += ck[i].state == FOOTROWS_FAIL || ck[i].state == FOOTROWS_OPEN;
        nunj += ck[i].state == FOOTROWS_UNJUDGED;
        plan->npass += ck[i].state == FOOTROWS_PASS;
    }
    if (!n || room <= 0)
        return;
    /* The compact form first: a heading, a row per check still to do, the checks not judged on
       one row, the holding ones on one. */
    int unj = nunj > 0, pass = plan->npass > 0;
    int entries = (int)ntodo + unj + pass;
    /* The first check to do keeps a few rows of its sentence before the other checks get
       theirs (a heading, its name and a row for the others stay), so that why it fails shows
       even among many. */
    size_t first = n;
    for (size_t i = 0; i < n && first == n; i++)
        if (ck[i].state == FOOTROWS_FAIL || ck[i].state == FOOTROWS_OPEN)
            first = i;
    int lead = 0;
    if (first < n) {
        lead = ck[first].whole - 1;
        if (lead > FOOTROWS_LEAD)
            lead = FOOTROWS_LEAD;
        if (lead > room - 3)
            lead = room - 3 > 0 ? room - 3 : 0;
    }
    int avail = room - 1 - lead;
    int shown = entries; /* entries with their row, in order: to do, not judged, holding */
    if (entries > avail) {
        /* The last row counts what is left out, unless it would be the only one: then the
           first check has it, and the heading says the whole is on a key. */
        shown = avail > 1 ? avail - 1 : avail;
        plan->cut = true;
    }
    plan->ufold = unj && nunj > 1;
    plan->fold = pass && (!open_passes || plan->npass > 1);
    /* With nothing left to do, the holding checks are what there is to read: each on its row
       when they fit. */
    if (!ntodo && !nunj)
        open_passes = true;
    int used = 1;
    int e = 0;
    bool unj_row = false, pass_row = false;
    for (size_t i = 0; i < n; i++) {
        bool todo = ck[i].state == FOOTROWS_FAIL || ck[i].state == FOOTROWS_OPEN;
        bool first_unj = ck[i].state == FOOTROWS_UNJUDGED && !unj_row;
        bool first_pass = ck[i].state == FOOTROWS_PASS && !pass_row;
        unj_row |= first_unj;
        pass_row |= first_pass;
        if (!todo && !first_unj && !first_pass)
            continue;
        if (e++ < shown) {
            ck[i].rows = 1;
            used++;
        } else {
            plan->left += first_unj ? nunj : first_pass ? plan->npass : 1;
        }
    }
    if (first < n && ck[first].rows) {
        ck[first].rows += lead; /* a sentence cut here is cut below too, or a row is left out */
        used += lead;
    }
    if (plan->left) {
        plan->rows = used + (shown > 0 && room > used);
        return;
    }
    /* Then the sentences, in the order listed: the first failing check whole before the next
       one gets a row more. */
    int extra = room - used;
    for (size_t i = 0; i < n; i++) {
        if (ck[i].state != FOOTROWS_FAIL && ck[i].state != FOOTROWS_OPEN)
            continue;
        int more = ck[i].whole - ck[i].rows < extra ? ck[i].whole - ck[i].rows : extra;
        ck[i].rows += more;
        extra -= more;
        used += more;
        plan->cut |= ck[i].rows < ck[i].whole;
    }
    /* Then a row each for the checks not judged, and for the holding ones when opened. */
    if (plan->ufold && extra >= (int)nunj - 1) {
        for (size_t i = 0; i < n; i++)
            ck[i].rows = ck[i].state == FOOTROWS_UNJUDGED ? 1 : ck[i].rows;
        extra -= (int)nunj - 1;
        used += (int)nunj - 1;
        plan->ufold = false;
    }
    if (plan->ufold)
        plan->cut = true;
    if (open_passes && plan->fold && extra >= (int)plan->npass - 1) {
        for (size_t i = 0; i < n; i++)
            ck[i].rows = ck[i].state == FOOTROWS_PASS ? 1 : ck[i].rows;
        used += (int)plan->npass - 1;
        extra -= (int)plan->npass - 1;
        plan->fold = false;
    }
    /* Opened, a holding check's name and figure wrap when the rows are there. */
    for (size_t i = 0; !plan->fold && i < n; i++)
        if (ck[i].state == FOOTROWS_PASS && ck[i].whole - 1 <= extra) {
            extra -= ck[i].whole - 1;
            used += ck[i].whole - 1;
            ck[i].rows = ck[i].whole;
        }
    plan->rows = used;
}
