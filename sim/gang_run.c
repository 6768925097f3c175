/* PodGroups in the run loop: the Coscheduling plugin's Permit (reserved pods wait for their
 * siblings, a timeout or a PostFilter rejection releases them) and gang admission (a group
 * placed all at once or not at all). The plugin's rules are in models/admission/gang.c.
 *
 * Upstream: kubernetes-sigs/scheduler-plugins pkg/coscheduling/coscheduling.go (Permit: Wait
 * with GetWaitTimeDuration and Activate the siblings; Unreserve and PostFilter: reject the
 * waiting siblings; podGroupBackoff), kubernetes pkg/scheduler/framework/runtime/
 * waiting_pods_map.go (the timeout text), pkg/scheduler/schedule_one.go handleBindingCycleError
 * (an Unreserved pod goes back to the queue and its release is an AssignedPodDelete event). */
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "models/admission/gang.h"
#include "sim/run_state.h"

/* A waiting pod is rejected: Unreserve (resources released), FailedScheduling with `message`,
 * back to the unschedulable pool (Coscheduling events requeue it). */
static void reject_one(struct gs_runner *r, int pi, const char *message)
{
    struct gs_pod *p = &r->w->pods[pi];
    gs_run_cancel(r, &p->permit_ev);
    p->permit_waiting = false;
    gs_world_unassign(r->w, pi);
    gs_run_unschedulable(r, pi, message, 1u << GS_PL_COSCHEDULING);
}

static void backoff_group(struct gs_runner *r, int gi)
{
    gs_time b = r->sc->sched.pg_backoff_us;
    if (b > 0)
        r->w->groups[gi].backoff_until = gs_engine_now(r->eng) + b;
}

void gs_gang_run_reject_waiting(struct gs_runner *r, int gi, const char *message)
{
    if (gi < 0)
        return;
    bool any = false;
    for (int i = r->w->groups[gi].first_pod; i >= 0; i = r->w->pods[i].next_in_group)
        if (r->w->pods[i].permit_waiting) {
            reject_one(r, i, message);
            any = true;
        }
    backoff_group(r, gi);
    if (any)
        gs_run_cluster_event(r, GS_CE_ASSIGNED_POD_DELETE);
}

void gs_gang_run_reserve(struct gs_runner *r, int pi, int ni)
{
    struct gs_world *w = r->w;
    struct gs_pod *p = &w->pods[pi];
    gs_world_assign(w, pi, ni);
    int gi = p->group;
    if (gs_gang_permit(w, pi)) {
        /* Success: this pod binds and every waiting sibling is allowed. */
        gs_run_bind(r, pi, -1);
        for (int i = w->groups[gi].first_pod; i >= 0; i = w->pods[i].next_in_group)
            if (w->pods[i].permit_waiting)
                gs_run_bind(r, i, -1);
        return;
    }
    /* Wait: keep the reservation until the siblings come or the wait times out; bring the
     * siblings forward in the queue (Handle.Activate). */
    p->permit_waiting = true;
    gs_time wait = gs_gang_wait_time(w, gi, r->sc->sched.permit_wait_us);
    p->permit_ev = gs_run_at(r, gs_engine_now(r->eng) + wait, GS_PRIO_QUEUE, GS_EV_PERMIT_TIMEOUT, pi, wait);
    gs_run_pod_event(r, pi, "WaitingOnPermit", NULL);
    for (int i = w->groups[gi].first_pod; i >= 0; i = w->pods[i].next_in_group)
        if (i != pi && gs_queue_activate(r->queue, i, gs_engine_now(r->eng)))
            r->err = GS_ENOMEM;
}

void gs_gang_run_on_timeout(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct gs_runner *r = ctx;
    int pi = (int)ev->a;
    struct gs_pod *p = &r->w->pods[pi];
    p->permit_ev = 0;
    if (!p->permit_waiting)
        return;
    char msg[160];
    reject_one(r, pi, gs_gang_timeout_message(ev->b, msg, sizeof msg));
    /* Unreserve of the timed-out pod rejects the rest of the group. */
    gs_gang_run_reject_waiting(r, p->group, GS_GANG_MSG_UNRESERVE_REJECT);
    gs_run_cluster_event(r, GS_CE_ASSIGNED_POD_DELETE);
}

/* Pending members of group `gi` that the scheduler still has to place, `first` leading. */
static int members(struct gs_runner *r, int gi, int first, int *out, int cap)
{
    int n = 0;
    out[n++] = first;
    for (int i = r->w->groups[gi].first_pod; i >= 0 && n < cap; i = r->w->pods[i].next_in_group) {
        const struct gs_pod *q = &r->w->pods[i];
        if (i != first && !q->deleted && q->phase == GS_PHASE_PENDING && q->node < 0 && q->qstate != GS_Q_NONE)
            out[n++] = i;
    }
    return n;
}

void gs_gang_run_group_cycle(struct gs_runner *r, int pi)
{
    struct gs_world *w = r->w;
    int gi = w->pods[pi].group;
    const struct gs_group *g = &w->groups[gi];
    int cap = g->npods;
    int *m = gs_malloc(sizeof *m * (size_t)cap);
    int *placed = gs_malloc(sizeof *placed * (size_t)cap);
    if (!m || !placed) {
        gs_free(m);
        gs_free(placed);
        r->err = GS_ENOMEM;
        return;
    }
    int n = members(r, gi, pi, m, cap);
    int nplaced = 0, failed = -1;
    struct gs_cycle_result res;
    /* Each member in turn, the ones before it assumed on their nodes. */
    for (int k = 0; k < n; k++) {
        gs_sched_cycle(r->sched, m[k], &res);
        r->cycles++;
        if (res.node < 0) {
            failed = m[k];
            break;
        }
        gs_world_assign(w, m[k], res.node);
        placed[nplaced++] = m[k];
    }
    int assigned = gs_gang_assigned(w, gi);
    if (failed == pi) {
        /* The popped member itself does not fit (or too few siblings exist yet): nothing was
         * assumed; the others keep their own turn in the queue. */
        gs_run_failed(r, pi, &res);
    } else if (failed < 0 || assigned >= g->min_member) {
        /* The group holds minMember pods: every placed member binds; a member that did not
         * fit stays in the queue and is tried with the next cycle of the group. */
        for (int k = 0; k < nplaced; k++) {
            gs_queue_remove(r->queue, placed[k]);
            gs_run_bind(r, placed[k], -1);
        }
        if (failed >= 0)
            gs_run_failed(r, failed, &res);
    } else {
        /* All or nothing: release every assumed member; the whole group waits with the text of
         * the member that did not fit (it names the member and the group). */
        for (int k = 0; k < nplaced; k++)
            gs_world_unassign(w, placed[k]);
        uint32_t plugins = res.unsched_plugins;
        gs_run_failed(r, failed, &res);
        const char *kept = w->pods[failed].message; /* the interned text */
        for (int k = 0; k < n; k++)
            if (m[k] != failed) {
                gs_queue_remove(r->queue, m[k]);
                gs_run_unschedulable(r, m[k], kept, plugins);
            }
    }
    gs_free(m);
    gs_free(placed);
}
