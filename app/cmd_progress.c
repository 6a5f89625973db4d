/* Placeholder until the progress command lands; replaced by its real implementation. */
#include "cmd.h"

static int cmd_progress_exec(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cmd_error("'progress' is not built yet.");
    return 1;
}

const struct cmd_entry cmd_progress_entry = {
    .name = "progress", .usage = "", .summary = "(not built yet)", .exec = cmd_progress_exec};
