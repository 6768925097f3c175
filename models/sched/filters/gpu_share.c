/* GPU shares: the filter of Alibaba's Open-Gpu-Share plugin as the FGD authors' simulator runs
 * it (hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/open_gpu_share.go Filter,
 * pkg/utils CanNodeHostPodOnGpuMemory): a pod asking alibabacloud.com/gpu-milli m fits a node
 * with a GPU whose free milli-GPU is at least m; a whole-GPU pod needs that many fully free GPUs.
 * The node's GPUs are gs_node.gpus, kept by the run loop (sim/devices_run.c).
 *
 * gpusim's choices: the failure is reported as NodeResourcesFit's "Insufficient
 * alibabacloud.com/gpu-milli" (kube-scheduler's wording for a resource that falls short; the
 * upstream plugin's status only names the node); whole-GPU pods are checked only where a share
 * holds part of a GPU, and only without `adj` (nominated pods, preemption victims: their GPUs
 * are not modelled), since elsewhere NodeResourcesFit's nvidia.com/gpu count is the same test. */
#include "models/devices/gpushare_pod.h"
#include "models/sched/sched_internal.h"

void gs_share_podctx(const struct gs_world *w, struct gs_podctx *pc)
{
    pc->share = gs_gpushare_pod_req(w, pc->t, &pc->share_req, &pc->share_annotated);
}

/* Does a share hold part of the node's GPUs? The milli taken beyond the whole GPUs the pods on
 * the node request (nvidia.com/gpu) are shares. */
static bool shares_held(const struct gs_world *w, const struct gs_node *n)
{
    const struct gs_gpushare *g = &n->gpus;
    int64_t used = 0;
    for (int i = 0; i < g->ngpu; i++)
        used += GS_GPU_MILLI - g->free_milli[i];
    int gi = gs_res_find(&w->res, "nvidia.com/gpu");
    int64_t whole = gi >= 0 ? n->requested.v[gi] * GS_GPU_MILLI : 0;
    return used > whole;
}

void gs_filter_gpu_share(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                         const struct gs_adj *adj, struct gs_fstat *st)
{
    const struct gs_gpushare *g = &n->gpus;
    if (!pc->share_annotated && (adj || !shares_held(s->w, n)))
        return;
    if (gs_gpushare_fits(g, &pc->share_req))
        return;
    st->code = GS_ST_UNSCHEDULABLE;
    st->plugin = GS_PL_NODE_RESOURCES_FIT;
    st->kind = GS_R_GPU_SHARE;
}
