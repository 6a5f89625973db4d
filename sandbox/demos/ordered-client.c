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

#include <errno.h>
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
static int repeat;                  /* --repeat */
static uint64_t interval_ms = 1000; /* --interval */

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
        demo_publish_request(app, strlen(reply) + 1, demo_now_ns() - t0);
        printf("server: %s\n", reply);
        fflush(stdout);
        if (strcmp(reply, "exit") == 0)
            return 0; /* the server ended it */
    }
    return 0;
}

/* ---- options and main ---- */

static uint64_t port;
static struct demo_host host = {.name = "127.0.0.1"};
static const char *script_text; /* --script as given, split into script[] */
static int says_exit;           /* the script has an 'exit' line */

/* Splits --script at ';' into script[], in place: argv's strings are ours to change. */
static void split_script(void)
{
    script_len = 0;
    for (char *save = NULL, *tok = strtok_r((char *)script_text, ";", &save); tok;
         tok = strtok_r(NULL, ";", &save)) {
        if (script_len == SCRIPT_MAX || strlen(tok) > DEMO_LINE_MAX)
            demo_usage_error(PROG, "--script takes up to %d lines of up to %d characters",
                             SCRIPT_MAX, DEMO_LINE_MAX);
        says_exit |= strcmp(tok, "exit") == 0;
        script[script_len++] = tok;
    }
    if (script_len == 0)
        demo_usage_error(PROG, "--script wants at least one line, such as \"hello;exit\"");
}

/* A script that repeats must exist and must not end the conversation. */
static void check_repeat(void)
{
    if (repeat && (script_len == 0 || says_exit))
        demo_usage_error(PROG, "--repeat wants a --script without 'exit' in it");
}

static const struct demo_opt opts[] = {
    DEMO_OPTS_CONNECT(&port, &host),
    DEMO_OPT_TEXT("script", &script_text, "LINES",
                  "send these ';'-separated lines instead of reading stdin", .after = split_script),
    DEMO_OPT_U64("interval", &interval_ms, 0, 3600000, "MS",
                 "pause between script lines (default 1000)"),
    DEMO_OPT_FLAG("repeat", &repeat, "start the script over after its last line (no 'exit' in it)"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host 127.0.0.1] [--script \"a;b;exit\" [--interval MS] [--repeat]]",
    .about = "Talks with ordered-server in turns: sends a line, waits for the one-line reply,\n"
             "prints it, and only then reads the next line. `exit` from either side ends it.\n",
    .opts = opts,
    .check = check_repeat,
};

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    demo_signals_init();
    struct iolab_app *app = iolab_app();
    int fd = demo_connect(PROG, &host, port); /* socket() and connect() */
    if (fd < 0)
        return demo_stop ? 0 : 1;
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
