/* gpusim internal: the Devices section of `gpusim describe` (reports/describe_devices.c). */
#ifndef GPUSIM_REPORTS_DESCRIBE_DEVICES_H
#define GPUSIM_REPORTS_DESCRIBE_DEVICES_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

/* Print node `id`'s devices at `at_us` from the trace alone: each GPU (node.gpu_count), its MIG
 * layout (the latest node_event row of kind Mig, subject "GPU <i>", at or before at_us; none:
 * MIG disabled) and who holds it, from the pod_event rows of pods bound to the node, written at
 * or before at_us, of pods not finished at at_us:
 *   GpuAllocated "<node> gpu=<i>[,<j>] milli=<m>" (shares and whole GPUs: free milli left),
 *   DeviceAllocated "<node> <resource> gpu=<i>[ mig=<profile> start=<s>][ replica=<k>/<n>]"
 *   (the device plugin: a whole GPU, one line per MIG device or replica held under the GPU),
 *   DeviceAllocated "<node> claim=<c> request=<r> device=<d> gpu=<i>" (DRA; a device shared by
 *   several pods through one claim counts once).
 * Lines: "  GPU <i>  <layout>  free <m>m  <owners>" | "MIG devices <held>/<instances> in use" |
 * "replicas <held>/<n> in use", then "          MIG <profile> start <s>  <pods>" or
 * "          replica <k>  <pod>". Nothing for a node without GPUs. Returns 0, GS_ESQL or
 * GS_ENOMEM. */
int gs_describe_devices(sqlite3 *db, int64_t id, int64_t at_us, FILE *out);

#endif
