/* NodeResourcesFit filter: kubernetes pkg/scheduler/framework/plugins/noderesources/fit.go
 * (Filter, fitsRequest).
 *
 * - "Too many pods" when the pods on the node + 1 exceed its allocatable pods (checked even for
 *   a pod that requests nothing);
 * - a pod whose requests are all zero fits otherwise;
 * - then every resource with a request > 0 that exceeds allocatable − requested, in upstream
 *   order: cpu, memory, ephemeral-storage, then the extended (scalar) resources (upstream walks
 *   a Go map there, so their relative order is unspecified; gpusim uses the resource index);
 *   every insufficient resource is reported ("Insufficient <name>");
 * - the status is Unschedulable; from 1.34 (cfg.fit_unresolvable, kubernetes PR 131345) it is
 *   UnschedulableAndUnresolvable when some insufficient resource's request alone exceeds the
 *   node's allocatable, so preemption cannot help ("Too many pods" never makes it so).
 * `adj` adds nominated pods or removes preemption victims (pod count and requests).
 */
#include "../sched_internal.h"

void gs_filter_node_resources_fit(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                                  const struct gs_adj *adj, struct gs_fstat *st)
{
    uint64_t insuff = 0;
    bool unresolvable = false;
    int64_t npods = n->npods + (adj ? adj->npods : 0);
    if (npods + 1 > n->allocatable.v[GS_RES_PODS])
        insuff |= UINT64_C(1) << GS_RES_PODS;
    if (pc->requests_any) {
        const int64_t *req = pc->t->requests.v;
        for (int i = 0; i < pc->nreq; i++) {
            int r = pc->req_res[i];
            int64_t used = n->requested.v[r] + (adj ? adj->req.v[r] : 0);
            int64_t alloc = n->allocatable.v[r];
            if (req[r] > alloc - used) {
                insuff |= UINT64_C(1) << r;
                if (req[r] > alloc)
                    unresolvable = true;
            }
        }
    }
    if (!insuff)
        return;
    st->code = unresolvable && s->cfg.fit_unresolvable ? GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE
                                                        : GS_ST_UNSCHEDULABLE;
    st->plugin = GS_PL_NODE_RESOURCES_FIT;
    st->kind = GS_R_FIT;
    st->insuff = insuff;
}
