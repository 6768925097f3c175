/* gpusim internal: the Devices section of `gpusim describe` (reports/describe_devices.c). */
#ifndef GPUSIM_REPORTS_DESCRIBE_DEVICES_H
#define GPUSIM_REPORTS_DESCRIBE_DEVICES_H

#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

/* Print node `id`'s devices at `at_us` from the trace alone: each GPU (node.gpu_count), its MIG
 * layout (the latest node_event row of kind Mig, subject "GPU <i>", at or before at_us; none:
 * MIG disabled) and the pods holding it (pod_event GpuAllocated "<node> gpu=<i>[,<j>] milli=<m>"
 * of pods bound to the node and not finished at at_us), with the free milli-GPU left. Nothing
 * for a node without GPUs. Returns 0 or GS_ESQL. */
int gs_describe_devices(sqlite3 *db, int64_t id, int64_t at_us, FILE *out);

#endif
