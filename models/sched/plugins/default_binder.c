/* DefaultBinder: kubernetes pkg/scheduler/framework/plugins/defaultbinder/default_binder.go
 * (Bind): binds the pod to the node through the API (a pods/binding subresource). In gpusim the
 * caller's client does it (sched.h gs_sched_client.bind); without a client callback the bind
 * succeeds as a no-op. */
#include "models/sched/sched_internal.h"

static enum gs_status_code bind(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c)
{
    (void)s;
    if (c && c->bind && c->bind(c->ctx, pod, node) != 0)
        return GS_ST_ERROR;
    return GS_ST_SUCCESS;
}

const struct gs_sched_plugin gs_plugin_default_binder = {
    .name = "DefaultBinder",
    .id = GS_PL_DEFAULT_BINDER,
    .points = GS_EP_BIT(GS_EP_BIND),
    .bind = bind,
};
