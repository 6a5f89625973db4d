/*
 * human: see human.h. Decimal units throughout (kB = 1000 bytes), as network and storage
 * figures are quoted; three significant figures, enough to compare modes by eye.
 */
#include "human.h"
#include "metrics/figure.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *human_count(uint64_t v, char *buf, size_t len)
{
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < n && o + 1 < len; i++) {
        if (i > 0 && (n - i) % 3 == 0 && o + 2 < len)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o < len ? o : len - 1] = '\0';
    return buf;
}

/* The SI figures are the figure table's one formatter (metrics/figure.h). */
const char *human_si(double v, char *buf, size_t len)
{
    return figure_format_si(v, "", "", false, buf, len);
}

const char *human_bytes(double v, char *buf, size_t len)
{
    return figure_format_si(v, " ", "B", false, buf, len);
}

const char *human_ns(double ns, char *buf, size_t len)
{
    return figure_format_ns(ns, buf, len);
}

int human_parse(const char *s, double *out, char *why, size_t len)
{
    static const struct {
        const char *suffix;
        double scale;
    } units[] = {
        {"", 1},           {"B", 1},           {"k", 1e3},           {"K", 1e3},
        {"kB", 1e3},       {"KB", 1e3},        {"M", 1e6},           {"MB", 1e6},
        {"G", 1e9},        {"GB", 1e9},        {"Ki", 1024.0},       {"KiB", 1024.0},
        {"Mi", 1048576.0}, {"MiB", 1048576.0}, {"Gi", 1073741824.0}, {"GiB", 1073741824.0},
    };
    char *end = NULL;
    while (isspace((unsigned char)*s))
        s++;
    double x = strtod(s, &end);
    if (end == s || !isfinite(x) || x < 0 || *s == '-' || *s == '+') {
        snprintf(why, len, "Type a number such as 16, 0.5 or 16.5k, then Enter.");
        return -1;
    }
    while (isspace((unsigned char)*end))
        end++;
    size_t n = strlen(end);
    while (n && isspace((unsigned char)end[n - 1]))
        n--;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strlen(units[i].suffix) == n && !strncmp(end, units[i].suffix, n)) {
            *out = x * units[i].scale;
            return 0;
        }
    snprintf(why, len,
             "'%.*s' is not a unit iolab reads: use k, M or G (thousands, millions, billions, as "
             "the screen writes them) or KiB, MiB, GiB.",
             (int)(n < 16 ? n : 16), end);
    return -1;
}
