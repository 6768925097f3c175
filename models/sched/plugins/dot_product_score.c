/* DotProductScore: the FGD paper's DotProd policy: floor(100 (1 - v_node . v_pod / 2)) over
 * [cpu, GPU milli] vectors (dimExtMethod merge, normMethod max)
 * (hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/dot_product_score.go). Out of tree, off by
 * default; a profile enables it under plugins.score or plugins.multiPoint, with a weight. Scores
 * the feasible nodes 0..100 with models/fgd/policies.c gs_fgd_score_dotprod over the FGD view
 * (fgd_view.c). */
#include "models/fgd/fgd.h"
#include "models/fgd/fgd_world.h"
#include "models/sched/sched_internal.h"

static void score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out)
{
    gs_fgd_policy_score(s, pc, nodes, n, out, gs_fgd_score_dotprod);
}

const struct gs_sched_plugin gs_plugin_dot_product_score = {
    .name = "DotProductScore",
    .id = GS_PL_DOT_PRODUCT_SCORE,
    .points = GS_EP_BIT(GS_EP_PRE_SCORE) | GS_EP_BIT(GS_EP_SCORE),
    .flags = GS_PLF_OUT_OF_TREE,
    .init = gs_fgd_policy_init,
    .fini = gs_fgd_state_fini,
    .pre_score = gs_fgd_policy_pre_score,
    .score = score,
};
