/*
 * Hostile: prints terminal escape sequences that would change a terminal that passed them on:
 * the window title, colours, clearing the screen, leaving the alternate screen, moving the
 * cursor, the bell, a hyperlink and a query the terminal would answer. Then a marker line, and
 * it waits.
 */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    printf("\033]0;PWNED-TITLE\007\033]2;PWNED-TITLE\033\\");
    printf("\033[41m\033[1;33mred background\033[0m\n");
    printf("\033[2J\033[H\033[?1049l\033[?25h\033[10;10Hmoved\007\n");
    printf("\033]8;;http://127.0.0.1/\033\\link\033]8;;\033\\\033[6n\033[c\n");
    printf("\x9b"
           "31mC1 CSI\n");
    printf("ESCAPES-SENT\n");
    fflush(stdout);
    for (;;)
        pause();
}
