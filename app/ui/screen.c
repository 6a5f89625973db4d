/*
 * screen: terminal safety. The state lives in file-level statics because signal handlers need
 * it; everything a handler touches is prepared before the handler is installed (the saved
 * termios, the reset sequence, the original stderr descriptor), so the crash path only calls
 * async-signal-safe functions.
 */
#include "screen.h"
#include "termreport.h"

#include <errno.h>
#include <fcntl.h>
#include <langinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <term.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static const struct screen_glyphs screen_utf8 = {
    .hline = "\u2500",
    .vline = "\u2502",
    .tl = "\u250c",
    .tr = "\u2510",
    .bl = "\u2514",
    .br = "\u2518",
    .eighths = {" ", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589",
                "\u2588"},
    .spark = {"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"},
    .done = "\u2713",
    .todo = "\u2717",
    .partial = "\u25d0",
    .more = "\u2026",
    .mismatch = "\u2260",
    .cursor = "\u25b6",
};

static const struct screen_glyphs screen_ascii = {
    .hline = "-",
    .vline = "|",
    .tl = "+",
    .tr = "+",
    .bl = "+",
    .br = "+",
    .eighths = {" ", " ", " ", "-", "-", "-", "=", "=", "#"},
    .spark = {"_", "_", ".", ".", "-", "-", "^", "#"},
    .done = "+",
    .todo = "x",
    .partial = "~",
    .more = ">",
    .mismatch = "!",
    .cursor = ">",
};

/* Colour pair per role (foreground, -1 is the terminal's default) and the attributes used
   without colour, so that every role stays distinguishable in monochrome. */
static const struct {
    short fg, bg;
    attr_t mono;
    attr_t extra; /* added in colour too */
} screen_roles[SCREEN_NROLES] = {
    [SCREEN_NORMAL] = {-1, -1, A_NORMAL, A_NORMAL},
    [SCREEN_TITLE] = {COLOR_BLACK, COLOR_CYAN, A_REVERSE, A_NORMAL},
    [SCREEN_BORDER] = {COLOR_BLUE, -1, A_NORMAL, A_NORMAL},
    [SCREEN_FOCUS] = {COLOR_YELLOW, -1, A_BOLD, A_BOLD},
    [SCREEN_HEADING] = {COLOR_CYAN, -1, A_BOLD, A_BOLD},
    [SCREEN_CODE] = {COLOR_GREEN, -1, A_UNDERLINE, A_NORMAL},
    [SCREEN_GOOD] = {COLOR_GREEN, -1, A_BOLD, A_NORMAL},
    [SCREEN_BAD] = {COLOR_RED, -1, A_BOLD, A_NORMAL},
    [SCREEN_DIM] = {-1, -1, A_DIM, A_DIM},
    [SCREEN_BAR] = {COLOR_MAGENTA, -1, A_NORMAL, A_NORMAL},
    [SCREEN_STDERR] = {COLOR_RED, -1, A_DIM, A_NORMAL},
};

static bool screen_on;              /* curses is active */
static bool screen_colour;          /* colours in use */
static struct termios screen_saved; /* the tty as we found it */
static bool screen_have_saved;
static int screen_tty = -1;    /* the terminal's descriptor (stdout) */
static int screen_stderr = -1; /* the original stderr while fd 2 points at the buffer */
static int screen_buffer = -1; /* the memory file stderr goes to while curses runs */
static SCREEN *screen_term;

/* Leaves the alternate screen, shows the cursor, resets attributes and mouse reporting. */
static const char screen_reset_seq[] = "\033[?1000l\033[?1002l\033[?1006l\033[0m\033[?25h"
                                       "\033[?1049l\r\n";

static void screen_crash(int sig)
{
    /* Only async-signal-safe calls: write, tcsetattr, signal, raise. */
    if (screen_on && screen_tty >= 0) {
        ssize_t r = write(screen_tty, screen_reset_seq, sizeof screen_reset_seq - 1);
        (void)r;
        if (screen_have_saved)
            tcsetattr(screen_tty, TCSAFLUSH, &screen_saved);
    }
    if (screen_stderr >= 0)
        dup2(screen_stderr, STDERR_FILENO);
    static const char msg[] = "iolab crashed; the terminal was restored. Please report this.\n";
    ssize_t r = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)r;
    signal(sig, SIG_DFL);
    raise(sig);
}

static void screen_crash_handlers(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = screen_crash;
    sa.sa_flags = SA_RESETHAND | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaction(sigs[i], &sa, NULL);
}

/* Sends stderr into a memory file while curses owns the screen; replayed by screen_restore. */
static void screen_capture_stderr(void)
{
    int buf = memfd_create("iolab-stderr", MFD_CLOEXEC);
    int saved = buf >= 0 ? fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3) : -1;
    if (buf < 0 || saved < 0 || dup2(buf, STDERR_FILENO) < 0) {
        if (buf >= 0)
            close(buf);
        if (saved >= 0)
            close(saved);
        return;
    }
    screen_buffer = buf;
    screen_stderr = saved;
}

static void screen_replay_stderr(void)
{
    if (screen_stderr < 0)
        return;
    fflush(stderr);
    dup2(screen_stderr, STDERR_FILENO);
    close(screen_stderr);
    screen_stderr = -1;
    char chunk[4096];
    ssize_t n;
    off_t off = 0;
    while ((n = pread(screen_buffer, chunk, sizeof chunk, off)) > 0) {
        ssize_t w = write(STDERR_FILENO, chunk, (size_t)n);
        if (w <= 0)
            break;
        off += n;
    }
    close(screen_buffer);
    screen_buffer = -1;
}

/*
 * Whether curses knows the terminal type (-ENOENT when not) and it can address the cursor
 * (-ENOTTY when not). TERM=dumb and types like it load fine in curses but have no cursor
 * motion: the TUI would show a blank screen and leave its footer behind. The description is
 * loaded and freed here without writing anything to the terminal, and an unknown type never
 * reaches newterm(), which leaks what it allocated when it fails.
 */
static int screen_can_draw(void)
{
    int err = 0;
    if (setupterm(NULL, STDOUT_FILENO, &err) != OK)
        return err == 1 ? -ENOTTY : -ENOENT; /* 1: a hard-copy terminal; else unknown */
    char *cup = tigetstr("cup");
    int rc = cup && cup != (char *)-1 ? 0 : -ENOTTY;
    del_curterm(cur_term); /* also makes no terminal current, for newterm() to start afresh */
    return rc;
}

int screen_init(struct screen_caps *caps, char *why, size_t whylen)
{
    if (screen_on)
        return 0;
    screen_tty = STDOUT_FILENO;
    screen_have_saved = tcgetattr(screen_tty, &screen_saved) == 0;
    const char *cs = nl_langinfo(CODESET);
    caps->utf8 = cs && (!strcasecmp(cs, "UTF-8") || !strcasecmp(cs, "utf8"));
    caps->g = caps->utf8 ? &screen_utf8 : &screen_ascii;
    /* Keep the escape key snappy: ncurses waits 1 s by default to see if a sequence follows. */
    if (!getenv("ESCDELAY"))
        set_escdelay(25);
    int draw = screen_can_draw();
    if (draw == -ENOTTY) {
        /* newterm() would accept it and then draw nothing: refuse it as an unknown one. */
        snprintf(why, whylen,
                 "the terminal type '%s' cannot move the cursor, so the lessons cannot be drawn "
                 "on it; try TERM=xterm-256color, or `iolab run LESSON` for a run without a "
                 "screen",
                 getenv("TERM") ? getenv("TERM") : "");
        return -ENOTTY;
    }
    screen_term = draw == 0 ? newterm(NULL, stdout, stdin) : NULL;
    if (!screen_term) {
        snprintf(why, whylen,
                 "the terminal type '%s' is unknown to curses; try TERM=xterm-256color",
                 getenv("TERM") ? getenv("TERM") : "");
        return -ENOTTY;
    }
    screen_crash_handlers();
    screen_on = true;
    screen_capture_stderr();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    nodelay(stdscr, TRUE);
    curs_set(0);
    mousemask(BUTTON1_CLICKED | BUTTON1_PRESSED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    mouseinterval(0);
    const char *nc = getenv("NO_COLOR");
    screen_colour = has_colors() && !(nc && nc[0]);
    if (screen_colour) {
        start_color();
        use_default_colors();
        for (int r = 1; r < SCREEN_NROLES; r++)
            init_pair((short)r, screen_roles[r].fg, screen_roles[r].bg);
    }
    caps->colour = screen_colour;
    return 0;
}

/*
 * Clears the screen before curses lets go of it. On a terminal with an alternate screen this
 * blanks a screen that is about to be left anyway; on one without (the Linux console, vt220,
 * some emulators' settings), and whenever the alternate screen was left behind curses' back
 * (an editor's exit does that on some terminals), the last frame would otherwise stay in the
 * shell, or under the editor.
 */
static void screen_blank(void)
{
    clear();
    refresh();
}

void screen_restore(void)
{
    if (screen_on) {
        screen_on = false;
        mousemask(0, NULL);
        screen_blank();
        endwin();
        if (screen_have_saved)
            tcsetattr(screen_tty, TCSAFLUSH, &screen_saved);
        /* endwin() leaves the alternate screen; say it again for terminals where it did not. */
        ssize_t r = write(screen_tty, "\033[?1006l\033[?1000l\033[?25h", 22);
        (void)r;
        delscreen(screen_term);
        screen_term = NULL;
    }
    screen_replay_stderr();
}

/*
 * Hands the terminal over to another program (the learner's editor) and takes it back: the
 * terminal is in its normal mode, with stderr where it was, until screen_resume() redraws.
 */
void screen_suspend(void)
{
    if (!screen_on)
        return;
    screen_blank();
    def_prog_mode();
    endwin();
    if (screen_have_saved)
        tcsetattr(screen_tty, TCSAFLUSH, &screen_saved);
    fflush(stderr);
    if (screen_stderr >= 0)
        dup2(screen_stderr, STDERR_FILENO);
}

void screen_resume(void)
{
    if (!screen_on)
        return;
    if (screen_buffer >= 0)
        dup2(screen_buffer, STDERR_FILENO);
    reset_prog_mode();
    clearok(curscr, TRUE);
    refresh();
}

void screen_resize(void)
{
    struct winsize ws;
    if (!screen_on || ioctl(screen_tty, TIOCGWINSZ, &ws) < 0 || ws.ws_row == 0)
        return;
    resize_term(ws.ws_row, ws.ws_col);
    clearok(curscr, TRUE);
}

static int64_t screen_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int screen_getch(void)
{
    static struct termreport rep = {.lone_at_ms = -1};
    static int queued = ERR; /* the second key of a pair the filter gave back */
    if (queued != ERR) {
        int k = queued;
        queued = ERR;
        return k;
    }
    for (;;) {
        int key = getch();
        if (key == ERR && termreport_holding(&rep)) {
            /* A held Esc: wait a moment for a report's '[' (curses' own wait, ESCDELAY, is
               too short for a report split by a loaded machine), then it is a lone Esc. The
               loop stands still for at most that moment, and only after an Esc. */
            wtimeout(stdscr, TERMREPORT_HOLD_MS);
            key = getch();
            nodelay(stdscr, TRUE);
            if (key == ERR)
                return termreport_expire(&rep, screen_now_ms());
        }
        if (key == ERR)
            return ERR; /* inside a report or not, the rest comes with the next wake-up */
        int out[2];
        int n = termreport_feed(&rep, key, screen_now_ms(), out);
        if (n == 2)
            queued = out[1];
        if (n > 0)
            return out[0];
    }
}

attr_t screen_attr(enum screen_role role)
{
    if ((unsigned)role >= SCREEN_NROLES)
        return A_NORMAL;
    if (!screen_colour)
        return screen_roles[role].mono;
    return role == SCREEN_NORMAL ? A_NORMAL : (attr_t)COLOR_PAIR(role) | screen_roles[role].extra;
}

const struct screen_glyphs *screen_glyphs(bool utf8)
{
    return utf8 ? &screen_utf8 : &screen_ascii;
}
