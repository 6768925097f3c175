/* The framework: a profile's tables (NewFramework) and the scheduling cycle over them, then the
 * binding points. kubernetes pkg/scheduler/framework/runtime/framework.go (NewFramework,
 * RunPreFilterPlugins, RunFilterPluginsWithNominatedPods, RunPostFilterPlugins,
 * RunPreScorePlugins, RunScorePlugins, RunReservePluginsReserve/Unreserve, RunPermitPlugins,
 * RunPreBindPlugins, RunBindPlugins) and pkg/scheduler/schedule_one.go (schedulePod,
 * findNodesThatFitPod, evaluateNominatedNode, findNodesThatPassFilters,
 * numFeasibleNodesToFind, prioritizeNodes, selectHost).
 *
 * Every point runs its table in order; no plugin is called by name. The Filter table is split
 * for the fast path: the plugins flagged GS_PLF_STATIC_FILTER give one cached verdict per
 * (template, node generation) (cache.c), the others run per node in table order (those whose
 * PreFilter said Skip left out), and a plugin placed before the failing static one still runs
 * first, so the first failure in the profile's order is the node's status.
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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "sched_internal.h"

static const char oom_message[] = "scheduler: out of memory";

/* The observer's reports (below, "the observer"). */
static void obs_fstat(struct gs_sched *s, int pod, const struct gs_fstat *st);
static void obs_text(struct gs_sched *s, int pod, int node, enum gs_status_code code, int plugin, const char *text);

/* ------------------------------------------------------------------ per-node arrays */

/* Grow one per-node array to hold `need` nodes; every per-node array shares s->nodes_cap, so
 * each grows from the same capacity to the same one. */
static int grow_nodes(struct gs_sched *s, void **arr, int need, size_t elem, bool zero, int *ncap)
{
    int cap = s->nodes_cap;
    int rc = gs_array_grow_ex(arr, &cap, need, elem, zero);
    *ncap = cap;
    return rc;
}

/* Size the per-node arrays for the world's current node count. */
static int ensure_nodes(struct gs_sched *s)
{
    int need = s->w->nnodes;
    if (need <= s->nodes_cap)
        return 0;
    int ncap = 0;
    if (grow_nodes(s, (void **)&s->snap, need, sizeof *s->snap, false, &ncap) ||
        grow_nodes(s, (void **)&s->cand, need, sizeof *s->cand, false, &ncap) ||
        grow_nodes(s, (void **)&s->feasible, need, sizeof *s->feasible, false, &ncap) ||
        grow_nodes(s, (void **)&s->potential, need, sizeof *s->potential, false, &ncap) ||
        grow_nodes(s, (void **)&s->st_tag, need, sizeof *s->st_tag, true, &ncap) ||
        grow_nodes(s, (void **)&s->m, need, sizeof *s->m, true, &ncap) ||
        grow_nodes(s, (void **)&s->nom_slot, need, sizeof *s->nom_slot, true, &ncap))
        return GS_ENOMEM;
    for (int i = 0; i < s->ntc; i++) {
        if (grow_nodes(s, (void **)&s->tc[i].v, need, sizeof *s->tc[i].v, true, &ncap))
            return GS_ENOMEM;
        if (s->tc[i].sc) {
            int cap = s->nodes_cap * s->sc_stride;
            if (gs_array_grow_ex((void **)&s->tc[i].sc, &cap, ncap * s->sc_stride, sizeof *s->tc[i].sc, true)) {
                gs_free(s->tc[i].sc);
                s->tc[i].sc = NULL;
            }
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
    if (GS_GROW(s->nominated, s->nominated_cap, s->nnominated + 1))
        return GS_ENOMEM;
    s->nominated[s->nnominated++] = p;
    return 0;
}

/* ------------------------------------------------------------------ NewFramework */

/* The tables from the expanded profile: at each point the plugins that act there, in order. */
static void build_tables(struct gs_sched *s, const struct gs_expanded *x)
{
    for (int pt = 0; pt < GS_EP_COUNT; pt++) {
        struct gs_table *t = &s->tab[pt];
        t->n = 0;
        for (int i = 0; i < x->n[pt]; i++) {
            const struct gs_sched_plugin *p = x->p[pt][i];
            if (!gs_plugin_acts_at(p, (enum gs_ext_point)pt))
                continue;
            t->weight[t->n] = pt == GS_EP_SCORE ? x->weight[pt][i] : 0;
            t->p[t->n++] = p;
        }
    }
    s->has_score = x->n[GS_EP_SCORE] > 0;
    /* The Filter table, split for the fast path. */
    const struct gs_table *f = &s->tab[GS_EP_FILTER];
    for (int i = 0; i < f->n; i++) {
        const struct gs_sched_plugin *p = f->p[i];
        if (p->flags & GS_PLF_STATIC_FILTER) {
            s->sfilters[s->nsfilters++] = p->filter;
            s->filter_pos[p->id] = i;
        } else {
            s->nsf[s->nnsf++] = (struct gs_fentry){
                .fn = p->filter, .pos = i, .id = (uint8_t)p->id, .cluster = (p->flags & GS_PLF_CLUSTER_FILTER) != 0};
        }
    }
    /* The static Score plugins' cache slots. */
    const struct gs_table *sc = &s->tab[GS_EP_SCORE];
    for (int i = 0; i < sc->n; i++)
        s->sscore_slot[i] = sc->p[i]->flags & GS_PLF_STATIC_SCORE ? s->nsscore++ : -1;
    s->sc_stride = 1 + s->nsscore;
}

/* Every plugin in a table, once. */
static int distinct_plugins(const struct gs_sched *s, const struct gs_sched_plugin **out)
{
    int n = 0;
    for (int pt = 0; pt < GS_EP_COUNT; pt++)
        for (int i = 0; i < s->tab[pt].n; i++) {
            const struct gs_sched_plugin *p = s->tab[pt].p[i];
            bool seen = false;
            for (int k = 0; k < n && !seen; k++)
                seen = out[k] == p;
            if (!seen)
                out[n++] = p;
        }
    return n;
}

struct gs_sched *gs_sched_new(const struct gs_world *w, const struct gs_sched_config *cfg, struct gs_rng *rng)
{
    struct gs_expanded *x = gs_malloc(sizeof *x);
    if (!x)
        return NULL;
    if (gs_sched_expand(cfg, x, NULL)) {
        gs_free(x);
        return NULL;
    }
    struct gs_sched *s = gs_calloc(1, sizeof *s);
    if (!s) {
        gs_free(x);
        return NULL;
    }
    s->w = w;
    s->cfg = *cfg;
    s->rng = rng;
    s->epoch = 0;
    s->gpu_res = -1;
    build_tables(s, x);
    gs_free(x);
    const struct gs_sched_plugin *pl[GS_EP_COUNT * GS_SCHED_MAX_TABLE];
    int npl = distinct_plugins(s, pl);
    for (int i = 0; i < npl; i++)
        if (pl[i]->init && pl[i]->init(s)) {
            gs_sched_free(s);
            return NULL;
        }
    if (ensure_nodes(s)) {
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
    const struct gs_sched_plugin *pl[GS_EP_COUNT * GS_SCHED_MAX_TABLE];
    int npl = distinct_plugins(s, pl);
    for (int i = 0; i < npl; i++)
        if (pl[i]->fini)
            pl[i]->fini(s);
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
    gs_free(s->sc_raw);
    gs_free(s->sc_total);
    gs_free(s->sc_tmp);
    gs_free(s->sc_idx);
    gs_free(s->pvict);
    gs_free(s->cand_victims);
    gs_free(s->cands);
    gs_free(s->victims);
    gs_free(s->lost);
    for (int i = 0; i < s->ninsuff_cap; i++)
        gs_free(s->insuff[i]);
    gs_free(s->insuff);
    gs_free(s->msg);
    gs_free(s->scr);
    gs_free(s->hoff);
    gs_free(s->hptr);
    gs_free(s);
}

const struct gs_sched_config *gs_sched_get_config(const struct gs_sched *s)
{
    return &s->cfg;
}

const struct gs_sched_plugin *gs_sched_queue_sort(const struct gs_sched *s)
{
    return s->tab[GS_EP_QUEUE_SORT].n ? s->tab[GS_EP_QUEUE_SORT].p[0] : &gs_plugin_priority_sort;
}

int gs_sched_table(const struct gs_sched *s, enum gs_ext_point pt, const struct gs_sched_plugin **out, int64_t *weights,
                   int max)
{
    if ((unsigned)pt >= GS_EP_COUNT)
        return 0;
    const struct gs_table *t = &s->tab[pt];
    for (int i = 0; i < t->n && i < max; i++) {
        out[i] = t->p[i];
        if (weights)
            weights[i] = t->weight[i];
    }
    return t->n;
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
    /* The arrays are filled up to their counts below: only the fields before them are cleared. */
    memset(pc, 0, offsetof(struct gs_podctx, req_res));
    pc->gpu_res = -1;
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
    /* NodeAffinity: something to check when there is a nodeSelector or required node affinity
     * (gpusim has no profile addedAffinity); its PreFilter says Skip otherwise. */
    pc->affinity_filter = t->affinity.has_required || t->node_selector.n > 0;
    gs_share_podctx(w, pc); /* GPU shares (plugins/open_gpu_share.c) */
    /* PreScore: the pod's requests per scored resource. */
    for (int i = 0; i < s->cfg.nscore_res && i < GS_SCHED_MAX_SCORE_RES; i++) {
        int r = s->cfg.score_res[i];
        pc->fit_req[i] = r < 0 || r >= GS_RES_MAX ? 0
                         : r == GS_RES_CPU        ? t->nonzero_cpu
                         : r == GS_RES_MEMORY     ? t->nonzero_mem
                                                  : t->requests.v[r];
    }
    for (int i = 0; i < s->cfg.nbalanced_res && i < GS_SCHED_MAX_SCORE_RES; i++) {
        int r = s->cfg.balanced_res[i];
        pc->bal_req[i] = r >= 0 && r < GS_RES_MAX ? t->requests.v[r] : 0;
    }
}

/* The Filter plugins that run for this pod besides the static ones: those whose PreFilter did
 * not Skip (a static one ignores Skip: its Filter passes a pod its PreFilter skips, so the
 * cached verdict holds for every pod of the template). */
static void podctx_filters(const struct gs_sched *s, struct gs_podctx *pc)
{
    pc->nfilters = 0;
    pc->cluster_filters = false;
    for (int i = 0; i < s->nnsf; i++) {
        const struct gs_fentry *f = &s->nsf[i];
        if (pc->skip & (1u << f->id))
            continue;
        pc->ffn[pc->nfilters] = f->fn;
        pc->fpos[pc->nfilters++] = f->pos;
        pc->cluster_filters = pc->cluster_filters || f->cluster;
    }
}

/* ------------------------------------------------------------------ filters */

void gs_sched_run_filters(struct gs_sched *s, const struct gs_podctx *pc, int node, const struct gs_adj *adj,
                          struct gs_fstat *st)
{
    struct gs_fstat sv = {.node = node};
    if (s->nsfilters)
        gs_static_verdict(s, pc, node, s->w->nodes[node].gen, &sv);
    *st = (struct gs_fstat){.node = node};
    gs_run_dynamic(s, pc, node, adj, &sv, st);
}

/* The cycle's filter run on one node (RunFilterPluginsWithNominatedPods without added victims):
 * gs_sched_run_filters_nominated(s, pc, node, NULL, st), the static verdict looked up once. */
static inline void cycle_filter(struct gs_sched *s, const struct gs_podctx *pc, int node, struct gs_fstat *st)
{
    struct gs_fstat sv = {.node = node};
    if (s->nsfilters)
        gs_static_verdict(s, pc, node, s->m[node].gen, &sv);
    *st = (struct gs_fstat){.node = node};
    int slot = s->nom_slot[node];
    if (slot) {
        /* With the nominated pods of equal or higher priority first, then without. */
        gs_run_dynamic(s, pc, node, &s->nom_adj[slot - 1], &sv, st);
        if (st->code != GS_ST_SUCCESS)
            goto out;
    }
    gs_run_dynamic(s, pc, node, NULL, &sv, st);
out:;
#ifndef NDEBUG
    /* After an allocation failure the cycle's answer is "out of memory", whatever the filters
     * said: nothing to compare. */
    if (!s->oom) {
        struct gs_fstat chk;
        gs_sched_run_filters_nominated(s, pc, node, NULL, &chk);
        GS_ASSERT(s->oom || (chk.code == st->code && chk.plugin == st->plugin && chk.kind == st->kind &&
                             chk.taint == st->taint && chk.insuff == st->insuff && chk.node == st->node));
    }
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
            if (GS_GROW(s->nom_adj, s->nom_adj_cap, s->nnom_adj + 1) ||
                GS_GROW(s->nom_node, s->nom_node_cap, s->nnom_adj + 1))
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
    if (GS_GROW(s->sc_raw, s->sc_raw_cap, n) || GS_GROW(s->sc_total, s->sc_total_cap, n) ||
        GS_GROW(s->sc_tmp, s->sc_tmp_cap, n) || GS_GROW(s->sc_idx, s->sc_idx_cap, n))
        return GS_ENOMEM;
    return 0;
}

/* The static Score plugins' raw scores of the feasible nodes whose cached values are stale
 * (every feasible node without a cache): computed for those nodes and kept. `active[k]` says
 * whether Score table entry k scores this pod (0 is kept for a skipped one). */
static void static_scores(struct gs_sched *s, const struct gs_podctx *pc, const int *feasible, int nfeasible,
                          const bool *active)
{
    int64_t *sc = pc->tc ? pc->tc->sc : NULL;
    if (!sc || s->nsscore == 0)
        return;
    const struct gs_table *t = &s->tab[GS_EP_SCORE];
    int stride = s->sc_stride;
    int nstale = 0;
    for (int i = 0; i < nfeasible; i++) {
        int node = feasible[i];
        int64_t stamp = (int64_t)s->w->nodes[node].gen + 1;
        if (sc[(size_t)node * (size_t)stride] != stamp)
            s->sc_idx[nstale++] = node;
    }
    if (nstale == 0)
        return;
    for (int k = 0; k < t->n; k++) {
        int slot = s->sscore_slot[k];
        if (slot < 0)
            continue;
        if (active[k])
            t->p[k]->score(s, pc, s->sc_idx, nstale, s->sc_tmp);
        for (int i = 0; i < nstale; i++)
            sc[(size_t)s->sc_idx[i] * (size_t)stride + 1 + (size_t)slot] = active[k] ? s->sc_tmp[i] : 0;
    }
    for (int i = 0; i < nstale; i++) {
        int node = s->sc_idx[i];
        sc[(size_t)node * (size_t)stride] = (int64_t)s->w->nodes[node].gen + 1;
    }
}

/* prioritizeNodes / RunPreScorePlugins + RunScorePlugins: each plugin of the Score table whose
 * PreScore does not Skip scores every feasible node, NormalizeScore, times its weight, summed
 * per node. The static ones' raw scores come from the template cache. */
int gs_sched_score_all(struct gs_sched *s, struct gs_podctx *pc, const int *feasible, int nfeasible)
{
    if (ensure_scores(s, nfeasible))
        return GS_ENOMEM;
    const struct gs_table *t = &s->tab[GS_EP_SCORE];
    bool active[GS_SCHED_MAX_TABLE];
    for (int k = 0; k < t->n; k++) {
        const struct gs_sched_plugin *p = t->p[k];
        int rc = p->pre_score ? p->pre_score(s, pc, feasible, nfeasible) : 0;
        if (rc < 0)
            return rc;
        active[k] = rc == 0;
    }
    static_scores(s, pc, feasible, nfeasible, active);
    int64_t *total = s->sc_total, *raw = s->sc_raw;
    memset(total, 0, sizeof *total * (size_t)nfeasible);
    const int64_t *sc = pc->tc ? pc->tc->sc : NULL;
    for (int k = 0; k < t->n; k++) {
        if (!active[k])
            continue;
        const struct gs_sched_plugin *p = t->p[k];
        int slot = s->sscore_slot[k];
        if (slot >= 0 && sc) {
            size_t stride = (size_t)s->sc_stride;
            for (int i = 0; i < nfeasible; i++)
                raw[i] = sc[(size_t)feasible[i] * stride + 1 + (size_t)slot];
#ifndef NDEBUG
            /* A node changed without gs_node_touch would show here. */
            p->score(s, pc, feasible, nfeasible, s->sc_tmp);
            for (int i = 0; i < nfeasible; i++)
                GS_ASSERT(s->sc_tmp[i] == raw[i]);
#endif
        } else {
            p->score(s, pc, feasible, nfeasible, raw);
        }
        if (p->normalize)
            p->normalize(s, raw, nfeasible);
        int64_t w = t->weight[k];
        for (int i = 0; i < nfeasible; i++)
            total[i] += raw[i] * w;
        if (s->obs_scoring)
            for (int i = 0; i < nfeasible; i++)
                s->obs.scored(s->obs.ctx, pc->pod, feasible[i], (enum gs_plugin)p->id, raw[i], w);
    }
    return 0;
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

/* RunPostFilterPlugins' outcome: the plugins run (until one succeeds) and their reasons. */
struct pf_run {
    int n;                          /* plugins run */
    bool success;                   /* the last one run succeeded: no PostFilter text */
    bool pod_text;                  /* a reason names the pod */
    uint8_t outcome[GS_SCHED_MAX_TABLE];
    uint64_t key;                   /* the outcomes, for the summary's message */
};

static void run_post_filters(struct gs_sched *s, const struct gs_podctx *pc, struct gs_cycle_result *out,
                             struct pf_run *r)
{
    const struct gs_table *t = &s->tab[GS_EP_POST_FILTER];
    r->n = 0;
    r->success = r->pod_text = false;
    r->key = 0;
    for (int i = 0; i < t->n; i++) {
        struct gs_postfilter_status st = {.code = GS_ST_UNSCHEDULABLE};
        t->p[i]->post_filter(s, pc, out, &st);
        r->outcome[r->n++] = st.outcome;
        r->pod_text = r->pod_text || (st.pod_text && st.code != GS_ST_SUCCESS);
        r->key = r->key * 31 + st.outcome + 1;
        if (st.code == GS_ST_SUCCESS) {
            r->success = true;
            r->key = r->key * 31 + 7;
            break;
        }
    }
}

/* Build the FailedScheduling text in s->msg (see fit_error). */
static void fit_error_text(struct gs_sched *s, const struct gs_podctx *pc, int nexplicit, struct gs_hcount *h,
                           const struct pf_run *r)
{
    gs_msg_reset(s);
    gs_msg_addf(s, "0/%d nodes are available:", s->nsnap);
    if (s->prefilter_reject) {
        gs_msg_addf(s, " %s.", s->prefilter_msg);
    } else {
        int absent = s->nsnap - nexplicit;
        /* NodeToStatus's absent-nodes status (1.31+): the nodes a PreFilterResult left out. */
        if (absent > 0 && s->restricted)
            h->kind[GS_R_PREFILTER_ABSENT] += absent;
        gs_hcount_render(s, h);
    }
    if (r->success)
        return; /* a PostFilter plugin succeeded (a preemption nominated a node): no text */
    /* The plugins' reasons, joined by ", " (framework.go RunPostFilterPlugins, FitError.Error). */
    const struct gs_table *t = &s->tab[GS_EP_POST_FILTER];
    bool any = false;
    for (int i = 0; i < r->n; i++) {
        if (!r->outcome[i])
            continue;
        gs_msg_add(s, any ? ", " : " ");
        t->p[i]->post_filter_text(s, pc, r->outcome[i]);
        any = true;
    }
}

/* The FitError text and the PostFilter plugins (types.go FitError.Error, framework.go
 * RunPostFilterPlugins). `h` counts the reasons of the nexplicit nodes with a status. With a
 * summary `vs` (whose sums `h` is), the text depends only on vs's sums and the PostFilter
 * outcomes, so the text built last time from the same sums and outcomes is used again. */
static void fit_error(struct gs_sched *s, const struct gs_podctx *pc, int nexplicit, struct gs_hcount *h,
                      struct gs_vsum *vs, struct gs_cycle_result *out)
{
    struct pf_run r;
    run_post_filters(s, pc, out, &r);
    if (r.pod_text)
        vs = NULL;
    if (vs && vs->msg_valid && vs->msg_rev == vs->rev && vs->msg_key == r.key && !s->oom) {
        out->message = vs->msg;
        return;
    }
    fit_error_text(s, pc, nexplicit, h, &r);
    out->message = s->msg;
    if (vs && !s->oom) {
        /* Keep the text with the sums it was built from. */
        if (GS_GROW(vs->msg, vs->msg_cap, s->msg_len + 1)) {
            vs->msg_valid = false;
            s->oom = true;
            return;
        }
        memcpy(vs->msg, s->msg, (size_t)s->msg_len + 1);
        vs->msg_valid = true;
        vs->msg_rev = vs->rev;
        vs->msg_key = r.key;
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
     * debug checks in the DefaultPreemption plugin read). */
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
        for (int pl = 0; pl < GS_PL_MODELLED; pl++)
            if (vs->pl_count[pl])
                vplugins |= 1u << pl;
        GS_ASSERT(nexplicit == vs->ncounted && plugins == vplugins && s->npot == vs->npot &&
                  s->npot_victims == vs->npot_victims && hcount_equal(&s->fh, &vs->h));
    }
#endif
    for (int pl = 0; pl < GS_PL_MODELLED; pl++)
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

/* A PreFilter rejected the pod (plugin `pl`, status `st`): that status on every node, so no
 * histogram; the FitError text into `out`. */
static void prefilter_reject(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_sched_plugin *pl,
                             const struct gs_prefilter_status *pst, int *nexplicit, struct gs_cycle_result *out)
{
    s->prefilter_reject = true;
    s->prefilter_msg = pst->msg ? pst->msg : "";
    out->unsched_plugins |= 1u << pl->id;
    struct gs_fstat st = {.code = (uint8_t)pst->code, .plugin = (uint8_t)pl->id, .kind = pst->kind};
    for (int i = 0; i < s->nsnap; i++) {
        st.node = s->snap[i];
        set_status(s, s->snap[i], pc->prio, &st, nexplicit);
        if (s->obs_filter)
            obs_text(s, pc->pod, s->snap[i], pst->code, pl->id, s->prefilter_msg);
    }
    fit_error(s, pc, *nexplicit, &s->fh, NULL, out);
}

/* RunPreFilterPlugins: every PreFilter in order; a plugin's Skip drops its Filter for the pod,
 * an UnschedulableAndUnresolvable or an Error ends the phase at once, an Unschedulable at the
 * end. Returns 0 (go on; *nrestrict plugins returned a PreFilterResult, in `restrict`), 1
 * (rejected: *pst, *who) or 2 (an Error: *pst, *who). */
static int run_pre_filters(struct gs_sched *s, struct gs_podctx *pc, struct gs_prefilter_status *pst,
                           const struct gs_sched_plugin **who, const struct gs_sched_plugin **restrict_pl,
                           int *nrestrict)
{
    const struct gs_table *t = &s->tab[GS_EP_PRE_FILTER];
    const struct gs_sched_plugin *unsched = NULL;
    struct gs_prefilter_status ust = {0};
    pc->skip = 0;
    *nrestrict = 0;
    for (int i = 0; i < t->n; i++) {
        const struct gs_sched_plugin *p = t->p[i];
        struct gs_prefilter_status st = {.code = GS_ST_SUCCESS};
        p->pre_filter(s, pc, &st);
        switch (st.code) {
        case GS_ST_SUCCESS:
            if (st.restricts && p->pre_filter_allows)
                restrict_pl[(*nrestrict)++] = p;
            break;
        case GS_ST_SKIP:
            pc->skip |= 1u << p->id;
            break;
        case GS_ST_UNSCHEDULABLE:
            if (!unsched) {
                unsched = p;
                ust = st;
            }
            break;
        case GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE:
            *pst = st;
            *who = p;
            return 1;
        default:
            *pst = st;
            *who = p;
            return 2;
        }
    }
    if (unsched) {
        *pst = ust;
        *who = unsched;
        return 1;
    }
    return 0;
}

static bool restricted_allows(const struct gs_sched *s, const struct gs_podctx *pc,
                              const struct gs_sched_plugin *const *rp, int nr, int node)
{
    for (int k = 0; k < nr; k++)
        if (!rp[k]->pre_filter_allows(s, pc, node))
            return false;
    return true;
}

void gs_sched_set_now(struct gs_sched *s, gs_time now)
{
    s->now = now;
}

/* ------------------------------------------------------------------ the observer */

void gs_sched_set_observer(struct gs_sched *s, const struct gs_sched_observer *o)
{
    s->obs = o ? *o : (struct gs_sched_observer){0};
    s->obs_filter = s->obs.filtered != NULL;
    s->obs_score = s->obs.scored != NULL;
}

/* The untolerated taint a taint status names (NULL for other statuses, or when the text is the
 * generic one). */
static const struct gs_taint *obs_taint_of(const struct gs_sched *s, const struct gs_fstat *st)
{
    if (st->kind != GS_R_TAINT || s->cfg.taint_reason_generic)
        return NULL;
    const struct gs_node *n = &s->w->nodes[st->node];
    return st->taint >= 0 && st->taint < n->ntaints ? &n->taints[st->taint] : NULL;
}

/* Tell the observer node st->node's verdict, from the compact status (reason strings built
 * here, as gs_sched_filter_node builds them). A status equal to the one reported last (the
 * nodes of a pool usually follow one another with the same one) reuses its reasons. */
static void obs_fstat(struct gs_sched *s, int pod, const struct gs_fstat *st)
{
    struct gs_node_status *ns = &s->obs_ns;
    const struct gs_fstat *l = &s->obs_fs;
    const struct gs_taint *t = obs_taint_of(s, st);
    bool same = s->obs_fs_valid && l->code == st->code && l->plugin == st->plugin && l->kind == st->kind &&
                l->insuff == st->insuff &&
                (!t || (s->obs_tkey && strcmp(t->key, s->obs_tkey) == 0 &&
                        strcmp(t->value ? t->value : "", s->obs_tvalue) == 0));
    if (!same) {
        *ns = (struct gs_node_status){.code = (enum gs_status_code)st->code, .plugin = (enum gs_plugin)st->plugin};
        if (st->code != GS_ST_SUCCESS)
            ns->nreasons = gs_fstat_reasons(s, st, ns->reasons, GS_MAX_REASONS, s->obs_taint, sizeof s->obs_taint);
        s->obs_fs = *st;
        s->obs_tkey = t ? t->key : NULL;
        s->obs_tvalue = t ? (t->value ? t->value : "") : NULL;
        s->obs_fs_valid = !s->oom;
    }
    s->obs.filtered(s->obs.ctx, pod, st->node, ns);
}

/* Tell the observer a verdict given by its text (PreFilter statuses, errors). */
static void obs_text(struct gs_sched *s, int pod, int node, enum gs_status_code code, int plugin, const char *text)
{
    s->obs_fs_valid = false;
    struct gs_node_status ns = {.code = code, .plugin = (enum gs_plugin)plugin, .nreasons = 1, .reasons = {text}};
    s->obs.filtered(s->obs.ctx, pod, node, &ns);
}

/* A failing cycle answered from the template summary: every node's verdict as the summary
 * keeps it (the walk's statuses, without nominated pods; the summary is only used when no
 * nominated pod counts for the pod). */
static void obs_summary(struct gs_sched *s, int pod, const struct gs_vsum *vs)
{
    for (int i = 0; i < s->nsnap; i++) {
        int n = s->snap[i];
        const struct gs_vnode *vn = &vs->v[n];
        struct gs_fstat st = {
            .code = vn->code, .plugin = vn->plugin, .kind = vn->kind, .taint = vn->taint, .node = n, .insuff = vn->insuff};
        obs_fstat(s, pod, &st);
    }
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
    s->filter_error = false;
    s->obs_fs_valid = false; /* the reasons' strings of a past cycle may be gone */
    if (ensure_nodes(s) || gs_sched_mirror_sync(s)) {
        s->mfull = true;
        out->message = oom_message;
        out->oom = true;
        if (s->obs.done)
            s->obs.done(s->obs.ctx, p, out);
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
        if (s->obs.done)
            s->obs.done(s->obs.ctx, p, out);
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

    /* PreFilter. */
    int nexplicit = 0;
    struct gs_prefilter_status pst;
    const struct gs_sched_plugin *who = NULL, *rp[GS_SCHED_MAX_TABLE];
    int nr = 0;
    switch (run_pre_filters(s, &pc, &pst, &who, rp, &nr)) {
    case 1:
        prefilter_reject(s, &pc, who, &pst, &nexplicit, out);
        goto done;
    case 2:
        /* An Error status aborts the attempt (framework.go RunPreFilterPlugins). */
        snprintf(s->pf_msg, sizeof s->pf_msg, "running PreFilter plugin \"%s\": %s", who->name,
                 pst.msg ? pst.msg : "");
        out->message = s->pf_msg;
        if (s->obs_filter)
            for (int i = 0; i < s->nsnap; i++)
                obs_text(s, p, s->snap[i], GS_ST_ERROR, who->id, s->pf_msg);
        goto done;
    default:
        break;
    }
    podctx_filters(s, &pc);
    s->ncand = 0;
    if (nr > 0) {
        /* The nodes of the PreFilterResult; the others get the absent status (1.31+) or an
         * explicit one (1.28-1.30, kubernetes PR 119779). */
        s->restricted = true;
        int len = snprintf(s->absent_msg, sizeof s->absent_msg, "node(s) didn't satisfy plugin(s) [");
        for (int k = 0; k < nr; k++) {
            out->unsched_plugins |= 1u << rp[k]->id;
            len += snprintf(s->absent_msg + len, sizeof s->absent_msg - (size_t)len, "%s%s", k ? " " : "",
                            rp[k]->name);
            if (len >= (int)sizeof s->absent_msg)
                len = (int)sizeof s->absent_msg - 1;
        }
        snprintf(s->absent_msg + len, sizeof s->absent_msg - (size_t)len, "]");
        for (int i = 0; i < s->nsnap; i++) {
            int n = s->snap[i];
            if (restricted_allows(s, &pc, rp, nr, n)) {
                s->cand[s->ncand++] = n;
            } else if (c->k8s_minor < 31) {
                struct gs_fstat st = {.code = GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE,
                                      .plugin = (uint8_t)rp[0]->id,
                                      .kind = GS_R_PREFILTER_EXCLUDED,
                                      .node = n};
                set_status(s, n, pc.prio, &st, &nexplicit);
                if (s->obs_filter)
                    obs_fstat(s, p, &st);
            } else if (s->obs_filter) {
                /* The absent-node status FitError counts for it (1.31+). */
                obs_text(s, p, n, GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE, rp[0]->id, s->absent_msg);
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
     * nominated pods that count for this one, PreFilterResults and Filters that read more than
     * the node take the walk. */
    if (nr == 0 && pod->nominated_node < 0 && s->nnom_adj == 0 && !pc.cluster_filters) {
        struct gs_vsum *vs = gs_sched_vsum_get(s, &pc);
        if (vs && vs->nfeasible == 0) {
            if (s->obs_filter)
                obs_summary(s, p, vs);
            summary_failure(s, &pc, vs, out);
            goto done;
        }
    }

    /* The nominated node first (evaluateNominatedNode): if it passes, it is chosen. */
    int nn = pod->nominated_node;
    if (nn >= 0 && nn < w->nnodes && w->nodes[nn].exists) {
        struct gs_fstat st;
        gs_sched_run_filters_nominated(s, &pc, nn, NULL, &st);
        if (s->filter_error) {
            out->message = s->filter_error_msg;
            if (s->obs_filter)
                obs_text(s, p, nn, GS_ST_ERROR, s->filter_error_plugin, s->filter_error_msg);
            goto done;
        }
        if (s->obs_filter)
            obs_fstat(s, p, &st);
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
    int to_find = s->has_score ? gs_sched_num_feasible_to_find(c, s->ncand) : 1;
    s->nfeasible = 0;
    int at = s->ncand ? s->next_start % s->ncand : 0;
    /* In a local, tested with filter_error: the filters are called through pointers, so a field
     * would be loaded again for every node, and a walk without an observer pays one OR per node.
     * The nominated node was reported above. */
    const bool obs_on = s->obs_filter;
    for (int i = 0; i < s->ncand && s->nfeasible < to_find; i++, at = at + 1 == s->ncand ? 0 : at + 1) {
        int n = cand[at];
        struct gs_fstat st;
        cycle_filter(s, &pc, n, &st);
        if (__builtin_expect(s->filter_error | obs_on, 0)) {
            if (s->filter_error) {
                /* A Filter Error aborts the attempt; its text is the FailedScheduling message. */
                out->message = s->filter_error_msg;
                if (obs_on)
                    obs_text(s, p, n, GS_ST_ERROR, s->filter_error_plugin, s->filter_error_msg);
                goto done;
            }
            if (n != nn)
                obs_fstat(s, p, &st);
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
        if (!pc.cluster_filters)
            gs_sched_vsum_failed(s, pc.t);
        fit_error(s, &pc, nexplicit, &s->fh, NULL, out);
    } else if (s->nfeasible == 1) {
        out->node = s->feasible[0];
    } else {
        s->obs_scoring = s->obs_score;
        int src = gs_sched_score_all(s, &pc, s->feasible, s->nfeasible);
        s->obs_scoring = false;
        if (src) {
            s->oom = true;
            goto done;
        }
        int best = select_host(s, s->feasible, s->nfeasible);
        out->node = s->feasible[best];
        out->score = s->sc_total[best];
    }

done:
    clear_nominated(s);
    if (s->oom) {
        memset(out, 0, sizeof *out);
        out->node = -1;
        out->nominated_node = -1;
        out->message = oom_message;
        out->oom = true;
    } else if (out->node < 0 && !out->message) {
        out->message = s->msg;
    }
    if (s->obs.done)
        s->obs.done(s->obs.ctx, p, out);
}

/* ------------------------------------------------------------------ the binding points */

bool gs_sched_out_of_memory(const struct gs_sched *s)
{
    return s->oom;
}

enum gs_status_code gs_sched_reserve(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c)
{
    const struct gs_table *t = &s->tab[GS_EP_RESERVE];
    s->oom = false;
    for (int i = 0; i < t->n; i++) {
        if (!t->p[i]->reserve)
            continue;
        enum gs_status_code st = t->p[i]->reserve(s, pod, node, c);
        if (st != GS_ST_SUCCESS)
            return st;
    }
    return GS_ST_SUCCESS;
}

void gs_sched_unreserve(struct gs_sched *s, int pod, int node, gs_time now, const struct gs_sched_client *c)
{
    const struct gs_table *t = &s->tab[GS_EP_RESERVE];
    s->oom = false;
    for (int i = t->n - 1; i >= 0; i--)
        if (t->p[i]->unreserve)
            t->p[i]->unreserve(s, pod, node, now, c);
}

void gs_sched_permit(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c,
                     struct gs_permit_result *out)
{
    const struct gs_table *t = &s->tab[GS_EP_PERMIT];
    s->oom = false;
    memset(out, 0, sizeof *out);
    out->code = GS_PERMIT_ALLOW;
    out->plugin = GS_PL_COUNT;
    bool wait = false, siblings = false;
    for (int i = 0; i < t->n; i++) {
        struct gs_permit_result r = {.code = GS_PERMIT_ALLOW, .plugin = (enum gs_plugin)t->p[i]->id};
        t->p[i]->permit(s, pod, node, c, &r);
        if (r.code == GS_PERMIT_REJECT) {
            *out = r;
            out->plugin = (enum gs_plugin)t->p[i]->id;
            return;
        }
        if (r.code == GS_PERMIT_WAIT) {
            if (!wait || r.wait_us < out->wait_us) {
                if (!wait)
                    out->plugin = (enum gs_plugin)t->p[i]->id;
                out->wait_us = r.wait_us;
            }
            wait = true;
        }
        siblings = siblings || r.allow_siblings;
    }
    out->code = wait ? GS_PERMIT_WAIT : GS_PERMIT_ALLOW;
    out->allow_siblings = !wait && siblings;
}

enum gs_status_code gs_sched_prebind(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c)
{
    const struct gs_table *t = &s->tab[GS_EP_PRE_BIND];
    s->oom = false;
    for (int i = 0; i < t->n; i++) {
        enum gs_status_code st = t->p[i]->pre_bind(s, pod, node, c);
        if (st != GS_ST_SUCCESS && st != GS_ST_SKIP)
            return st;
    }
    return GS_ST_SUCCESS;
}

enum gs_status_code gs_sched_bind(struct gs_sched *s, int pod, int node, const struct gs_sched_client *c)
{
    const struct gs_table *t = &s->tab[GS_EP_BIND];
    s->oom = false;
    for (int i = 0; i < t->n; i++) {
        enum gs_status_code st = t->p[i]->bind(s, pod, node, c);
        if (st != GS_ST_SKIP)
            return st;
    }
    return GS_ST_SKIP;
}

/* ------------------------------------------------------------------ for tests and explain */

static void filter_node(struct gs_sched *s, int p, int node, struct gs_node_status *out, bool all);

void gs_sched_filter_node(struct gs_sched *s, int p, int node, struct gs_node_status *out)
{
    filter_node(s, p, node, out, true);
}

void gs_sched_filter_node_logged(struct gs_sched *s, int p, int node, struct gs_node_status *out)
{
    filter_node(s, p, node, out, false);
}

static void filter_node(struct gs_sched *s, int p, int node, struct gs_node_status *out, bool all)
{
    struct gs_podctx pc;
    struct gs_fstat st;
    memset(out, 0, sizeof *out);
    /* The filters read the node copies: bring them all up to date (or those the world's change
     * log names). */
    if (all)
        s->mfull = true;
    if (ensure_nodes(s) || gs_sched_mirror_sync(s)) {
        s->mfull = true;
        out->code = GS_ST_ERROR;
        out->nreasons = 1;
        out->reasons[0] = oom_message;
        return;
    }
    gs_sched_podctx(s, p, &pc);
    s->filter_error = false;
    s->dra_claims = false;
    struct gs_prefilter_status pst;
    const struct gs_sched_plugin *who = NULL, *rp[GS_SCHED_MAX_TABLE];
    int nr = 0;
    if (run_pre_filters(s, &pc, &pst, &who, rp, &nr)) {
        /* PreFilter rejected the pod (or failed): that status stands for every node. */
        out->code = pst.code == GS_ST_ERROR ? GS_ST_UNSCHEDULABLE_AND_UNRESOLVABLE : pst.code;
        out->plugin = (enum gs_plugin)who->id;
        out->nreasons = 1;
        out->reasons[0] = pst.msg ? pst.msg : "";
        return;
    }
    podctx_filters(s, &pc);
    gs_sched_run_filters(s, &pc, node, NULL, &st);
    if (s->filter_error) {
        out->code = GS_ST_ERROR;
        out->plugin = (enum gs_plugin)s->filter_error_plugin;
        out->nreasons = 1;
        out->reasons[0] = s->filter_error_msg;
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
