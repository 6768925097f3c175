/* GpuClusteringScore: the FGD paper's GpuClustering policy: bands by the pod tags the node
 * already holds, then its GPU use
 * (hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/gpu_clustering_score.go). Out of tree, off by
 * default; a profile enables it under plugins.score or plugins.multiPoint, with a weight. Scores
 * the feasible nodes 0..100 with models/fgd/policies.c gs_fgd_score_clustering over the FGD view
 * (fgd_view.c). */
#include "models/fgd/fgd.h"
#include "models/fgd/fgd_world.h"
#include "models/sched/sched_internal.h"

static int init(struct gs_sched *s)
{
    return gs_fgd_state_init(s, true, false);
}

static void score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out)
{
    gs_fgd_policy_score(s, pc, nodes, n, out, gs_fgd_score_clustering);
}

const struct gs_sched_plugin gs_plugin_gpu_clustering_score = {
    .name = "GpuClusteringScore",
    .id = GS_PL_GPU_CLUSTERING_SCORE,
    .points = GS_EP_BIT(GS_EP_PRE_SCORE) | GS_EP_BIT(GS_EP_SCORE),
    .flags = GS_PLF_OUT_OF_TREE,
    .init = init,
    .fini = gs_fgd_state_fini,
    .pre_score = gs_fgd_policy_pre_score,
    .score = score,
};
