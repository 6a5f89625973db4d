/*
 * role: what a scenario program is to the others, the one vocabulary for it. The lesson model
 * reads it from the JSON, the sampler sums figures by it and the screens and the JSON output
 * name it; all of them use this enum and this name table, with no second enum and no casts.
 */
#ifndef IOLAB_ROLE_H
#define IOLAB_ROLE_H

enum lesson_role {
    LESSON_ROLE_SERVER, /* started first; ready when it prints its ready text */
    LESSON_ROLE_CLIENT, /* the load, or the program under study when there is no server */
    LESSON_NROLES
};

/* "server", "client" (as the JSON writes them); "?" for anything else. */
static inline const char *lesson_role_name(enum lesson_role role)
{
    static const char *const names[LESSON_NROLES] = {
        [LESSON_ROLE_SERVER] = "server",
        [LESSON_ROLE_CLIENT] = "client",
    };
    return (unsigned)role < LESSON_NROLES ? names[role] : "?";
}

#endif
