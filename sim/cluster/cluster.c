/* The cluster layer's core (sim/cluster.h): set-up, the engine's events and the controllers'
 * timers, watch fan-out, rows and warnings. The verbs are in nodes.c, pods.c, objects.c, dra.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/dra/dra_state.h"
#include "models/fgd/fgd_world.h"
#include "models/quantity.h"
#include "sim/cluster/internal.h"
#include "sim/controller.h"
#include "sim/metrics.h"

#define GS_DEFAULT_ENGINE_CAPACITY 1024

static const char *const watch_names[] = {
#define GS_WATCH_NAME(name, text) text,
    GS_WATCH_EVENTS(GS_WATCH_NAME)
#undef GS_WATCH_NAME
};

const char *gs_watch_name(enum gs_watch_type t)
{
    return (unsigned)t < GS_W_COUNT ? watch_names[t] : "Unknown";
}

void gs_cluster_fail(struct gs_cluster *c, int rc)
{
    if (rc && !c->err)
        c->err = rc;
}

void gs_cluster_fail_msg(struct gs_cluster *c, int rc, const char *fmt, ...)
{
    if (!rc || c->err)
        return;
    c->err = rc;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err_msg, sizeof c->err_msg, fmt, ap);
    va_end(ap);
}

gs_time gs_cluster_now(const struct gs_cluster *c)
{
    return gs_engine_now(c->eng);
}

/* ------------------------------------------------------------------ events and timers */

static bool kind_is_background(uint32_t kind)
{
    if (kind == GS_EV_SAMPLE)
        return true;
    return kind >= GS_EV_TIMER && ((kind - GS_EV_TIMER) & 1u);
}

gs_event_handle gs_cluster_at(struct gs_cluster *c, gs_time t, int32_t prio, uint32_t kind, int64_t a, int64_t b)
{
    gs_event_handle h = gs_engine_schedule(c->eng, t, prio, kind, a, b);
    if (!h) {
        gs_cluster_fail(c, GS_ENOMEM);
        return 0;
    }
    if (!kind_is_background(kind))
        c->foreground++;
    return h;
}

gs_event_handle gs_cluster_timer(struct gs_cluster *c, int self, gs_time t, int32_t prio, int type, int64_t a,
                                 int64_t b, bool background)
{
    GS_ASSERT(self >= 0 && self < c->nctl && type >= 0 && type < GS_TIMER_TYPES);
    uint32_t kind = GS_EV_TIMER + (uint32_t)((self * GS_TIMER_TYPES + type) * 2 + (background ? 1 : 0));
    return gs_cluster_at(c, t, prio, kind, a, b);
}

void gs_cluster_cancel(struct gs_cluster *c, gs_event_handle *h)
{
    if (*h && gs_engine_cancel(c->eng, *h))
        c->foreground--;
    *h = 0;
}

/* Every event goes through here, so the count of pending foreground events stays right. */
static void dispatch(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct gs_cluster *c = ctx;
    if (!kind_is_background(ev->kind))
        c->foreground--;
    gs_assert_clock_us = ev->time;
    if (ev->kind >= GS_EV_TIMER) {
        uint32_t k = (ev->kind - GS_EV_TIMER) / 2;
        int self = (int)(k / GS_TIMER_TYPES), type = (int)(k % GS_TIMER_TYPES);
        GS_ASSERT(self < c->nctl && c->state[self] && c->ctl[self]->on_timer);
        c->ctl[self]->on_timer(c->state[self], c, type, ev->a, ev->b);
        return;
    }
    if (ev->kind == GS_EV_SAMPLE || ev->kind == GS_EV_CHECK) {
        c->driver(c, ev);
        return;
    }
    gs_cluster_on_event(c, ev);
}

void gs_cluster_watch(struct gs_cluster *c, const struct gs_watch_event *ev)
{
    for (int k = 0; k < c->nwatchers[ev->type]; k++) {
        int i = c->watchers[ev->type][k];
        c->ctl[i]->on_watch(c->state[i], c, ev);
    }
}

void gs_cluster_notify(struct gs_cluster *c, enum gs_cluster_event ce)
{
    struct gs_watch_event ev = gs_watch_init(GS_W_CLUSTER_EVENT);
    ev.ce = ce;
    gs_cluster_watch(c, &ev);
}

struct gs_watch_event gs_watch_init(enum gs_watch_type type)
{
    return (struct gs_watch_event){.type = type, .node = -1, .pod = -1, .workload = -1, .origin = -1,
                                   .lws_group = -1, .operand = -1, .share_gpu = -1};
}

/* ------------------------------------------------------------------ rows and warnings */

void gs_cluster_node_event(struct gs_cluster *c, int node, const char *kind, const char *subject, const char *value)
{
    gs_cluster_fail(c, gs_trace_node_event(c->trace, gs_cluster_now(c), node, kind, subject, value));
}

void gs_cluster_pod_event(struct gs_cluster *c, int pod, const char *reason, const char *msg)
{
    gs_cluster_fail(c, gs_trace_pod_event(c->trace, gs_cluster_now(c), pod, reason, msg));
}

void gs_cluster_object(struct gs_cluster *c, const char *kind, const char *ns, const char *name, const char *status,
                       const char *msg)
{
    gs_cluster_fail(c, gs_trace_object(c->trace, gs_cluster_now(c), kind, ns, name, status, msg));
}

void gs_cluster_warn(struct gs_cluster *c, const struct gs_sevent *se, const char *what, const char *name)
{
    char key[32], msg[600], t[32];
    gs_duration_format(gs_cluster_now(c), t, sizeof t);
    snprintf(key, sizeof key, "warning.%d", ++c->nwarnings);
    snprintf(msg, sizeof msg, "line %d: at %s: %s %s not found", se->line, t, what, name);
    gs_cluster_fail(c, gs_trace_run_kv(c->trace, key, msg));
}

void gs_cluster_sample(struct gs_cluster *c)
{
    gs_cluster_fail(c, gs_metrics_sample(c, gs_cluster_now(c)));
}

/* ------------------------------------------------------------------ set-up */

int gs_cluster_init(struct gs_cluster *c, struct gs_scenario *sc, const struct gs_run_opts *o,
                    struct gs_trace *trace, void (*driver)(struct gs_cluster *, const struct gs_event *))
{
    memset(c, 0, sizeof *c);
    c->driver = driver;
    c->sc = sc;
    c->w = &sc->world;
    c->opts = o;
    c->trace = trace;
    gs_intmap_init(&c->finish_ev, sizeof(gs_event_handle));
    struct gs_world *w = c->w;
    c->gpu_res = gs_res_intern(&w->res, &w->arena, "nvidia.com/gpu");
    gs_intern_init(&c->messages, &w->arena);
    c->next_index = gs_calloc((size_t)(w->npools ? w->npools : 1), sizeof *c->next_index);
    c->eng = gs_engine_new(GS_DEFAULT_ENGINE_CAPACITY);
    c->rng = gs_rng_new(sc->seed);
    if (!c->next_index || !c->eng || !c->rng || c->gpu_res < 0)
        return GS_ENOMEM;
    /* The FGD typical pods of the scenario's workloads (none when they make no pod). */
    c->typical_owned = gs_calloc(1, sizeof *c->typical_owned);
    if (!c->typical_owned)
        return GS_ENOMEM;
    int rc = gs_fgd_world_typical_build(w, GS_FGD_TYPICAL_PCT, c->typical_owned);
    if (rc == GS_ENOMEM)
        return rc;
    if (rc == 0)
        c->typical = c->typical_owned;
    if (sc->dra) {
        c->dra = gs_calloc(1, sizeof *c->dra);
        if (!c->dra || gs_dra_state_init(c->dra, sc->dra))
            return GS_ENOMEM;
    }
    for (uint32_t k = 1; k < GS_ENGINE_MAX_KINDS; k++)
        gs_engine_on(c->eng, k, dispatch, c);
    for (int i = 0; gs_controller_registry[i]; i++) {
        GS_ASSERT(i < GS_MAX_CONTROLLERS);
        c->ctl[i] = gs_controller_registry[i];
        c->nctl = i + 1;
        if (c->ctl[i]->setup && (rc = c->ctl[i]->setup(c, i, &c->state[i])))
            return rc;
    }
    /* Who hears each watch event: the set-up controllers that handle it, in registry order. */
    for (int t = 0; t < GS_W_COUNT; t++)
        for (int i = 0; i < c->nctl; i++)
            if (c->state[i] && c->ctl[i]->on_watch && (c->ctl[i]->watches & GS_WATCH_BIT(t)))
                c->watchers[t][c->nwatchers[t]++] = (uint8_t)i;
    return c->err;
}

void gs_cluster_free(struct gs_cluster *c)
{
    for (int i = c->nctl - 1; i >= 0; i--)
        if (c->state[i] && c->ctl[i]->free)
            c->ctl[i]->free(c->state[i]);
    c->nctl = 0;
    if (c->dra) {
        gs_dra_state_free(c->dra);
        gs_free(c->dra);
    }
    gs_fgd_world_typical_free(c->typical_owned);
    gs_free(c->typical_owned);
    gs_rng_free(c->rng);
    gs_engine_free(c->eng);
    gs_free(c->next_index);
    gs_intmap_free(&c->finish_ev);
    gs_free(c->node_pending);
    gs_free(c->gpu_time);
    gs_cluster_attempts_free(c);
    gs_intern_free(&c->messages);
    memset(c, 0, sizeof *c);
}
