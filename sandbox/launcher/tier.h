/*
 * tier: the sandbox's tiers, the one vocabulary for them. The launcher (iolab-sandbox) chooses
 * and reports a tier, and iolab names it on screen, in `iolab run --json` and on the command
 * line (--tier): both use this enum and this name table, header-only so that the launcher stays
 * a standalone executable.
 */
#ifndef IOLAB_TIER_H
#define IOLAB_TIER_H

#include <string.h>

enum iolab_tier {
    IOLAB_TIER_FULL,    /* user, PID, network, IPC and mount namespaces */
    IOLAB_TIER_REDUCED, /* Landlock, subreaper, pidfds, removal of leftover IPC */
    IOLAB_TIER_MINIMAL, /* rlimits and reaping only */
    IOLAB_TIER_AUTO,    /* a request: the best this machine allows */
    IOLAB_NTIERS
};

static const char *const iolab_tier_names[IOLAB_NTIERS] = {
    [IOLAB_TIER_FULL] = "full",
    [IOLAB_TIER_REDUCED] = "reduced",
    [IOLAB_TIER_MINIMAL] = "minimal",
    [IOLAB_TIER_AUTO] = "auto",
};

/* "full", "reduced", "minimal", "auto"; "?" for anything else. */
static inline const char *iolab_tier_name(enum iolab_tier t)
{
    return (unsigned)t < IOLAB_NTIERS ? iolab_tier_names[t] : "?";
}

/* The tier with this name, or -1. */
static inline int iolab_tier_parse(const char *name)
{
    for (int t = 0; t < IOLAB_NTIERS; t++)
        if (!strcmp(name, iolab_tier_names[t]))
            return t;
    return -1;
}

#endif
