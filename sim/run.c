/* A run: the event handlers that move pods and nodes through their lives, wired to the engine.
 * The engine knows nothing of these kinds; the models (world, queue, scheduler) know nothing
 * of the engine or the trace. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/admission/gang.h"
#include "sim/run.h"
#include "models/admission/validation.h"
#include "sim/devices_run.h"
#include "sim/frag_run.h"
#include "sim/run_state.h"

#define GS_DEFAULT_BACKOFF_INITIAL GS_SEC(1)
#define GS_DEFAULT_BACKOFF_MAX GS_SEC(10)

static bool is_background(uint32_t kind)
{
    return kind == GS_EV_FLUSH || kind == GS_EV_SAMPLE || kind == GS_EV_BRINGUP_BG;
}

static gs_event_handle at(struct gs_runner *r, gs_time t, int32_t prio, uint32_t kind, int64_t a, int64_t b)
{
    gs_event_handle h = gs_engine_schedule(r->eng, t, prio, kind, a, b);
    if (!h) {
        r->err = GS_ENOMEM;
        return 0;
    }
    if (!is_background(kind))
        r->foreground++;
    return h;
}

static void cancel(struct gs_runner *r, gs_event_handle *h)
{
    if (*h && gs_engine_cancel(r->eng, *h))
        r->foreground--;
    *h = 0;
}

static void trace_err(struct gs_runner *r, int rc)
{
    if (rc && !r->err)
        r->err = rc;
}

static void pod_event(struct gs_runner *r, int pod, const char *reason, const char *msg)
{
    trace_err(r, gs_trace_pod_event(r->trace, gs_engine_now(r->eng), pod, reason, msg));
}

static void set_phase(struct gs_runner *r, int pod, enum gs_phase ph)
{
    struct gs_pod *p = &r->w->pods[pod];
    if (!p->deleted)
        r->phase_count[p->phase]--;
    p->phase = ph;
    if (!p->deleted)
        r->phase_count[ph]++;
}

/* ------------------------------------------------------------------ the scheduler side */

static void want_cycle(struct gs_runner *r)
{
    gs_time now = gs_engine_now(r->eng);
    if (!r->sched_ev && gs_queue_active_len(r->queue) > 0)
        r->sched_ev = at(r, r->sched_resume_at > now ? r->sched_resume_at : now, GS_PRIO_SCHED, GS_EV_SCHED, 0, 0);
}

static void want_flush(struct gs_runner *r)
{
    if (r->flush_ev || gs_queue_waiting_len(r->queue) == 0)
        return;
    /* The flush runs every 30 s from the start, like the scheduler's wait.Until loop. */
    gs_time now = gs_engine_now(r->eng);
    gs_time t = (now / GS_QUEUE_FLUSH_PERIOD + 1) * GS_QUEUE_FLUSH_PERIOD;
    r->flush_ev = at(r, t, GS_PRIO_QUEUE, GS_EV_FLUSH, 0, 0);
}

static void schedule_backoffs(struct gs_runner *r, int n)
{
    for (int i = 0; i < n; i++) {
        int pi = r->scratch[i];
        at(r, gs_queue_backoff_until(r->queue, pi), GS_PRIO_QUEUE, GS_EV_BACKOFF, pi, gs_queue_attempts(r->queue, pi));
    }
}

static int ensure_scratch(struct gs_runner *r)
{
    if (r->scratch_cap >= r->w->npods)
        return 0;
    int cap = r->scratch_cap ? r->scratch_cap : 256;
    while (cap < r->w->npods)
        cap *= 2;
    int *s = gs_realloc(r->scratch, sizeof *s * (size_t)cap);
    if (!s)
        return r->err = GS_ENOMEM;
    r->scratch = s;
    r->scratch_cap = cap;
    return 0;
}

static void cluster_event(struct gs_runner *r, enum gs_cluster_event ev)
{
    if (ensure_scratch(r))
        return;
    int nb = 0;
    gs_queue_on_event(r->queue, ev, gs_engine_now(r->eng), r->scratch, r->scratch_cap, &nb);
    schedule_backoffs(r, nb);
    want_cycle(r);
    gs_kueue_run_cluster_event(r); /* pending Kueue Workloads are retried */
}

/* ------------------------------------------------------------------ nodes */

static const char *itoa_arena(struct gs_runner *r, int64_t v)
{
    return gs_arena_printf(&r->w->arena, "%lld", (long long)v);
}

static void node_event(struct gs_runner *r, int node, const char *kind, const char *subject, const char *value)
{
    trace_err(r, gs_trace_node_event(r->trace, gs_engine_now(r->eng), node, kind, subject, value));
}

/* Without a GPU Operator the node's GPUs are advertised as it joins, with the labels GPU
 * feature discovery would have set (reference gpu-operator.md §4). */
static void advertise_gpus(struct gs_runner *r, int ni)
{
    struct gs_node *n = &r->w->nodes[ni];
    if (n->gpu_count <= 0 || r->gpu_res < 0)
        return;
    n->capacity.v[r->gpu_res] = n->gpu_count;
    n->allocatable.v[r->gpu_res] = n->gpu_count;
    const char *count = itoa_arena(r, n->gpu_count);
    gs_labels_set(&n->labels, &r->w->arena, "nvidia.com/gpu.present", "true");
    gs_labels_set(&n->labels, &r->w->arena, "nvidia.com/gpu.count", count);
    if (n->gpu_product)
        gs_labels_set(&n->labels, &r->w->arena, "nvidia.com/gpu.product", n->gpu_product);
    gs_node_touch(r->w, ni); /* the scheduler caches labels and allocatable until touched */
    node_event(r, ni, "Label", "nvidia.com/gpu.present", "true");
    node_event(r, ni, "Label", "nvidia.com/gpu.count", count);
    if (n->gpu_product)
        node_event(r, ni, "Label", "nvidia.com/gpu.product", n->gpu_product);
    node_event(r, ni, "Capacity", "nvidia.com/gpu", count);
    node_event(r, ni, "Allocatable", "nvidia.com/gpu", count);
    if (n->schedulable_at < 0) {
        n->schedulable_at = gs_engine_now(r->eng);
        node_event(r, ni, "Schedulable", "nvidia.com/gpu", count);
    }
}

static int add_node(struct gs_runner *r, int pool)
{
    int idx = r->next_index[pool]++;
    int ni = gs_world_add_node(r->w, pool, idx, gs_engine_now(r->eng));
    if (ni < 0) {
        r->err = ni;
        return ni;
    }
    struct gs_node *n = &r->w->nodes[ni];
    gs_labels_set(&n->labels, &r->w->arena, "kubernetes.io/hostname", n->name);
    const struct gs_pool *pl = &r->w->pools[pool];
    if (pl->nodes_per_rack > 0 && pl->rack_label)
        gs_labels_set(&n->labels, &r->w->arena, pl->rack_label,
                      gs_arena_printf(&r->w->arena, "%s-rack-%d", pl->name, idx / pl->nodes_per_rack));
    gs_node_touch(r->w, ni);
    trace_err(r, gs_trace_node(r->trace, ni, n->name, pl->name, n->gpu_product, n->gpu_count));
    node_event(r, ni, "Joined", pl->name, n->kernel);
    if (n->gpu_count == 0)
        n->schedulable_at = gs_engine_now(r->eng);
    /* The node as registered (initial rows); with an operator: section its GPUs then come
     * from the device plugin (sim/bringup_run.c), without one they are advertised at once. */
    gs_bringup_run_joined(r, ni);
    if (!r->sc->op.enabled)
        advertise_gpus(r, ni);
    gs_dra_run_node_joined(r, ni); /* the DRA kubelet plugin's ResourceSlice */
    return ni;
}

static void on_node_join(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct gs_runner *r = ctx;
    if (add_node(r, (int)ev->a) >= 0)
        cluster_event(r, GS_CE_NODE_ADD);
}

/* ------------------------------------------------------------------ pods */

static void trace_pod_row(struct gs_runner *r, int pi)
{
    const struct gs_pod *p = &r->w->pods[pi];
    const struct gs_pod_template *t = p->tmpl;
    struct gs_trace_pod row = {
        .id = pi,
        .name = p->name,
        .workload = p->workload >= 0 ? r->w->workloads[p->workload].name : NULL,
        .pod_group = p->group >= 0 ? r->w->groups[p->group].name : NULL,
        .priority = t->priority,
        .cpu_m = t->requests.v[GS_RES_CPU],
        .memory_b = t->requests.v[GS_RES_MEMORY],
        .gpu = r->gpu_res >= 0 ? t->requests.v[r->gpu_res] : 0,
        .created_us = p->created_us,
        .scheduled_us = p->scheduled_us,
        .started_us = p->started_us,
        .finished_us = p->finished_us,
        .node_id = p->node >= 0 ? p->node : p->last_node,
        .phase = p->deleted ? "Deleted" : gs_phase_name(p->phase),
        .message = p->message,
    };
    trace_err(r, gs_trace_pod(r->trace, &row));
}

static gs_time sample_duration(struct gs_runner *r, const struct gs_duration_dist *d)
{
    double v;
    switch (d->kind) {
    case GS_DIST_NONE:
        return -1;
    case GS_DIST_FIXED:
        return d->fixed;
    case GS_DIST_EXPONENTIAL:
        v = gs_rng_exponential(r->rng, GS_STREAM_DURATIONS, (double)d->mean);
        break;
    case GS_DIST_LOGNORMAL:
        v = gs_rng_lognormal(r->rng, GS_STREAM_DURATIONS, (double)d->median, d->sigma);
        break;
    default:
        return -1;
    }
    if (!(v >= 0) || v > 9.0e18)
        return GS_TIME_MAX / 4;
    return (gs_time)llround(v);
}

/* Pods a workload makes over the whole run (decides `<name>` vs `<name>-<i>`). */
static int64_t planned_pods(const struct gs_workload *wl)
{
    if (wl->kind == GS_WL_POD)
        return 1;
    if (wl->kind == GS_WL_JOB)
        return wl->completions > 0 ? wl->completions : wl->parallelism;
    return (int64_t)wl->replicas * (wl->arrival.count > 0 ? wl->arrival.count : 1);
}

/* The PodGroup object `name` (a PodGroup manifest that has arrived), -1 when there is none:
 * a pod labelled for a PodGroup that does not exist is scheduled on its own, as the
 * Coscheduling plugin does when GetPodGroup finds nothing. */
static int podgroup_object(struct gs_runner *r, const char *name)
{
    const struct gs_world *w = r->w;
    for (int g = 0; g < w->ngroups; g++)
        if (w->groups[g].workload >= 0 && w->workloads[w->groups[g].workload].kind == GS_WL_PODGROUP &&
            strcmp(w->groups[g].name, name) == 0)
            return g;
    return -1;
}

/* The pods of one arrival form one PodGroup, named `<name>` when the workload has one arrival
 * and `<name>-<arrival index>` otherwise (SCENARIO.md "workloads"). */
/* The PodGroup named `name` of workload `wi` (made when new, with `min_member`), -1 when out
 * of memory. */
static int group_named(struct gs_runner *r, int wi, int arrival, const char *name, int min_member)
{
    struct gs_world *w = r->w;
    const struct gs_workload *wl = &w->workloads[wi];
    for (int g = w->ngroups - 1; g >= 0; g--)
        if (w->groups[g].workload == wi && strcmp(w->groups[g].name, name) == 0)
            return g;
    if (gs_array_grow((void **)&w->groups, &w->groups_cap, w->ngroups + 1, sizeof *w->groups))
        return -1;
    int gi = w->ngroups++;
    struct gs_group *g = &w->groups[gi];
    memset(g, 0, sizeof *g);
    g->name = gs_arena_strdup(&w->arena, name);
    g->workload = wi;
    g->arrival = arrival;
    g->min_member = min_member;
    g->first_pod = g->last_pod = -1;
    g->created_us = gs_engine_now(r->eng);
    g->schedule_timeout_us = wl->group_timeout_us;
    return g->name ? gi : -1;
}

static void add_member(struct gs_runner *r, int gi, int pi)
{
    struct gs_world *w = r->w;
    struct gs_group *g = &w->groups[gi];
    if (g->last_pod >= 0)
        w->pods[g->last_pod].next_in_group = pi;
    else
        g->first_pod = pi;
    g->last_pod = pi;
    g->npods++;
    w->pods[pi].group = gi;
}

/* The pods of one arrival form one PodGroup, named `<name>` when the workload has one arrival
 * and `<name>-<arrival index>` otherwise (SCENARIO.md "workloads"). */
static int arrival_group(struct gs_runner *r, int wi, int arrival)
{
    const struct gs_workload *wl = &r->w->workloads[wi];
    char name[300];
    if (wl->arrival.count > 1)
        snprintf(name, sizeof name, "%s-%d", wl->name, arrival);
    else
        snprintf(name, sizeof name, "%s", wl->name);
    return group_named(r, wi, arrival, name, wl->group_min_member);
}

/* Create pod `name` of workload `wi` from `tmpl`, in PodGroup `gi` (-1: none): named, traced,
 * queued (or rejected by the API server, or bound when nodeName is set). */
static int spawn_pod(struct gs_runner *r, int wi, const char *name, const struct gs_pod_template *tmpl, int gi)
{
    struct gs_workload *wl = &r->w->workloads[wi];
    gs_time now = gs_engine_now(r->eng);
    int pi = gs_world_add_pod(r->w, name, wi, tmpl, now);
    if (pi < 0) {
        r->err = pi;
        return pi;
    }
    wl->pods_created++;
    r->phase_count[GS_PHASE_PENDING]++;
    struct gs_pod *p = &r->w->pods[pi];
    p->duration_us = sample_duration(r, &wl->duration);
    if (gi >= 0)
        add_member(r, gi, pi);
    trace_pod_row(r, pi);
    pod_event(r, pi, "Created", NULL);
    if (tmpl->invalid_detail) {
        /* The API server refuses the pod: it never reaches the scheduler. */
        char msg[2048];
        gs_validation_status_message("Pod", "", p->name, tmpl->invalid_detail, msg, sizeof msg);
        p->message = gs_arena_strdup(&r->w->arena, msg);
        set_phase(r, pi, GS_PHASE_REJECTED);
        p->finished_us = now;
        pod_event(r, pi, "Rejected", p->message);
        return pi;
    }
    gs_dra_run_pod_created(r, pi); /* claims from its ResourceClaimTemplates */
    if (tmpl->node_name) {
        /* spec.nodeName set: bound directly, the scheduler is skipped (kubelet admits it). */
        int ni = gs_world_find_node(r->w, tmpl->node_name);
        if (ni >= 0 && r->w->nodes[ni].exists) {
            /* No Scheduled event: the scheduler never saw the pod (kubelet admits it). */
            gs_world_assign(r->w, pi, ni);
            p->scheduled_us = now;
            gs_devices_run_bound(r, pi); /* its GPUs, as for a scheduled pod (a snapshot's Running pods) */
            gs_time start = now + (wl->start_latency >= 0 ? wl->start_latency : r->sc->start_latency);
            at(r, start, GS_PRIO_START, GS_EV_POD_START, pi, 0);
        } else {
            p->message = gs_arena_printf(&r->w->arena, "node \"%s\" not found", tmpl->node_name);
        }
        return pi;
    }
    if (gs_queue_add(r->queue, pi, now))
        return r->err = GS_ENOMEM;
    /* A new sibling may complete a PodGroup the Coscheduling PreFilter rejected. */
    if (p->group >= 0 && r->sc->sched.filter_enabled[GS_PL_COSCHEDULING])
        cluster_event(r, GS_CE_POD_ADD);
    want_cycle(r);
    return pi;
}

static int create_pod_from(struct gs_runner *r, int wi, int arrival, const struct gs_pod_template *tmpl)
{
    struct gs_workload *wl = &r->w->workloads[wi];
    if (!tmpl)
        tmpl = wl->active_tmpl ? wl->active_tmpl : &wl->tmpl;
    char name[512];
    if (planned_pods(wl) == 1 && wl->pods_created == 0)
        snprintf(name, sizeof name, "%s", wl->name);
    else
        snprintf(name, sizeof name, "%s-%d", wl->name, wl->pods_created);
    int gi = -1;
    const char *pg = gs_labels_get(&tmpl->labels, "scheduling.x-k8s.io/pod-group");
    if (pg)
        gi = podgroup_object(r, pg);
    else if (wl->group_min_member > 0 && (gi = arrival_group(r, wi, arrival)) < 0)
        return r->err = GS_ENOMEM;
    return spawn_pod(r, wi, name, tmpl, gi);
}

static int create_pod(struct gs_runner *r, int wi, int arrival)
{
    return create_pod_from(r, wi, arrival, NULL);
}

static void on_pod_create(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct gs_runner *r = ctx;
    create_pod(r, (int)ev->a, (int)(ev->b >> 20));
}

static int job_initial_pods(const struct gs_workload *wl)
{
    int n = wl->parallelism;
    if (wl->completions > 0 && wl->completions < n)
        n = wl->completions;
    return n;
}

static void on_arrival(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    struct gs_runner *r = ctx;
    int wi = (int)ev->a;
    int arrival = (int)ev->b;
    struct gs_workload *wl = &r->w->workloads[wi];
    gs_time now = gs_engine_now(eng);
    wl->arrivals_done++;
    if (wl->kind == GS_WL_LIST) {
        gs_list_run_arrival(r, wi, arrival); /* a pod list: its pods due now (sim/list_run.c) */
        return;
    }

    int npods = wl->replicas;
    if (wl->kind == GS_WL_POD)
        npods = 1;
    if (wl->kind == GS_WL_JOB) {
        if (wl->tmpl.invalid_detail) {
            /* A refused Job makes no pods (SCENARIO.md: object rejected). */
            char msg[2048];
            gs_validation_status_message("Job", "batch", wl->name, wl->tmpl.invalid_detail, msg, sizeof msg);
            wl->rejected = true;
            wl->reject_message = gs_arena_strdup(&r->w->arena, msg);
            trace_err(r, gs_trace_object(r->trace, now, "Job", "default", wl->name, "Rejected", msg));
            return;
        }
        npods = job_initial_pods(wl);
    }
    if (gs_kueue_run_arrival(r, wi, arrival))
        npods = 0; /* Kueue creates the Workload; its pods come at admission */
    if (wl->kind == GS_WL_PODGROUP) {
        /* The PodGroup object: pods labelled scheduling.x-k8s.io/pod-group join it. */
        if (podgroup_object(r, wl->name) < 0 && group_named(r, wi, arrival, wl->name, wl->group_min_member) < 0)
            r->err = GS_ENOMEM;
        trace_err(r, gs_trace_object(r->trace, now, "PodGroup", "default", wl->name, "Created", NULL));
        npods = 0;
    }
    if (wl->kind == GS_WL_LWS) {
        if (npods > 0)
            gs_lws_run_arrival(r, wi); /* the LeaderWorkerSet controller makes its groups */
        npods = 0;
    }
    for (int i = 0; i < npods; i++) {
        gs_time t = now + (gs_time)i * wl->arrival.stagger;
        if (i == 0 || wl->arrival.stagger == 0)
            create_pod(r, wi, arrival);
        else
            at(r, t, GS_PRIO_CREATE, GS_EV_POD_CREATE, wi, ((int64_t)arrival << 20) | i);
    }
    /* The next arrival of a repeating workload. */
    if (wl->arrival.count > 0 && arrival + 1 < wl->arrival.count) {
        gs_time next = -1;
        if (wl->arrival.kind == GS_ARRIVE_EVERY)
            next = now + wl->arrival.every;
        else if (wl->arrival.kind == GS_ARRIVE_POISSON && wl->arrival.rate_per_us > 0)
            next = now + (gs_time)llround(
                             gs_rng_exponential(r->rng, GS_STREAM_ARRIVALS, 1.0 / wl->arrival.rate_per_us));
        if (next >= 0)
            at(r, next, GS_PRIO_CREATE, GS_EV_ARRIVAL, wi, arrival + 1);
    }
}

static void pod_terminated(struct gs_runner *r, int pi, enum gs_phase ph, const char *reason, const char *msg)
{
    struct gs_pod *p = &r->w->pods[pi];
    gs_time now = gs_engine_now(r->eng);
    cancel(r, &p->finish_ev);
    cancel(r, &p->permit_ev);
    p->permit_waiting = false;
    bool held = p->node >= 0;
    gs_dra_run_pod_ended(r, pi, p->node); /* claims released, deallocated, generated ones deleted */
    gs_devices_run_released(r, pi); /* its GPUs (whole or a share) */
    gs_world_unassign(r->w, pi);
    gs_queue_remove(r->queue, pi);
    set_phase(r, pi, ph);
    p->finished_us = now;
    pod_event(r, pi, reason, msg);
    trace_pod_row(r, pi);
    if (held) {
        cluster_event(r, GS_CE_ASSIGNED_POD_DELETE);
        gs_frag_run_pod_changed(r); /* --sample-every-pod */
    }
    if (gs_lws_run_pod_ended(r, pi))
        at(r, now, GS_PRIO_CREATE, GS_EV_LWS_RESTART, pi, 0);
}

static void delete_pod(struct gs_runner *r, int pi, const char *reason, const char *msg);

/* A Job creates a replacement or a further pod until `completions` pods succeeded. */
static void job_after_pod(struct gs_runner *r, int pi, bool succeeded)
{
    const struct gs_pod *p = &r->w->pods[pi];
    if (p->workload < 0)
        return;
    struct gs_workload *wl = &r->w->workloads[p->workload];
    if (wl->kind != GS_WL_JOB || wl->suspended)
        return;
    if (wl->failed > wl->backoff_limit)
        return; /* the Job already failed */
    if (succeeded)
        wl->succeeded++;
    else
        wl->failed++;
    if (wl->failed > wl->backoff_limit) {
        /* BackoffLimitExceeded: the Job fails, the controller deletes its active pods and
         * makes no more (kubernetes pkg/controller/job/job_controller.go). */
        for (int i = 0; i < r->w->npods; i++) {
            const struct gs_pod *q = &r->w->pods[i];
            if (q->workload == p->workload && !q->deleted &&
                (q->phase == GS_PHASE_PENDING || q->phase == GS_PHASE_RUNNING))
                delete_pod(r, i, "Deleted", "Job has reached the specified backoff limit");
        }
        return;
    }
    int active = 0;
    for (int i = 0; i < r->w->npods; i++) {
        const struct gs_pod *q = &r->w->pods[i];
        if (q->workload == p->workload && !q->deleted &&
            (q->phase == GS_PHASE_PENDING || q->phase == GS_PHASE_RUNNING))
            active++;
    }
    int want;
    if (wl->completions > 0) {
        int remaining = wl->completions - wl->succeeded - active;
        want = remaining < wl->parallelism - active ? remaining : wl->parallelism - active;
    } else {
        /* Work queue: no new pods once one succeeded. */
        want = wl->succeeded > 0 ? 0 : wl->parallelism - active;
    }
    for (int i = 0; i < want; i++)
        create_pod(r, p->workload, 0);
}

static void on_pod_start(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    struct gs_runner *r = ctx;
    int pi = (int)ev->a;
    struct gs_pod *p = &r->w->pods[pi];
    if (p->deleted || p->phase != GS_PHASE_PENDING || p->node < 0)
        return;
    if (!gs_devices_run_admit(r, pi))
        return; /* the kubelet refused it (device plugin Allocate) */
    gs_time now = gs_engine_now(eng);
    set_phase(r, pi, GS_PHASE_RUNNING);
    p->started_us = now;
    pod_event(r, pi, "Started", NULL);
    gs_lws_run_pod_started(r, pi);
    p = &r->w->pods[pi];
    gs_kueue_run_pod_started(r, pi);
    if (p->duration_us >= 0)
        p->finish_ev = at(r, now + p->duration_us, GS_PRIO_TERMINATE, GS_EV_POD_FINISH, pi, 0);
}

static void on_pod_finish(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct gs_runner *r = ctx;
    int pi = (int)ev->a;
    r->w->pods[pi].finish_ev = 0;
    pod_terminated(r, pi, GS_PHASE_SUCCEEDED, "Completed", NULL);
    job_after_pod(r, pi, true);
    gs_kueue_run_pod_ended(r, pi);
}

/* A pod deleted through the API (deletePod, drain, a deleted node, preemption): it leaves the
 * cluster; a Job replaces it. */
static void delete_pod(struct gs_runner *r, int pi, const char *reason, const char *msg)
{
    struct gs_pod *p = &r->w->pods[pi];
    if (p->deleted)
        return;
    bool was_active = p->phase == GS_PHASE_PENDING || p->phase == GS_PHASE_RUNNING;
    pod_terminated(r, pi, p->phase == GS_PHASE_RUNNING ? GS_PHASE_FAILED : p->phase, reason, msg);
    r->phase_count[p->phase]--;
    p->deleted = true;
    trace_pod_row(r, pi);
    if (was_active)
        job_after_pod(r, pi, false);
    gs_kueue_run_pod_ended(r, pi);
}

/* An eviction (drain, a deleted node, a reboot, preemption) deletes the pod; a plain
 * workload's pod is then re-created under the workload's next index, as a ReplicaSet would,
 * and a Job replaces it through job_after_pod. Bare Pod manifests, pods pinned with nodeName
 * and PodGroup members are not re-created. */
static void evict_pod(struct gs_runner *r, int pi, const char *reason, const char *msg)
{
    const struct gs_pod *p = &r->w->pods[pi];
    int wi = p->workload;
    bool recreate = !p->deleted && wi >= 0 && r->w->workloads[wi].kind == GS_WL_PLAIN && p->group < 0 &&
                    !p->tmpl->node_name;
    delete_pod(r, pi, reason, msg);
    if (recreate)
        create_pod(r, wi, 0);
}

/* Deletion through the API with graceful termination: a bound pod keeps its node and its
 * resources for terminationGracePeriodSeconds (default 30 s), then goes (GS_EV_POD_GONE,
 * b = 1 for an eviction); an unbound pod goes at once. */
static void terminate_pod(struct gs_runner *r, int pi, bool eviction, const char *reason, const char *msg)
{
    struct gs_pod *p = &r->w->pods[pi];
    if (p->deleted || p->terminating)
        return;
    if (p->node < 0 || p->tmpl->termination_grace_us <= 0) {
        if (eviction)
            evict_pod(r, pi, reason, msg);
        else
            delete_pod(r, pi, reason, msg);
        return;
    }
    p->terminating = true;
    pod_event(r, pi, "Killing", msg ? msg : "Stopping container");
    at(r, gs_engine_now(r->eng) + p->tmpl->termination_grace_us, GS_PRIO_TERMINATE, GS_EV_POD_GONE, pi,
       eviction);
}

static void on_pod_gone(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct gs_runner *r = ctx;
    if (ev->b)
        evict_pod(r, (int)ev->a, "Deleted", "graceful termination completed");
    else
        delete_pod(r, (int)ev->a, "Deleted", "graceful termination completed");
}

/* ------------------------------------------------------------------ scheduling */

static void unschedulable(struct gs_runner *r, int pi, const char *message, uint32_t plugins);

/* DefaultBinder's bind through the client: the pod, assumed on its node, is bound there. */
static void bound(struct gs_runner *r, int pi)
{
    struct gs_pod *p = &r->w->pods[pi];
    gs_time now = gs_engine_now(r->eng);
    int ni = p->node;
    p->permit_waiting = false;
    cancel(r, &p->permit_ev);
    p->scheduled_us = now;
    p->message = NULL;
    p->nominated_node = -1;
    r->pods_scheduled++;
    const struct gs_workload *wl = p->workload >= 0 ? &r->w->workloads[p->workload] : NULL;
    char msg[600];
    snprintf(msg, sizeof msg, "Successfully assigned default/%s to %s", p->name, r->w->nodes[ni].name);
    pod_event(r, pi, "Scheduled", msg);
    gs_devices_run_bound(r, pi); /* which GPUs it takes (sim/devices_run.c) */
    gs_frag_run_pod_changed(r); /* --sample-every-pod */
    gs_time lat = wl && wl->start_latency >= 0 ? wl->start_latency : r->sc->start_latency;
    at(r, now + lat, GS_PRIO_START, GS_EV_POD_START, pi, 0);
}

/* The scheduler's client over this run (sched.h gs_sched_client): what the plugins of the
 * binding points change, done with the run loop's functions. */
static int client_claims_bind(void *ctx, int pod, int node)
{
    gs_dra_run_bind(ctx, pod, node); /* DynamicResources Reserve + PreBind, the GPU ledger */
    return 0;
}

static void client_set_share_gpu(void *ctx, int pod, int gpu)
{
    struct gs_runner *r = ctx;
    r->share_pod = pod; /* read by gs_devices_run_bound */
    r->share_gpu = gpu;
}

static int client_bind(void *ctx, int pod, int node)
{
    (void)node;
    bound(ctx, pod);
    return 0;
}

static void client_activate(void *ctx, int pod)
{
    struct gs_runner *r = ctx;
    if (gs_queue_activate(r->queue, pod, gs_engine_now(r->eng)))
        r->err = GS_ENOMEM;
}

static void client_reject_waiting(void *ctx, int pod, enum gs_plugin plugin, const char *msg)
{
    struct gs_runner *r = ctx;
    gs_gang_run_reject_one(r, pod, msg, 1u << plugin);
    r->rejected_waiting++;
}

void gs_run_client(struct gs_runner *r, struct gs_sched_client *c)
{
    *c = (struct gs_sched_client){.ctx = r,
                                  .claims_bind = client_claims_bind,
                                  .set_share_gpu = client_set_share_gpu,
                                  .bind = client_bind,
                                  .activate = client_activate,
                                  .reject_waiting = client_reject_waiting};
}

/* Bind pod `pi` to node `ni`; ni < 0: the pod is already assumed on its node (reserved,
 * then allowed at Permit): the PreBind and Bind plugins through the client. */
static void bind(struct gs_runner *r, int pi, int ni)
{
    if (ni >= 0)
        gs_world_assign(r->w, pi, ni);
    ni = r->w->pods[pi].node;
    struct gs_sched_client c;
    gs_run_client(r, &c);
    gs_sched_prebind(r->sched, pi, ni, &c);
    gs_sched_bind(r->sched, pi, ni, &c);
}

/* Pod `pi` fitted node `ni`: assume it there, Reserve, then Permit decides: bind it (and its
 * waiting siblings when the plugin allows them too), or let it wait. */
static void reserve_and_permit(struct gs_runner *r, int pi, int ni)
{
    struct gs_world *w = r->w;
    gs_world_assign(w, pi, ni);
    struct gs_sched_client c;
    gs_run_client(r, &c);
    struct gs_permit_result pr;
    if (gs_sched_reserve(r->sched, pi, ni, &c) == GS_ST_SUCCESS)
        gs_sched_permit(r->sched, pi, ni, &c, &pr);
    else
        pr = (struct gs_permit_result){.code = GS_PERMIT_REJECT, .plugin = GS_PL_COUNT, .message = "reserve failed"};
    switch (pr.code) {
    case GS_PERMIT_ALLOW: {
        bind(r, pi, -1);
        int gi = w->pods[pi].group;
        if (pr.allow_siblings && gi >= 0)
            for (int i = w->groups[gi].first_pod; i >= 0; i = w->pods[i].next_in_group)
                if (w->pods[i].permit_waiting)
                    bind(r, i, -1);
        break;
    }
    case GS_PERMIT_WAIT:
        gs_gang_run_wait(r, pi, pr.wait_us);
        break;
    case GS_PERMIT_REJECT:
        gs_sched_unreserve(r->sched, pi, ni, gs_engine_now(r->eng), &c);
        gs_world_unassign(w, pi);
        unschedulable(r, pi, pr.message ? pr.message : "rejected at Permit",
                      pr.plugin < GS_PL_COUNT ? 1u << pr.plugin : 0);
        break;
    }
}

static void preempt(struct gs_runner *r, int pi, const struct gs_cycle_result *res)
{
    struct gs_pod *p = &r->w->pods[pi];
    gs_time now = gs_engine_now(r->eng);
    p->nominated_node = res->nominated_node;
    /* Lower-priority pods nominated to that node lose their nomination (preemption.go
     * prepareCandidate). */
    for (int i = 0; i < res->nlost; i++)
        r->w->pods[res->lost[i]].nominated_node = -1;
    for (int i = 0; i < res->nvictims; i++) {
        int vi = res->victims[i];
        struct gs_pod *v = &r->w->pods[vi];
        if (v->terminating)
            continue;
        v->terminating = true;
        v->preempted_by = pi;
        char msg[600];
        snprintf(msg, sizeof msg, "Preempted by pod default/%s on node %s", p->name,
                 r->w->nodes[res->nominated_node].name);
        pod_event(r, vi, "Preempted", msg);
        at(r, now + v->tmpl->termination_grace_us, GS_PRIO_TERMINATE, GS_EV_POD_GONE, vi, 1);
    }
}

/* Pod `pi` stays unschedulable: its FailedScheduling text (interned) and event, then the
 * unschedulable pool with the plugins that rejected it. */
static void unschedulable(struct gs_runner *r, int pi, const char *message, uint32_t plugins)
{
    struct gs_pod *p = &r->w->pods[pi];
    /* A pod retried without any change keeps getting the same text: compare before hashing
     * it into the intern table. */
    if (!p->message || strcmp(p->message, message) != 0) {
        p->message = gs_intern(&r->messages, message);
        if (!p->message)
            r->err = GS_ENOMEM;
    }
    pod_event(r, pi, "FailedScheduling", p->message);
    if (gs_queue_unschedulable(r->queue, pi, plugins, gs_engine_now(r->eng)))
        r->err = GS_ENOMEM;
    want_flush(r);
}

static void on_sched(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)ev;
    struct gs_runner *r = ctx;
    r->sched_ev = 0;
    int pi = gs_queue_pop(r->queue);
    if (pi < 0)
        return;
    gs_sched_set_now(r->sched, gs_engine_now(eng));
    struct gs_pod *p = &r->w->pods[pi];
    const struct gs_sched_config *cfg = &r->sc->sched;
    if (p->group >= 0 && cfg->gang_admission) {
        gs_gang_run_group_cycle(r, pi);
        want_cycle(r);
        return;
    }
    struct gs_cycle_result res;
    gs_dra_run_before_cycle(r);
    gs_sched_cycle(r->sched, pi, &res);
    r->cycles++;
    if (res.node >= 0) {
        reserve_and_permit(r, pi, res.node);
    } else {
        gs_run_failed(r, pi, &res);
    }
    want_cycle(r);
}

static void on_backoff(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    struct gs_runner *r = ctx;
    int pi = (int)ev->a;
    if (gs_queue_attempts(r->queue, pi) != (int)ev->b)
        return;
    if (gs_queue_backoff_expired(r->queue, pi, gs_engine_now(eng)))
        want_cycle(r);
}

static void on_flush(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)ev;
    struct gs_runner *r = ctx;
    r->flush_ev = 0;
    if (ensure_scratch(r))
        return;
    int nb = 0;
    gs_queue_flush(r->queue, gs_engine_now(eng), r->scratch, r->scratch_cap, &nb);
    schedule_backoffs(r, nb);
    want_cycle(r);
    want_flush(r);
}

/* ------------------------------------------------------------------ scenario events */

/* A scenario event that names something absent at its time is not an error of the scenario
 * (nodes come and go), but the trace keeps a numbered warning for it. */
static void warn(struct gs_runner *r, const struct gs_sevent *se, const char *what, const char *name)
{
    char key[32], msg[600], t[32];
    gs_duration_format(gs_engine_now(r->eng), t, sizeof t);
    snprintf(key, sizeof key, "warning.%d", ++r->nwarnings);
    snprintf(msg, sizeof msg, "line %d: at %s: %s %s not found", se->line, t, what, name);
    trace_err(r, gs_trace_run_kv(r->trace, key, msg));
}

static int event_node(struct gs_runner *r, const struct gs_sevent *se)
{
    int ni = gs_world_find_node(r->w, se->node);
    if (ni < 0 || !r->w->nodes[ni].exists) {
        warn(r, se, "node", se->node);
        return -1;
    }
    return ni;
}

/* Evict every pod of node `ni`: with graceful termination (drain), or at once (a deleted
 * node takes its pods with it). */
static void evict_node_pods(struct gs_runner *r, int ni, bool graceful, const char *reason, const char *msg)
{
    int next;
    for (int q = r->w->nodes[ni].first_pod; q >= 0; q = next) {
        next = r->w->pods[q].next_on_node;
        if (graceful)
            terminate_pod(r, q, true, reason, msg);
    }
    if (!graceful)
        while (r->w->nodes[ni].first_pod >= 0)
            evict_pod(r, r->w->nodes[ni].first_pod, reason, msg);
}

static void on_scenario(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct gs_runner *r = ctx;
    const struct gs_sevent *se = &r->sc->events[ev->a];
    int ni;
    switch (se->kind) {
    case GS_SEV_CORDON:
    case GS_SEV_UNCORDON:
        if ((ni = event_node(r, se)) < 0)
            return;
        r->w->nodes[ni].unschedulable = se->kind == GS_SEV_CORDON;
        gs_node_touch(r->w, ni);
        node_event(r, ni, "Cordon", NULL, se->kind == GS_SEV_CORDON ? "true" : "false");
        cluster_event(r, GS_CE_NODE_TAINT);
        break;
    case GS_SEV_DRAIN:
        if ((ni = event_node(r, se)) < 0)
            return;
        r->w->nodes[ni].unschedulable = true;
        gs_node_touch(r->w, ni);
        node_event(r, ni, "Cordon", NULL, "true");
        evict_node_pods(r, ni, true, "Evicted", "drained");
        cluster_event(r, GS_CE_NODE_TAINT);
        break;
    case GS_SEV_DELETE_NODE:
        if ((ni = event_node(r, se)) < 0)
            return;
        evict_node_pods(r, ni, false, "Deleted", "node deleted");
        r->w->nodes[ni].exists = false;
        gs_node_touch(r->w, ni);
        node_event(r, ni, "Deleted", NULL, NULL);
        break;
    case GS_SEV_ADD_NODES:
        for (int i = 0; i < se->count; i++)
            add_node(r, se->pool);
        cluster_event(r, GS_CE_NODE_ADD);
        break;
    case GS_SEV_LABEL:
        if ((ni = event_node(r, se)) < 0)
            return;
        for (int i = 0; i < se->set.n; i++) {
            struct gs_node *n = &r->w->nodes[ni];
            if (se->set.kv[i].value)
                gs_labels_set(&n->labels, &r->w->arena, se->set.kv[i].key, se->set.kv[i].value);
            else
                gs_labels_del(&n->labels, se->set.kv[i].key);
            node_event(r, ni, "Label", se->set.kv[i].key, se->set.kv[i].value);
        }
        gs_node_touch(r->w, ni);
        cluster_event(r, GS_CE_NODE_LABEL);
        gs_bringup_run_labels_changed(r, ni);
        break;
    case GS_SEV_DELETE_POD: {
        int pi = gs_world_find_pod(r->w, se->pod);
        if (pi < 0 || r->w->pods[pi].deleted) {
            warn(r, se, "pod", se->pod);
            return;
        }
        terminate_pod(r, pi, false, "Deleted", NULL);
        break;
    }
    case GS_SEV_SCALE:
        gs_lws_run_scale(r, se->workload, se->replicas);
        break;
    case GS_SEV_SCHEDULER_RESTART:
        gs_sched_run_restart(r, se);
        break;
    case GS_SEV_KERNEL_PATCH:
    case GS_SEV_XID:
    case GS_SEV_DEVICE_PLUGIN_RESTART:
    case GS_SEV_PRECOMPILED_IMAGE_PUBLISHED:
    case GS_SEV_DRIVER_UPGRADE:
        gs_bringup_run_event(r, se);
        break;
    }
}

/* ------------------------------------------------------------------ sampling and checks */

static void on_sample(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)ev;
    struct gs_runner *r = ctx;
    trace_err(r, gs_metrics_sample(r, gs_engine_now(eng)));
    at(r, gs_engine_now(eng) + r->sc->sample_interval, GS_PRIO_SAMPLE, GS_EV_SAMPLE, 0, 0);
}

static void on_check(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    gs_check_eval(ctx, (int)ev->a);
}

/* ------------------------------------------------------------------ for sim/bringup_run.c */

gs_event_handle gs_run_at(struct gs_runner *r, gs_time t, int32_t prio, uint32_t kind, int64_t a, int64_t b)
{
    return at(r, t, prio, kind, a, b);
}

void gs_run_cluster_event(struct gs_runner *r, enum gs_cluster_event ev)
{
    cluster_event(r, ev);
}

void gs_run_node_event(struct gs_runner *r, int node, const char *kind, const char *subject, const char *value)
{
    node_event(r, node, kind, subject, value);
}

void gs_run_evict_pod(struct gs_runner *r, int pod, const char *reason, const char *msg)
{
    evict_pod(r, pod, reason, msg);
}

int gs_run_create_pod(struct gs_runner *r, int wi, int arrival, const struct gs_pod_template *tmpl)
{
    return create_pod_from(r, wi, arrival, tmpl);
}

int gs_run_spawn_pod(struct gs_runner *r, int wi, const char *name, const struct gs_pod_template *tmpl, int group)
{
    return spawn_pod(r, wi, name, tmpl, group);
}

int gs_run_group(struct gs_runner *r, int wi, const char *name, int min_member)
{
    int gi = group_named(r, wi, 0, name, min_member);
    if (gi < 0)
        r->err = GS_ENOMEM;
    return gi;
}

void gs_run_delete_pod(struct gs_runner *r, int pod, const char *reason, const char *msg)
{
    delete_pod(r, pod, reason, msg);
}

void gs_run_cancel(struct gs_runner *r, gs_event_handle *h)
{
    cancel(r, h);
}

void gs_run_pod_event(struct gs_runner *r, int pod, const char *reason, const char *msg)
{
    pod_event(r, pod, reason, msg);
}

void gs_run_bind(struct gs_runner *r, int pod, int node)
{
    bind(r, pod, node);
}

void gs_run_unschedulable(struct gs_runner *r, int pod, const char *message, uint32_t plugins)
{
    unschedulable(r, pod, message, plugins);
}

void gs_run_failed(struct gs_runner *r, int pi, const struct gs_cycle_result *res)
{
    struct gs_pod *p = &r->w->pods[pi];
    if (res->nominated_node >= 0)
        preempt(r, pi, res);
    else if (res->clear_nomination)
        p->nominated_node = -1;
    unschedulable(r, pi, res->message, res->unsched_plugins);
    if (res->reject_group)
        gs_gang_run_reject_waiting(r, p->group, GS_GANG_MSG_POSTFILTER_REJECT);
}

void gs_run_want_cycle(struct gs_runner *r)
{
    want_cycle(r);
}

void gs_run_warn(struct gs_runner *r, const struct gs_sevent *se, const char *what, const char *name)
{
    warn(r, se, what, name);
}

void gs_run_fail_pod(struct gs_runner *r, int pi, const char *reason, const char *msg)
{
    struct gs_pod *p = &r->w->pods[pi];
    p->reason = reason;
    p->message = gs_arena_strdup(&r->w->arena, msg);
    pod_terminated(r, pi, GS_PHASE_FAILED, reason, msg);
    job_after_pod(r, pi, false);
    gs_kueue_run_pod_ended(r, pi);
}

/* ------------------------------------------------------------------ the run */

static const gs_event_fn handlers[GS_EV_KINDS] = {
    [GS_EV_NODE_JOIN] = on_node_join, [GS_EV_SCENARIO] = on_scenario, [GS_EV_POD_FINISH] = on_pod_finish,
    [GS_EV_POD_GONE] = on_pod_gone,   [GS_EV_ARRIVAL] = on_arrival,   [GS_EV_POD_CREATE] = on_pod_create,
    [GS_EV_POD_START] = on_pod_start, [GS_EV_BACKOFF] = on_backoff,   [GS_EV_FLUSH] = on_flush,
    [GS_EV_SCHED] = on_sched,         [GS_EV_SAMPLE] = on_sample,     [GS_EV_CHECK] = on_check,
    [GS_EV_BRINGUP] = gs_bringup_run_on_timer, [GS_EV_BRINGUP_BG] = gs_bringup_run_on_timer,
    [GS_EV_PERMIT_TIMEOUT] = gs_gang_run_on_timeout,
    [GS_EV_LWS_RESTART] = gs_lws_run_on_restart,
    [GS_EV_KUEUE] = gs_kueue_run_on_timer,
    [GS_EV_DEVICES] = gs_devices_run_on_timer,
};

/* Every kind goes through here so the count of pending foreground events stays right. */
static void dispatch(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    struct gs_runner *r = ctx;
    if (!is_background(ev->kind))
        r->foreground--;
    gs_assert_clock_us = ev->time;
    handlers[ev->kind](eng, ev, ctx);
}

static int setup(struct gs_runner *r)
{
    struct gs_world *w = r->w;
    struct gs_scenario *sc = r->sc;
    r->gpu_res = gs_res_intern(&w->res, &w->arena, "nvidia.com/gpu");
    gs_intern_init(&r->messages, &w->arena);
    r->next_index = gs_calloc((size_t)(w->npools ? w->npools : 1), sizeof *r->next_index);
    r->eng = gs_engine_new(1024);
    r->rng = gs_rng_new(sc->seed);
    r->queue = gs_queue_new(w, GS_DEFAULT_BACKOFF_INITIAL, GS_DEFAULT_BACKOFF_MAX);
    r->sched = gs_sched_new(w, &sc->sched, r->rng);
    if (r->queue && r->sched)
        gs_queue_set_sort(r->queue, gs_sched_queue_sort(r->sched));
    r->share_pod = -1;
    if (!r->next_index || !r->eng || !r->rng || !r->queue || !r->sched || r->gpu_res < 0 ||
        gs_bringup_run_setup(r) || gs_kueue_run_setup(r) || gs_dra_run_setup(r) || gs_frag_run_setup(r))
        return GS_ENOMEM;
    for (int k = 1; k < GS_EV_KINDS; k++)
        gs_engine_on(r->eng, (uint32_t)k, dispatch, r);

    for (int p = 0; p < w->npools; p++)
        for (int i = 0; i < w->pools[p].count; i++)
            at(r, w->pools[p].join_at + (gs_time)i * w->pools[p].join_every, GS_PRIO_CLUSTER, GS_EV_NODE_JOIN, p, i);
    for (int i = 0; i < w->nworkloads; i++)
        if (w->workloads[i].arrival.count != 0)
            at(r, w->workloads[i].arrival.start, GS_PRIO_CREATE, GS_EV_ARRIVAL, i, 0);
    for (int i = 0; i < sc->nevents; i++)
        at(r, sc->events[i].at, GS_PRIO_CLUSTER, GS_EV_SCENARIO, i, 0);
    for (int i = 0; i < sc->nexpects; i++)
        if (sc->expects[i].has_at)
            at(r, sc->expects[i].at, GS_PRIO_CHECK, GS_EV_CHECK, i, 0);
        else if (sc->expects[i].has_window)
            at(r, sc->expects[i].to, GS_PRIO_CHECK, GS_EV_CHECK, i, 0);
    at(r, 0, GS_PRIO_SAMPLE, GS_EV_SAMPLE, 0, 0);
    return r->err;
}

static void teardown(struct gs_runner *r)
{
    gs_bringup_run_free(r);
    gs_kueue_run_free(r);
    gs_dra_run_free(r);
    gs_frag_run_free(r);
    gs_sched_free(r->sched);
    gs_queue_free(r->queue);
    gs_rng_free(r->rng);
    gs_engine_free(r->eng);
    gs_free(r->next_index);
    gs_free(r->scratch);
    gs_free(r->samples);
    gs_intern_free(&r->messages);
}

static void write_run_keys(struct gs_runner *r)
{
    const struct gs_scenario *sc = r->sc;
    char buf[64];
    trace_err(r, gs_trace_run_kv(r->trace, "scenario", sc->name));
    trace_err(r, gs_trace_run_kv(r->trace, "scenario_path", sc->path));
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)sc->seed);
    trace_err(r, gs_trace_run_kv(r->trace, "seed", buf));
    trace_err(r, gs_trace_run_kv(r->trace, "version", GPUSIM_VERSION));
    snprintf(buf, sizeof buf, "1.%d", sc->k8s_minor);
    trace_err(r, gs_trace_run_kv(r->trace, "kubernetesVersion", buf));
    if (sc->has_horizon) {
        snprintf(buf, sizeof buf, "%lld", (long long)sc->horizon);
        trace_err(r, gs_trace_run_kv(r->trace, "horizon_us", buf));
    }
    trace_err(r, gs_trace_commit(r->trace));
}

int gs_run(struct gs_scenario *sc, const struct gs_run_opts *o, struct gs_run_result *res, char *errbuf,
           int errlen)
{
    memset(res, 0, sizeof *res);
    struct gs_runner r = {.sc = sc, .w = &sc->world, .opts = o};
    int rc = gs_trace_open(o->trace_path, o->trace_level, &r.trace, errbuf, errlen);
    if (rc)
        return rc;
    write_run_keys(&r);
    rc = setup(&r);
    if (rc) {
        snprintf(errbuf, (size_t)errlen, "%s", gs_strerror(rc));
        teardown(&r);
        gs_trace_close(r.trace, "failed", 0);
        return rc;
    }

    /* Run until the horizon; without one, until only background events (samples, the queue's
     * periodic flush) are left. */
    gs_time horizon = sc->has_horizon ? sc->horizon : GS_TIME_MAX;
    const char *status = "complete";
    uint64_t next_progress = 1u << 16;
    for (;;) {
        if (o->stop && *o->stop) {
            status = "interrupted";
            break;
        }
        if (r.err)
            break;
        if (!sc->has_horizon && r.foreground == 0)
            break;
        gs_time t = gs_engine_peek_time(r.eng);
        if (t == GS_TIME_MAX || t > horizon)
            break;
        gs_engine_step(r.eng, horizon);
        if (gs_engine_dispatched(r.eng) >= next_progress && o->progress) {
            o->progress(gs_engine_now(r.eng), horizon, gs_engine_dispatched(r.eng), o->progress_ctx);
            next_progress += 1u << 16;
        }
    }
    gs_time end = gs_engine_now(r.eng);
    if (sc->has_horizon && strcmp(status, "complete") == 0 && !r.err)
        end = horizon;
    if (r.err) {
        status = "failed";
        snprintf(errbuf, (size_t)errlen, "%s", gs_strerror(r.err));
    }
    res->status = status;
    res->end = end;
    res->events = gs_engine_dispatched(r.eng);
    res->cycles = r.cycles;
    res->pods_scheduled = r.pods_scheduled;
    res->pods_created = r.w->npods;

    /* Final sample, final pod rows, and the checks without an `at:` (end of run). */
    trace_err(&r, gs_metrics_sample(&r, end));
    for (int i = 0; i < r.w->npods; i++)
        trace_pod_row(&r, i);
    if (strcmp(status, "complete") == 0)
        for (int i = 0; i < sc->nexpects; i++)
            if (!sc->expects[i].checked)
                gs_check_eval(&r, i);
    for (int i = 0; i < sc->nexpects; i++) {
        struct gs_expect *e = &sc->expects[i];
        res->checks_total++;
        if (!e->pass)
            res->checks_failed++;
        trace_err(&r, gs_trace_check(r.trace, i, e->line, e->what, e->pass,
                                     e->checked ? e->detail : "not evaluated: the run was interrupted"));
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)res->events);
    trace_err(&r, gs_trace_run_kv(r.trace, "events", buf));
    rc = r.err;
    if (rc && gs_trace_errmsg(r.trace))
        snprintf(errbuf, (size_t)errlen, "%s", gs_trace_errmsg(r.trace));
    char cerr[512] = "";
    int crc = gs_trace_finish(r.trace, status, end, cerr, sizeof cerr);
    if (!rc && crc) {
        rc = crc;
        snprintf(errbuf, (size_t)errlen, "%s", cerr);
    }
    teardown(&r);
    return rc;
}
