/* gpusim: Kueue (kubernetes-sigs/kueue) admission as plain data and pure functions: the
 * objects (ResourceFlavor, ClusterQueue, LocalQueue, Topology, the Configuration's
 * waitForPodsReady), the quota arithmetic of a ClusterQueue in a cohort (nominal quota,
 * borrowing and lending limits), flavor assignment, queue ordering, classical preemption
 * (reclaim within the cohort, within the ClusterQueue), the requeue backoff and the
 * Topology Aware Scheduling domain fit. No run-loop knowledge: sim/controllers/kueue.c drives these.
 *
 * Units: quantities in gpusim's units (cpu millicores, memory bytes, other resources counts),
 * time in int64 microseconds (gs_time), backoff seconds as Kueue configures them.
 * Memory: the spec is arena data owned by the scenario's world; gs_kueue_quota owns heap
 * arrays freed by gs_kueue_quota_free.
 *
 * Upstream (kubernetes-sigs/kueue, read at v0.13-v0.15 and main):
 *   pkg/cache/.../resource_node.go (available, potentialAvailable, addUsage, guaranteedQuota),
 *   pkg/scheduler/flavorassigner/flavorassigner.go (assignFlavors, findFlavorForPodSets,
 *   fitsResourceQuota, Status.Message), pkg/scheduler/preemption/preemption.go (classical:
 *   findCandidates, minimalPreemptions, fillBackWorkloads, workloadFits),
 *   preemption/common/ordering.go (CandidatesOrdering), pkg/workload/workload.go
 *   (UpdateRequeueState), pkg/cache/tas_flavor_snapshot.go (domain fit).
 */
#ifndef GPUSIM_KUEUE_H
#define GPUSIM_KUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/world.h"

/* ---------------------------------------------------------------- the objects */

/* ClusterQueue preemption policies (kueue.x-k8s.io/v1beta1 PreemptionPolicy). */
enum gs_kueue_policy { GS_KQ_NEVER = 0, GS_KQ_LOWER_PRIORITY, GS_KQ_LOWER_OR_NEWER_EQUAL, GS_KQ_ANY };
enum gs_kueue_strategy { GS_KQ_BEST_EFFORT_FIFO = 0, GS_KQ_STRICT_FIFO };

/* One resources[] entry of a flavor in a resource group. */
struct gs_kueue_resource_quota {
    int res;                    /* world resource index (gs_res_intern) */
    int64_t nominal;            /* nominalQuota */
    int64_t borrowing_limit;    /* borrowingLimit; -1 when unset (no limit) */
    int64_t lending_limit;      /* lendingLimit; -1 when unset (lends everything) */
};

struct gs_kueue_flavor_quotas {
    const char *name;           /* the ResourceFlavor's name */
    int flavor;                 /* index into gs_kueue_spec.flavors; -1 while it does not exist */
    struct gs_kueue_resource_quota *res; /* arena */
    int nres;
};

struct gs_kueue_resource_group {
    int *covered;               /* coveredResources: world resource indexes (arena) */
    int ncovered;
    struct gs_kueue_flavor_quotas *flavors; /* in the order they are tried (arena) */
    int nflavors;
};

struct gs_kueue_cq {
    const char *name;
    const char *cohort;         /* spec.cohort (v1beta1) / spec.cohortName; NULL when none */
    enum gs_kueue_strategy strategy;
    enum gs_kueue_policy reclaim_within_cohort; /* Never | LowerPriority | Any */
    enum gs_kueue_policy within_cluster_queue;  /* Never | LowerPriority | LowerOrNewerEqualPriority */
    bool borrow_within_cohort;  /* preemption.borrowWithinCohort.policy LowerPriority */
    bool has_max_priority_threshold;
    int32_t max_priority_threshold;
    struct gs_kueue_resource_group *groups; /* arena */
    int ngroups;
    bool selects_default;       /* namespaceSelector matches namespace "default" */
    bool active;                /* every flavor (and its Topology) exists (gs_kueue_spec_resolve) */
    const char *missing;        /* the first missing ResourceFlavor or Topology name, else NULL */
};

struct gs_kueue_flavor {
    const char *name;
    struct gs_labels node_labels;       /* spec.nodeLabels: injected into admitted pods' nodeSelector */
    struct gs_taint *node_taints;       /* spec.nodeTaints (arena) */
    int nnode_taints;
    struct gs_toleration *tolerations;  /* spec.tolerations: appended to admitted pods */
    int ntolerations;
    const char *topology_name;          /* spec.topologyName; NULL when none */
    int topology;                       /* index into gs_kueue_spec.topologies, -1 when none */
};

struct gs_kueue_lq {
    const char *name;
    const char *namespace_;     /* "default" unless set */
    const char *cluster_queue;  /* spec.clusterQueue */
    int cq;                     /* index, -1 when the ClusterQueue does not exist */
};

struct gs_kueue_topology {
    const char *name;
    const char **levels;        /* spec.levels[].nodeLabel, coarsest first (arena) */
    int nlevels;
};

/* config.kueue.x-k8s.io/v1beta1 Configuration, the parts gpusim models. */
struct gs_kueue_config {
    bool wait_for_pods_ready;   /* waitForPodsReady.enable (default false) */
    gs_time pods_ready_timeout; /* waitForPodsReady.timeout (default 5m) */
    bool block_admission;       /* waitForPodsReady.blockAdmission (default false) */
    bool timestamp_creation;    /* requeuingStrategy.timestamp Creation (default Eviction) */
    int64_t backoff_base_s;     /* requeuingStrategy.backoffBaseSeconds (default 60) */
    int64_t backoff_max_s;      /* requeuingStrategy.backoffMaxSeconds (default 3600) */
    int backoff_limit_count;    /* requeuingStrategy.backoffLimitCount; -1 when unset (unlimited) */
};

/* A Job or Pod manifest whose metadata.labels carry kueue.x-k8s.io/queue-name (a plain
 * workload's label is in its template's labels instead). */
struct gs_kueue_queue_label {
    const char *workload;       /* the manifest's name (the gpusim workload name) */
    const char *queue;          /* the LocalQueue named by the label */
};

struct gs_kueue_spec {
    struct gs_kueue_flavor *flavors;
    int nflavors;
    struct gs_kueue_cq *cqs;
    int ncqs;
    struct gs_kueue_lq *lqs;
    int nlqs;
    struct gs_kueue_topology *topologies;
    int ntopologies;
    struct gs_kueue_config config;
    bool has_config;            /* scheduler.kueueConfig was given */
    const char *version;        /* spec.versions.kueue, NULL for the newest modelled */
    struct gs_kueue_queue_label *labels; /* labelled manifests (arena, labels_cap entries) */
    int nlabels, labels_cap;
};

/* The defaults of a Configuration (waitForPodsReady disabled, timeout 5m, backoff 60 s to
 * 3600 s, no limit): kueue apis/config/v1beta1/defaults.go. */
void gs_kueue_config_defaults(struct gs_kueue_config *c);

/* Resolve names to indexes: each ClusterQueue's flavors, each flavor's Topology, each
 * LocalQueue's ClusterQueue; a ClusterQueue with a missing flavor or Topology is inactive (as
 * Kueue's ClusterQueue controller marks it). Idempotent; the decoder calls it after each
 * object. */
void gs_kueue_spec_resolve(struct gs_kueue_spec *s);

/* Index of the named object, -1 when absent. */
int gs_kueue_find_flavor(const struct gs_kueue_spec *s, const char *name);
int gs_kueue_find_cq(const struct gs_kueue_spec *s, const char *name);
int gs_kueue_find_lq(const struct gs_kueue_spec *s, const char *namespace_, const char *name);

/* ---------------------------------------------------------------- quota */

/* A workload's usage: amounts per (flavor, resource). */
struct gs_kueue_fr_amount {
    int flavor;
    int res;
    int64_t amount;
};
struct gs_kueue_usage {
    struct gs_kueue_fr_amount v[GS_RES_MAX];
    int n;
};

/* The quota tables of every ClusterQueue and their current usage, indexed by
 * (cq, flavor, resource). Cohorts are flat (a cohort has no parent cohort). */
struct gs_kueue_quota {
    const struct gs_kueue_spec *spec; /* borrowed */
    int ncq, nflavors;
    bool *defined;              /* the ClusterQueue has quota for (flavor, res) */
    int64_t *nominal;
    int64_t *borrowing_limit;   /* -1 none */
    int64_t *lending_limit;     /* -1 none */
    int64_t *usage;             /* quota reserved by admitted workloads */
    int *cohort;                /* per ClusterQueue: cohort id, -1 when none */
    int ncohorts;
};

/* Build the tables from `s` (borrowed; must outlive q). 0 or GS_ENOMEM. */
int gs_kueue_quota_init(struct gs_kueue_quota *q, const struct gs_kueue_spec *s);
void gs_kueue_quota_free(struct gs_kueue_quota *q);

/* Quota of ClusterQueue `cq` for (flavor f, resource r) that its cohort cannot take from it:
 * nominal - lendingLimit with a lending limit, else 0 (resource_node.go guaranteedQuota). */
int64_t gs_kueue_guaranteed(const struct gs_kueue_quota *q, int cq, int f, int r);
/* Unused quota `cq` can use now for (f, r): its own unused guaranteed quota plus what the
 * cohort has unused, capped by the borrowing limit (resource_node.go available). Without a
 * cohort: nominal - usage. May be negative after over-admission. */
int64_t gs_kueue_available(const struct gs_kueue_quota *q, int cq, int f, int r);
/* The most `cq` could use if nothing were in use: guaranteed + the cohort's lendable quota,
 * capped at nominal + borrowingLimit (resource_node.go potentialAvailable). */
int64_t gs_kueue_potential_available(const struct gs_kueue_quota *q, int cq, int f, int r);
/* Add (sign +1) or remove (sign -1) a workload's usage to ClusterQueue `cq`. */
void gs_kueue_usage_apply(struct gs_kueue_quota *q, int cq, const struct gs_kueue_usage *u, int sign);
/* True when `cq` uses more than its nominal quota of some (f, r) of `u` (ignores u's
 * amounts; preemption.go cqIsBorrowing). Only in a cohort. */
bool gs_kueue_cq_borrowing(const struct gs_kueue_quota *q, int cq, const struct gs_kueue_usage *frs);
/* Quota usage of `cq` for (f, r). */
int64_t gs_kueue_usage_of(const struct gs_kueue_quota *q, int cq, int f, int r);

/* ---------------------------------------------------------------- flavor assignment */

enum gs_kueue_mode { GS_KQ_NOFIT = 0, GS_KQ_PREEMPT, GS_KQ_FIT };

#define GS_KUEUE_MSG_MAX 2048

struct gs_kueue_assignment {
    enum gs_kueue_mode mode;    /* the worst over the resources */
    bool borrows;               /* some resource uses more than the ClusterQueue's nominal quota */
    int flavor;                 /* the flavor of the first resource group (for node labels), -1 none */
    int flavor_of_res[GS_RES_MAX]; /* -1 for resources not requested */
    struct gs_kueue_usage usage; /* per-pod requests x count, per assigned flavor */
    struct gs_kueue_usage need_preemption; /* (f, r) whose unused quota is short (mode Preempt) */
    char reasons[GS_KUEUE_MSG_MAX]; /* Status.Message: sorted reasons joined by ", " ("" when Fit) */
};

/* Assign flavors to one pod set of `count` pods with per-pod requests `per_pod` (gpusim
 * units; zero entries are not requested) in ClusterQueue `cq`, as assignFlavors /
 * findFlavorForPodSets do with the default FlavorFungibility (whenCanBorrow Borrow,
 * whenCanPreempt TryNextFlavor): per resource group, flavors in listed order; a flavor whose
 * taints the pod's tolerations (plus the flavor's) do not tolerate, or whose nodeLabels the
 * pod's nodeSelector contradicts, is skipped; the first flavor where every requested resource
 * of the group fits (possibly borrowing) is taken, else the best Preempt one. Reasons use the
 * upstream texts:
 *   insufficient unused quota for <res> in flavor <f>, <n> more needed
 *   insufficient quota for <res> in flavor <f>, previously considered podsets requests (<a>) +
 *     current podset request (<b>) > maximum capacity (<c>)
 *   resource <res> unavailable in ClusterQueue
 *   untolerated taint {<key> <value> <effect>} in flavor <f>
 *   flavor <f> doesn't match node affinity
 * `res` names the resources (for messages). Always succeeds; out->mode says the result. */
void gs_kueue_assign(const struct gs_kueue_quota *q, int cq, const struct gs_resources *res,
                     const struct gs_pod_template *tmpl, const struct gs_resvec *per_pod, int count,
                     struct gs_kueue_assignment *out);

/* A quantity as Kueue's resource formatter prints it: cpu millicores as "8" or "500m", memory
 * and other byte resources in the largest binary suffix that divides it ("64Gi",
 * "1953125Ki", else bytes), counts as integers. Writes at most n bytes; returns buf. */
char *gs_kueue_format_amount(const struct gs_resources *res, int r, int64_t v, char *buf, size_t n);

/* ---------------------------------------------------------------- ordering and preemption */

/* A workload as the queue and the preemption see it. */
struct gs_kueue_entry {
    int cq;
    int32_t priority;
    gs_time queue_ts;           /* creation time, or the eviction time (requeuingStrategy Eviction) */
    int64_t seq;                /* creation order: the last tie-break */
    gs_time reserved_at;        /* when its quota was reserved (admitted ones) */
    struct gs_kueue_usage usage; /* admitted ones: the usage reserved */
};

/* Queue order inside a ClusterQueue (queue/cluster_queue.go queueOrdering): higher priority
 * first, then the older queue timestamp, then creation order. <0 when a goes first. */
int gs_kueue_queue_cmp(const struct gs_kueue_entry *a, const struct gs_kueue_entry *b);

/* Backoff before a workload evicted for the k-th time (k >= 1) by the PodsReady timeout is
 * requeued: base x 2^(k-1) seconds, at most max (workload.UpdateRequeueState without its
 * 0.0001 jitter). Microseconds. */
gs_time gs_kueue_requeue_backoff(int64_t base_s, int64_t max_s, int k);
/* True when a workload already requeued `count` times is deactivated at its next PodsReady
 * eviction (count + 1 > backoffLimitCount; never with limit -1). */
bool gs_kueue_requeue_exhausted(int limit, int count);

/* Classical preemption (preemption.go GetTargets without fair sharing) for the pending `wl`
 * whose assignment `a` is Preempt in ClusterQueue wl->cq: candidates from its own ClusterQueue
 * (withinClusterQueue) and from borrowing ClusterQueues of its cohort (reclaimWithinCohort),
 * ordered by CandidatesOrdering, removed greedily until the workload fits, then added back
 * when not needed. `admitted` are the admitted workloads (count nadmitted). On return
 * targets[0..*ntargets) are indexes into `admitted` (caller-owned array of nadmitted ints)
 * and reasons[i] is "InClusterQueue" or "InCohortReclamation". The usage in `q` is changed
 * during the search and restored. 0 or GS_ENOMEM. */
int gs_kueue_preemption_targets(struct gs_kueue_quota *q, const struct gs_kueue_entry *wl,
                                const struct gs_kueue_assignment *a, const struct gs_kueue_entry *admitted,
                                int nadmitted, int *targets, const char **reasons, int *ntargets);

/* ---------------------------------------------------------------- Topology Aware Scheduling */

enum gs_kueue_tas_mode { GS_KQ_TAS_REQUIRED, GS_KQ_TAS_PREFERRED, GS_KQ_TAS_UNCONSTRAINED };

/* A node as TAS sees it: its values of the topology's levels (coarsest first) and how many
 * pods of the pod set still fit on it. */
struct gs_kueue_tas_leaf {
    const char *const *values;  /* nlevels values (borrowed) */
    int capacity;               /* pods that fit (>= 0) */
};

/* Place `count` pods on the leaves (tas_flavor_snapshot.go findTopologyAssignment, BestFit):
 * REQUIRED at level `level`: one domain of that level must hold all pods (the fitting domain
 * with the least capacity, ties by the order of the level values); PREFERRED: the same, then
 * each coarser level, then spread over the top-level domains; UNCONSTRAINED: as PREFERRED at
 * level 0. Inside the chosen domain, pods go to the children with the most capacity first and
 * the last ones to the smallest child that holds them. On success fills out[i] (pods on leaf
 * i, caller-owned, nleaves ints) and returns true. Otherwise returns false and sets *fit_max
 * to the most pods one domain could take (REQUIRED) or the whole capacity (otherwise), for
 * `topology "<name>" allows to fit only <k> out of <n> pod(s)`. GS_ENOMEM cannot happen
 * (the work arrays are allocated by the caller: `scratch` of 2 x nleaves ints). */
bool gs_kueue_tas_assign(const struct gs_kueue_tas_leaf *leaves, int nleaves, int nlevels, int level,
                         enum gs_kueue_tas_mode mode, int count, int *out, int *scratch, int *fit_max);

#endif
