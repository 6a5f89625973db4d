/*
 * sweepio: see sweepio.h. Writing goes through the one JSON writer (json.h); reading back takes
 * the typed record lesson/record_run.c parses (struct sweep_record) and copies it into the plain
 * result struct, so nothing in engine/ parses JSON itself.
 */
#include "sweepio.h"
#include "lesson/record.h"
#include "termsafe.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *sweepio_mode(const struct sweep_result *res, size_t s)
{
    return res->mode_ids[s][0] ? res->mode_ids[s] : "run";
}

void sweepio_json(struct json_out *j, const char *key, const struct sweep_result *res)
{
    const struct lesson_sweep *sw = res->sw;
    json_object(j, key);
    json_string(j, "param", sw->param);
    json_string(j, "figure", figure_at(sw->figure)->name);
    json_string(j, "unit", figure_at(sw->figure)->unit);
    json_double(j, "seconds_per_point", res->seconds, 2);
    json_string(j, "scale", sw->log_x ? "log" : "linear");
    json_string(j, "tier", res->tier);
    json_bool(j, "finished", res->finished);
    json_bool(j, "stopped", res->stopped);
    json_u64(j, "points_done", res->done);
    json_array(j, "values");
    for (size_t v = 0; v < res->nvalues; v++)
        json_string(j, NULL, sw->text[v]);
    json_end(j);
    json_array(j, "modes");
    for (size_t s = 0; s < res->nmodes; s++)
        json_string(j, NULL, sweepio_mode(res, s));
    json_end(j);
    json_array(j, "points");
    for (size_t k = 0; k < res->done && k < res->nmodes * res->nvalues; k++) {
        size_t s = k % res->nmodes, v = k / res->nmodes;
        const struct sweep_point *p = &res->points[s][v];
        json_object(j, NULL);
        json_string(j, "mode", sweepio_mode(res, s));
        json_string(j, "value", sw->text[v]);
        json_double(j, "x", sw->x[v], 0);
        json_bool(j, "measured", p->measured);
        if (p->has_figure)
            json_double(j, "figure", p->figure, 4);
        else
            json_null(j, "figure");
        json_double(j, "seconds", p->seconds, 3);
        json_u64(j, "requests", p->requests);
        json_u64(j, "bytes", p->bytes);
        json_u64(j, "errors", p->errors);
        json_u64(j, "connections", p->conns);
        json_u64(j, "waiting", p->waiting);
        json_u64(j, "failed", p->failed);
        /* The kept figures under their stored keys, 0 where one is undefined; a point that
           does not know how its bytes moved (read back from an older result) leaves that out. */
        for (size_t i = 0; i < sweep_nkept; i++) {
            const struct sweep_kept *k = &sweep_kept[i];
            if (k->id != FIGURE_RCHAR_PER_BYTE || p->has[k->id])
                json_double(j, k->key, sweep_point_fig(p, k->id), k->decimals);
        }
        json_string(j, "problem", p->problem[0] ? p->problem : NULL);
        json_end(j);
    }
    json_end(j);
    json_end(j);
}

char *sweepio_json_text(const struct sweep_result *res)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    struct json_out j;
    json_init(&j, f);
    sweepio_json(&j, NULL, res);
    if (fclose(f) != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/*
 * A CSV field: quoted when it holds a comma, a quote or a newline. Mode ids, values and problems
 * come from the pack and the programs: their controls are shown escaped (termsafe.h), which adds
 * no comma, quote or newline, so the quoting is decided on the text as it is.
 */
void sweepio_csv_field(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n")) {
        termsafe_fputs(s, f);
        return;
    }
    fputc('"', f);
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        termsafe_write(f, s, (size_t)(q - s));
        fputs("\"\"", f);
    }
    termsafe_fputs(s, f);
    fputc('"', f);
}

void sweepio_csv(FILE *f, const struct sweep_result *res)
{
    const struct lesson_sweep *sw = res->sw;
    fputs("mode,", f);
    sweepio_csv_field(f, sw->param);
    fprintf(f, ",x,%s,measured,seconds,requests,bytes,errors,connections,waiting,failed,",
            figure_at(sw->figure)->name);
    for (size_t i = 0; i < sweep_nkept; i++)
        if (sweep_kept[i].in_csv)
            fprintf(f, "%s,", sweep_kept[i].key);
    fputs("problem\n", f);
    for (size_t k = 0; k < res->done && k < res->nmodes * res->nvalues; k++) {
        size_t s = k % res->nmodes, v = k / res->nmodes;
        const struct sweep_point *p = &res->points[s][v];
        sweepio_csv_field(f, sweepio_mode(res, s));
        fputc(',', f);
        sweepio_csv_field(f, sw->text[v]);
        fprintf(f, ",%.0f,", sw->x[v]);
        if (p->has_figure)
            fprintf(f, "%.6g", p->figure);
        fprintf(f, ",%d,%.3f,%llu,%llu,%llu,%llu,%llu,%llu,", p->measured, p->seconds,
                (unsigned long long)p->requests, (unsigned long long)p->bytes,
                (unsigned long long)p->errors, (unsigned long long)p->conns,
                (unsigned long long)p->waiting, (unsigned long long)p->failed);
        for (size_t i = 0; i < sweep_nkept; i++)
            if (sweep_kept[i].in_csv)
                fprintf(f, "%.*f,", sweep_kept[i].decimals, sweep_point_fig(p, sweep_kept[i].id));
        sweepio_csv_field(f, p->problem);
        fputc('\n', f);
    }
}

const char *sweepio_figure_text(enum figure_id fig, double v, char *buf, size_t len)
{
    return figure_format(fig, v, buf, len);
}

void sweepio_text(FILE *f, const struct sweep_result *res)
{
    const struct lesson_sweep *sw = res->sw;
    /* The parameter, the values, the mode ids and the problems are the pack's and the
       programs' words: every line that holds one is printed escaped. */
    char what[128];
    termsafe_fprintf(f, "sweep: %s (%s) per point, %.3g s each, sandbox %s%s\n",
                     sweep_title(sw, what, sizeof what), figure_at(sw->figure)->unit, res->seconds,
                     res->tier, res->stopped ? "; STOPPED before the end" : "");
    termsafe_fprintf(f, "%10s", sw->param);
    for (size_t s = 0; s < res->nmodes; s++)
        termsafe_fprintf(f, "  %16.16s", sweepio_mode(res, s));
    fputc('\n', f);
    for (size_t v = 0; v < res->nvalues; v++) {
        termsafe_fprintf(f, "%10s", sw->text[v]);
        for (size_t s = 0; s < res->nmodes; s++) {
            const struct sweep_point *p = &res->points[s][v];
            char num[32] = "-";
            if (v * res->nmodes + s < res->done) {
                if (p->has_figure)
                    sweepio_figure_text(sw->figure, p->figure, num, sizeof num);
                else
                    snprintf(num, sizeof num, "%s", p->measured ? "no requests" : "failed");
                if (p->problem[0])
                    strncat(num, " !", sizeof num - strlen(num) - 1);
            }
            fprintf(f, "  %16s", num);
        }
        fputc('\n', f);
    }
    fputs("\nper point: requests/s, calls per request, bytes per kernel read call (syscr), p99 "
          "latency, CPU\n",
          f);
    for (size_t k = 0; k < res->done && k < res->nmodes * res->nvalues; k++) {
        size_t s = k % res->nmodes, v = k / res->nmodes;
        const struct sweep_point *p = &res->points[s][v];
        /* Bytes per read call where the read calls moved the bytes, whole (never "4.017e+08");
           "-" where they moved almost none of them (splice, a mapping). */
        char per_read[32];
        if (p->has[FIGURE_RCHAR_PER_BYTE] && p->fig[FIGURE_RCHAR_PER_BYTE] < 0.1)
            snprintf(per_read, sizeof per_read, "-");
        else
            snprintf(per_read, sizeof per_read, "%.0f", sweep_point_fig(p, FIGURE_BYTES_PER_SYSCR));
        termsafe_fprintf(f,
                         "  %-16s %8s  %10.4g req/s  %8.3g calls/req  %10s B/syscr  p99 %8.3g ms  "
                         "cpu %5.0f%%  waiting %llu%s%s\n",
                         sweepio_mode(res, s), sw->text[v],
                         sweep_point_fig(p, FIGURE_REQUESTS_PER_S),
                         sweep_point_fig(p, FIGURE_ALL_CALLS_PER_REQ), per_read,
                         sweep_point_fig(p, FIGURE_P99_MS), sweep_point_fig(p, FIGURE_CPU_PCT),
                         (unsigned long long)p->waiting, p->problem[0] ? "  ! " : "", p->problem);
    }
    fputs("B/syscr - : the bytes moved without read calls (splice, a mapping).\n", f);
    fputs("! marks a point that was not clean (errors counted, a program failed): its figure "
          "is shown\nbut does not stand for the mode.\n",
          f);
}

/* A point's number under key, 0 when it has none. */
static double sweepio_num(const struct sweep_record_point *p, const char *key)
{
    double v = 0;
    return sweep_record_num(p, key, &v) ? v : 0;
}

/*
 * Whether a stored figure is defined. The JSON writes 0 where a figure was undefined, so it is
 * told again from what the point stores: a ratio over requests needs some, a latency a request
 * answered or waiting, a size of reads a read; a result saved before rchar_per_byte was kept
 * (present) does not say how its bytes moved.
 */
static bool sweepio_defined(const struct sweep_point *pt, enum figure_id id, bool present)
{
    switch (id) {
    case FIGURE_ALL_CALLS_PER_REQ:
    case FIGURE_SYSCR_PER_REQ:
    case FIGURE_CTX_PER_REQ:
        return present && pt->requests > 0;
    case FIGURE_P50_MS:
    case FIGURE_P99_MS:
        return present && (pt->requests > 0 || pt->waiting > 0 || pt->fig[id] > 0);
    case FIGURE_BYTES_PER_SYSCR:
        return present && pt->fig[id] > 0;
    default:
        return present;
    }
}

int sweepio_parse(const char *json, const struct lesson_scenario *sc, struct sweep_result *out)
{
    const struct lesson_sweep *sw = sc ? sc->sweep : NULL;
    struct sweep_record rec = {0};
    char why[120];
    if (!sw || !json || sweep_record_parse(json, &rec, why, sizeof why) < 0) {
        sweep_record_free(&rec);
        return -EINVAL;
    }
    memset(out, 0, sizeof *out);
    out->sw = sw;
    out->nvalues = sw->nvalues;
    out->seconds = rec.seconds_per_point;
    snprintf(out->tier, sizeof out->tier, "%s", rec.tier ? rec.tier : "-");
    for (size_t i = 0; i < rec.nmodes && out->nmodes < SWEEP_MAX_MODES; i++) {
        int idx = sc->nmodes ? lesson_mode_find(sc, rec.modes[i]) : -1;
        if (sc->nmodes && idx < 0)
            continue;
        out->modes[out->nmodes] = idx;
        snprintf(out->mode_ids[out->nmodes], sizeof out->mode_ids[0], "%s",
                 idx >= 0 ? sc->modes[idx].id : "");
        out->nmodes++;
    }
    /* Points are kept in run order; a point whose mode or value is gone ends what is kept, since
       "done" counts points in that order. */
    for (size_t i = 0; i < rec.npoints; i++) {
        const struct sweep_record_point *p = &rec.points[i];
        if (!out->nmodes || !p->mode || !p->value)
            break;
        size_t k = out->done, s = k % out->nmodes, v = k / out->nmodes;
        if (v >= sw->nvalues || strcmp(p->value, sw->text[v]) ||
            strcmp(p->mode, sweepio_mode(out, s)))
            break;
        struct sweep_point *pt = &out->points[s][v];
        pt->has_figure = sweep_record_num(p, "figure", &pt->figure);
        pt->measured = p->measured;
        pt->seconds = sweepio_num(p, "seconds");
        pt->requests = (uint64_t)sweepio_num(p, "requests");
        pt->bytes = (uint64_t)sweepio_num(p, "bytes");
        pt->errors = (uint64_t)sweepio_num(p, "errors");
        pt->conns = (uint64_t)sweepio_num(p, "connections");
        pt->waiting = (uint64_t)sweepio_num(p, "waiting");
        pt->failed = (uint64_t)sweepio_num(p, "failed");
        for (size_t n = 0; n < sweep_nkept; n++) {
            const struct sweep_kept *kept = &sweep_kept[n];
            bool present = sweep_record_num(p, kept->key, &pt->fig[kept->id]);
            if (!present)
                pt->fig[kept->id] = 0;
            pt->has[kept->id] = sweepio_defined(pt, kept->id, present);
        }
        if (p->problem)
            snprintf(pt->problem, sizeof pt->problem, "%s", p->problem);
        out->done++;
    }
    out->stopped = rec.stopped;
    out->finished = out->done == out->nmodes * out->nvalues && out->done > 0;
    sweep_record_free(&rec);
    return 0;
}
