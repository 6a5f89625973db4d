/*
 * probe: iolab-count-probe, a test program that makes a known sequence of every counted call,
 * so that the tests can compare the shim's counts with the sequence and with strace.
 *
 * Model: main() runs the steps of probe_steps[] in order, each a fixed number of calls (times
 * --iterations where it says so), then forks one child and starts --threads threads, which
 * make their own calls. Every call goes through the plain libc entry point a C program would
 * use; probe_fortify.c makes the _FORTIFY_SOURCE variants. It writes only with write(2) and
 * never uses stdio or malloc on purpose, so that no call is made inside glibc where the shim
 * cannot see it. Exit status: 0 when every call behaved as expected, 2 on bad arguments, 3
 * when a call failed or errno was not what the call set (which would mean the shim changed it).
 */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <poll.h>
#include <semaphore.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/sendfile.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "probe.h"

static int probe_iterations = 10;
static int probe_threads = 3;
static char probe_dir[256];

/* Fails the probe with a message saying which step went wrong. */
static void probe_fail(const char *what)
{
    int e = errno;
    char msg[320];
    int n = 0;
    const char *parts[] = {"iolab-count-probe: ", what, ": ", strerror(e), "\n"};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        size_t l = strlen(parts[i]);
        if (n + l < sizeof msg) {
            memcpy(msg + n, parts[i], l);
            n += (int)l;
        }
    }
    if (write(2, msg, (size_t)n) < 0) {
    }
    _exit(3);
}

static void probe_path(char *out, size_t len, const char *name)
{
    size_t d = strlen(probe_dir), n = strlen(name);
    if (d + 1 + n + 1 > len)
        probe_fail("path too long");
    memcpy(out, probe_dir, d);
    out[d] = '/';
    memcpy(out + d + 1, name, n + 1);
}

/* --iterations one-byte writes into a pipe and as many reads out of it. */
static void probe_pipe_io(void)
{
    int p[2];
    char c = 'x';
    if (pipe(p) < 0)
        probe_fail("pipe");
    for (int i = 0; i < probe_iterations; i++) {
        if (write(p[1], &c, 1) != 1)
            probe_fail("write");
        if (read(p[0], &c, 1) != 1)
            probe_fail("read");
    }
    /* A failing call must leave the errno the kernel gave, whatever the shim does after it. */
    errno = 0;
    if (read(-1, &c, 1) != -1 || errno != EBADF)
        probe_fail("read(-1) did not fail with EBADF");
    struct iovec iov = {.iov_base = &c, .iov_len = 1};
    if (writev(p[1], &iov, 1) != 1 || readv(p[0], &iov, 1) != 1)
        probe_fail("readv/writev");
    close(p[0]);
    close(p[1]);
}

/* A file: open, creat, positioned I/O, vectors, syncs, copy_file_range, sendfile, mmap. */
static void probe_file_io(void)
{
    char a[300], b[300];
    char buf[64];
    memset(buf, 'f', sizeof buf);
    probe_path(a, sizeof a, "a");
    probe_path(b, sizeof b, "b");
    int fd = open(a, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        probe_fail("open");
    if (pwrite(fd, buf, sizeof buf, 0) != sizeof buf || pread(fd, buf, 16, 0) != 16)
        probe_fail("pwrite/pread");
    struct iovec iov = {.iov_base = buf, .iov_len = 8};
    if (pwritev(fd, &iov, 1, 64) != 8 || preadv(fd, &iov, 1, 0) != 8)
        probe_fail("pwritev/preadv");
    if (fsync(fd) < 0 || fdatasync(fd) < 0)
        probe_fail("fsync/fdatasync");
    int out = creat(b, 0600);
    if (out < 0)
        probe_fail("creat");
    loff_t off_in = 0;
    /* May fail with EXDEV across file systems; counted either way, as strace sees it either way. */
    if (copy_file_range(fd, &off_in, out, NULL, 16, 0) < 0 && errno != EXDEV)
        probe_fail("copy_file_range");
    int p[2];
    if (pipe(p) < 0)
        probe_fail("pipe");
    off_t off = 0;
    if (sendfile(p[1], fd, &off, 8) != 8 || sendfile64(p[1], fd, &off, 8) != 8)
        probe_fail("sendfile");
    if (read(p[0], buf, 16) != 16)
        probe_fail("read");
    void *m = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd, 0);
    unsigned char vec[2];
    if (m == MAP_FAILED || mincore(m, 8192, vec) < 0 || munmap(m, 8192) < 0)
        probe_fail("mmap/mincore/munmap");
    if (posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED) != 0 || readahead(fd, 0, 8192) < 0)
        probe_fail("posix_fadvise/readahead");
    int dfd = open(probe_dir, O_RDONLY | O_DIRECTORY);
    if (dfd < 0)
        probe_fail("open dir");
    int again = openat(dfd, "a", O_RDONLY);
    if (again < 0)
        probe_fail("openat");
    close(again);
    close(dfd);
    close(out);
    close(fd);
    close(p[0]);
    close(p[1]);
}

/* Pipes moved without copies: vmsplice into one, tee into another, splice out to a file. */
static void probe_splice(void)
{
    int p[2], q[2];
    char buf[32] = "spliced bytes, thirty-two long!";
    char f[300];
    probe_path(f, sizeof f, "spliced");
    if (pipe(p) < 0 || pipe(q) < 0)
        probe_fail("pipe");
    int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        probe_fail("open");
    struct iovec iov = {.iov_base = buf, .iov_len = sizeof buf};
    if (vmsplice(p[1], &iov, 1, 0) != sizeof buf)
        probe_fail("vmsplice");
    if (tee(p[0], q[1], sizeof buf, 0) != sizeof buf)
        probe_fail("tee");
    if (splice(p[0], NULL, fd, NULL, sizeof buf, 0) != sizeof buf)
        probe_fail("splice");
    close(fd);
    close(p[0]);
    close(p[1]);
    close(q[0]);
    close(q[1]);
}

/* Loopback TCP: socket, bind, listen, connect, accept and accept4; send/recv in all forms. */
/* The multi-message calls: three datagrams out in one sendmmsg, back in one recvmmsg, on a
   loopback UDP pair (a datagram socket keeps the messages apart). */
static void probe_mmsg(void)
{
    int u = socket(AF_INET, SOCK_DGRAM, 0), v = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t slen = sizeof sa;
    if (u < 0 || v < 0 || bind(u, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        getsockname(u, (struct sockaddr *)&sa, &slen) < 0 ||
        connect(v, (struct sockaddr *)&sa, sizeof sa) < 0)
        probe_fail("udp");
    char data[3][8] = {"one", "two", "three"}, in[3][8];
    struct iovec out_iov[3], in_iov[3];
    struct mmsghdr out[3], got[3];
    memset(out, 0, sizeof out);
    memset(got, 0, sizeof got);
    for (int i = 0; i < 3; i++) {
        out_iov[i] = (struct iovec){.iov_base = data[i], .iov_len = 4};
        in_iov[i] = (struct iovec){.iov_base = in[i], .iov_len = sizeof in[i]};
        out[i].msg_hdr = (struct msghdr){.msg_iov = &out_iov[i], .msg_iovlen = 1};
        got[i].msg_hdr = (struct msghdr){.msg_iov = &in_iov[i], .msg_iovlen = 1};
    }
    if (sendmmsg(v, out, 3, 0) != 3)
        probe_fail("sendmmsg");
    /* MSG_WAITFORONE: all three are queued already; the call returns what is there. */
    int n = 0;
    while (n < 3) {
        int r = recvmmsg(u, got + n, (unsigned)(3 - n), MSG_WAITFORONE, NULL);
        if (r <= 0)
            probe_fail("recvmmsg");
        n += r;
    }
    close(u);
    close(v);
}

/*
 * Control data: one sendmsg() that passes a descriptor (SCM_RIGHTS) over a Unix socket pair and
 * one recvmsg() that receives it, a recvmsg_rights as the fd-passing exercise counts them; then
 * one recvmsg() with room for control data that brings none (not a recvmsg_rights).
 */
static void probe_rights(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        probe_fail("socketpair");
    char two[2] = "rr";
    struct iovec iov = {.iov_base = two, .iov_len = 2};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &sv[0], sizeof(int));
    if (sendmsg(sv[0], &msg, 0) != 2)
        probe_fail("sendmsg with SCM_RIGHTS");
    /* The descriptor travels with the first byte: the second recvmsg() gets the other byte, and
       no control data. */
    iov.iov_len = 1;
    for (int round = 0; round < 2; round++) {
        memset(&control, 0, sizeof control);
        msg.msg_controllen = sizeof control.buf;
        if (recvmsg(sv[1], &msg, 0) != 1)
            probe_fail("recvmsg");
        cm = CMSG_FIRSTHDR(&msg);
        int got = -1;
        if (cm && cm->cmsg_type == SCM_RIGHTS)
            memcpy(&got, CMSG_DATA(cm), sizeof got);
        if ((round == 0) != (got >= 0))
            probe_fail("recvmsg: SCM_RIGHTS");
        if (got >= 0)
            close(got);
    }
    close(sv[0]);
    close(sv[1]);
}

static void probe_sockets(void)
{
    int l = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t slen = sizeof sa;
    if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(l, 4) < 0 ||
        getsockname(l, (struct sockaddr *)&sa, &slen) < 0)
        probe_fail("listen");
    int c1 = socket(AF_INET, SOCK_STREAM, 0), c2 = socket(AF_INET, SOCK_STREAM, 0);
    if (c1 < 0 || c2 < 0 || connect(c1, (struct sockaddr *)&sa, sizeof sa) < 0 ||
        connect(c2, (struct sockaddr *)&sa, sizeof sa) < 0)
        probe_fail("connect");
    int s1 = accept(l, NULL, NULL), s2 = accept4(l, NULL, NULL, SOCK_CLOEXEC);
    if (s1 < 0 || s2 < 0)
        probe_fail("accept");
    char buf[16] = "0123456789abcdef";
    for (int i = 0; i < probe_iterations; i++) {
        if (send(c1, buf, 4, 0) != 4 || recv(s1, buf, 4, MSG_WAITALL) != 4)
            probe_fail("send/recv");
    }
    if (sendto(c2, buf, 8, 0, NULL, 0) != 8 || recvfrom(s2, buf, 8, MSG_WAITALL, NULL, NULL) != 8)
        probe_fail("sendto/recvfrom");
    struct iovec iov = {.iov_base = buf, .iov_len = 6};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (sendmsg(c1, &msg, 0) != 6 || recvmsg(s1, &msg, MSG_WAITALL) != 6)
        probe_fail("sendmsg/recvmsg");
    probe_fortify_sockets(c2, s2);
    probe_mmsg();
    probe_rights();
    close(c1);
    close(c2);
    close(s1);
    close(s2);
    close(l);
}

/* Readiness: one of each waiting call, all on a pipe that is readable, so none blocks. */
static void probe_waits(void)
{
    int p[2];
    char c = 'w';
    if (pipe(p) < 0 || write(p[1], &c, 1) != 1)
        probe_fail("pipe");
    struct pollfd pfd = {.fd = p[0], .events = POLLIN};
    struct timespec ts = {0, 0};
    if (poll(&pfd, 1, 0) != 1 || ppoll(&pfd, 1, &ts, NULL) != 1)
        probe_fail("poll/ppoll");
    fd_set rs;
    FD_ZERO(&rs);
    FD_SET(p[0], &rs);
    struct timeval tv = {0, 0};
    if (select(p[0] + 1, &rs, NULL, NULL, &tv) != 1)
        probe_fail("select");
    FD_SET(p[0], &rs);
    if (pselect(p[0] + 1, &rs, NULL, NULL, &ts, NULL) != 1)
        probe_fail("pselect");
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = p[0]};
    if (ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev) < 0)
        probe_fail("epoll_ctl");
    if (epoll_wait(ep, &ev, 1, 0) != 1 || epoll_pwait(ep, &ev, 1, 0, NULL) != 1)
        probe_fail("epoll_wait/epoll_pwait");
    probe_fortify_waits(p[0]);
    close(ep);
    close(p[0]);
    close(p[1]);
}

/* "/iolab-probe-PID": a queue name no other probe run uses, built without stdio. */
static void probe_mq_name(char *out, size_t len)
{
    static const char prefix[] = "/iolab-probe-";
    char digits[16];
    int n = 0;
    for (unsigned v = (unsigned)getpid(); v || !n; v /= 10)
        digits[n++] = (char)('0' + v % 10);
    if (sizeof prefix + (size_t)n > len)
        probe_fail("queue name too long");
    memcpy(out, prefix, sizeof prefix - 1);
    for (int i = 0; i < n; i++)
        out[sizeof prefix - 1 + i] = digits[n - 1 - i];
    out[sizeof prefix - 1 + n] = '\0';
}

/*
 * IPC: --iterations mq_send/mq_receive pairs and one mq_timedsend/mq_timedreceive pair on a
 * POSIX queue; one msgsnd/msgrcv pair on a System V queue; semop and semtimedop once each;
 * shmat/shmdt once; --iterations sem_post/sem_wait pairs and one sem_timedwait on a POSIX
 * semaphore (never contended, so no futex call). Every object is removed before returning.
 */
static void probe_ipc(void)
{
    char name[64], buf[16] = "ipc message";
    probe_mq_name(name, sizeof name);
    struct mq_attr attr = {.mq_maxmsg = 4, .mq_msgsize = sizeof buf};
    mqd_t q = mq_open(name, O_RDWR | O_CREAT | O_EXCL, 0600, &attr);
    if (q == (mqd_t)-1)
        probe_fail("mq_open");
    mq_unlink(name); /* the open descriptor keeps the queue; nothing stays behind */
    unsigned prio;
    for (int i = 0; i < probe_iterations; i++)
        if (mq_send(q, buf, 12, 0) < 0 || mq_receive(q, buf, sizeof buf, &prio) != 12)
            probe_fail("mq_send/mq_receive");
    struct timespec far = {.tv_sec = 0x7fffffff};
    if (mq_timedsend(q, buf, 5, 1, &far) < 0 ||
        mq_timedreceive(q, buf, sizeof buf, &prio, &far) != 5)
        probe_fail("mq_timedsend/mq_timedreceive");
    mq_close(q);

    int mid = msgget(IPC_PRIVATE, 0600);
    struct {
        long mtype;
        char text[8];
    } msg = {.mtype = 1, .text = "sysv"};
    if (mid < 0 || msgsnd(mid, &msg, 8, 0) < 0 || msgrcv(mid, &msg, 8, 0, 0) != 8)
        probe_fail("msgsnd/msgrcv");
    msgctl(mid, IPC_RMID, NULL);

    int sid = semget(IPC_PRIVATE, 1, 0600);
    struct sembuf up = {.sem_num = 0, .sem_op = 1}, down = {.sem_num = 0, .sem_op = -1};
    struct timespec now = {0, 0};
    if (sid < 0 || semop(sid, &up, 1) < 0 || semtimedop(sid, &down, 1, &now) < 0)
        probe_fail("semop/semtimedop");
    semctl(sid, 0, IPC_RMID);

    int shm = shmget(IPC_PRIVATE, 4096, 0600);
    void *at = shm < 0 ? (void *)-1 : shmat(shm, NULL, 0);
    if (at == (void *)-1 || shmdt(at) < 0)
        probe_fail("shmat/shmdt");
    shmctl(shm, IPC_RMID, NULL);

    sem_t sem;
    if (sem_init(&sem, 0, 0) < 0)
        probe_fail("sem_init");
    for (int i = 0; i < probe_iterations; i++)
        if (sem_post(&sem) < 0 || sem_wait(&sem) < 0)
            probe_fail("sem_post/sem_wait");
    if (sem_post(&sem) < 0 || sem_timedwait(&sem, &far) < 0)
        probe_fail("sem_timedwait");
    sem_destroy(&sem);
}

/* Each thread: --iterations writes to /dev/null, in a slot of its own while it lives. */
static void *probe_thread(void *arg)
{
    int fd = *(int *)arg;
    char c = 't';
    for (int i = 0; i < probe_iterations; i++)
        if (write(fd, &c, 1) != 1)
            probe_fail("thread write");
    return NULL;
}

static void probe_fork_and_threads(void)
{
    int null = open("/dev/null", O_WRONLY);
    if (null < 0)
        probe_fail("open /dev/null");
    pid_t pid = fork();
    if (pid < 0)
        probe_fail("fork");
    if (pid == 0) {
        /* The child: 2 x iterations writes, in a slot of its own. */
        char c = 'c';
        for (int i = 0; i < 2 * probe_iterations; i++)
            if (write(null, &c, 1) != 1)
                _exit(3);
        _exit(0);
    }
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
        probe_fail("child");
    pthread_t t[64];
    for (int i = 0; i < probe_threads; i++)
        if ((errno = pthread_create(&t[i], NULL, probe_thread, &null)) != 0)
            probe_fail("pthread_create");
    for (int i = 0; i < probe_threads; i++)
        pthread_join(t[i], NULL);
    close(null);
}

static int probe_arg(const char *s, int max)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || v < 0 || v > max)
        return -1;
    return (int)v;
}

int main(int argc, char **argv)
{
    static const char usage[] =
        "usage: iolab-count-probe --dir DIR [--iterations N] [--threads T]\n"
        "Makes a known sequence of every call libiolab-count.so counts (see probe.c).\n";
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : "";
        if (!strcmp(argv[i], "--iterations") && (probe_iterations = probe_arg(v, 1000000)) >= 0)
            i++;
        else if (!strcmp(argv[i], "--threads") && (probe_threads = probe_arg(v, 64)) >= 0)
            i++;
        else if (!strcmp(argv[i], "--dir") && strlen(v) > 0 && strlen(v) < 200) {
            strcpy(probe_dir, v);
            i++;
        } else {
            if (write(2, usage, sizeof usage - 1) < 0) {
            }
            return 2;
        }
    }
    if (!probe_dir[0]) {
        if (write(2, usage, sizeof usage - 1) < 0) {
        }
        return 2;
    }
    probe_pipe_io();
    probe_file_io();
    probe_splice();
    probe_sockets();
    probe_waits();
    probe_fortify_files(probe_dir);
    probe_ipc();
    probe_fork_and_threads();
    return 0;
}
