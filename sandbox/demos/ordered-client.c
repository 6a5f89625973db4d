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
 * line, so a headless run lasts as long as the scenario. A script without `exit` hangs up
 * without it after its last reply. --together N sends the script's first N lines in one send(),
 * so that they arrive in one segment: a server must still answer each of them.
 *
 * After its own `exit` the client tells the server it is done sending (shutdown()) and waits for
 * the server to hang up: `exit` gets no answer. A scripted client is also the exercise's judge of
 * the server's side of the protocol: it waits at most --reply-wait S (4) for the server's next
 * bytes, and says what went wrong on one line starting "problem: " (a reply without its newline,
 * no reply, the server hanging up before `exit`, more than one reply to a line, an answer to
 * `exit`, a connection kept open after it).
 *
 * Output: `me: TEXT` for each line sent, `server: TEXT` for each reply, and at most one
 * `problem: ...` line. Exit status 0 when the conversation ended as the protocol says (`exit`
 * from either side, the end of stdin or of the script, SIGTERM), 1 when the server could not be
 * reached or a problem was said.
 *
 * Published figures: requests (replies received), bytes (reply bytes received), conns_opened,
 * conns_closed, errors (a conversation that ended with a problem), every round trip's latency:
 * for a person answering on the other side, that is how long they took.
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define PROG         "ordered-client"
#define SCRIPT_MAX   64 /* lines in a --script */
#define TOGETHER_MAX 8  /* lines in one send() with --together */

static char *script[SCRIPT_MAX]; /* --script, split at ';' */
static size_t script_len, script_next;
static int repeat;                  /* --repeat */
static uint64_t interval_ms = 1000; /* --interval */
static uint64_t together = 1;       /* --together: lines in the first send() */
static uint64_t reply_wait_s = 4;   /* --reply-wait: how long a script waits for the server */

static struct demo_line_buf typed; /* what was read from stdin */
static struct demo_line_buf heard; /* what was received from the server */

/* The next line to send into line (DEMO_LINE_MAX + 1 bytes): 1, or 0 when there is none (end of
 * stdin or script, SIGTERM). paced: wait --interval first, as between two lines of a script. */
static int next_line(char *line, size_t len, int paced)
{
    if (script_len > 0) {
        if (script_next == script_len && repeat)
            script_next = 0;
        if (script_next == script_len)
            return 0;
        static int started;
        if (started++ && paced) { /* pace the script; a person paces themselves */
            struct timespec ts = {interval_ms / 1000, (long)(interval_ms % 1000) * 1000000L};
            nanosleep(&ts, NULL); /* SIGTERM cuts it short; the caller checks demo_stop */
        }
        snprintf(line, len, "%s", script[script_next++]);
        return !demo_stop;
    }
    return demo_get_line(STDIN_FILENO, 0, &typed, line) == 1; /* blocks until you press Enter */
}

/* One problem with the server's side of the conversation, on one line of stdout in one write:
   the exercise's checks match it and quote it to the learner. */
static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
    char buf[2 * DEMO_LINE_MAX];
    int n = snprintf(buf, sizeof buf, "problem: ");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    fflush(stdout);
    demo_write_all(STDOUT_FILENO, buf, (size_t)n);
}

/* The reply to `line`, sent at t0, as its nth reply: 1, 0 when the reply was `exit` or the client
   was stopped, -1 when the server broke the protocol (said as a problem). */
static int await_reply(int fd, const char *line, uint64_t t0, unsigned long nth,
                       struct iolab_app *app)
{
    char reply[DEMO_LINE_MAX + 1];
    int r = demo_get_line(fd, 1, &heard, reply); /* blocks until the reply comes */
    if (demo_stop)
        return 0;
    if (r == 1) {
        demo_publish_request(app, strlen(reply) + 1, demo_now_ns() - t0);
        printf("server: %s\n", reply);
        fflush(stdout);
        return strcmp(reply, "exit") != 0; /* `exit`: the server ended it */
    }
    /* A reset is a close too: the server's socket was closed with our lines unread in it. */
    int err = errno, closed = r == 0 || (r < 0 && err == ECONNRESET);
    if (heard.have > 0 && closed) /* bytes came, but never the newline that ends a line */
        problem("a reply without its newline: \"%.*s\", then the server closed the connection",
                (int)heard.have, heard.buf);
    else if (heard.have > 0)
        problem("a reply without its newline: \"%.*s\", then nothing more for %d s",
                (int)heard.have, heard.buf, (int)reply_wait_s);
    else if (closed)
        problem("the server closed the connection before exit, after %lu repl%s, with \"%s\" "
                "unanswered",
                nth - 1, nth == 2 ? "y" : "ies", line);
    else if (err == EAGAIN || err == EWOULDBLOCK)
        problem("no reply to \"%s\" within %d s (reply %lu)", line, (int)reply_wait_s, nth);
    else
        problem("the connection failed while waiting for a reply to \"%s\" (%s)", line,
                strerror(err));
    return -1;
}

/* Before our `exit`: the server must still be there, with nothing more to say. A peek that
   returns 0 at once means it hung up after the last reply; bytes mean it sent more than one line
   for a line. 0, or -1 with the problem said. */
static int check_before_exit(int fd, unsigned long replies)
{
    char extra[DEMO_LINE_MAX + 1];
    ssize_t n = recv(fd, extra, sizeof extra - 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno == ECONNRESET)) {
        problem("the server closed the connection before exit, after %lu repl%s", replies,
                replies == 1 ? "y" : "ies");
        return -1;
    }
    if (heard.have == 0 && n < 0)
        return 0; /* nothing there: as it should be */
    const char *text = heard.have > 0 ? heard.buf : extra;
    size_t len = heard.have > 0 ? heard.have : (size_t)n;
    const char *nl = memchr(text, '\n', len);
    problem("the server sent \"%.*s\" after its %lu repl%s, before exit: one reply per line",
            (int)(nl ? (size_t)(nl - text) : len), text, replies, replies == 1 ? "y" : "ies");
    return -1;
}

/* We said `exit`: the server must not answer it, and must hang up. shutdown() tells it we send
   nothing more (its recv() returns 0), then recv() waits for the end of its side. 0 when it hung
   up with nothing said, -1 with the problem said. */
static int after_exit(int fd)
{
    char said[DEMO_LINE_MAX + 1];
    shutdown(fd, SHUT_WR);
    ssize_t n;
    do
        n = recv(fd, said, sizeof said - 1, 0);
    while (n < 0 && errno == EINTR && !demo_stop);
    if (demo_stop)
        return 0;
    if (n > 0) {
        said[n] = '\0';
        problem("the server answered exit with \"%.*s\"; exit gets no reply",
                (int)strcspn(said, "\n"), said);
        return -1;
    }
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        problem("the server kept the connection open %d s after exit; it must hang up",
                (int)reply_wait_s);
        return -1;
    }
    return 0; /* it hung up (a reset, too, is a close with nothing said) */
}

/* Sends n lines in one send(): with n > 1 they leave in one segment, and the server's first
   recv() brings them all. */
static int send_lines(int fd, char (*lines)[DEMO_LINE_MAX + 1], size_t n)
{
    char out[TOGETHER_MAX * (DEMO_LINE_MAX + 1)];
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(out + len, sizeof out - len, "%s\n", lines[i]);
    int err = demo_send_all(fd, out, len);
    if (err < 0 && !demo_stop)
        problem("could not send \"%s\": the server closed the connection before exit (%s)",
                lines[0], strerror(-err));
    return err;
}

/* The conversation: 0 when it ended as the protocol says, -1 when the server broke it. */
static int converse(int fd, struct iolab_app *app)
{
    char lines[TOGETHER_MAX][DEMO_LINE_MAX + 1];
    unsigned long replies = 0;
    size_t n = together; /* the first send() takes --together lines, every later one one line */
    for (;;) {
        size_t k = 0;
        while (k < n && next_line(lines[k], sizeof lines[k], k == 0))
            k++;
        if (k == 0)
            return 0; /* no line left: we hang up (without `exit` if the script has none) */
        if (strcmp(lines[k - 1], "exit") == 0 && check_before_exit(fd, replies) < 0)
            return -1;
        uint64_t t0 = demo_now_ns();
        if (send_lines(fd, lines, k) < 0)
            return demo_stop ? 0 : -1;
        for (size_t i = 0; i < k; i++)
            printf("me: %s\n", lines[i]);
        fflush(stdout);
        if (strcmp(lines[k - 1], "exit") == 0)
            return after_exit(fd); /* we ended it; the server does not answer `exit` */
        for (size_t i = 0; i < k; i++) {
            int r = await_reply(fd, lines[i], t0, ++replies, app); /* blocks until it comes */
            if (r <= 0)
                return r;
        }
        n = 1;
    }
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

/* A script that repeats must exist and must not end the conversation; --together takes lines
   the script has, none of them `exit` (which must be the last thing said). */
static void check_options(void)
{
    if (repeat && (script_len == 0 || says_exit))
        demo_usage_error(PROG, "--repeat wants a --script without 'exit' in it");
    int exit_among = 0;
    for (size_t i = 0; i < together && i < script_len; i++)
        exit_among |= strcmp(script[i], "exit") == 0;
    if (together > 1 && (script_len < together || exit_among))
        demo_usage_error(PROG,
                         "--together %llu wants a --script whose first %llu lines are not "
                         "'exit'",
                         (unsigned long long)together, (unsigned long long)together);
}

static const struct demo_opt opts[] = {
    DEMO_OPTS_CONNECT(&port, &host),
    DEMO_OPT_TEXT("script", &script_text, "LINES",
                  "send these ';'-separated lines instead of reading stdin", .after = split_script),
    DEMO_OPT_U64("interval", &interval_ms, 0, 3600000, "MS",
                 "pause between script lines (default 1000)"),
    DEMO_OPT_FLAG("repeat", &repeat, "start the script over after its last line (no 'exit' in it)"),
    DEMO_OPT_U64("together", &together, 1, TOGETHER_MAX, "N",
                 "send the script's first N lines in one send(), then read their N replies"),
    DEMO_OPT_U64("reply-wait", &reply_wait_s, 1, 3600, "S",
                 "with --script, wait at most S seconds for the server's next bytes (default 4)"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host 127.0.0.1] [--script \"a;b;exit\" [--interval MS] [--repeat]\n"
             "       [--together N] [--reply-wait S]]",
    .about = "Talks with ordered-server in turns: sends a line, waits for the one-line reply,\n"
             "prints it, and only then reads the next line. `exit` from either side ends it.\n",
    .opts = opts,
    .check = check_options,
    .footer = "After its own 'exit' it waits for the server to hang up without answering. With\n"
              "--script it also judges the server: a reply must come, newline included, within\n"
              "--reply-wait seconds; the server must not hang up before 'exit' nor answer it.\n"
              "What went wrong is one line starting 'problem: ', and the status is then 1.\n",
};

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    demo_signals_init();
    struct iolab_app *app = iolab_app();
    int fd = demo_connect(PROG, &host, port); /* socket() and connect() */
    if (fd < 0)
        return demo_stop ? 0 : 1;
    if (script_len > 0) { /* nobody types the server's replies: a silence is a problem */
        struct timeval wait = {.tv_sec = (time_t)reply_wait_s};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
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
    return rc < 0 ? 1 : 0; /* the problem is said */
}
