/* gpusim internal: the Kueue controller's state, shared by its files (sim/controllers/kueue.c:
 * Workloads, admission passes, eviction, the controller; sim/controllers/kueue_tas.c: Topology
 * Aware Scheduling). */
#ifndef GPUSIM_SIM_CONTROLLERS_KUEUE_H
#define GPUSIM_SIM_CONTROLLERS_KUEUE_H

#include "models/admission/kueue.h"
#include "sim/controller.h"

#define QUEUE_LABEL "kueue.x-k8s.io/queue-name"
#define HOSTNAME_LABEL "kubernetes.io/hostname"
#define PRIO_KUEUE GS_PRIO_ADMISSION

enum { EV_PASS = 0, EV_TIMEOUT, EV_BACKOFF };
enum kstate { KW_PENDING = 0, KW_ADMITTED, KW_FINISHED, KW_DEACTIVATED };

struct kcond {
    const char *type, *status, *reason, *message;
};

#define NCOND 8

struct kwl {
    const char *name;
    int wi, arrival;
    int lq, cq;                 /* -1 when missing */
    const char *blocked;        /* why it can never be admitted (missing LocalQueue, ...), or NULL */
    struct gs_kueue_entry e;
    int count;
    const struct gs_pod_template *tmpl;
    int lws_group;              /* LeaderWorkerSet: the group this Workload admits; -1 otherwise */
    bool deleted;               /* the object is gone (its LeaderWorkerSet group was scaled away) */
    enum kstate state;
    bool inadmissible;          /* BestEffortFIFO: moved aside until something changes */
    bool in_backoff;
    bool pods_ready;
    int requeues;               /* requeueState.count */
    uint32_t gen;
    gs_time created;
    struct kcond cond[NCOND];
    int ncond;
    /* TAS: pods assigned per node for the current admission (heap, nnodes ints), NULL when
     * the Workload is not placed by TAS */
    int *tas_nodes;
    int tas_n;
};

struct kueue {
    struct gs_cluster *c;       /* the run's cluster (outlives the controller) */
    int self;
    struct gs_kueue_spec *spec;
    struct gs_kueue_quota q;
    struct kwl *w;
    int n, cap;
    int *wl_kwl;                /* per world workload: its latest Workload, -1 */
    int *pod_kwl;               /* per pod: its Workload, -1 */
    int pod_cap;
    gs_event_handle pass_ev;
    bool evicting;
    int64_t seq;
};

struct tas_mode {
    bool on;
    enum gs_kueue_tas_mode mode;
    int level;
    const char *bad_level;      /* an annotation naming no level of the Topology */
};

/* kueue.c, for kueue_tas.c */
void kq_set_err(struct kueue *r, int rc);
/* A copy of `base` with the flavor's nodeLabels added to the nodeSelector, its tolerations
 * appended, and `extra` labels (TAS domain) added (jobframework PodSetInfo merge). Arena. */
const struct gs_pod_template *kq_inject(struct kueue *r, const struct gs_pod_template *base,
                                        const struct gs_kueue_flavor *fl, const struct gs_labels *extra);
/* The Workload's pods: its owner creates `n` of them from template `t` (a LeaderWorkerSet its
 * group); they belong to the Workload. */
void kq_create_pods(struct kueue *r, int ki, const struct gs_pod_template *t, int n);

/* kueue_tas.c */
/* The TAS mode of Workload `k` admitted to `flavor` (off when the flavor has no Topology). */
struct tas_mode kq_tas_mode(const struct gs_kueue_spec *s, const struct kwl *k, int flavor);
/* Place Workload k's pods on the flavor's Topology; on success fill k->tas_nodes. False with the
 * reason in `msg` otherwise. */
bool kq_tas_place(struct kueue *r, struct kwl *k, int flavor, const struct tas_mode *m, char *msg, size_t n);
/* The TAS pods: per node with pods assigned, a template pinned to the node's domain. */
void kq_create_tas_pods(struct kueue *r, int ki, int flavor);

#endif
