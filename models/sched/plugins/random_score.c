/* RandomScore: the FGD paper's random policy (hkust-adsl/kubernetes-scheduler-simulator
 * pkg/simulator/plugin/random_score.go). Out of tree, off by default. PreScore draws one
 * feasible node uniformly from the tie-break stream (GS_STREAM_TIEBREAK; the first without a
 * stream or with one node); Score gives it MaxNodeScore (100) and 0 to the others. */
#include "models/fgd/fgd.h"
#include "models/sched/sched_internal.h"

static int pre_score(struct gs_sched *s, struct gs_podctx *pc, const int *nodes, int n)
{
    (void)pc;
    (void)nodes;
    s->random_pick = s->rng && n > 1 ? (int)gs_rng_uniform_int(s->rng, GS_STREAM_TIEBREAK, (uint64_t)n) : 0;
    return 0;
}

static void score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out)
{
    (void)pc;
    (void)nodes;
    for (int i = 0; i < n; i++)
        out[i] = i == s->random_pick ? GS_FGD_MAX_SCORE : 0;
}

const struct gs_sched_plugin gs_plugin_random_score = {
    .name = "RandomScore",
    .id = GS_PL_RANDOM_SCORE,
    .points = GS_EP_BIT(GS_EP_PRE_SCORE) | GS_EP_BIT(GS_EP_SCORE),
    .flags = GS_PLF_OUT_OF_TREE,
    .pre_score = pre_score,
    .score = score,
};
