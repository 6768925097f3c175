/* gpusim: the sampled metrics, written once.
 *
 * GS_METRICS lists every metric in the order of the trace's sample columns: its camelCase name
 * (the name an `expect: metric:` check uses), the sample column, the column's SQL type (INT or
 * REAL), and what it counts. It is expanded into struct gs_metrics, the trace's sample table
 * and INSERT (sim/trace.c), the loader's list of known metrics (sim/scenario/expect.c) and the
 * lookup by name (sim/metrics.c). Add a metric here and fill it in gs_metrics_now (or in a
 * controller's metrics hook); everything else follows.
 */
#ifndef GPUSIM_SIM_METRICS_H
#define GPUSIM_SIM_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/stats.h"
#include "base/time.h"

/* X(name, column, SQL type, description). REAL metrics are NaN (a NULL cell) while not measured. */
#define GS_METRICS(X)                                                                                    \
    X(nodesReady, nodes_ready, INT, "nodes that exist and are Ready (not rebooting)")                   \
    X(gpusCapacity, gpus_capacity, INT, "capacity nvidia.com/gpu summed over the nodes")                \
    X(gpusAllocatable, gpus_allocatable, INT, "allocatable nvidia.com/gpu summed over the nodes")       \
    X(gpusAllocated, gpus_allocated, INT,                                                               \
      "GPUs allocated: requested nvidia.com/gpu, or GPUs holding a gpu-milli share if more")           \
    X(podsPending, pods_pending, INT, "pods Pending (whole-cluster rows; 0 in per-pool rows)")          \
    X(podsRunning, pods_running, INT, "pods Running")                                                   \
    X(fragGpus, frag_gpus, REAL, "GPUs fragmented (FGD measure over the typical pods)")                 \
    X(gpusHeldByIncompleteGroups, gpus_held_by_incomplete_groups, INT,                                  \
      "GPUs held by PodGroups with fewer than minMember pods Running (whole-cluster rows)")

#define GS_METRIC_CTYPE_INT int64_t
#define GS_METRIC_CTYPE_REAL double

/* One sample: the whole cluster (pool -1) or one node pool, at time t (µs). */
struct gs_metrics {
    gs_time t;
#define GS_METRIC_FIELD(name, column, type, what) GS_METRIC_CTYPE_##type column;
    GS_METRICS(GS_METRIC_FIELD)
#undef GS_METRIC_FIELD
};

/* The metric names, in list order, NULL-terminated (static). */
extern const char *const gs_metric_names[];

/* Value of metric `name` (camelCase) in `m`; false when no metric has that name. */
bool gs_metrics_get(const struct gs_metrics *m, const char *name, double *out);

struct gs_cluster;
/* The whole-cluster metrics now (pool -1) or those of node pool `pool`. A controller that runs
 * out of memory computing its part records it in the cluster (the run then fails). */
void gs_metrics_now(struct gs_cluster *c, int pool, struct gs_metrics *m);
/* Write the whole-cluster and per-pool sample rows for time `t` and keep the whole-cluster one
 * for metric windows (a sample at the time of the last kept one replaces it). 0, GS_ENOMEM or
 * GS_ESQL. */
int gs_metrics_sample(struct gs_cluster *c, gs_time t);

/* The run's last sample, at its end `t`: it replaces the rows of a sample taken at the same
 * time (gs_trace_sample_drop_last), so the trace has one row per time and pool. 0, GS_ENOMEM or
 * GS_ESQL. */
int gs_metrics_final_sample(struct gs_cluster *c, gs_time t);

/* GPU-time over the samples so far, for the study metrics (sim/objective.h: utilisation,
 * gpuHoursAllocated, incompleteGroupGpuHours): each sample's gpus_allocated, gpus_allocatable
 * and gpus_held_by_incomplete_groups hold until the next sample, as the report integrates the
 * trace's sample rows (reports/study.c), both with base/stats.h's gs_step_integral, so a
 * `stat:` check and the report of its trace agree exactly. */
struct gs_gpu_time {
    struct gs_step_integral allocated, allocatable; /* GPUs; sums in GPU-µs to the latest sample */
    struct gs_step_integral held_incomplete; /* GPUs held by incomplete PodGroups (0 in pool slots) */
};

/* The GPU-time of the whole cluster (pool -1) or of pool `pool` up to the latest sample; NULL
 * before the first sample. */
const struct gs_gpu_time *gs_metrics_gpu_time(const struct gs_cluster *c, int pool);

#endif
