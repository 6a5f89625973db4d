/*
 * human: see human.h. Decimal units throughout (kB = 1000 bytes), as network and storage
 * figures are quoted; three significant figures, enough to compare modes by eye.
 */
#include "human.h"

#include <stdio.h>

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

static const char *human_scaled(double v, const char *const *units, size_t nunits,
                                const char *space, char *buf, size_t len)
{
    size_t i = 0;
    double a = v < 0 ? -v : v;
    while (a >= 999.5 && i + 1 < nunits) {
        v /= 1000;
        a /= 1000;
        i++;
    }
    if (a >= 99.95 || i == 0)
        snprintf(buf, len, a >= 99.95 || v == (double)(long long)v ? "%.0f%s%s" : "%.3g%s%s", v,
                 space, units[i]);
    else
        snprintf(buf, len, "%.3g%s%s", v, space, units[i]);
    return buf;
}

const char *human_si(double v, char *buf, size_t len)
{
    static const char *const u[] = {"", "k", "M", "G", "T"};
    return human_scaled(v, u, 5, "", buf, len);
}

const char *human_bytes(double v, char *buf, size_t len)
{
    static const char *const u[] = {"B", "kB", "MB", "GB", "TB"};
    return human_scaled(v, u, 5, " ", buf, len);
}

const char *human_ns(double ns, char *buf, size_t len)
{
    if (ns < 1e3)
        snprintf(buf, len, "%.0f ns", ns);
    else if (ns < 1e6)
        snprintf(buf, len, "%.3g us", ns / 1e3);
    else if (ns < 1e9)
        snprintf(buf, len, "%.3g ms", ns / 1e6);
    else
        snprintf(buf, len, "%.3g s", ns / 1e9);
    return buf;
}
