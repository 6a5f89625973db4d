/*
 * progress_store: the progress file (progress.h): where it lives, its load (a damaged file is
 * moved aside, never overwritten), the atomic save (a temporary file fsynced, renamed over the
 * old one, the directory fsynced), the lock every read-modify-write holds, and the sync that
 * takes in what another iolab saved meanwhile (a three-way merge against the text this store
 * last read or wrote). The text itself is progress_codec.c's.
 */
#include "progress.h"
#include "progress_int.h"

#include "fileread.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void progress_remove_temps(const char *path);

int progress_default_path(char *buf, size_t len)
{
    const char *state = getenv("XDG_STATE_HOME");
    int n;
    /* The XDG spec says a relative XDG_STATE_HOME is invalid and must be ignored. */
    if (state && state[0] == '/') {
        n = snprintf(buf, len, "%s/iolab/progress.json", state);
    } else {
        const char *home = getenv("HOME");
        if (!home || !home[0])
            return -ENOENT;
        n = snprintf(buf, len, "%s/.local/state/iolab/progress.json", home);
    }
    return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Renames a damaged file aside; the new name goes into p->damaged. */
static int progress_move_aside(struct progress *p)
{
    char stamp[32];
    time_t now = time(NULL);
    struct tm tm;
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%S", localtime_r(&now, &tm));
    char *aside = NULL;
    /* Two damaged files in the same second must not overwrite each other: add a counter. */
    for (int i = 0; i < 100; i++) {
        free(aside);
        aside = NULL;
        if ((i ? asprintf(&aside, "%s.damaged-%s-%d", p->path, stamp, i)
               : asprintf(&aside, "%s.damaged-%s", p->path, stamp)) < 0)
            return -ENOMEM;
        if (access(aside, F_OK) < 0 && errno == ENOENT)
            break;
    }
    /* link+unlink instead of rename: rename would replace a file that appeared meanwhile. */
    if (link(p->path, aside) < 0 || unlink(p->path) < 0) {
        int err = -errno;
        free(aside);
        return err;
    }
    p->damaged = aside;
    return 0;
}

/* The identity of the file at path (device, inode, size, change time), all 0 when absent. */
static void progress_stamp(const char *path, long long st[4])
{
    struct stat sb;
    memset(st, 0, 4 * sizeof *st);
    if (stat(path, &sb) == 0) {
        st[0] = (long long)sb.st_dev;
        st[1] = (long long)sb.st_ino;
        st[2] = (long long)sb.st_size;
        st[3] = (long long)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
    }
}

/* Makes text (what the file holds now; taken over) p's base for the next sync. */
static void progress_remember(struct progress *p, char *text)
{
    free(p->base_text);
    p->base_text = text;
    progress_stamp(p->path, p->stamp);
}

/* p's base as a store (an empty one when p has none); NULL on -ENOMEM or a damaged base. */
static struct progress *progress_base(const struct progress *p)
{
    struct progress *base = calloc(1, sizeof *base);
    const char *text = p->base_text ? p->base_text : "{\"format\": 1, \"packs\": {}}";
    if (base && progress_parse(base, text, strlen(text)) < 0) {
        progress_free(base);
        base = NULL;
    }
    return base;
}

/* Removes one step (done, record, answer) from a pack, as a reset elsewhere did. */
static void progress_forget_step(struct progress_pack *pk, const char *key)
{
    size_t keep = 0;
    for (size_t j = 0; j < pk->ndone; j++) {
        if (strcmp(pk->done[j], key))
            pk->done[keep++] = pk->done[j];
        else
            free(pk->done[j]);
    }
    pk->ndone = keep;
    keep = 0;
    for (size_t j = 0; j < pk->nrecords; j++) {
        if (strcmp(pk->records[j].step, key))
            pk->records[keep++] = pk->records[j];
        else
            progress_record_clear(&pk->records[j]);
    }
    pk->nrecords = keep;
    keep = 0;
    for (size_t j = 0; j < pk->nanswers; j++) {
        if (strcmp(pk->answers[j].step, key)) {
            pk->answers[keep++] = pk->answers[j];
        } else {
            free(pk->answers[j].step);
            free(pk->answers[j].value);
        }
    }
    pk->nanswers = keep;
    progress_index_drop(pk);
}

/* Whether a step stands the same in two stores (same done, same record time). */
static bool progress_step_same(const struct progress_pack *a, const struct progress_pack *b,
                               const char *key)
{
    const struct progress_record *ra = progress_pack_record(a, key),
                                 *rb = progress_pack_record(b, key);
    return progress_pack_is_done(a, key) == progress_pack_is_done(b, key) && !ra == !rb &&
           (!ra || (ra->updated == rb->updated && ra->nfields == rb->nfields));
}

/* Takes one step that another process changed on disk into p (see progress_sync). */
static int progress_take_step(struct progress *p, const char *pack,
                              const struct progress_pack *disk, const char *key, bool *changed)
{
    const struct progress_pack *mine = progress_pack_find(p, pack);
    const struct progress_record *rd = progress_pack_record(disk, key);
    const struct progress_record *rm = progress_pack_record(mine, key);
    int rc = 0;
    if (rd && (!rm || rd->updated >= rm->updated)) {
        rc = progress_record_put(p, pack, rd);
        *changed = true;
    }
    if (rc == 0 && progress_pack_is_done(disk, key) && !progress_pack_is_done(mine, key)) {
        /* Marked done elsewhere: done, with the time it was done there. */
        char lesson[256];
        snprintf(lesson, sizeof lesson, "%.*s", (int)(strchr(key, '/') - key), key);
        long long at = rd ? rd->done_at : 0, up = rd ? rd->updated : 0;
        rc = progress_mark_done(p, pack, lesson, strchr(key, '/') + 1);
        struct progress_record *r =
            (struct progress_record *)progress_pack_record(progress_pack_find(p, pack), key);
        if (rc == 0 && r && rd) {
            r->done_at = at;
            r->updated = up > r->updated ? up : r->updated;
        }
        *changed = true;
    }
    return rc;
}

int progress_sync(struct progress *p)
{
    long long st[4];
    progress_stamp(p->path, st);
    if (!memcmp(st, p->stamp, sizeof st))
        return 0; /* nobody wrote the file since p read or wrote it */
    struct progress *disk = NULL, *base = progress_base(p);
    int rc = base ? progress_load(p->path, &disk) : -ENOMEM;
    if (rc < 0) {
        progress_free(base);
        return rc;
    }
    bool changed = false;
    /* What others changed or added: on disk, and not as the base had it. */
    for (size_t i = 0; i < disk->npacks && rc == 0; i++) {
        const struct progress_pack *dk = &disk->packs[i];
        const struct progress_pack *bk = progress_pack_find(base, dk->id);
        /* A version another process noted wins unless this one noted its own since. */
        const struct progress_pack *mine = progress_pack_find(p, dk->id);
        const char *bv = bk ? bk->version : NULL, *mv = mine ? mine->version : NULL;
        if (dk->version && (!bv || strcmp(dk->version, bv)) && (!mv || (bv && !strcmp(mv, bv))) &&
            (!mv || strcmp(mv, dk->version))) {
            rc = progress_set_version(p, dk->id, dk->version);
            changed = true;
        }
        for (size_t j = 0; j < dk->nrecords && rc == 0; j++)
            if (!bk || !progress_step_same(dk, bk, dk->records[j].step))
                rc = progress_take_step(p, dk->id, dk, dk->records[j].step, &changed);
        for (size_t j = 0; j < dk->ndone && rc == 0; j++)
            if (!progress_pack_is_done(bk, dk->done[j]))
                rc = progress_take_step(p, dk->id, dk, dk->done[j], &changed);
        for (size_t j = 0; j < dk->nanswers && rc == 0; j++) {
            const char *key = dk->answers[j].step;
            struct progress_pack *mk = (struct progress_pack *)progress_pack_find(p, dk->id);
            bool have = false;
            for (size_t k = 0; mk && k < mk->nanswers && !have; k++)
                have = !strcmp(mk->answers[k].step, key);
            if (!have) {
                char lesson[256];
                snprintf(lesson, sizeof lesson, "%.*s", (int)(strchr(key, '/') - key), key);
                rc = progress_set_answer(p, dk->id, lesson, strchr(key, '/') + 1,
                                         dk->answers[j].value);
                changed = true;
            }
        }
    }
    /* What others removed (a reset): in the base, gone from disk, and not changed here since. */
    for (size_t i = 0; i < base->npacks && rc == 0; i++) {
        const struct progress_pack *bk = &base->packs[i];
        const struct progress_pack *dk = progress_pack_find(disk, bk->id);
        struct progress_pack *mk = (struct progress_pack *)progress_pack_find(p, bk->id);
        for (size_t j = 0; mk && j < bk->nrecords; j++) {
            const char *key = bk->records[j].step;
            if (progress_pack_record(dk, key) || progress_pack_is_done(dk, key))
                continue;
            const struct progress_record *rm = progress_pack_record(mk, key);
            if (rm && rm->updated > bk->records[j].updated)
                continue; /* changed here after the base: this side's work stays */
            progress_forget_step(mk, key);
            changed = true;
        }
    }
    if (rc == 0) {
        /* What the disk holds is the new base; p's own changes are still to be saved. */
        char *text = progress_to_json(disk);
        if (text)
            progress_remember(p, text);
        else
            rc = -ENOMEM;
    }
    progress_free(disk);
    progress_free(base);
    return rc < 0 ? rc : changed;
}

int progress_load(const char *path, struct progress **out)
{
    *out = NULL;
    struct progress *p = calloc(1, sizeof *p);
    char *text = NULL;
    size_t len = 0;
    int rc = -ENOMEM;
    if (!p || !(p->path = strdup(path)))
        goto fail;
    /* Not a regular file (a FIFO would block the read for ever) or too large: refused, not
     * moved aside, since neither is a progress file iolab wrote. */
    rc = fileread_regular(path, PROGRESS_MAX_BYTES, &text, &len, NULL);
    if (rc == -ENOENT) {
        *out = p;
        return 0; /* no base: the file is empty as far as a sync can tell */
    }
    if (rc < 0)
        goto fail;
    rc = progress_parse(p, text, len);
    if (rc == 0) {
        progress_remember(p, text);
        text = NULL;
    }
    if (rc == -EBADMSG) {
        /* Start over empty, but keep what was there for the learner to see. */
        for (size_t i = 0; i < p->npacks; i++)
            progress_pack_clear(&p->packs[i]);
        free(p->packs);
        p->packs = NULL;
        p->npacks = 0;
        rc = progress_move_aside(p);
    }
    if (rc < 0)
        goto fail;
    free(text);
    *out = p;
    return 0;
fail:
    free(text);
    progress_free(p);
    return rc;
}

/* mkdir -p for the directory part of path. */
static int progress_mkdirs(const char *path)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s", path) >= (int)sizeof dir)
        return -ENAMETOOLONG;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    *slash = '\0';
    for (char *s = dir + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
            return -errno;
        *s = '/';
    }
    if (mkdir(dir, 0700) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

static int progress_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, buf, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -errno;
        buf += w;
        len -= (size_t)w;
    }
    return 0;
}

/* progress_write_temp, handing the text written to the caller (free it) when text is not NULL. */
static int progress_write_text(const struct progress *p, char *tmp, size_t tmplen, char **written)
{
    int rc = progress_mkdirs(p->path);
    if (rc < 0)
        return rc;
    /* Same directory as the target, so the rename cannot cross a filesystem. */
    int n = snprintf(tmp, tmplen, "%s.tmp-XXXXXX", p->path);
    if (n < 0 || (size_t)n >= tmplen)
        return -ENAMETOOLONG;
    char *text = progress_to_json(p);
    if (!text)
        return -ENOMEM;
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        rc = -errno;
        free(text);
        return rc;
    }
    rc = progress_write_all(fd, text, strlen(text));
    if (rc == 0)
        rc = progress_write_all(fd, "\n", 1);
    if (rc == 0 && fsync(fd) < 0)
        rc = -errno;
    if (close(fd) < 0 && rc == 0)
        rc = -errno;
    if (rc < 0)
        unlink(tmp);
    if (rc == 0 && written)
        *written = text;
    else
        free(text);
    return rc;
}

int progress_write_temp(const struct progress *p, char *tmp, size_t tmplen)
{
    return progress_write_text(p, tmp, tmplen, NULL);
}

int progress_commit(struct progress *p, const char *tmp)
{
    if (rename(tmp, p->path) < 0) {
        int rc = -errno;
        unlink(tmp);
        return rc;
    }
    /* The rename is durable only once the directory entry itself is on disk. */
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", p->path);
    char *slash = strrchr(dir, '/');
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        strcpy(dir, ".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -errno;
    int rc = fsync(fd) < 0 ? -errno : 0;
    close(fd);
    return rc;
}

int progress_save(struct progress *p)
{
    char tmp[PATH_MAX], *text = NULL;
    int rc = progress_write_text(p, tmp, sizeof tmp, &text);
    if (rc == 0)
        rc = progress_commit(p, tmp);
    if (rc == 0) {
        /* What the file holds now is what p holds: the base of the next sync. */
        progress_remember(p, text);
        text = NULL;
    }
    free(text);
    return rc;
}

int progress_lock(const char *path)
{
    char lock[PATH_MAX];
    if (snprintf(lock, sizeof lock, "%s.lock", path) >= (int)sizeof lock)
        return -ENAMETOOLONG;
    int rc = progress_mkdirs(path);
    if (rc < 0)
        return rc;
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -errno;
    while (flock(fd, LOCK_EX) < 0) {
        if (errno != EINTR) {
            rc = -errno;
            close(fd);
            return rc;
        }
    }
    progress_remove_temps(path);
    return fd;
}

void progress_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* closing the only descriptor of the lock file releases the flock */
}

/* Removes PATH.tmp-* files: called with the lock held, when no writer can be between its
 * write and its rename, so every such file is a dead writer's leftover. */
static void progress_remove_temps(const char *path)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : path;
    if (slash)
        *(slash == dir ? slash + 1 : slash) = '\0';
    else
        strcpy(dir, ".");
    char prefix[NAME_MAX + 8];
    snprintf(prefix, sizeof prefix, "%s.tmp-", base);
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0)
            close(dfd);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, prefix, strlen(prefix)))
            unlinkat(dfd, e->d_name, 0);
    closedir(d);
}
