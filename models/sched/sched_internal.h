/* gpusim internal: state shared by the scheduler's files (framework.c, cache.c, message.c,
 * preemption.c, filters/, scores/). Not a public header.
 *
 * A filter result is kept as a compact record (struct gs_fstat): the plugin, the code and what
 * failed (a reason kind, the taint, a bitmask of insufficient resources). Reason strings are
 * only produced when a FailedScheduling message or a gs_node_status is built, so the hot loop
 * never formats text. What the scheduler keeps between cycles (node copies, static verdicts,
 * template summaries) is described in cache.c.
 */
#ifndef GPUSIM_SCHED_INTERNAL_H
#define GPUSIM_SCHED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "models/sched/sched.h"

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
    GS_R_DRA_CANNOT_ALLOCATE, /* cannot allocate all claims (DynamicResources) */
    GS_R_DRA_NOT_AVAILABLE,  /* resourceclaim not available on the node (DynamicResources) */
    GS_R_GPU_SHARE,          /* Insufficient alibabacloud.com/gpu-milli (filters/gpu_share.c) */
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

/* The static filters' verdict for one (template, node): what NodeUnschedulable, NodeName,
 * TaintToleration and NodeAffinity (the enabled ones, in order, stopping at the first failure)
 * say. They read only the pod template and the node's name, labels, taints and unschedulable
 * flag, so the verdict holds while the node's generation (gs_node.gen, bumped by gs_node_touch)
 * is the one it was computed at. */
struct gs_sverdict {
    uint32_t stamp; /* node gen + 1 when computed; 0: not computed */
    uint8_t code;   /* GS_ST_SUCCESS when every static filter passes */
    uint8_t plugin;
    uint8_t kind;
    int16_t taint;
};

/* The raw TaintToleration and NodeAffinity scores of one (template, node): they read only
 * what the static filters read (PreferNoSchedule taints, preferred terms). */
struct gs_sscore {
    uint32_t stamp; /* node gen + 1 when computed; 0: not computed */
    int64_t taint;  /* 0 when the plugin is off */
    int64_t aff;    /* 0 when the plugin is off or skips the pod */
};

/* One template's verdicts and raw scores per node. Templates whose static parts are equal
 * (tolerations, nodeSelector, node affinity, nodeName) share a slot. */
struct gs_tcache {
    const struct gs_pod_template *t; /* the template it was made for (NULL: free slot) */
    uint64_t used;                   /* last cycle that used it (least recently used goes) */
    struct gs_sverdict *v;           /* sized nodes_cap */
    struct gs_sscore *sc;            /* sized nodes_cap (NULL: none, out of memory) */
};
#define GS_SCHED_TCACHE_SLOTS 32

/* A histogram of filter reasons kept as counters while statuses are set, so nothing is
 * formatted per node: counts per reason kind, per insufficient resource, and per untolerated
 * taint (key, value) when the taint is named in the text. Entries with a zero count are not
 * rendered. */
struct gs_htaint {
    const char *key;
    const char *value;
    int count;
};
struct gs_hcount {
    int kind[GS_R_KINDS];
    int fit[GS_RES_MAX];
    struct gs_htaint *taint;
    int ntaint, taint_cap;
    int last;       /* the taint counter used last (nodes of a pool share their taints) */
};

/* The scheduler's copy of the node data every cycle reads for every node (the world's node
 * structs are large, and reading several of their cache lines for each node of each cycle is
 * what a failing cycle costs). Refreshed at the start of a cycle for the nodes changed since
 * (cache.c). */
struct gs_mnode {
    uint32_t gen;      /* nodes[n].gen */
    int32_t min_prio;  /* nodes[n].min_prio */
    bool exists;
    int64_t pods_room; /* allocatable pods - pods on the node */
};

/* One node's verdict in a template summary: the filters' status without nominated pods. */
struct gs_vnode {
    uint64_t insuff;       /* GS_R_FIT */
    const char *tkey;      /* GS_R_TAINT: the taint's key and value ("" when none) */
    const char *tvalue;
    uint8_t code, plugin, kind;
    uint8_t flags;         /* counted in the sums (the node exists); Unschedulable and holding a
                            * pod of lower priority than the template's */
    int16_t taint;
};

/* A template summary (cache.c): every node's verdict for one template and their sums, up to
 * date with the world's node changes up to `seen`. */
struct gs_vsum {
    const struct gs_pod_template *t; /* the template (exactly: requests and priority count) */
    uint64_t used;                   /* last cycle that used it (least recently used goes) */
    uint64_t seen;                   /* w->node_changes it is up to date with */
    bool valid;
    uint64_t rev;                    /* bumped whenever a verdict is redone */
    struct gs_vnode *v;              /* sized vcap */
    int vcap;
    struct gs_hcount h;              /* reason counts of the counted nodes' verdicts */
    int pl_count[GS_PL_COUNT];       /* counted failing nodes per plugin */
    int ncounted, nfeasible, npot, npot_victims;
    /* the message last built from these sums (FailedScheduling text) */
    bool msg_valid;
    uint64_t msg_rev;
    int msg_pe;                      /* enum gs_preempt_outcome */
    char *msg;
    size_t msg_cap;
};
#define GS_SCHED_VSUM_SLOTS 8

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
    int64_t req_val[GS_RES_MAX]; /* the request of req_res[i] */
    struct gs_tcache *tc;       /* static verdicts of this template (NULL: not cached) */
    bool requests_any;          /* any request > 0 (else only the pod count is checked) */
    bool tol_unschedulable;     /* tolerates node.kubernetes.io/unschedulable:NoSchedule */
    bool affinity_filter;       /* NodeAffinity Filter has something to check (PreFilter !Skip) */
    bool dra;                   /* DynamicResources PreFilter passed with claims: its Filter runs */
    int ndra;                   /* the pod's claims (indexes into the DRA state's claims) */
    int dra_claims[32];         /* GS_DRA_POD_CLAIMS_MAX */
    bool share;                 /* the GPU share filter runs (filters/gpu_share.c): share_req holds */
    bool share_annotated;       /* the request came from the gpu-milli annotation */
    struct gs_gpushare_req share_req;
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
    gs_filter_fn sfilters[GS_PL_COUNT]; /* the enabled static ones (all before Fit), in order */
    int nsfilters;
    bool fit_enabled;           /* NodeResourcesFit filter on (it runs after the static ones) */
    struct gs_tcache tc[GS_SCHED_TCACHE_SLOTS];
    int ntc;
    uint64_t cycles;            /* cycles run (the template cache's clock) */
    int next_start;             /* nextStartNodeIndex */
    uint32_t epoch;             /* cycle counter for the status marks, 1 .. GS_EPOCH_MAX - 1 */

    /* the snapshot: existing nodes in index order */
    int *snap;                  /* sized nodes_cap */
    int nsnap;
    int *cand;                  /* the nodes a PreFilterResult leaves to filter (when restricted),
                                 * sized nodes_cap */
    int ncand;                  /* nodes to filter: those, or the whole snapshot */
    bool restricted;            /* this cycle: NodeAffinity's PreFilterResult restricted the nodes */
    bool prefilter_reject;      /* this cycle: PreFilter rejected the pod (terms conflict) */
    const char *prefilter_msg;  /* its status message; NULL: NodeAffinity's terms conflict */
    char cosched_msg[640];      /* Coscheduling PreFilter / PostFilter status text */
    gs_time now;                /* the run's clock (gs_sched_set_now), for PodGroup backoff */
    int *feasible;              /* sized nodes_cap */
    int nfeasible;

    /* per node (sized nodes_cap) */
    int nodes_cap;
    uint32_t *st_tag;           /* epoch << 3 | code of the node's filter status when it has
                                 * one this cycle (gs_st_marked, gs_st_code) */
    int *nom_slot;              /* per node: index into nom_adj + 1, 0 = none */
    int nn;                     /* this cycle: the pod's nominated node (-1 none); the only node
                                 * whose status may be set twice in a cycle */
    struct gs_fstat nn_st;      /* its last status this cycle */
    int npot;                   /* nodes whose status is Unschedulable (where preemption might
                                 * help) */
    int npot_victims;           /* those of them holding a pod of lower priority than the pod */

    /* copies of the world's node data (struct gs_mnode) */
    struct gs_mnode *m;         /* sized nodes_cap */
    int64_t *mres;              /* node n, resource r: [(n * mnres + r) * 2] = allocatable -
                                 * requested, [... + 1] = allocatable; sized mres_nodes nodes */
    int mnres;                  /* resources per node in mres */
    int mres_nodes;
    bool mfull;                 /* refresh every node at the next sync */
    uint64_t mseen;             /* w->node_changes the copies are up to date with */
    int msnap_nnodes;           /* w->nnodes when the snapshot was last built */
    struct gs_vsum vs[GS_SCHED_VSUM_SLOTS];
    int nvs;
    const struct gs_vsum *cur_vs; /* this cycle: the summary standing for the walk, or NULL */
    /* Templates whose last walk failed: only those get a summary (a template scheduled at its
     * first attempt has no use for one). A ring. */
    const struct gs_pod_template *failed_t[GS_SCHED_VSUM_SLOTS * 2];
    int nfailed_t;

    /* this cycle's reason counts: the filter statuses (kept up to date by the status setter)
     * and the preemption dry run's (only the nodes it evaluated; the rest are "not helpful") */
    struct gs_hcount fh;
    struct gs_hcount ph;
    int ph_marked;              /* snapshot nodes with a dry-run status */

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
    size_t *hoff;               /* rendered entries (offsets into scr) */
    const char **hptr;
    int hcap;
    char taint_reason[1024];    /* gs_sched_filter_node's taint text */
    bool oom;                   /* a scratch allocation failed this cycle */
    /* DynamicResources (filters/dynamic_resources.c): the run's DRA state (borrowed, NULL:
     * none), this cycle's Error status text (a claim or class that cannot be evaluated aborts
     * the attempt) and the PreFilter reason */
    const struct gs_dra_state *dra;
    bool dra_claims;            /* this cycle: the pod's claims passed PreFilter (PostFilter text) */
    bool dra_error;
    char dra_msg[1024];
    /* The FGD policies' state (scores/fgd_policies.c); NULL when none of them is enabled. */
    struct gs_fgd_sched *fgd;
};

/* The status marks: a node has a filter status this cycle when its tag carries the epoch. */
#define GS_EPOCH_MAX (UINT32_C(1) << 29)
static inline bool gs_st_marked(const struct gs_sched *s, int node)
{
    return s->st_tag[node] >> 3 == s->epoch;
}
static inline enum gs_status_code gs_st_code(const struct gs_sched *s, int node)
{
    return (enum gs_status_code)(s->st_tag[node] & 7);
}

/* ---- message.c (used inline below) */
void gs_hcount_taint(struct gs_sched *s, struct gs_hcount *h, const struct gs_fstat *st, int sign);
/* The counter of the untolerated taint (key, value) ("" for no value). */
void gs_hcount_taint_kv(struct gs_sched *s, struct gs_hcount *h, const char *key, const char *value, int sign);

/* ---- cache.c */
/* The static verdict cache slot of template t (NULL: no static filter, or out of memory). */
struct gs_tcache *gs_sched_tcache_get(struct gs_sched *s, const struct gs_pod_template *t);
/* The enabled static filters on n, in order, stopping at the first failure. */
void gs_sched_run_static(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n, struct gs_fstat *st);
/* Bring the node copies and the snapshot up to date with the world. 0 or GS_ENOMEM. */
int gs_sched_mirror_sync(struct gs_sched *s);
/* The summary of pc's template, brought up to date (the copies must be). NULL when the
 * template has none and its last walk did not fail, or out of memory. */
struct gs_vsum *gs_sched_vsum_get(struct gs_sched *s, const struct gs_podctx *pc);
/* Note that a walk found no node for template t. */
void gs_sched_vsum_failed(struct gs_sched *s, const struct gs_pod_template *t);
void gs_sched_vsum_free(struct gs_sched *s);

/* The static filters' verdict for `node` (whose generation is `gen`), from pc->tc when it holds
 * one for that generation, else computed (and kept). */
static inline void gs_static_verdict(struct gs_sched *s, const struct gs_podctx *pc, int node, uint32_t gen,
                                     struct gs_fstat *st)
{
    const struct gs_node *n = &s->w->nodes[node];
    struct gs_tcache *c = pc->tc;
    if (!c) {
        gs_sched_run_static(s, pc, n, st);
        return;
    }
    struct gs_sverdict *v = &c->v[node];
    uint32_t stamp = gen + 1;
    if (v->stamp == stamp && stamp != 0) {
        st->code = v->code;
        st->plugin = v->plugin;
        st->kind = v->kind;
        st->taint = v->taint;
#ifndef NDEBUG
        /* A node changed without gs_node_touch would show here (debug builds). */
        struct gs_fstat chk = {.node = node};
        gs_sched_run_static(s, pc, n, &chk);
        GS_ASSERT(chk.code == st->code && chk.plugin == st->plugin && chk.kind == st->kind &&
                  chk.taint == st->taint);
#endif
        return;
    }
    gs_sched_run_static(s, pc, n, st);
    *v = (struct gs_sverdict){
        .stamp = stamp, .code = st->code, .plugin = st->plugin, .kind = st->kind, .taint = st->taint};
}

/* The NodeResourcesFit status for a node short of the resources in mask `insuff` (nothing when
 * 0); from 1.34 UnschedulableAndUnresolvable when a request exceeds the node's whole
 * allocatable (fit.go, kubernetes PR 131345). */
static inline void gs_fit_status(const struct gs_sched *s, struct gs_fstat *st, uint64_t insuff, bool unresolvable)
{
    if (!insuff)
        return;
    st->code = unresolvable && s->cfg.fit_unresolvable ? GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE
                                                        : GS_ST_UNSCHEDULABLE;
    st->plugin = GS_PL_NODE_RESOURCES_FIT;
    st->kind = GS_R_FIT;
    st->insuff = insuff;
}

/* NodeResourcesFit (as gs_fit_check) on the copies of node `node`'s data. */
static inline void gs_mfit_check(const struct gs_sched *s, const struct gs_podctx *pc, int node,
                                 const struct gs_adj *adj, struct gs_fstat *st)
{
    /* npods + adj + 1 > allocatable, as room = allocatable - npods */
    uint64_t insuff = (uint64_t)((adj ? adj->npods : 0) + 1 > s->m[node].pods_room) << GS_RES_PODS;
    uint64_t unresolvable = 0;
    if (pc->requests_any) {
        /* Without branches on the node's values: which resources fall short varies from node to
         * node and would be mispredicted. */
        const int64_t *res = &s->mres[(size_t)node * (size_t)s->mnres * 2];
        for (int i = 0; i < pc->nreq; i++) {
            int r = pc->req_res[i];
            int64_t req = pc->req_val[i];
            /* allocatable - (requested + adj) */
            int64_t room = res[2 * r] - (adj ? adj->req.v[r] : 0);
            uint64_t short_ = (uint64_t)(req > room);
            insuff |= short_ << r;
            unresolvable |= short_ & (uint64_t)(req > res[2 * r + 1]);
        }
    }
    gs_fit_status(s, st, insuff, unresolvable);
}

void gs_filter_gpu_share(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                         const struct gs_adj *adj, struct gs_fstat *st); /* documented below */

/* A node's filter verdict without nominated pods, on the copies (st arrives {.node = node}). */
static inline void gs_node_verdict(struct gs_sched *s, const struct gs_podctx *pc, int node, struct gs_fstat *st)
{
    if (s->nsfilters) {
        gs_static_verdict(s, pc, node, s->m[node].gen, st);
        if (st->code != GS_ST_SUCCESS)
            return;
    }
    if (s->fit_enabled) {
        gs_mfit_check(s, pc, node, NULL, st);
        if (st->code != GS_ST_SUCCESS)
            return;
    }
    if (pc->share)
        gs_filter_gpu_share(s, pc, &s->w->nodes[node], NULL, st);
}

/* ---- framework.c */
/* Run the enabled filter plugins in order on `node` with `adj` (NULL: none); the static ones'
 * verdict comes from the template cache when pc->tc is set and the node's generation matches. */
void gs_sched_run_filters(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                          struct gs_fstat *st);
/* RunFilterPluginsWithNominatedPods: with the node's nominated pods (priority >= the pod's)
 * added on top of `adj`, then without them; both must pass. */
void gs_sched_run_filters_nominated(struct gs_sched *s, const struct gs_podctx *pc, int node,
                                    const struct gs_adj *adj, struct gs_fstat *st);
/* Build the pod context (PreFilter/PreScore state). pc->tc is left NULL (no cache). */
void gs_sched_podctx(struct gs_sched *s, int p, struct gs_podctx *pc);
/* True when templates a and b have the same static parts (what the static filters and the
 * TaintToleration / NodeAffinity scores read): nodeName, tolerations, nodeSelector, required
 * and preferred node affinity. */
bool gs_tmpl_static_equal(const struct gs_pod_template *a, const struct gs_pod_template *b);

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
/* DynamicResources (filters/dynamic_resources.c). PreFilter: for a pod with
 * spec.resourceClaims when the plugin is enabled and a DRA state is set, resolve and check its
 * claims into pc->dra_claims (pc->dra set): 0 fine (or no claims: Skip), 1 rejected with the
 * reason in s->dra_msg (UnschedulableAndUnresolvable), 2 an Error status (text in s->dra_msg).
 * Filter: only when pc->dra; an Error sets s->dra_error and s->dra_msg. */
int gs_sched_dra_prefilter(struct gs_sched *s, struct gs_podctx *pc);
void gs_filter_dynamic_resources(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                                 const struct gs_adj *adj, struct gs_fstat *st);
/* GPU shares (filters/gpu_share.c). gs_share_podctx sets pc->share / share_req from the pod's
 * template (annotation alibabacloud.com/gpu-milli, or nvidia.com/gpu whole GPUs). The filter:
 * a share pod needs a GPU of the node (n->gpus) with that many free milli-GPU; a whole-GPU pod
 * needs that many fully free GPUs, checked only on a node where a share holds part of a GPU and
 * without `adj` (elsewhere NodeResourcesFit's count is the same check). Unschedulable, reason
 * GS_R_GPU_SHARE, reported as NodeResourcesFit's. */
void gs_share_podctx(const struct gs_world *w, struct gs_podctx *pc);
void gs_filter_gpu_share(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                         const struct gs_adj *adj, struct gs_fstat *st);

/* NodeResourcesFit's check (filters/node_resources_fit.c documents the rules), inline for the
 * cycle's hot loop: only the resources the pod requests (pc->req_res, pc->req_val) are read. */
static inline void gs_fit_check(const struct gs_sched *s, const struct gs_podctx *pc, const struct gs_node *n,
                                const struct gs_adj *adj, struct gs_fstat *st)
{
    uint64_t insuff = 0;
    bool unresolvable = false;
    int64_t npods = n->npods + (adj ? adj->npods : 0);
    if (npods + 1 > n->allocatable.v[GS_RES_PODS])
        insuff |= UINT64_C(1) << GS_RES_PODS;
    if (pc->requests_any) {
        for (int i = 0; i < pc->nreq; i++) {
            int r = pc->req_res[i];
            int64_t req = pc->req_val[i];
            int64_t used = n->requested.v[r] + (adj ? adj->req.v[r] : 0);
            int64_t alloc = n->allocatable.v[r];
            if (req > alloc - used) {
                insuff |= UINT64_C(1) << r;
                if (req > alloc)
                    unresolvable = true;
            }
        }
    }
    gs_fit_status(s, st, insuff, unresolvable);
}

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
/* The FGD paper's policies (scores/fgd_policies.c). gs_sched_fgd_new sets s->fgd when one of
 * them is enabled in s->cfg (0 or GS_ENOMEM); gs_sched_fgd_free frees it. gs_score_fgd_plugins
 * adds each enabled one's weighted score of feasible[i] to s->sc_total[i] (0 or GS_ENOMEM). */
struct gs_fgd_sched;
int gs_sched_fgd_new(struct gs_sched *s);
void gs_sched_fgd_free(struct gs_sched *s);
int gs_score_fgd_plugins(struct gs_sched *s, const struct gs_podctx *pc, const int *feasible, int nfeasible);
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
/* Reason counters: reset; add (sign +1) or remove (sign -1) one node's status; render the
 * entries with a nonzero count into the message as " <"<count> <reason>", sorted as strings,
 * joined by ", ">." (nothing when every count is zero). Adding sets s->oom on failure. */
void gs_hcount_reset(struct gs_hcount *h);
static inline void gs_hcount_status(struct gs_sched *s, struct gs_hcount *h, const struct gs_fstat *st, int sign)
{
    switch (st->kind) {
    case GS_R_NONE:
        break;
    case GS_R_FIT:
        /* Each insufficient resource is one reason of the node. */
        for (uint64_t m = st->insuff; m; m &= m - 1)
            h->fit[__builtin_ctzll(m)] += sign;
        break;
    case GS_R_TAINT:
        if (s->cfg.taint_reason_generic)
            h->kind[GS_R_TAINT] += sign;
        else
            gs_hcount_taint(s, h, st, sign);
        break;
    default:
        h->kind[st->kind] += sign;
        break;
    }
}
void gs_hcount_render(struct gs_sched *s, const struct gs_hcount *h);
void gs_hcount_free(struct gs_hcount *h);

/* ---- preemption.c */
enum gs_preempt_outcome {
    GS_PE_NOT_ELIGIBLE_NEVER,
    GS_PE_NOT_ELIGIBLE_TERMINATING,
    GS_PE_NO_CANDIDATES,       /* s->ph counts the dry-run statuses; s->ph_marked nodes have one */
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
#define GS_MSG_DRA_STILL "still not schedulable"
#define GS_MSG_GPU_SHARE "Insufficient alibabacloud.com/gpu-milli"
#define GS_MSG_DRA_CANNOT_ALLOCATE "cannot allocate all claims"
#define GS_MSG_DRA_NOT_AVAILABLE "resourceclaim not available on the node"
#define GS_MSG_NEVER "not eligible due to preemptionPolicy=Never."
#define GS_MSG_TERMINATING "not eligible due to a terminating pod on the nominated node."

#endif
