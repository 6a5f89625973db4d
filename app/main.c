/*
 * iolab's entry point; the command line is cli.c's, so that a program bringing step kinds of its
 * own can register them and run the same iolab.
 */
#include "cmd.h"

int main(int argc, char **argv)
{
    return cli_main(argc, argv);
}
