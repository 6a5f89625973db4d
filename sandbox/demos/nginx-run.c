/*
 * nginx-run: runs the distribution's nginx beside the demos, under the same load and the same
 * counters, so that a learner can compare the demo file server with a production one.
 *
 * It writes a configuration of its own into WORKDIR/nginx/ (one worker, access_log off,
 * keep-alive, sendfile on or off by --mode, pid file and temporary paths in WORKDIR, loopback
 * only) and starts nginx in the foreground (daemon off) with it: nginx's master process and the
 * one worker it forks are counted like any demo. nginx prints no ready line of its own, so this
 * program waits until the port takes a connection, prints "listening on HOST:PORT nginx ...",
 * and then waits for nginx, passing SIGTERM on (nginx's fast shutdown) and ending with it.
 *
 * So that one lesson step can put nginx and the demo side by side (a step's modes switch the
 * arguments of one program), the demo-* modes exec the demo file-server instead, with the same
 * port and files.
 *
 * When nginx is not installed, an nginx mode says so in one sentence and exits 1.
 */
#include "demo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PROG "nginx-run"

struct nginx_mode {
    struct demo_mode cli;
    const char *sendfile; /* nginx: the value of its sendfile directive */
    const char *demo;     /* or the demo file-server's --mode */
};

static const struct nginx_mode nginx_modes[] = {
    {.cli = {"sendfile-off", "nginx reads the file into its buffers and writes it (writev)"},
     .sendfile = "off"},
    {.cli = {"sendfile-on", "nginx sends the file with sendfile()"}, .sendfile = "on"},
    {.cli = {"demo-epoll", "the demo file-server --mode epoll instead, for comparison"},
     .demo = "epoll"},
    {.cli = {"demo-sendfile", "the demo file-server --mode sendfile"}, .demo = "sendfile"},
    {.cli = {"demo-read-send", "the demo file-server --mode read-send"}, .demo = "read-send"},
    {.cli = {"demo-io_uring", "the demo file-server --mode io_uring"}, .demo = "io_uring"},
};

static uint64_t nginx_port;
static struct demo_host nginx_host = {.name = "127.0.0.1"};
static const char *nginx_root;     /* --root: the files served */
static const char *nginx_dir;      /* --dir: where the configuration, pid and temp files go */
static const char *nginx_bin;      /* --nginx: the program; default: found below */
static const char *nginx_sendfile; /* the chosen mode's sendfile setting, for the ready line */

/* The nginx to run: --nginx, else the Debian path, else the first on PATH; NULL if none. */
static const char *nginx_find(void)
{
    static char found[4096];
    if (nginx_bin)
        return access(nginx_bin, X_OK) == 0 ? nginx_bin : NULL;
    if (access("/usr/sbin/nginx", X_OK) == 0)
        return "/usr/sbin/nginx";
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        size_t n = strcspn(p, ":");
        snprintf(found, sizeof found, "%.*s/nginx", (int)n, p);
        if (n && access(found, X_OK) == 0)
            return found;
        p += n + (p[n] == ':');
    }
    return NULL;
}

/* Writes DIR/nginx/nginx.conf; 0 or a negative errno. */
static int nginx_write_conf(const char *conf, const char *dir, const struct nginx_mode *m)
{
    FILE *f = fopen(conf, "w");
    if (!f)
        return -errno;
    /* Paths nginx would otherwise take from its build (under /var/lib/nginx, /run) all go
       into our directory, so that nothing outside it is written and nothing is left. */
    fprintf(f,
            "# written by nginx-run for iolab: one worker, as the demo is one process\n"
            "daemon off;\n"
            "worker_processes 1;\n"
            "pid %s/nginx.pid;\n"
            "error_log stderr warn;\n"
            "events { worker_connections 512; }\n"
            "http {\n"
            "    access_log off;\n"
            "    default_type application/octet-stream;\n"
            "    keepalive_requests 100000000;\n"
            "    sendfile %s;\n"
            "    client_body_temp_path %s/body;\n"
            "    proxy_temp_path %s/proxy;\n"
            "    fastcgi_temp_path %s/fastcgi;\n"
            "    uwsgi_temp_path %s/uwsgi;\n"
            "    scgi_temp_path %s/scgi;\n"
            "    server { listen %s:%llu; root %s; }\n"
            "}\n",
            dir, m->sendfile, dir, dir, dir, dir, dir, nginx_host.name,
            (unsigned long long)nginx_port, nginx_root);
    return fclose(f) == 0 ? 0 : -errno;
}

static void nginx_check(void)
{
    if (nginx_port == 0)
        demo_usage_error(PROG, "--port must be a port number: nginx cannot report a port it "
                               "picked");
}

static const struct demo_opt nginx_opts[] = {
    DEMO_OPTS_LISTEN(&nginx_port, &nginx_host),
    DEMO_OPT_TEXT("root", &nginx_root, "DIR", "directory whose files nginx serves", .required = 1),
    DEMO_OPT_TEXT("dir", &nginx_dir, "WORKDIR",
                  "where nginx's configuration, pid and temporary files go (WORKDIR/nginx)",
                  .required = 1),
    DEMO_OPT_MODE,
    DEMO_OPT_TEXT("nginx", &nginx_bin, "PATH", "the nginx program (default: /usr/sbin/nginx)"),
    {0},
};

static const struct demo_cli nginx_cli = {
    .prog = PROG,
    .usage = "--port P [--host H] --root DIR --dir WORKDIR --mode M [--nginx PATH]",
    .about = "Runs nginx (one worker, access_log off, keep-alive) with a configuration written\n"
             "into WORKDIR/nginx, in the foreground; prints 'listening on HOST:PORT nginx\n"
             "sendfile=on|off' once it takes connections. The demo-* modes run the demo\n"
             "file-server on the same port and files instead.\n",
    .opts = nginx_opts,
    DEMO_MODES(nginx_modes),
    .footer = "SIGTERM stops nginx at once (its fast shutdown).\n",
    .check = nginx_check,
};

/* The demo file-server, which sits next to this program: exec it with the same port and root. */
static int nginx_exec_demo(const struct nginx_mode *m)
{
    char self[4096], port[24];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 16);
    if (n < 0) {
        fprintf(stderr, "%s: cannot find where it runs from: %s\n", PROG, strerror(errno));
        return 1;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    strcpy(slash ? slash + 1 : self, "file-server");
    snprintf(port, sizeof port, "%llu", (unsigned long long)nginx_port);
    execl(self, "file-server", "--port", port, "--host", nginx_host.name, "--root", nginx_root,
          "--mode", m->demo, (char *)NULL);
    fprintf(stderr, "%s: cannot run %s: %s\n", PROG, self, strerror(errno));
    return 1;
}

/* Whether nginx takes connections yet: one connect() to the port. */
static int nginx_listening(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = demo_sockaddr(&nginx_host, nginx_port);
    int ok = fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

/* Starts nginx, says when it listens, waits for it and passes SIGTERM on. nginx's status. */
static int nginx_run(const char *nginx, const char *dir, const char *conf)
{
    demo_signals_init(); /* SIGTERM interrupts waitpid() below instead of killing us */
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", PROG, strerror(errno));
        return 1;
    }
    if (pid == 0) {
        /* -p: its prefix; -e stderr: errors before the configuration is read go to stderr
           too, not to the log file its build names (which we may not write). */
        execl(nginx, "nginx", "-p", dir, "-c", conf, "-e", "stderr", (char *)NULL);
        fprintf(stderr, "%s: cannot run %s: %s\n", PROG, nginx, strerror(errno));
        _exit(127);
    }
    int status = 0, ready = 0, signalled = 0;
    for (int tries = 0; !ready && tries < 500 && !demo_stop; tries++) {
        if (waitpid(pid, &status, WNOHANG) == pid) /* it gave up: its stderr says why */
            return WIFEXITED(status) ? (WEXITSTATUS(status) ? WEXITSTATUS(status) : 1) : 1;
        if (!(ready = nginx_listening()))
            demo_sleep_ns(10 * 1000000ull);
    }
    if (ready)
        demo_ready("listening on %s:%llu nginx sendfile=%s", nginx_host.name,
                   (unsigned long long)nginx_port, nginx_sendfile);
    else if (!demo_stop)
        fprintf(stderr, "%s: nginx did not listen on port %llu within 5 s\n", PROG,
                (unsigned long long)nginx_port);
    for (;;) {
        if ((demo_stop || !ready) && !signalled) {
            kill(pid, SIGTERM); /* nginx's fast shutdown: it stops its worker and exits */
            signalled = 1;
        }
        if (waitpid(pid, &status, 0) == pid)
            break;
        if (errno != EINTR)
            return 1;
    }
    if (signalled)
        return ready ? 0 : 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(int argc, char **argv)
{
    const struct nginx_mode *m = demo_cli_parse(&nginx_cli, argc, argv);
    if (m->demo)
        return nginx_exec_demo(m);
    const char *nginx = nginx_find();
    if (!nginx) {
        if (nginx_bin)
            fprintf(stderr, "%s: --nginx %s is not a program we can run.\n", PROG, nginx_bin);
        else
            fprintf(stderr,
                    "%s: nginx is not installed (Debian and Ubuntu: apt-get install "
                    "nginx-light), so this mode cannot run.\n",
                    PROG);
        return 1;
    }
    char dir[4096], conf[4200];
    snprintf(dir, sizeof dir, "%s/nginx", nginx_dir);
    snprintf(conf, sizeof conf, "%s/nginx.conf", dir);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
        fprintf(stderr, "%s: cannot create %s: %s\n", PROG, dir, strerror(errno));
        return 1;
    }
    nginx_sendfile = m->sendfile;
    int err = nginx_write_conf(conf, dir, m);
    if (err) {
        fprintf(stderr, "%s: cannot write %s: %s\n", PROG, conf, strerror(-err));
        return 1;
    }
    return nginx_run(nginx, dir, conf);
}
