/*
 * sweep_fake: a client whose figure is known, for the sweep tests (tests/integration/
 * test_sweep.cpp). It publishes requests into the counter page at a rate its arguments fix:
 *
 *   sweep_fake --value N --mode flat|linear [--fail-at N] [--errors-at N] [--latency-us U]
 *
 * flat: 1000 requests/s whatever N is; linear: 10*N requests/s. Over N = 10, 30, 300, 1000 the
 * linear series starts below flat and ends above it, so a chart shows one crossing between 30
 * and 300. Each request is 100 bytes and takes 1 ms of latency (published). --fail-at N makes the
 * program exit with status 1 at once when its value is N (a point that fails); --errors-at N
 * makes it count one failed request in ten when its value is N (a point with errors, measured).
 * --latency-us U publishes U microseconds of latency instead of 1 ms. --waiting N publishes N
 * requests still unanswered, each waiting for an hour (a client kept waiting longer than any
 * measured segment, or a stale gauge). It runs until SIGTERM.
 */
#include "iolab_counters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    long value = 1, fail_at = -1, errors_at = -1, latency_us = 1000, waiting = 0;
    const char *mode = "flat";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--value"))
            value = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--mode"))
            mode = argv[i + 1];
        else if (!strcmp(argv[i], "--fail-at"))
            fail_at = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--errors-at"))
            errors_at = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--latency-us"))
            latency_us = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--waiting"))
            waiting = atol(argv[i + 1]);
    }
    if (value == fail_at) {
        fprintf(stderr, "sweep_fake: told to fail at %ld\n", value);
        return 1;
    }
    double rate = !strcmp(mode, "linear") ? 10.0 * (double)value : 1000.0;
    printf("sweep_fake: %s at %ld: %.0f requests/s\n", mode, value, rate);
    fflush(stdout);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint64_t sent = 0;
    for (;;) {
        struct timespec now, nap = {0, 2000000};
        nanosleep(&nap, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        double el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
        uint64_t due = (uint64_t)(el * rate);
        struct iolab_app *a = iolab_app();
        if (a && waiting > 0) {
            const uint64_t hour_ns = 3600ull * 1000000000ull;
            a->in_flight = a->waiting = (uint64_t)waiting;
            a->in_flight_oldest_ns = hour_ns;
            a->in_flight_hist[iolab_hist_bucket(hour_ns)] = (uint64_t)waiting;
        }
        for (; sent < due; sent++)
            if (a) {
                iolab_add(&a->requests, 1);
                iolab_add(&a->bytes, 100);
                iolab_app_latency(a, (uint64_t)latency_us * 1000);
                if (value == errors_at && sent % 10 == 0)
                    iolab_add(&a->errors, 1);
            }
    }
}
