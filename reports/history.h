/* gpusim: a trace's events in one ordered list, and the cluster's GPU holdings after each of
 * them, rebuilt from the trace alone (reports/history.c). The timeline, the HTML report's
 * step-through, the exports and `get --at` all read a run through this one model, so they
 * agree with each other and with the trace's samples.
 *
 * What the trace says and how it is read (docs/trace-schema.md):
 *   - events: every node_event, object and pod_event row, merged by time; at one instant node
 *     rows come first, then object rows, then pod rows (a node's Allocatable/Joined row is
 *     written before the pods bound to it at that instant), each table in its own row order
 *     (the order it was written). An
 *     aggregated FailedScheduling row (count > 1) is one event at its first time, with its
 *     count and last time.
 *   - a pod waiting at Permit (a `WaitingOnPermit` row, "<node>: reserved, ...") holds GPUs on
 *     that node until its next FailedScheduling (the reservation is given up) or its Scheduled.
 *   - a pod holds its node from its `Scheduled` row to the row that ends it: the pod's row at
 *     pod.finished_us that is one of Completed, Deleted, Evicted, Failed-type reasons (any
 *     reason written by the kubelet or API server when the pod ends; see hist_ends()), the last
 *     such row of the pod at that time. A pod is bound at most once (a re-created pod is a new
 *     pod).
 *   - the GPUs it holds: its GpuAllocated / DeviceAllocated rows (`gpu=<i>[,<j>...]`, `milli=<m>`,
 *     `replica=<k>/<n>`), from the time of the row; until such a row it holds pod.gpu GPUs on the
 *     node without known slots.
 *   - a node's GPUs allocated after an event: max(sum of pod.gpu of the pods holding it, the
 *     number of its GPUs with any share held): the rule of the trace's samples
 *     (sim/metrics.c), so gs_hist_node_allocated at a sample's time equals that sample's
 *     per-node contribution to gpus_allocated.
 *   - a node's GPUs allocatable: its latest `Allocatable nvidia.com/gpu` row (0 before any, and
 *     after `Deleted`).
 *
 * Units: times int64 µs of simulated time; GPU shares in milli-GPU (1000 = one GPU).
 * Ownership: gs_history_load copies everything it keeps (strings in one arena); free with
 * gs_history_free. A state is the caller's; free with gs_hist_state_free.
 */
#ifndef GPUSIM_REPORTS_HISTORY_H
#define GPUSIM_REPORTS_HISTORY_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/arena.h"

#define GS_HIST_MAX_GPUS 64 /* GPUs per node tracked by slot (GPU indexes above: counts only) */

struct gs_hist_node {
    const char *name, *pool, *product; /* product NULL for a CPU node */
    int gpus;                          /* node.gpu_count: physical GPUs */
    int64_t joined_us, deleted_us;     /* -1 when absent */
};

struct gs_hist_pod {
    const char *name, *workload, *group; /* group: its PodGroup, NULL when none */
    int priority;
    int64_t cpu_m, memory_b, gpu;        /* requests: millicores, bytes, whole GPUs */
    int64_t created_us, scheduled_us, started_us, finished_us; /* -1 when NULL */
    int node;                            /* node index (into gs_history.nodes), -1 never bound */
    const char *phase, *message;         /* the pod row's final phase and message (may be NULL) */
};

enum gs_hist_effect {
    GS_HIST_NONE = 0,
    GS_HIST_BIND,    /* the pod starts holding pod.gpu GPUs on its node (its Scheduled row) */
    GS_HIST_DEVICES, /* the pod's GPU slots become known (GpuAllocated / DeviceAllocated) */
    GS_HIST_RELEASE, /* the pod lets go of its node (the row that ends it) */
    GS_HIST_NODE,    /* a node row that changes allocatable GPUs, joins or deletes the node */
    GS_HIST_RESERVE, /* the pod holds pod.gpu GPUs on `node` while it waits at Permit
                      * (WaitingOnPermit: Coscheduling has assumed it there) */
    GS_HIST_UNRESERVE, /* the waiting pod lets go (its next FailedScheduling: rejected, timed out);
                        * `node` is the node it let go of */
    GS_HIST_SCHED_RESTART, /* kube-scheduler restarted (object row Pod kube-system/kube-scheduler
                            * Restarted): every reservation at Permit is gone */
};

/* Who handed a pod its GPUs, which decides how they count as allocated (sim/metrics.c):
 * Open-Gpu-Share (GpuAllocated rows) marks the GPUs busy; the device plugin's replicas and MIG
 * devices (DeviceAllocated rows without claim=) count through the pod's own request (pod.gpu);
 * DRA (DeviceAllocated rows with claim=) counts each claimed GPU once on its node. */
enum gs_hist_source { GS_HIST_SRC_SHARE = 0, GS_HIST_SRC_DEVICE_PLUGIN, GS_HIST_SRC_DRA };

struct gs_hist_event {
    int64_t t_us, last_us;  /* first and last occurrence (equal unless count > 1) */
    int count;              /* pod_event.count (1 for node events) */
    int pod;                /* pod index, -1 for a node or object row */
    int node;               /* the node concerned: a node event's node; a pod event's node when
                             * the pod is bound (or binding) at it; else -1 */
    const char *reason;     /* pod_event.reason, node_event.kind, or object.status */
    const char *subject;    /* node_event.subject; object rows: "<kind>/<namespace>/<name>"
                             * ("<kind>//<name>" cluster-scoped); NULL for pod events */
    const char *message;    /* pod_event.message, node_event.value or object.message (may be NULL) */
    uint8_t effect;         /* enum gs_hist_effect */
    /* Before RESERVE and between RESERVE and UNRESERVE/BIND the pod is "reserved": it holds
     * GPUs on `node` (the samples count it) but is not bound; gs_hist_state.pod_node says so. */
    /* GS_HIST_DEVICES: the GPUs named by the row (bit i = GPU i), the milli-GPU the pod uses
     * on each (1000 for whole GPUs; the share for gpu-milli; 1000/n for a time-slicing or MPS
     * replica k/n; g*1000/7 for a MIG slice <g>g.<mem>), and who handed them out. */
    uint64_t gpu_mask;
    int milli;
    uint8_t source;         /* enum gs_hist_source */
    /* GS_HIST_NODE: allocatable nvidia.com/gpu after the row (-1 when the row does not set it). */
    int64_t allocatable;
};

struct gs_history {
    int nnodes, npods, nevents;
    struct gs_hist_node *nodes;   /* by node.id (ids are dense from 0) */
    struct gs_hist_pod *pods;     /* by pod.id */
    struct gs_hist_event *events; /* in the order above */
    int64_t end_us;               /* run.end_us, else complete_until_us, else the last event */
    struct gs_arena arena;
};

/* Load the history of the trace open in `db` (gs_report_open). Needs the event tables (a trace
 * at --trace-level summary has none: GS_EINVAL, saying so). Returns 0, or GS_ENOMEM, GS_ESQL,
 * GS_EINVAL with errbuf (size errlen; may be NULL) saying why; `h` is then empty. */
int gs_history_load(sqlite3 *db, struct gs_history *h, char *errbuf, int errlen);
void gs_history_free(struct gs_history *h);

/* Index of the first event at a time later than t_us (events [0, k) are at or before t_us). */
int gs_history_upto(const struct gs_history *h, int64_t t_us);

/* The cluster after a prefix of the events. */
struct gs_hist_state {
    int applied;            /* events applied: the state after events [0, applied) */
    int *pod_node;          /* per pod: the node it holds (bound, or reserved at Permit), -1 */
    uint8_t *pod_reserved;  /* per pod: 1 while it only waits at Permit on pod_node */
    uint64_t *pod_mask;     /* per pod: its GPU slots (0 while unknown) */
    uint64_t *pod_busy;     /* per pod: the slots that count as busy GPUs (share, DRA) */
    uint8_t *pod_dra;       /* per pod: 1 when pod_busy came from DRA claims */
    int *pod_milli;         /* per pod: milli per slot */
    int64_t *node_allocatable; /* per node: allocatable nvidia.com/gpu */
    bool *node_present;     /* per node: joined and not deleted */
};
/* A state before any event. 0 or GS_ENOMEM. */
int gs_hist_state_init(const struct gs_history *h, struct gs_hist_state *st);
void gs_hist_state_free(struct gs_hist_state *st);
/* Apply events until st->applied == k (k >= st->applied; to go back, init again). */
void gs_hist_state_advance(const struct gs_history *h, struct gs_hist_state *st, int k);
/* GPUs allocated on node n in this state, the samples' rule (sim/metrics.c): the larger of the
 * nvidia.com/gpu requested (pod.gpu of its pods, plus each GPU DRA claims of its pods hold, once)
 * and the GPUs an Open-Gpu-Share allocation holds. */
int64_t gs_hist_node_allocated(const struct gs_history *h, const struct gs_hist_state *st, int n);
/* Milli-GPU held on GPU g of node n (0..1000 and more when time-slicing replicas share it). */
int gs_hist_gpu_milli(const struct gs_history *h, const struct gs_hist_state *st, int n, int g);

#endif
