/* PodGroups in the scheduler controller: Reserve and Permit (reserved pods wait for their
 * siblings; a timeout or a PostFilter rejection releases them) and gang admission (a group
 * placed all at once or not at all; models/admission/gang.c).
 *
 * The plugins decide (models/sched/plugins/coscheduling.c: Permit waits for the siblings and
 * activates them, Unreserve and PostFilter reject the waiting siblings, the PodGroup backoff);
 * this file keeps the waiting pods (their timers, their resources) as the framework's
 * waitingPods map does: kubernetes pkg/scheduler/framework/runtime/waiting_pods_map.go (the
 * timeout text), pkg/scheduler/schedule_one.go handleBindingCycleError (an Unreserved pod goes
 * back to the queue and its release is an AssignedPodDelete event). */
#include <stdio.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/admission/gang.h"
#include "sim/controllers/scheduler.h"

void gs_scheduler_reject_waiting(struct scheduler *s, struct gs_cluster *c, int g, const char *message)
{
    struct gs_world *w = c->w;
    if (g < 0)
        return;
    bool any = false;
    for (int i = w->groups[g].first_pod; i >= 0; i = w->pods[i].next_in_group)
        if (w->pods[i].permit_waiting) {
            gs_scheduler_reject_one(s, c, i, message, 1u << GS_PL_COSCHEDULING);
            any = true;
        }
    if (any)
        gs_cluster_notify(c, GS_CE_ASSIGNED_POD_DELETE);
}

void gs_scheduler_reserve(struct scheduler *s, struct gs_cluster *c, int p, int n)
{
    struct gs_world *w = c->w;
    gs_cluster_assume(c, p, n);
    struct gs_permit_result pr;
    if (gs_sched_reserve(s->sched, p, n, &s->client) == GS_ST_SUCCESS)
        gs_sched_permit(s->sched, p, n, &s->client, &pr);
    else
        pr = (struct gs_permit_result){.code = GS_PERMIT_REJECT, .plugin = GS_PL_COUNT, .message = "reserve failed"};
    if (gs_sched_out_of_memory(s->sched))
        gs_cluster_fail(c, GS_ENOMEM);
    switch (pr.code) {
    case GS_PERMIT_ALLOW: {
        gs_scheduler_bind(s, c, p, -1);
        int g = w->pods[p].group;
        if (pr.allow_siblings && g >= 0)
            for (int i = w->groups[g].first_pod; i >= 0; i = w->pods[i].next_in_group)
                if (w->pods[i].permit_waiting)
                    gs_scheduler_bind(s, c, i, -1);
        break;
    }
    case GS_PERMIT_WAIT:
        /* Keep the reservation until the siblings come or the wait times out (the plugin has
         * brought the siblings forward in the queue through the client's activate). */
        gs_cluster_set_permit_waiting(c, p, true);
        if (GS_GROW_ZERO(s->permit_ev, s->permit_cap, w->npods)) {
            gs_cluster_fail(c, GS_ENOMEM);
            return;
        }
        s->permit_ev[p] = gs_cluster_timer(c, s->self, gs_cluster_now(c) + pr.wait_us, GS_PRIO_QUEUE,
                                           SCHED_TIMER_PERMIT, p, pr.wait_us, false);
        {
            /* The node it holds, first, as the device rows name theirs: the trace then says
             * where its reservation is (reports/history.c reads it). */
            char msg[300];
            snprintf(msg, sizeof msg, "%s: reserved, waiting at Permit for the rest of PodGroup %s", w->nodes[n].name,
                     w->pods[p].group >= 0 ? w->groups[w->pods[p].group].name : "(none)");
            gs_cluster_pod_event(c, p, "WaitingOnPermit", msg);
        }
        break;
    case GS_PERMIT_REJECT:
        gs_sched_unreserve(s->sched, p, n, gs_cluster_now(c), &s->client);
        if (gs_sched_out_of_memory(s->sched))
            gs_cluster_fail(c, GS_ENOMEM);
        gs_cluster_forget(c, p);
        gs_scheduler_unschedulable(s, c, p, pr.message ? pr.message : "rejected at Permit",
                                   pr.plugin < GS_PL_COUNT ? 1u << pr.plugin : 0);
        break;
    }
}

void gs_scheduler_permit_timeout(struct scheduler *s, struct gs_cluster *c, int p, gs_time waited)
{
    if (!c->w->pods[p].permit_waiting)
        return;
    char msg[160];
    int n = c->w->pods[p].node;
    gs_scheduler_reject_one(s, c, p, gs_gang_timeout_message(waited, msg, sizeof msg), 1u << GS_PL_COSCHEDULING);
    /* Unreserve of the timed-out pod (Coscheduling: the rest of the group is rejected). */
    int before = s->rejected_waiting;
    gs_sched_unreserve(s->sched, p, n, gs_cluster_now(c), &s->client);
    if (gs_sched_out_of_memory(s->sched))
        gs_cluster_fail(c, GS_ENOMEM);
    if (s->rejected_waiting != before)
        gs_cluster_notify(c, GS_CE_ASSIGNED_POD_DELETE);
    gs_cluster_notify(c, GS_CE_ASSIGNED_POD_DELETE);
}

/* Pending members of group `g` that the scheduler still has to place, `first` leading. */
static int members(const struct scheduler *s, struct gs_cluster *c, int g, int first, int *out, int cap)
{
    const struct gs_world *w = c->w;
    int n = 0;
    out[n++] = first;
    for (int i = w->groups[g].first_pod; i >= 0 && n < cap; i = w->pods[i].next_in_group) {
        const struct gs_pod *q = &w->pods[i];
        if (i != first && !q->deleted && q->phase == GS_PHASE_PENDING && q->node < 0 &&
            gs_queue_state(s->queue, i) != GS_Q_NONE)
            out[n++] = i;
    }
    return n;
}

void gs_scheduler_group_cycle(struct scheduler *s, struct gs_cluster *c, int p)
{
    struct gs_world *w = c->w;
    int g = w->pods[p].group;
    int cap = w->groups[g].npods;
    int *m = gs_malloc(sizeof *m * (size_t)cap);
    int *placed = gs_malloc(sizeof *placed * (size_t)cap);
    if (!m || !placed) {
        gs_free(m);
        gs_free(placed);
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    int n = members(s, c, g, p, m, cap);
    int nplaced = 0, failed = -1;
    struct gs_cycle_result res;
    /* Each member in turn, the ones before it assumed on their nodes. */
    for (int k = 0; k < n; k++) {
        gs_sched_cycle(s->sched, m[k], &res);
        c->cycles++;
        if (res.oom) {
            for (int j = 0; j < nplaced; j++)
                gs_cluster_forget(c, placed[j]);
            gs_cluster_fail(c, GS_ENOMEM);
            gs_free(m);
            gs_free(placed);
            return;
        }
        if (res.node < 0) {
            failed = m[k];
            break;
        }
        gs_cluster_assume(c, m[k], res.node);
        placed[nplaced++] = m[k];
    }
    int assigned = gs_gang_assigned(w, g);
    if (failed == p) {
        /* The popped member itself does not fit (or too few siblings exist yet): nothing was
         * assumed; the others keep their own turn in the queue. */
        gs_scheduler_failed(s, c, p, &res);
    } else if (failed < 0 || assigned >= w->groups[g].min_member) {
        /* The group holds minMember pods: every placed member binds; a member that did not fit
         * stays in the queue and is tried with the next cycle of the group. */
        for (int k = 0; k < nplaced; k++) {
            gs_queue_remove(s->queue, placed[k]);
            gs_scheduler_bind(s, c, placed[k], -1);
        }
        if (failed >= 0)
            gs_scheduler_failed(s, c, failed, &res);
    } else {
        /* All or nothing: release every assumed member; the whole group waits with the text of
         * the member that did not fit (it names the member and the group). */
        for (int k = 0; k < nplaced; k++)
            gs_cluster_forget(c, placed[k]);
        uint32_t plugins = res.unsched_plugins;
        gs_scheduler_failed(s, c, failed, &res);
        const char *kept = w->pods[failed].message; /* the interned text */
        for (int k = 0; k < n; k++)
            if (m[k] != failed) {
                gs_queue_remove(s->queue, m[k]);
                gs_scheduler_unschedulable(s, c, m[k], kept, plugins);
            }
    }
    gs_free(m);
    gs_free(placed);
}
