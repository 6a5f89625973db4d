/*
 * headless: see headless.h. The signal handles and the deadline timer are unreferenced, so the
 * loop ends as soon as the command's work does; they are closed only then, in the drain.
 */
#include "headless.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static const int headless_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void headless_on_signal(uv_signal_t *s, int sig)
{
    struct headless *h = s->data;
    if (!h->status)
        h->status = 128 + sig;
    if (h->o.on_signal)
        h->o.on_signal(h->o.data, sig);
}

static void headless_on_deadline(uv_timer_t *t)
{
    struct headless *h = t->data;
    if (h->o.on_deadline)
        h->o.on_deadline(h->o.data);
}

int headless_init(struct headless *h, const struct headless_options *o)
{
    memset(h, 0, sizeof *h);
    if (o)
        h->o = *o;
    int rc = uv_loop_init(&h->loop);
    if (rc < 0)
        return rc;
    for (size_t i = 0; i < sizeof h->sig / sizeof h->sig[0]; i++) {
        uv_signal_init(&h->loop, &h->sig[i]);
        h->sig[i].data = h;
        uv_signal_start(&h->sig[i], headless_on_signal, headless_signals[i]);
        uv_unref((uv_handle_t *)&h->sig[i]);
    }
    uv_timer_init(&h->loop, &h->deadline);
    h->deadline.data = h;
    uv_unref((uv_handle_t *)&h->deadline);
    h->ready = true;
    return 0;
}

static void headless_drain(struct headless *h)
{
    for (size_t i = 0; i < sizeof h->sig / sizeof h->sig[0]; i++)
        uv_close((uv_handle_t *)&h->sig[i], NULL);
    uv_close((uv_handle_t *)&h->deadline, NULL);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    if (uv_loop_close(&h->loop) != 0 && h->o.what)
        fprintf(stderr, "iolab: internal: handles left open %s\n", h->o.what);
    h->ready = false;
}

int headless_run(struct headless *h)
{
    if (!h->ready)
        return h->status;
    if (h->o.deadline_s > 0)
        uv_timer_start(&h->deadline, headless_on_deadline, (uint64_t)(h->o.deadline_s * 1000), 0);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    if (h->o.on_end)
        h->o.on_end(h->o.data);
    headless_drain(h);
    return h->status;
}

void headless_abandon(struct headless *h)
{
    if (h->ready)
        headless_drain(h);
}
