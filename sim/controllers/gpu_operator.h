/* gpusim internal: the GPU Operator controller's state, shared by its files
 * (sim/controllers/gpu_operator.c: bring-up per node, node events, the operands' status;
 * sim/controllers/gpu_operator_rollout.c: kernel-patch waves and driver upgrades). */
#ifndef GPUSIM_SIM_CONTROLLERS_GPU_OPERATOR_H
#define GPUSIM_SIM_CONTROLLERS_GPU_OPERATOR_H

#include "models/bringup.h"
#include "sim/controller.h"

enum { OPERATOR_TIMER = 0 };

struct bu_node {
    struct gs_node_bringup b;
    bool started;            /* gs_bringup_init done */
    int patch;               /* the kernel patch rebooting it, -1 */
    bool cordoned_by_rollout; /* a rollout cordoned it: uncordon when done */
    bool upg_managed;        /* part of the current driver upgrade */
    bool upg_unsched_before; /* cordoned before its upgrade started */
    bool upg_timed_out;
};

struct kpatch_run {
    struct gs_kpatch k;
    int *nodes;
    int *wave;
    bool has_reboot_duration;
    gs_time reboot_duration;
};

struct gpu_operator {
    int self;
    struct gs_operator_config cfg; /* sc->op; driver.version changes with driverUpgrade */
    struct bu_node *nodes;
    int cap;
    const char **published;
    int npublished, published_cap;
    struct kpatch_run *patches;
    int npatches, patches_cap;
    bool upg_active;
    struct gs_upgrade_policy upg;
};

/* gpu_operator.c, for the rollouts */
/* The bring-up model's view of node `ni` now. */
struct gs_bringup_ctx gs_operator_ctx(struct gpu_operator *op, struct gs_cluster *c, int ni);
/* Apply the model's actions to node `ni` through the cluster. */
void gs_operator_apply(struct gpu_operator *op, struct gs_cluster *c, int ni, const struct gs_bringup_actions *out);
/* Cordon (true) or uncordon node `ni` for a rollout (nothing when unchanged). */
void gs_operator_set_unschedulable(struct gs_cluster *c, int ni, bool on);

/* gpu_operator_rollout.c */
/* A kernelPatch / driverUpgrade scenario event. */
void gs_operator_kernel_patch(struct gpu_operator *op, struct gs_cluster *c, const struct gs_sevent *se);
void gs_operator_driver_upgrade(struct gpu_operator *op, struct gs_cluster *c, const struct gs_sevent *se);
/* kubelet is back on node `ni` after a reboot. */
void gs_operator_node_back(struct gpu_operator *op, struct gs_cluster *c, int ni);
/* Move node `ni` along the driver upgrade; true when it moved. */
bool gs_operator_upgrade_step(struct gpu_operator *op, struct gs_cluster *c, int ni);
/* Start upgrades where the policy allows, until nothing moves. */
void gs_operator_upgrade_reconcile(struct gpu_operator *op, struct gs_cluster *c);

#endif
