/* The scheduling cycle: kubernetes pkg/scheduler/schedule_one.go (schedulePod,
 * findNodesThatFitPod, evaluateNominatedNode, findNodesThatPassFilters,
 * numFeasibleNodesToFind, prioritizeNodes, selectHost) and
 * pkg/scheduler/framework/runtime/framework.go (RunFilterPluginsWithNominatedPods,
 * RunPostFilterPlugins).
 *
 * Upstream runs filters and scores in 16 goroutines; gpusim walks the nodes sequentially from
 * nextStartNodeIndex, in snapshot (node index) order, and stops at the numFeasibleNodesToFind-th
 * feasible node, which is the deterministic reading of the same algorithm.
 *
 * Fast path (cache.c keeps the data): the walk reads flat copies of the node data and the
 * static filters' cached verdicts; a node's status only updates reason counters (no text per
 * node). A cycle in which no node fits visits every node, so its outcome does not depend on the
 * walk's order: when the template's summary says no node fits, the cycle takes its statuses and
 * counts from the summary instead of walking, and reuses the message built from the same sums.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/admission/gang.h"
#include "sched_internal.h"

/* The filter plugins in the default profile's order (default_plugins.go). The volume, ports,
 * topology-spread and inter-pod-affinity filters sit between them upstream; they pass every
 * pod gpusim models, so leaving them out does not change which plugin rejects a node. */
static const struct {
    enum gs_plugin id;
    gs_filter_fn fn;
} filter_plugins[] = {
    {GS_PL_NODE_UNSCHEDULABLE, gs_filter_node_unschedulable},
    {GS_PL_NODE_NAME, gs_filter_node_name},
    {GS_PL_TAINT_TOLERATION, gs_filter_taint_toleration},
    {GS_PL_NODE_AFFINITY, gs_filter_node_affinity},
    {GS_PL_NODE_RESOURCES_FIT, gs_filter_node_resources_fit},
};
#define NFILTERS ((int)(sizeof filter_plugins / sizeof filter_plugins[0]))

static const char oom_message[] = "scheduler: out of memory";


/* Grow one per-node array from `old` to `ncap` elements, zeroing the new part when asked. */
static int grow_node_array(void **arr, int old, int ncap, size_t elem, bool zero)
{
    void *p = gs_realloc(*arr, elem * (size_t)ncap);
    if (!p)
        return GS_ENOMEM;
    if (zero)
        memset((char *)p + elem * (size_t)old, 0, elem * (size_t)(ncap - old));
    *arr = p;
    return 0;
}

/* Size the per-node arrays for the world's current node count. */
static int ensure_nodes(struct gs_sched *s)
{
    int need = s->w->nnodes;
    if (need <= s->nodes_cap)
        return 0;
    int old = s->nodes_cap, ncap = old ? old : 64;
    while (ncap < need)
        ncap *= 2;
    if (grow_node_array((void **)&s->snap, old, ncap, sizeof *s->snap, false) ||
        grow_node_array((void **)&s->cand, old, ncap, sizeof *s->cand, false) ||
        grow_node_array((void **)&s->feasible, old, ncap, sizeof *s->feasible, false) ||
        grow_node_array((void **)&s->potential, old, ncap, sizeof *s->potential, false) ||
        grow_node_array((void **)&s->st_tag, old, ncap, sizeof *s->st_tag, true) ||
        grow_node_array((void **)&s->m, old, ncap, sizeof *s->m, true) ||
        grow_node_array((void **)&s->nom_slot, old, ncap, sizeof *s->nom_slot, true))
        return GS_ENOMEM;
    for (int i = 0; i < s->ntc; i++) {
        if (grow_node_array((void **)&s->tc[i].v, old, ncap, sizeof *s->tc[i].v, true))
            return GS_ENOMEM;
        if (s->tc[i].sc && grow_node_array((void **)&s->tc[i].sc, old, ncap, sizeof *s->tc[i].sc, true)) {
            gs_free(s->tc[i].sc);
            s->tc[i].sc = NULL;
        }
    }
    s->nodes_cap = ncap;
    return 0;
}

static bool track_has(const struct gs_sched *s, int p)
{
    for (int i = 0; i < s->nnominated; i++)
        if (s->nominated[i] == p)
            return true;
    return false;
}

int gs_sched_track_nominated(struct gs_sched *s, int p)
{
    if (track_has(s, p))
        return 0;
    if (gs_array_grow((void **)&s->nominated, &s->nominated_cap, s->nnominated + 1, sizeof *s->nominated))
        return GS_ENOMEM;
    s->nominated[s->nnominated++] = p;
    return 0;
}

struct gs_sched *gs_sched_new(const struct gs_world *w, const struct gs_sched_config *cfg, struct gs_rng *rng)
{
    struct gs_sched *s = gs_calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->w = w;
    s->cfg = *cfg;
    s->rng = rng;
    s->epoch = 0;
    for (int i = 0; i < NFILTERS; i++) {
        if (!cfg->filter_enabled[filter_plugins[i].id])
            continue;
        s->filters[s->nfilters++] = filter_plugins[i].fn;
        if (filter_plugins[i].id == GS_PL_NODE_RESOURCES_FIT)
            s->fit_enabled = true;
        else
            s->sfilters[s->nsfilters++] = filter_plugins[i].fn;
    }
    if (ensure_nodes(s) || gs_sched_fgd_new(s)) {
        gs_sched_free(s);
        return NULL;
    }
    for (int i = 0; i < w->npods; i++)
        if (w->pods[i].nominated_node >= 0 && gs_sched_track_nominated(s, i)) {
            gs_sched_free(s);
            return NULL;
        }
    return s;
}

void gs_sched_free(struct gs_sched *s)
{
    if (!s)
        return;
    gs_free(s->snap);
    gs_free(s->cand);
    gs_free(s->feasible);
    gs_free(s->potential);
    gs_free(s->st_tag);
    gs_free(s->m);
    gs_free(s->mres);
    gs_free(s->nom_slot);
    for (int i = 0; i < s->ntc; i++) {
        gs_free(s->tc[i].v);
        gs_free(s->tc[i].sc);
    }
    gs_hcount_free(&s->fh);
    gs_hcount_free(&s->ph);
    gs_sched_vsum_free(s);
    gs_free(s->nominated);
    gs_free(s->nom_adj);
    gs_free(s->nom_node);
    gs_free(s->sc_fit);
    gs_free(s->sc_bal);
    gs_free(s->sc_taint);
    gs_free(s->sc_aff);
    gs_free(s->sc_total);
    gs_free(s->pvict);
    gs_free(s->cand_victims);
    gs_free(s->cands);
    gs_free(s->victims);
    gs_free(s->lost);
    for (int i = 0; i < s->ninsuff; i++)
        gs_free(s->insuff[i]);
    gs_free(s->insuff);
    gs_free(s->msg);
    gs_free(s->scr);
    gs_free(s->hoff);
    gs_free(s->hptr);
    gs_sched_fgd_free(s);
    gs_free(s);
}

const struct gs_sched_config *gs_sched_get_config(const struct gs_sched *s)
{
    return &s->cfg;
}

int gs_sched_num_feasible_to_find(const struct gs_sched_config *cfg, int nnodes)
{
    /* minFeasibleNodesToFind = 100, minFeasibleNodesPercentageToFind = 5 */
    if (nnodes < 100)
        return nnodes;
    int pct = cfg->percentage_of_nodes_to_score;
    if (pct == 0) {
        pct = 50 - nnodes / 125;
        if (pct < 5)
            pct = 5;
    }
    int k = (int)((int64_t)nnodes * pct / 100);
    return k < 100 ? 100 : k;
}

/* ------------------------------------------------------------------ pod context */

/* NodeResourcesFitArgs ignoredResources / ignoredResourceGroups: an extended resource listed
 * by name, or whose prefix before '/' is listed, is not checked by the Fit filter (fit.go
 * fitsRequest; scoring is unaffected). */
static bool fit_ignored(const struct gs_sched_config *c, const char *name)
{
    if ((c->nignored_res == 0 && c->nignored_groups == 0) || !gs_res_is_extended(name))
        return false;
    for (int i = 0; i < c->nignored_res; i++)
        if (c->ignored_res[i] && strcmp(c->ignored_res[i], name) == 0)
            return true;
    const char *slash = strchr(name, '/');
    size_t plen = slash ? (size_t)(slash - name) : strlen(name);
    for (int i = 0; i < c->nignored_groups; i++)
        if (c->ignored_groups[i] && strlen(c->ignored_groups[i]) == plen &&
            strncmp(c->ignored_groups[i], name, plen) == 0)
            return true;
    return false;
}

void gs_sched_podctx(struct gs_sched *s, int p, struct gs_podctx *pc)
{
    const struct gs_world *w = s->w;
    const struct gs_pod_template *t = w->pods[p].tmpl;
    memset(pc, 0, sizeof *pc);
    pc->pod = p;
    pc->t = t;
    pc->prio = t->priority;
    pc->nres = w->res.n;
    /* NodeResourcesFit's order: cpu, memory, ephemeral-storage, then the scalar resources. */
    static const int fixed[] = {GS_RES_CPU, GS_RES_MEMORY, GS_RES_EPHEMERAL};
    for (int i = 0; i < 3; i++)
        if (t->requests.v[fixed[i]] > 0)
            pc->req_res[pc->nreq++] = fixed[i];
    for (int r = GS_RES_FIXED; r < pc->nres; r++)
        if (t->requests.v[r] > 0) {
            pc->requests_any = true;
            if (!fit_ignored(&s->cfg, w->res.names[r]))
                pc->req_res[pc->nreq++] = r;
        }
    pc->requests_any = pc->requests_any || pc->nreq > 0;
    for (int i = 0; i < pc->nreq; i++)
        pc->req_val[i] = t->requests.v[pc->req_res[i]];
    /* NodeUnschedulable: a pod tolerating node.kubernetes.io/unschedulable:NoSchedule also
     * tolerates spec.unschedulable. */
    const struct gs_taint unsched = {"node.kubernetes.io/unschedulable", "", GS_EFFECT_NO_SCHEDULE};
    for (int i = 0; i < t->ntolerations && !pc->tol_unschedulable; i++)
        pc->tol_unschedulable = gs_toleration_tolerates(&t->tolerations[i], &unsched);
    /* NodeAffinity PreFilter returns Skip when there is neither a nodeSelector nor required
     * node affinity (gpusim has no profile addedAffinity). */
    pc->affinity_filter = t->affinity.has_required || t->node_selector.n > 0;
    gs_share_podctx(w, pc); /* GPU shares (filters/gpu_share.c) */
    /* PreScore: the pod's requests per scored resource. */
    for (int i = 0; i < s->cfg.nscore_res && i < GS_SCHED_MAX_SCORE_RES; i++) {
        int r = s->cfg.score_res[i];
        if (r < 0 || r >= GS_RES_MAX)
            continue;
        pc->fit_req[i] = r == GS_RES_CPU ? t->nonzero_cpu : r == GS_RES_MEMORY ? t->nonzero_mem : t->requests.v[r];
    }
    for (int i = 0; i < s->cfg.nbalanced_res && i < GS_SCHED_MAX_SCORE_RES; i++) {
        int r = s->cfg.balanced_res[i];
        if (r >= 0 && r < GS_RES_MAX)
            pc->bal_req[i] = t->requests.v[r];
    }
}

/* ------------------------------------------------------------------ filters */
void gs_sched_run_filters(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                          struct gs_fstat *st)
{
    const struct gs_node *n = &s->w->nodes[node];
    *st = (struct gs_fstat){.node = node};
    /* The static filters all come before NodeResourcesFit in the profile's order. */
    if (s->nsfilters) {
        gs_static_verdict(s, pc, node, n->gen, st);
        if (st->code != GS_ST_SUCCESS)
            return;
    }
    if (s->fit_enabled) {
        gs_fit_check(s, pc, n, adj, st);
        if (st->code != GS_ST_SUCCESS)
            return;
    }
    /* DynamicResources comes after NodeResourcesFit in the profile (default_plugins.go). */
    if (pc->dra)
        gs_filter_dynamic_resources(s, pc, n, adj, st);
    if (pc->share && st->code == GS_ST_SUCCESS)
        gs_filter_gpu_share(s, pc, n, adj, st); /* GPU shares, after the in-tree filters */
}

/* The cycle's filter run on one node (RunFilterPluginsWithNominatedPods without added victims):
 * gs_sched_run_filters_nominated(s, pc, node, NULL, st) on the copies. */
static inline void cycle_filter(struct gs_sched *s, const struct gs_podctx *pc, int node, struct gs_fstat *st)
{
    *st = (struct gs_fstat){.node = node};
    if (s->nsfilters) {
        gs_static_verdict(s, pc, node, s->m[node].gen, st);
        if (st->code != GS_ST_SUCCESS)
            goto out;
    }
    if (s->fit_enabled) {
        /* With the nominated pods of equal or higher priority first, then without. */
        int slot = s->nom_slot[node];
        if (slot) {
            gs_mfit_check(s, pc, node, &s->nom_adj[slot - 1], st);
            if (st->code != GS_ST_SUCCESS)
                goto out;
        }
        gs_mfit_check(s, pc, node, NULL, st);
        if (st->code != GS_ST_SUCCESS)
            goto out;
    }
    if (pc->dra)
        gs_filter_dynamic_resources(s, pc, &s->w->nodes[node], NULL, st);
    if (pc->share && st->code == GS_ST_SUCCESS)
        gs_filter_gpu_share(s, pc, &s->w->nodes[node], NULL, st);
out:;
#ifndef NDEBUG
    struct gs_fstat chk;
    gs_sched_run_filters_nominated(s, pc, node, NULL, &chk);
    GS_ASSERT(chk.code == st->code && chk.plugin == st->plugin && chk.kind == st->kind && chk.taint == st->taint &&
              chk.insuff == st->insuff && chk.node == st->node);
#endif
}

static void adj_add(struct gs_adj *dst, const struct gs_adj *src, int nres)
{
    dst->npods += src->npods;
    for (int r = 0; r < nres; r++)
        dst->req.v[r] += src->req.v[r];
}

void gs_sched_run_filters_nominated(struct gs_sched *s, const struct gs_podctx *pc, int node,
                                    const struct gs_adj *adj, struct gs_fstat *st)
{
    int slot = s->nom_slot[node];
    if (slot) {
        /* First pass with the nominated pods of equal or higher priority added. */
        struct gs_adj both = s->nom_adj[slot - 1];
        if (adj)
            adj_add(&both, adj, pc->nres);
        gs_sched_run_filters(s, pc, node, &both, st);
        if (st->code != GS_ST_SUCCESS)
            return;
    }
    gs_sched_run_filters(s, pc, node, adj, st);
}

/* Is tracked pod q still a nominated, unbound, pending pod? */
static bool nominated_valid(const struct gs_world *w, int q)
{
    if (q < 0 || q >= w->npods)
        return false;
    const struct gs_pod *qp = &w->pods[q];
    return qp->nominated_node >= 0 && qp->nominated_node < w->nnodes && qp->node < 0 && !qp->deleted &&
           qp->phase == GS_PHASE_PENDING;
}

/* Drop stale nominations and sum, per node, the pods nominated there with a priority >= the
 * pod's (framework.go addNominatedPods). */
static int setup_nominated(struct gs_sched *s, const struct gs_podctx *pc)
{
    const struct gs_world *w = s->w;
    int k = 0;
    s->nnom_adj = 0;
    for (int i = 0; i < s->nnominated; i++) {
        int q = s->nominated[i];
        if (!nominated_valid(w, q))
            continue;
        s->nominated[k++] = q;
        const struct gs_pod *qp = &w->pods[q];
        int n = qp->nominated_node;
        if (q == pc->pod || qp->tmpl->priority < pc->prio || !w->nodes[n].exists)
            continue;
        int slot = s->nom_slot[n];
        if (!slot) {
            if (gs_array_grow((void **)&s->nom_adj, &s->nom_adj_cap, s->nnom_adj + 1, sizeof *s->nom_adj) ||
                gs_array_grow((void **)&s->nom_node, &s->nom_node_cap, s->nnom_adj + 1, sizeof *s->nom_node))
                return GS_ENOMEM;
            memset(&s->nom_adj[s->nnom_adj], 0, sizeof s->nom_adj[0]);
            s->nom_node[s->nnom_adj] = n;
            slot = s->nom_slot[n] = ++s->nnom_adj;
        }
        struct gs_adj *a = &s->nom_adj[slot - 1];
        a->npods++;
        for (int r = 0; r < pc->nres; r++)
            a->req.v[r] += qp->tmpl->requests.v[r];
    }
    s->nnominated = k;
    return 0;
}

static void clear_nominated(struct gs_sched *s)
{
    for (int i = 0; i < s->nnom_adj; i++)
        s->nom_slot[s->nom_node[i]] = 0;
    s->nnom_adj = 0;
}

/* ------------------------------------------------------------------ scoring */

static int ensure_scores(struct gs_sched *s, int n)
{
    if (n <= s->sc_cap)
        return 0;
    int ncap = s->sc_cap ? s->sc_cap : 64;
    while (ncap < n)
        ncap *= 2;
    int64_t **arrs[] = {&s->sc_fit, &s->sc_bal, &s->sc_taint, &s->sc_aff, &s->sc_total};
    for (size_t i = 0; i < sizeof arrs / sizeof arrs[0]; i++) {
        int64_t *p = gs_realloc(*arrs[i], sizeof *p * (size_t)ncap);
        if (!p)
            return GS_ENOMEM;
        *arrs[i] = p;
    }
    s->sc_cap = ncap;
    return 0;
}

/* prioritizeNodes / RunScorePlugins: each enabled plugin scores every feasible node (after its
 * PreScore, which may Skip), NormalizeScore, times the weight, summed per node. The inert
 * score plugins (PodTopologySpread and InterPodAffinity Skip; ImageLocality scores 0 without
 * image sizes) add nothing. */
int gs_sched_score_all(struct gs_sched *s, const struct gs_podctx *pc, const int *feasible, int nfeasible)
{
    if (ensure_scores(s, nfeasible))
        return GS_ENOMEM;
    const struct gs_sched_config *c = &s->cfg;
    const struct gs_node *nodes = s->w->nodes;
    bool fit = c->score_enabled[GS_PL_NODE_RESOURCES_FIT];
    bool bal = c->score_enabled[GS_PL_BALANCED_ALLOCATION] && !gs_score_balanced_skip(s, pc);
    bool taint = c->score_enabled[GS_PL_TAINT_TOLERATION];
    bool aff = c->score_enabled[GS_PL_NODE_AFFINITY] && !gs_score_affinity_skip(pc);
    for (int i = 0; i < nfeasible; i++) {
        if (i + 8 < nfeasible) {
            /* The scores read a few cache lines of large node structs: ask for them early. */
            const struct gs_node *ahead = &nodes[feasible[i + 8]];
            __builtin_prefetch(&ahead->allocatable.v[0]);
            __builtin_prefetch(&ahead->requested.v[0]);
            __builtin_prefetch(&ahead->nonzero_cpu);
        }
        int node = feasible[i];
        const struct gs_node *n = &nodes[node];
        s->sc_fit[i] = fit ? gs_score_resource_fit(s, pc, n) : 0;
        s->sc_bal[i] = bal ? gs_score_balanced(s, pc, n) : 0;
        if (taint || aff) {
            /* Both read only the template and the node's labels and taints: kept per
             * (template's static parts, node generation) when the cycle has the cache. */
            struct gs_sscore *k = pc->tc && pc->tc->sc ? &pc->tc->sc[node] : NULL;
            uint32_t stamp = n->gen + 1;
            if (k && k->stamp == stamp && stamp != 0) {
                s->sc_taint[i] = k->taint;
                s->sc_aff[i] = k->aff;
#ifndef NDEBUG
                GS_ASSERT(k->taint == (taint ? gs_score_taint_raw(pc, n) : 0) &&
                          k->aff == (aff ? gs_score_affinity_raw(pc, n) : 0));
#endif
            } else {
                s->sc_taint[i] = taint ? gs_score_taint_raw(pc, n) : 0;
                s->sc_aff[i] = aff ? gs_score_affinity_raw(pc, n) : 0;
                if (k)
                    *k = (struct gs_sscore){.stamp = stamp, .taint = s->sc_taint[i], .aff = s->sc_aff[i]};
            }
        } else {
            s->sc_taint[i] = s->sc_aff[i] = 0;
        }
    }
    if (taint)
        gs_score_normalize(s->sc_taint, nfeasible, true);
    if (aff)
        gs_score_normalize(s->sc_aff, nfeasible, false);
    for (int i = 0; i < nfeasible; i++)
        s->sc_total[i] = (fit ? s->sc_fit[i] * c->score_weight[GS_PL_NODE_RESOURCES_FIT] : 0) +
                         (bal ? s->sc_bal[i] * c->score_weight[GS_PL_BALANCED_ALLOCATION] : 0) +
                         (taint ? s->sc_taint[i] * c->score_weight[GS_PL_TAINT_TOLERATION] : 0) +
                         (aff ? s->sc_aff[i] * c->score_weight[GS_PL_NODE_AFFINITY] : 0);
    if (s->fgd)
        return gs_score_fgd_plugins(s, pc, feasible, nfeasible); /* the FGD policies, if enabled */
    return 0;
}

static bool has_scoring(const struct gs_sched_config *c)
{
    for (int i = 0; i < GS_PL_COUNT; i++)
        if (c->score_enabled[i])
            return true;
    return false;
}

/* selectHost: the highest total; ties by reservoir sampling over the feasible list in order
 * (the k-th tied node replaces the pick with probability 1/k), or the lowest node index with
 * tiebreak_first. Returns the index into `feasible`. */
static int select_host(struct gs_sched *s, const int *feasible, int nfeasible)
{
    int best = 0, cnt = 1;
    int64_t max = s->sc_total[0];
    bool first = s->cfg.tiebreak_first || !s->rng;
    for (int i = 1; i < nfeasible; i++) {
        int64_t t = s->sc_total[i];
        if (t > max) {
            max = t;
            best = i;
            cnt = 1;
        } else if (t == max) {
            cnt++;
            if (first) {
                if (feasible[i] < feasible[best])
                    best = i;
            } else if (gs_rng_uniform_int(s->rng, GS_STREAM_TIEBREAK, (uint64_t)cnt) == 0) {
                best = i;
            }
        }
    }
    return best;
}

/* ------------------------------------------------------------------ the cycle */

/* Record node's filter status for this cycle and keep the reason counts (s->fh) in step: a
 * node set twice (the nominated node, then in the walk) counts once, with its last status. */
static inline void pot_count(struct gs_sched *s, int node, int32_t prio, const struct gs_fstat *st, int sign)
{
    if (st->code == GS_ST_UNSCHEDULABLE) {
        s->npot += sign;
        if (s->m[node].min_prio < prio)
            s->npot_victims += sign;
    }
}

/* Also counts the nodes where preemption might help (s->npot, s->npot_victims). */
static inline void set_status(struct gs_sched *s, int node, int32_t prio, const struct gs_fstat *st, int *nexplicit)
{
    if (!gs_st_marked(s, node)) {
        (*nexplicit)++;
    } else {
        GS_ASSERT(node == s->nn);
        gs_hcount_status(s, &s->fh, &s->nn_st, -1);
        pot_count(s, node, prio, &s->nn_st, -1);
    }
    s->st_tag[node] = s->epoch << 3 | st->code;
    if (node == s->nn)
        s->nn_st = *st;
    gs_hcount_status(s, &s->fh, st, +1);
    pot_count(s, node, prio, st, +1);
}

/* Build the FailedScheduling text in s->msg (see fit_error). */
static void fit_error_text(struct gs_sched *s, int nexplicit, struct gs_hcount *h, bool preempt,
                           enum gs_preempt_outcome pe)
{
    const struct gs_sched_config *c = &s->cfg;
    gs_msg_reset(s);
    gs_msg_addf(s, "0/%d nodes are available:", s->nsnap);
    if (s->prefilter_reject) {
        gs_msg_addf(s, " %s.", s->prefilter_msg ? s->prefilter_msg : GS_MSG_AFFINITY_CONFLICT);
    } else {
        int absent = s->nsnap - nexplicit;
        /* NodeToStatus's absent-nodes status (1.31+): the nodes a PreFilterResult left out. */
        if (absent > 0 && s->restricted)
            h->kind[GS_R_PREFILTER_ABSENT] += absent;
        gs_hcount_render(s, h);
    }
    if (preempt && pe == GS_PE_CANDIDATE)
        return; /* DefaultPreemption succeeded: the PostFilter status is Success, no text */
    bool any = false;
    if (c->dra_enabled && c->filter_enabled[GS_PL_DYNAMIC_RESOURCES]) {
        /* dynamicresources.go PostFilter: "no new claims to deallocate" without claims; with
         * claims, an allocated claim unusable on the filtered nodes that no other pod
         * reserves would be deallocated ("deallocation of ResourceClaim completed"), which
         * gpusim never has (the controller deallocates a claim as its last user goes). */
        gs_msg_add(s, s->dra_claims ? " " GS_MSG_DRA_STILL : " " GS_MSG_NO_CLAIMS);
        any = true;
    }
    if (!preempt)
        return;
    gs_msg_add(s, any ? ", preemption: " : " preemption: ");
    switch (pe) {
    case GS_PE_NOT_ELIGIBLE_NEVER:
        gs_msg_add(s, GS_MSG_NEVER);
        break;
    case GS_PE_NOT_ELIGIBLE_TERMINATING:
        gs_msg_add(s, GS_MSG_TERMINATING);
        break;
    case GS_PE_NO_CANDIDATES:
    case GS_PE_CANDIDATE:
        gs_msg_addf(s, "0/%d nodes are available:", s->nsnap);
        /* Every node without a dry-run status: "Preemption is not helpful for scheduling". */
        s->ph.kind[GS_R_NOT_HELPFUL] += s->nsnap - s->ph_marked;
        gs_hcount_render(s, &s->ph);
        break;
    }
}

/* The FitError text and the PostFilter part (types.go FitError.Error, framework.go
 * RunPostFilterPlugins: the DynamicResources and DefaultPreemption messages joined by ", ").
 * `h` counts the reasons of the nexplicit nodes with a status. With a summary `vs` (whose sums
 * `h` is), the text depends only on vs's sums and the preemption outcome, so the text built
 * last time from the same sums is used again. */
static void fit_error(struct gs_sched *s, const struct gs_podctx *pc, int nexplicit, struct gs_hcount *h,
                      struct gs_vsum *vs, struct gs_cycle_result *out)
{
    const struct gs_sched_config *c = &s->cfg;
    bool preempt = c->filter_enabled[GS_PL_DEFAULT_PREEMPTION];
    enum gs_preempt_outcome pe = GS_PE_NO_CANDIDATES;
    if (preempt)
        pe = gs_sched_preempt(s, pc, out);
    if (vs && vs->msg_valid && vs->msg_rev == vs->rev && vs->msg_pe == (int)pe && !s->oom) {
        out->message = vs->msg;
        return;
    }
    fit_error_text(s, nexplicit, h, preempt, pe);
    if (vs && !s->oom) {
        /* Keep the text with the sums it was built from. */
        if (vs->msg_cap < s->msg_len + 1) {
            char *m = gs_realloc(vs->msg, s->msg_len + 1);
            if (!m) {
                vs->msg_valid = false;
                return;
            }
            vs->msg = m;
            vs->msg_cap = s->msg_len + 1;
        }
        memcpy(vs->msg, s->msg, s->msg_len + 1);
        vs->msg_valid = true;
        vs->msg_rev = vs->rev;
        vs->msg_pe = (int)pe;
    }
}

#ifndef NDEBUG
static bool hcount_equal(const struct gs_hcount *a, const struct gs_hcount *b)
{
    if (memcmp(a->kind, b->kind, sizeof a->kind) || memcmp(a->fit, b->fit, sizeof a->fit))
        return false;
    /* Taint counters: the same nonzero counts per (key, value), whatever the order. */
    const struct gs_hcount *x = a, *y = b;
    for (int pass = 0; pass < 2; pass++, x = b, y = a)
        for (int i = 0; i < x->ntaint; i++) {
            if (x->taint[i].count == 0)
                continue;
            int c = 0;
            for (int j = 0; j < y->ntaint; j++)
                if (strcmp(x->taint[i].key, y->taint[j].key) == 0 && strcmp(x->taint[i].value, y->taint[j].value) == 0)
                    c += y->taint[j].count;
            if (c != x->taint[i].count)
                return false;
        }
    return true;
}
#endif

/* A failing cycle from the template summary (see gs_sched_cycle): the walk's bookkeeping
 * (plugins that rejected the pod, nextStartNodeIndex, nodes evaluated), then the FitError
 * text and the PostFilter from the summary's counts. */
static void summary_failure(struct gs_sched *s, const struct gs_podctx *pc, struct gs_vsum *vs,
                            struct gs_cycle_result *out)
{
    GS_ASSERT(vs->ncounted == s->nsnap && s->ncand == s->nsnap);
#ifndef NDEBUG
    /* The walk over every node gives the same statuses (it also leaves the status marks the
     * debug checks in preemption.c read). */
    {
        int nexplicit = 0;
        uint32_t plugins = 0;
        for (int i = 0; i < s->ncand; i++) {
            struct gs_fstat st;
            cycle_filter(s, pc, s->snap[i], &st);
            GS_ASSERT(st.code != GS_ST_SUCCESS);
            set_status(s, s->snap[i], pc->prio, &st, &nexplicit);
            plugins |= 1u << st.plugin;
        }
        uint32_t vplugins = 0;
        for (int pl = 0; pl < GS_PL_COUNT; pl++)
            if (vs->pl_count[pl])
                vplugins |= 1u << pl;
        GS_ASSERT(nexplicit == vs->ncounted && plugins == vplugins && s->npot == vs->npot &&
                  s->npot_victims == vs->npot_victims && hcount_equal(&s->fh, &vs->h));
    }
#endif
    for (int pl = 0; pl < GS_PL_COUNT; pl++)
        if (vs->pl_count[pl])
            out->unsched_plugins |= 1u << pl;
    int processed = vs->ncounted;
    if (s->nsnap > 0)
        s->next_start = (int)(((int64_t)s->next_start + processed) % s->nsnap);
    out->feasible = 0;
    out->evaluated = processed;
    s->nfeasible = 0;
    s->npot = vs->npot;
    s->npot_victims = vs->npot_victims;
    s->cur_vs = vs;
    /* With victims somewhere, the dry run's statuses are more than the summary: no text kept. */
    fit_error(s, pc, vs->ncounted, &vs->h, vs->npot_victims == 0 ? vs : NULL, out);
    s->cur_vs = NULL;
}

static void next_epoch(struct gs_sched *s)
{
    if (++s->epoch >= GS_EPOCH_MAX) {
        memset(s->st_tag, 0, sizeof *s->st_tag * (size_t)s->nodes_cap);
        s->epoch = 1;
    }
}

/* A PreFilter rejected the pod (plugin `pl`, status text `msg`; NULL: NodeAffinity's terms
 * conflict): UnschedulableAndUnresolvable on every node, so no histogram and no preemption
 * victims; the FitError text into `out`. */
static void prefilter_reject(struct gs_sched *s, const struct gs_podctx *pc, enum gs_plugin pl, int kind,
                             const char *msg, int *nexplicit, struct gs_cycle_result *out)
{
    s->prefilter_reject = true;
    s->prefilter_msg = msg;
    out->unsched_plugins |= 1u << pl;
    struct gs_fstat st = {.code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE, .plugin = (uint8_t)pl, .kind = (uint8_t)kind};
    for (int i = 0; i < s->nsnap; i++) {
        st.node = s->snap[i];
        set_status(s, s->snap[i], pc->prio, &st, nexplicit);
    }
    fit_error(s, pc, *nexplicit, &s->fh, NULL, out);
}

/* Coscheduling PostFilter, after DynamicResources and DefaultPreemption (out-of-tree plugins
 * join the profile after the defaults; a successful preemption ends the PostFilter phase
 * before it): when the group is rejected, its text joins the PostFilter reasons with ", " and
 * the caller rejects the group's pods waiting at Permit. */
static void cosched_postfilter(struct gs_sched *s, int p, struct gs_cycle_result *out)
{
    const struct gs_sched_config *c = &s->cfg;
    if (!c->filter_enabled[GS_PL_COSCHEDULING] || s->w->pods[p].group < 0)
        return;
    char text[sizeof s->cosched_msg];
    if (!gs_gang_postfilter(s->w, p, text, sizeof text))
        return;
    out->reject_group = true;
    if (out->message == oom_message)
        return;
    if (out->message && out->message != s->msg) {
        const char *base = out->message;
        gs_msg_reset(s);
        gs_msg_add(s, base);
    }
    bool other = (c->dra_enabled && c->filter_enabled[GS_PL_DYNAMIC_RESOURCES]) ||
                 c->filter_enabled[GS_PL_DEFAULT_PREEMPTION];
    gs_msg_add(s, other ? ", " : " ");
    gs_msg_add(s, text);
    out->message = s->msg;
}

void gs_sched_set_now(struct gs_sched *s, gs_time now)
{
    s->now = now;
}

void gs_sched_cycle(struct gs_sched *s, int p, struct gs_cycle_result *out)
{
    const struct gs_world *w = s->w;
    const struct gs_sched_config *c = &s->cfg;
    memset(out, 0, sizeof *out);
    out->node = -1;
    out->nominated_node = -1;
    s->oom = false;
    s->restricted = false;
    s->prefilter_reject = false;
    s->prefilter_msg = NULL;
    s->dra_claims = false;
    s->dra_error = false;
    if (ensure_nodes(s) || gs_sched_mirror_sync(s)) {
        s->mfull = true;
        out->message = oom_message;
        return;
    }
    next_epoch(s);
    s->cycles++;
    gs_hcount_reset(&s->fh);
    s->npot = s->npot_victims = 0;
    s->nn = w->pods[p].nominated_node;

    /* The snapshot (the registered nodes, kept by gs_sched_mirror_sync). */
    if (s->nsnap == 0) {
        out->message = GS_MSG_NO_NODES;
        return;
    }

    struct gs_podctx pc;
    gs_sched_podctx(s, p, &pc);
    pc.tc = gs_sched_tcache_get(s, pc.t);
    const struct gs_pod *pod = &w->pods[p];
    if ((pod->nominated_node >= 0 && gs_sched_track_nominated(s, p)) || setup_nominated(s, &pc)) {
        s->oom = true;
        goto done;
    }

    /* PreFilter: NodeAffinity may restrict the nodes (matchFields metadata.name) or reject. */
    int nexplicit = 0;
    int pre = 0;
    if (c->filter_enabled[GS_PL_NODE_AFFINITY] && pc.affinity_filter)
        pre = gs_affinity_prefilter(pc.t);
    if (pre < 0) {
        prefilter_reject(s, &pc, GS_PL_NODE_AFFINITY, GS_R_AFFINITY, NULL, &nexplicit, out);
        goto done;
    }
    /* DynamicResources PreFilter: the pod's claims exist and can be used; a rejection is
     * UnschedulableAndUnresolvable on every node (its PostFilter then finds no claims). */
    {
        int drc = gs_sched_dra_prefilter(s, &pc);
        if (drc == 2) {
            /* An Error status aborts the attempt (framework.go RunPreFilterPlugins). */
            gs_msg_reset(s);
            gs_msg_addf(s, "running PreFilter plugin \"DynamicResources\": %s", s->dra_msg);
            out->message = s->msg;
            goto done;
        }
        if (drc == 1) {
            prefilter_reject(s, &pc, GS_PL_DYNAMIC_RESOURCES, GS_R_DRA_CANNOT_ALLOCATE, s->dra_msg, &nexplicit, out);
            goto done;
        }
        s->dra_claims = pc.dra;
    }
    /* Coscheduling PreFilter (after the in-tree PreFilters): a backed-off group or too few
     * sibling pods; UnschedulableAndUnresolvable for every node. */
    if (c->filter_enabled[GS_PL_COSCHEDULING] && pod->group >= 0) {
        const char *why = gs_gang_prefilter(w, p, s->now, s->cosched_msg, sizeof s->cosched_msg);
        if (why) {
            prefilter_reject(s, &pc, GS_PL_COSCHEDULING, GS_R_AFFINITY, why, &nexplicit, out);
            goto done;
        }
    }
    s->ncand = 0;
    if (pre > 0) {
        s->restricted = true;
        out->unsched_plugins |= 1u << GS_PL_NODE_AFFINITY;
        for (int i = 0; i < s->nsnap; i++) {
            int n = s->snap[i];
            if (gs_affinity_name_allowed(pc.t, w->nodes[n].name)) {
                s->cand[s->ncand++] = n;
            } else if (c->k8s_minor < 31) {
                /* 1.28-1.30 (kubernetes PR 119779): an explicit UnschedulableAndUnresolvable status. */
                struct gs_fstat st = {.code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                      .plugin = GS_PL_NODE_AFFINITY,
                                      .kind = GS_R_PREFILTER_EXCLUDED,
                                      .node = n};
                set_status(s, n, pc.prio, &st, &nexplicit);
            }
        }
    } else {
        s->ncand = s->nsnap;
    }
    /* The nodes to filter: the PreFilterResult's, or the whole snapshot. */
    const int *cand = s->restricted ? s->cand : s->snap;

    /* The template summary says whether any node fits. When none does, the walk would visit
     * every node and give each a status, in whatever order: the summary's verdicts are those
     * statuses and its counts their reasons, so the walk is skipped. Pods with a nomination,
     * nominated pods that count for this one, and node-name PreFilter results take the walk. */
    if (pre == 0 && pod->nominated_node < 0 && s->nnom_adj == 0 && !pc.dra) {
        struct gs_vsum *vs = gs_sched_vsum_get(s, &pc);
        if (vs && vs->nfeasible == 0) {
            summary_failure(s, &pc, vs, out);
            goto done;
        }
    }

    /* The nominated node first (evaluateNominatedNode): if it passes, it is chosen. */
    int nn = pod->nominated_node;
    if (nn >= 0 && nn < w->nnodes && w->nodes[nn].exists) {
        struct gs_fstat st;
        gs_sched_run_filters_nominated(s, &pc, nn, NULL, &st);
        if (s->dra_error) {
            out->message = s->dra_msg;
            goto done;
        }
        if (st.code == GS_ST_SUCCESS) {
            out->node = nn;
            out->feasible = 1;
            out->evaluated = 1 + nexplicit;
            goto done;
        }
        set_status(s, nn, pc.prio, &st, &nexplicit);
        out->unsched_plugins |= 1u << st.plugin;
    }

    /* findNodesThatPassFilters. */
    int to_find = has_scoring(c) ? gs_sched_num_feasible_to_find(c, s->ncand) : 1;
    s->nfeasible = 0;
    int at = s->ncand ? s->next_start % s->ncand : 0;
    for (int i = 0; i < s->ncand && s->nfeasible < to_find; i++, at = at + 1 == s->ncand ? 0 : at + 1) {
        int n = cand[at];
        struct gs_fstat st;
        cycle_filter(s, &pc, n, &st);
        if (s->dra_error) {
            /* A Filter Error aborts the attempt; its text is the FailedScheduling message. */
            out->message = s->dra_msg;
            goto done;
        }
        if (st.code == GS_ST_SUCCESS) {
            s->feasible[s->nfeasible++] = n;
        } else {
            set_status(s, n, pc.prio, &st, &nexplicit);
            out->unsched_plugins |= 1u << st.plugin;
        }
    }
    /* nextStartNodeIndex advances by the nodes processed, modulo len(allNodes) from 1.31 and
     * len(nodes) (the PreFilterResult subset) before. */
    int processed = s->nfeasible + nexplicit;
    int mod = c->k8s_minor >= 31 ? s->nsnap : s->ncand;
    if (mod > 0)
        s->next_start = (int)(((int64_t)s->next_start + processed) % mod);
    out->feasible = s->nfeasible;
    out->evaluated = processed;

    if (s->nfeasible == 0) {
        if (!pc.dra)
            gs_sched_vsum_failed(s, pc.t);
        fit_error(s, &pc, nexplicit, &s->fh, NULL, out);
    } else if (s->nfeasible == 1) {
        out->node = s->feasible[0];
    } else {
        if (gs_sched_score_all(s, &pc, s->feasible, s->nfeasible)) {
            s->oom = true;
            goto done;
        }
        int best = select_host(s, s->feasible, s->nfeasible);
        out->node = s->feasible[best];
        out->score = s->sc_total[best];
    }

done:
    clear_nominated(s);
    if (!s->oom && out->node < 0 && out->nominated_node < 0)
        cosched_postfilter(s, p, out);
    if (s->oom) {
        memset(out, 0, sizeof *out);
        out->node = -1;
        out->nominated_node = -1;
        out->message = oom_message;
    } else if (out->node < 0 && !out->message) {
        out->message = s->msg;
    }
}

/* ------------------------------------------------------------------ for tests and explain */

void gs_sched_filter_node(struct gs_sched *s, int p, int node, struct gs_node_status *out)
{
    struct gs_podctx pc;
    struct gs_fstat st;
    gs_sched_podctx(s, p, &pc);
    s->dra_error = false;
    if (gs_sched_dra_prefilter(s, &pc)) {
        /* PreFilter rejected the pod (or failed): that status stands for every node. */
        memset(out, 0, sizeof *out);
        out->code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE;
        out->plugin = GS_PL_DYNAMIC_RESOURCES;
        out->nreasons = 1;
        out->reasons[0] = s->dra_msg;
        return;
    }
    gs_sched_run_filters(s, &pc, node, NULL, &st);
    memset(out, 0, sizeof *out);
    if (s->dra_error) {
        out->code = GS_ST_ERROR;
        out->plugin = GS_PL_DYNAMIC_RESOURCES;
        out->nreasons = 1;
        out->reasons[0] = s->dra_msg;
        return;
    }
    out->code = (enum gs_status_code)st.code;
    out->plugin = (enum gs_plugin)st.plugin;
    if (st.code != GS_ST_SUCCESS)
        out->nreasons = gs_fstat_reasons(s, &st, out->reasons, GS_MAX_REASONS, s->taint_reason,
                                         sizeof s->taint_reason);
}

int64_t gs_sched_score_node(struct gs_sched *s, int p, const int *feasible, int nfeasible, int node)
{
    struct gs_podctx pc;
    gs_sched_podctx(s, p, &pc);
    int at = -1;
    for (int i = 0; i < nfeasible && at < 0; i++)
        if (feasible[i] == node)
            at = i;
    if (at < 0 || gs_sched_score_all(s, &pc, feasible, nfeasible))
        return -1;
    return s->sc_total[at];
}
