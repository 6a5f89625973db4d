/*
 * packprog: the programs a pack brings as C sources (pack.json "build", lesson_build), built
 * with the exercises' build path (exercise/build.h): compiled inside the sandbox, cached by
 * content under $XDG_CACHE_HOME/iolab/build/, rebuilt when a source or the command changes,
 * the compiler's messages naming the pack's own files.
 *
 * The loader only names such a program (lesson.h); every command that runs or lints a pack
 * calls packprog_build() after loading it, which builds each entry and points every program
 * that names it at the built executable. An unchanged program is a cache hit: nothing runs.
 * Listing packs never builds; the TUI builds an installed pack when the learner first opens
 * one of its lessons. A build that will compile says so first (packprog_announce()).
 */
#ifndef IOLAB_PACKPROG_H
#define IOLAB_PACKPROG_H

#include "lesson/lesson.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The default compiler command of a pack's program: {include} is the directory of
   iolab_counters.h (share/iolab/include), so a program may publish its own figures. */
#define PACKPROG_DEFAULT_COMMAND                                                                   \
    "cc", "-std=gnu17", "-O2", "-g", "-Wall", "-Wextra", "-pthread", "-I{include}", "-o", "{out}", \
        "{sources}"

/*
 * Builds every program of pack->builds that is not built yet. The compiler's messages (mapped
 * to the pack's files) go to log when not NULL; each program that does not build adds one
 * diagnostic at its entry in pack.json. Returns 0 when every program is built, -EINVAL when
 * one is not (the diagnostics say which), -EINTR when SIGINT, SIGTERM or SIGHUP stopped a build
 * (*stopped, when not NULL, is then 128+signal; the build's directory is gone), or another
 * negative errno. The build runs on the headless driver (headless.h).
 */
int packprog_build(struct lesson_pack *pack, FILE *log, struct lesson_diags *diags, int *stopped);

/* How many of the pack's programs packprog_build() would compile now: neither built in this
   process nor found in the cache. 0: a build would only take them from the cache. */
size_t packprog_pending(const struct lesson_pack *pack);

/*
 * The sentence to show before a build that compiles something, once per such build: "Building
 * N programs of pack "T" (the first build of their sources; ...)". A program is compiled once
 * per content (a new pack, or one whose sources changed), so a later run or open says nothing.
 * Returns false (buf empty) when nothing would be compiled. The title is the pack's own text:
 * print the sentence escaped (termsafe.h) or through curses.
 */
bool packprog_announce(const struct lesson_pack *pack, char *buf, size_t len);

#endif
