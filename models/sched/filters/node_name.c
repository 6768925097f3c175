/* NodeName filter: kubernetes pkg/scheduler/framework/plugins/nodename/node_name.go. A pod with
 * spec.nodeName only fits the node of that name. UnschedulableAndUnresolvable. */
#include <string.h>

#include "models/sched/sched_internal.h"

void gs_filter_node_name(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                         const struct gs_adj *adj, struct gs_fstat *st)
{
    (void)s;
    (void)adj;
    const char *want = pc->t->node_name;
    if (!want || !want[0] || strcmp(want, n->name) == 0)
        return;
    st->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
    st->plugin = GS_PL_NODE_NAME;
    st->kind = GS_R_NODE_NAME;
}
