/* Hostile: tries to create the file named by argv[1] (outside its work directory). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        printf("denied: %s\n", strerror(errno));
        return 0;
    }
    printf("created %s\n", argv[1]);
    close(fd);
    return 0;
}
