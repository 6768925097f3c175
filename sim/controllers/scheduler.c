/* The scheduler controller: kube-scheduler in a run. It owns the scheduling queue
 * (models/sched/queue.h: activeQ, backoffQ, the unschedulable pool and its 30 s flush) and the
 * framework (models/sched/sched.h: one cycle's PreFilter .. Score, PostFilter), and acts through
 * the cluster: a pod placed is assumed, its claims bound (DynamicResources' PreBind) and bound;
 * a pod that does not fit gets its FailedScheduling text, preemption nominates it and deletes
 * victims. PodGroups (Coscheduling's Permit, gang admission) are in scheduler_gang.c.
 *
 * Upstream: kubernetes pkg/scheduler/schedule_one.go (scheduleOne, handleSchedulingFailure),
 * pkg/scheduler/internal/queue/scheduling_queue.go (queueing on cluster events, backoff, flush).
 */
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/admission/gang.h"
#include "models/dra/dra_state.h"
#include "sim/controllers/scheduler.h"

#define DEFAULT_BACKOFF_INITIAL GS_SEC(1)
#define DEFAULT_BACKOFF_MAX GS_SEC(10)

void gs_scheduler_want_cycle(struct scheduler *s, struct gs_cluster *c)
{
    gs_time now = gs_cluster_now(c);
    if (!s->cycle_ev && gs_queue_active_len(s->queue) > 0)
        s->cycle_ev = gs_cluster_timer(c, s->self, s->resume_at > now ? s->resume_at : now, GS_PRIO_SCHED,
                                       SCHED_TIMER_CYCLE, 0, 0, false);
}

static void want_flush(struct scheduler *s, struct gs_cluster *c)
{
    if (s->flush_ev || gs_queue_waiting_len(s->queue) == 0)
        return;
    /* The flush runs every 30 s from the start, like the scheduler's wait.Until loop. */
    gs_time now = gs_cluster_now(c);
    gs_time t = (now / GS_QUEUE_FLUSH_PERIOD + 1) * GS_QUEUE_FLUSH_PERIOD;
    s->flush_ev = gs_cluster_timer(c, s->self, t, GS_PRIO_QUEUE, SCHED_TIMER_FLUSH, 0, 0, true);
}

static int ensure_scratch(struct scheduler *s, struct gs_cluster *c)
{
    /* The pods a queue event can move to backoffQ are waiting ones. */
    if (GS_GROW(s->scratch, s->scratch_cap, gs_queue_waiting_len(s->queue))) {
        gs_cluster_fail(c, GS_ENOMEM);
        return GS_ENOMEM;
    }
    return 0;
}

static void schedule_backoffs(struct scheduler *s, struct gs_cluster *c, int n)
{
    for (int i = 0; i < n; i++) {
        int p = s->scratch[i];
        gs_cluster_timer(c, s->self, gs_queue_backoff_until(s->queue, p), GS_PRIO_QUEUE, SCHED_TIMER_BACKOFF, p,
                         gs_queue_attempts(s->queue, p), false);
    }
}

/* A cluster event moves pods out of the unschedulable pool (QueueingHints by plugin). */
static void cluster_event(struct scheduler *s, struct gs_cluster *c, enum gs_cluster_event ce)
{
    if (ensure_scratch(s, c))
        return;
    int nb = 0;
    gs_queue_on_event(s->queue, ce, gs_cluster_now(c), s->scratch, s->scratch_cap, &nb);
    schedule_backoffs(s, c, nb);
    gs_scheduler_want_cycle(s, c);
}

void gs_scheduler_cancel_permit(struct scheduler *s, struct gs_cluster *c, int p)
{
    if (p < s->permit_cap)
        gs_cluster_cancel(c, &s->permit_ev[p]);
}

void gs_scheduler_unschedulable(struct scheduler *s, struct gs_cluster *c, int p, const char *message,
                                uint32_t plugins)
{
    gs_cluster_unschedulable(c, p, message);
    if (gs_queue_unschedulable(s->queue, p, plugins, gs_cluster_now(c)))
        gs_cluster_fail(c, GS_ENOMEM);
    want_flush(s, c);
}

void gs_scheduler_bind(struct scheduler *s, struct gs_cluster *c, int p, int n)
{
    if (n >= 0)
        gs_cluster_assume(c, p, n);
    int node = c->w->pods[p].node;
    gs_sched_prebind(s->sched, p, node, &s->client);
    if (gs_sched_out_of_memory(s->sched))
        gs_cluster_fail(c, GS_ENOMEM);
    gs_sched_bind(s->sched, p, node, &s->client);
    if (gs_sched_out_of_memory(s->sched))
        gs_cluster_fail(c, GS_ENOMEM);
}

void gs_scheduler_reject_one(struct scheduler *s, struct gs_cluster *c, int p, const char *message, uint32_t plugins)
{
    gs_scheduler_cancel_permit(s, c, p);
    gs_cluster_forget(c, p);
    gs_scheduler_unschedulable(s, c, p, message, plugins);
}

/* ------------------------------------------------------------------ the framework's client */

/* DynamicResources' PreBind: the pod's claims allocated and reserved on the node. */
static int client_claims_bind(void *ctx, int pod, int node)
{
    struct scheduler *s = ctx;
    gs_cluster_bind_claims(s->c, pod, node);
    return 0;
}

/* A PreBind plugin (the FGD simulator's) chose the GPU of the pod's share. */
static void client_set_share_gpu(void *ctx, int pod, int gpu)
{
    struct scheduler *s = ctx;
    s->share_pod = pod;
    s->share_gpu = gpu;
}

/* DefaultBinder: the pod, assumed on its node, is bound there. */
static int client_bind(void *ctx, int pod, int node)
{
    (void)node;
    struct scheduler *s = ctx;
    int gpu = s->share_pod == pod ? s->share_gpu : -1;
    s->share_pod = -1;
    gs_scheduler_cancel_permit(s, s->c, pod);
    gs_cluster_bind(s->c, pod, -1, gpu);
    gs_queue_forget(s->queue, pod); /* bound: it never comes back to the queue */
    return 0;
}

/* Handle.Activate: a waiting pod's siblings come forward in the queue. */
static void client_activate(void *ctx, int pod)
{
    struct scheduler *s = ctx;
    if (gs_queue_activate(s->queue, pod, gs_cluster_now(s->c)))
        gs_cluster_fail(s->c, GS_ENOMEM);
}

/* Unreserve of a PodGroup's member: a sibling waiting at Permit is rejected. */
static void client_reject_waiting(void *ctx, int pod, enum gs_plugin plugin, const char *msg)
{
    struct scheduler *s = ctx;
    gs_scheduler_reject_one(s, s->c, pod, msg, 1u << plugin);
    s->rejected_waiting++;
}

/* DefaultPreemption's result: the pod is nominated, lower-priority pods nominated to that node
 * lose their nomination (preemption.go prepareCandidate), and the victims are deleted. */
static void preempt(struct gs_cluster *c, int p, const struct gs_cycle_result *res)
{
    gs_cluster_nominate(c, p, res->nominated_node);
    for (int i = 0; i < res->nlost; i++)
        gs_cluster_nominate(c, res->lost[i], -1);
    for (int i = 0; i < res->nvictims; i++)
        gs_cluster_preempt(c, res->victims[i], p, res->nominated_node);
}

void gs_scheduler_failed(struct scheduler *s, struct gs_cluster *c, int p, const struct gs_cycle_result *res)
{
    if (res->nominated_node >= 0)
        preempt(c, p, res);
    else if (res->clear_nomination)
        gs_cluster_nominate(c, p, -1);
    gs_scheduler_unschedulable(s, c, p, res->message, res->unsched_plugins);
    if (res->reject_group)
        gs_scheduler_reject_waiting(s, c, c->w->pods[p].group, GS_GANG_MSG_POSTFILTER_REJECT);
}

/* ------------------------------------------------------------------ the attempts' rows */

/* The framework's observer at --trace-level full: what each cycle saw goes to the cluster,
 * which writes the attempt rows (sim/cluster/attempts.c). */
static void observe_filtered(void *ctx, int pod, int node, const struct gs_node_status *st)
{
    struct scheduler *s = ctx;
    gs_cluster_attempt_node(s->c, pod, node, st);
}

static void observe_scored(void *ctx, int pod, int node, enum gs_plugin plugin, int64_t score, int64_t weight)
{
    struct scheduler *s = ctx;
    gs_cluster_attempt_score(s->c, pod, node, (int)plugin, score, weight);
}

static void observe_done(void *ctx, int pod, const struct gs_cycle_result *r)
{
    struct scheduler *s = ctx;
    gs_cluster_attempt_done(s->c, pod, r, s->group_pod);
}

/* Install the observer on the framework when the trace is written at full (only then: a cycle
 * without one costs what it did before). */
static void observe(struct scheduler *s, struct gs_cluster *c)
{
    if (!gs_trace_full(c->trace))
        return;
    struct gs_sched_observer o = {
        .ctx = s, .filtered = observe_filtered, .scored = observe_scored, .done = observe_done};
    gs_sched_set_observer(s->sched, &o);
}

static void cycle(struct scheduler *s, struct gs_cluster *c)
{
    s->cycle_ev = 0;
    int p = gs_queue_pop(s->queue);
    if (p < 0)
        return;
    gs_sched_set_now(s->sched, gs_cluster_now(c));
    const struct gs_sched_config *cfg = &c->sc->sched;
    int group = c->w->pods[p].group;
    if (group >= 0 && cfg->gang_admission) {
        gs_scheduler_group_cycle(s, c, p);
        gs_scheduler_want_cycle(s, c);
        return;
    }
    struct gs_cycle_result res;
    gs_sched_cycle(s->sched, p, &res);
    c->cycles++;
    if (res.oom)
        gs_cluster_fail(c, GS_ENOMEM); /* the run ends; the pod stays as it was */
    else if (res.node >= 0)
        gs_scheduler_reserve(s, c, p, res.node);
    else
        gs_scheduler_failed(s, c, p, &res);
    gs_scheduler_want_cycle(s, c);
}

static void flush(struct scheduler *s, struct gs_cluster *c)
{
    s->flush_ev = 0;
    if (ensure_scratch(s, c))
        return;
    int nb = 0;
    gs_queue_flush(s->queue, gs_cluster_now(c), s->scratch, s->scratch_cap, &nb);
    schedule_backoffs(s, c, nb);
    gs_scheduler_want_cycle(s, c);
    want_flush(s, c);
}

/* A kube-scheduler restart (scenario event schedulerRestart {schedulerName, downtime}): what
 * lives only in the scheduler's memory is lost, what lives in the API stays.
 * - Pods reserved and waiting at Permit were only assumed in the scheduler cache: they are
 *   pending again, their resources free, and they go back to the queue.
 * - The queue is rebuilt from the pending pods: all in activeQ, attempts and backoff reset.
 * - PodGroup backoffs (Coscheduling) and the scheduler's caches and node rotation start over.
 * - status.nominatedNodeName is in the API: nominations stay.
 * - For `downtime` (default 0: an instant restart) no scheduling cycle runs; a real restart
 *   waits for leader election and the informer caches.
 * Upstream: kubernetes pkg/scheduler/scheduler.go (New: empty cache and queue, informers list
 * the pods), pkg/scheduler/internal/cache (assumed pods are not persisted). */
static void restart(struct scheduler *s, struct gs_cluster *c, const struct gs_sevent *se)
{
    struct gs_world *w = c->w;
    gs_time now = gs_cluster_now(c);
    for (int i = 0; i < w->npods; i++) {
        if (!w->pods[i].permit_waiting)
            continue;
        gs_scheduler_cancel_permit(s, c, i);
        gs_cluster_forget(c, i);
        if (gs_queue_add(s->queue, i, now))
            gs_cluster_fail(c, GS_ENOMEM);
    }
    gs_queue_restart(s->queue);
    struct gs_sched *fresh = gs_sched_new(w, &c->sc->sched, c->rng);
    if (!fresh) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    gs_sched_free(s->sched);
    s->sched = fresh;
    observe(s, c);
    /* PodGroup backoffs (Coscheduling's memory) start over with it; what lives in the API
     * (claims, slices) and the run's typical pods are the new one's too. */
    gs_sched_set_dra(s->sched, c->dra);
    if (c->typical)
        gs_sched_set_fgd_typical(s->sched, c->typical);
    s->resume_at = now + se->downtime;
    gs_cluster_object(c, "Pod", "kube-system", "kube-scheduler", "Restarted", NULL);
    gs_cluster_cancel(c, &s->cycle_ev); /* a cycle due now waits for the new scheduler */
    gs_scheduler_want_cycle(s, c);
}

/* ------------------------------------------------------------------ the controller */

static int setup(struct gs_cluster *c, int self, void **state)
{
    struct scheduler *s = gs_calloc(1, sizeof *s);
    if (!s)
        return GS_ENOMEM;
    *state = s;
    s->self = self;
    s->c = c;
    s->share_pod = -1;
    s->group_pod = -1;
    s->client = (struct gs_sched_client){.ctx = s,
                                         .claims_bind = client_claims_bind,
                                         .set_share_gpu = client_set_share_gpu,
                                         .bind = client_bind,
                                         .activate = client_activate,
                                         .reject_waiting = client_reject_waiting};
    s->queue = gs_queue_new(c->w, DEFAULT_BACKOFF_INITIAL, DEFAULT_BACKOFF_MAX);
    s->sched = gs_sched_new(c->w, &c->sc->sched, c->rng);
    if (!s->queue || !s->sched)
        return GS_ENOMEM;
    int rc = gs_queue_set_sort(s->queue, gs_sched_queue_sort(s->sched));
    if (rc)
        return rc;
    gs_sched_set_dra(s->sched, c->dra);
    if (c->typical)
        gs_sched_set_fgd_typical(s->sched, c->typical);
    observe(s, c);
    return 0;
}

static void destroy(void *state)
{
    struct scheduler *s = state;
    gs_sched_free(s->sched);
    gs_queue_free(s->queue);
    gs_free(s->scratch);
    gs_free(s->permit_ev);
    gs_free(s);
}

static void on_watch(void *state, struct gs_cluster *c, const struct gs_watch_event *ev)
{
    struct scheduler *s = state;
    switch (ev->type) {
    case GS_W_POD_CREATED: {
        const struct gs_pod *p = &c->w->pods[ev->pod];
        if (p->tmpl->node_name)
            break; /* bound by the kubelet, never queued */
        if (gs_queue_add(s->queue, ev->pod, gs_cluster_now(c))) {
            gs_cluster_fail(c, GS_ENOMEM);
            break;
        }
        /* A new sibling may complete a PodGroup the Coscheduling PreFilter rejected. */
        if (p->group >= 0 && c->sc->sched.filter_enabled[GS_PL_COSCHEDULING])
            gs_cluster_notify(c, GS_CE_POD_ADD);
        gs_scheduler_want_cycle(s, c);
        break;
    }
    case GS_W_CLUSTER_EVENT:
        cluster_event(s, c, ev->ce);
        break;
    case GS_W_POD_STOPPING:
        gs_scheduler_cancel_permit(s, c, ev->pod);
        gs_queue_forget(s->queue, ev->pod);
        break;
    default:
        break;
    }
}

static void on_timer(void *state, struct gs_cluster *c, int type, int64_t a, int64_t b)
{
    struct scheduler *s = state;
    switch (type) {
    case SCHED_TIMER_CYCLE:
        cycle(s, c);
        break;
    case SCHED_TIMER_BACKOFF:
        if (gs_queue_attempts(s->queue, (int)a) == (int)b && gs_queue_backoff_expired(s->queue, (int)a, gs_cluster_now(c)))
            gs_scheduler_want_cycle(s, c);
        break;
    case SCHED_TIMER_FLUSH:
        flush(s, c);
        break;
    case SCHED_TIMER_PERMIT:
        if (a < s->permit_cap)
            s->permit_ev[a] = 0;
        gs_scheduler_permit_timeout(s, c, (int)a, b);
        break;
    }
}

static bool scenario_event(void *state, struct gs_cluster *c, const struct gs_sevent *se)
{
    if (se->kind != GS_SEV_SCHEDULER_RESTART)
        return false;
    restart(state, c, se);
    return true;
}

const struct gs_controller gs_ctl_scheduler = {
    .name = "scheduler",
    .setup = setup,
    .free = destroy,
    .on_watch = on_watch,
    .watches = GS_WATCH_BIT(GS_W_CLUSTER_EVENT) | GS_WATCH_BIT(GS_W_POD_CREATED) |
               GS_WATCH_BIT(GS_W_POD_STOPPING),
    .on_timer = on_timer,
    .scenario_event = scenario_event,
};
