/*
 * chat-client: a member of chat-server's group chat. Two things can happen at any moment: the
 * person types a line, or a message arrives from the room. A client that blocked in read() on
 * one of them would miss the other (that is ordered-client's fixed order), so this one asks
 * epoll_wait() which of the two descriptors is ready and serves only that one:
 *
 *     stdin readable   -> read() what was typed, send() each complete line
 *     socket readable  -> recv() what arrived, write() it to stdout
 *
 * Its first line to the server is its --name. Typing `exit` leaves the room.
 *
 * Bots: with --say TEXT --every MS it says `TEXT #1`, `TEXT #2`, ... every MS milliseconds
 * (the epoll_wait() timeout is the time left until the next one), and --count N makes it leave
 * after N. A bot does not read stdin. These are the "other people in the room" of the lesson,
 * and the load of headless runs and tests.
 *
 * The end of stdin (Ctrl-D, a closed pipe, /dev/null) does not end the client: it stops
 * watching stdin and keeps printing what arrives, until the server closes the connection
 * (status 1, since the room went away), `exit`, --count, or SIGTERM (status 0).
 *
 * Published figures: requests (messages received), bytes (bytes received), conns_opened,
 * conns_closed, errors (the server closed the connection).
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG         "chat-client"
#define TEXT_MAX     1024
#define NAME_MAX_LEN 24

static const char *say;       /* --say: the bot's line, or NULL for a person */
static uint64_t every_ms;     /* --every */
static uint64_t count;        /* --count; 0: no limit */
static struct iolab_app *app; /* this (only) thread's published figures, or NULL */
static char typed[TEXT_MAX];  /* what was read from stdin, not yet a complete line */
static size_t typed_len;

/* A message arrived: show it. 0, or -1 when the server closed the connection. */
static int on_socket(int fd)
{
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0)
        return -1;
    if (demo_write_all(STDOUT_FILENO, buf, (size_t)n) < 0)
        return -1;
    if (app) {
        for (ssize_t i = 0; i < n; i++)
            if (buf[i] == '\n')
                iolab_add(&app->requests, 1); /* the server sends whole lines */
        iolab_add(&app->bytes, (uint64_t)n);
    }
    return 0;
}

/*
 * The person typed something: send every complete line. 0; 1 after `exit` (leave the room);
 * 2 at the end of stdin (stop watching it); -1 when sending failed.
 */
static int on_stdin(int sock)
{
    ssize_t n = read(STDIN_FILENO, typed + typed_len, sizeof typed - typed_len);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0)
        return 2;
    typed_len += (size_t)n;
    char *nl;
    while ((nl = memchr(typed, '\n', typed_len)) != NULL || typed_len == sizeof typed) {
        size_t len = nl ? (size_t)(nl - typed) + 1 : typed_len;
        if (len == 5 && memcmp(typed, "exit\n", 5) == 0)
            return 1;
        if (demo_send_all(sock, typed, len) < 0)
            return -1;
        if (!nl && demo_send_all(sock, "\n", 1) < 0) /* a cut line still ends with a newline */
            return -1;
        memmove(typed, typed + len, typed_len - len);
        typed_len -= len;
    }
    return 0;
}

/* ---- options, the conversation and main ---- */

static uint64_t port;
static struct demo_host host = {.name = "127.0.0.1"};
static const char *name; /* --name */

/* The others see "[NAME] TEXT": a name is one short word. */
static void check_name(void)
{
    if (!name[0] || strlen(name) > NAME_MAX_LEN || strpbrk(name, " \t\n[]"))
        demo_usage_error(PROG, "--name wants 1 to %d characters without spaces", NAME_MAX_LEN);
}

static void check_say(void)
{
    if (!say[0] || strlen(say) > TEXT_MAX - 32 || strchr(say, '\n'))
        demo_usage_error(PROG, "--say wants one line of text");
}

/* A bot needs both its line and its pace; only a bot counts its messages. */
static void check_bot(void)
{
    if (!say != !every_ms)
        demo_usage_error(PROG, "--say and --every go together");
    if (count && !say)
        demo_usage_error(PROG, "--count is for bots; give --say and --every too");
}

static const struct demo_opt opts[] = {
    DEMO_OPTS_CONNECT(&port, &host),
    DEMO_OPT_TEXT("name", &name, "NAME",
                  "how the others see you (up to " DEMO_STR(NAME_MAX_LEN) " characters, no spaces)",
                  .required = 1, .after = check_name),
    DEMO_OPT_TEXT("say", &say, "TEXT",
                  "be a bot: say 'TEXT #1', 'TEXT #2', ... instead of reading stdin",
                  .after = check_say),
    DEMO_OPT_U64("every", &every_ms, 1, 3600000, "MS",
                 "a bot's pause between messages (required with --say)"),
    DEMO_OPT_U64("count", &count, 1, UINT64_MAX, "N",
                 "a bot leaves after N messages (default: never)"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host 127.0.0.1] --name NAME [--say TEXT --every MS [--count N]]",
    .about = "Joins chat-server's room as NAME: prints what the others say, sends what you type\n"
             "(`exit` leaves). stdin and the socket are watched together with epoll.\n",
    .opts = opts,
    .footer = "The end of stdin does not end the client: it goes on listening.\n",
    .check = check_bot,
};

/* Joins the room and relays between stdin, the socket and stdout until exit or SIGTERM. */
static int chat(void)
{
    demo_signals_init();
    app = iolab_app();
    int status = 1, ep = -1;
    int fd = demo_connect(PROG, &host, port); /* socket() and connect() */
    if (fd < 0) {
        status = demo_stop ? 0 : 1;
        goto out;
    }
    if (app)
        iolab_add(&app->conns_opened, 1);
    char line[TEXT_MAX + 32];
    int len = snprintf(line, sizeof line, "%s\n", name);
    if (demo_send_all(fd, line, (size_t)len) < 0)
        goto lost;

    ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = fd};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    if (!say) {
        ev.data.fd = STDIN_FILENO;
        /* EPERM: stdin is a regular file or /dev/null, which epoll cannot watch; for a chat
         * that is the same as a stdin with nothing more to say. */
        epoll_ctl(ep, EPOLL_CTL_ADD, STDIN_FILENO, &ev);
    }

    uint64_t said = 0, next_say = demo_now_ns() + every_ms * 1000000u;
    while (!demo_stop) {
        int timeout = -1; /* a person: sleep until something happens */
        if (say) {
            uint64_t now = demo_now_ns();
            timeout = next_say > now ? (int)((next_say - now + 999999) / 1000000) : 0;
        }
        struct epoll_event events[2];
        int n = epoll_wait(ep, events, 2, timeout);
        if (n < 0 && errno != EINTR) {
            perror(PROG ": epoll_wait");
            goto lost;
        }
        for (int i = 0; i < n; i++) {
            if (events[i].data.fd == fd) {
                if (on_socket(fd) < 0)
                    goto lost;
                continue;
            }
            int r = on_stdin(fd);
            if (r < 0)
                goto lost;
            if (r == 1)
                goto leave;
            if (r == 2) /* end of stdin: keep listening to the room */
                epoll_ctl(ep, EPOLL_CTL_DEL, STDIN_FILENO, NULL);
        }
        if (say && demo_now_ns() >= next_say) {
            len = snprintf(line, sizeof line, "%s #%llu\n", say, (unsigned long long)++said);
            if (demo_send_all(fd, line, (size_t)len) < 0)
                goto lost;
            /* From now, not from the last deadline: a bot that was paused must not burst. */
            next_say = demo_now_ns() + every_ms * 1000000u;
            if (count && said == count)
                goto leave;
        }
    }
leave:
    status = 0;
    goto closed;
lost:
    if (demo_stop) {
        status = 0;
        goto closed;
    }
    fprintf(stderr, PROG ": the server closed the connection\n");
    if (app)
        iolab_add(&app->errors, 1);
closed:
    if (app)
        iolab_add(&app->conns_closed, 1);
out:
    if (ep >= 0)
        close(ep);
    if (fd >= 0)
        close(fd);
    return status;
}

int main(int argc, char **argv)
{
    demo_cli_parse(&cli, argc, argv);
    return chat();
}
