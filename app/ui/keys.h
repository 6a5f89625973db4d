/*
 * keys: key bindings as tables. Each screen (and each step kind's view) has a const table of
 * bindings: the key (and another that does the same), its name as shown, a short footer label,
 * one line of help, a footer priority and the handler. The TUI looks a key up table by table,
 * most specific first; the `?` help lists every table, and the footer shows the bindings that
 * fit the terminal's width, highest priority first, in table order.
 *
 * A binding without a handler documents a key its screen handles in its own way (typing into a
 * program, the mode keys 1-9 whose names come from the lesson); it is never dispatched.
 */
#ifndef IOLAB_KEYS_H
#define IOLAB_KEYS_H

#include <stdbool.h>
#include <stddef.h>

struct view_ctx;
struct view_action;

struct keybind {
    int key, alt;      /* the key and another that does the same (0: none) */
    const char *name;  /* as shown: "n", "Tab", "space" */
    const char *label; /* short, for the footer: "next"; NULL: never in the footer */
    const char *help;  /* one line for the help overlay */
    int priority;      /* footer: higher first when space runs short */
    int (*fn)(void *self, struct view_ctx *c, int key, struct view_action *act);
};

struct keytable {
    const char *title; /* heading in the help: "Everywhere", "Lesson", "Run step" */
    const struct keybind *v;
    size_t n;
};

#define KEYTABLE(title_, arr)                                                                      \
    {                                                                                              \
        .title = (title_), .v = (arr), .n = sizeof(arr) / sizeof *(arr)                            \
    }

/* The binding of key in table t, or NULL (bindings without a handler never match). */
const struct keybind *keys_find(const struct keytable *t, int key);

/* One footer entry: a key name and its label, with the priority it competes with. */
struct keys_item {
    const char *name, *label;
    int priority;
};

/*
 * The footer: from items (in the order they should appear), the highest-priority ones whose
 * "NAME LABEL" entries fit in width columns (two spaces between entries; ties keep the
 * earlier item), written in their original order into buf. Pure, for the unit tests. Returns
 * how many items were shown.
 */
size_t keys_footer(const struct keys_item *items, size_t n, int width, char *buf, size_t len);

#endif
