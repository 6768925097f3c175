/* The registry: every controller of a run, in the order watch events reach them
 * (sim/controller.h). The order is behaviour; each place is there because:
 *
 *   workloads     before kueue: a pod's end reaches the Job controller (which counts it and
 *                 replaces it) before Kueue reads the Job's status to finish its Workload.
 *   gpu_operator  before device_plugin: on a label change the operands re-read their deploy
 *                 labels first, then the device plugin's config-manager and mig-manager act.
 *   device_plugin before dra: a node's devices are set up before the DRA kubelet plugin publishes
 *                 its ResourceSlice; a pod's GPUs are released before its claims.
 *   dra           before scheduler: a new pod's claims exist before it enters the scheduling
 *                 queue, and an ending pod's claims are released while it is still queued.
 *   scheduler     before kueue: the scheduling queue hears of a cluster change before Kueue
 *                 retries its pending Workloads.
 *   frag          before lws: the sample taken when a pod leaves its node comes before the
 *                 LeaderWorkerSet reacts to the pod's end.
 *   autoscaler    last: like cluster-autoscaler, which polls the API server every scan-interval,
 *                 it acts on its own timers only (it watches pod creations and node additions
 *                 just to start its loop), so no other controller's reaction depends on it; and
 *                 last, its registry index (part of every controller timer's event kind) leaves
 *                 the other controllers' indexes, and so the order of their same-time timers, as
 *                 they were.
 */
#include "sim/controller.h"

extern const struct gs_controller gs_ctl_workloads, gs_ctl_gpu_operator, gs_ctl_device_plugin, gs_ctl_dra,
    gs_ctl_scheduler, gs_ctl_kueue, gs_ctl_frag, gs_ctl_lws, gs_ctl_autoscaler;

const struct gs_controller *const gs_controller_registry[] = {
    &gs_ctl_workloads,     /* sim/controllers/workloads.c */
    &gs_ctl_gpu_operator,  /* sim/controllers/gpu_operator.c */
    &gs_ctl_device_plugin, /* sim/controllers/device_plugin.c */
    &gs_ctl_dra,           /* sim/controllers/dra.c */
    &gs_ctl_scheduler,     /* sim/controllers/scheduler.c */
    &gs_ctl_kueue,         /* sim/controllers/kueue.c */
    &gs_ctl_frag,          /* sim/controllers/frag.c */
    &gs_ctl_lws,           /* sim/controllers/lws.c */
    &gs_ctl_autoscaler,    /* sim/controllers/autoscaler.c */
    NULL,
};
