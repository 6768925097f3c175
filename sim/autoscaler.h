/* gpusim: the Cluster Autoscaler's configuration, as a scenario gives it (node pools'
 * `autoscaling` and spec.autoscaler; loaded by sim/scenario/autoscaling.c, run by
 * sim/controllers/autoscaler.c, documented in docs/scenario-format.md "Cluster Autoscaler").
 *
 * Upstream: kubernetes/autoscaler cluster-autoscaler, release 1.35.2: config/flags/flags.go and
 * config/const.go (the flags and their defaults), expander/ (the expanders),
 * expander/priority/priority.go (the priority expander's ConfigMap). Times are µs.
 */
#ifndef GPUSIM_SIM_AUTOSCALER_H
#define GPUSIM_SIM_AUTOSCALER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/time.h"
#include "models/catalog.h"

/* --expander names (expander/expander.go): least-waste (the default), most-pods, random,
 * priority. */
enum gs_as_expander { GS_AS_LEAST_WASTE = 0, GS_AS_MOST_PODS, GS_AS_RANDOM, GS_AS_PRIORITY };
#define GS_AS_MAX_EXPANDERS 4

/* One node pool as a node group (nodePools[i].autoscaling). */
struct gs_as_group {
    bool enabled;             /* the pool has `autoscaling` */
    int min_size, max_size;   /* 0 <= min <= count <= max */
    struct gs_dur provisioning; /* the cloud provider's time from the resize to the node joining
                               * (fixed or a distribution, drawn per node) */
};

/* One entry of the priority expander's `priorities` (priority -> regexes over group names). */
struct gs_as_priority {
    int64_t priority;
    const char *const *regex; /* arena, POSIX extended syntax (checked at load); `nregex` of them */
    int nregex;
};

struct gs_autoscaler_spec {
    struct gs_as_group *groups;     /* per pool, world.npools entries (arena) */
    gs_time scan_interval;          /* --scan-interval, 10s */
    int nexpanders;                 /* --expander, a comma chain: least-waste */
    enum gs_as_expander expanders[GS_AS_MAX_EXPANDERS];
    const char *expander_text;      /* the chain as written ("priority,least-waste") */
    gs_time max_node_provision_time; /* --max-node-provision-time, 15m */
    bool scale_down_enabled;        /* --scale-down-enabled, true */
    double util_threshold;          /* --scale-down-utilization-threshold, 0.5 */
    double gpu_util_threshold;      /* --scale-down-gpu-utilization-threshold, 0.5 */
    gs_time unneeded_time;          /* --scale-down-unneeded-time, 10m */
    gs_time delay_after_add;        /* --scale-down-delay-after-add, 10m */
    gs_time initial_backoff;        /* --initial-node-group-backoff-duration, 5m */
    gs_time max_backoff;            /* --max-node-group-backoff-duration, 30m */
    gs_time backoff_reset;          /* --node-group-backoff-reset-timeout, 3h */
    int max_empty_bulk_delete;      /* --max-empty-bulk-delete, 10 */
    gs_time new_pod_scale_up_delay; /* --new-pod-scale-up-delay, 0 */
    struct gs_as_priority *priorities; /* the priority expander's ConfigMap (arena) */
    int npriorities;
};

#endif
