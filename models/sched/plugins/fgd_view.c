/* The FGD paper's policies' shared state (hkust-adsl/kubernetes-scheduler-simulator
 * pkg/simulator/plugin; the six plugins are random_score.c, dot_product_score.c,
 * gpu_clustering_score.c, gpu_packing_score.c, best_fit_score.c and fgd_score.c).
 *
 * They score with the functions the `gpusim experiment fgd` runs use (models/fgd/policies.c),
 * over one gs_fgd_view of the world (models/fgd/world.c: CPU and memory left, the node's
 * per-GPU free milli from gs_node.gpus, its GPU model label, its pods' tags), made when a
 * profile's tables hold one of them and brought up to date from the world's node-change log
 * at each cycle that scores. FGDScore also memoises its score of (node, template) until the
 * node changes (the view's per-node version).
 */
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
    bool tags;                             /* the view keeps the pods' tags (GpuClusteringScore) */
    bool with_typical;                     /* FGDScore reads the typical-pod set */
    const struct gs_fgd_world_typical *wt; /* borrowed, NULL: none */
    int64_t *raw;                          /* scratch, sized raw_cap */
    int raw_cap;
    struct fgd_memo *memo;                 /* per node, sized memo_cap */
    int memo_cap;
};

static const struct gs_fgd_typical empty_typical;

int gs_fgd_state_init(struct gs_sched *s, bool with_tags, bool with_typical)
{
    struct gs_fgd_sched *f = s->fgd;
    if (!f) {
        f = gs_calloc(1, sizeof *f);
        if (!f)
            return GS_ENOMEM;
        gs_fgd_view_init(&f->view, s->w, NULL, with_tags);
        f->tags = with_tags;
        s->fgd = f;
    } else if (with_tags && !f->tags) {
        gs_fgd_view_free(&f->view);
        gs_fgd_view_init(&f->view, s->w, f->wt, true);
        f->tags = true;
    }
    f->with_typical = f->with_typical || with_typical;
    return 0;
}

void gs_fgd_state_fini(struct gs_sched *s)
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
    gs_fgd_view_free(&f->view);
    /* Only FGDScore reads fragmentation: the other plugins' view keeps none. */
    f->wt = f->with_typical ? wt : NULL;
    gs_fgd_view_init(&f->view, s->w, f->wt, f->tags);
    if (f->memo)
        memset(f->memo, 0, sizeof *f->memo * (size_t)f->memo_cap);
    return 0;
}

static const struct gs_fgd_typical *typical(const struct gs_fgd_sched *f)
{
    return f->wt ? &f->wt->typical : &empty_typical;
}

void gs_fgd_sched_pod(const struct gs_podctx *pc, struct gs_fgd_pod *p)
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

const struct gs_fgd_node *gs_fgd_node_of(const struct gs_sched *s, int node)
{
    return &s->fgd->view.nodes[node];
}

int64_t *gs_fgd_scratch(const struct gs_sched *s)
{
    return s->fgd->raw;
}

int gs_fgd_prepare(struct gs_sched *s, const int *nodes, int n)
{
    struct gs_fgd_sched *f = s->fgd;
    if (gs_fgd_view_sync(&f->view) || GS_GROW(f->raw, f->raw_cap, n) ||
        GS_GROW_ZERO(f->memo, f->memo_cap, f->view.n))
        return GS_ENOMEM;
#ifndef NDEBUG
    /* The incremental view equals the world: a node change not logged would show here. */
    for (int i = 0; i < n; i++) {
        struct gs_fgd_node fresh;
        gs_fgd_view_node(&f->view, nodes[i], &fresh);
        GS_ASSERT(memcmp(&fresh, &f->view.nodes[nodes[i]], sizeof fresh) == 0);
        if (f->view.frag_ok)
            GS_ASSERT(fabs(f->view.frag.node_frag[nodes[i]] - gs_fgd_node_frag(typical(f), &fresh)) < 1e-6);
    }
#else
    (void)nodes;
#endif
    return 0;
}

int gs_fgd_score_node(struct gs_sched *s, const struct gs_podctx *pc, const struct gs_fgd_pod *p, int node)
{
    struct gs_fgd_sched *f = s->fgd;
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

int gs_fgd_share_choice(struct gs_sched *s, int pod, int node)
{
    struct gs_fgd_sched *f = s->fgd;
    if (!f)
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
    gs_fgd_sched_pod(&pc, &p);
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

int gs_fgd_policy_init(struct gs_sched *s)
{
    return gs_fgd_state_init(s, false, false);
}

int gs_fgd_policy_pre_score(struct gs_sched *s, struct gs_podctx *pc, const int *nodes, int n)
{
    (void)pc;
    return gs_fgd_prepare(s, nodes, n);
}

void gs_fgd_policy_score(struct gs_sched *s, const struct gs_podctx *pc, const int *nodes, int n, int64_t *out,
                         int (*policy)(const struct gs_fgd_node *node, const struct gs_fgd_pod *pod))
{
    struct gs_fgd_pod p;
    gs_fgd_sched_pod(pc, &p);
    for (int i = 0; i < n; i++)
        out[i] = policy(gs_fgd_node_of(s, nodes[i]), &p);
}
