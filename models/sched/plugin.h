/* gpusim: a scheduler plugin as a constant table entry, and the registry of every plugin gpusim
 * knows.
 *
 * Mirrors kubernetes pkg/scheduler/framework/interface.go (one interface per extension point:
 * QueueSortPlugin.Less, PreFilterPlugin, FilterPlugin, PostFilterPlugin, PreScorePlugin,
 * ScorePlugin with ScoreExtensions.NormalizeScore, ReservePlugin (Reserve, Unreserve),
 * PermitPlugin, PreBindPlugin, BindPlugin), framework/runtime/registry.go (Registry: name ->
 * plugin) and framework/plugins/registry.go (NewInTreeRegistry). A plugin is a const struct: its
 * upstream name, the points the upstream plugin implements (where a profile may enable it),
 * flags the fast path needs, and one function per point it has behaviour at in gpusim (NULL
 * where it has none; an inert plugin has none at all and never enters a table).
 *
 * The functions take the scheduler's internal state (models/sched/sched_internal.h); only the
 * scheduler calls them, from its tables (framework.c), never by name. The registry
 * (registry.c) lists the modelled in-tree plugins, the inert in-tree ones, the names of other
 * releases gpusim ignores, and the out-of-tree ones gpusim models (scheduler-plugins
 * Coscheduling, the FGD simulator's Open-Gpu-Share and its six score policies).
 */
#ifndef GPUSIM_SCHED_PLUGIN_H
#define GPUSIM_SCHED_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include "models/sched/sched.h"

struct gs_sched;
struct gs_podctx;
struct gs_fstat;
struct gs_adj;

/* Flags. */
enum {
    /* Filter: the verdict depends only on the pod template's static parts (nodeName,
     * tolerations, nodeSelector, node affinity) and the node's name, labels, taints and
     * unschedulable flag: cache.c keeps the verdict of these plugins per (template, node
     * generation), and their Filter ignores `adj`. */
    GS_PLF_STATIC_FILTER = 1u << 0,
    /* Score: the raw score (before NormalizeScore) depends only on the same inputs: cache.c keeps
     * it per (template, node generation). */
    GS_PLF_STATIC_SCORE = 1u << 1,
    /* Filter: the verdict also depends on cluster state outside the node (ResourceClaims): the
     * template summaries (cache.c) are not used for a pod whose Filter of this plugin runs. */
    GS_PLF_CLUSTER_FILTER = 1u << 2,
    /* Always on (gpusim's device model): gs_sched_new appends it to the table of every point it
     * has a function for, after the profile's plugins, whatever the profile says (naming it is
     * checked like any plugin and changes nothing). */
    GS_PLF_ALWAYS = 1u << 3,
    /* Not in kube-scheduler's in-tree registry. */
    GS_PLF_OUT_OF_TREE = 1u << 4,
    /* A name of another release gpusim accepts at any point and leaves out of every table. */
    GS_PLF_IGNORED = 1u << 5,
};

/* QueueSort, as a key: Less(a, b) is the lexicographic order of (k[0], k[1]) (smaller first),
 * then `tie` when the keys are equal, then the order the pods were queued in (the real heap
 * leaves equal pods in no particular order). The key is computed when the pod enters activeQ
 * from what cannot change while it waits there, so the heap compares integers. */
struct gs_sort_key {
    int64_t k[2];
};

/* A PreFilter's status (RunPreFilterPlugins). */
struct gs_prefilter_status {
    enum gs_status_code code; /* SUCCESS, SKIP (this plugin's Filter does not run for the pod),
                               * UNSCHEDULABLE(_AND_UNRESOLVABLE) (every node gets it), ERROR
                               * (the attempt ends) */
    uint8_t kind;             /* rejected: the nodes' reason kind (enum gs_reason_kind) */
    bool restricts;           /* SUCCESS with a PreFilterResult: only the nodes `allows` accepts */
    const char *msg;          /* rejected or ERROR: the status text (static or scheduler-owned) */
};

/* A PostFilter's status (RunPostFilterPlugins). */
struct gs_postfilter_status {
    enum gs_status_code code; /* SUCCESS ends the phase (the pod may be scheduled later: no
                               * PostFilter text); UNSCHEDULABLE adds the reason `outcome` */
    uint8_t outcome;          /* the plugin's reason (0: none; its text is post_filter_text's) */
    bool pod_text;            /* the reason names the pod: the FailedScheduling text built with it
                               * is not kept for other pods of the template */
};

struct gs_sched_plugin {
    const char *name;     /* upstream name */
    int id;               /* enum gs_plugin; -1 for a GS_PLF_IGNORED name */
    uint32_t points;      /* GS_EP_BIT(pt) for every point the upstream plugin implements */
    uint32_t flags;       /* GS_PLF_* */

    /* Plugin state: made when a scheduler's tables hold the plugin (0 or GS_ENOMEM), freed with
     * the scheduler (idempotent: plugins may share state). */
    int (*init)(struct gs_sched *s);
    void (*fini)(struct gs_sched *s);

    /* QueueSort: the key of `pod` queued at `timestamp` (µs), and the tie rule (<0: a first,
     * >0: b first, 0: equal; NULL: none). Read the world only. */
    void (*sort_key)(const struct gs_world *w, int pod, gs_time timestamp, struct gs_sort_key *key);
    int (*sort_tie)(const struct gs_world *w, int a, int b);

    /* PreFilter: the pod's state for this cycle into pc; *st arrives {SUCCESS}. */
    void (*pre_filter)(struct gs_sched *s, struct gs_podctx *pc, struct gs_prefilter_status *st);
    /* The PreFilterResult (when pre_filter set st->restricts): may node `node` be filtered? */
    bool (*pre_filter_allows)(const struct gs_sched *s, const struct gs_podctx *pc, int node);
    /* Filter: leaves *st alone when node `node` passes, else sets code, plugin and the reason
     * (st arrives {.node = node}). `adj` adds nominated pods or removes preemption victims
     * (NULL: none). Reads the node data through the scheduler's copies (cache.c), which are up
     * to date during a cycle. */
    void (*filter)(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                   struct gs_fstat *st);
    /* PostFilter: the pod fit no node (the cycle's statuses are in the scheduler); may set
     * out's nomination, victims, reject_group. *st arrives {UNSCHEDULABLE, 0, false}. */
    void (*post_filter)(struct gs_sched *s, const struct gs_podctx *pc, struct gs_cycle_result *out,
                        struct gs_postfilter_status *st);
    /* Append the text of reason `outcome` to the FailedScheduling message (message.c gs_msg_*). */
    void (*post_filter_text)(struct gs_sched *s, const struct gs_podctx *pc, int outcome);

    /* PreScore over the feasible nodes: 0 (score), 1 (Skip: no Score for this pod), or GS_ENOMEM.
     * gpusim runs it with the plugin's Score, whether or not the profile lists it under preScore
     * (upstream's Score computes the same state itself when its PreScore did not run). */
    int (*pre_score)(struct gs_sched *s, struct gs_podctx *pc, const int *nodes, int n);
    /* Score: the raw score of nodes[i] into out[i], i < n. */
    void (*score)(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out);
    /* NormalizeScore (ScoreExtensions), over the feasible nodes' scores; NULL: none. */
    void (*normalize)(struct gs_sched *s, int64_t *scores, int n);
    /* The GPU this Score plugin would give a share pod on `node` (the FGD simulator's
     * allocateGpuIdFunc of gpuSelMethod), -1: no choice; NULL: the plugin chooses no GPUs. */
    int (*share_gpu)(struct gs_sched *s, int pod, int node);

    /* Reserve / Unreserve. */
    enum gs_status_code (*reserve)(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c);
    void (*unreserve)(struct gs_sched *s, int pod, int node, gs_time now, const struct gs_sched_client *c);
    /* Permit: *out arrives {ALLOW}. */
    void (*permit)(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c,
                   struct gs_permit_result *out);
    /* PreBind, Bind (Bind may return GS_ST_SKIP). */
    enum gs_status_code (*pre_bind)(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c);
    enum gs_status_code (*bind)(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c);
};

/* The registry: the plugin named `name` (exact, case-sensitive), NULL when gpusim knows no
 * plugin of that name. */
const struct gs_sched_plugin *gs_plugin_lookup(const char *name);
/* The plugin with id `id` (enum gs_plugin), NULL when out of range. */
const struct gs_sched_plugin *gs_plugin_by_id(int id);
/* Every registered plugin, in registry order: *out points at the static list; returns the count. */
int gs_plugin_registry(const struct gs_sched_plugin *const **out);
/* True when `p` implements extension point `pt` upstream (a profile may enable it there). */
bool gs_plugin_implements(const struct gs_sched_plugin *p, enum gs_ext_point pt);
/* True when `p` has a function at `pt` in gpusim (it then enters that point's table). */
bool gs_plugin_acts_at(const struct gs_sched_plugin *p, enum gs_ext_point pt);

/* The QueueSort plugins, for queues made without a scheduler (queue.h). */
extern const struct gs_sched_plugin gs_plugin_priority_sort;

#endif
