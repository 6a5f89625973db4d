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
 * Checking bots (the exercise's reference side): --verify checks every byte that arrives. A
 * line must be "[NAME] TEXT #N" (or a notice of the room, "* ...") with nothing before it (no
 * NUL padding or junk after the previous newline), and each speaker's numbers must follow one
 * another (a gap is lines the server did not relay). Only verified lines are printed; each
 * problem is printed once, as a line starting "problem: " that says what arrived. --delay MS
 * joins the room late. --crowd N, once the client's own connection hears the room, opens N more
 * connections at the same moment (NAME1..NAMEN, listening only), checks that each hears the
 * room, closes them and does it again, --rounds times, then says "crowd: N of N ... accepted"
 * (or "problem: only K of N clients ... were accepted").
 *
 * Published figures: requests (messages received), bytes (bytes received), conns_opened,
 * conns_closed, errors (the server closed the connection).
 */
#include "demo.h"
#include "iolab_counters.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#define PROG         "chat-client"
#define TEXT_MAX     1024
#define NAME_MAX_LEN 24

#define VERIFY_SPEAKERS 16
#define VERIFY_LINE     8192
#define CROWD_MAX       8

static const char *say;               /* --say: the bot's line, or NULL for a person */
static int verify;                    /* --verify */
static uint64_t delay_ms;             /* --delay */
static uint64_t crowd;                /* --crowd */
static uint64_t rounds = 3;           /* --rounds */
static uint64_t crowd_wait_ms = 3000; /* --crowd-wait: how long a crowd member may hear nothing */
static uint64_t every_ms;             /* --every */
static uint64_t count;                /* --count; 0: no limit */
static struct iolab_app *app;         /* this (only) thread's published figures, or NULL */
static char typed[TEXT_MAX];          /* what was read from stdin, not yet a complete line */
static size_t typed_len;

/* What --verify keeps of one connection: the line being assembled, the last complete line,
   each speaker's last number, and which problems were said already (each is said once). */
struct verify {
    char line[VERIFY_LINE];
    size_t len;
    char prev[128]; /* the last verified line, quoted beside junk that followed it */
    bool said_junk, said_format, said_long;
    int nspeakers;
    struct {
        char name[NAME_MAX_LEN + 1];
        uint64_t last;
        bool said;
    } sp[VERIFY_SPEAKERS];
    uint64_t heard; /* verified lines */
    const char *me; /* whose connection, in the sentences */
    bool quiet;     /* a crowd member: checks, but does not print the lines */
};

static const char *name; /* --name */

/* One problem, on stdout between the verified lines, in one write so that it stays a line. */
static void problem(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void problem(const char *fmt, ...)
{
    char buf[512];
    int n = snprintf(buf, sizeof buf, "problem: ");
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(buf + n, sizeof buf - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    demo_write_all(STDOUT_FILENO, buf, (size_t)n);
}

/* Bytes before the '[' that starts every line: NUL padding or junk sent after the previous
   line's newline. Says so once, and returns how many to drop. */
static size_t verify_junk(struct verify *v, const char *p, size_t n)
{
    size_t k = 0, nul = 0;
    while (k < n && p[k] != '[' && p[k] != '*') {
        nul += p[k] == '\0';
        k++;
    }
    if (k && !v->said_junk) {
        v->said_junk = true;
        problem("a line arrived with %zu byte%s after its newline (%s): \"%s\"", k,
                k == 1 ? "" : "s",
                nul == k ? "NUL bytes"
                : nul    ? "NUL bytes and others"
                         : "bytes that are not a line",
                v->prev[0] ? v->prev : "(the first line)");
    }
    return k;
}

/* Parses "[NAME] TEXT #N" into name and number; false when the line is not that. */
static bool verify_parse(const char *l, size_t len, char *who, uint64_t *num)
{
    const char *close = len > 1 ? memchr(l, ']', len) : NULL;
    if (!close || l[0] != '[' || close == l + 1 || (size_t)(close - l - 1) > NAME_MAX_LEN ||
        (size_t)(close - l) + 2 > len || close[1] != ' ')
        return false;
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)l[i] < 0x20 && l[i] != '\t')
            return false;
    memcpy(who, l + 1, (size_t)(close - l - 1));
    who[close - l - 1] = '\0';
    const char *end = l + len, *d = end;
    while (d > close + 2 && d[-1] >= '0' && d[-1] <= '9')
        d--;
    if (d == end || d - close < 4 || d[-1] != '#' || d[-2] != ' ')
        return false;
    /* The number ends where the line does: the buffer is not terminated after it. */
    uint64_t v = 0;
    for (const char *q = d; q < end && v < UINT64_MAX / 10 - 9; q++)
        v = v * 10 + (uint64_t)(*q - '0');
    *num = v;
    return true;
}

/* One complete line (without its newline): printed when it is well formed, checked for gaps. */
static void verify_line(struct verify *v, const char *l, size_t len)
{
    size_t skip = verify_junk(v, l, len);
    l += skip;
    len -= skip;
    char who[NAME_MAX_LEN + 1];
    uint64_t num;
    /* The room's notices ("* welcome ana; 3 in the room", from the lesson's own chat-server):
       shown, and no speaker's line. */
    if (len >= 2 && l[0] == '*' && l[1] == ' ' && !memchr(l, '\0', len)) {
        if (!v->quiet) {
            char out[VERIFY_LINE + 1];
            memcpy(out, l, len);
            out[len] = '\n';
            demo_write_all(STDOUT_FILENO, out, len + 1);
        }
        return;
    }
    if (!verify_parse(l, len, who, &num)) {
        if (!v->said_format) {
            v->said_format = true;
            problem("a line arrived that is not \"[NAME] TEXT\" as the others sent it: \"%.*s\"",
                    (int)(len < 80 ? len : 80), l);
        }
        return;
    }
    if (!v->quiet) {
        char out[VERIFY_LINE + 1];
        memcpy(out, l, len);
        out[len] = '\n';
        demo_write_all(STDOUT_FILENO, out, len + 1);
    }
    snprintf(v->prev, sizeof v->prev, "%.*s", (int)len, l);
    v->heard++;
    int i = 0;
    while (i < v->nspeakers && strcmp(v->sp[i].name, who))
        i++;
    if (i == v->nspeakers) { /* the first line heard from them: their numbers start here */
        if (i == VERIFY_SPEAKERS)
            return;
        v->nspeakers++;
        snprintf(v->sp[i].name, sizeof v->sp[i].name, "%s", who);
        v->sp[i].last = num;
        return;
    }
    uint64_t last = v->sp[i].last;
    v->sp[i].last = num;
    if (num == last + 1 || v->sp[i].said)
        return;
    v->sp[i].said = true;
    if (num > last + 1)
        problem("%s missed %s's lines #%llu to #%llu: heard #%llu, then #%llu", v->me, who,
                (unsigned long long)last + 1, (unsigned long long)num - 1, (unsigned long long)last,
                (unsigned long long)num);
    else
        problem("%s heard %s's line #%llu again after #%llu", v->me, who, (unsigned long long)num,
                (unsigned long long)last);
}

/* Feeds what arrived to the line checks. */
static void verify_bytes(struct verify *v, const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] == '\n') {
            verify_line(v, v->line, v->len);
            v->len = 0;
            continue;
        }
        if (v->len == sizeof v->line) {
            if (!v->said_long) {
                v->said_long = true;
                problem("more than %d bytes arrived without a newline after \"%s\"", VERIFY_LINE,
                        v->prev[0] ? v->prev : "(nothing yet)");
            }
            v->len = 0;
        }
        v->line[v->len++] = buf[i];
    }
    /* Junk at the start of a line is certain as soon as it is seen: said now, not at the next
       newline, which may never come. */
    if (v->len && v->line[0] != '[' && v->line[0] != '*') {
        size_t k = verify_junk(v, v->line, v->len);
        memmove(v->line, v->line + k, v->len - k);
        v->len -= k;
    }
}

static struct verify main_verify;

/* A message arrived: show it (or, with --verify, check it into v). 0, or -1 when the server
   closed the connection. */
static int on_socket(int fd, struct verify *v)
{
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR)
        return 0;
    if (n <= 0)
        return -1;
    if (verify)
        verify_bytes(v, buf, (size_t)n);
    else if (demo_write_all(STDOUT_FILENO, buf, (size_t)n) < 0)
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
    if (crowd && !verify)
        demo_usage_error(PROG, "--crowd checks what its members hear: give --verify too");
    if (crowd && strlen(name) + 1 > NAME_MAX_LEN)
        demo_usage_error(PROG, "--crowd names its members NAME1...: --name is too long for that");
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
    DEMO_OPT_FLAG("verify", &verify,
                  "check every byte that arrives: whole \"[NAME] TEXT #N\" lines, nothing "
                  "after a newline, no number skipped; say each problem on a \"problem:\" line"),
    DEMO_OPT_U64("delay", &delay_ms, 1, 3600000, "MS", "join the room MS milliseconds late"),
    DEMO_OPT_U64("crowd", &crowd, 1, CROWD_MAX, "N",
                 "also connect N listeners at the same moment, check each is heard, and repeat"),
    DEMO_OPT_U64("rounds", &rounds, 1, 100, "R", "how many times the crowd connects (default 3)"),
    DEMO_OPT_U64("crowd-wait", &crowd_wait_ms, 100, 600000, "MS",
                 "how long a crowd member may hear nothing before it counts as not accepted "
                 "(default 3000)"),
    {0},
};

static const struct demo_cli cli = {
    .prog = PROG,
    .usage = "--port P [--host 127.0.0.1] --name NAME [--say TEXT --every MS [--count N]]\n"
             "       [--verify [--crowd N [--rounds R] [--crowd-wait MS]]] [--delay MS]",
    .about = "Joins chat-server's room as NAME: prints what the others say, sends what you type\n"
             "(`exit` leaves). stdin and the socket are watched together with epoll.\n",
    .opts = opts,
    .footer = "The end of stdin does not end the client: it goes on listening.\n",
    .check = check_bot,
};

/*
 * The crowd: `crowd` connections made at the same moment (connect() after connect(), before
 * any of them says its name), each of which must hear the room within crowd_wait_ms. A server
 * that accepts once per wake-up of an edge-triggered listening socket leaves some of them in
 * the backlog, unheard. A round that passes closes them and starts the next one.
 */
struct crowd {
    int fd[CROWD_MAX];
    struct verify v[CROWD_MAX];
    char names[CROWD_MAX][NAME_MAX_LEN + 1];
    uint64_t round;      /* rounds started */
    uint64_t deadline;   /* demo_now_ns() by which every member must have heard a line */
    uint64_t main_heard; /* lines the client's own connection had heard when the round began */
    bool done;           /* passed every round, or failed one: no more rounds */
};

static void crowd_close(struct crowd *c, int ep)
{
    for (uint64_t i = 0; i < crowd; i++)
        if (c->fd[i] >= 0) {
            epoll_ctl(ep, EPOLL_CTL_DEL, c->fd[i], NULL);
            close(c->fd[i]);
            c->fd[i] = -1;
            if (app)
                iolab_add(&app->conns_closed, 1);
        }
}

/* Starts a round: every connection first, then every name. 0, or -1 when one failed. */
static int crowd_start(struct crowd *c, int ep)
{
    c->round++;
    for (uint64_t i = 0; i < crowd; i++) {
        c->fd[i] = demo_connect(PROG, &host, port);
        if (c->fd[i] < 0)
            return -1;
        if (app)
            iolab_add(&app->conns_opened, 1);
    }
    for (uint64_t i = 0; i < crowd; i++) {
        char line[NAME_MAX_LEN + 4];
        int len = snprintf(line, sizeof line, "%s\n", c->names[i]);
        if (demo_send_all(c->fd[i], line, (size_t)len) < 0)
            return -1;
        struct verify *v = &c->v[i];
        memset(v, 0, sizeof *v);
        v->me = c->names[i];
        v->quiet = true;
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)(1 + i)};
        epoll_ctl(ep, EPOLL_CTL_ADD, c->fd[i], &ev);
    }
    c->deadline = demo_now_ns() + crowd_wait_ms * 1000000u;
    c->main_heard = main_verify.heard;
    return 0;
}

/* After every event: starts the first round once this client's own connection hears the room
   (so that its own connect is not part of the crowd's moment, and an unheard member cannot be
   a broken room), ends a round whose members all heard the room (and starts the next), or one
   whose time is up, saying how many were accepted. */
static void crowd_step(struct crowd *c, int ep)
{
    if (c->done)
        return;
    if (!c->round) {
        if (main_verify.heard && crowd_start(c, ep) < 0) {
            c->done = true;
            crowd_close(c, ep);
        }
        return;
    }
    uint64_t heard = 0;
    for (uint64_t i = 0; i < crowd; i++)
        heard += c->v[i].heard > 0;
    if (heard == crowd) {
        crowd_close(c, ep);
        if (c->round == rounds) {
            c->done = true;
            printf("crowd: %llu of %llu clients that connected at the same moment were "
                   "accepted, %llu times\n",
                   (unsigned long long)crowd, (unsigned long long)crowd,
                   (unsigned long long)rounds);
            fflush(stdout);
        } else if (crowd_start(c, ep) < 0) {
            c->done = true;
            crowd_close(c, ep);
        }
        return;
    }
    if (demo_now_ns() < c->deadline)
        return;
    c->done = true;
    if (heard)
        problem("only %llu of %llu clients that connected at the same moment were accepted "
                "(round %llu): the others heard nothing in %.1f s",
                (unsigned long long)heard, (unsigned long long)crowd, (unsigned long long)c->round,
                (double)crowd_wait_ms / 1000);
    else if (main_verify.heard > c->main_heard) /* the room talks, to everyone but them */
        problem("only 0 of %llu clients that connected at the same moment were accepted (round "
                "%llu): none heard anything in %.1f s, while %s heard the room",
                (unsigned long long)crowd, (unsigned long long)c->round,
                (double)crowd_wait_ms / 1000, name);
    else { /* nobody heard anything: the room itself is broken, not only the accepts */
        printf("crowd: none of %llu clients that connected at the same moment heard anything in "
               "%.1f s (round %llu)\n",
               (unsigned long long)crowd, (double)crowd_wait_ms / 1000,
               (unsigned long long)c->round);
        fflush(stdout);
    }
    crowd_close(c, ep);
}

/* Joins the room and relays between stdin, the socket and stdout until exit or SIGTERM. */
static int chat(void)
{
    demo_signals_init();
    app = iolab_app();
    int status = 1, ep = -1;
    static struct crowd cr;
    for (int i = 0; i < CROWD_MAX; i++) {
        cr.fd[i] = -1;
        snprintf(cr.names[i], sizeof cr.names[i], "%.*s%d", NAME_MAX_LEN - 1, name, i + 1);
    }
    main_verify.me = name;
    if (delay_ms)
        demo_sleep_ns(delay_ms * 1000000u); /* joins late */
    if (demo_stop)
        return 0;
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
    /* data.u32: 0 the room's socket, 1..crowd a crowd member, CROWD_MAX + 1 stdin. */
    struct epoll_event ev = {.events = EPOLLIN, .data.u32 = 0};
    epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
    if (!say) {
        ev.data.u32 = CROWD_MAX + 1;
        /* EPERM: stdin is a regular file or /dev/null, which epoll cannot watch; for a chat
         * that is the same as a stdin with nothing more to say. */
        epoll_ctl(ep, EPOLL_CTL_ADD, STDIN_FILENO, &ev);
    }

    uint64_t said = 0, next_say = demo_now_ns() + every_ms * 1000000u;
    while (!demo_stop) {
        int timeout = -1; /* a person: sleep until something happens */
        uint64_t now = demo_now_ns();
        if (say)
            timeout = next_say > now ? (int)((next_say - now + 999999) / 1000000) : 0;
        if (cr.round && !cr.done) { /* wake up for the crowd's deadline too */
            int t = cr.deadline > now ? (int)((cr.deadline - now + 999999) / 1000000) : 0;
            timeout = timeout < 0 || t < timeout ? t : timeout;
        }
        struct epoll_event events[2 + CROWD_MAX];
        int n = epoll_wait(ep, events, 2 + CROWD_MAX, timeout);
        if (n < 0 && errno != EINTR) {
            perror(PROG ": epoll_wait");
            goto lost;
        }
        for (int i = 0; i < n; i++) {
            uint32_t who = events[i].data.u32;
            if (who == 0) {
                if (on_socket(fd, &main_verify) < 0)
                    goto lost;
                continue;
            }
            if (who <= CROWD_MAX) { /* a crowd member: the server closing it ends its round */
                struct crowd *c = &cr;
                if (c->fd[who - 1] >= 0 && on_socket(c->fd[who - 1], &c->v[who - 1]) < 0) {
                    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd[who - 1], NULL);
                    close(c->fd[who - 1]);
                    c->fd[who - 1] = -1;
                }
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
        if (crowd)
            crowd_step(&cr, ep);
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
    for (uint64_t i = 0; i < crowd; i++)
        if (cr.fd[i] >= 0)
            close(cr.fd[i]);
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
