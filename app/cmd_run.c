/* Placeholder until the run command lands; replaced by its real implementation. */
#include "cmd.h"

static int cmd_run_exec(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cmd_error("'run' is not built yet.");
    return 1;
}

const struct cmd_entry cmd_run_entry = {
    .name = "run", .usage = "", .summary = "(not built yet)", .exec = cmd_run_exec};
