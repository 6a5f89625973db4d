/*
 * ordered-server: the server half of a strictly ordered conversation, one client at a time.
 *
 * Protocol: lines of text. The client speaks first; the server prints the line and answers
 * with exactly one line; then it is the client's turn again. Either side ends the conversation
 * by sending the line `exit` (the other side does not answer it). The server then closes the
 * connection and accept()s the next client.
 *
 * Everything blocks, on purpose: while the server waits in recv() for the client, it cannot read
 * its own stdin, and while it waits on stdin for the reply, it does not notice the client. That
 * fixed order is the lesson; the group chat (chat-server, chat-client) lifts it with epoll.
 *
 * Where a reply comes from:
 *   --reply TEXT      every reply is TEXT (stdin is never read)
 *   otherwise         the next line of stdin (a person types it); once stdin is at its end
 *                     (closed, /dev/null), the automatic reply "ack N", N counting the client's
 *                     messages in this conversation, so a headless run goes on by itself.
 *
 * Output: `listening on HOST:PORT`, then per conversation `connected`, `client: TEXT` for what
 * arrives, `me: TEXT` for what is sent back, and `conversation over`. Before it, after `exit`
 * (the server waits up to a second for the client to hang up): `the client hung up after exit,
 * every reply read`, or `the client hung up without reading every reply` when it closed with
 * replies unread in its socket (the kernel then resets the connection instead).
 *
 * Published figures: requests (replies sent), bytes (reply bytes sent), conns_opened,
 * conns_closed.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define PROG "ordered-server"

static const char *fixed_reply; /* --reply TEXT, or NULL: reply from stdin */
static int stdin_done;          /* stdin reached its end: automatic replies from now on */

static struct demo_line_buf typed; /* what was read from stdin */

/* The reply to message number nth: --reply, the next stdin line, or "ack N". */
/* reply has room for DEMO_LINE_MAX + 1 bytes. */
static void next_reply(char *reply, size_t len, unsigned long nth)
{
    if (fixed_reply) {
        snprintf(reply, len, "%s", fixed_reply);
        return;
    }
    if (!stdin_done && demo_get_line(STDIN_FILENO, 0, &typed, reply) == 1) /* a person types */
        return;
    stdin_done = 1; /* nobody will type any more (or SIGTERM): answer by ourselves */
    snprintf(reply, len, "ack %lu", nth);
}

/* One conversation, from the client's first line to `exit` or the end of the connection. */
static void converse(int fd, struct iolab_app *app)
{
    struct demo_line_buf lb = {.have = 0};
    char line[DEMO_LINE_MAX + 1], reply[DEMO_LINE_MAX + 1], out[DEMO_LINE_MAX + 2];
    unsigned long nth = 0;
    int got = 0, client_exit = 0;
    printf("connected\n");
    fflush(stdout);
    while (!demo_stop && (got = demo_get_line(fd, 1, &lb, line)) == 1) {
        printf("client: %s\n", line);
        fflush(stdout);
        if (strcmp(line, "exit") == 0) {
            client_exit = 1;
            break; /* the client ended it; `exit` gets no answer */
        }
        next_reply(reply, sizeof reply, ++nth);
        if (demo_stop)
            break;
        int len = snprintf(out, sizeof out, "%s\n", reply);
        if (demo_send_all(fd, out, (size_t)len) < 0)
            break; /* the client went away while we were typing */
        printf("me: %s\n", reply);
        fflush(stdout);
        if (app) {
            iolab_add(&app->requests, 1);
            iolab_add(&app->bytes, (uint64_t)len);
        }
        if (strcmp(reply, "exit") == 0)
            break; /* we ended it */
    }
    /* After `exit` the client hangs up. One that closes its socket with our replies still unread
       in it makes the kernel reset the connection instead (ECONNRESET here, not 0): that is how
       a client that never read the replies shows, whatever it printed. It gets a second. */
    int reset = got < 0 && errno == ECONNRESET, hung_up = 0;
    if (client_exit && !demo_stop) {
        struct timeval second = {.tv_sec = 1};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &second, sizeof second);
        char rest[64];
        ssize_t n = 0;
        for (int i = 0; i < 16 && (n = recv(fd, rest, sizeof rest, 0)) > 0; i++)
            ; /* nothing is expected after exit: a client that keeps talking is not waited for */
        reset = n < 0 && errno == ECONNRESET;
        hung_up = n == 0;
    }
    if (reset)
        printf("the client hung up without reading every reply (connection reset)\n");
    else if (hung_up)
        printf("the client hung up after exit, every reply read\n");
    close(fd);
    if (app)
        iolab_add(&app->conns_closed, 1);
    printf("conversation over\n");
    fflush(stdout);
}

/* ---- options and main ---- */

static uint64_t port;
static struct demo_host host = {.name = "127.0.0.1"};

/* --reply is sent as one line, so it must be one. */
static void check_reply(void)
{
    if (!fixed_reply[0] || strlen(fixed_reply) > DEMO_LINE_MAX || strchr(fixed_reply, '\n'))
        demo_usage_error(PROG, "--reply wants one line of 1 to %d characters", DEMO_LINE_MAX);
}

static const struct demo_opt opts[] = {
    DEMO_OPTS_LISTEN(&port, &host),
    DEMO_OPT_TEXT("reply", &fixed_reply, "TEXT",
                  "answer every message with TEXT; without it, each answer is the next\n"
                  "line typed on stdin, and 'ack N' once stdin is closed",
                  .after = check_reply),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host 127.0.0.1] [--reply TEXT]",
    .about = "Talks with one client at a time, in turns: the client sends a line, the server\n"
             "prints it and answers with one line. `exit` from either side ends the conversation;\n"
             "the server then waits for the next client. Prints 'listening on HOST:PORT' first.\n",
    .opts = opts,
};

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    int lfd = demo_server_start(PROG, &host, port, NULL);
    struct iolab_app *app = iolab_app();
    while (!demo_stop) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC); /* sleeps until a client connects */
        if (fd < 0) {
            demo_accept_failed(PROG, lfd, errno); /* a signal, or a limit (said and counted) */
            continue;
        }
        if (app)
            iolab_add(&app->conns_opened, 1);
        converse(fd, app);
    }
    close(lfd);
    return 0;
}
