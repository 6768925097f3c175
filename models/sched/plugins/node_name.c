/* NodeName: kubernetes pkg/scheduler/framework/plugins/nodename/node_name.go (Filter). A pod
 * with spec.nodeName only fits the node of that name. UnschedulableAndUnresolvable. Static. */
#include <string.h>

#include "models/sched/sched_internal.h"

static void filter(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                   struct gs_fstat *st)
{
    (void)adj;
    const char *want = pc->t->node_name;
    if (!want || !want[0] || strcmp(want, s->w->nodes[node].name) == 0)
        return;
    st->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
    st->plugin = GS_PL_NODE_NAME;
    st->kind = GS_R_NODE_NAME;
}

const struct gs_sched_plugin gs_plugin_node_name = {
    .name = "NodeName",
    .id = GS_PL_NODE_NAME,
    .points = GS_EP_BIT(GS_EP_PRE_FILTER) | GS_EP_BIT(GS_EP_FILTER),
    .flags = GS_PLF_STATIC_FILTER,
    .filter = filter,
};
