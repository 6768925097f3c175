/* gpusim internal: state shared by the scheduler's files (framework.c, registry.c, cache.c,
 * message.c, plugins/). Not a public header.
 *
 * A filter result is kept as a compact record (struct gs_fstat): the plugin, the code and what
 * failed (a reason kind, the taint, a bitmask of insufficient resources). Reason strings are
 * only produced when a FailedScheduling message or a gs_node_status is built, so the hot loop
 * never formats text. What the scheduler keeps between cycles (node copies, static verdicts,
 * template summaries) is described in cache.c; the tables in framework.c.
 */
#ifndef GPUSIM_SCHED_INTERNAL_H
#define GPUSIM_SCHED_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "models/sched/plugin.h"
#include "models/sched/sched.h"

_Static_assert(GS_PL_COUNT < 32, "plugin masks (unsched_plugins, skip) are 32-bit");

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
    GS_R_GPU_SHARE,          /* Insufficient alibabacloud.com/gpu-milli (plugins/open_gpu_share.c) */
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

/* The static filters' verdict for one (template, node): what the Filter plugins flagged
 * GS_PLF_STATIC_FILTER say (in table order, stopping at the first failure). They read only the
 * pod template and the node's name, labels, taints and unschedulable flag, so the verdict holds
 * while the node's generation (gs_node.gen, bumped by gs_node_touch) is the one it was
 * computed at. A failing static plugin reports its own id. */
struct gs_sverdict {
    uint32_t stamp; /* node gen + 1 when computed; 0: not computed */
    uint8_t code;   /* GS_ST_SUCCESS when every static filter passes */
    uint8_t plugin;
    uint8_t kind;
    int16_t taint;
};

/* One template's verdicts and static raw scores per node. Templates whose static parts are
 * equal (tolerations, nodeSelector, node affinity, nodeName) share a slot. The raw scores of
 * the Score plugins flagged GS_PLF_STATIC_SCORE (s->nsscore of them) are kept per node as
 * sc[node * s->sc_stride]: the node generation + 1 it was computed at (0: never), then one
 * value per plugin (0 when its PreScore skipped the template). */
struct gs_tcache {
    const struct gs_pod_template *t; /* the template it was made for (NULL: free slot) */
    uint64_t used;                   /* last cycle that used it (least recently used goes) */
    struct gs_sverdict *v;           /* sized nodes_cap */
    int64_t *sc;                     /* sized nodes_cap * sc_stride (NULL: none, out of memory) */
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
    int pl_count[GS_PL_MODELLED];    /* counted failing nodes per plugin */
    int ncounted, nfeasible, npot, npot_victims;
    /* the message last built from these sums (FailedScheduling text) */
    bool msg_valid;
    uint64_t msg_rev;
    uint64_t msg_key;                /* the PostFilter plugins' outcomes it was built with */
    char *msg;
    int msg_cap;
};
#define GS_SCHED_VSUM_SLOTS 8

/* Changes applied to a node while filtering: nominated pods added, preemption victims removed. */
struct gs_adj {
    int npods;
    struct gs_resvec req;
};

typedef void gs_filter_fn(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                          struct gs_fstat *st);

/* A Filter plugin that is not static, at its place in the Filter table. */
struct gs_fentry {
    gs_filter_fn *fn;
    int pos;              /* its index in the Filter table */
    uint8_t id;           /* enum gs_plugin */
    bool cluster;         /* GS_PLF_CLUSTER_FILTER */
};

/* PreFilter / PreScore state for the pod of the current cycle (CycleState). The fields before
 * req_res are cleared by gs_sched_podctx, the arrays after it are valid up to their counts. */
struct gs_podctx {
    int pod;
    const struct gs_pod_template *t;
    int32_t prio;
    int nres;                   /* w->res.n */
    int nreq;                   /* resources with a request > 0, in NodeResourcesFit's order */
    struct gs_tcache *tc;       /* static verdicts of this template (NULL: not cached) */
    bool requests_any;          /* any request > 0 (else only the pod count is checked) */
    bool tol_unschedulable;     /* tolerates node.kubernetes.io/unschedulable:NoSchedule */
    bool affinity_filter;       /* NodeAffinity Filter has something to check (PreFilter !Skip) */
    bool dra;                   /* DynamicResources PreFilter passed with claims: its Filter runs */
    int ndra;                   /* the pod's claims (indexes into the DRA state's claims) */
    bool share;                 /* the GPU share filter runs (plugins/open_gpu_share.c): share_req holds */
    bool share_annotated;       /* the request came from the gpu-milli annotation */
    struct gs_gpushare_req share_req;
    int gpu_res;                /* Open-Gpu-Share PreFilter: nvidia.com/gpu's resource index (-1: none) */
    /* after PreFilter: the plugins that returned Skip (1u << id), and how many Filter plugins
     * run for this pod besides the static ones (ffn, fpos) */
    uint32_t skip;
    int nfilters;
    bool cluster_filters;       /* one of them is GS_PLF_CLUSTER_FILTER */
    /* arrays */
    int req_res[GS_RES_MAX];
    int64_t req_val[GS_RES_MAX]; /* the request of req_res[i] */
    int dra_claims[32];         /* GS_DRA_POD_CLAIMS_MAX */
    int64_t fit_req[GS_SCHED_MAX_SCORE_RES]; /* per cfg.score_res: non-zero cpu/memory */
    int64_t bal_req[GS_SCHED_MAX_SCORE_RES]; /* per cfg.balanced_res: actual requests */
    gs_filter_fn *ffn[GS_PL_COUNT]; /* the Filter functions that run besides the static ones */
    int fpos[GS_PL_COUNT];      /* their places in the Filter table */
};

/* One preemption candidate: a node and its victims (offset into s->cand_victims). */
struct gs_candidate {
    int node;
    int first;
    int nvictims;
};

/* One extension point's table: the plugins with a function there, in the profile's order (the
 * always-on ones last), and their Score weights. */
#define GS_SCHED_MAX_TABLE GS_SCHED_MAX_SET
struct gs_table {
    int n;
    const struct gs_sched_plugin *p[GS_SCHED_MAX_TABLE];
    int64_t weight[GS_SCHED_MAX_TABLE];
};

/* Coscheduling's memory (plugins/coscheduling.c): PodGroup backoffs (pgMgr.BackoffPodGroup). */
struct gs_cosched {
    gs_time *backoff_until; /* per world group index; 0: none */
    int cap;
    char msg[640];          /* PreFilter status text */
    char post_msg[640];     /* PostFilter status text (the FailedScheduling text is built after
                             * every PostFilter ran, from both) */
};

struct gs_sched {
    const struct gs_world *w;
    struct gs_sched_config cfg;
    struct gs_rng *rng;
    struct gs_table tab[GS_EP_COUNT];
    bool has_score;             /* the expanded Score table is not empty (inert plugins count) */
    /* the Filter table split for the fast path */
    gs_filter_fn *sfilters[GS_SCHED_MAX_TABLE]; /* the static ones, in order */
    int nsfilters;
    struct gs_fentry nsf[GS_SCHED_MAX_TABLE];  /* the others, in order */
    int nnsf;
    int filter_pos[GS_PL_COUNT];  /* a static plugin's index in the Filter table */
    /* the static Score plugins (GS_PLF_STATIC_SCORE), cached per template and node */
    int sscore_slot[GS_SCHED_MAX_TABLE]; /* per Score table entry: its value slot, -1: not cached */
    int nsscore;
    int sc_stride;              /* 1 + nsscore */
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
    bool restricted;            /* this cycle: a PreFilterResult restricted the nodes */
    bool prefilter_reject;      /* this cycle: PreFilter rejected the pod */
    const char *prefilter_msg;  /* its status message */
    char absent_msg[160];       /* this cycle: the absent nodes' reason when restricted
                                 * ("node(s) didn't satisfy plugin(s) [NodeAffinity]") */
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
    int mres_cap;
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
    int64_t *sc_raw, *sc_total, *sc_tmp;
    int *sc_idx;
    int sc_raw_cap, sc_total_cap, sc_tmp_cap, sc_idx_cap;

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
    int ninsuff_cap;
    char *msg;                  /* the message being built */
    int msg_len, msg_cap;
    char *scr;                  /* histogram rendering scratch */
    int scr_len, scr_cap;
    int *hoff;                  /* rendered entries (offsets into scr) */
    const char **hptr;
    int hoff_cap, hptr_cap;
    char taint_reason[1024];    /* gs_sched_filter_node's taint text */
    char pf_msg[1100];          /* gs_sched_filter_node / the cycle: a PreFilter Error's text */
    /* A Filter that returned an Error status this cycle (the first one): the attempt ends with
     * its text as the FailedScheduling message. Set by the plugin, cleared by the framework. */
    bool filter_error;
    uint8_t filter_error_plugin;
    char filter_error_msg[1024];
    bool oom;                   /* a scratch allocation failed this cycle */
    /* DynamicResources (plugins/dynamic_resources.c): the run's DRA state (borrowed, NULL:
     * none), and its cycle state: the PreFilter's reason */
    const struct gs_dra_state *dra;
    bool dra_claims;            /* this cycle: the pod's claims passed PreFilter (PostFilter text;
                                 * cleared by the framework at each cycle) */
    char dra_msg[1024];
    /* The observer (gs_sched_set_observer): obs_filter / obs_score say a callback is set;
     * obs_scoring is set while the cycle's own Score phase runs (gs_sched_score_node is not
     * reported); obs_taint holds the taint text of the status being reported. */
    struct gs_sched_observer obs;
    bool obs_filter, obs_score, obs_scoring;
    char obs_taint[1024];
    /* the status reported last in this cycle and its reasons (reused for an equal status) */
    bool obs_fs_valid;
    struct gs_fstat obs_fs;
    const char *obs_tkey, *obs_tvalue;
    struct gs_node_status obs_ns;
    /* Plugin state (made by the plugins' init) */
    struct gs_fgd_sched *fgd;   /* the FGD policies' (plugins/fgd_view.c); NULL: none in the tables */
    struct gs_cosched *cs;      /* Coscheduling's; NULL: not in the tables */
    int random_pick;            /* RandomScore's PreScore draw: an index into the feasible nodes */
    int gpu_res;                /* Open-Gpu-Share: nvidia.com/gpu's resource index, -1 until found */
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

/* ---- the plugins (plugins/ and the inert ones in registry.c) */
extern const struct gs_sched_plugin gs_plugin_node_unschedulable, gs_plugin_node_name, gs_plugin_taint_toleration,
    gs_plugin_node_affinity, gs_plugin_node_resources_fit, gs_plugin_dynamic_resources,
    gs_plugin_balanced_allocation, gs_plugin_default_preemption, gs_plugin_coscheduling, gs_plugin_random_score,
    gs_plugin_dot_product_score, gs_plugin_gpu_clustering_score, gs_plugin_gpu_packing_score,
    gs_plugin_best_fit_score, gs_plugin_fgd_score, gs_plugin_open_gpu_share, gs_plugin_default_binder;

/* ---- registry.c */
/* NewFramework's expansion of c->plugins: per point, the plugins in order (inert and always-on
 * ones included, GS_PLF_IGNORED names left out), Score weights resolved. 0 or GS_EINVAL with
 * *err (may be NULL). */
struct gs_expanded {
    int n[GS_EP_COUNT];
    const struct gs_sched_plugin *p[GS_EP_COUNT][GS_SCHED_MAX_TABLE];
    int64_t weight[GS_EP_COUNT][GS_SCHED_MAX_TABLE];
};
int gs_sched_expand(const struct gs_sched_config *c, struct gs_expanded *x, struct gs_profile_error *err);

/* ---- message.c (used inline below) */
void gs_hcount_taint(struct gs_sched *s, struct gs_hcount *h, const struct gs_fstat *st, int sign);
/* The counter of the untolerated taint (key, value) ("" for no value). */
void gs_hcount_taint_kv(struct gs_sched *s, struct gs_hcount *h, const char *key, const char *value, int sign);

/* ---- cache.c */
/* The template cache slot of template t (NULL: no static filter, or out of memory). */
struct gs_tcache *gs_sched_tcache_get(struct gs_sched *s, const struct gs_pod_template *t);
/* The static filters on node `node`, in order, stopping at the first failure. */
void gs_sched_run_static(struct gs_sched *s, const struct gs_podctx *pc, int node, struct gs_fstat *st);
/* Bring the node copies and the snapshot up to date with the world. 0 or GS_ENOMEM. */
int gs_sched_mirror_sync(struct gs_sched *s);
/* The summary of pc's template, brought up to date (the copies must be). NULL when the
 * template has none and its last walk did not fail, or out of memory. */
struct gs_vsum *gs_sched_vsum_get(struct gs_sched *s, const struct gs_podctx *pc);
/* Note that a walk found no node for template t. */
void gs_sched_vsum_failed(struct gs_sched *s, const struct gs_pod_template *t);
void gs_sched_vsum_free(struct gs_sched *s);

/* The static filters' verdict for `node` (whose generation is `gen`), from pc->tc when it holds
 * one for that generation, else computed (and kept). st arrives {.node = node}. */
static inline void gs_static_verdict(struct gs_sched *s, const struct gs_podctx *pc, int node, uint32_t gen,
                                     struct gs_fstat *st)
{
    struct gs_tcache *c = pc->tc;
    if (!c) {
        gs_sched_run_static(s, pc, node, st);
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
        gs_sched_run_static(s, pc, node, &chk);
        GS_ASSERT(chk.code == st->code && chk.plugin == st->plugin && chk.kind == st->kind &&
                  chk.taint == st->taint);
#endif
        return;
    }
    gs_sched_run_static(s, pc, node, st);
    *v = (struct gs_sverdict){
        .stamp = stamp, .code = st->code, .plugin = st->plugin, .kind = st->kind, .taint = st->taint};
}

/* The Filter plugins that run for this pod besides the static ones, in table order, on `node`
 * with `adj`, given the static plugins' verdict `sv`: a plugin placed before the failing
 * static one runs first; the first failure is the node's status (st arrives {.node = node}). */
static inline void gs_run_dynamic(struct gs_sched *s, const struct gs_podctx *pc, int node,
                                  const struct gs_adj *adj, const struct gs_fstat *sv, struct gs_fstat *st)
{
    if (sv->code == GS_ST_SUCCESS) {
        for (int i = 0; i < pc->nfilters; i++) {
            pc->ffn[i](s, pc, node, adj, st);
            if (st->code != GS_ST_SUCCESS)
                return;
        }
        return;
    }
    int lim = s->filter_pos[sv->plugin];
    for (int i = 0; i < pc->nfilters && pc->fpos[i] < lim; i++) {
        pc->ffn[i](s, pc, node, adj, st);
        if (st->code != GS_ST_SUCCESS)
            return;
    }
    {
        st->code = sv->code;
        st->plugin = sv->plugin;
        st->kind = sv->kind;
        st->taint = sv->taint;
    }
}

/* A node's filter verdict without nominated pods, on the copies (st arrives {.node = node}). */
static inline void gs_node_verdict(struct gs_sched *s, const struct gs_podctx *pc, int node, struct gs_fstat *st)
{
    struct gs_fstat sv = {.node = node};
    if (s->nsfilters)
        gs_static_verdict(s, pc, node, s->m[node].gen, &sv);
    gs_run_dynamic(s, pc, node, NULL, &sv, st);
}

/* ---- framework.c */
/* Run the Filter table on `node` with `adj` (NULL: none), the static plugins' verdict from the
 * template cache when pc->tc is set and the node's generation matches. The node copies must be
 * up to date. */
void gs_sched_run_filters(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                          struct gs_fstat *st);
/* RunFilterPluginsWithNominatedPods: with the node's nominated pods (priority >= the pod's)
 * added on top of `adj`, then without them; both must pass. */
void gs_sched_run_filters_nominated(struct gs_sched *s, const struct gs_podctx *pc, int node,
                                    const struct gs_adj *adj, struct gs_fstat *st);
/* Build the pod's cycle state before PreFilter (requests, tolerations, GPU share, PreScore
 * inputs). pc->tc is left NULL (no cache); no Filter plugin is listed yet. */
void gs_sched_podctx(struct gs_sched *s, int p, struct gs_podctx *pc);
/* True when templates a and b have the same static parts (what the static filters and the
 * static scores read): nodeName, tolerations, nodeSelector, required and preferred node
 * affinity. */
bool gs_tmpl_static_equal(const struct gs_pod_template *a, const struct gs_pod_template *b);
/* prioritizeNodes: fill s->sc_total[i] for feasible[0..nfeasible). 0 or GS_ENOMEM. */
int gs_sched_score_all(struct gs_sched *s, struct gs_podctx *pc, const int *feasible, int nfeasible);

/* ---- plugins/ helpers shared between plugins */
/* NodeResourcesFit on the copies of node `node`'s data (plugins/node_resources_fit.c). */
void gs_fit_filter(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                   struct gs_fstat *st);
/* nodeaffinity helpers (plugins/node_affinity.c). True when `term` (a NodeSelectorTerm) selects
 * node `n`; a term that fails to parse, or an empty term, selects nothing
 * (component-helpers/scheduling/corev1/nodeaffinity). */
bool gs_term_matches(const struct gs_term *term, const struct gs_node *n);
/* helper.DefaultNormalizeScore(100, reverse, scores) (plugins/taint_toleration.c). */
void gs_score_normalize(int64_t *scores, int n, bool reverse);
/* GPU shares (plugins/open_gpu_share.c): pc->share / share_req from the pod's template
 * (annotation alibabacloud.com/gpu-milli, or nvidia.com/gpu whole GPUs). */
void gs_share_podctx(const struct gs_world *w, struct gs_podctx *pc);
/* DynamicResources' PreFilter work (plugins/dynamic_resources.c): 0 fine (pc->dra set when the
 * pod has claims to filter), 1 rejected (reason in s->dra_msg), 2 an Error (text in s->dra_msg). */
int gs_sched_dra_prefilter(struct gs_sched *s, struct gs_podctx *pc);
/* DefaultPreemption (plugins/default_preemption.c). */
enum gs_preempt_outcome {
    GS_PE_NOT_ELIGIBLE_NEVER,
    GS_PE_NOT_ELIGIBLE_TERMINATING,
    GS_PE_NO_CANDIDATES,       /* s->ph counts the dry-run statuses; s->ph_marked nodes have one */
    GS_PE_CANDIDATE            /* out->nominated_node / victims / lost are set */
};
enum gs_preempt_outcome gs_sched_preempt(struct gs_sched *s, const struct gs_podctx *pc,
                                         struct gs_cycle_result *out);
/* The FGD policies' shared state (plugins/fgd_view.c). */
struct gs_fgd_sched;
struct gs_fgd_pod;
struct gs_fgd_node;
/* Make s->fgd if missing (0 or GS_ENOMEM); with_tags: the view keeps the pods' tags
 * (GpuClusteringScore), with_typical: the typical-pod set is read (FGDScore). */
int gs_fgd_state_init(struct gs_sched *s, bool with_tags, bool with_typical);
void gs_fgd_state_fini(struct gs_sched *s);
/* Sync the view with the world and size the scratch for the n nodes to score; 0 or GS_ENOMEM. */
int gs_fgd_prepare(struct gs_sched *s, const int *nodes, int n);
/* The pod as the policies see it, and the view's node. */
void gs_fgd_sched_pod(const struct gs_podctx *pc, struct gs_fgd_pod *p);
const struct gs_fgd_node *gs_fgd_node_of(const struct gs_sched *s, int node);
/* What the FGD node policies share: init (the FGD view, no tags, no typical pods), PreScore (the
 * view of the feasible nodes, gs_fgd_prepare), and Score with node policy `policy`
 * (models/fgd/policies.c: gs_fgd_score_dotprod, _clustering, _packing, _bestfit_raw). */
int gs_fgd_policy_init(struct gs_sched *s);
int gs_fgd_policy_pre_score(struct gs_sched *s, struct gs_podctx *pc, const int *nodes, int n);
void gs_fgd_policy_score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out,
                         int (*policy)(const struct gs_fgd_node *node, const struct gs_fgd_pod *pod));
int64_t *gs_fgd_scratch(const struct gs_sched *s);
/* FGDScore's score of `node` (memoised per node version and template) and its GPU choice. */
int gs_fgd_score_node(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_fgd_pod *p, int node);
int gs_fgd_share_choice(struct gs_sched *s, int pod, int node);

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

/* Reason strings (exact upstream text). */
#define GS_MSG_UNSCHEDULABLE "node(s) were unschedulable"
#define GS_MSG_NODE_NAME "node(s) didn't match the requested node name"
#define GS_MSG_TAINT_GENERIC "node(s) had untolerated taint(s)"
#define GS_MSG_AFFINITY "node(s) didn't match Pod's node affinity/selector"
#define GS_MSG_TOO_MANY_PODS "Too many pods"
#define GS_MSG_PREFILTER_EXCLUDED "node is filtered out by the prefilter result"
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
