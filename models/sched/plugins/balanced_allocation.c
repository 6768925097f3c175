/* NodeResourcesBalancedAllocation (PreScore, Score): kubernetes pkg/scheduler/framework/plugins/
 * noderesources/balanced_allocation.go (PreScore, balancedResourceScorer) with
 * resource_allocation.go (useRequested = true).
 *
 * Over cfg.balanced_res (default cpu, memory), with *actual* requests (node requested + pod
 * request, no non-zero defaults); resources with allocatable 0 and extended resources the pod
 * does not request are skipped. fraction = min(1, req / alloc); two fractions: std =
 * |f1 − f2| / 2; more: population standard deviation; fewer: 0. score = int((1 − std) × 100).
 * From 1.33 (cfg.balanced_skip_best_effort, kubernetes PR 130260) PreScore returns Skip for a
 * pod whose requests of those resources are all zero. No NormalizeScore.
 */
#include <math.h>

#include "models/sched/sched_internal.h"

static int pre_score(struct gs_sched *s, struct gs_podctx *pc, const int *nodes, int n)
{
    (void)nodes;
    (void)n;
    if (!s->cfg.balanced_skip_best_effort)
        return 0;
    for (int i = 0; i < s->cfg.nbalanced_res; i++)
        if (pc->bal_req[i] != 0)
            return 0;
    return 1;
}

static int64_t score_node(const struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n)
{
    double frac[GS_SCHED_MAX_SCORE_RES];
    int nf = 0;
    double total = 0;
    for (int i = 0; i < s->cfg.nbalanced_res; i++) {
        int r = s->cfg.balanced_res[i];
        int64_t pod_req = pc->bal_req[i];
        if (r == GS_RES_PODS)
            continue;
        if (r >= GS_RES_FIXED && pod_req == 0)
            continue;
        int64_t alloc = n->allocatable.v[r];
        if (alloc == 0)
            continue;
        double f = (double)(n->requested.v[r] + pod_req) / (double)alloc;
        if (f > 1)
            f = 1;
        frac[nf++] = f;
        total += f;
    }
    double std = 0;
    if (nf == 2) {
        std = fabs((frac[0] - frac[1]) / 2);
    } else if (nf > 2) {
        double mean = total / nf, sum = 0;
        for (int i = 0; i < nf; i++)
            sum += (frac[i] - mean) * (frac[i] - mean);
        std = sqrt(sum / nf);
    }
    return (int64_t)((1 - std) * 100.0);
}

static void score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out)
{
    for (int i = 0; i < n; i++)
        out[i] = score_node(s, pc, &s->w->nodes[nodes[i]]);
}

const struct gs_sched_plugin gs_plugin_balanced_allocation = {
    .name = "NodeResourcesBalancedAllocation",
    .id = GS_PL_BALANCED_ALLOCATION,
    .points = GS_EP_BIT(GS_EP_PRE_SCORE) | GS_EP_BIT(GS_EP_SCORE),
    .pre_score = pre_score,
    .score = score,
};
