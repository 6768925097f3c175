/* Open-Gpu-Share: the GPU-share plugin of Alibaba's Open-Gpu-Share as the FGD authors' simulator
 * runs it (hkust-adsl/kubernetes-scheduler-simulator pkg/simulator/plugin/open_gpu_share.go
 * Filter, Reserve and allocateGpuId; pkg/utils CanNodeHostPodOnGpuMemory). Out of tree.
 *
 * - Filter: a pod asking alibabacloud.com/gpu-milli m fits a node with a GPU whose free milli-GPU
 *   is at least m; a whole-GPU pod needs that many fully free GPUs. The node's GPUs are
 *   gs_node.gpus, kept by the device plugin controller (sim/controllers/device_plugin_alloc.c).
 * - PreBind: the GPU a share pod gets. The simulator's Reserve asks the gpuSelMethod's
 *   allocateGpuIdFunc (FGDScore registers one) and patches the pod's GPU index annotation;
 *   gpusim asks the first Score plugin of the profile that chooses GPUs (plugin.h share_gpu:
 *   FGDScore) and hands the choice to the caller's client (gs_sched_client.set_share_gpu; -1:
 *   the device plugin's best fit). It does so at PreBind, after DynamicResources' PreBind,
 *   on the node as it is then, just before the devices are handed out.
 *
 * gpusim's choices: the plugin is always on (GS_PLF_ALWAYS: gpusim's device model enforces
 * shares whatever the profile); its PreFilter only says Skip for a pod asking for no GPU (the
 * upstream Filter returns Success for it); the failure is reported as NodeResourcesFit's
 * "Insufficient alibabacloud.com/gpu-milli" (kube-scheduler's wording for a resource that falls
 * short; the upstream plugin's status only names the node); whole-GPU pods are checked only
 * where a share holds part of a GPU, and only without `adj` (nominated pods, preemption
 * victims: their GPUs are not modelled), since elsewhere NodeResourcesFit's nvidia.com/gpu count
 * is the same test. */
#include "models/devices/gpushare_pod.h"
#include "models/sched/sched_internal.h"

void gs_share_podctx(const struct gs_world *w, struct gs_podctx *pc)
{
    pc->share = gs_gpushare_pod_req(w, pc->t, &pc->share_req, &pc->share_annotated);
}

static void pre_filter(struct gs_sched *s, struct gs_podctx *pc, struct gs_prefilter_status *st)
{
    if (!pc->share) {
        st->code = GS_ST_SKIP;
        return;
    }
    /* nvidia.com/gpu's resource index, once interned, never changes: looked up once. */
    if (s->gpu_res < 0)
        s->gpu_res = gs_res_find(&s->w->res, "nvidia.com/gpu");
    pc->gpu_res = s->gpu_res;
}

/* Does a share hold part of the node's GPUs? The milli taken beyond the whole GPUs the pods on
 * the node request (nvidia.com/gpu, resource index gi) are shares. */
static bool shares_held(const struct gs_node *n, int gi)
{
    const struct gs_gpushare *g = &n->gpus;
    int64_t used = 0;
    for (int i = 0; i < g->ngpu; i++)
        used += GS_GPU_MILLI - g->free_milli[i];
    int64_t whole = gi >= 0 ? n->requested.v[gi] * GS_GPU_MILLI : 0;
    return used > whole;
}

static void filter(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                   struct gs_fstat *st)
{
    if (!pc->share)
        return;
    const struct gs_node *n = &s->w->nodes[node];
    if (!pc->share_annotated && (adj || !shares_held(n, pc->gpu_res)))
        return;
    if (gs_gpushare_fits(&n->gpus, &pc->share_req))
        return;
    st->code = GS_ST_UNSCHEDULABLE;
    st->plugin = GS_PL_NODE_RESOURCES_FIT;
    st->kind = GS_R_GPU_SHARE;
}

int gs_sched_share_gpu(struct gs_sched *s, int pod, int node)
{
    if (!s || pod < 0 || pod >= s->w->npods)
        return -1;
    const struct gs_table *t = &s->tab[GS_EP_SCORE];
    for (int i = 0; i < t->n; i++)
        if (t->p[i]->share_gpu)
            return t->p[i]->share_gpu(s, pod, node);
    return -1;
}

static enum gs_status_code pre_bind(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c)
{
    if (c && c->set_share_gpu)
        c->set_share_gpu(c->ctx, pod, gs_sched_share_gpu(s, pod, node));
    return GS_ST_SUCCESS;
}

const struct gs_sched_plugin gs_plugin_open_gpu_share = {
    .name = "Open-Gpu-Share",
    .id = GS_PL_OPEN_GPU_SHARE,
    .points = GS_EP_BIT(GS_EP_FILTER) | GS_EP_BIT(GS_EP_RESERVE),
    .flags = GS_PLF_ALWAYS | GS_PLF_OUT_OF_TREE,
    .pre_filter = pre_filter,
    .filter = filter,
    .pre_bind = pre_bind,
};
