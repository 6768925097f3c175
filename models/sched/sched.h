/* gpusim: kube-scheduler's scheduling framework over a gs_world: a profile's plugins in one
 * table per extension point, the scheduling cycle (PreFilter, Filter, PostFilter with the
 * FailedScheduling text and the DefaultPreemption dry run, PreScore, Score, selectHost) and the
 * binding cycle's points (Reserve, Permit, PreBind, Bind). The queue is in queue.h, the plugin
 * struct and the registry in plugin.h.
 *
 * Mirrors kubernetes pkg/scheduler/schedule_one.go (schedulePod, findNodesThatFitPod,
 * findNodesThatPassFilters, numFeasibleNodesToFind, prioritizeNodes, selectHost),
 * framework/interface.go (the extension points), framework/types.go (FitError.Error),
 * framework/runtime/framework.go (NewFramework, expandMultiPointPlugins, updatePluginList,
 * getScoreWeights and the Run*Plugins functions), apis/config/v1/default_plugins.go and
 * defaults.go (the default profile, mergePluginSet). See ../shared/reference/kube-scheduler.md.
 * Releases 1.28 to 1.35 (cfg.k8s_minor).
 *
 * Units: as in world.h (cpu millicores, memory and ephemeral-storage bytes, others counts); time
 * int64 µs. Scores are integers: each plugin 0..100 after normalisation, times its weight.
 */
#ifndef GPUSIM_SCHED_H
#define GPUSIM_SCHED_H

#include <stdbool.h>
#include <stdint.h>

#include "base/rng.h"
#include "models/world.h"

/* Plugin ids; a status names the plugin that produced it; masks use 1u << id. The first
 * GS_PL_MODELLED ids have behaviour in gpusim (plugin.h: at least one extension-point function).
 * The ones after are the other in-tree plugin names a KubeSchedulerConfiguration may list
 * (pkg/scheduler/framework/plugins/names/names.go): they are accepted (placed in the tables a
 * profile puts them in, weights kept) but have no function, which is what they do for the pods
 * gpusim models: no host ports, no volumes, no topology spread constraints or pod
 * (anti-)affinity, no images, no scheduling gates. plugin.h's registry also knows a few in-tree
 * names of other releases without an id (accepted anywhere and ignored). */
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
     * only, off by default; models/sched/plugins/), in this order: */
    GS_PL_RANDOM_SCORE,         /* "RandomScore" */
    GS_PL_DOT_PRODUCT_SCORE,    /* "DotProductScore" */
    GS_PL_GPU_CLUSTERING_SCORE, /* "GpuClusteringScore" */
    GS_PL_GPU_PACKING_SCORE,    /* "GpuPackingScore" */
    GS_PL_BEST_FIT_SCORE,       /* "BestFitScore" */
    GS_PL_FGD_SCORE,            /* "FGDScore" */
    GS_PL_OPEN_GPU_SHARE,       /* "Open-Gpu-Share" (the FGD simulator's GPU-share filter; always on) */
    GS_PL_PRIORITY_SORT,
    GS_PL_DEFAULT_BINDER,
    GS_PL_MODELLED,             /* ids below have behaviour, ids from here on are inert */
    GS_PL_SCHEDULING_GATES = GS_PL_MODELLED,
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
    GS_PL_COUNT
};
/* Upstream plugin name ("NodeResourcesFit"...); "Unknown" for an id out of range. Static. */
const char *gs_plugin_name(enum gs_plugin p);
/* Plugin id by upstream name (exact, case-sensitive as in a KubeSchedulerConfiguration), -1 when
 * the registry has no plugin of that name with an id (plugin.h gs_plugin_lookup also finds the
 * ignored names of other releases). */
int gs_plugin_find(const char *name);
/* True for the plugins with behaviour in gpusim (id < GS_PL_MODELLED). */
bool gs_plugin_is_modelled(enum gs_plugin p);

/* The extension points (framework/interface.go), in the order of a scheduling attempt. */
enum gs_ext_point {
    GS_EP_PRE_ENQUEUE = 0,
    GS_EP_QUEUE_SORT,
    GS_EP_PRE_FILTER,
    GS_EP_FILTER,
    GS_EP_POST_FILTER,
    GS_EP_PRE_SCORE,
    GS_EP_SCORE,
    GS_EP_RESERVE,
    GS_EP_PERMIT,
    GS_EP_PRE_BIND,
    GS_EP_BIND,
    GS_EP_POST_BIND,
    GS_EP_COUNT
};
#define GS_EP_BIT(pt) (1u << (pt))
/* The point's key in a KubeSchedulerConfiguration's plugins ("preFilter", ...; GS_EP_COUNT:
 * "multiPoint"), and the framework's interface name ("PreFilterPlugin", as NewFramework's
 * errors say; kube-scheduler framework/interface.go). Static strings. */
const char *gs_ext_point_key(enum gs_ext_point pt);
const char *gs_ext_point_interface(enum gs_ext_point pt);

enum gs_status_code {
    GS_ST_SUCCESS = 0,
    GS_ST_UNSCHEDULABLE,
    GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE,
    GS_ST_ERROR,
    GS_ST_SKIP,
    GS_ST_WAIT
};

/* ---------------------------------------------------------------- the profile's plugins */

/* A profile's plugin sets as KubeSchedulerProfile.plugins holds them after defaulting
 * (apis/config/v1/defaults.go mergePlugins): multiPoint (the default plugins merged with the
 * profile's, default_plugins.go), and per extension point the profile's own enabled and
 * disabled lists. gs_sched_new expands them into its tables as NewFramework does. */
#define GS_SCHED_MAX_SET 40
struct gs_plugin_ref {
    const char *name; /* upstream name; borrowed: static (the registry's) or a string that outlives
                       * every config holding it */
    int32_t weight;   /* Score weight; 0: unset (scored with 1, getScoreWeights) */
    int32_t tag;      /* the caller's mark for error reports (the loader's YAML entry); -1: none */
};
struct gs_plugin_set {
    int nenabled;
    struct gs_plugin_ref enabled[GS_SCHED_MAX_SET];
    int ndisabled;
    struct gs_plugin_ref disabled[GS_SCHED_MAX_SET]; /* name "*": every plugin of the set */
};
struct gs_sched_plugins {
    struct gs_plugin_set multi_point;
    struct gs_plugin_set point[GS_EP_COUNT];
};

/* config.PluginSet editing (kubernetes pkg/scheduler/apis/config/types.go). Append `name`
 * (borrowed, see gs_plugin_ref) to the set's enabled list (weight: the Score weight, 0 unset;
 * tag: the caller's) or disabled list ("*": every plugin). 0, or GS_ERANGE when the list
 * already holds GS_SCHED_MAX_SET entries (the set is then unchanged). Names are not checked
 * here: gs_sched_config_resolve does. */
int gs_plugin_set_enable(struct gs_plugin_set *set, const char *name, int32_t weight, int32_t tag);
int gs_plugin_set_disable(struct gs_plugin_set *set, const char *name, int32_t tag);
/* True when `name` is in the set's enabled list. */
bool gs_plugin_set_has(const struct gs_plugin_set *set, const char *name);
/* Drop every enabled entry named `name`. */
void gs_plugin_set_remove(struct gs_plugin_set *set, const char *name);
/* defaults.go mergePlugins: merge `custom` into `dst` (the defaults) set by set with
 * mergePluginSet: `dst`'s enabled plugins in order, less the disabled ones (all of them under
 * "*"), an entry `custom` also enables replaced in place (its weight and tag with it), then
 * `custom`'s other enabled entries; the disabled lists become `custom`'s. 0, or GS_ERANGE when a
 * merged list would exceed GS_SCHED_MAX_SET. */
int gs_sched_plugins_merge(struct gs_sched_plugins *dst, const struct gs_sched_plugins *custom);

/* NewFramework's errors, by name. */
enum gs_profile_errcode {
    GS_PROFILE_OK = 0,
    GS_PROFILE_UNKNOWN_PLUGIN,   /* `<Point>Plugin "X" does not exist` (not in the registry) */
    GS_PROFILE_NOT_EXTENDED,     /* `plugin "X" does not extend <Point>Plugin plugin` (a point's own
                                  * enabled list names a plugin that does not implement it) */
    GS_PROFILE_DUPLICATE,        /* `plugin "X" already registered as "<Point>Plugin"` */
    GS_PROFILE_QUEUE_SORT_COUNT, /* `only one queue sort plugin required for profile with scheduler
                                  * name "N", but got K` */
    GS_PROFILE_NO_BIND,          /* `at least one bind plugin is needed for profile with scheduler
                                  * name "N"` */
};
struct gs_profile_error {
    enum gs_profile_errcode code;
    int set;        /* the set holding the offending entry: GS_EP_* (its own list), GS_EP_COUNT for
                     * multiPoint; -1 when the error is the profile's as a whole */
    int index;      /* the entry's index in that set's enabled list, -1 as for `set` */
    int32_t tag;    /* the entry's tag, -1 as for `set` */
    int count;      /* GS_PROFILE_QUEUE_SORT_COUNT: the QueueSort plugins found */
    const char *name; /* the offending entry's plugin name (borrowed from the profile), or NULL */
    char msg[256];  /* upstream's text */
};

/* ---------------------------------------------------------------- the configuration */

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
    bool dra_enabled;             /* the DynamicResourceAllocation feature gate (default: minor >=
                                   * 34); without it the DynamicResources plugin does nothing */
    int percentage_of_nodes_to_score; /* 0 = adaptive; 1..100 */
    bool tiebreak_first;          /* lowest node index (first in filter order) instead of seeded
                                   * reservoir sampling; also preemption's dry-run offset 0 */
    /* The profile's plugins: what gs_sched_new builds its tables from. */
    struct gs_sched_plugins plugins;
    /* A summary of `plugins` for readers (the run loop, reports, tests), written by
     * gs_sched_config_resolve (and gs_sched_config_default); gs_sched_new does not read it.
     * filter_enabled[p]: p is in the table of its primary point (filter; else postFilter,
     * queueSort, preEnqueue, bind; else score); score_enabled[p]: p is in the Score table, with
     * weight score_weight[p]. */
    bool filter_enabled[GS_PL_COUNT];
    bool score_enabled[GS_PL_COUNT];
    int64_t score_weight[GS_PL_COUNT];
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
    /* Gang scheduling of PodGroups (gs_group) with the Coscheduling plugin. gang_admission
     * (scheduler.admission: gang): a group is placed all at once or not at all (the run loop's
     * group cycle) instead of waiting at Permit. */
    bool gang_admission;
    int64_t permit_wait_us;       /* CoschedulingArgs.permitWaitingTimeSeconds, µs (default 60 s) */
    int64_t pg_backoff_us;        /* CoschedulingArgs.podGroupBackoffSeconds, µs (default 0: off) */
    /* DefaultPreemptionArgs (defaults 10 and 100). */
    int min_candidate_nodes_percentage;
    int min_candidate_nodes_absolute;
};

/* Fill `c` with upstream defaults for release 1.`k8s_minor`: the default plugins in multiPoint
 * (default_plugins.go, DynamicResources before DefaultPreemption from 1.34) with their weights,
 * LeastAllocated over cpu and memory weight 1, BalancedAllocation over cpu and memory,
 * adaptive percentageOfNodesToScore; the summary resolved. Follows
 * pkg/scheduler/apis/config/v1/defaults.go and default_plugins.go. Never fails. */
void gs_sched_config_default(struct gs_sched_config *c, int k8s_minor);

/* Check c->plugins as NewFramework does (framework/runtime/framework.go: updatePluginList and
 * expandMultiPointPlugins per point in getExtensionPoints' order, then exactly one QueueSort
 * plugin, at least one Bind plugin) and, when valid, write c's summary (filter_enabled,
 * score_enabled, score_weight). Returns 0, or GS_EINVAL with the first error in *err (which may
 * be NULL). Names the registry marks as ignored (plugin.h GS_PLF_IGNORED) are accepted anywhere
 * and left out of every table. */
int gs_sched_config_resolve(struct gs_sched_config *c, struct gs_profile_error *err);
/* Drop plugin `name` from every enabled list of c->plugins and resolve the summary again (the
 * loader drops DynamicResources without its feature gate). Returns what
 * gs_sched_config_resolve returns. */
int gs_sched_config_remove_plugin(struct gs_sched_config *c, const char *name);

/* ---------------------------------------------------------------- a scheduling cycle */

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
    bool oom;                  /* the cycle ran out of memory (node -1, the message says so): a
                                * run treats it as its own failure (GS_ENOMEM) */
};

struct gs_sched;

/* Create a scheduler over `w` (borrowed: it must outlive the scheduler; the scheduler never
 * writes to it) with a copy of `cfg`, its tables built from cfg->plugins as NewFramework does
 * (gs_sched_config_resolve; the summary in cfg is not read). `rng` (borrowed) supplies the
 * tie-break stream (GS_STREAM_TIEBREAK: selectHost ties, RandomScore and the preemption dry-run
 * offset); NULL behaves as cfg.tiebreak_first. NULL when out of memory or when cfg->plugins fail
 * gs_sched_config_resolve.
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
/* The profile's QueueSort plugin (borrowed, static; exactly one: gs_sched_new checks it), for
 * gs_queue_set_sort (queue.h). */
const struct gs_sched_plugin *gs_sched_queue_sort(const struct gs_sched *s);
/* The plugins of extension point `pt`'s table as the scheduler runs it (frameworkImpl's
 * per-point slices): the profile's order, the always-on plugins last, inert plugins (no
 * function at the point) left out. Writes at most `max` plugins (borrowed, static) to `out` and
 * their Score weights to `weights` (may be NULL; 0 at points other than Score); returns the
 * table's length. For tests and describe. */
int gs_sched_table(const struct gs_sched *s, enum gs_ext_point pt, const struct gs_sched_plugin **out, int64_t *weights,
                   int max);

/* True when the last call into the scheduler (a cycle, or one of the binding points below) ran out
 * of memory: it then did what it could without the allocation (a cycle returns node -1 and
 * out->oom), and a run treats it as its own failure (GS_ENOMEM). */
bool gs_sched_out_of_memory(const struct gs_sched *s);

/* Run one scheduling cycle for pod `p` against the current world: PreFilter, the nominated node
 * first, Filter (with nominated pods), and either PreScore + Score + selectHost, or the FitError
 * message and the PostFilter plugins (DynamicResources "no new claims to deallocate" from 1.34,
 * DefaultPreemption dry run, Coscheduling), each point's table in the profile's order. Does not
 * modify the world: the caller assumes the pod (gs_world_assign) and runs the binding points
 * below, or evicts the victims and sets the nomination. Out of memory while growing scratch
 * space gives node -1, out->oom and the message "scheduler: out of memory".
 * Cost: a cycle that binds walks the nodes from nextStartNodeIndex until enough fit; a cycle
 * that fails for a template that failed before costs O(nodes changed since) plus the dry run
 * on nodes holding lower-priority pods, and returns the same message text (same pointer) as
 * long as nothing it depends on changed. */
void gs_sched_cycle(struct gs_sched *s, int p, struct gs_cycle_result *out);

/* ---------------------------------------------------------------- observing a cycle */

/* Told what a scheduling cycle saw: the trace at --trace-level full (sim/controllers/
 * scheduler.c), `gpusim explain`, tests. kube-scheduler-simulator shows the same per plugin
 * (its ResultStore records each Filter plugin's verdict and each Score plugin's score per node);
 * upstream kube-scheduler keeps them in the cycle's framework.Diagnosis (NodeToStatus) and
 * prioritizeNodes' NodePluginScores. Every callback may be NULL. Pods and nodes are world
 * indexes; strings are borrowed for the call (static or the scheduler's scratch). Callbacks must
 * not call into the scheduler. */
struct gs_sched_observer {
    void *ctx;
    /* After the Filter phase of gs_sched_cycle for pod `pod`: once per node the cycle has a
     * verdict for, in the order the cycle judged them:
     * - a node that passed every Filter: st->code GS_ST_SUCCESS, no reasons;
     * - a node a Filter rejected: the first failing plugin in the profile's order and all its
     *   reasons (the strings FailedScheduling counts: "Insufficient nvidia.com/gpu", "node(s)
     *   had untolerated taint {k: v}", ...);
     * - a PreFilter rejection (or Error): every node of the snapshot with that plugin, its code
     *   and its one status message (the text FailedScheduling quotes);
     * - nodes a PreFilterResult left out: that plugin, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE and
     *   "node(s) didn't satisfy plugin(s) [P]" (1.31+; upstream's absent-node status) or "node
     *   is filtered out by the prefilter result" (1.28-1.30);
     * - a Filter Error (the attempt aborted): that node with GS_ST_ERROR and its text.
     * A cycle that finds enough feasible nodes (numFeasibleNodesToFind) stops its walk: the nodes
     * after it were not judged and are not reported (cycle result `evaluated` counts the judged
     * ones). A failing cycle judges every node; when the scheduler answers it from its template
     * summary (cache.c) without walking, every node is still reported from the summary's
     * verdicts, which are the walk's. A pod with a nominated node reports that node once
     * (evaluateNominatedNode's verdict; the walk's later verdict on it is the same). Not called
     * for a cycle that ran out of memory before filtering, nor for the preemption dry run's
     * statuses. */
    void (*filtered)(void *ctx, int pod, int node, const struct gs_node_status *st);
    /* After Score: once per (feasible node, Score plugin that scored the pod), nodes in feasible
     * order, plugins in the Score table's order: the normalised score (0..100, after
     * NormalizeScore) and the weight it is multiplied by; a node's sum of score * weight is the
     * cycle result's `score` for the chosen node (and gs_sched_score_node's total). Plugins
     * whose PreScore said Skip add nothing and are not reported. Not called when scoring did
     * not run (one feasible node, or none). */
    void (*scored)(void *ctx, int pod, int node, enum gs_plugin plugin, int64_t score, int64_t weight);
    /* The cycle's result (node chosen or -1, its message), last, for every cycle. */
    void (*done)(void *ctx, int pod, const struct gs_cycle_result *r);
};
/* Install (copied) or remove (NULL, or every callback NULL) the observer. Cycles with an
 * observer report every node they judged whatever the caches say, and reach the same result
 * as without one (the caches are read, not bypassed); without one they cost what they cost
 * before observers existed (one test of a flag per judged node). */
void gs_sched_set_observer(struct gs_sched *s, const struct gs_sched_observer *o);

/* ---------------------------------------------------------------- the binding points */

/* What the plugins of the binding points change in the cluster, done by the caller (the run
 * loop), as framework.Handle's ClientSet and waiting-pod handles let upstream plugins do: the
 * scheduler never writes the world itself. `ctx` is passed back to every callback; a NULL
 * callback is skipped (the change is not wanted). Pods and nodes are world indexes. */
struct gs_sched_client {
    void *ctx;
    /* DynamicResources PreBind: allocate pod's ResourceClaims on `node` and reserve them for it
     * (status.allocation, status.reservedFor). 0, or a negative GS_E* code (the PreBind then
     * fails with an Error status). */
    int (*claims_bind)(void *ctx, int pod, int node);
    /* Open-Gpu-Share PreBind: the GPU (index into the node's gs_node.gpus) the share pod `pod`
     * gets on its node, as the FGD simulator's plugin patches the pod's GPU index annotation;
     * -1: none chosen (the device plugin's default rule). Called for every pod bound. */
    void (*set_share_gpu)(void *ctx, int pod, int gpu);
    /* DefaultBinder Bind: bind the pod (assumed on `node`) through the API. 0 or a negative GS_E*
     * code. */
    int (*bind)(void *ctx, int pod, int node);
    /* Handle.Activate (PodsToActivate): move `pod` from the unschedulable pool or backoffQ to
     * activeQ. */
    void (*activate)(void *ctx, int pod);
    /* WaitingPod.Reject: `pod`, waiting at Permit, is rejected by plugin `plugin` with `msg`
     * (its reservation released, it goes back to the queue). */
    void (*reject_waiting)(void *ctx, int pod, enum gs_plugin plugin, const char *msg);
};

/* RunReservePluginsReserve: the Reserve table in order for `pod` assumed on `node`, stopping at
 * the first plugin that fails. Returns GS_ST_SUCCESS, or the failing status (the caller then
 * runs gs_sched_unreserve and forgets the pod). */
enum gs_status_code gs_sched_reserve(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c);
/* RunReservePluginsUnreserve: the Unreserve of every Reserve plugin, in reverse order, for `pod`
 * whose reservation on `node` is given up (rejected at Permit, timed out while waiting).
 * `now` (µs) is the run's clock (Coscheduling backs the PodGroup off from it). */
void gs_sched_unreserve(struct gs_sched *s, int pod, int node, gs_time now, const struct gs_sched_client *c);

/* Permit's verdict (RunPermitPlugins). */
enum gs_permit_code { GS_PERMIT_ALLOW = 0, GS_PERMIT_WAIT, GS_PERMIT_REJECT };
struct gs_permit_result {
    enum gs_permit_code code;
    gs_time wait_us;        /* GS_PERMIT_WAIT: how long the pod may wait, µs (the shortest any
                             * plugin asked for; upstream's 15-minute cap is not applied) */
    bool allow_siblings;    /* GS_PERMIT_ALLOW: the pods of the pod's PodGroup (gs_pod.group)
                             * waiting at Permit are allowed too (Coscheduling's Permit calls
                             * WaitingPod.Allow on them): the caller binds them after the pod */
    enum gs_plugin plugin;  /* GS_PERMIT_REJECT: the plugin; GS_PERMIT_WAIT: the first waiting */
    const char *message;    /* GS_PERMIT_REJECT: its status text (scheduler-owned) */
};
/* RunPermitPlugins for `pod` reserved on `node`: every Permit plugin in order; a rejection
 * stops the run. No plugin: allow. Plugins may activate other pods (c->activate). */
void gs_sched_permit(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c,
                     struct gs_permit_result *out);
/* RunPreBindPlugins for `pod` allowed on `node`: every PreBind plugin in order (DynamicResources
 * writes the claims, Open-Gpu-Share hands over the GPU of a share), stopping at a failure.
 * Returns GS_ST_SUCCESS or the failing status. */
enum gs_status_code gs_sched_prebind(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c);
/* RunBindPlugins: the Bind plugins in order until one does not Skip (DefaultBinder binds through
 * c->bind). Returns its status; GS_ST_SKIP when every plugin skipped. */
enum gs_status_code gs_sched_bind(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c);

/* ---------------------------------------------------------------- plugin inputs */

struct gs_fgd_world_typical;
/* The typical-pod set FGDScore measures fragmentation with (fgd_world.h; borrowed: it must
 * outlive the scheduler or be replaced first). Without one FGDScore sees no fragmentation and
 * scores every node 50. A no-op unless FGDScore is in the Score table. Returns 0. */
int gs_sched_set_fgd_typical(struct gs_sched *s, const struct gs_fgd_world_typical *wt);

/* The share choice of the profile's Score plugins (FGDScore's, fgd_score.go
 * allocateGpuIdBasedOnFGDScore) for pod `pod` on node `node`: of the GPUs with enough free
 * milli, the one whose use leaves the least fragmentation; the lower index on ties; on the node
 * as it is now without the pod (when the pod is already assumed there, its CPU is given back
 * first). -1 when no Score plugin chooses GPUs, the pod asks for no share, or out of memory: the
 * device plugin's default rule (best fit, gpushare.h) applies. `s` may be NULL. Open-Gpu-Share's
 * PreBind hands it to the client (set_share_gpu). */
int gs_sched_share_gpu(struct gs_sched *s, int pod, int node);

/* The run's clock (µs), read by the Coscheduling PreFilter and PostFilter (PodGroup backoff). */
void gs_sched_set_now(struct gs_sched *s, gs_time now);

/* Tell the scheduler that pod `p` carries a nominatedNodeName set outside gs_sched_cycle (the
 * scheduler already tracks the nominations it hands out and those present at gs_sched_new).
 * Nominated pods reserve room on their node for pods of lower or equal priority. 0 or
 * GS_ENOMEM. */
int gs_sched_track_nominated(struct gs_sched *s, int p);

/* Filter one node for pod `p`: the PreFilter plugins (a rejection or error stands for every
 * node; PreFilterResults are ignored), then the Filter table in order, stopping at the first
 * failure, without nominated pods. For tests, `explain` and preemption. */
void gs_sched_filter_node(struct gs_sched *s, int p, int node, struct gs_node_status *st);
/* The same for a caller whose world records every node change (gs_world_assign/unassign,
 * gs_world_add_node, gs_node_touch, as a run's world does): the scheduler's node copies are
 * brought up to date from the world's change log instead of all of them, O(changes) instead of
 * O(nodes) a call. The Cluster Autoscaler's simulations (sim/controllers/autoscaler.c) filter
 * many pods on their own snapshot world this way. */
void gs_sched_filter_node_logged(struct gs_sched *s, int p, int node, struct gs_node_status *st);

/* Weighted total score of node `node` for pod `p` among the given feasible nodes (the
 * normalisation of TaintToleration and NodeAffinity is over that set; `node` must be in it).
 * For tests/explain. -1 on out of memory or when `node` is not in `feasible`. */
int64_t gs_sched_score_node(struct gs_sched *s, int p, const int *feasible, int nfeasible, int node);

/* numFeasibleNodesToFind (schedule_one.go) for `nnodes` candidate nodes with the configured
 * percentageOfNodesToScore (ignoring the "no score plugins → 1" rule). */
int gs_sched_num_feasible_to_find(const struct gs_sched_config *cfg, int nnodes);

#endif
