/* gpusim: one kube-scheduler scheduling cycle (filter, score, select, FailedScheduling text,
 * DefaultPreemption dry run) over a gs_world. The queue is in queue.h.
 *
 * Mirrors kubernetes pkg/scheduler/schedule_one.go (schedulePod, findNodesThatFitPod,
 * findNodesThatPassFilters, numFeasibleNodesToFind, prioritizeNodes, selectHost),
 * framework/types.go (FitError.Error), framework/runtime/framework.go
 * (RunFilterPluginsWithNominatedPods, RunPostFilterPlugins),
 * framework/plugins/{nodeunschedulable,nodename,tainttoleration,nodeaffinity,noderesources}
 * and framework/preemption/preemption.go + plugins/defaultpreemption/default_preemption.go.
 * See ../shared/reference/kube-scheduler.md. Releases 1.28 to 1.35 (cfg.k8s_minor).
 *
 * Units: as in world.h (cpu millicores, memory and ephemeral-storage bytes, others counts).
 * Scores are integers: each plugin 0..100 after normalisation, times its weight.
 */
#ifndef GPUSIM_SCHED_H
#define GPUSIM_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rng.h"
#include "models/world.h"

/* Plugin ids; a status names the plugin that produced it; masks use 1u << id.
 * The first GS_PL_MODELLED ids are simulated. The ones after are the other in-tree plugin names
 * a KubeSchedulerConfiguration may list (pkg/scheduler/framework/plugins/names/names.go): they
 * are accepted (weights and enable flags are stored) but gpusim treats them as no-ops, which is
 * what they do for the pods gpusim models: no host ports, no volumes, no topology spread
 * constraints or pod (anti-)affinity, no images; PrioritySort is the queue's order (queue.h),
 * DefaultBinder always succeeds, SchedulingGates has no gates to wait for. */
enum gs_plugin {
    GS_PL_NODE_UNSCHEDULABLE = 0,
    GS_PL_NODE_NAME,
    GS_PL_TAINT_TOLERATION,
    GS_PL_NODE_AFFINITY,
    GS_PL_NODE_RESOURCES_FIT,
    GS_PL_DYNAMIC_RESOURCES,
    GS_PL_BALANCED_ALLOCATION,  /* "NodeResourcesBalancedAllocation" */
    GS_PL_DEFAULT_PREEMPTION,
    GS_PL_COSCHEDULING,         /* scheduler-plugins Coscheduling (out of tree; off by default) */
    /* The FGD paper's policies (hkust-adsl/kubernetes-scheduler-simulator; out of tree, score
     * only, off by default; models/sched/scores/fgd_policies.c), in this order: */
    GS_PL_RANDOM_SCORE,         /* "RandomScore" */
    GS_PL_DOT_PRODUCT_SCORE,    /* "DotProductScore" */
    GS_PL_GPU_CLUSTERING_SCORE, /* "GpuClusteringScore" */
    GS_PL_GPU_PACKING_SCORE,    /* "GpuPackingScore" */
    GS_PL_BEST_FIT_SCORE,       /* "BestFitScore" */
    GS_PL_FGD_SCORE,            /* "FGDScore" */
    GS_PL_MODELLED,             /* ids below are simulated, ids from here on are inert */
    GS_PL_PRIORITY_SORT = GS_PL_MODELLED,
    GS_PL_SCHEDULING_GATES,
    GS_PL_NODE_PORTS,
    GS_PL_VOLUME_RESTRICTIONS,
    GS_PL_EBS_LIMITS,
    GS_PL_GCE_PD_LIMITS,
    GS_PL_NODE_VOLUME_LIMITS,
    GS_PL_AZURE_DISK_LIMITS,
    GS_PL_VOLUME_BINDING,
    GS_PL_VOLUME_ZONE,
    GS_PL_POD_TOPOLOGY_SPREAD,
    GS_PL_INTER_POD_AFFINITY,
    GS_PL_IMAGE_LOCALITY,
    GS_PL_DEFAULT_BINDER,
    GS_PL_COUNT
};
/* Upstream plugin name ("NodeResourcesFit"...); "Unknown" for an id out of range. Static. */
const char *gs_plugin_name(enum gs_plugin p);
/* Plugin id by upstream name (exact, case-sensitive as in a KubeSchedulerConfiguration), -1 when
 * it is not an in-tree plugin name gpusim knows (modelled or inert). */
int gs_plugin_find(const char *name);
/* True for the plugins gpusim simulates (id < GS_PL_MODELLED). */
bool gs_plugin_is_modelled(enum gs_plugin p);

enum gs_status_code {
    GS_ST_SUCCESS = 0,
    GS_ST_UNSCHEDULABLE,
    GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE,
    GS_ST_ERROR,
    GS_ST_SKIP
};

enum gs_scoring_strategy { GS_SCORE_LEAST_ALLOCATED = 0, GS_SCORE_MOST_ALLOCATED, GS_SCORE_RTCR };

#define GS_SCHED_MAX_SCORE_RES 16
#define GS_SCHED_MAX_SHAPE 16

struct gs_shape_point {
    int64_t utilization; /* 0..100, strictly increasing along the shape */
    int64_t score;       /* 0..10 (scaled ×10 when used) */
};

/* One KubeSchedulerConfiguration profile, already defaulted as upstream does
 * (pkg/scheduler/apis/config/v1/defaults.go, default_plugins.go). Resource names are world
 * resource indexes. */
struct gs_sched_config {
    int k8s_minor;                /* 28..35: which release's rules and strings */
    bool dra_enabled;             /* DynamicResources plugin on (default: minor >= 34): its
                                   * PostFilter adds "no new claims to deallocate" */
    int percentage_of_nodes_to_score; /* 0 = adaptive; 1..100 */
    bool tiebreak_first;          /* lowest node index (first in filter order) instead of seeded
                                   * reservoir sampling; also preemption's dry-run offset 0 */
    /* Filter (and, for DefaultPreemption, PostFilter) enablement per plugin. */
    bool filter_enabled[GS_PL_COUNT];
    bool score_enabled[GS_PL_COUNT];
    int64_t score_weight[GS_PL_COUNT]; /* defaults: TaintToleration 3, NodeAffinity 2, Fit 1,
                                        * Balanced 1, PodTopologySpread 2, InterPodAffinity 2,
                                        * ImageLocality 1 */
    enum gs_scoring_strategy strategy;
    int nscore_res;
    int score_res[GS_SCHED_MAX_SCORE_RES];     /* world resource index */
    int64_t score_res_weight[GS_SCHED_MAX_SCORE_RES];
    int nshape;
    struct gs_shape_point shape[GS_SCHED_MAX_SHAPE];
    int nbalanced_res;
    int balanced_res[GS_SCHED_MAX_SCORE_RES];
    /* NodeResourcesFit args ignoredResources / ignoredResourceGroups (added by the scenario
     * loader): resource names, and group prefixes before '/', the Fit filter does not check.
     * Arena strings; 0 entries by default. */
    int nignored_res;
    const char *ignored_res[GS_SCHED_MAX_SCORE_RES];
    int nignored_groups;
    const char *ignored_groups[GS_SCHED_MAX_SCORE_RES];
    const char *scheduler_name;   /* "default-scheduler" */
    /* Release-dependent rules that also changed in patch releases; gs_sched_config_default sets
     * them from k8s_minor, a scenario may override them. */
    bool taint_reason_generic;    /* TaintToleration says "node(s) had untolerated taint(s)"
                                   * (kubernetes PR 134740: 1.35; cherry-picked into 1.34 patch
                                   * releases by PR 135023). Default minor >= 35. */
    bool fit_unresolvable;        /* NodeResourcesFit returns UnschedulableAndUnresolvable when a
                                   * request exceeds the node's allocatable (PR 131345). Default
                                   * minor >= 34. */
    bool balanced_skip_best_effort; /* BalancedAllocation skipped for pods requesting none of its
                                   * resources (PR 130260). Default minor >= 33. */
    /* Gang scheduling of PodGroups (gs_group). filter_enabled[GS_PL_COSCHEDULING]: the
     * Coscheduling plugin's PreFilter, PostFilter and QueueSort run (its profile entry, or
     * gang admission). gang_admission (scheduler.admission: gang): a group is placed all at
     * once or not at all (the run loop's group cycle) instead of waiting at Permit. */
    bool gang_admission;
    int64_t permit_wait_us;       /* CoschedulingArgs.permitWaitingTimeSeconds, µs (default 60 s) */
    int64_t pg_backoff_us;        /* CoschedulingArgs.podGroupBackoffSeconds, µs (default 0: off) */
    /* DefaultPreemptionArgs (defaults 10 and 100). */
    int min_candidate_nodes_percentage;
    int min_candidate_nodes_absolute;
};

/* Fill `c` with upstream defaults for release 1.`k8s_minor` (LeastAllocated over cpu and memory
 * weight 1, BalancedAllocation over cpu and memory, all default plugins enabled with their
 * default weights, DynamicResources from 1.34, adaptive percentageOfNodesToScore).
 * Follows pkg/scheduler/apis/config/v1/defaults.go and default_plugins.go. Never fails. */
void gs_sched_config_default(struct gs_sched_config *c, int k8s_minor);

/* The filter status of one node for one pod (the first failing plugin's, all its reasons). */
#define GS_MAX_REASONS 8
struct gs_node_status {
    enum gs_status_code code;
    enum gs_plugin plugin;
    int nreasons;
    const char *reasons[GS_MAX_REASONS]; /* static strings or the scheduler's scratch (valid
                                          * until the next call into the scheduler) */
};

/* Outcome of gs_sched_cycle. */
struct gs_cycle_result {
    int node;                  /* chosen node, -1 when unschedulable */
    const char *message;       /* FailedScheduling text (scheduler-owned, valid until the next
                                * cycle), NULL on success */
    uint32_t unsched_plugins;  /* plugins that rejected the pod on some node (for requeue) */
    /* DefaultPreemption result when the pod did not fit and a candidate was found: */
    int nominated_node;        /* -1 when none; the caller sets pod->nominated_node */
    int nvictims;
    int *victims;              /* pod indexes to evict (scheduler-owned, valid until the next
                                * cycle), most important first */
    int nlost;                 /* lower-priority pods nominated to nominated_node: the caller
                                * clears their nominated_node (preemption.go prepareCandidate) */
    int *lost;                 /* pod indexes (scheduler-owned, valid until the next cycle) */
    bool clear_nomination;     /* the PostFilter found no candidate: the caller clears the pod's
                                * nominated_node (NewPostFilterResultWithNominatedNode("")) */
    int feasible;              /* number of feasible nodes found */
    int evaluated;             /* nodes evaluated by filters (feasible + with a status) */
    int64_t score;             /* total score of the chosen node; 0 when scoring did not run */
    bool reject_group;         /* Coscheduling PostFilter rejected the pod's PodGroup: the caller
                                * rejects the group's pods waiting at Permit */
};

struct gs_sched;

/* Create a scheduler over `w` (borrowed: it must outlive the scheduler; the scheduler never
 * writes to it) with a copy of `cfg`. `rng` (borrowed) supplies the tie-break stream
 * (GS_STREAM_TIEBREAK: selectHost ties and the preemption dry-run offset); NULL behaves as
 * cfg.tiebreak_first. NULL when out of memory.
 *
 * Between cycles the scheduler keeps copies of node data and per-template filter results
 * (models/sched/cache.c), brought up to date from the world's node-change log at each cycle.
 * Pods placed or removed through gs_world_assign/unassign and nodes added through
 * gs_world_add_node are logged; any other change to an existing node (labels, taints,
 * unschedulable or exists flag, capacity, allocatable) must be followed by gs_node_touch
 * (world.h) before the next cycle. Pod templates must not change while the scheduler lives.
 * Debug builds (no NDEBUG) check every cached value against the world and abort with a
 * GS_ASSERT on a missed touch. */
struct gs_sched *gs_sched_new(const struct gs_world *w, const struct gs_sched_config *cfg,
                              struct gs_rng *rng);
/* Free `s` and everything it owns (NULL is fine). */
void gs_sched_free(struct gs_sched *s);
/* The scheduler's copy of its configuration (borrowed). */
const struct gs_sched_config *gs_sched_get_config(const struct gs_sched *s);

/* Run one scheduling cycle for pod `p` against the current world: PreFilter, the nominated node
 * first, Filter (with nominated pods), and either Score + selectHost, or the FitError message
 * and the PostFilter (DynamicResources "no new claims to deallocate" from 1.34, DefaultPreemption
 * dry run). Does not modify the world: the caller assumes/binds the pod, or evicts the victims
 * and sets the nomination. Out of memory while growing scratch space gives node -1 and the
 * message "scheduler: out of memory".
 * Cost: a cycle that binds walks the nodes from nextStartNodeIndex until enough fit; a cycle
 * that fails for a template that failed before costs O(nodes changed since) plus the dry run
 * on nodes holding lower-priority pods, and returns the same message text (same pointer) as
 * long as nothing it depends on changed. */
void gs_sched_cycle(struct gs_sched *s, int p, struct gs_cycle_result *out);

struct gs_fgd_world_typical;
/* The typical-pod set FGDScore measures fragmentation with (fgd_world.h; borrowed: it must
 * outlive the scheduler or be replaced first). Without one FGDScore sees no fragmentation and
 * scores every node 50. A no-op unless FGDScore is enabled. Returns 0. */
int gs_sched_set_fgd_typical(struct gs_sched *s, const struct gs_fgd_world_typical *wt);

/* FGDScore's choice of GPU for pod `pod`'s share on node `node` (fgd_score.go: of the GPUs with
 * enough free milli, the one whose use leaves the least fragmentation; the lower index on
 * ties), on the node as it is now without the pod (when the pod is already assumed there, its
 * CPU is given back first). -1 when FGDScore is not enabled, the pod asks for no share, or out of
 * memory: the caller then uses the default rule (best fit, gpushare.h). `s` may be NULL. */
int gs_sched_share_gpu(struct gs_sched *s, int pod, int node);

/* The run's clock (µs), read by the Coscheduling PreFilter (PodGroup backoff). */
void gs_sched_set_now(struct gs_sched *s, gs_time now);

/* Tell the scheduler that pod `p` carries a nominatedNodeName set outside gs_sched_cycle (the
 * scheduler already tracks the nominations it hands out and those present at gs_sched_new).
 * Nominated pods reserve room on their node for pods of lower or equal priority. 0 or
 * GS_ENOMEM. */
int gs_sched_track_nominated(struct gs_sched *s, int p);

/* Filter one node for pod `p` (all filter plugins in order, stopping at the first failure),
 * ignoring nominated pods and PreFilter results. For tests, `explain` and preemption. */
void gs_sched_filter_node(struct gs_sched *s, int p, int node, struct gs_node_status *st);

/* Weighted total score of node `node` for pod `p` among the given feasible nodes (the
 * normalisation of TaintToleration and NodeAffinity is over that set; `node` must be in it).
 * For tests/explain. -1 on out of memory or when `node` is not in `feasible`. */
int64_t gs_sched_score_node(struct gs_sched *s, int p, const int *feasible, int nfeasible, int node);

/* numFeasibleNodesToFind (schedule_one.go) for `nnodes` candidate nodes with the configured
 * percentageOfNodesToScore (ignoring the "no score plugins → 1" rule). */
int gs_sched_num_feasible_to_find(const struct gs_sched_config *cfg, int nnodes);

#endif
