/* NodeUnschedulable: kubernetes pkg/scheduler/framework/plugins/nodeunschedulable/
 * node_unschedulable.go (Filter). A cordoned node (spec.unschedulable) rejects the pod unless the
 * pod tolerates the taint node.kubernetes.io/unschedulable:NoSchedule (the toleration is computed
 * once per cycle in gs_podctx.tol_unschedulable). UnschedulableAndUnresolvable. Static: the
 * verdict reads the template and the node's flag only. */
#include "models/sched/sched_internal.h"

static void filter(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                   struct gs_fstat *st)
{
    (void)adj;
    if (!s->w->nodes[node].unschedulable || pc->tol_unschedulable)
        return;
    st->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
    st->plugin = GS_PL_NODE_UNSCHEDULABLE;
    st->kind = GS_R_UNSCHEDULABLE;
}

const struct gs_sched_plugin gs_plugin_node_unschedulable = {
    .name = "NodeUnschedulable",
    .id = GS_PL_NODE_UNSCHEDULABLE,
    .points = GS_EP_BIT(GS_EP_PRE_FILTER) | GS_EP_BIT(GS_EP_FILTER),
    .flags = GS_PLF_STATIC_FILTER,
    .filter = filter,
};
