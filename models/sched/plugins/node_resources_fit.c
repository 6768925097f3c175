/* NodeResourcesFit: kubernetes pkg/scheduler/framework/plugins/noderesources/fit.go (PreFilter,
 * Filter, fitsRequest, PreScore, Score) with resource_allocation.go (score,
 * calculateResourceAllocatableRequest), least_allocated.go, most_allocated.go,
 * requested_to_capacity_ratio.go and helper/shape_score.go.
 *
 * Filter:
 * - "Too many pods" when the pods on the node + 1 exceed its allocatable pods (checked even for
 *   a pod that requests nothing);
 * - a pod whose requests are all zero fits otherwise;
 * - then every resource with a request > 0 that exceeds allocatable - requested, in upstream
 *   order: cpu, memory, ephemeral-storage, then the extended (scalar) resources (upstream walks
 *   a Go map there, so their relative order is unspecified; gpusim uses the resource index);
 *   NodeResourcesFitArgs ignoredResources / ignoredResourceGroups are left out (the pod's
 *   request list is built in framework.c gs_sched_podctx, its PreFilter state);
 *   every insufficient resource is reported ("Insufficient <name>");
 * - the status is Unschedulable; from 1.34 (cfg.fit_unresolvable, kubernetes PR 131345) it is
 *   UnschedulableAndUnresolvable when some insufficient resource's request alone exceeds the
 *   node's allocatable, so preemption cannot help ("Too many pods" never makes it so).
 * `adj` adds nominated pods or removes preemption victims (pod count and requests). The filter
 * reads the scheduler's flat copies of the node's room (cache.c), the cycle's hottest loop.
 *
 * Score, for every configured resource (cfg.score_res with weights):
 * - cpu and memory: requested = the node's non-zero requests (100m / 200Mi per container
 *   without a request) + the pod's non-zero request;
 * - ephemeral-storage: the node's actual requests + the pod's;
 * - an extended resource the pod does not request is skipped, as is any resource whose node
 *   allocatable is 0 (its weight does not count); "pods" is never scored.
 * LeastAllocated: (alloc - req) x 100 / alloc, 0 when req > alloc; MostAllocated:
 * min(req, alloc) x 100 / alloc; both averaged as sum score x w / sum w (integer division).
 * RequestedToCapacityRatio: u = req x 100 / alloc (100 when req > alloc), the broken-linear
 * shape (scores x 10), only resources with a positive score enter the mean, which is rounded
 * half away from zero (math.Round). No NormalizeScore.
 */
#include <math.h>

#include "models/sched/sched_internal.h"

/* The status for a node short of the resources in mask `insuff` (nothing when 0). */
static inline void fit_status(const struct gs_sched *s, struct gs_fstat *st, uint64_t insuff, uint64_t unresolvable)
{
    if (!insuff)
        return;
    st->code = unresolvable && s->cfg.fit_unresolvable ? GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE
                                                        : GS_ST_UNSCHEDULABLE;
    st->plugin = GS_PL_NODE_RESOURCES_FIT;
    st->kind = GS_R_FIT;
    st->insuff = insuff;
}

void gs_fit_filter(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                   struct gs_fstat *st)
{
    /* Without branches on the node's values: which resources fall short varies from node to node
     * and would be mispredicted. res[2r] = allocatable - requested, res[2r + 1] = allocatable. */
    const int64_t *res = &s->mres[(size_t)node * (size_t)s->mnres * 2];
    const int nreq = pc->requests_any ? pc->nreq : 0;
    uint64_t insuff, unresolvable = 0;
    if (!adj) {
        /* npods + 1 > allocatable, as room = allocatable - npods */
        insuff = (uint64_t)(1 > s->m[node].pods_room) << GS_RES_PODS;
        for (int i = 0; i < nreq; i++) {
            int r = pc->req_res[i];
            int64_t req = pc->req_val[i];
            uint64_t short_ = (uint64_t)(req > res[2 * r]);
            insuff |= short_ << r;
            unresolvable |= short_ & (uint64_t)(req > res[2 * r + 1]);
        }
    } else {
        insuff = (uint64_t)(adj->npods + 1 > s->m[node].pods_room) << GS_RES_PODS;
        for (int i = 0; i < nreq; i++) {
            int r = pc->req_res[i];
            int64_t req = pc->req_val[i];
            /* allocatable - (requested + adj) */
            uint64_t short_ = (uint64_t)(req > res[2 * r] - adj->req.v[r]);
            insuff |= short_ << r;
            unresolvable |= short_ & (uint64_t)(req > res[2 * r + 1]);
        }
    }
    if (insuff)
        fit_status(s, st, insuff, unresolvable);
}

/* calculateResourceAllocatableRequest; false when the resource is skipped. */
static bool alloc_req(const struct gs_node *n, int r, int64_t pod_req, int64_t *alloc, int64_t *req)
{
    switch (r) {
    case GS_RES_CPU:
        *alloc = n->allocatable.v[r];
        *req = n->nonzero_cpu + pod_req;
        break;
    case GS_RES_MEMORY:
        *alloc = n->allocatable.v[r];
        *req = n->nonzero_mem + pod_req;
        break;
    case GS_RES_EPHEMERAL:
        *alloc = n->allocatable.v[r];
        *req = n->requested.v[r] + pod_req;
        break;
    case GS_RES_PODS:
        return false;
    default:
        if (pod_req == 0)
            return false;
        *alloc = n->allocatable.v[r];
        *req = n->requested.v[r] + pod_req;
        break;
    }
    return *alloc != 0;
}

static int64_t least_requested(int64_t req, int64_t cap)
{
    if (cap == 0 || req > cap)
        return 0;
    return (cap - req) * 100 / cap;
}

static int64_t most_requested(int64_t req, int64_t cap)
{
    if (cap == 0)
        return 0;
    if (req > cap)
        req = cap;
    return req * 100 / cap;
}

/* helper.BuildBrokenLinearFunction over the shape scaled to 0..100. */
static int64_t shape_at(const struct gs_sched_config *c, int64_t p)
{
    for (int i = 0; i < c->nshape; i++) {
        if (p <= c->shape[i].utilization) {
            if (i == 0)
                return c->shape[0].score * 10;
            int64_t s0 = c->shape[i - 1].score * 10, s1 = c->shape[i].score * 10;
            int64_t u0 = c->shape[i - 1].utilization, u1 = c->shape[i].utilization;
            return s0 + (s1 - s0) * (p - u0) / (u1 - u0);
        }
    }
    return c->nshape ? c->shape[c->nshape - 1].score * 10 : 0;
}

static int64_t rtcr_resource(const struct gs_sched_config *c, int64_t req, int64_t cap)
{
    if (cap == 0 || req > cap)
        return shape_at(c, 100);
    return shape_at(c, req * 100 / cap);
}

static int64_t score_node(const struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n)
{
    const struct gs_sched_config *c = &s->cfg;
    int64_t sum = 0, wsum = 0;
    for (int i = 0; i < c->nscore_res; i++) {
        int64_t alloc, req;
        if (!alloc_req(n, c->score_res[i], pc->fit_req[i], &alloc, &req))
            continue;
        int64_t w = c->score_res_weight[i];
        int64_t sc;
        switch (c->strategy) {
        case GS_SCORE_MOST_ALLOCATED:
            sc = most_requested(req, alloc);
            break;
        case GS_SCORE_RTCR:
            sc = rtcr_resource(c, req, alloc);
            if (sc <= 0)
                continue;
            break;
        case GS_SCORE_LEAST_ALLOCATED:
        default:
            sc = least_requested(req, alloc);
            break;
        }
        sum += sc * w;
        wsum += w;
    }
    if (wsum == 0)
        return 0;
    if (c->strategy == GS_SCORE_RTCR)
        return (int64_t)round((double)sum / (double)wsum);
    return sum / wsum;
}

static void score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out)
{
    const struct gs_node *all = s->w->nodes;
    for (int i = 0; i < n; i++) {
        if (i + 8 < n) {
            /* The score reads a few cache lines of large node structs (and BalancedAllocation
             * reads them next): ask for them early. */
            const struct gs_node *ahead = &all[nodes[i + 8]];
            __builtin_prefetch(&ahead->allocatable.v[0]);
            __builtin_prefetch(&ahead->requested.v[0]);
            __builtin_prefetch(&ahead->nonzero_cpu);
        }
        out[i] = score_node(s, pc, &all[nodes[i]]);
    }
}

const struct gs_sched_plugin gs_plugin_node_resources_fit = {
    .name = "NodeResourcesFit",
    .id = GS_PL_NODE_RESOURCES_FIT,
    .points = GS_EP_BIT(GS_EP_PRE_FILTER) | GS_EP_BIT(GS_EP_FILTER) | GS_EP_BIT(GS_EP_PRE_SCORE) |
              GS_EP_BIT(GS_EP_SCORE),
    .filter = gs_fit_filter,
    .score = score,
};
