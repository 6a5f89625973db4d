/*
 * waits: latency that counts the requests still waiting for an answer.
 *
 * A closed-loop client (each connection sends its next request only when the last is answered)
 * records nothing while a request goes unanswered: an iterative server that serves one client
 * of eight shows the one client's round trips and none of the seven others' waits, and its
 * percentiles look excellent. The remedy is the one HdrHistogram and wrk2 apply to "coordinated
 * omission": a request that has waited W stands for the requests its connection would have sent
 * in that time at the pace of the answered ones (every P, P being their mean latency), which
 * would have waited W, W - P, W - 2P, ... So a waiting connection weighs as much as an answered
 * one, and the percentiles say what its client lived through.
 *
 * Each wait is taken at the lower edge of its histogram bucket (a request waits at least that
 * long: the figure errs short, never long). Without answered requests there is no pace, and each
 * waiting request counts once, as long as it has waited.
 */
#ifndef IOLAB_WAITS_H
#define IOLAB_WAITS_H

#include "iolab_counters.h"
#include "snapshot.h"

#include <stdint.h>

/* out = answered plus the waiting requests (ages in waiting[]), paced as above. All three are
   IOLAB_HIST_BUCKETS histograms; out may be answered. */
void waits_fold(uint64_t *out, const uint64_t *answered, const uint64_t *waiting);

/* Percentiles over answered and waiting requests (waits_fold); samples counts real requests
   (answered ones plus those waiting), not the paced stand-ins. */
void waits_latency(struct snapshot_latency *out, const uint64_t *answered, const uint64_t *waiting);

/* The mean of a histogram's samples, each at its bucket's midpoint; 0 when empty. */
double waits_mean_ns(const uint64_t *hist);

#endif
