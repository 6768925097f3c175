/* NodeResourcesFit score: kubernetes pkg/scheduler/framework/plugins/noderesources/
 * resource_allocation.go (score, calculateResourceAllocatableRequest), least_allocated.go,
 * most_allocated.go, requested_to_capacity_ratio.go and helper/shape_score.go.
 *
 * For every configured resource (cfg.score_res with weights):
 * - cpu and memory: requested = the node's non-zero requests (100m / 200Mi per container
 *   without a request) + the pod's non-zero request;
 * - ephemeral-storage: the node's actual requests + the pod's;
 * - an extended resource the pod does not request is skipped, as is any resource whose node
 *   allocatable is 0 (its weight does not count); "pods" is never scored.
 * LeastAllocated: (alloc − req) × 100 / alloc, 0 when req > alloc; MostAllocated:
 * min(req, alloc) × 100 / alloc; both averaged as Σ score × w / Σ w (integer division).
 * RequestedToCapacityRatio: u = req × 100 / alloc (100 when req > alloc), the broken-linear
 * shape (scores × 10), only resources with a positive score enter the mean, which is rounded
 * half away from zero (math.Round). No NormalizeScore.
 */
#include <math.h>

#include "models/sched/sched_internal.h"

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

int64_t gs_score_resource_fit(const struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n)
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
