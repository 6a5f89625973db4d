/*
 * jail: the engine's side of iolab-sandbox. One jail per running scenario: every program of the
 * scenario (server and clients) runs inside it, so that they share one private loopback, one
 * private /dev/shm, and one fate: closing the jail kills everything still in it.
 *
 * The engine never builds namespaces itself; it asks jail_argv() for the command line that runs
 * a program inside the jail and spawns that with libuv like any other child.
 */
#ifndef IOLAB_JAIL_H
#define IOLAB_JAIL_H

#include "tier.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct jail_options {
    const char *sandbox_path; /* iolab-sandbox */
    const char *workdir;      /* the scenario's work directory (created by the engine) */
    enum iolab_tier tier;     /* IOLAB_TIER_AUTO, or a lower tier to force */
    double timeout_s;         /* wall-clock limit for each program; 0: none */
    /* Each program's limits (iolab-sandbox --nofile, --nproc, --as); 0: the sandbox's default. */
    long open_files, processes, address_space_mb;
    long tmp_mb; /* size of the full tier's private /tmp (iolab-sandbox --tmp-size); 0: default */
    /* Host directories the programs must see where they are, /tmp included (a pack's); iolab's
       own tree is always added (iolab-sandbox --ro). NULL-terminated, or NULL. */
    const char *const *visible;
};

struct jail;

/* Probes the machine, builds the scenario's jail. 0 or a negative errno (why says what failed). */
int jail_open(struct jail **out, const struct jail_options *opts, char *why, size_t whylen);

/*
 * The argv that runs prog_argv (NULL-terminated) inside the jail, NULL-terminated, allocated;
 * free with jail_argv_free(). keep_fds lists descriptors the program must inherit (the counter
 * page), nkeep of them.
 */
char **jail_argv(struct jail *j, char *const *prog_argv, const int *keep_fds, size_t nkeep);
/* The same, and when the program's subtree has ended the sandbox writes its wait4() rusage as
 * one JSON line on report_fd (iolab-sandbox --report-fd; -1: no report). */
char **jail_argv_report(struct jail *j, char *const *prog_argv, const int *keep_fds, size_t nkeep,
                        int report_fd);

/* The same, with more iolab-sandbox options before the program (NULL-terminated, or NULL):
   "--as", "0" for a program that AddressSanitizer must be able to map its shadow memory for. */
char **jail_argv_opts(struct jail *j, char *const *prog_argv, const int *keep_fds, size_t nkeep,
                      int report_fd, const char *const *opts);
void jail_argv_free(char **argv);

/* The TCP port the scenario's servers should use ({port} in lesson arguments). */
int jail_port(const struct jail *j);

enum iolab_tier jail_tier(const struct jail *j);

/* What the tier in force lacks and how to get the full tier; NULL when nothing is missing. */
const char *jail_missing(const struct jail *j);

/* IOLAB_SESSION given to the programs: POSIX IPC names starting with it are swept in the
 * tiers without an IPC namespace. */
const char *jail_session(const struct jail *j);

/*
 * Whether the counts of each program are its own to write: no program of the jail can reach
 * another's counter page through /proc (jail.c says when that holds: the full and reduced tiers
 * with Landlock). false for NULL.
 */
bool jail_counts_protected(const struct jail *j);

/* Writes the `sandbox` object of `iolab run --json` (tier, features, missing, counts_protected)
   into buf. */
int jail_describe_json(const struct jail *j, char *buf, size_t len);

/* Kills everything left in the jail, reaps its helper, removes what it created. Idempotent. */
void jail_close(struct jail *j);

#endif
