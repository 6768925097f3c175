/* Coscheduling: kubernetes-sigs/scheduler-plugins pkg/coscheduling/coscheduling.go (Less,
 * PreFilter, PostFilter, Permit, Reserve, Unreserve) with pkg/coscheduling/core/core.go
 * (PodGroupManager: PreFilter, Permit, GetCreationTimestamp, BackoffPodGroup,
 * ActivateSiblings). Out of tree. The PodGroup rules over the world are models/admission/gang.c;
 * this file is the plugin around them, and the PodGroup backoffs it keeps in memory
 * (pgMgr's backedOffPG: a restarted scheduler has none).
 *
 * - QueueSort: higher priority, then the earlier PodGroup creationTimestamp (a pod outside a
 *   group: its initial attempt, here its creation), then the smaller namespace/name of the group
 *   (or pod), which keeps siblings together.
 * - PreFilter: a backed-off group, or too few sibling pods: UnschedulableAndUnresolvable.
 * - PostFilter: when assigned < minMember and more than 10 % of minMember is missing, the group
 *   is rejected (the caller rejects its pods waiting at Permit: gs_cycle_result.reject_group),
 *   backed off for podGroupBackoffSeconds, and the text "PodGroup default/<g> gets rejected due
 *   to Pod <p> is unschedulable even after PostFilter" joins the PostFilter reasons.
 * - Permit: a pod outside a group is allowed; when the group holds minMember assigned pods, the
 *   pod and the group's waiting pods are allowed; else Wait for the PodGroup's
 *   scheduleTimeoutSeconds (or permitWaitingTimeSeconds) and the siblings are activated.
 * - Reserve: nothing. Unreserve: the group's pods waiting at Permit are rejected ("rejection in
 *   Unreserve") and the group backed off. */
#include <string.h>

#include "base/alloc.h"
#include "models/admission/gang.h"
#include "models/sched/sched_internal.h"

static int init(struct gs_sched *s)
{
    if (s->cs)
        return 0;
    s->cs = gs_calloc(1, sizeof *s->cs);
    return s->cs ? 0 : GS_ENOMEM;
}

static void fini(struct gs_sched *s)
{
    if (!s->cs)
        return;
    gs_free(s->cs->backoff_until);
    gs_free(s->cs);
    s->cs = NULL;
}

static gs_time backoff_of(const struct gs_sched *s, int gi)
{
    return gi >= 0 && gi < s->cs->cap ? s->cs->backoff_until[gi] : 0;
}

/* BackoffPodGroup (podGroupBackoffSeconds > 0). Out of memory: no backoff, and the scheduler's
 * out-of-memory flag (the cycle, or the run, fails). */
static void backoff_group(struct gs_sched *s, int gi, gs_time now)
{
    gs_time b = s->cfg.pg_backoff_us;
    if (b <= 0 || gi < 0)
        return;
    if (GS_GROW_ZERO(s->cs->backoff_until, s->cs->cap, gi + 1)) {
        s->oom = true;
        return;
    }
    s->cs->backoff_until[gi] = now + b;
}

static void sort_key(const struct gs_world *w, int pod, gs_time timestamp, struct gs_sort_key *key)
{
    (void)timestamp;
    const struct gs_pod *p = &w->pods[pod];
    key->k[0] = -(int64_t)p->tmpl->priority;
    key->k[1] = p->group >= 0 ? w->groups[p->group].created_us : p->created_us;
}

static int sort_tie(const struct gs_world *w, int a, int b)
{
    const struct gs_pod *pa = &w->pods[a], *pb = &w->pods[b];
    const char *ka = pa->group >= 0 ? w->groups[pa->group].name : pa->name;
    const char *kb = pb->group >= 0 ? w->groups[pb->group].name : pb->name;
    return strcmp(ka, kb);
}

static void pre_filter(struct gs_sched *s, struct gs_podctx *pc, struct gs_prefilter_status *st)
{
    int gi = s->w->pods[pc->pod].group;
    if (gi < 0)
        return;
    const char *why = gs_gang_prefilter(s->w, pc->pod, backoff_of(s, gi), s->now, s->cs->msg, sizeof s->cs->msg);
    if (!why)
        return;
    st->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
    st->kind = GS_R_AFFINITY;
    st->msg = why;
}

static void post_filter(struct gs_sched *s, const struct gs_podctx *pc, struct gs_cycle_result *out,
                        struct gs_postfilter_status *st)
{
    int gi = s->w->pods[pc->pod].group;
    if (gi < 0 || !gs_gang_postfilter(s->w, pc->pod, s->cs->post_msg, sizeof s->cs->post_msg))
        return;
    out->reject_group = true;
    backoff_group(s, gi, s->now);
    st->outcome = 1;
    st->pod_text = true;
}

static void post_filter_text(struct gs_sched *s, const struct gs_podctx *pc, int outcome)
{
    (void)pc;
    (void)outcome;
    gs_msg_add(s, s->cs->post_msg);
}

static void permit(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c,
                   struct gs_permit_result *out)
{
    (void)node;
    const struct gs_world *w = s->w;
    int gi = w->pods[pod].group;
    if (gi < 0)
        return;
    if (gs_gang_permit(w, pod)) {
        out->allow_siblings = true;
        return;
    }
    out->code = GS_PERMIT_WAIT;
    out->wait_us = gs_gang_wait_time(w, gi, s->cfg.permit_wait_us);
    /* ActivateSiblings: the group's other pods move to activeQ. */
    if (c && c->activate)
        for (int i = w->groups[gi].first_pod; i >= 0; i = w->pods[i].next_in_group)
            if (i != pod)
                c->activate(c->ctx, i);
}

static enum gs_status_code reserve(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c)
{
    (void)s;
    (void)pod;
    (void)node;
    (void)c;
    return GS_ST_SUCCESS;
}

static void unreserve(struct gs_sched *s, int pod, int node, gs_time now, const struct gs_sched_client *c)
{
    (void)node;
    const struct gs_world *w = s->w;
    int gi = w->pods[pod].group;
    if (gi < 0)
        return;
    if (c && c->reject_waiting)
        for (int i = w->groups[gi].first_pod; i >= 0; i = w->pods[i].next_in_group)
            if (w->pods[i].permit_waiting)
                c->reject_waiting(c->ctx, i, GS_PL_COSCHEDULING, GS_GANG_MSG_UNRESERVE_REJECT);
    backoff_group(s, gi, now);
}

const struct gs_sched_plugin gs_plugin_coscheduling = {
    .name = "Coscheduling",
    .id = GS_PL_COSCHEDULING,
    .points = GS_EP_BIT(GS_EP_QUEUE_SORT) | GS_EP_BIT(GS_EP_PRE_FILTER) | GS_EP_BIT(GS_EP_POST_FILTER) |
              GS_EP_BIT(GS_EP_PERMIT) | GS_EP_BIT(GS_EP_RESERVE),
    .flags = GS_PLF_OUT_OF_TREE,
    .init = init,
    .fini = fini,
    .sort_key = sort_key,
    .sort_tie = sort_tie,
    .pre_filter = pre_filter,
    .post_filter = post_filter,
    .post_filter_text = post_filter_text,
    .permit = permit,
    .reserve = reserve,
    .unreserve = unreserve,
};
