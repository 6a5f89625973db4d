/* Placeholder until the list command lands; replaced by its real implementation. */
#include "cmd.h"

static int cmd_list_exec(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    cmd_error("'list' is not built yet.");
    return 1;
}

const struct cmd_entry cmd_list_entry = {
    .name = "list", .usage = "", .summary = "(not built yet)", .exec = cmd_list_exec};
