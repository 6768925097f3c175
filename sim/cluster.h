/* gpusim: the cluster layer: the API server and the kubelets of a run.
 *
 * It alone changes the world (models/world.h) during a run and writes the trace's rows:
 * controllers (sim/controller.h) read the world and act through the verbs below. Each verb
 * does what the API server (validation, object writes, status) or a node's kubelet (admission,
 * starting and stopping containers, registering devices) would, writes its rows, and delivers
 * the watch events it causes to every controller, synchronously, depth-first, in registry order
 * (sim/controllers/registry.c; the contract is in sim/controller.h).
 *
 * Units: time gs_time µs, cpu millicores, memory bytes, other resources counts. Indexes: node,
 * pod, workload and group indexes into the world's arrays. Errors inside a run (out of memory,
 * a trace write that failed) are kept in c->err (the first one wins) and end the run; verbs
 * then still leave the world consistent.
 */
#ifndef GPUSIM_SIM_CLUSTER_H
#define GPUSIM_SIM_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/intern.h"
#include "base/intmap.h"
#include "base/rng.h"
#include "base/time.h"
#include "models/sched/queue.h"
#include "models/sched/sched.h"
#include "models/world.h"
#include "sim/engine.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "sim/trace.h"

struct gs_controller;
struct gs_fgd_world_typical;
struct gs_metrics;
struct gs_dp_config;
struct gs_mig_layout;
struct gs_dra_state;

/* ---------------------------------------------------------------- engine events */

/* What the run itself schedules (sim/run.c, sim/cluster/): the scenario's own actions, the
 * kubelets' container lifecycle, samples and checks. Controllers' timers are GS_EV_TIMER and
 * up (gs_cluster_timer): the engine's kinds name no feature. */
enum gs_ev_kind {
    GS_EV_NODE_JOIN = 1, /* a = pool, b = index in pool: a node of a pool joins */
    GS_EV_SCENARIO,      /* a = index in sc->events */
    GS_EV_ARRIVAL,       /* a = workload, b = arrival index: the user creates the workload object */
    GS_EV_POD_START,     /* a = pod: the kubelet starts its containers (start latency over) */
    GS_EV_POD_FINISH,    /* a = pod: its containers exit (duration over) */
    GS_EV_POD_GONE,      /* a = pod, b = 1 for an eviction: graceful termination over */
    GS_EV_SAMPLE,        /* metrics sample (background) */
    GS_EV_CHECK,         /* a = expect index */
    GS_EV_TIMER,         /* controller timers: GS_EV_TIMER + (controller * GS_TIMER_TYPES + type) * 2 + bg */
};
#define GS_TIMER_TYPES 4
#define GS_MAX_CONTROLLERS 24

/* Priorities at equal times (lower runs first): cluster changes, then pod terminations, then
 * creations, then the queue, then scheduling, then samples and checks, so a check at time t sees
 * everything that happened at t. */
enum {
    GS_PRIO_CLUSTER = 0,
    GS_PRIO_TERMINATE = 10,
    GS_PRIO_CREATE = 20,
    GS_PRIO_ADMISSION = 25, /* Kueue's admission passes: after creations, before the scheduler */
    GS_PRIO_START = 30,
    GS_PRIO_QUEUE = 40,
    GS_PRIO_SCHED = 50,
    GS_PRIO_SAMPLE = 80,
    GS_PRIO_CHECK = 90,
};

/* ---------------------------------------------------------------- watch events */

/* What a controller hears of the cluster (struct gs_watch_event.type), written once. */
#define GS_WATCH_EVENTS(X)                                                                        \
    X(NODE_ADDED, "NodeAdded")             /* node registered, its initial rows written */        \
    X(NODE_LABELED, "NodeLabeled")         /* node's labels changed (origin: who changed them) */ \
    X(CLUSTER_EVENT, "ClusterEvent")       /* ce: what the scheduling queue's informers hear */   \
    X(DEVICES_REGISTERED, "DevicesRegistered") /* node: the device plugin registered GPUs */     \
    X(OPERAND_STARTED, "OperandStarted")   /* node, operand: an operand's pod started */         \
    X(DEVICE_CONFIG_CHANGED, "DeviceConfigChanged") /* node: the device plugin's config switched */ \
    X(POD_CREATED, "PodCreated")           /* pod accepted by the API server (not Rejected) */    \
    X(POD_BOUND, "PodBound")               /* pod bound to node (its Scheduled row written) */    \
    X(POD_STARTED, "PodStarted")           /* pod Running */                                      \
    X(POD_STOPPING, "PodStopping")         /* pod ending, still on its node */                    \
    X(POD_TERMINATED, "PodTerminated")     /* pod ended and off its node, rows written */         \
    X(POD_FINISHED, "PodFinished")         /* pod's outcome, for its owners (after TERMINATED) */ \
    X(WORKLOAD_ARRIVED, "WorkloadArrived") /* an arrival of a workload object was admitted */    \
    X(GROUP_ADMITTED, "GroupAdmitted")     /* Kueue admitted (unsuspended) pods of a workload */  \
    X(GROUP_DELETED, "GroupDeleted")       /* a LeaderWorkerSet group was scaled away */

enum gs_watch_type {
#define GS_WATCH_ENUM(name, text) GS_W_##name,
    GS_WATCH_EVENTS(GS_WATCH_ENUM)
#undef GS_WATCH_ENUM
        GS_W_COUNT
};
#define GS_WATCH_BIT(type) (UINT32_C(1) << (type))
_Static_assert(GS_W_COUNT <= 32, "watch event types fit a 32-bit mask");
/* The event's name ("PodBound"), for messages. Static. */
const char *gs_watch_name(enum gs_watch_type t);

/* How a pod ended (POD_TERMINATED, POD_FINISHED). */
enum gs_pod_outcome { GS_OUT_SUCCEEDED, GS_OUT_FAILED, GS_OUT_DELETED };

/* Why a pod was deleted (gs_cluster_delete_pod): its owners react differently. */
enum gs_delete_cause {
    GS_DEL_API = 0,  /* deleted through the API (deletePod, a Job's cleanup, a node deleted) */
    GS_DEL_EVICTED,  /* evicted (drain, reboot, preemption): a plain workload re-creates it */
    GS_DEL_OWNER,    /* its owner stopped it (Kueue suspended the workload, a LeaderWorkerSet
                      * scaled down or re-creates the group): no restart, no failure counted */
};

struct gs_watch_event {
    enum gs_watch_type type;
    int node;                     /* -1 when none */
    int pod;                      /* -1 when none */
    int workload;                 /* -1 when none */
    int origin;                   /* NODE_LABELED: the controller that changed them, -1 the scenario */
    enum gs_cluster_event ce;     /* CLUSTER_EVENT */
    /* POD_TERMINATED, POD_FINISHED */
    enum gs_pod_outcome outcome;
    enum gs_delete_cause cause;
    bool held;                    /* POD_TERMINATED: the pod was bound or assumed on a node */
    bool was_active;              /* POD_FINISHED (deleted): it was Pending or Running */
    bool recreate;                /* POD_FINISHED (evicted): a ReplicaSet-style owner re-creates it */
    bool scheduled;               /* POD_BOUND: bound by the scheduler (not through spec.nodeName) */
    int share_gpu;                /* POD_BOUND: the GPU a scheduler plugin chose for the pod's
                                   * gpu-milli share (FGDScore), -1: none */
    /* DEVICES_REGISTERED: amount healthy GPUs (capacity: the count registered), unhealthy bitmap */
    bool capacity;
    int64_t amount;
    uint64_t unhealthy;
    int operand;                  /* OPERAND_STARTED: enum gs_operand */
    /* WORKLOAD_ARRIVED, GROUP_ADMITTED, GROUP_DELETED */
    int arrival;
    int lws_group;                /* LeaderWorkerSet group, -1: the whole arrival */
    bool held_by_admission;       /* WORKLOAD_ARRIVED: an admission hook suspended it (Kueue) */
    int count;                    /* GROUP_ADMITTED: pods to create */
    const struct gs_pod_template *tmpl; /* GROUP_ADMITTED: their template (arena) */
};

/* ---------------------------------------------------------------- the cluster */

struct gs_cluster {
    struct gs_scenario *sc;        /* borrowed */
    struct gs_world *w;            /* &sc->world */
    const struct gs_run_opts *opts;
    struct gs_engine *eng;
    struct gs_rng *rng;
    struct gs_trace *trace;
    int gpu_res;                   /* index of nvidia.com/gpu */
    int err;                       /* first error (GS_ENOMEM, GS_ESQL...), 0 while the run is fine */
    char err_msg[256];             /* what the first error was about, when more than gs_strerror */
    int phase_count[GS_PHASE_COUNT]; /* pods per phase, deleted ones left out */
    int64_t foreground;            /* pending events that are not background */
    int nwarnings;
    struct gs_intern messages;     /* distinct FailedScheduling texts */
    int *next_index;               /* per pool: index of the next node added */
    struct gs_intmap finish_ev;    /* pod index -> gs_event_handle: the completion of a Running
                                    * pod that has a duration (kubelet) */
    /* The FGD typical-pod set of the scenario's workloads (fgd_world.h), read by FGDScore and the
     * fragmentation metric; NULL when the workloads make no pod. */
    const struct gs_fgd_world_typical *typical;
    struct gs_fgd_world_typical *typical_owned;
    /* per node: GS_RES_* bits of the resource changes since gs_cluster_gpus_registered's mark */
    uint8_t *node_pending;
    int node_pending_cap;
    /* controllers, in registry order */
    const struct gs_controller *ctl[GS_MAX_CONTROLLERS];
    void *state[GS_MAX_CONTROLLERS];
    int nctl;
    /* per watch event type: the set-up controllers that handle it, in registry order */
    uint8_t watchers[GS_W_COUNT][GS_MAX_CONTROLLERS];
    uint8_t nwatchers[GS_W_COUNT];
    void (*driver)(struct gs_cluster *c, const struct gs_event *ev); /* samples and checks */
    /* statistics for gs_run_result */
    uint64_t cycles;
    int pods_scheduled;
    /* the latest whole-cluster sample, not yet given to the metric windows (sim/metrics.c):
     * a later sample at the same time replaces it, so it is judged once its time is over */
    struct gs_metrics last_sample;
    bool has_last_sample;
    /* GPU-time over the samples, slot 0 the cluster and p + 1 pool p (sim/metrics.h) */
    struct gs_gpu_time *gpu_time;
    int gpu_time_cap;
    /* DRA objects (claims, slices, the GPU ledger; dra_state.h), NULL without DRA */
    struct gs_dra_state *dra;
    /* the scheduling attempt being recorded and each pod's last one (sim/cluster/attempts.c;
     * --trace-level full), NULL until the first */
    struct gs_attempts *attempts;
};

/* Set up the cluster for sc (engine, RNG streams, trace already open in `trace`) and the
 * controllers of the registry (each one's setup, in order). `driver` (sim/run.c) handles the
 * GS_EV_SAMPLE and GS_EV_CHECK events. 0 or a negative GS_E* code; on error gs_cluster_free
 * still must be called. */
int gs_cluster_init(struct gs_cluster *c, struct gs_scenario *sc, const struct gs_run_opts *o,
                    struct gs_trace *trace, void (*driver)(struct gs_cluster *, const struct gs_event *));
/* Free the controllers (reverse order) and everything the cluster owns (not the trace). */
void gs_cluster_free(struct gs_cluster *c);

/* Record the first error of the run (rc 0 is ignored). */
void gs_cluster_fail(struct gs_cluster *c, int rc);
/* gs_cluster_fail with a message (printf format) kept in c->err_msg for the run's error. */
void gs_cluster_fail_msg(struct gs_cluster *c, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The current simulated time, µs. */
gs_time gs_cluster_now(const struct gs_cluster *c);

/* Schedule an event of the run's own kinds (enum gs_ev_kind below GS_EV_TIMER). Returns its
 * handle, 0 when out of memory (recorded). */
gs_event_handle gs_cluster_at(struct gs_cluster *c, gs_time t, int32_t prio, uint32_t kind, int64_t a, int64_t b);

/* A timer of controller `self` (its registry index, given to it at setup): at time t (µs, >= now)
 * with priority `prio`, `type` < GS_TIMER_TYPES, payload a and b; `background` timers do not keep
 * a run without a horizon going. The controller's on_timer gets it back. Returns its handle
 * (0 when out of memory, recorded). */
gs_event_handle gs_cluster_timer(struct gs_cluster *c, int self, gs_time t, int32_t prio, int type, int64_t a,
                                 int64_t b, bool background);
/* Cancel a pending foreground event or timer and zero the handle; a zero handle is ignored. */
void gs_cluster_cancel(struct gs_cluster *c, gs_event_handle *h);

/* Deliver a watch event to every controller, in registry order (sim/controller.h). */
void gs_cluster_watch(struct gs_cluster *c, const struct gs_watch_event *ev);
/* A CLUSTER_EVENT watch event (what the scheduler's informers deliver to its queue). */
void gs_cluster_notify(struct gs_cluster *c, enum gs_cluster_event ce);

/* ---------------------------------------------------------------- rows and warnings */

/* A node_event / pod_event / object row at the current time (strings copied by the trace). */
void gs_cluster_node_event(struct gs_cluster *c, int node, const char *kind, const char *subject, const char *value);
void gs_cluster_pod_event(struct gs_cluster *c, int pod, const char *reason, const char *msg);
void gs_cluster_object(struct gs_cluster *c, const char *kind, const char *ns, const char *name, const char *status,
                       const char *msg);
/* A scenario event named something absent at its time: a numbered warning in the run table,
 * "line <l>: at <t>: <what> <name> not found". */
void gs_cluster_warn(struct gs_cluster *c, const struct gs_sevent *se, const char *what, const char *name);
/* Ask for a sample row now (gpusim run --sample-every-pod; sim/metrics.c). */
void gs_cluster_sample(struct gs_cluster *c);

/* A scheduling attempt's verdicts, written at --trace-level full as the attempt,
 * attempt_node and attempt_score rows (sim/cluster/attempts.c, docs/trace-schema.md). The
 * scheduler controller's observer (models/sched/sched.h struct gs_sched_observer) calls them
 * during a cycle for `pod`: node's verdict (strings copied), a feasible node's normalised
 * score from Score plugin `plugin` (enum gs_plugin) and its weight, then the result: the
 * attempt is written at the current time, or, when it is identical to the pod's previous
 * attempt but for its time, that row's count and last_us go up. `group_pod`: the pod whose
 * gang admission group cycle this is (-1: an ordinary cycle). Out of memory and trace errors
 * are recorded (gs_cluster_fail). */
void gs_cluster_attempt_node(struct gs_cluster *c, int pod, int node, const struct gs_node_status *st);
void gs_cluster_attempt_score(struct gs_cluster *c, int pod, int node, int plugin, int64_t score, int64_t weight);
void gs_cluster_attempt_done(struct gs_cluster *c, int pod, const struct gs_cycle_result *r, int group_pod);

/* ---------------------------------------------------------------- nodes (sim/cluster/nodes.c) */

/* A node of `pool` registers (the pool's next index): labels (hostname, rack), its node row and
 * initial rows (Joined, labels, taints, cordon, capacity, allocatable), then NODE_ADDED. No
 * CLUSTER_EVENT: the caller notifies GS_CE_NODE_ADD once for a batch. Returns the node index or a
 * negative GS_E* code. */
int gs_cluster_add_node(struct gs_cluster *c, int pool);
/* Set label `key` to `value` (NULL: remove it) on node `n`, with its Label row; true when it
 * changed. The node is touched; watchers hear of it at gs_cluster_node_patched. */
bool gs_cluster_set_label(struct gs_cluster *c, int n, const char *key, const char *value);
/* Set the capacity (`capacity` true) or allocatable amount of resource `ri` on node `n`, with a
 * Capacity/Allocatable row when it changed (amounts as the kubelet reports them: cpu in cores or
 * m, memory in Ki). Growth of allocatable and any change are remembered for gs_cluster_node_patched. */
void gs_cluster_set_resource(struct gs_cluster *c, int n, bool capacity, int ri, int64_t amount);
/* Cordon (true) or uncordon node `n`, with its Cordon row; nothing when unchanged. */
void gs_cluster_set_unschedulable(struct gs_cluster *c, int n, bool on);
/* The node booted into `kernel` (arena string): its Kernel row. */
void gs_cluster_set_kernel(struct gs_cluster *c, int n, const char *kernel);
/* The node's GPUs became schedulable for the first time (`amount` allocatable): the Schedulable
 * row, once. */
void gs_cluster_set_schedulable(struct gs_cluster *c, int n, int64_t amount);
/* The node's Ready condition (false while its kubelet is down, e.g. rebooting). No row. */
void gs_cluster_set_ready(struct gs_cluster *c, int n, bool ready);
/* The status of an operand's pod on the node as kubectl shows it (static string, NULL: no pod)
 * and its readiness. No row (the controller writes its Operand rows). */
void gs_cluster_set_operand(struct gs_cluster *c, int n, int operand, const char *status, bool ready);
/* What the device plugin shows of node `n` to GPU feature discovery: its config (NULL: none)
 * and the GPUs' MIG layouts (node.gpu_count of them, NULL: no MIG data). Borrowed pointers
 * that must live as long as the run. */
void gs_cluster_set_device_view(struct gs_cluster *c, int n, const struct gs_dp_config *dp,
                                const struct gs_mig_layout *mig);
/* The device plugin's config-manager switched node `n` to another config (its pod and GPU
 * feature discovery restart): DEVICE_CONFIG_CHANGED. */
void gs_cluster_device_config_changed(struct gs_cluster *c, int n);
/* The device plugin hands pod shares out: take `a` (gs_gpushare_choose's) from node `n`'s GPUs
 * (0, or GS_EINVAL with nothing taken), or give it back. */
int gs_cluster_take_share(struct gs_cluster *c, int n, const struct gs_gpushare_alloc *a);
void gs_cluster_give_share(struct gs_cluster *c, int n, const struct gs_gpushare_alloc *a);
/* The number of GPUs of node `n` that take gpu-milli shares (0: none; gpushare.h). */
void gs_cluster_set_share_gpus(struct gs_cluster *c, int n, int ngpus);
/* Node `n` was changed by one controller's batch of verbs (a PATCH): the node is touched; when
 * `labels` changed, CLUSTER_EVENT NodeLabel, then NODE_LABELED (origin `origin`: the controller's
 * registry index, -1: the scenario); when `grew` (allocatable grew), CLUSTER_EVENT NodeAllocatable. */
void gs_cluster_node_patched(struct gs_cluster *c, int n, bool labels, bool grew, int origin);
/* What gs_cluster_gpus_registered reports of the resources its watchers set. */
enum { GS_RES_GREW = 1, GS_RES_CHANGED = 2 };
/* The device plugin on node `n` registered `amount` healthy GPUs (allocatable; capacity: the
 * count it registered), `unhealthy` the bitmap of GPUs marked Unhealthy: DEVICES_REGISTERED.
 * Returns GS_RES_GREW | GS_RES_CHANGED for what the watchers' gs_cluster_set_resource calls
 * did to node `n` (allocatable grew, something changed). */
int gs_cluster_gpus_registered(struct gs_cluster *c, int n, bool capacity, int64_t amount, uint64_t unhealthy);
/* An operand's pod started on node `n`: OPERAND_STARTED. */
void gs_cluster_operand_started(struct gs_cluster *c, int n, int operand);
/* GPUs of node `n` that DRA claims hold (bit i: GPU i), from the ledger; 0 without DRA. */
uint64_t gs_cluster_dra_gpus(const struct gs_cluster *c, int n);

/* kubectl drain of node `n`: cordoned (Cordon row), every pod on it evicted with graceful
 * termination (reason Evicted, message `msg`), CLUSTER_EVENT NodeTaint. The scenario's `drain`
 * and the Cluster Autoscaler's scale-down. */
void gs_cluster_drain_node(struct gs_cluster *c, int n, const char *msg);
/* Delete node `n` (kubectl delete node, or the cloud provider removing its instance): its pods
 * deleted at once (reason Deleted, "node deleted"), the node gone (exists false, a Deleted
 * row). No watch event. The scenario's `deleteNode` and the Cluster Autoscaler's scale-down. */
void gs_cluster_delete_node(struct gs_cluster *c, int n);

/* The scenario's node and pod operations (cordon, uncordon, drain, deleteNode, addNodes, label,
 * deletePod): true when `se` is one of them (done, or warned about). */
bool gs_cluster_scenario_event(struct gs_cluster *c, const struct gs_sevent *se);

/* ---------------------------------------------------------------- pods (sim/cluster/pods.c) */

/* A pod to create. */
struct gs_pod_spec {
    int workload;                       /* owner (>= 0) */
    const char *name;                   /* copied */
    const struct gs_pod_template *tmpl; /* borrowed: must outlive the run */
    int group;                          /* PodGroup, -1 none */
    int lws_group, lws_worker;          /* LeaderWorkerSet member, -1 / 0 otherwise */
    bool has_duration;                  /* duration given (a listed pod), not drawn */
    gs_time duration;                   /* µs, -1: runs until deleted */
};
/* Create a pod (the API server): counted, traced (pod row, Created), then refused by validation
 * (Rejected) or accepted: POD_CREATED, and when spec.nodeName names an existing node the kubelet
 * binds it there directly (POD_BOUND, start after the start latency). Returns the pod index or a
 * negative GS_E* code. */
int gs_cluster_create_pod(struct gs_cluster *c, const struct gs_pod_spec *spec);
/* Assume pod `p` on node `n` in the scheduler's view (its requests count on the node) without
 * binding it: a pod reserved and waiting at Permit. */
void gs_cluster_assume(struct gs_cluster *c, int p, int n);
/* Mark an assumed pod as waiting at Permit (true) or not. */
void gs_cluster_set_permit_waiting(struct gs_cluster *c, int p, bool waiting);
/* Drop an assumed, unbound pod from its node (Unreserve). */
void gs_cluster_forget(struct gs_cluster *c, int p);
/* Write pod `p`'s row of the trace as the pod is now. */
void gs_cluster_pod_row(struct gs_cluster *c, int p);
/* Bind pod `p` to node `n` (n < 0: the node it is assumed on): DRA's ledger notes the device
 * plugin's GPUs, Scheduled row, the devices of its claims, POD_BOUND, start after the start
 * latency. `share_gpu`: the GPU a scheduler plugin chose for a gpu-milli share (-1: none). */
void gs_cluster_bind(struct gs_cluster *c, int p, int n, int share_gpu);
/* DynamicResources' PreBind: allocate and reserve pod `p`'s claims on node `n` (status.allocation,
 * reservedFor); a Warning row when they no longer fit. */
void gs_cluster_bind_claims(struct gs_cluster *c, int p, int n);
/* The scheduler could not place pod `p`: status.conditions PodScheduled False with `message`
 * (interned) and a FailedScheduling row. */
void gs_cluster_unschedulable(struct gs_cluster *c, int p, const char *message);
/* status.nominatedNodeName of pod `p` (-1: cleared). */
void gs_cluster_nominate(struct gs_cluster *c, int p, int n);
/* Preemption: pod `victim` gets DisruptionTarget (preempted by `by` for node `n`), a Preempted
 * row and graceful termination (evicted at its end). Nothing when it is already terminating. */
void gs_cluster_preempt(struct gs_cluster *c, int victim, int by, int n);
/* Delete pod `p` through the API with graceful termination (a bound pod keeps its resources for
 * terminationGracePeriodSeconds, then goes; an unbound one goes at once). */
void gs_cluster_terminate_pod(struct gs_cluster *c, int p, enum gs_delete_cause cause, const char *reason,
                              const char *msg);
/* Delete pod `p` at once (no graceful termination): it ends (Failed when Running), leaves its
 * node, and its owners hear POD_FINISHED with `cause`. Nothing for a deleted pod. */
void gs_cluster_delete_pod(struct gs_cluster *c, int p, enum gs_delete_cause cause, const char *reason,
                           const char *msg);
/* The kubelet fails pod `p` (admission refused): Failed with status.reason `reason` and
 * status.message `msg` (copied), its resources freed, a `reason` row; not re-created. */
void gs_cluster_fail_pod(struct gs_cluster *c, int p, const char *reason, const char *msg);
/* Evict every pod of node `n` (only those requesting nvidia.com/gpu when `gpu_only`), at once,
 * reason Evicted. */
void gs_cluster_evict_node_pods(struct gs_cluster *c, int n, bool gpu_only, const char *msg);

/* ---------------------------------------------------------------- objects (sim/cluster/objects.c) */

/* The PodGroup `name` of workload `wl` (created with `min_member` when new, in arrival
 * `arrival`). Returns its index, or -1 when out of memory (recorded). */
int gs_cluster_group(struct gs_cluster *c, int wl, int arrival, const char *name, int min_member);
/* The PodGroup object (a PodGroup manifest that has arrived) named `name`, -1 when none. */
int gs_cluster_podgroup_object(const struct gs_cluster *c, const char *name);
/* The Job controller counts a pod of Job `wl` (status.succeeded or status.failed). */
void gs_cluster_job_counted(struct gs_cluster *c, int wl, bool succeeded);
/* spec.replicas of workload `wl` (kubectl scale). */
void gs_cluster_set_replicas(struct gs_cluster *c, int wl, int replicas);
/* Suspend (true) or unsuspend a workload (a Job Kueue stopped: its pods are neither replaced nor
 * counted as failed). */
void gs_cluster_set_suspended(struct gs_cluster *c, int wl, bool suspended);
/* The template new pods of workload `wl` are made from (Kueue's injected nodeSelector; NULL: the
 * workload's own). Borrowed (arena). */
void gs_cluster_set_active_template(struct gs_cluster *c, int wl, const struct gs_pod_template *tmpl);
/* Kueue admitted pods of workload `wl`: GROUP_ADMITTED (the owner creates `count` pods from `tmpl`,
 * or LeaderWorkerSet group `lws_group`). */
void gs_cluster_admit(struct gs_cluster *c, int wl, int arrival, int lws_group, int count,
                      const struct gs_pod_template *tmpl);
/* LeaderWorkerSet group `g` of workload `wl` was scaled away: GROUP_DELETED. */
void gs_cluster_group_deleted(struct gs_cluster *c, int wl, int g);
/* Ask the admission hooks whether they take LeaderWorkerSet group `g` (added by a scale) of `wl`:
 * true when one of them holds it (Kueue makes a Workload for it). */
bool gs_cluster_admit_group(struct gs_cluster *c, int wl, int g);
/* Arrival `arrival` of workload `wl` (the user creates the object): API validation (a refused
 * Job is a Rejected object), admission hooks (Kueue suspends what it manages), a PodGroup
 * manifest's object, WORKLOAD_ARRIVED, then the next arrival of a repeating workload. */
void gs_cluster_arrival(struct gs_cluster *c, int wl, int arrival);

/* Pods a workload makes over the whole run (a workload naming pods `<name>` when 1). */
int64_t gs_workload_planned_pods(const struct gs_workload *wl);

/* ---------------------------------------------------------------- DRA objects (sim/cluster/dra.c) */

/* The DRA kubelet plugin on node `n` publishes its ResourceSlice (once; a ResourceSlice row and
 * CLUSTER_EVENT ResourceChange). Nothing without DRA or when already published. */
void gs_cluster_publish_slice(struct gs_cluster *c, int n);
/* True once node `n`'s ResourceSlice is published. */
bool gs_cluster_slice_published(const struct gs_cluster *c, int n);
/* The resourceclaim controller: claims from pod `p`'s ResourceClaimTemplates. */
void gs_cluster_create_claims(struct gs_cluster *c, int p);
/* Pod `p` ended or was deleted (it was on node `n`, -1 none): reservations released, unused
 * claims deallocated, generated claims deleted, the ledger updated. */
void gs_cluster_release_claims(struct gs_cluster *c, int p, int n);

#endif
