/*
 * view: the services the TUI lends its screens (view.h): the status line, the log and saving
 * progress. They touch only the view_ctx, so a screen needs nothing of tui.c.
 */
#include "view.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *view_editor(void)
{
    const char *ed = getenv("VISUAL");
    if (!ed || !*ed)
        ed = getenv("EDITOR");
    if (!ed || !*ed)
        ed = access("/usr/bin/sensible-editor", X_OK) == 0 ? "sensible-editor" : "vi";
    return ed;
}

void view_log(struct view_ctx *c, const char *fmt, ...)
{
    if (!c->log)
        return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct tm tm;
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S", localtime_r(&now.tv_sec, &tm));
    fprintf(c->log, "%s.%03ld ", stamp, now.tv_nsec / 1000000);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(c->log, fmt, ap);
    va_end(ap);
    fputc('\n', c->log);
    fflush(c->log);
}

void view_status(struct view_ctx *c, bool bad, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->status, sizeof c->status, fmt, ap);
    va_end(ap);
    c->status_bad = bad;
    c->status_gen++;
    c->dirty = true;
    view_log(c, "status: %s", c->status);
}

void view_save_progress(struct view_ctx *c)
{
    if (!c->progress)
        return;
    /* Under the lock, what another iolab saved meanwhile (an import, a reset) is taken in first,
     * so that this save keeps it. */
    int lock = progress_lock(c->progress->path);
    int rc = lock < 0 ? lock : progress_sync(c->progress);
    if (rc > 0)
        view_log(c, "progress: took in what another iolab saved to %s", c->progress->path);
    if (rc >= 0)
        rc = progress_save(c->progress);
    progress_unlock(lock);
    if (rc < 0)
        view_status(c, true, "Could not save progress to %s: %s", c->progress->path, strerror(-rc));
}
