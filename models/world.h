/* gpusim: the simulated world: resources, nodes, pods, workloads. Plain data.
 *
 * Everything is kept in arrays indexed by small ints (node index, pod index, workload index).
 * Strings and scenario-lifetime data live in the world's arena (gs_arena_*); pointers into it
 * are "arena" pointers: valid until gs_world_free, never freed one by one.
 * Units: cpu in millicores, memory and ephemeral-storage in bytes, everything else a count.
 */
#ifndef GPUSIM_WORLD_H
#define GPUSIM_WORLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/array.h"
#include "base/time.h"
#include "models/devices/gpushare.h"
#include "models/quantity.h"

/* ---------------------------------------------------------------- resources */

/* Resource vector index. The first four are fixed; extended resources are interned after. */
enum { GS_RES_CPU = 0, GS_RES_MEMORY = 1, GS_RES_PODS = 2, GS_RES_EPHEMERAL = 3, GS_RES_FIXED = 4 };
#define GS_RES_MAX 48

/* The largest resource amount gpusim accepts, in its units (cpu millicores, memory,
 * ephemeral-storage and hugepages bytes, other resources counts): 2^50 = 1125899906842624, that
 * is 1Pi of memory or about 1.1e12 cpu cores. The scheduler's scores compute (requested +
 * request) x 100 in int64 (noderesources), which stays far from overflow below this bound. The
 * loader refuses a larger node capacity or reserved amount and a larger pod request or limit
 * (each container's, and the pod's sum), so no amount in a gs_resvec exceeds it. */
#define GS_QUANTITY_MAX (INT64_C(1) << 50)

/* A vector over the interned resources: cpu in millicores, memory in bytes, others counts. */
struct gs_resvec {
    int64_t v[GS_RES_MAX];
};

struct gs_resources {
    int n;                        /* names in use */
    const char *names[GS_RES_MAX]; /* arena */
};

/* Index of resource `name`, interning it if new. Returns -1 when the table is full
 * (GS_RES_MAX). */
int gs_res_intern(struct gs_resources *r, struct gs_arena *a, const char *name);
/* Index of `name`, or -1 if never interned. */
int gs_res_find(const struct gs_resources *r, const char *name);
/* True for an extended resource (kubernetes pkg/apis/core/helper IsExtendedResourceName):
 * fully qualified, not in the kubernetes.io domain, not "requests."-prefixed. */
bool gs_res_is_extended(const char *name);

/* ---------------------------------------------------------------- labels, taints, affinity */

struct gs_kv {
    const char *key;   /* arena */
    const char *value; /* arena */
};

/* A sorted (by key, strcmp) array of key/value pairs: node labels, nodeSelector. */
struct gs_labels {
    struct gs_kv *kv;
    int n;
    int cap;
};

/* Value of `key`, or NULL when absent. Binary search. */
const char *gs_labels_get(const struct gs_labels *l, const char *key);
/* Set (insert or replace) `key` to `value` (both copied into `a`; the array grows in `a`,
 * base/array.h). Returns 0 or GS_ENOMEM. */
int gs_labels_set(struct gs_labels *l, struct gs_arena *a, const char *key, const char *value);
/* The same as gs_labels_set for each of the `n` pairs of `kv` in order (a NULL value is "";
 * of two equal keys the later wins), in O(n log n + l->n) instead of an insertion each: the
 * pairs are sorted once and merged into `l` (sorted insertions of a mapping of 40000 labels
 * would move O(n^2) entries). Returns 0, GS_ENOMEM or GS_ERANGE
 * (too many labels); on failure `l` holds some of the pairs. */
int gs_labels_set_all(struct gs_labels *l, struct gs_arena *a, const struct gs_kv *kv, int n);
/* Remove `key`; returns true if it was there. */
bool gs_labels_del(struct gs_labels *l, const char *key);

enum gs_effect { GS_EFFECT_ALL = 0, GS_EFFECT_NO_SCHEDULE, GS_EFFECT_PREFER_NO_SCHEDULE, GS_EFFECT_NO_EXECUTE };

struct gs_taint {
    const char *key;
    const char *value; /* "" when none */
    enum gs_effect effect; /* never GS_EFFECT_ALL */
};

enum gs_toleration_op { GS_TOL_EQUAL = 0, GS_TOL_EXISTS };

struct gs_toleration {
    const char *key;  /* "" (empty) matches every key, only with Exists */
    enum gs_toleration_op op;
    const char *value;
    enum gs_effect effect; /* GS_EFFECT_ALL when empty */
    int64_t toleration_seconds; /* -1 when unset */
};

/* kubernetes core/v1 Toleration.ToleratesTaint. */
bool gs_toleration_tolerates(const struct gs_toleration *t, const struct gs_taint *taint);

enum gs_selector_op { GS_OP_IN, GS_OP_NOT_IN, GS_OP_EXISTS, GS_OP_DOES_NOT_EXIST, GS_OP_GT, GS_OP_LT };

struct gs_requirement {
    const char *key;
    enum gs_selector_op op;
    const char **values; /* arena */
    int nvalues;
};

/* A NodeSelectorTerm: matchExpressions ANDed with matchFields (only metadata.name). */
struct gs_term {
    struct gs_requirement *exprs;
    int nexprs;
    struct gs_requirement *fields;
    int nfields;
};

struct gs_preferred_term {
    int32_t weight; /* 1..100 */
    struct gs_term term;
};

struct gs_node_affinity {
    struct gs_term *required; /* requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms, ORed */
    int nrequired;
    bool has_required;
    struct gs_preferred_term *preferred;
    int npreferred;
};

/* ---------------------------------------------------------------- nodes */

struct gs_dp_config;  /* dpconfig.h */
struct gs_mig_layout; /* mig.h */
#define GS_NODE_OPERANDS 8 /* GS_OPD_COUNT (bringup.h) */

/* One node of an imported cluster (spec.cluster.source: a kubectl snapshot or an openb node
 * list, sim/scenario/source.c): what it has of its own besides its pool's shape. Arena data. */
struct gs_pool_node {
    const char *name;        /* the node's name, as imported */
    struct gs_labels labels; /* set on top of the pool's labels (imported pools have none) */
    const struct gs_taint *taints; /* replace the pool's taints (ntaints 0: none) */
    int ntaints;
    bool unschedulable;      /* spec.unschedulable (cordoned) */
    /* The node's own capacity and allocatable (cpu millicores, memory bytes, others counts;
     * never nvidia.com/gpu, which the device plugin advertises from the pool's gpu_count);
     * NULL: the pool's capacity and capacity - reserved. */
    const struct gs_resvec *capacity, *allocatable;
};

struct gs_pool {
    const char *name;
    int count;
    const char *gpu_product; /* NULL for CPU-only */
    int gpu_count;
    bool has_price;          /* pricePerHour given */
    double price_per_hour;   /* pricePerHour: cost of one node for an hour (any currency), >= 0 */
    struct gs_resvec capacity;
    struct gs_resvec reserved;
    struct gs_labels labels;
    struct gs_taint *taints;
    int ntaints;
    const char *kernel;
    gs_time join_at;
    gs_time join_every;
    int nodes_per_rack;       /* 0: no topology */
    const char *rack_label;
    /* hostDriver {version, kernels}: the driver the node image ships (used when the operator does
     * not install one: driver.enabled false, nvidia.com/gpu.deploy.driver "false" or
     * "pre-installed", managedBy helm/host). It works only on the kernels it was built for;
     * booting another kernel breaks it (driver-validation loops, everything after it waits). */
    const char *host_driver_version;    /* NULL: no hostDriver given */
    const char *const *host_driver_kernels; /* arena; absent in the scenario: [kernel] when the
                                         * pool has one, else empty = the kernel the node joined with */
    int nhost_driver_kernels;
    /* Imported nodes (spec.cluster.source): NULL for a nodePools entry. Else node i of the
     * pool, for i < count, takes name, labels, taints and unschedulable from nodes[i] (arena,
     * `count` entries); nodes added later (addNodes) are named <name>-<index> as usual. */
    const struct gs_pool_node *nodes;
};

struct gs_node {
    const char *name; /* arena */
    int pool;         /* index into world.pools */
    int index_in_pool;
    bool exists;      /* registered and not deleted */
    bool unschedulable;
    gs_time joined_at;
    gs_time deleted_at;     /* when it was deleted (its Deleted node_event row); -1 while it exists */
    gs_time schedulable_at; /* first time GPUs were advertised; -1 never */
    struct gs_labels labels;
    struct gs_taint *taints; /* arena; may be replaced wholesale */
    int ntaints;
    struct gs_resvec capacity;
    struct gs_resvec allocatable;
    struct gs_resvec requested;  /* sum of requests of pods bound or assumed here */
    int64_t nonzero_cpu;         /* requested cpu with the 100m default per container (scoring) */
    int64_t nonzero_mem;         /* requested memory with the 200Mi default per container */
    int npods;                   /* pods bound or assumed here */
    int first_pod;               /* head of the list of pods on this node (pod index), -1 empty */
    const char *gpu_product;
    int gpu_count;
    /* Per-GPU free milli-GPU (gpushare.h): whole-GPU pods and gpu-milli shares placed on this
     * node, kept by the device plugin controller (sim/controllers/device_plugin_alloc.c) at bind and when a pod leaves. */
    struct gs_gpushare gpus;
    const char *kernel;
    /* Kept by gs_world_assign / gs_world_unassign: the lowest priority among the pods on this
     * node (INT32_MAX when none) and how many pods have it, so the scheduler's preemption dry
     * run knows in O(1) when a node holds no pod of lower priority than the preemptor. */
    int32_t min_prio;
    int nmin_prio;
    /* Generation of the node's state outside its pods (labels, taints, unschedulable and exists
     * flags, capacity, allocatable): starts at 1, bumped by gs_node_touch. The scheduler keeps
     * per-node filter results against it. */
    uint32_t gen;
    /* Facts controllers of a run share (set through the cluster layer, sim/cluster.h): */
    bool ready;                  /* the Ready condition: false while the kubelet is down (reboot) */
    /* Status of each GPU Operator operand's pod as kubectl shows it ("Running", "Init:0/1",
     * static strings; NULL: no pod), index enum gs_operand (bringup.h), and its readiness. */
    const char *operand_status[GS_NODE_OPERANDS];
    bool operand_ready[GS_NODE_OPERANDS];
    /* What the device plugin shows GPU feature discovery (both NULL until it has set up the
     * node): its config (dpconfig.h) and the GPUs' MIG layouts (mig.h, gpu_count of them). */
    const struct gs_dp_config *dp_view;
    const struct gs_mig_layout *mig_view;
};

/* ---------------------------------------------------------------- pods */

enum gs_phase {
    GS_PHASE_PENDING = 0,
    GS_PHASE_RUNNING,
    GS_PHASE_SUCCEEDED,
    GS_PHASE_FAILED,
    GS_PHASE_REJECTED,
    GS_PHASE_COUNT
};
const char *gs_phase_name(enum gs_phase p);

enum gs_preemption_policy { GS_PREEMPT_LOWER_PRIORITY = 0, GS_PREEMPT_NEVER };

/* A pod spec shared by all pods of one workload (immutable after loading). */
struct gs_pod_template {
    struct gs_labels labels;
    struct gs_labels annotations;
    struct gs_resvec requests;   /* effective pod requests: max(sum containers, max init) */
    struct gs_resvec limits;
    /* The largest request of any one container (regular or init) per resource: the kubelet's
     * device manager calls the device plugin's Allocate per container (init containers too),
     * and the plugin checks each ContainerRequest alone (gs_dp_allocate_check). All zero in a
     * template not built from containers: then the pod's total stands for its one container. */
    struct gs_resvec container_max;
    int64_t nonzero_cpu;         /* requests with 100m per container lacking a cpu request */
    int64_t nonzero_mem;         /* requests with 200Mi per container lacking a memory request */
    int ncontainers;
    const char *priority_class;  /* NULL when none */
    int32_t priority;            /* resolved from the PriorityClass (0 when none) */
    enum gs_preemption_policy preemption_policy;
    const char *scheduler_name;  /* "default-scheduler" unless set */
    const char *node_name;       /* spec.nodeName: bound directly, NULL when unset */
    struct gs_labels node_selector;
    struct gs_node_affinity affinity;
    struct gs_toleration *tolerations;
    int ntolerations;
    int64_t termination_grace_us; /* default 30 s */
    /* API validation: NULL when the API server accepts the pod, else the full Status message
     * without the `<Kind> "<name>" is invalid: ` prefix, e.g.
     * `spec.containers[0].resources.limits[nvidia.com/gpu]: Invalid value: ...: must be an integer`. */
    const char *invalid_detail;
    const char *invalid_path_prefix; /* "spec." for a Pod, "spec.template.spec." for a Job */
    const struct gs_pod_claims *claims; /* spec.resourceClaims (dra_state.h), NULL when none */
};

struct gs_pod {
    /* (Fields are ordered by size, 8-byte ones first, so the struct has no padding holes: a run
     * keeps one per pod ever created.) */
    const char *name;          /* arena */
    const struct gs_pod_template *tmpl;
    const char *reason;        /* status.reason, NULL when none */
    const char *message;       /* last FailedScheduling / rejection message (arena, interned, or NULL) */
    gs_time created_us;
    gs_time scheduled_us;      /* -1 until bound */
    gs_time started_us;        /* -1 until Running */
    gs_time finished_us;       /* -1 until Succeeded/Failed/deleted */
    gs_time duration_us;       /* -1: runs forever */
    int workload;              /* index, -1 for none */
    int group;                 /* index into world.groups, -1 for none */
    int next_in_group;         /* next pod of the same group, -1 at the end */
    int lws_group;             /* LeaderWorkerSet group index, -1 for other pods */
    int lws_worker;            /* LeaderWorkerSet worker index (0: the leader) */
    enum gs_phase phase;
    int node;                  /* bound or assumed node, -1 none */
    int last_node;             /* the node it was last bound to (kept after it ends), -1 never */
    int next_on_node;          /* list of pods on one node */
    int prev_on_node;
    int nominated_node;        /* status.nominatedNodeName: node index, -1 none (the scheduling
                                * queue's state is the queue's own: models/sched/queue.h) */
    int preempted_by;          /* preemptor's pod index once a preemption victim
                                * (DisruptionTarget condition), -1 otherwise */
    bool permit_waiting;       /* assumed on `node` by the scheduler, waiting at Permit
                                * (Coscheduling): it holds resources there but is not bound */
    bool terminating;          /* a preemption victim in its graceful termination */
    bool deleted;              /* the pod object is gone (deletePod, drain, preemption) */
};

/* ---------------------------------------------------------------- workloads */

enum gs_arrival_kind { GS_ARRIVE_AT, GS_ARRIVE_EVERY, GS_ARRIVE_POISSON };

struct gs_arrival {
    enum gs_arrival_kind kind;
    gs_time start;    /* at: / start: */
    gs_time every;    /* every: */
    double rate_per_us; /* poisson rate (with `hourly`: the rate a multiplier of 1 gives) */
    int count;        /* number of arrivals (1 for at:); with until_horizon the most there can
                       * be before the horizon (sim/scenario/workloads.c open_count) */
    gs_time stagger;  /* between the pods of one arrival */
    /* every / poisson without `count`: arrivals continue while they fall at or before the
     * horizon (spec.horizon or --horizon, required then), at most `count` of them */
    bool until_horizon;
    double expected_count; /* with until_horizon: the mean number of arrivals (every: exact), the
                            * weight the FGD typical pods give the workload (models/fgd/world.c) */
    /* poisson with profile.hourly: 24 rate multipliers by hour of day (arena; NULL: the rate is
     * constant), a non-homogeneous Poisson process drawn by thinning */
    const double *hourly;
    double hourly_max;    /* the largest of the 24 multipliers (> 0) */
    gs_time day_offset;   /* time of day at the run's time 0, µs (profile.startHourOfDay) */
};

enum gs_dist_kind { GS_DIST_NONE = 0 /* runs forever */, GS_DIST_FIXED, GS_DIST_EXPONENTIAL, GS_DIST_LOGNORMAL,
                    GS_DIST_UNIFORM, GS_DIST_EMPIRICAL };

struct gs_duration_dist {
    enum gs_dist_kind kind;
    gs_time fixed;   /* fixed */
    gs_time mean;    /* exponential */
    gs_time median;  /* lognormal */
    double sigma;    /* lognormal */
    gs_time min, max; /* uniform: [min, max) µs */
    const gs_time *values; /* empirical: the sample (arena), drawn from with equal probability */
    int nvalues;
};

/* One choice of a plain workload's gpusPerPod: pods of `gpus` GPUs, drawn with probability
 * weight / (sum of the weights), made from `tmpl` (the workload's template with that count). */
struct gs_gpu_choice {
    int gpus;
    double weight;
    const struct gs_pod_template *tmpl; /* arena */
};

/* GS_WL_LIST: a pod list (workloads[].trace, the pods of a cluster snapshot), one pod per
 * gs_listed_pod with its own name, template, arrival and duration (sim/cluster/objects.c list_arrival). */
enum gs_workload_kind { GS_WL_PLAIN = 0, GS_WL_POD, GS_WL_JOB, GS_WL_LWS, GS_WL_PODGROUP /* makes no pods */,
                        GS_WL_LIST };

/* One pod of a GS_WL_LIST workload. Arena data. */
struct gs_listed_pod {
    const char *name;                   /* the pod's name */
    const struct gs_pod_template *tmpl; /* shared by the pods of one shape (arena) */
    gs_time arrive;                     /* creation time, µs from the start; non-decreasing
                                         * along the list */
    gs_time duration;                   /* Running -> Succeeded, µs; -1: runs until deleted;
                                         * ignored when the workload has a `duration`
                                         * distribution (drawn per pod instead) */
};

/* LeaderWorkerSet restartPolicy (leaderworkerset.x-k8s.io/v1). */
enum gs_lws_restart { GS_LWS_RECREATE_GROUP = 0 /* RecreateGroupOnPodRestart (default) */, GS_LWS_RESTART_NONE };

struct gs_workload {
    const char *name;
    enum gs_workload_kind kind;
    const char *api_kind;     /* "Pod", "Job" for manifests; NULL for plain */
    const char *api_group;    /* "" for core, "batch" for Job */
    int replicas;             /* pods per arrival (plain) */
    struct gs_arrival arrival;
    struct gs_duration_dist duration;
    struct gs_pod_template tmpl;
    /* gpusPerPod (plain workloads): each new pod's GPU count drawn from these (arena), NULL
     * when the template's count holds for every pod */
    const struct gs_gpu_choice *gpu_choices;
    int ngpu_choices;
    int group_min_member;     /* 0: no group */
    gs_time group_timeout_us; /* group.scheduleTimeoutSeconds, -1 when unset */
    gs_time start_latency;    /* bind -> Running; -1: spec.startLatency */
    /* leaderworkerset.x-k8s.io/v1 LeaderWorkerSet: `replicas` groups of `lws_size` pods, a
     * leader from lws_leader_tmpl (tmpl when no leaderTemplate) and size-1 workers from tmpl */
    int lws_size;
    enum gs_lws_restart lws_restart;
    bool lws_leader_ready;    /* startupPolicy LeaderReady: workers once the leader is Running */
    const struct gs_pod_template *lws_leader_tmpl;
    /* batch/v1 Job */
    int parallelism;
    int completions;          /* -1: unset (work queue) */
    int backoff_limit;
    /* runtime */
    int arrivals_done;
    int pods_created;
    int succeeded;
    int failed;
    const struct gs_pod_template *active_tmpl; /* template for new pods when a controller changed
                                               * it (Kueue's injected nodeSelector); NULL: tmpl */
    bool suspended;           /* a suspended Job (Kueue stopped it): its deleted pods are neither
                               * counted as failed nor replaced */
    bool rejected;            /* the API server refused the object */
    const char *reject_message; /* full Status message when rejected */
    int src_line;             /* position in the scenario, for messages */
    /* GS_WL_LIST: the pods in arrival order (arena); arrival.start is list[0].arrive and
     * arrival.count is nlist, so the run loop's first GS_EV_ARRIVAL comes at the right time */
    const struct gs_listed_pod *list;
    int nlist;
};

struct gs_group {
    const char *name;
    int workload;
    int arrival;    /* which arrival of the workload made it */
    int min_member;
    int first_pod;  /* the group's pods, in creation order, linked through gs_pod.next_in_group */
    int last_pod;
    int npods;      /* pods ever created in the group */
    gs_time created_us;         /* creationTimestamp of the PodGroup (Coscheduling QueueSort) */
    gs_time schedule_timeout_us; /* spec.scheduleTimeoutSeconds, -1 when unset */
};

struct gs_priority_class {
    const char *name;
    int32_t value;
    bool global_default;
    enum gs_preemption_policy preemption_policy;
};

/* ---------------------------------------------------------------- the world */

struct gs_world {
    struct gs_arena arena;
    struct gs_resources res;
    struct gs_pool *pools;
    int npools;
    struct gs_node *nodes;     /* growable */
    int nnodes;
    int nodes_cap;
    struct gs_pod *pods;       /* growable */
    int npods;
    int pods_cap;
    struct gs_workload *workloads; /* arena, workloads_cap entries (base/array.h) */
    int nworkloads;
    int workloads_cap;
    struct gs_group *groups;   /* growable */
    int ngroups;
    int groups_cap;
    struct gs_priority_class *priority_classes;
    int npriority_classes;
    /* Node changes: gs_world_add_node, gs_world_assign, gs_world_unassign and gs_node_touch
     * each count one and record the node in a ring of the last GS_NODE_CHANGE_LOG changes
     * (change k at node_change_log[k % GS_NODE_CHANGE_LOG]; NULL before the first). A reader
     * (the scheduler keeps copies of node data and per-template results) remembers
     * node_changes and later revisits only the nodes changed since, or every node when more
     * than GS_NODE_CHANGE_LOG changes happened. Owned by the world. */
    uint64_t node_changes;
    int *node_change_log;
};

#define GS_NODE_CHANGE_LOG 4096

/* Initialise an empty world (interns cpu, memory, pods, ephemeral-storage). 0 or GS_ENOMEM. */
int gs_world_init(struct gs_world *w);
/* Free everything the world owns. */
void gs_world_free(struct gs_world *w);

/* Append a node of pool `pool` (copies the pool's labels and taints, sets allocatable =
 * capacity - reserved; an imported node, pool.nodes[index_in_pool], takes its own name,
 * labels, taints, cordon, capacity and allocatable from there). Returns the node index or a
 * negative GS_E* code. */
int gs_world_add_node(struct gs_world *w, int pool, int index_in_pool, gs_time now);
/* Append a Pending pod of workload `wl` with template `tmpl` and name `name` (copied).
 * Returns the pod index or a negative GS_E* code. Pointers into w->pods may move. */
int gs_world_add_pod(struct gs_world *w, const char *name, int wl, const struct gs_pod_template *tmpl,
                     gs_time now);

/* Account pod `p` on node `n` (requested, nonzero, npods, node pod list, min_prio) and log a
 * node change. */
void gs_world_assign(struct gs_world *w, int p, int n);
/* Undo gs_world_assign (a no-op for a pod bound nowhere). min_prio is recomputed by walking the
 * node's pods only when the last pod of the lowest priority leaves. */
void gs_world_unassign(struct gs_world *w, int p);

/* Record that node `n` changed outside gs_world_assign/unassign: its labels, taints,
 * unschedulable or exists flag, capacity or allocatable (bumps nodes[n].gen and logs a node
 * change, see gs_world.node_changes).
 * Whoever changes one of them on an existing node must call this before the next scheduling
 * cycle, or the scheduler keeps using its cached filter results and copies (debug builds
 * catch a missing call with a GS_ASSERT in the scheduler). Never fails. */
void gs_node_touch(struct gs_world *w, int n);
/* Lowest priority of the pods bound or assumed on node `n` (INT32_MAX when none), recomputed
 * by walking the node's pod list. For checks and tests; the cached value is nodes[n].min_prio. */
int32_t gs_node_min_priority_walk(const struct gs_world *w, int n);

/* Node index by name, -1 when absent. Linear; for events and expectations, not hot paths. */
int gs_world_find_node(const struct gs_world *w, const char *name);
/* Pod index by name: the newest pod of that name (a re-created StatefulSet-style pod reuses
 * it), -1 when absent. Linear. */
int gs_world_find_pod(const struct gs_world *w, const char *name);
int gs_world_find_workload(const struct gs_world *w, const char *name);
const struct gs_priority_class *gs_world_find_priority_class(const struct gs_world *w, const char *name);

/* Allocatable nvidia.com/gpu of node n (0 when the resource is not interned). */
int64_t gs_node_gpu_allocatable(const struct gs_world *w, const struct gs_node *n);

#endif
