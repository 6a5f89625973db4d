/* Placeholder until the lint command lands; replaced by its real implementation. */
#include "cmd.h"

static int cmd_lint_exec(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cmd_error("'lint' is not built yet.");
    return 1;
}

const struct cmd_entry cmd_lint_entry = {
    .name = "lint", .usage = "", .summary = "(not built yet)", .exec = cmd_lint_exec};
