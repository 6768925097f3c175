/* gpusim internal: state shared by the scheduler's files (framework.c, message.c,
 * preemption.c, filters/, scores/). Not a public header.
 *
 * A filter result is kept as a compact record (struct gs_fstat): the plugin, the code and what
 * failed (a reason kind, the taint, a bitmask of insufficient resources). Reason strings are
 * only produced when a FailedScheduling message or a gs_node_status is built, so the hot loop
 * never formats text.
 */
#ifndef GPUSIM_SCHED_INTERNAL_H
#define GPUSIM_SCHED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpusim/sched.h"

/* What a filter status says (one reason per kind, except GS_R_FIT: one per bit). */
enum gs_reason_kind {
    GS_R_NONE = 0,
    GS_R_UNSCHEDULABLE,      /* node(s) were unschedulable */
    GS_R_NODE_NAME,          /* node(s) didn't match the requested node name */
    GS_R_TAINT,              /* node(s) had untolerated taint {k: v} | taint(s) */
    GS_R_AFFINITY,           /* node(s) didn't match Pod's node affinity/selector */
    GS_R_FIT,                /* Too many pods / Insufficient <res> (insuff bits) */
    GS_R_PREFILTER_EXCLUDED, /* 1.28-1.30: node is filtered out by the prefilter result */
    GS_R_PREFILTER_ABSENT,   /* 1.31+: node(s) didn't satisfy plugin(s) [NodeAffinity] */
    GS_R_NO_VICTIMS,         /* No preemption victims found for incoming pod */
    GS_R_NOT_HELPFUL,        /* Preemption is not helpful for scheduling */
    GS_R_KINDS
};

/* A compact filter status. */
struct gs_fstat {
    uint8_t code;   /* enum gs_status_code */
    uint8_t plugin; /* enum gs_plugin */
    uint8_t kind;   /* enum gs_reason_kind */
    int16_t taint;  /* GS_R_TAINT: index into the node's taints */
    int32_t node;   /* GS_R_TAINT: the node (for the taint text) */
    uint64_t insuff; /* GS_R_FIT: bit r = Insufficient res r; bit GS_RES_PODS = Too many pods */
};

/* Changes applied to a node while filtering: nominated pods added, preemption victims removed. */
struct gs_adj {
    int npods;
    struct gs_resvec req;
};

/* PreFilter / PreScore state for the pod of the current cycle. */
struct gs_podctx {
    int pod;
    const struct gs_pod_template *t;
    int32_t prio;
    int nres;                   /* w->res.n */
    int nreq;                   /* resources with a request > 0, in NodeResourcesFit's order */
    int req_res[GS_RES_MAX];
    bool requests_any;          /* any request > 0 (else only the pod count is checked) */
    bool tol_unschedulable;     /* tolerates node.kubernetes.io/unschedulable:NoSchedule */
    bool affinity_filter;       /* NodeAffinity Filter has something to check (PreFilter !Skip) */
    /* scoring */
    int64_t fit_req[GS_SCHED_MAX_SCORE_RES]; /* per cfg.score_res: non-zero cpu/memory */
    int64_t bal_req[GS_SCHED_MAX_SCORE_RES]; /* per cfg.balanced_res: actual requests */
};

struct gs_sched;
/* A filter plugin (filters/): leaves *st alone when the node passes, else sets code, plugin and
 * the reason (st arrives zeroed). `adj` adds nominated pods or removes preemption victims (only
 * NodeResourcesFit looks at it). */
typedef void (*gs_filter_fn)(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                             const struct gs_adj *adj, struct gs_fstat *st);

/* One preemption candidate: a node and its victims (offset into s->cand_victims). */
struct gs_candidate {
    int node;
    int first;
    int nvictims;
};

struct gs_sched {
    const struct gs_world *w;
    struct gs_sched_config cfg;
    struct gs_rng *rng;
    gs_filter_fn filters[GS_PL_COUNT]; /* the enabled filter plugins, in order */
    int nfilters;
    int next_start;             /* nextStartNodeIndex */
    uint32_t epoch;             /* cycle counter for the status marks */

    /* the snapshot: existing nodes in index order */
    int *snap;                  /* sized nodes_cap */
    int nsnap;
    int *cand;                  /* nodes to filter (the snapshot or the PreFilterResult), sized
                                 * nodes_cap */
    int ncand;
    bool restricted;            /* this cycle: NodeAffinity's PreFilterResult restricted the nodes */
    bool prefilter_reject;      /* this cycle: PreFilter rejected the pod (terms conflict) */
    int *feasible;              /* sized nodes_cap */
    int nfeasible;

    /* per node (sized nodes_cap) */
    int nodes_cap;
    struct gs_fstat *st;        /* filter status of this cycle */
    uint32_t *st_mark;          /* == epoch when st[n] is set */
    struct gs_fstat *pst;       /* preemption dry-run status */
    uint32_t *pst_mark;
    int *nom_slot;              /* per node: index into nom_adj + 1, 0 = none */

    /* nominated pods: tracked pod indexes, and this cycle's per-node additions */
    int *nominated;
    int nnominated, nominated_cap;
    struct gs_adj *nom_adj;
    int *nom_node;
    int nnom_adj, nom_adj_cap, nom_node_cap;

    /* scoring scratch, sized sc_cap */
    int64_t *sc_fit, *sc_bal, *sc_taint, *sc_aff, *sc_total;
    int sc_cap;

    /* preemption scratch */
    int *potential;             /* sized nodes_cap */
    int npotential;
    int *pvict;                 /* potential victims of one node */
    int pvict_cap;
    int *cand_victims;          /* victims of all candidates */
    int ncand_victims, cand_victims_cap;
    struct gs_candidate *cands;
    int ncands, cands_cap;
    int *victims;               /* result victims */
    int victims_cap;
    int *lost;
    int lost_cap;

    /* strings */
    char **insuff;              /* "Insufficient <name>" per resource index (lazily built) */
    int ninsuff;
    char *msg;                  /* the message being built */
    size_t msg_len, msg_cap;
    char *scr;                  /* histogram rendering scratch */
    size_t scr_len, scr_cap;
    struct gs_hist *hist;
    int nhist, hist_cap;
    size_t *hoff;               /* rendered entries (offsets into scr) */
    const char **hptr;
    int hcap;
    char taint_reason[1024];    /* gs_sched_filter_node's taint text */
    bool oom;                   /* a scratch allocation failed this cycle */
};

/* One histogram entry: a reason (kind + argument) and its count. */
struct gs_hist {
    uint8_t kind;
    int arg;                    /* GS_R_FIT: resource index; GS_R_TAINT: node */
    int16_t taint;              /* GS_R_TAINT: taint index */
    int count;
};

/* ---- framework.c */
int gs_sched_grow(void **arr, int *cap, int need, size_t elem);
/* Run the enabled filter plugins in order on `node` with `adj` (NULL: none). */
void gs_sched_run_filters(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                          struct gs_fstat *st);
/* RunFilterPluginsWithNominatedPods: with the node's nominated pods (priority >= the pod's)
 * added on top of `adj`, then without them; both must pass. */
void gs_sched_run_filters_nominated(struct gs_sched *s, const struct gs_podctx *pc, int node,
                                    const struct gs_adj *adj, struct gs_fstat *st);
/* Build the pod context (PreFilter/PreScore state). */
void gs_sched_podctx(struct gs_sched *s, int p, struct gs_podctx *pc);

/* ---- filters/: one file per plugin, each a gs_filter_fn. Each leaves *st alone when the
 * node passes and otherwise sets code, plugin and the reason (st arrives zeroed). `adj` adds
 * nominated pods or removes preemption victims (only NodeResourcesFit looks at it). */
void gs_filter_node_unschedulable(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                                  const struct gs_adj *adj, struct gs_fstat *st);
void gs_filter_node_name(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                         const struct gs_adj *adj, struct gs_fstat *st);
void gs_filter_taint_toleration(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                                const struct gs_adj *adj, struct gs_fstat *st);
void gs_filter_node_affinity(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                             const struct gs_adj *adj, struct gs_fstat *st);
void gs_filter_node_resources_fit(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                                  const struct gs_adj *adj, struct gs_fstat *st);

/* nodeaffinity helpers (filters/node_affinity.c), shared with the NodeAffinity score. */
/* True when `term` (a NodeSelectorTerm) selects node `n`; a term that fails to parse, or an
 * empty term, selects nothing (component-helpers/scheduling/corev1/nodeaffinity). */
bool gs_term_matches(const struct gs_term *term, const struct gs_node *n);
/* NodeAffinity PreFilter on the required terms' matchFields metadata.name In [...]:
 * returns 0 for "all nodes", 1 when the nodes are restricted (then gs_affinity_name_allowed
 * decides per node), -1 for "pod affinity terms conflict". */
int gs_affinity_prefilter(const struct gs_pod_template *t);
bool gs_affinity_name_allowed(const struct gs_pod_template *t, const char *node_name);

/* ---- scores/ */
/* NodeResourcesFit score (LeastAllocated / MostAllocated / RequestedToCapacityRatio). */
int64_t gs_score_resource_fit(const struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n);
/* NodeResourcesBalancedAllocation: true when its PreScore returns Skip (best-effort pod,
 * 1.33+), else the score of a node. */
bool gs_score_balanced_skip(const struct gs_sched *s, const struct gs_podctx *pc);
int64_t gs_score_balanced(const struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n);
/* TaintToleration raw score: PreferNoSchedule taints not tolerated. */
int64_t gs_score_taint_raw(const struct gs_podctx *pc, const struct gs_node *n);
/* NodeAffinity raw score: sum of the weights of matching preferred terms; skip when none. */
bool gs_score_affinity_skip(const struct gs_podctx *pc);
int64_t gs_score_affinity_raw(const struct gs_podctx *pc, const struct gs_node *n);
/* helper.DefaultNormalizeScore(100, reverse, scores). */
void gs_score_normalize(int64_t *scores, int n, bool reverse);
/* prioritizeNodes: fill s->sc_total[i] for feasible[0..nfeasible). 0 or GS_ENOMEM. */
int gs_sched_score_all(struct gs_sched *s, const struct gs_podctx *pc, const int *feasible, int nfeasible);

/* ---- message.c */
/* Reset / append to the message buffer (s->msg). Appends set s->oom on failure. */
void gs_msg_reset(struct gs_sched *s);
void gs_msg_add(struct gs_sched *s, const char *text);
void gs_msg_addf(struct gs_sched *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* "Insufficient <res>" for resource r (NULL on out of memory). */
const char *gs_sched_insufficient(struct gs_sched *s, int r);
/* Reason strings of a status, in upstream order, into out[] (at most max); returns the count.
 * Taint texts are written to `buf` (size bufsz). */
int gs_fstat_reasons(struct gs_sched *s, const struct gs_fstat *st, const char **out, int max, char *buf,
                     size_t bufsz);
/* Histogram building: start, add one node's status, add a reason `count` times, render into the
 * message as " <sorted, joined>." (nothing when empty). */
void gs_hist_reset(struct gs_sched *s);
void gs_hist_add_status(struct gs_sched *s, const struct gs_fstat *st);
void gs_hist_add_kind(struct gs_sched *s, enum gs_reason_kind kind, int count);
void gs_hist_render(struct gs_sched *s);

/* ---- preemption.c */
enum gs_preempt_outcome {
    GS_PE_NOT_ELIGIBLE_NEVER,
    GS_PE_NOT_ELIGIBLE_TERMINATING,
    GS_PE_NO_CANDIDATES,       /* s->pst holds the dry-run statuses of every snapshot node */
    GS_PE_CANDIDATE            /* out->nominated_node / victims / lost are set */
};
enum gs_preempt_outcome gs_sched_preempt(struct gs_sched *s, const struct gs_podctx *pc,
                                         struct gs_cycle_result *out);

/* Reason strings (exact upstream text). */
#define GS_MSG_UNSCHEDULABLE "node(s) were unschedulable"
#define GS_MSG_NODE_NAME "node(s) didn't match the requested node name"
#define GS_MSG_TAINT_GENERIC "node(s) had untolerated taint(s)"
#define GS_MSG_AFFINITY "node(s) didn't match Pod's node affinity/selector"
#define GS_MSG_TOO_MANY_PODS "Too many pods"
#define GS_MSG_PREFILTER_EXCLUDED "node is filtered out by the prefilter result"
#define GS_MSG_PREFILTER_ABSENT "node(s) didn't satisfy plugin(s) [NodeAffinity]"
#define GS_MSG_AFFINITY_CONFLICT "pod affinity terms conflict"
#define GS_MSG_NO_VICTIMS "No preemption victims found for incoming pod"
#define GS_MSG_NOT_HELPFUL "Preemption is not helpful for scheduling"
#define GS_MSG_NO_NODES "no nodes available to schedule pods"
#define GS_MSG_NO_CLAIMS "no new claims to deallocate"
#define GS_MSG_NEVER "not eligible due to preemptionPolicy=Never."
#define GS_MSG_TERMINATING "not eligible due to a terminating pod on the nominated node."

#endif
