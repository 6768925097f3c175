/* Rollout planners: kernel-patch waves and the GPU Operator's driver upgrade state machine
 * (reference gpu-operator.md §2.4; NVIDIA/k8s-operator-libs pkg/upgrade common_manager.go,
 * pod_manager.go, validation_manager.go). Plain functions: the run loop applies their answers. */
#include <stddef.h>

#include "models/bringup.h"

static const char *const state_names[GS_UPG_COUNT] = {
    [GS_UPG_NONE] = NULL,
    [GS_UPG_REQUIRED] = "upgrade-required",
    [GS_UPG_CORDON] = "cordon-required",
    [GS_UPG_WAIT_FOR_JOBS] = "wait-for-jobs-required",
    [GS_UPG_POD_DELETION] = "pod-deletion-required",
    [GS_UPG_DRAIN] = "drain-required",
    [GS_UPG_POD_RESTART] = "pod-restart-required",
    [GS_UPG_VALIDATION] = "validation-required",
    [GS_UPG_UNCORDON] = "uncordon-required",
    [GS_UPG_DONE] = "upgrade-done",
    [GS_UPG_FAILED] = "upgrade-failed",
};

const char *gs_upgrade_state_name(enum gs_upgrade_state s)
{
    return s >= 0 && s < GS_UPG_COUNT ? state_names[s] : NULL;
}

int gs_max_unavailable(int value, bool percent, int total)
{
    if (value <= 0 || total < 0)
        return 0;
    if (!percent)
        return value;
    /* apimachinery intstr.GetScaledValueFromIntOrPercent, roundUp: ceil(value * total / 100). */
    long long v = ((long long)value * total + 99) / 100;
    return v > 0x7fffffff ? 0x7fffffff : (int)v;
}

void gs_kpatch_init(struct gs_kpatch *k, const char *kernel, int max_unavailable, int *nodes, int n)
{
    k->kernel = kernel;
    k->max_unavailable = max_unavailable >= 1 ? max_unavailable : 1;
    k->nodes = nodes;
    k->n = n > 0 ? n : 0;
    k->next = 0;
    k->in_flight = 0;
}

int gs_kpatch_next_wave(struct gs_kpatch *k, int *out, int cap)
{
    if (k->in_flight > 0 || k->next >= k->n)
        return 0;
    int m = k->max_unavailable;
    if (m > k->n - k->next)
        m = k->n - k->next;
    if (m > cap)
        m = cap;
    for (int i = 0; i < m; i++)
        out[i] = k->nodes[k->next + i];
    k->next += m;
    k->in_flight = m;
    return m;
}

bool gs_kpatch_node_back(struct gs_kpatch *k)
{
    if (k->in_flight > 0)
        k->in_flight--;
    return k->in_flight == 0;
}

bool gs_kpatch_done(const struct gs_kpatch *k)
{
    return k->next >= k->n && k->in_flight == 0;
}

enum gs_upgrade_state gs_upgrade_next(const struct gs_upgrade_policy *p, const struct gs_upgrade_node *n)
{
    /* updateNodeToUncordonOrDoneState: a node that was cordoned before stays cordoned. */
    enum gs_upgrade_state after = n->unschedulable_before ? GS_UPG_DONE : GS_UPG_UNCORDON;
    switch (n->state) {
    case GS_UPG_NONE:
    case GS_UPG_DONE:
        return n->state;
    case GS_UPG_REQUIRED:
        return GS_UPG_CORDON; /* once gs_upgrade_slots gives it a slot */
    case GS_UPG_CORDON:
        return GS_UPG_WAIT_FOR_JOBS;
    case GS_UPG_WAIT_FOR_JOBS:
        /* No waitForCompletion.podSelector: nothing to wait for. */
        return GS_UPG_POD_DELETION;
    case GS_UPG_POD_DELETION:
        /* Deleted (or nothing to delete): drain-required; a deletion that fails falls back to
         * a drain when that is enabled. */
        return n->delete_failed && !p->drain ? GS_UPG_FAILED : GS_UPG_DRAIN;
    case GS_UPG_DRAIN:
        /* ProcessDrainNodes: drain disabled moves straight on; enabled drains first (done by
         * the caller before asking). */
        return GS_UPG_POD_RESTART;
    case GS_UPG_POD_RESTART:
        if (n->driver_ready)
            return GS_UPG_VALIDATION;
        return n->driver_failing ? GS_UPG_FAILED : GS_UPG_POD_RESTART;
    case GS_UPG_VALIDATION:
        if (n->validated)
            return after;
        return n->timed_out ? GS_UPG_FAILED : GS_UPG_VALIDATION;
    case GS_UPG_UNCORDON:
        return GS_UPG_DONE;
    case GS_UPG_FAILED:
        /* ProcessUpgradeFailedNodes: retried; a driver pod that became Ready ends it. */
        return n->driver_ready ? after : GS_UPG_FAILED;
    case GS_UPG_COUNT:
        break;
    }
    return n->state;
}

int gs_upgrade_slots(const struct gs_upgrade_policy *p, int required, int in_progress, int unavailable, int total)
{
    int avail = p->max_parallel == 0 ? required : p->max_parallel - in_progress;
    int maxu = p->max_unavailable;
    if (avail > maxu)
        avail = maxu;
    if (unavailable >= maxu)
        avail = 0;
    else if (maxu < total && unavailable + avail > maxu)
        avail = maxu - unavailable;
    if (avail > required)
        avail = required;
    return avail > 0 ? avail : 0;
}
