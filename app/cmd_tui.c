/* Placeholder until the tui command lands; replaced by its real implementation. */
#include "cmd.h"

static int cmd_tui_exec(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cmd_error("'tui' is not built yet.");
    return 1;
}

const struct cmd_entry cmd_tui_entry = {
    .name = "tui", .usage = "", .summary = "(not built yet)", .exec = cmd_tui_exec};
