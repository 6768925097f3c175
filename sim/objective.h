/* gpusim: the study metrics' names and their computation over pods (sim/objective.c).
 *
 * A study metric is named as docs/trace-schema.md "Study metrics" lists (the contract the
 * report, compare, plan and the scenario's `stat:` check share):
 *
 *   p50|p90|p95|p99|max|mean(timeToSchedule|timeToRunning[, workload=NAME | priority=N])
 *   pendingAtEnd[(workload=NAME | priority=N)]     pods created, never bound, not ended at the end
 *   pendingGpuHours                                GPUs × hours pods waited unbound
 *   utilisation[(pool=NAME)]                       time-weighted allocated / allocatable GPUs
 *   nodeHours[(pool=NAME)]   cost[(pool=NAME)]     node-hours from joining to deletion or the end
 *   gpuHoursAllocated[(pool=NAME)]                 GPU-hours allocated (samples' gpus_allocated)
 *   incompleteGroupGpuHours                        GPU-hours held by PodGroups with fewer than
 *                                                  minMember pods Running (samples'
 *                                                  gpus_held_by_incomplete_groups); no value
 *                                                  when the run had no PodGroup
 *
 * gs_objective_parse turns such a name into a struct gs_objective; reports/study.c looks the
 * value up in the report's JSON document (gs_study_metric), sim/check.c computes it at the end
 * of a run for a `stat:` check. Both take the pod statistics from gs_study_pods_compute, which
 * takes its percentiles from base/stats.h, so a check and the report of its trace agree exactly.
 *
 * Definitions, over the pods the trace's `pod` table holds (one per pod object):
 *   time to schedule  scheduled_us - created_us, over pods that were bound
 *   time to running   started_us - created_us, over pods that started
 *   pending at end    pods never bound and not ended (no finished_us, phase Pending) at the end;
 *                     age end - created
 *   pending GPU-hours sum of gpu × (first of scheduled_us, finished_us, the end) - created_us
 * Times are reported in seconds, *Hours in hours.
 */
#ifndef GPUSIM_SIM_OBJECTIVE_H
#define GPUSIM_SIM_OBJECTIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/stats.h"
#include "base/time.h"

/* The statistic of a per-pod time (GS_OBJ_VALUE for the metrics that are one number). */
enum gs_obj_stat { GS_OBJ_P50, GS_OBJ_P90, GS_OBJ_P95, GS_OBJ_P99, GS_OBJ_MAX, GS_OBJ_MEAN, GS_OBJ_VALUE };

enum gs_obj_metric {
    GS_OBJ_TIME_TO_SCHEDULE, /* seconds */
    GS_OBJ_TIME_TO_RUNNING,  /* seconds */
    GS_OBJ_PENDING_AT_END,   /* pods */
    GS_OBJ_PENDING_GPU_HOURS,
    GS_OBJ_UTILISATION,      /* 0..1 */
    GS_OBJ_NODE_HOURS,
    GS_OBJ_COST,
    GS_OBJ_GPU_HOURS_ALLOCATED,        /* GPU-hours */
    GS_OBJ_INCOMPLETE_GROUP_GPU_HOURS, /* GPU-hours */
};

enum gs_obj_scope { GS_OBJ_CLUSTER, GS_OBJ_WORKLOAD, GS_OBJ_PRIORITY, GS_OBJ_POOL };

#define GS_OBJ_SCOPE_MAX 256

struct gs_objective {
    enum gs_obj_stat stat;
    enum gs_obj_metric metric;
    enum gs_obj_scope scope;
    char scope_value[GS_OBJ_SCOPE_MAX]; /* the workload, priority (decimal) or pool; "" for the cluster */
    int priority;                       /* GS_OBJ_PRIORITY: the value as a number */
};

/* Parse objective name `expr` (whitespace around the parts is ignored). Returns 0, or GS_EINVAL
 * with `err` (size errlen) saying what is wrong in words: "unknown metric 'timeToSchedul' in
 * 'p95(timeToSchedul)' (did you mean 'timeToSchedule'?)", "'pendingGpuHours' takes no
 * scope", ... */
int gs_objective_parse(const char *expr, struct gs_objective *o, char *err, size_t errlen);

/* True when the objective's value is a time (seconds; a `stat:` check's bounds are durations). */
bool gs_objective_is_time(const struct gs_objective *o);

/* The canonical spelling of `o` into buf (size n): "p95(timeToSchedule, workload=x)". */
void gs_objective_format(const struct gs_objective *o, char *buf, size_t n);

/* One pod as the statistics need it: times in µs (-1: never), gpu whole nvidia.com/gpu, ended
 * when it has a finished_us or a final phase (Succeeded, Failed, Rejected, Deleted). */
struct gs_study_pod {
    gs_time created_us, scheduled_us, started_us, finished_us;
    int64_t gpu;
    bool ended;
};

/* The pod statistics of a set of pods (gs_study_pods_compute). */
struct gs_study_pods {
    struct gs_stats_summary to_schedule; /* seconds */
    struct gs_stats_summary to_running;  /* seconds */
    size_t pending;                      /* pending at the end */
    int64_t pending_gpus;                /* the GPUs they request */
    double pending_age_mean, pending_age_max; /* seconds; NaN when none */
    double pending_gpu_hours;
};

/* Pods added one at a time (gs_study_acc_add), so a caller never holds them all: it keeps 8
 * bytes per bound pod, per started pod and per pending pod. Zero-initialise it. */
struct gs_study_acc {
    double *to_schedule, *to_running, *age; /* seconds (base/alloc.h memory) */
    int nsched, nrun, nage;
    int cap_sched, cap_run, cap_age;
    int64_t pending_gpus;
    double gpu_us; /* pending GPU-µs, summed in the order the pods came */
};

/* Add pod `p` as of the end `end_us` (µs). Give pods in pod id order for pending GPU-hours
 * independent of the caller (a floating-point sum). Returns 0 or GS_ENOMEM (the pod is then not
 * counted; the accumulator stays valid). */
int gs_study_acc_add(struct gs_study_acc *a, const struct gs_study_pod *p, gs_time end_us);

/* The statistics of the pods added (the values are sorted in place), into *out; then the
 * accumulator is freed and zeroed, ready for the next set of pods. */
void gs_study_acc_finish(struct gs_study_acc *a, struct gs_study_pods *out);

/* Free an accumulator without reading it (on an error path). */
void gs_study_acc_free(struct gs_study_acc *a);

/* The statistics of pods p[0..n) at the end `end_us` (µs), through an accumulator. Returns 0 or
 * GS_ENOMEM. */
int gs_study_pods_compute(const struct gs_study_pod *p, size_t n, gs_time end_us, struct gs_study_pods *out);

/* The value the statistic `stat` picks from a summary (NaN over 0 values). */
double gs_study_pick(const struct gs_stats_summary *s, enum gs_obj_stat stat);

#endif
