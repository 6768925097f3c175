/* gpusim: the size limits of a scenario, and what a run of it needs in memory
 * (documented in docs/scenario-format.md, "Limits and memory").
 *
 * Every accepted scenario runs in bounded memory: the loader refuses a scenario whose nodes or
 * planned pods exceed the limits below (gs_scn_limits, an error at spec.cluster or at the
 * workload), and a run stops with an error when its pods, counting replacements, would pass
 * GS_MAX_PODS (sim/cluster/pods.c). Samples stream to the trace, so the horizon does not count.
 */
#ifndef GPUSIM_SIM_LIMITS_H
#define GPUSIM_SIM_LIMITS_H

#include <stdint.h>

#include "sim/scenario.h"

/* Nodes across all pools and snapshots. */
#define GS_MAX_NODES 100000
/* Pods created over a run, replacements included. */
#define GS_MAX_PODS 5000000

/* What a run of a scenario needs: its sizes and an upper bound of its memory. */
struct gs_scenario_size {
    int64_t nodes;        /* nodes across pools (snapshots included) */
    int64_t pods;         /* pods the workloads create over the run without replacements: arrivals
                           * (those of `every` up to the horizon) x pods per arrival (a Job's
                           * completions or parallelism plus its backoffLimit, a
                           * LeaderWorkerSet's replicas x size), and listed pods */
    int64_t memory_bytes; /* upper bound of the run's peak resident memory, bytes:
                           * GS_MEM_BASE + nodes x GS_MEM_PER_NODE + pods x GS_MEM_PER_POD */
};

/* Measured on x86-64 (docs/scenario-format.md "Limits and memory" shows how), rounded up with
 * room for arrays that grow by doubling. */
#define GS_MEM_BASE (64LL << 20)     /* the binary, catalogs, SQLite's page cache (16 MiB) */
#define GS_MEM_PER_NODE (8LL << 10)  /* a node with its labels and every controller's state */
#define GS_MEM_PER_POD 640LL         /* a pod with its trace and controller state */

/* Sizes of `sc` (loaded). Pure arithmetic on the scenario; saturates instead of overflowing. */
void gs_scenario_size(const struct gs_scenario *sc, struct gs_scenario_size *out);

/* The pods one workload creates over the run without replacements (as gs_scenario_size). */
int64_t gs_scenario_workload_pods(const struct gs_scenario *sc, int wi);

#endif
