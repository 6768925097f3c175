/* The six policies of the FGD paper as score plugins (hkust-adsl/kubernetes-scheduler-simulator
 * pkg/simulator/plugin/{random,dot_product,gpu_clustering,gpu_packing,best_fit,fgd}_score.go;
 * names from pkg/type/const.go and example/test-scheduler-config.yaml): RandomScore,
 * DotProductScore, GpuClusteringScore, GpuPackingScore, BestFitScore, FGDScore. Out of tree,
 * off by default; a profile enables them under plugins.score or plugins.multiPoint, with a
 * weight, beside (or instead of) the in-tree score plugins.
 *
 * Each scores the feasible nodes 0..100 with the functions the `gpusim experiment fgd` runs use
 * (models/fgd/policies.c), over a gs_fgd_view of the world (models/fgd/world.c: CPU and memory
 * left, the node's per-GPU free milli from gs_node.gpus, its GPU model label, its pods' tags),
 * brought up to date from the world's node-change log at each cycle that scores. Weighted and
 * added to the cycle's totals; BestFitScore is min-max normalised over the feasible nodes
 * (plugin_utils.go NormalizeScore), RandomScore gives 100 to one feasible node drawn from the
 * tie-break stream (its PreScore) and 0 to the others.
 *
 * FGDScore needs the typical-pod set (gs_sched_set_fgd_typical; the run loop builds it from the
 * scenario's workloads); without one every fragmentation is 0 and every node scores 50. Its
 * score of (node, template) is kept until the node changes (the view's per-node version). Its
 * choice of GPU for a share is gs_sched_share_gpu, which the run loop uses at bind. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "models/fgd/fgd_world.h"
#include "models/sched/sched_internal.h"

struct fgd_memo {
    const struct gs_pod_template *t; /* NULL: empty */
    uint32_t ver;                    /* the view's version of the node */
    int16_t score;
};

struct gs_fgd_sched {
    struct gs_fgd_view view;
    const struct gs_fgd_world_typical *wt; /* borrowed, NULL: none */
    int64_t *raw;                          /* scratch, sized raw_cap */
    int raw_cap;
    struct fgd_memo *memo;                 /* per node, sized memo_cap */
    int memo_cap;
};

static const struct gs_fgd_typical empty_typical;

static bool enabled(const struct gs_sched_config *c, enum gs_plugin p)
{
    return c->score_enabled[p];
}

static bool any_enabled(const struct gs_sched_config *c)
{
    for (int p = GS_PL_RANDOM_SCORE; p <= GS_PL_FGD_SCORE; p++)
        if (enabled(c, (enum gs_plugin)p))
            return true;
    return false;
}

int gs_sched_fgd_new(struct gs_sched *s)
{
    s->fgd = NULL;
    if (!any_enabled(&s->cfg))
        return 0;
    struct gs_fgd_sched *f = gs_calloc(1, sizeof *f);
    if (!f)
        return GS_ENOMEM;
    gs_fgd_view_init(&f->view, s->w, NULL, enabled(&s->cfg, GS_PL_GPU_CLUSTERING_SCORE));
    s->fgd = f;
    return 0;
}

void gs_sched_fgd_free(struct gs_sched *s)
{
    struct gs_fgd_sched *f = s->fgd;
    if (!f)
        return;
    gs_fgd_view_free(&f->view);
    gs_free(f->raw);
    gs_free(f->memo);
    gs_free(f);
    s->fgd = NULL;
}

int gs_sched_set_fgd_typical(struct gs_sched *s, const struct gs_fgd_world_typical *wt)
{
    struct gs_fgd_sched *f = s->fgd;
    if (!f)
        return 0;
    bool tags = f->view.tags;
    gs_fgd_view_free(&f->view);
    /* Only FGDScore reads fragmentation: the other plugins' view keeps none. */
    f->wt = enabled(&s->cfg, GS_PL_FGD_SCORE) ? wt : NULL;
    gs_fgd_view_init(&f->view, s->w, f->wt, tags);
    if (f->memo)
        memset(f->memo, 0, sizeof *f->memo * (size_t)f->memo_cap);
    return 0;
}

static const struct gs_fgd_typical *typical(const struct gs_fgd_sched *f)
{
    return f->wt ? &f->wt->typical : &empty_typical;
}

/* The pod as the policies see it: requests as written, its GPUs from the share model (pc). */
static void pod_of(const struct gs_podctx *pc, struct gs_fgd_pod *p)
{
    const struct gs_pod_template *t = pc->t;
    memset(p, 0, sizeof *p);
    p->cpu_milli = t->requests.v[GS_RES_CPU];
    int64_t mem = t->requests.v[GS_RES_MEMORY];
    p->memory_mib = mem > 0 ? (mem + (INT64_C(1) << 20) - 1) >> 20 : 0;
    if (pc->share) {
        p->num_gpu = pc->share_req.num_gpu > GS_GPUS_MAX ? GS_GPUS_MAX : pc->share_req.num_gpu;
        p->gpu_milli = pc->share_req.gpu_milli;
    }
    /* gpu_spec: the NodeAffinity filter has already kept the allowed models only. */
}

static int ensure(struct gs_fgd_sched *f, int nfeasible, int nnodes)
{
    if (nfeasible > f->raw_cap) {
        int cap = f->raw_cap ? f->raw_cap : 64;
        while (cap < nfeasible)
            cap *= 2;
        int64_t *r = gs_realloc(f->raw, sizeof *r * (size_t)cap);
        if (!r)
            return GS_ENOMEM;
        f->raw = r;
        f->raw_cap = cap;
    }
    if (nnodes > f->memo_cap) {
        int cap = f->memo_cap ? f->memo_cap : 64;
        while (cap < nnodes)
            cap *= 2;
        struct fgd_memo *m = gs_realloc(f->memo, sizeof *m * (size_t)cap);
        if (!m)
            return GS_ENOMEM;
        memset(m + f->memo_cap, 0, sizeof *m * (size_t)(cap - f->memo_cap));
        f->memo = m;
        f->memo_cap = cap;
    }
    return 0;
}

/* FGDScore of node `node` for the cycle's pod, memoised per (node version, template). */
static int fgd_score(struct gs_fgd_sched *f, const struct gs_podctx *pc, const struct gs_fgd_pod *p, int node)
{
    struct fgd_memo *m = &f->memo[node];
    uint32_t ver = f->view.ver[node];
    if (m->t == pc->t && m->ver == ver) {
#ifndef NDEBUG
        int g;
        GS_ASSERT(m->score == gs_fgd_score_fgd(typical(f), &f->view.nodes[node],
                                               f->view.frag_ok ? f->view.frag.node_frag[node] : 0.0, p, &g));
#endif
        return m->score;
    }
    int g;
    double before = f->view.frag_ok ? f->view.frag.node_frag[node] : 0.0;
    int sc = gs_fgd_score_fgd(typical(f), &f->view.nodes[node], before, p, &g);
    *m = (struct fgd_memo){.t = pc->t, .ver = ver, .score = (int16_t)sc};
    return sc;
}

int gs_score_fgd_plugins(struct gs_sched *s, const struct gs_podctx *pc, const int *feasible, int nfeasible)
{
    struct gs_fgd_sched *f = s->fgd;
    if (!f || nfeasible <= 0)
        return 0;
    const struct gs_sched_config *c = &s->cfg;
    if (gs_fgd_view_sync(&f->view) || ensure(f, nfeasible, f->view.n))
        return GS_ENOMEM;
    struct gs_fgd_pod p;
    pod_of(pc, &p);
    const struct gs_fgd_node *nodes = f->view.nodes;
    int64_t *total = s->sc_total;
#ifndef NDEBUG
    /* The incremental view equals the world: a node change not logged would show here. */
    for (int i = 0; i < nfeasible; i++) {
        struct gs_fgd_node fresh;
        gs_fgd_view_node(&f->view, feasible[i], &fresh);
        GS_ASSERT(memcmp(&fresh, &nodes[feasible[i]], sizeof fresh) == 0);
        if (f->view.frag_ok)
            GS_ASSERT(fabs(f->view.frag.node_frag[feasible[i]] - gs_fgd_node_frag(typical(f), &fresh)) < 1e-6);
    }
#endif
    for (int pl = GS_PL_RANDOM_SCORE; pl <= GS_PL_FGD_SCORE; pl++) {
        if (!enabled(c, (enum gs_plugin)pl))
            continue;
        int64_t w = c->score_weight[pl];
        switch (pl) {
        case GS_PL_RANDOM_SCORE: {
            /* PreScore: one feasible node drawn uniformly scores MaxNodeScore. */
            int pick = s->rng && nfeasible > 1
                           ? (int)gs_rng_uniform_int(s->rng, GS_STREAM_TIEBREAK, (uint64_t)nfeasible)
                           : 0;
            total[pick] += (int64_t)GS_FGD_MAX_SCORE * w;
            break;
        }
        case GS_PL_DOT_PRODUCT_SCORE:
            for (int i = 0; i < nfeasible; i++)
                total[i] += (int64_t)gs_fgd_score_dotprod(&nodes[feasible[i]], &p) * w;
            break;
        case GS_PL_GPU_CLUSTERING_SCORE:
            for (int i = 0; i < nfeasible; i++)
                total[i] += (int64_t)gs_fgd_score_clustering(&nodes[feasible[i]], &p) * w;
            break;
        case GS_PL_GPU_PACKING_SCORE:
            for (int i = 0; i < nfeasible; i++)
                total[i] += (int64_t)gs_fgd_score_packing(&nodes[feasible[i]], &p) * w;
            break;
        case GS_PL_BEST_FIT_SCORE:
            for (int i = 0; i < nfeasible; i++)
                f->raw[i] = gs_fgd_score_bestfit_raw(&nodes[feasible[i]], &p);
            gs_fgd_normalize_scores(f->raw, nfeasible);
            for (int i = 0; i < nfeasible; i++)
                total[i] += f->raw[i] * w;
            break;
        case GS_PL_FGD_SCORE:
            for (int i = 0; i < nfeasible; i++)
                total[i] += (int64_t)fgd_score(f, pc, &p, feasible[i]) * w;
            break;
        default:
            break;
        }
    }
    return 0;
}

int gs_sched_share_gpu(struct gs_sched *s, int pod, int node)
{
    struct gs_fgd_sched *f = s ? s->fgd : NULL;
    if (!f || !enabled(&s->cfg, GS_PL_FGD_SCORE) || pod < 0 || pod >= s->w->npods)
        return -1;
    struct gs_podctx pc;
    memset(&pc, 0, sizeof pc);
    pc.t = s->w->pods[pod].tmpl;
    gs_share_podctx(s->w, &pc);
    if (!pc.share || !gs_gpushare_is_share(&pc.share_req))
        return -1;
    if (gs_fgd_view_sync(&f->view) || node < 0 || node >= f->view.n)
        return -1;
    struct gs_fgd_pod p;
    pod_of(&pc, &p);
    /* The node as the Score phase saw it: without this pod when it is already assumed there. */
    struct gs_fgd_node nd = f->view.nodes[node];
    if (s->w->pods[pod].node == node) {
        nd.cpu_left += p.cpu_milli;
        nd.mem_left += p.memory_mib;
    }
    const struct gs_fgd_typical *t = typical(f);
    int gpu;
    gs_fgd_score_fgd(t, &nd, gs_fgd_node_frag(t, &nd), &p, &gpu);
    return gpu;
}
