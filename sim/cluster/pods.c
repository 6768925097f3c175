/* The cluster layer's pod verbs (sim/cluster.h): the API server creating, binding and deleting
 * pods, and the kubelet starting, finishing and failing them.
 *
 * Rules gpusim chooses (SCENARIO.md leaves them open):
 * - Deletion with graceful termination: a bound pod keeps its node and its resources for
 *   terminationGracePeriodSeconds (default 30 s; a Killing row), then goes; an unbound pod goes at
 *   once. A deleted Running pod ends Failed, a deleted Pending one stays Pending in its last row.
 * - An eviction (drain, a deleted node, a reboot, preemption) deletes the pod; its owners hear it
 *   (a plain workload's ReplicaSet-style controller re-creates it, see sim/controllers/workloads.c).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/admission/validation.h"
#include "sim/cluster/internal.h"
#include "sim/controller.h"
#include "sim/limits.h"

static void set_phase(struct gs_cluster *c, int pi, enum gs_phase ph)
{
    struct gs_pod *p = &c->w->pods[pi];
    if (!p->deleted)
        c->phase_count[p->phase]--;
    p->phase = ph;
    if (!p->deleted)
        c->phase_count[ph]++;
}

void gs_cluster_pod_row(struct gs_cluster *c, int pi)
{
    const struct gs_pod *p = &c->w->pods[pi];
    const struct gs_pod_template *t = p->tmpl;
    struct gs_trace_pod row = {
        .id = pi,
        .name = p->name,
        .workload = p->workload >= 0 ? c->w->workloads[p->workload].name : NULL,
        .pod_group = p->group >= 0 ? c->w->groups[p->group].name : NULL,
        .priority = t->priority,
        .cpu_m = t->requests.v[GS_RES_CPU],
        .memory_b = t->requests.v[GS_RES_MEMORY],
        .gpu = c->gpu_res >= 0 ? t->requests.v[c->gpu_res] : 0,
        .created_us = p->created_us,
        .scheduled_us = p->scheduled_us,
        .started_us = p->started_us,
        .finished_us = p->finished_us,
        .node_id = p->node >= 0 ? p->node : p->last_node,
        .phase = p->deleted ? "Deleted" : gs_phase_name(p->phase),
        .message = p->message,
    };
    gs_cluster_fail(c, gs_trace_pod(c->trace, &row));
}

/* A workload's duration distribution, drawn from the durations stream (µs; -1: runs forever). */
static gs_time sample_duration(struct gs_cluster *c, const struct gs_duration_dist *d)
{
    double v;
    switch (d->kind) {
    case GS_DIST_NONE:
        return -1;
    case GS_DIST_FIXED:
        return d->fixed;
    case GS_DIST_EXPONENTIAL:
        v = gs_rng_exponential(c->rng, GS_STREAM_DURATIONS, (double)d->mean);
        break;
    case GS_DIST_LOGNORMAL:
        v = gs_rng_lognormal(c->rng, GS_STREAM_DURATIONS, (double)d->median, d->sigma);
        break;
    case GS_DIST_UNIFORM:
        /* [min, max), GSL's gsl_ran_flat */
        v = gsl_ran_flat(gs_rng_gsl(c->rng, GS_STREAM_DURATIONS), (double)d->min, (double)d->max);
        break;
    case GS_DIST_EMPIRICAL:
        /* bootstrap: one of the values, each with probability 1/n (gsl_rng_uniform_int) */
        return d->values[gs_rng_uniform_int(c->rng, GS_STREAM_DURATIONS, (uint64_t)d->nvalues)];
    default:
        return -1;
    }
    if (!(v >= 0) || v > 9.0e18)
        return GS_TIME_MAX / 4;
    return (gs_time)llround(v);
}

static void add_member(struct gs_world *w, int gi, int pi)
{
    struct gs_group *g = &w->groups[gi];
    if (g->last_pod >= 0)
        w->pods[g->last_pod].next_in_group = pi;
    else
        g->first_pod = pi;
    g->last_pod = pi;
    g->npods++;
    w->pods[pi].group = gi;
}

static gs_time start_latency(const struct gs_cluster *c, int pi)
{
    const struct gs_pod *p = &c->w->pods[pi];
    const struct gs_workload *wl = p->workload >= 0 ? &c->w->workloads[p->workload] : NULL;
    return wl && wl->start_latency >= 0 ? wl->start_latency : c->sc->start_latency;
}

int gs_cluster_create_pod(struct gs_cluster *c, const struct gs_pod_spec *spec)
{
    struct gs_world *w = c->w;
    struct gs_workload *wl = &w->workloads[spec->workload];
    gs_time now = gs_cluster_now(c);
    if (w->npods >= GS_MAX_PODS) {
        /* The loader checks the pods it can foresee; replacements are counted here. */
        gs_cluster_fail_msg(c, GS_ERANGE, "more than %d pods created (replacements included): the limit of a run "
                            "(docs/scenario-format.md, \"Limits and memory\")", GS_MAX_PODS);
        return GS_ERANGE;
    }
    int pi = gs_world_add_pod(w, spec->name, spec->workload, spec->tmpl, now);
    if (pi < 0) {
        gs_cluster_fail(c, pi);
        return pi;
    }
    wl->pods_created++;
    c->phase_count[GS_PHASE_PENDING]++;
    struct gs_pod *p = &w->pods[pi];
    p->duration_us = sample_duration(c, &wl->duration);
    if (spec->has_duration)
        p->duration_us = spec->duration;
    p->lws_group = spec->lws_group;
    p->lws_worker = spec->lws_worker;
    if (spec->group >= 0)
        add_member(w, spec->group, pi);
    gs_cluster_pod_row(c, pi);
    gs_cluster_pod_event(c, pi, "Created", NULL);
    const struct gs_pod_template *tmpl = spec->tmpl;
    if (tmpl->invalid_detail) {
        /* The API server refuses the pod: it never reaches the scheduler. */
        char msg[2048];
        gs_validation_status_message("Pod", "", p->name, tmpl->invalid_detail, msg, sizeof msg);
        p->message = gs_arena_strdup(&w->arena, msg);
        set_phase(c, pi, GS_PHASE_REJECTED);
        p->finished_us = now;
        gs_cluster_pod_event(c, pi, "Rejected", p->message);
        return pi;
    }
    struct gs_watch_event ev = gs_watch_init(GS_W_POD_CREATED);
    ev.pod = pi;
    ev.workload = spec->workload;
    gs_cluster_watch(c, &ev);
    if (tmpl->node_name) {
        /* spec.nodeName: bound directly, the scheduler is skipped (no Scheduled row), the
         * kubelet admits it. */
        p = &w->pods[pi];
        int ni = gs_world_find_node(w, tmpl->node_name);
        if (ni >= 0 && w->nodes[ni].exists) {
            gs_world_assign(w, pi, ni);
            p->scheduled_us = now;
            struct gs_watch_event b = gs_watch_init(GS_W_POD_BOUND);
            b.pod = pi;
            b.node = ni;
            gs_cluster_watch(c, &b);
            gs_cluster_at(c, now + start_latency(c, pi), GS_PRIO_START, GS_EV_POD_START, pi, 0);
        } else {
            p->message = gs_arena_printf(&w->arena, "node \"%s\" not found", tmpl->node_name);
        }
    }
    return pi;
}

void gs_cluster_assume(struct gs_cluster *c, int pi, int ni)
{
    gs_world_assign(c->w, pi, ni);
}

void gs_cluster_set_permit_waiting(struct gs_cluster *c, int pi, bool waiting)
{
    c->w->pods[pi].permit_waiting = waiting;
}

void gs_cluster_forget(struct gs_cluster *c, int pi)
{
    c->w->pods[pi].permit_waiting = false;
    gs_world_unassign(c->w, pi);
}

void gs_cluster_bind(struct gs_cluster *c, int pi, int ni, int share_gpu)
{
    struct gs_world *w = c->w;
    struct gs_pod *p = &w->pods[pi];
    gs_time now = gs_cluster_now(c);
    if (ni >= 0)
        gs_world_assign(w, pi, ni);
    ni = p->node;
    gs_cluster_dra_bound(c, pi, ni); /* the device plugin's GPUs in DRA's ledger */
    p = &w->pods[pi];
    p->permit_waiting = false;
    p->scheduled_us = now;
    p->message = NULL;
    p->nominated_node = -1;
    c->pods_scheduled++;
    char msg[600];
    snprintf(msg, sizeof msg, "Successfully assigned default/%s to %s", p->name, w->nodes[ni].name);
    gs_cluster_pod_event(c, pi, "Scheduled", msg);
    gs_cluster_dra_trace_devices(c, pi); /* the devices of its claims */
    struct gs_watch_event ev = gs_watch_init(GS_W_POD_BOUND);
    ev.pod = pi;
    ev.node = ni;
    ev.scheduled = true;
    ev.share_gpu = share_gpu;
    gs_cluster_watch(c, &ev);
    gs_cluster_at(c, now + start_latency(c, pi), GS_PRIO_START, GS_EV_POD_START, pi, 0);
}

void gs_cluster_unschedulable(struct gs_cluster *c, int pi, const char *message)
{
    struct gs_pod *p = &c->w->pods[pi];
    /* A pod retried without any change keeps getting the same text: compare before hashing it
     * into the intern table. */
    if (!p->message || strcmp(p->message, message) != 0) {
        p->message = gs_intern(&c->messages, message);
        if (!p->message)
            gs_cluster_fail(c, GS_ENOMEM);
    }
    gs_cluster_pod_event(c, pi, "FailedScheduling", p->message);
}

void gs_cluster_nominate(struct gs_cluster *c, int pi, int ni)
{
    c->w->pods[pi].nominated_node = ni;
}

void gs_cluster_preempt(struct gs_cluster *c, int vi, int by, int ni)
{
    struct gs_world *w = c->w;
    struct gs_pod *v = &w->pods[vi];
    if (v->terminating)
        return;
    v->terminating = true;
    v->preempted_by = by;
    char msg[600];
    snprintf(msg, sizeof msg, "Preempted by pod default/%s on node %s", w->pods[by].name, w->nodes[ni].name);
    gs_cluster_pod_event(c, vi, "Preempted", msg);
    gs_cluster_at(c, gs_cluster_now(c) + v->tmpl->termination_grace_us, GS_PRIO_TERMINATE, GS_EV_POD_GONE, vi, 1);
}

/* ------------------------------------------------------------------ ending */

/* Pod `pi` ends in phase `ph`: its controllers let go (POD_STOPPING), it leaves its node, its
 * rows are written, then POD_TERMINATED (after CLUSTER_EVENT AssignedPodDelete when it held
 * resources). */
static void end_pod(struct gs_cluster *c, int pi, enum gs_phase ph, const char *reason, const char *msg,
                    enum gs_delete_cause cause)
{
    struct gs_world *w = c->w;
    struct gs_pod *p = &w->pods[pi];
    gs_event_handle *finish = gs_intmap_get(&c->finish_ev, pi);
    if (finish) {
        gs_cluster_cancel(c, finish);
        gs_intmap_del(&c->finish_ev, pi);
    }
    p->permit_waiting = false;
    bool held = p->node >= 0;
    struct gs_watch_event ev = gs_watch_init(GS_W_POD_STOPPING);
    ev.pod = pi;
    ev.node = p->node;
    ev.workload = p->workload;
    ev.cause = cause;
    gs_cluster_watch(c, &ev);
    gs_world_unassign(w, pi);
    set_phase(c, pi, ph);
    p = &w->pods[pi];
    p->finished_us = gs_cluster_now(c);
    gs_cluster_pod_event(c, pi, reason, msg);
    gs_cluster_pod_row(c, pi);
    if (held)
        gs_cluster_notify(c, GS_CE_ASSIGNED_POD_DELETE);
    ev.type = GS_W_POD_TERMINATED;
    ev.node = -1;
    ev.held = held;
    ev.outcome = ph == GS_PHASE_SUCCEEDED ? GS_OUT_SUCCEEDED : GS_OUT_FAILED;
    gs_cluster_watch(c, &ev);
}

static void finished(struct gs_cluster *c, int pi, enum gs_pod_outcome out, enum gs_delete_cause cause,
                     bool was_active, bool recreate)
{
    struct gs_watch_event ev = gs_watch_init(GS_W_POD_FINISHED);
    ev.pod = pi;
    ev.workload = c->w->pods[pi].workload;
    ev.outcome = out;
    ev.cause = cause;
    ev.was_active = was_active;
    ev.recreate = recreate;
    gs_cluster_watch(c, &ev);
}

void gs_cluster_pod_finish(struct gs_cluster *c, int pi)
{
    gs_intmap_del(&c->finish_ev, pi); /* the event is this one */
    end_pod(c, pi, GS_PHASE_SUCCEEDED, "Completed", NULL, GS_DEL_API);
    finished(c, pi, GS_OUT_SUCCEEDED, GS_DEL_API, false, false);
}

void gs_cluster_delete_pod(struct gs_cluster *c, int pi, enum gs_delete_cause cause, const char *reason,
                           const char *msg)
{
    struct gs_world *w = c->w;
    struct gs_pod *p = &w->pods[pi];
    if (p->deleted)
        return;
    /* A ReplicaSet-style owner re-creates an evicted pod of a plain workload; bare Pod
     * manifests, pods pinned with nodeName and PodGroup members are not re-created. */
    bool recreate = cause == GS_DEL_EVICTED && p->workload >= 0 &&
                    w->workloads[p->workload].kind == GS_WL_PLAIN && p->group < 0 && !p->tmpl->node_name;
    bool was_active = p->phase == GS_PHASE_PENDING || p->phase == GS_PHASE_RUNNING;
    end_pod(c, pi, p->phase == GS_PHASE_RUNNING ? GS_PHASE_FAILED : p->phase, reason, msg, cause);
    p = &w->pods[pi];
    c->phase_count[p->phase]--;
    p->deleted = true;
    gs_cluster_pod_row(c, pi);
    finished(c, pi, GS_OUT_DELETED, cause, was_active, recreate);
}

void gs_cluster_fail_pod(struct gs_cluster *c, int pi, const char *reason, const char *msg)
{
    struct gs_pod *p = &c->w->pods[pi];
    p->reason = reason;
    p->message = gs_arena_strdup(&c->w->arena, msg);
    end_pod(c, pi, GS_PHASE_FAILED, reason, msg, GS_DEL_API);
    finished(c, pi, GS_OUT_FAILED, GS_DEL_API, true, false);
}

void gs_cluster_terminate_pod(struct gs_cluster *c, int pi, enum gs_delete_cause cause, const char *reason,
                              const char *msg)
{
    struct gs_pod *p = &c->w->pods[pi];
    if (p->deleted || p->terminating)
        return;
    if (p->node < 0 || p->tmpl->termination_grace_us <= 0) {
        gs_cluster_delete_pod(c, pi, cause, reason, msg);
        return;
    }
    p->terminating = true;
    gs_cluster_pod_event(c, pi, "Killing", msg ? msg : "Stopping container");
    gs_cluster_at(c, gs_cluster_now(c) + p->tmpl->termination_grace_us, GS_PRIO_TERMINATE, GS_EV_POD_GONE, pi,
                  cause == GS_DEL_EVICTED);
}

void gs_cluster_pod_gone(struct gs_cluster *c, int pi, bool eviction)
{
    gs_cluster_delete_pod(c, pi, eviction ? GS_DEL_EVICTED : GS_DEL_API, "Deleted", "graceful termination completed");
}

void gs_cluster_evict_node_pods(struct gs_cluster *c, int ni, bool gpu_only, const char *msg)
{
    struct gs_world *w = c->w;
    int cnt = 0;
    for (int q = w->nodes[ni].first_pod; q >= 0; q = w->pods[q].next_on_node)
        cnt++;
    if (cnt == 0)
        return;
    int *list = gs_malloc(sizeof *list * (size_t)cnt);
    if (!list) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    int k = 0;
    for (int q = w->nodes[ni].first_pod; q >= 0 && k < cnt; q = w->pods[q].next_on_node)
        list[k++] = q;
    for (int i = 0; i < k; i++) {
        const struct gs_pod *p = &w->pods[list[i]];
        if (p->deleted)
            continue;
        if (gpu_only && (c->gpu_res < 0 || (p->tmpl->requests.v[c->gpu_res] <= 0 && p->tmpl->limits.v[c->gpu_res] <= 0)))
            continue;
        gs_cluster_delete_pod(c, list[i], GS_DEL_EVICTED, "Evicted", msg);
    }
    gs_free(list);
}

/* ------------------------------------------------------------------ the kubelet */

void gs_cluster_pod_start(struct gs_cluster *c, int pi)
{
    struct gs_pod *p = &c->w->pods[pi];
    if (p->deleted || p->phase != GS_PHASE_PENDING || p->node < 0)
        return;
    /* Kubelet admission (the device manager's Allocate check). */
    for (int i = 0; i < c->nctl; i++)
        if (c->state[i] && c->ctl[i]->admit_pod && !c->ctl[i]->admit_pod(c->state[i], c, pi))
            return;
    gs_time now = gs_cluster_now(c);
    set_phase(c, pi, GS_PHASE_RUNNING);
    p = &c->w->pods[pi];
    p->started_us = now;
    gs_cluster_pod_event(c, pi, "Started", NULL);
    struct gs_watch_event ev = gs_watch_init(GS_W_POD_STARTED);
    ev.pod = pi;
    ev.workload = p->workload;
    gs_cluster_watch(c, &ev);
    p = &c->w->pods[pi];
    if (p->duration_us >= 0) {
        gs_event_handle *finish;
        int rc = gs_intmap_put(&c->finish_ev, pi, (void **)&finish, NULL);
        if (rc) {
            gs_cluster_fail(c, rc);
            return;
        }
        *finish = gs_cluster_at(c, now + p->duration_us, GS_PRIO_TERMINATE, GS_EV_POD_FINISH, pi, 0);
    }
}
