/* DynamicResources: kubernetes pkg/scheduler/framework/plugins/dynamicresources/
 * dynamicresources.go (1.34: PreFilter, Filter; PostFilter's text is in framework.c).
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
 * The filter reads the DRA state (claims, slices) that the run loop changes between cycles:
 * a pod with claims never uses the template summaries (cache.c), whose verdicts assume the
 * answer depends only on the template and the node.
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
    const struct gs_sched_config *c = &s->cfg;
    if (!s->dra || !pc->t->claims || pc->t->claims->n == 0 || !c->dra_enabled ||
        !c->filter_enabled[GS_PL_DYNAMIC_RESOURCES])
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

void gs_filter_dynamic_resources(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                                 const struct gs_adj *adj, struct gs_fstat *st)
{
    (void)adj; /* 1.34 does not consider the claims of preemption victims */
    if (!pc->dra || !s->dra)
        return;
    int node = (int)(n - s->w->nodes);
    char err[512];
    enum gs_dra_filter_result r =
        gs_dra_pod_filter(s->dra, s->w, pc->dra_claims, pc->ndra, node, NULL, NULL, err, sizeof err);
    switch (r) {
    case GS_DRA_FIT:
        return;
    case GS_DRA_ERROR:
        st->code = GS_ST_ERROR;
        st->plugin = GS_PL_DYNAMIC_RESOURCES;
        st->kind = GS_R_NONE;
        if (!s->dra_error) {
            gs_dra_filter_error(s->dra_msg, sizeof s->dra_msg, err);
            s->dra_error = true;
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
