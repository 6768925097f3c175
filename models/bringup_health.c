/* GPU health as the device plugin sees it (reference gpu-operator.md §3.4; DP
 * internal/rm/health.go): Xids mark a device Unhealthy for good, allocatable drops and capacity
 * stays; only a new plugin process (a restart of its pod) enumerates the devices afresh. */
#include <stdint.h>

#include "models/bringup.h"
#include "models/bringup_internal.h"

int gs_bringup_healthy(const struct gs_node_bringup *b)
{
    int n = 0;
    for (int i = 0; i < b->node.gpu_count; i++)
        n += !((b->unhealthy >> i) & 1u);
    return n;
}

bool gs_bringup_xid(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, int gpu, int code,
                    struct gs_bringup_actions *out)
{
    if (gpu < 0 || gpu >= b->node.gpu_count || b->rebooting)
        return false;
    /* Only a running plugin watches NVML events (DP checkHealth). */
    if (!b->plugin_registered)
        return false;
    if (ctx->cfg->xid.disabled || gs_xid_ignored(&ctx->cfg->xid, code))
        return false;
    if ((b->unhealthy >> gpu) & 1u)
        return false;
    b->unhealthy |= (uint64_t)1 << gpu;
    gs_bu_set_allocatable(b, out, gs_bringup_healthy(b));
    return true;
}

void gs_bringup_plugin_restart(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                               struct gs_bringup_actions *out)
{
    if (b->rebooting || !b->joined)
        return;
    bool standalone = ctx->cfg->managed_by == GS_MANAGED_HOST;
    if (!standalone && (!b->deployed[GS_OPD_DEVICE_PLUGIN] || b->status[GS_OPD_DEVICE_PLUGIN] == GS_OPD_ABSENT))
        return;
    /* The new plugin process enumerates the devices afresh: every mark is gone. */
    b->unhealthy = 0;
    b->plugin_registered = false;
    b->pending &= ~(1u << GS_BT_DEVICE_PLUGIN);
    gs_bu_set_allocatable(b, out, 0);
    if (!standalone) {
        b->restarts[GS_OPD_DEVICE_PLUGIN]++;
        b->status[GS_OPD_DEVICE_PLUGIN] = GS_OPD_ABSENT;
        b->ready[GS_OPD_DEVICE_PLUGIN] = false;
    }
    gs_bu_advance(ctx, b, out);
}
