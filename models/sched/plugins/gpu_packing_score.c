/* GpuPackingScore: the FGD paper's GpuPacking policy: partly used GPUs first, then fully free
 * GPUs of used nodes, then idle nodes
 * (hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/gpu_packing_score.go). Out of tree, off by
 * default; a profile enables it under plugins.score or plugins.multiPoint, with a weight. Scores
 * the feasible nodes 0..100 with models/fgd/policies.c gs_fgd_score_packing over the FGD view
 * (fgd_view.c). */
#include "models/fgd/fgd.h"
#include "models/fgd/fgd_world.h"
#include "models/sched/sched_internal.h"

static void score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out)
{
    gs_fgd_policy_score(s, pc, nodes, n, out, gs_fgd_score_packing);
}

const struct gs_sched_plugin gs_plugin_gpu_packing_score = {
    .name = "GpuPackingScore",
    .id = GS_PL_GPU_PACKING_SCORE,
    .points = GS_EP_BIT(GS_EP_PRE_SCORE) | GS_EP_BIT(GS_EP_SCORE),
    .flags = GS_PLF_OUT_OF_TREE,
    .init = gs_fgd_policy_init,
    .fini = gs_fgd_state_fini,
    .pre_score = gs_fgd_policy_pre_score,
    .score = score,
};
