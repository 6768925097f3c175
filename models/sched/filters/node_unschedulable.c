/* NodeUnschedulable filter: kubernetes pkg/scheduler/framework/plugins/nodeunschedulable/
 * node_unschedulable.go. A cordoned node (spec.unschedulable) rejects the pod unless the pod
 * tolerates the taint node.kubernetes.io/unschedulable:NoSchedule (the toleration is computed
 * once per cycle in gs_podctx.tol_unschedulable). UnschedulableAndUnresolvable. */
#include "models/sched/sched_internal.h"

void gs_filter_node_unschedulable(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                                  const struct gs_adj *adj, struct gs_fstat *st)
{
    (void)s;
    (void)adj;
    if (!n->unschedulable || pc->tol_unschedulable)
        return;
    st->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
    st->plugin = GS_PL_NODE_UNSCHEDULABLE;
    st->kind = GS_R_UNSCHEDULABLE;
}
