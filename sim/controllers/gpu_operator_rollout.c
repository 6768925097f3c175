/* The GPU Operator's rollouts (sim/controllers/gpu_operator.h): kernel-patch waves (a pool
 * rebooted into a new kernel maxUnavailable nodes at a time) and driver upgrades (the upgrade
 * controller's state machine, models/bringup_upgrade.c).
 *
 * Rules this file chooses (SCENARIO.md leaves them open):
 * - Eviction (a node drained for a reboot or a driver upgrade): every pod is deleted with reason
 *   Evicted. A Job replaces its pods (as for any deletion). A plain workload's pod is re-created
 *   with the workload's next index, as its ReplicaSet would; bare Pod manifests, pods pinned with
 *   spec.nodeName and pods of a PodGroup are not re-created.
 * - A kernel-patch wave is over when each of its nodes is back and Ready, meaning kubelet is back
 *   (the reboot step), not that its GPUs are advertised again: node lifecycle tools (kured, cloud
 *   node-pool upgrades) wait for the Ready condition. The node is uncordoned then (unless it was
 *   cordoned before the patch) and the next wave starts.
 * - nodes_ready (samples) leaves out nodes that are rebooting.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "sim/controllers/gpu_operator.h"

/* ------------------------------------------------------------------ kernel patches */

static void kpatch_next_wave(struct gpu_operator *op, struct gs_cluster *c, int pi);

static void reboot_node(struct gpu_operator *op, struct gs_cluster *c, int ni, int pi)
{
    
    struct bu_node *s = &op->nodes[ni];
    struct kpatch_run *kp = &op->patches[pi];
    char msg[256];
    s->patch = pi;
    if (!c->w->nodes[ni].unschedulable) {
        s->cordoned_by_rollout = true;
        gs_operator_set_unschedulable(c, ni, true);
    }
    snprintf(msg, sizeof msg, "drained to reboot into kernel %s", kp->k.kernel);
    gs_cluster_evict_node_pods(c, ni, false, msg);
    gs_cluster_node_event(c, ni, "Reboot", NULL, kp->k.kernel);
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx x = gs_operator_ctx(op, c, ni);
    x.has_reboot_duration = kp->has_reboot_duration;
    x.reboot_duration = kp->reboot_duration;
    gs_bringup_reboot(&x, &s->b, kp->k.kernel, &out);
    gs_operator_apply(op, c, ni, &out);
}

static void kpatch_next_wave(struct gpu_operator *op, struct gs_cluster *c, int pi)
{
    for (;;) {
        struct kpatch_run *kp = &op->patches[pi];
        int n = gs_kpatch_next_wave(&kp->k, kp->wave, kp->k.n);
        bool wave_over = false;
        for (int i = 0; i < n; i++) {
            int ni = kp->wave[i];
            if (c->w->nodes[ni].exists)
                reboot_node(op, c, ni, pi);
            else
                wave_over = gs_kpatch_node_back(&kp->k); /* deleted since: nothing to wait for */
        }
        if (!wave_over)
            return;
    }
}

/* kubelet is back on node `ni`: the node is Ready. */
void gs_operator_node_back(struct gpu_operator *op, struct gs_cluster *c, int ni)
{
    
    struct bu_node *s = &op->nodes[ni];
    int pi = s->patch;
    if (pi < 0)
        return;
    s->patch = -1;
    if (s->cordoned_by_rollout && !s->upg_managed) {
        s->cordoned_by_rollout = false;
        gs_operator_set_unschedulable(c, ni, false);
    }
    if (gs_kpatch_node_back(&op->patches[pi].k))
        kpatch_next_wave(op, c, pi);
}

void gs_operator_kernel_patch(struct gpu_operator *op, struct gs_cluster *c, const struct gs_sevent *se)
{
    
    struct gs_world *w = c->w;
    int total = 0, n = 0;
    for (int i = 0; i < w->nnodes; i++)
        if (w->nodes[i].exists && w->nodes[i].pool == se->pool)
            total++;
    if (total == 0) {
        gs_cluster_warn(c, se, "node of pool", w->pools[se->pool].name);
        return;
    }
    if (GS_GROW(op->patches, op->patches_cap, op->npatches + 1)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    struct kpatch_run *kp = &op->patches[op->npatches];
    memset(kp, 0, sizeof *kp);
    kp->nodes = gs_malloc(sizeof *kp->nodes * (size_t)total);
    kp->wave = gs_malloc(sizeof *kp->wave * (size_t)total);
    if (!kp->nodes || !kp->wave) {
        gs_free(kp->nodes);
        gs_free(kp->wave);
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    /* Nodes already on the kernel, or rebooting for another patch, are left alone. */
    for (int i = 0; i < w->nnodes; i++) {
        const struct gs_node *nd = &w->nodes[i];
        if (!nd->exists || nd->pool != se->pool)
            continue;
        if (nd->kernel && se->kernel && strcmp(nd->kernel, se->kernel) == 0)
            continue;
        if (i < op->cap && op->nodes[i].patch >= 0)
            continue;
        kp->nodes[n++] = i;
    }
    kp->has_reboot_duration = se->has_reboot_duration;
    kp->reboot_duration = se->reboot_duration;
    int mu = gs_max_unavailable(se->max_unavailable, se->max_unavailable_percent, total);
    gs_kpatch_init(&kp->k, se->kernel, mu, kp->nodes, n);
    int pi = op->npatches++;
    kpatch_next_wave(op, c, pi);
}

/* ------------------------------------------------------------------ driver upgrades */

static void set_upgrade_state(struct gpu_operator *op, struct gs_cluster *c, int ni, enum gs_upgrade_state st)
{
    struct gs_bringup_actions out = {0};
    gs_bringup_set_upgrade_state(&op->nodes[ni].b, st, &out);
    gs_operator_apply(op, c, ni, &out);
}

static bool upgrade_in_progress(enum gs_upgrade_state s)
{
    return s != GS_UPG_NONE && s != GS_UPG_DONE && s != GS_UPG_REQUIRED;
}

/* Side effects of entering `to` from `from` (LIB ProcessXxxNodes). */
static void upgrade_transition(struct gpu_operator *op, struct gs_cluster *c, int ni, enum gs_upgrade_state from,
                               enum gs_upgrade_state to)
{
    
    struct bu_node *s = &op->nodes[ni];
    char msg[256];
    set_upgrade_state(op, c, ni, to);
    switch (to) {
    case GS_UPG_WAIT_FOR_JOBS: /* ProcessCordonRequiredNodes cordoned it */
        s->upg_unsched_before = c->w->nodes[ni].unschedulable;
        if (!s->upg_unsched_before) {
            s->cordoned_by_rollout = true;
            gs_operator_set_unschedulable(c, ni, true);
        }
        break;
    case GS_UPG_DRAIN: /* coming from pod-deletion: the GPU pods were deleted */
        if (from == GS_UPG_POD_DELETION) {
            snprintf(msg, sizeof msg, "GPU pods deleted for the driver upgrade to %s", op->cfg.driver_version);
            gs_cluster_evict_node_pods(c, ni, true, msg);
        }
        break;
    case GS_UPG_POD_RESTART: {
        if (op->upg.drain) {
            snprintf(msg, sizeof msg, "drained for the driver upgrade to %s", op->cfg.driver_version);
            gs_cluster_evict_node_pods(c, ni, false, msg);
        }
        struct gs_bringup_actions out = {0};
        struct gs_bringup_ctx x = gs_operator_ctx(op, c, ni);
        gs_bringup_driver_restart(&x, &s->b, op->cfg.driver_version, &out);
        gs_operator_apply(op, c, ni, &out);
        break;
    }
    case GS_UPG_VALIDATION: {
        s->upg_timed_out = false;
        struct gs_bringup_actions out = {0};
        gs_bringup_start_upgrade_timer(&s->b, GS_UPGRADE_VALIDATION_TIMEOUT, &out);
        gs_operator_apply(op, c, ni, &out);
        break;
    }
    case GS_UPG_DONE:
        if (s->cordoned_by_rollout && s->patch < 0) {
            s->cordoned_by_rollout = false;
            gs_operator_set_unschedulable(c, ni, false);
        }
        break;
    default:
        break;
    }
}

/* Move node `ni` along its upgrade as far as it can go now; true when it moved. */
bool gs_operator_upgrade_step(struct gpu_operator *op, struct gs_cluster *c, int ni)
{
    
    struct bu_node *s = &op->nodes[ni];
    bool moved = false;
    for (int guard = 0; guard < GS_UPG_COUNT * 2; guard++) {
        const struct gs_node_bringup *b = &s->b;
        enum gs_upgrade_state cur = b->upgrade;
        if (!upgrade_in_progress(cur))
            break;
        bool in_sync = b->driver_version && op->cfg.driver_version && strcmp(b->driver_version, op->cfg.driver_version) == 0;
        struct gs_upgrade_node un = {
            .state = cur,
            .driver_ready = in_sync && b->ready[GS_OPD_DRIVER],
            .validated = gs_bringup_validated(b),
            .timed_out = s->upg_timed_out,
            .unschedulable_before = s->upg_unsched_before,
            .driver_failing = !b->ready[GS_OPD_DRIVER] && b->restarts[GS_OPD_DRIVER] > 10,
        };
        enum gs_upgrade_state next = gs_upgrade_next(&op->upg, &un);
        if (next == cur)
            break;
        upgrade_transition(op, c, ni, cur, next);
        moved = true;
    }
    return moved;
}

void gs_operator_upgrade_reconcile(struct gpu_operator *op, struct gs_cluster *c)
{
    
    struct gs_world *w = c->w;
    for (int pass = 0; pass < 64; pass++) {
        bool changed = false;
        int required = 0, in_progress = 0, unavailable = 0, total = 0;
        for (int i = 0; i < w->nnodes && i < op->cap; i++) {
            struct bu_node *s = &op->nodes[i];
            if (!s->upg_managed || !w->nodes[i].exists)
                continue;
            if (upgrade_in_progress(s->b.upgrade))
                changed |= gs_operator_upgrade_step(op, c, i);
            total++;
            required += s->b.upgrade == GS_UPG_REQUIRED;
            in_progress += upgrade_in_progress(s->b.upgrade);
            unavailable += w->nodes[i].unschedulable || s->b.rebooting || s->b.upgrade == GS_UPG_CORDON;
        }
        int slots = gs_upgrade_slots(&op->upg, required, in_progress, unavailable, total);
        for (int i = 0; i < w->nnodes && i < op->cap && slots > 0; i++) {
            struct bu_node *s = &op->nodes[i];
            if (s->upg_managed && w->nodes[i].exists && s->b.upgrade == GS_UPG_REQUIRED) {
                set_upgrade_state(op, c, i, GS_UPG_CORDON);
                slots--;
                changed = true;
            }
        }
        if (!changed)
            break;
    }
}

void gs_operator_driver_upgrade(struct gpu_operator *op, struct gs_cluster *c, const struct gs_sevent *se)
{
    
    struct gs_world *w = c->w;
    if (!c->sc->op.enabled || op->cfg.managed_by != GS_MANAGED_GPU_OPERATOR) {
        gs_cluster_warn(c, se, "driver DaemonSet (operator: section)", "for driverUpgrade");
        return;
    }
    op->cfg.driver_version = se->version;
    int total = 0;
    for (int i = 0; i < w->nnodes && i < op->cap; i++) {
        struct bu_node *s = &op->nodes[i];
        s->upg_managed = w->nodes[i].exists && s->started && s->b.deployed[GS_OPD_DRIVER];
        total += s->upg_managed;
    }
    op->upg.max_parallel = se->max_parallel;
    op->upg.drain = se->drain;
    op->upg.max_unavailable = gs_max_unavailable(se->max_unavailable, se->max_unavailable_percent, total);
    op->upg_active = true;
    for (int i = 0; i < w->nnodes && i < op->cap; i++) {
        struct bu_node *s = &op->nodes[i];
        if (!s->upg_managed)
            continue;
        bool in_sync = s->b.driver_version && se->version && strcmp(s->b.driver_version, se->version) == 0;
        /* ProcessDoneOrUnknownNodes: a pod out of sync with the DaemonSet needs an upgrade. */
        set_upgrade_state(op, c, i, in_sync ? GS_UPG_DONE : GS_UPG_REQUIRED);
    }
    gs_operator_upgrade_reconcile(op, c);
}

