/* gpusim: what a pod asks of the fractional GPU share model (gpushare.h).
 *
 * A pod asks for a share of one GPU with the annotation alibabacloud.com/gpu-milli, the name the
 * Alibaba GPU-sharing traces (clusterdata cluster-trace-gpu-v2023, openb_pod_list) and their
 * simulator (hkust-adsl/kubernetes-scheduler-simulator, open-gpu-share) use: milli-GPU "1".."999"
 * on one GPU, or "1000" for whole GPUs (count from nvidia.com/gpu, else 1). Without the
 * annotation, a pod requesting nvidia.com/gpu: N asks for N whole GPUs. gpusim chooses this
 * annotation over KAI Scheduler's gpu-fraction (a fraction, its own scheduler) because the
 * traces the share model comes from use it.
 */
#ifndef GPUSIM_GPUSHARE_POD_H
#define GPUSIM_GPUSHARE_POD_H

#include <stdbool.h>

#include "models/devices/gpushare.h"
#include "models/world.h"

#define GS_GPU_MILLI_ANNOTATION "alibabacloud.com/gpu-milli"

/* Fill *req from template `t` of world `w` (resource nvidia.com/gpu looked up in w->res).
 * Returns true when the pod asks for GPUs this way; *annotated says whether the annotation gave
 * it (may be NULL). A malformed annotation value (not an integer in 1..1000) counts as no
 * annotation. Whole-GPU counts above GS_GPUS_MAX are clamped to GS_GPUS_MAX + 1 (never fits). */
bool gs_gpushare_pod_req(const struct gs_world *w, const struct gs_pod_template *t, struct gs_gpushare_req *req,
                         bool *annotated);

#endif
