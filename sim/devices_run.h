/* gpusim internal: a node's devices in a run (sim/devices_run.c): the device plugin's config
 * per node (named configs by label nvidia.com/device-plugin.config), the MIG layouts and the
 * MIG manager reacting to label nvidia.com/mig.config, allocatable per resource name, the
 * kubelet's Allocate admission check, and fractional GPU shares. Not a public header.
 *
 * The bring-up model (models/bringup*.c) keeps counting whole healthy GPUs; this layer turns
 * its nvidia.com/gpu allocatable and capacity into what the plugin advertises under its config
 * (gs_dp_allocatable), and writes one node_event row per resource name whose amount changes.
 */
#ifndef GPUSIM_SIM_DEVICES_RUN_H
#define GPUSIM_SIM_DEVICES_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "models/bringup.h"
#include "models/devices/gpushare.h"
#include "sim/run_state.h"

/* Allocate r->devices. 0 or GS_ENOMEM. Called by gs_bringup_run_setup. */
int gs_devices_run_setup(struct gs_runner *r);
void gs_devices_run_free(struct gs_runner *r);

/* Node `ni` joined: MIG layouts all disabled (gs_mig_layout_init), the device plugin's config
 * from its labels, every GPU fully free. */
void gs_devices_run_joined(struct gs_runner *r, int ni);

/* Fill the device view of a bring-up context for node `ni` (c->dp, c->mig, c->mig_external). */
void gs_devices_run_ctx(struct gs_runner *r, int ni, struct gs_bringup_ctx *c);

/* The model set nvidia.com/gpu allocatable (capacity when `capacity`) of node `ni` to `amount`
 * healthy (registered) GPUs, `unhealthy` the bitmap of GPUs marked Unhealthy: write what the
 * device plugin advertises under the node's config and MIG layouts instead (an Unhealthy GPU
 * takes its replicas and MIG devices with it), one node_event row per resource whose amount
 * changed. *grew is set when some allocatable amount grew, *changed when any amount changed. */
void gs_devices_run_advertise(struct gs_runner *r, int ni, bool capacity, int64_t amount, uint64_t unhealthy,
                              bool *grew, bool *changed);

/* mig-manager's pod became Running on node `ni`: it applies the node's nvidia.com/mig.config. */
void gs_devices_run_mig_started(struct gs_runner *r, int ni);

/* Node `ni`'s labels were changed by a scenario event: a new nvidia.com/device-plugin.config
 * restarts the device plugin with that config; a new nvidia.com/mig.config is applied by
 * mig-manager (when it runs). */
void gs_devices_run_labels_changed(struct gs_runner *r, int ni);

/* Handler of GS_EV_DEVICES (a = node, b = token): a MIG reconfiguration is over. */
void gs_devices_run_on_timer(struct gs_engine *eng, const struct gs_event *ev, void *ctx);

/* The kubelet admits pod `pod` on its node: the device plugin's Allocate check for each of its
 * nvidia.com/ resources (gs_dp_allocate_check), per container (the template's container_max).
 * Returns true when admitted; otherwise the pod
 * has been failed (reason UnexpectedAdmissionError, message `Pod was rejected: ...`). */
bool gs_devices_run_admit(struct gs_runner *r, int pod);

/* Pod `pod` was bound to its node: its GPUs (whole or a share) are taken on that node and
 * written to the trace (pod_event GpuAllocated "node gpu=<i>[,<j>...] milli=<m>"); on a node
 * without shares (replicas, MIG devices) the device plugin's devices it gets (pod_event
 * DeviceAllocated per device, see devices_run.c), and the devices of its DRA claims
 * (gs_dra_run_trace_devices). */
void gs_devices_run_bound(struct gs_runner *r, int pod);
/* Pod `pod` leaves its node (before gs_world_unassign): its GPUs and devices are given back. */
void gs_devices_run_released(struct gs_runner *r, int pod);

/* The share request of pod `pod` (gs_gpushare_pod_req: annotation alibabacloud.com/gpu-milli,
 * or nvidia.com/gpu whole GPUs); false when the pod asks for no GPU through either. */
bool gs_devices_pod_request(const struct gs_runner *r, int pod, struct gs_gpushare_req *req);

/* bringup_run.c, for this layer: set (value NULL: remove) `n` labels of node `ni` as one node
 * update (operands re-read their deploy labels); restart the node's device-plugin pod and GFD
 * (a new device-plugin config). */
void gs_bringup_run_set_labels(struct gs_runner *r, int ni, const char *const *keys, const char *const *values, int n);
void gs_bringup_run_plugin_restart(struct gs_runner *r, int ni);

#endif
