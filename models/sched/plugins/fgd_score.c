/* FGDScore: the FGD paper's fragmentation-gradient-descent policy
 * (hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/fgd_score.go): the score is
 * floor(100 sigmoid((F(node) - F(node with the pod)) / 1000)), F the node's GPU fragmentation
 * measured against the typical-pod set (gs_sched_set_fgd_typical; without one every
 * fragmentation is 0 and every node scores 50); memoised per (node version, template)
 * (fgd_view.c). Out of tree, off by default.
 *
 * It also chooses the GPU of a share (allocateGpuIdBasedOnFGDScore, which the simulator's
 * Open-Gpu-Share Reserve calls for gpuSelMethod FGDScore): of the GPUs with enough free milli,
 * the one whose use leaves the least fragmentation (plugin.h share_gpu; Open-Gpu-Share's PreBind
 * hands it to the client). */
#include "models/fgd/fgd.h"
#include "models/fgd/fgd_world.h"
#include "models/sched/sched_internal.h"

static int init(struct gs_sched *s)
{
    return gs_fgd_state_init(s, false, true);
}

static void score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out)
{
    struct gs_fgd_pod p;
    gs_fgd_sched_pod(pc, &p);
    for (int i = 0; i < n; i++)
        out[i] = gs_fgd_score_node(s, pc, &p, nodes[i]);
}

const struct gs_sched_plugin gs_plugin_fgd_score = {
    .name = "FGDScore",
    .id = GS_PL_FGD_SCORE,
    .points = GS_EP_BIT(GS_EP_PRE_SCORE) | GS_EP_BIT(GS_EP_SCORE),
    .flags = GS_PLF_OUT_OF_TREE,
    .init = init,
    .fini = gs_fgd_state_fini,
    .pre_score = gs_fgd_policy_pre_score,
    .score = score,
    .share_gpu = gs_fgd_share_choice,
};
