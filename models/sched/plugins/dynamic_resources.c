/* DynamicResources: kubernetes pkg/scheduler/framework/plugins/dynamicresources/
 * dynamicresources.go (1.34: PreFilter, Filter, PostFilter, PreBind). Without the
 * DynamicResourceAllocation feature gate (cfg.dra_enabled) every point does nothing, as the
 * upstream plugin does when the gate is off.
 *
 * - PreFilter: a pod without spec.resourceClaims is skipped. Each claim must exist (a
 *   template's must have been created), not be being deleted, not be in use by 256 other pods
 *   when allocated, not be in the middle of an allocation, and its requests' device classes
 *   must exist; otherwise the pod is UnschedulableAndUnresolvable on every node with that
 *   reason (dra_state.h gs_dra_pod_prefilter). A request without a class is an Error.
 * - Filter: the pod's unallocated claims are allocated together from the node's ResourceSlice
 *   (devices of allocated claims and GPUs the device plugin holds count as taken), else
 *   "cannot allocate all claims"; an allocated claim on another node gives "resourceclaim not
 *   available on the node". Both are UnschedulableAndUnresolvable (statusUnschedulable), so
 *   DefaultPreemption counts the node as "not helpful". A CEL runtime error is an Error status:
 *   the attempt ends with `running "DynamicResources" filter plugin: <error>`.
 * - PostFilter: "no new claims to deallocate" without claims; with claims, an allocated claim
 *   unusable on the filtered nodes that no other pod reserves would be deallocated
 *   ("deallocation of ResourceClaim completed"), which gpusim never has (the controller
 *   deallocates a claim as its last user goes): "still not schedulable". Unschedulable.
 * - Reserve and PreBind: the allocation is written to the claims (status.allocation,
 *   status.reservedFor) by the caller's client at PreBind (gs_sched_client.claims_bind), which
 *   gpusim runs for every pod it binds: the run loop also keeps its GPU ledger between the
 *   device plugin and DRA there. There is no in-flight state between the two points, since
 *   gpusim binds at once, so Reserve has nothing to do.
 * The filter reads the DRA state (claims, slices) that the run loop changes between cycles
 * (GS_PLF_CLUSTER_FILTER): a pod with claims never uses the template summaries (cache.c), whose
 * verdicts assume the answer depends only on the template and the node.
 */
#include <stdio.h>

#include "models/dra/dra_state.h"
#include "models/sched/sched_internal.h"

void gs_sched_set_dra(struct gs_sched *s, const struct gs_dra_state *dra)
{
    s->dra = dra;
}

int gs_sched_dra_prefilter(struct gs_sched *s, struct gs_podctx *pc)
{
    pc->dra = false;
    pc->ndra = 0;
    if (!s->dra || !pc->t->claims || pc->t->claims->n == 0 || !s->cfg.dra_enabled)
        return 0;
    char reason[sizeof s->dra_msg];
    int rc = gs_dra_pod_prefilter(s->dra, s->w, pc->pod, pc->dra_claims, &pc->ndra, reason, sizeof reason);
    if (rc == 0) {
        pc->dra = pc->ndra > 0;
        return 0;
    }
    snprintf(s->dra_msg, sizeof s->dra_msg, "%s", reason);
    return rc;
}

static void pre_filter(struct gs_sched *s, struct gs_podctx *pc, struct gs_prefilter_status *st)
{
    if (!s->dra || !pc->t->claims || pc->t->claims->n == 0) {
        st->code = GS_ST_SKIP; /* no claims: the pod is none of this plugin's business */
        return;
    }
    int rc = gs_sched_dra_prefilter(s, pc);
    if (rc == 1) {
        st->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
        st->kind = GS_R_DRA_CANNOT_ALLOCATE;
        st->msg = s->dra_msg;
    } else if (rc == 2) {
        st->code = GS_ST_ERROR;
        st->msg = s->dra_msg;
    } else if (!pc->dra) {
        st->code = GS_ST_SKIP; /* no claims: the pod is none of this plugin's business */
    } else {
        s->dra_claims = true;
    }
}

static void filter(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                   struct gs_fstat *st)
{
    (void)adj; /* 1.34 does not consider the claims of preemption victims */
    if (!pc->dra || !s->dra)
        return;
    char err[512];
    enum gs_dra_filter_result r =
        gs_dra_pod_filter(s->dra, s->w, pc->dra_claims, pc->ndra, node, NULL, NULL, err, sizeof err);
    switch (r) {
    case GS_DRA_FIT:
        return;
    case GS_DRA_NOMEM:
        s->oom = true; /* the cycle's result is "out of memory" */
        return;
    case GS_DRA_ERROR:
        st->code = GS_ST_ERROR;
        st->plugin = GS_PL_DYNAMIC_RESOURCES;
        st->kind = GS_R_NONE;
        if (!s->filter_error) {
            gs_dra_filter_error(s->filter_error_msg, sizeof s->filter_error_msg, err);
            s->filter_error_plugin = GS_PL_DYNAMIC_RESOURCES;
            s->filter_error = true;
        }
        return;
    case GS_DRA_NOT_AVAILABLE:
    case GS_DRA_CANNOT_ALLOCATE:
        st->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
        st->plugin = GS_PL_DYNAMIC_RESOURCES;
        st->kind = r == GS_DRA_NOT_AVAILABLE ? GS_R_DRA_NOT_AVAILABLE : GS_R_DRA_CANNOT_ALLOCATE;
        return;
    }
}

enum { OUTCOME_NO_CLAIMS = 1, OUTCOME_STILL = 2 };

static void post_filter(struct gs_sched *s, const struct gs_podctx *pc, struct gs_cycle_result *out,
                        struct gs_postfilter_status *st)
{
    (void)pc;
    (void)out;
    if (!s->cfg.dra_enabled)
        return;
    st->outcome = s->dra_claims ? OUTCOME_STILL : OUTCOME_NO_CLAIMS;
}

static void post_filter_text(struct gs_sched *s, const struct gs_podctx *pc, int outcome)
{
    (void)pc;
    gs_msg_add(s, outcome == OUTCOME_STILL ? GS_MSG_DRA_STILL : GS_MSG_NO_CLAIMS);
}

static enum gs_status_code pre_bind(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c)
{
    if (!s->cfg.dra_enabled || !c || !c->claims_bind)
        return GS_ST_SUCCESS;
    return c->claims_bind(c->ctx, pod, node) == 0 ? GS_ST_SUCCESS : GS_ST_ERROR;
}

const struct gs_sched_plugin gs_plugin_dynamic_resources = {
    .name = "DynamicResources",
    .id = GS_PL_DYNAMIC_RESOURCES,
    .points = GS_EP_BIT(GS_EP_PRE_ENQUEUE) | GS_EP_BIT(GS_EP_PRE_FILTER) | GS_EP_BIT(GS_EP_FILTER) |
              GS_EP_BIT(GS_EP_POST_FILTER) | GS_EP_BIT(GS_EP_PRE_SCORE) | GS_EP_BIT(GS_EP_SCORE) |
              GS_EP_BIT(GS_EP_RESERVE) | GS_EP_BIT(GS_EP_PRE_BIND),
    .flags = GS_PLF_CLUSTER_FILTER,
    .pre_filter = pre_filter,
    .filter = filter,
    .post_filter = post_filter,
    .post_filter_text = post_filter_text,
    .pre_bind = pre_bind,
};
