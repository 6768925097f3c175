/* gpusim internal: the state of one run, shared by run.c (event handlers), check.c (expect:)
 * and metrics.c (samples). Not a public header. */
#ifndef GPUSIM_RUN_STATE_H
#define GPUSIM_RUN_STATE_H

#include <stdint.h>

#include "sim/engine.h"
#include "models/sched/queue.h"
#include "base/rng.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "models/sched/sched.h"
#include "sim/trace.h"
#include "base/intern.h"

/* Event kinds, and their priority at equal times (lower runs first): cluster changes, then pod
 * terminations, then creations, then scheduling, then sampling and checks, so a check at time
 * t sees everything that happened at t. */
enum gs_ev_kind {
    GS_EV_NODE_JOIN = 1,  /* a = pool, b = index in pool */
    GS_EV_SCENARIO,       /* a = index in sc->events */
    GS_EV_POD_FINISH,     /* a = pod */
    GS_EV_POD_GONE,       /* a = pod: graceful termination over (preemption victim) */
    GS_EV_ARRIVAL,        /* a = workload, b = arrival index */
    GS_EV_POD_CREATE,     /* a = workload, b = arrival index << 20 | pod index in arrival */
    GS_EV_POD_START,      /* a = pod */
    GS_EV_BACKOFF,        /* a = pod, b = attempts when it entered backoff */
    GS_EV_FLUSH,          /* unschedulable pool leftover flush (background) */
    GS_EV_SCHED,          /* one scheduling cycle */
    GS_EV_SAMPLE,         /* metrics sample (background) */
    GS_EV_CHECK,          /* a = expect index */
    GS_EV_BRINGUP,        /* a = node, b = gs_bringup_timer_encode(timer, generation, token) */
    GS_EV_BRINGUP_BG,     /* the same, for a retry nothing waits for (background) */
    GS_EV_PERMIT_TIMEOUT, /* a = pod waiting at Permit (Coscheduling) */
    GS_EV_LWS_RESTART,    /* a = LeaderWorkerSet pod that ended: its controller reacts */
    GS_EV_KUEUE,          /* a = Kueue workload (-1: an admission pass), b = kind << 32 | generation */
    GS_EV_DEVICES,        /* a = node, b = token: a MIG reconfiguration is over (sim/devices_run.c) */
    GS_EV_KINDS
};

enum {
    GS_PRIO_CLUSTER = 0,
    GS_PRIO_TERMINATE = 10,
    GS_PRIO_CREATE = 20,
    GS_PRIO_START = 30,
    GS_PRIO_QUEUE = 40,
    GS_PRIO_SCHED = 50,
    GS_PRIO_SAMPLE = 80,
    GS_PRIO_CHECK = 90,
};

/* Whole-cluster metrics at one instant (a trace sample row with pool ''). */
struct gs_metrics {
    gs_time t;
    int nodes_ready;
    int64_t gpus_capacity;
    int64_t gpus_allocatable;
    int64_t gpus_allocated;
    int pods_pending;
    int pods_running;
    int64_t gpus_held_incomplete; /* GPUs held by PodGroups with fewer than minMember pods Running */
    double frag_gpus;             /* GPUs fragmented (sim/frag_run.c); NaN when not measured */
};

struct gs_runner {
    struct gs_scenario *sc;
    struct gs_world *w;
    const struct gs_run_opts *opts;
    struct gs_engine *eng;
    struct gs_rng *rng;
    struct gs_sched *sched;
    struct gs_queue *queue;
    struct gs_trace *trace;
    int gpu_res;               /* index of nvidia.com/gpu */
    int *scratch;              /* backoff out-list, sized to the pods */
    int scratch_cap;
    int phase_count[GS_PHASE_COUNT];
    int64_t foreground;        /* pending events that are not background */
    gs_event_handle sched_ev;  /* pending GS_EV_SCHED, 0 when none */
    gs_event_handle flush_ev;
    int *next_index;           /* per pool: index of the next node added */
    struct gs_metrics *samples; /* whole-cluster samples, for metric windows */
    int nsamples, samples_cap;
    uint64_t cycles;
    int pods_scheduled;
    int nwarnings;
    struct gs_intern messages; /* distinct FailedScheduling texts */
    int err;                   /* first error inside a handler (GS_ENOMEM, GS_ESQL) */
    struct gs_bringup_run *bringup; /* per-node bring-up state (sim/bringup_run.c) */
    bool lws_recreating;       /* sim/lws_run.c is deleting a group's pods */
    gs_time sched_resume_at;   /* no scheduling cycle before this (a restarting scheduler) */
    struct gs_kueue_run *kueue; /* Kueue's controllers (sim/kueue_run.c); NULL without Kueue */
    struct gs_dra_run *dra;     /* DRA claims and slices (sim/dra_run.c); NULL without sc->dra */
    struct gs_devices_run *devices; /* device-plugin configs, MIG, GPU shares (sim/devices_run.c) */
    struct gs_frag_run *frag;   /* GPU fragmentation (sim/frag_run.c) */
    int share_pod, share_gpu;   /* the GPU the scheduler chose for pod share_pod's share (Open-Gpu-
                                 * Share PreBind), -1 none; read by gs_devices_run_bound */
    int rejected_waiting;       /* pods rejected at Permit through the client, ever */
};

/* metrics.c */
void gs_metrics_now(const struct gs_runner *r, gs_time t, struct gs_metrics *m);
/* Value of a camelCase metric name ("gpusAllocated") in `m`; false when unknown. */
bool gs_metrics_get(const struct gs_metrics *m, const char *name, double *out);
/* Write whole-cluster and per-pool sample rows for now; keep the whole-cluster one. */
int gs_metrics_sample(struct gs_runner *r, gs_time t);

/* run.c: what sim/bringup_run.c needs of the run loop (the static helpers of run.c). */
gs_event_handle gs_run_at(struct gs_runner *r, gs_time t, int32_t prio, uint32_t kind, int64_t a, int64_t b);
void gs_run_cluster_event(struct gs_runner *r, enum gs_cluster_event ev);
void gs_run_node_event(struct gs_runner *r, int node, const char *kind, const char *subject, const char *value);
/* Delete a pod as an eviction: a plain workload's pod is re-created (run.c evict_pod). */
void gs_run_evict_pod(struct gs_runner *r, int pod, const char *reason, const char *msg);
/* Create one pod of workload `wi` (arrival index `arrival`, for its PodGroup) from `tmpl`
 * (NULL: the workload's active template, see gs_workload.active_tmpl), as create_pod does:
 * named, traced, queued (or rejected by the API server, or bound when nodeName is set).
 * Returns the pod index or a negative gs_error code (also kept in r->err). */
int gs_run_create_pod(struct gs_runner *r, int wi, int arrival, const struct gs_pod_template *tmpl);
/* Create pod `name` (copied) of workload `wi` from `tmpl` (borrowed, must outlive the run), in
 * PodGroup `group` (-1: none), as gs_run_create_pod does. Returns the pod index or a negative
 * gs_error code. */
int gs_run_spawn_pod(struct gs_runner *r, int wi, const char *name, const struct gs_pod_template *tmpl, int group);
/* The PodGroup `name` of workload `wi`, made with `min_member` when new. Returns its index, or
 * -1 when out of memory (r->err set). */
int gs_run_group(struct gs_runner *r, int wi, const char *name, int min_member);
/* Delete a pod through the API without graceful termination and without re-creation (a Job
 * still replaces it through its controller, run.c job_after_pod). */
void gs_run_delete_pod(struct gs_runner *r, int pod, const char *reason, const char *msg);
/* Ask for a scheduling cycle when activeQ has pods (not before r->sched_resume_at). */
void gs_run_want_cycle(struct gs_runner *r);
/* Cancel a pending event (and zero the handle); a zero handle is ignored. */
void gs_run_cancel(struct gs_runner *r, gs_event_handle *h);
/* A pod_event row in the trace (reason, message). */
void gs_run_pod_event(struct gs_runner *r, int pod, const char *reason, const char *msg);
/* Bind pod `pod` to `node` (node < 0: to the node it is assumed on): the scheduler's PreBind
 * and Bind plugins through the run's client (claims, the share's GPU, then the Scheduled
 * event, devices, start after the start latency). */
void gs_run_bind(struct gs_runner *r, int pod, int node);
/* The scheduler's client over this run (sched.h gs_sched_client), into *c. */
void gs_run_client(struct gs_runner *r, struct gs_sched_client *c);
/* Pod `pod` failed its scheduling cycle with `message`: FailedScheduling (text interned), then
 * the unschedulable pool, requeued by events of `plugins` (bitmask of enum gs_plugin). */
void gs_run_unschedulable(struct gs_runner *r, int pod, const char *message, uint32_t plugins);
/* The failure path of a cycle result: preemption (nomination, victims), FailedScheduling, the
 * unschedulable pool, and the Coscheduling PostFilter's rejection of waiting siblings. */
void gs_run_failed(struct gs_runner *r, int pod, const struct gs_cycle_result *res);
/* A numbered warning in the trace for an event naming something absent. */
void gs_run_warn(struct gs_runner *r, const struct gs_sevent *se, const char *what, const char *name);
/* The kubelet fails pod `pod` on its node (admission refused): phase Failed with status.reason
 * `reason` and status.message `msg` (copied), its resources freed, a pod_event `reason`; a Job
 * counts it as failed; the pod is not re-created. */
void gs_run_fail_pod(struct gs_runner *r, int pod, const char *reason, const char *msg);

/* bringup_run.c: the GPU Operator's bring-up applied to the world (sim/bringup_run.c). */
struct gs_bringup_run;
/* Allocate r->bringup (always: without an operator the nodes' GPUs are advertised at join and
 * only Xids, plugin restarts and kernel patches use it). 0 or GS_ENOMEM. */
int gs_bringup_run_setup(struct gs_runner *r);
void gs_bringup_run_free(struct gs_runner *r);
/* Node `ni` joined: write its initial labels, taints, capacity and allocatable as node_event
 * rows, then start its bring-up (operator) or record its pre-advertised GPUs (no operator). */
void gs_bringup_run_joined(struct gs_runner *r, int ni);
/* Handler of GS_EV_BRINGUP and GS_EV_BRINGUP_BG. */
void gs_bringup_run_on_timer(struct gs_engine *eng, const struct gs_event *ev, void *ctx);
/* A scenario event of kind kernelPatch, xid, devicePluginRestart, precompiledImagePublished or
 * driverUpgrade. */
void gs_bringup_run_event(struct gs_runner *r, const struct gs_sevent *se);
/* Node `ni`'s labels were changed by a scenario event: operands re-read their deploy labels. */
void gs_bringup_run_labels_changed(struct gs_runner *r, int ni);
/* Pod STATUS of operand DaemonSet `name` on node `ni` (NULL: no pod); *known false when the
 * name is not an operand gpusim models. */
const char *gs_bringup_run_operand_status(const struct gs_runner *r, int ni, const char *name, bool *known);
/* DaemonSet `name` of the installed node software (gs_operand_ds_name under operator.managedBy;
 * none without an operator: section): false when no such DaemonSet exists. Else *desired is
 * its status.desiredNumberScheduled, the existing nodes its pod is scheduled to
 * (gs_operand_ds_schedules on their current labels and taints), and *ready its numberReady,
 * those of them where the operand's pod is ready. */
bool gs_bringup_run_daemonset(const struct gs_runner *r, const char *name, int64_t *desired, int64_t *ready);
/* False while node `ni` is rebooting (kubelet down: the node is not Ready). */
bool gs_bringup_run_node_ready(const struct gs_runner *r, int ni);

/* One status condition of an object as a check sees it (strings static or arena; NULL: unset). */
struct gs_condition {
    const char *status; /* "True" | "False" | "Unknown" */
    const char *reason;
    const char *message;
};
/* Looks up the condition of type `type` of object `obj` (a gs_pod, a Kueue Workload, ...);
 * false when the object has no such condition. */
typedef bool (*gs_condition_fn)(const struct gs_runner *r, const void *obj, const char *type, struct gs_condition *out);

/* gang_run.c: PodGroups in the run loop (Coscheduling Permit, gang admission). */
/* Gang admission (scheduler.admission: gang): pod `pod` of a group was popped; place the
 * group's pending pods all at once, or none of them. */
void gs_gang_run_group_cycle(struct gs_runner *r, int pod);
/* Pod `pod`, reserved on its node, waits at Permit for `wait` µs (WaitingOnPermit, then the
 * timeout event). */
void gs_gang_run_wait(struct gs_runner *r, int pod, gs_time wait);
/* Reject pod `pod` waiting at Permit with `message` (resources released, FailedScheduling, the
 * unschedulable pool, requeued by events of `plugins`). */
void gs_gang_run_reject_one(struct gs_runner *r, int pod, const char *message, uint32_t plugins);
/* Reject every pod of group `group` waiting at Permit with `message` (the Coscheduling
 * PostFilter's rejection: resources released, the pods go back to the queue). */
void gs_gang_run_reject_waiting(struct gs_runner *r, int group, const char *message);
/* Handler of GS_EV_PERMIT_TIMEOUT. */
void gs_gang_run_on_timeout(struct gs_engine *eng, const struct gs_event *ev, void *ctx);

/* list_run.c: pod lists (GS_WL_LIST: workloads[].trace, a cluster snapshot's pods). */
/* GS_EV_ARRIVAL of list workload `wi` at list index `k`: create pod k and the following ones
 * due at the same time (named, with their own template and duration), then schedule the
 * arrival of the next one. Errors go to r->err. */
void gs_list_run_arrival(struct gs_runner *r, int wi, int k);

/* sched_restart.c: a schedulerRestart event (kube-scheduler loses its memory). */
void gs_sched_run_restart(struct gs_runner *r, const struct gs_sevent *se);

/* lws_run.c: the LeaderWorkerSet controller. */
/* An arrival of LeaderWorkerSet workload `wi`: create its groups. */
void gs_lws_run_arrival(struct gs_runner *r, int wi);
/* Create group `g` of LeaderWorkerSet workload `wi` (Kueue admitted it): its leader, and its
 * workers unless startupPolicy is LeaderReady. */
void gs_lws_run_create_group(struct gs_runner *r, int wi, int g);
/* Pod `pod` is Running: with startupPolicy LeaderReady a leader's workers are created. */
void gs_lws_run_pod_started(struct gs_runner *r, int pod);
/* Pod `pod` ended (failed, deleted or its container exited): true when it is a LeaderWorkerSet
 * pod whose controller must react (the run loop then schedules GS_EV_LWS_RESTART). */
bool gs_lws_run_pod_ended(struct gs_runner *r, int pod);
/* scale: LeaderWorkerSet workload `wi` to `replicas` groups (new groups created, or through
 * Kueue; the highest groups deleted when scaling down). */
void gs_lws_run_scale(struct gs_runner *r, int wi, int replicas);
/* Handler of GS_EV_LWS_RESTART: re-create the pod (restartPolicy None) or its whole group. */
void gs_lws_run_on_restart(struct gs_engine *eng, const struct gs_event *ev, void *ctx);

/* check.c: evaluate sc->expects[i] against the current state (fills pass, detail). */
void gs_check_eval(struct gs_runner *r, int i);

/* kueue_run.c: Kueue in the run loop (admission, Job suspension, waitForPodsReady, TAS). */
struct gs_kueue_run;
/* Allocate r->kueue when the scenario has Kueue objects or scheduler.admission is kueue
 * (else leave it NULL: every hook below is then a no-op). 0 or GS_ENOMEM. */
int gs_kueue_run_setup(struct gs_runner *r);
void gs_kueue_run_free(struct gs_runner *r);
/* Arrival `arrival` of workload `wi`: true when Kueue manages it (a Job or Pod labelled
 * kueue.x-k8s.io/queue-name, or a plain workload whose template carries the label): a
 * Workload is created and its pods only after admission; the caller then makes no pods. */
bool gs_kueue_run_arrival(struct gs_runner *r, int wi, int arrival);
/* Pod `pod` became Running (PodsReady accounting). */
void gs_kueue_run_pod_started(struct gs_runner *r, int pod);
/* Pod `pod` ended (succeeded, failed or deleted), after its Job controller ran: a finished
 * Workload releases its quota. */
void gs_kueue_run_pod_ended(struct gs_runner *r, int pod);
/* A cluster event (node added or changed, pod deleted): pending Workloads are retried. */
void gs_kueue_run_cluster_event(struct gs_runner *r);
/* LeaderWorkerSet group `g` of workload `wi` was added by a scale: true when Kueue manages the
 * LeaderWorkerSet (a Workload `<lws>-<g>` is made; its pods come at admission), false when the
 * caller creates the group itself. */
bool gs_kueue_run_lws_group(struct gs_runner *r, int wi, int g);
/* LeaderWorkerSet group `g` of workload `wi` was scaled away: its Workload goes, quota released. */
void gs_kueue_run_lws_group_deleted(struct gs_runner *r, int wi, int g);
/* Handler of GS_EV_KUEUE. */
void gs_kueue_run_on_timer(struct gs_engine *eng, const struct gs_event *ev, void *ctx);
/* The Workload named `name` (NULL when none was created), for object: checks. */
const void *gs_kueue_run_find(const struct gs_runner *r, const char *name);
/* gs_condition_fn for a Workload from gs_kueue_run_find: QuotaReserved, Admitted, PodsReady,
 * Evicted, Preempted, Requeued, Finished. */
bool gs_kueue_run_condition(const struct gs_runner *r, const void *obj, const char *type, struct gs_condition *out);

/* dra_run.c: DRA in the run loop (dra_state.h holds the state the scheduler reads). Every hook
 * is a no-op when r->dra is NULL. */
struct gs_dra_run;
/* Allocate r->dra when the scenario has DRA objects or a DRA driver, and hand its state to
 * r->sched (which must exist). 0 or GS_ENOMEM. */
int gs_dra_run_setup(struct gs_runner *r);
/* Give r->sched the DRA state (at setup, and to a restarted scheduler). */
void gs_dra_run_attach(struct gs_runner *r);
void gs_dra_run_free(struct gs_runner *r);
/* Node `ni` joined (after its GPUs were advertised, if they are at join): the kubelet plugin
 * publishes its ResourceSlice when its DaemonSet runs there. */
void gs_dra_run_node_joined(struct gs_runner *r, int ni);
/* Before a scheduling cycle: nodes whose labels changed since may now run the kubelet plugin. */
void gs_dra_run_before_cycle(struct gs_runner *r);
/* Pod `pi` was created (and accepted by the API server): the claims of its templates. */
void gs_dra_run_pod_created(struct gs_runner *r, int pi);
/* Pod `pi` was bound to node `ni`: Reserve and PreBind of its claims, the device plugin's
 * GPUs in the ledger. */
void gs_dra_run_bind(struct gs_runner *r, int pi, int ni);
/* Pod `pi` ended or was deleted (it was on node `ni`, -1 none): reservations released, unused
 * claims deallocated, its generated claims deleted. */
void gs_dra_run_pod_ended(struct gs_runner *r, int pi, int ni);
/* GPUs of node `ni` the ledger says DRA holds (bit i = GPU i); 0 without a published slice. */
uint64_t gs_dra_run_dra_gpus(const struct gs_runner *r, int ni);
/* Pod `pi` was bound (after gs_dra_run_bind): one pod_event DeviceAllocated per device of each
 * of its allocated claims, "<node> claim=<claim> request=<request> device=<device> gpu=<i>"
 * (the kubelet plugin prepares them for the pod; gpu is the physical GPU, -1 unknown). */
void gs_dra_run_trace_devices(struct gs_runner *r, int pi);
/* object: checks of kind ResourceClaim, ResourceClaimTemplate, ResourceSlice, DeviceClass. */
bool gs_dra_run_kind(const char *kind);
/* *exists for the object `e` names; false with `why` filled when e's expected status does not
 * match (ResourceClaim allocation and reservedFor). */
bool gs_dra_run_object(const struct gs_runner *r, const struct gs_expect *e, bool *exists, char *why, size_t n);

#endif
