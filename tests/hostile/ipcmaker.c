/* Hostile: creates one of each IPC object (POSIX shm and mq named with $IOLAB_SESSION, System V
 * shm, semaphore and message queue), prints their names and ids (the System V ids also into
 * ./sysv-ids), forks, and sleeps. With
 * TEST_IPC_KEY set it also opens the System V segment of that key with IPC_CREAT, which another
 * program may have created already (then it is not this program's to leave behind), and
 * attaches it. */
#include <fcntl.h>
#include <mqueue.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <unistd.h>

int main(void)
{
    const char *s = getenv("IOLAB_SESSION");
    if (!s)
        s = getenv("TEST_IPC_STEM"); /* names of its own, as a learner's program may choose */
    char shm[128], mq[128];
    snprintf(shm, sizeof shm, "/%sshm", s ? s : "nosession-");
    snprintf(mq, sizeof mq, "/%smq", s ? s : "nosession-");
    int fd = shm_open(shm, O_RDWR | O_CREAT, 0600);
    if (fd < 0 || ftruncate(fd, 4096) < 0)
        perror("shm_open");
    mqd_t q = mq_open(mq, O_RDWR | O_CREAT, 0600, NULL);
    if (q == (mqd_t)-1)
        perror("mq_open");
    int sid = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    int mid = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    int eid = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
    printf("posix %s %s sysv %d %d %d\n", shm, mq, sid, mid, eid);
    /* The ids again in its work directory, where a test finds them among other tests' objects
       (written whole, then renamed, so that a reader never sees half a line). */
    FILE *ids = fopen("sysv-ids.tmp", "w");
    if (ids) {
        fprintf(ids, "%d %d %d\n", sid, mid, eid);
        if (fclose(ids) == 0)
            rename("sysv-ids.tmp", "sysv-ids");
    }
    const char *key = getenv("TEST_IPC_KEY");
    if (key) {
        int kid = shmget((key_t)strtol(key, NULL, 0), 4096, IPC_CREAT | 0600);
        /* Attached, so that its user can be seen from outside (shm_lpid, shm_nattch). */
        printf("keyed %d %s\n", kid,
               kid >= 0 && shmat(kid, NULL, 0) != (void *)-1 ? "attached" : "failed");
    }
    if (fork() == 0)
        for (;;)
            pause();
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
