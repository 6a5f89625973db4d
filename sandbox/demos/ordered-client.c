/*
 * ordered-client: the client half of a strictly ordered conversation (see ordered-server.c).
 *
 * The loop is the whole lesson:
 *
 *     read a line (stdin, or the next one of --script)
 *     send() it
 *     recv() the reply        <- blocks; stdin is not read meanwhile
 *     print it
 *
 * While the client waits in recv(), whatever the learner types stays in the stdin pipe: the
 * client reads it only after the reply came. The counters show it: no read() on stdin while
 * recvfrom() is pending. Either side ends the conversation with the line `exit`.
 *
 * Lines come from stdin (a person types them; stdin's end closes the connection), or from
 * --script "a;b;exit", sent every --interval MS; --repeat starts the script over after its last
 * line, so a headless run lasts as long as the scenario.
 *
 * Output: `me: TEXT` for each line sent, `server: TEXT` for each reply. Exit status 0 when the
 * conversation ended (`exit` from either side, the end of stdin or of the script, SIGTERM), 1
 * when the server could not be reached or closed the connection without `exit`.
 *
 * Published figures: requests (replies received), bytes (reply bytes received), conns_opened,
 * conns_closed, errors (a connection lost mid-conversation), every round trip's latency: for a
 * person answering on the other side, that is how long they took.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG       "ordered-client"
#define SCRIPT_MAX 64 /* lines in a --script */

static char *script[SCRIPT_MAX]; /* --script, split at ';' */
static size_t script_len, script_next;
static int repeat;                       /* --repeat */
static unsigned long interval_ms = 1000; /* --interval */

static struct demo_line_buf typed; /* what was read from stdin */
static struct demo_line_buf heard; /* what was received from the server */

/* The next line to send into line (DEMO_LINE_MAX + 1 bytes): 1, or 0 when there is none (end of
 * stdin or script, SIGTERM). */
static int next_line(char *line, size_t len)
{
    if (script_len > 0) {
        if (script_next == script_len && repeat)
            script_next = 0;
        if (script_next == script_len)
            return 0;
        static int started;
        if (started++) { /* pace the script; a person paces themselves */
            struct timespec ts = {interval_ms / 1000, (long)(interval_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL); /* SIGTERM cuts it short; the caller checks demo_stop */
        }
        snprintf(line, len, "%s", script[script_next++]);
        return !demo_stop;
    }
    return demo_get_line(STDIN_FILENO, 0, &typed, line) == 1; /* blocks until you press Enter */
}

static int converse(int fd, struct iolab_app *app)
{
    char line[DEMO_LINE_MAX + 1], out[DEMO_LINE_MAX + 2], reply[DEMO_LINE_MAX + 1];
    while (next_line(line, sizeof line)) {
        int len = snprintf(out, sizeof out, "%s\n", line);
        uint64_t t0 = demo_now_ns();
        if (demo_send_all(fd, out, (size_t)len) < 0)
            return demo_stop ? 0 : -1;
        printf("me: %s\n", line);
        fflush(stdout);
        if (strcmp(line, "exit") == 0)
            return 0; /* we ended it; the server does not answer `exit` */
        int r = demo_get_line(fd, 1, &heard, reply); /* blocks until the reply comes */
        if (r <= 0)
            return demo_stop ? 0 : -1;
        if (app) {
            iolab_add(&app->requests, 1);
            iolab_add(&app->bytes, strlen(reply) + 1);
            iolab_app_latency(app, demo_now_ns() - t0);
        }
        printf("server: %s\n", reply);
        fflush(stdout);
        if (strcmp(reply, "exit") == 0)
            return 0; /* the server ended it */
    }
    return 0;
}

static void usage(void)
{
    printf("usage: " PROG " --port P [--host 127.0.0.1] [--script \"a;b;exit\" [--interval MS]"
           " [--repeat]]\n"
           "\n"
           "Talks with ordered-server in turns: sends a line, waits for the one-line reply,\n"
           "prints it, and only then reads the next line. `exit` from either side ends it.\n"
           "  --port P         the server's TCP port\n"
           "  --host H         the server's IPv4 address (default 127.0.0.1)\n"
           "  --script LINES   send these ';'-separated lines instead of reading stdin\n"
           "  --interval MS    pause between script lines (default 1000)\n"
           "  --repeat         start the script over after its last line (no 'exit' in it)\n"
           "  --help           show this help\n"
           "Stops cleanly (status 0) on SIGTERM or SIGINT.\n");
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"port", required_argument, NULL, 'p'},
        {"host", required_argument, NULL, 'H'},
        {"script", required_argument, NULL, 's'},
        {"interval", required_argument, NULL, 'i'},
        {"repeat", no_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    const char *host = "127.0.0.1";
    long port = -1;
    int c, says_exit = 0;
    opterr = 0; /* we print our own one-sentence errors */
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'p':
            port = (long)demo_parse_u64(PROG, "--port", optarg, 1, 65535);
            break;
        case 'H':
            host = optarg;
            break;
        case 's':
            script_len = 0;
            for (char *save = NULL, *tok = strtok_r(optarg, ";", &save); tok;
                 tok = strtok_r(NULL, ";", &save)) {
                if (script_len == SCRIPT_MAX || strlen(tok) > DEMO_LINE_MAX)
                    demo_usage_error(PROG, "--script takes up to %d lines of up to %d characters",
                                     SCRIPT_MAX, DEMO_LINE_MAX);
                says_exit |= strcmp(tok, "exit") == 0;
                script[script_len++] = tok;
            }
            if (script_len == 0)
                demo_usage_error(PROG, "--script wants at least one line, such as \"hello;exit\"");
            break;
        case 'i':
            interval_ms = (unsigned long)demo_parse_u64(PROG, "--interval", optarg, 0, 3600000);
            break;
        case 'R':
            repeat = 1;
            break;
        case 'h':
            usage();
            return 0;
        default:
            demo_usage_error(PROG, "unknown option or missing value in '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        demo_usage_error(PROG, "unexpected argument '%s'", argv[optind]);
    if (port < 0)
        demo_usage_error(PROG, "--port is required");
    if (repeat && (script_len == 0 || says_exit))
        demo_usage_error(PROG, "--repeat wants a --script without 'exit' in it");
    struct in_addr addr = demo_parse_host(PROG, host);

    demo_signals_init();
    struct iolab_app *app = iolab_app();
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr = addr};
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        fprintf(stderr, PROG ": cannot connect to %s:%ld: %s\n", host, port, strerror(errno));
        return demo_stop ? 0 : 1;
    }
    if (app)
        iolab_add(&app->conns_opened, 1);
    int rc = converse(fd, app);
    close(fd);
    if (app) {
        iolab_add(&app->conns_closed, 1);
        if (rc < 0)
            iolab_add(&app->errors, 1);
    }
    if (rc < 0) {
        fprintf(stderr, PROG ": the server closed the connection without 'exit'\n");
        return 1;
    }
    return 0;
}
