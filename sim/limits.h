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
                           * LeaderWorkerSet's replicas x size, and the groups its `scale`
                           * events create), and listed pods */
    int64_t memory_bytes; /* upper bound of the run's peak resident memory, bytes:
                           * GS_MEM_BASE + nodes x GS_MEM_PER_NODE + pods x GS_MEM_PER_POD, and
                           * for a LeaderWorkerSet's pods (GS_MEM_PER_LWS_POD + its template's
                           * labels x GS_MEM_PER_LABEL) each, and with Kueue
                           * GS_MEM_PER_KUEUE_WORKLOAD per Workload it may create; a pod
                           * template per gpusPerPod count and 8 bytes per empirical
                           * duration value */
};

/* Measured on x86-64 (docs/scenario-format.md "Limits and memory" shows how), rounded up with
 * room for arrays that grow by doubling. */
#define GS_MEM_BASE (64LL << 20)     /* the binary, catalogs, SQLite's page cache (16 MiB) */
#define GS_MEM_PER_NODE (8LL << 10)  /* a node with its labels and every controller's state */
#define GS_MEM_PER_POD 640LL         /* a pod with its trace and controller state */
/* On top of GS_MEM_PER_POD, a LeaderWorkerSet pod has its own pod template (its group-index and
 * worker-index labels differ from every other pod's; sim/controllers/lws.c): the template
 * (1,336 bytes on x86-64) and its label array of three more pairs than the LeaderWorkerSet's
 * template has, 16 bytes a pair. Measured: 100,000 LWS pods peak at 212 MiB (2.2 KiB a pod with
 * the base), 100,000 plain pods at 77 MiB. */
#define GS_MEM_PER_LWS_POD 1408LL     /* the template, rounded up, and the three labels */
#define GS_MEM_PER_LABEL 16LL         /* each label of the LeaderWorkerSet's template, per pod */
/* With Kueue (spec.objects has Kueue objects), each Kueue Workload the run may create (an
 * arrival of a workload, a LeaderWorkerSet's group, a listed pod): its record, conditions and
 * objects, and the pod template Kueue injects the flavor into (sim/controllers/kueue.c). Measured:
 * 40,000 one-pod Workloads peak at 151 MiB against 40,000 pods without Kueue at 31 MiB (3.1 KiB a Workload). */
#define GS_MEM_PER_KUEUE_WORKLOAD 4096LL

/* Sizes of `sc` (loaded). Pure arithmetic on the scenario; saturates instead of overflowing. */
void gs_scenario_size(const struct gs_scenario *sc, struct gs_scenario_size *out);

/* The pods one workload creates over the run without replacements (as gs_scenario_size). */
int64_t gs_scenario_workload_pods(const struct gs_scenario *sc, int wi);

#endif
