/* PodGroups in the run loop: pods waiting at Permit (reserved pods wait for their siblings, a
 * timeout or a PostFilter rejection releases them) and gang admission (a group placed all at
 * once or not at all). The Coscheduling plugin (Permit, Unreserve, the PodGroup backoff) is
 * models/sched/plugins/coscheduling.c, its rules models/admission/gang.c.
 *
 * Upstream: kubernetes pkg/scheduler/framework/runtime/waiting_pods_map.go (the timeout text),
 * pkg/scheduler/schedule_one.go handleBindingCycleError (an Unreserved pod goes back to the
 * queue and its release is an AssignedPodDelete event). */
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "models/admission/gang.h"
#include "sim/run_state.h"

void gs_gang_run_reject_one(struct gs_runner *r, int pi, const char *message, uint32_t plugins)
{
    struct gs_pod *p = &r->w->pods[pi];
    gs_run_cancel(r, &p->permit_ev);
    p->permit_waiting = false;
    gs_world_unassign(r->w, pi);
    gs_run_unschedulable(r, pi, message, plugins);
}

static void reject_one(struct gs_runner *r, int pi, const char *message)
{
    gs_gang_run_reject_one(r, pi, message, 1u << GS_PL_COSCHEDULING);
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
    if (any)
        gs_run_cluster_event(r, GS_CE_ASSIGNED_POD_DELETE);
}

void gs_gang_run_wait(struct gs_runner *r, int pi, gs_time wait)
{
    struct gs_pod *p = &r->w->pods[pi];
    p->permit_waiting = true;
    p->permit_ev = gs_run_at(r, gs_engine_now(r->eng) + wait, GS_PRIO_QUEUE, GS_EV_PERMIT_TIMEOUT, pi, wait);
    gs_run_pod_event(r, pi, "WaitingOnPermit", NULL);
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
    int ni = p->node;
    reject_one(r, pi, gs_gang_timeout_message(ev->b, msg, sizeof msg));
    /* Unreserve of the timed-out pod (Coscheduling: the rest of the group is rejected). */
    struct gs_sched_client c;
    gs_run_client(r, &c);
    int before = r->rejected_waiting;
    gs_sched_unreserve(r->sched, pi, ni, gs_engine_now(r->eng), &c);
    if (r->rejected_waiting != before)
        gs_run_cluster_event(r, GS_CE_ASSIGNED_POD_DELETE);
    gs_run_cluster_event(r, GS_CE_ASSIGNED_POD_DELETE);
}

/* Pending members of group `gi` that the scheduler still has to place, `first` leading. */
static int members(struct gs_runner *r, int gi, int first, int *out, int cap)
{
    int n = 0;
    out[n++] = first;
    for (int i = r->w->groups[gi].first_pod; i >= 0 && n < cap; i = r->w->pods[i].next_in_group) {
        const struct gs_pod *q = &r->w->pods[i];
        if (i != first && !q->deleted && q->phase == GS_PHASE_PENDING && q->node < 0 &&
            gs_queue_state(r->queue, i) != GS_Q_NONE)
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
