/* gpusim: the FGD experiment protocol (kubernetes-scheduler-simulator pkg/simulator/core.go
 * Simulate, simulator.go SortClusterPods / TunePodsByNodeTotalResource / SchedulePods,
 * analysis.go ClusterGpuFragReport, experiments/analysis/merge_alloc_discrete.py; see fgd.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "base/alloc.h"
#include "base/array.h"
#include "models/fgd/fgd.h"
#include "base/rng.h"

/* ---- loading ---- */

static const struct gs_openb_pod *sort_pods; /* only during gs_fgd_experiment_init's qsort */

static int by_name(const void *a, const void *b)
{
    return strcmp(sort_pods[*(const int *)a].name, sort_pods[*(const int *)b].name);
}

static int cmp_shape(const struct gs_openb_pod *x, const struct gs_openb_pod *y)
{
    if (x->cpu_milli != y->cpu_milli)
        return x->cpu_milli < y->cpu_milli ? -1 : 1;
    if (x->gpu_milli != y->gpu_milli)
        return x->gpu_milli < y->gpu_milli ? -1 : 1;
    if (x->num_gpu != y->num_gpu)
        return x->num_gpu < y->num_gpu ? -1 : 1;
    if (x->spec_mask != y->spec_mask)
        return x->spec_mask < y->spec_mask ? -1 : 1;
    return 0;
}

static int by_shape(const void *a, const void *b)
{
    int c = cmp_shape(&sort_pods[*(const int *)a], &sort_pods[*(const int *)b]);
    return c ? c : (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

void gs_fgd_experiment_free(struct gs_fgd_experiment *ex)
{
    if (!ex)
        return;
    gs_openb_cluster_free(&ex->cluster);
    gs_openb_workload_free(&ex->workload);
    gs_fgd_typical_free(&ex->typical);
    gs_free(ex->order);
    gs_free(ex->shape);
    memset(ex, 0, sizeof *ex);
}

int gs_fgd_experiment_init(struct gs_fgd_experiment *ex, struct gs_openb_cluster *cluster,
                           struct gs_openb_workload *workload, double threshold_pct)
{
    memset(ex, 0, sizeof *ex);
    ex->tiebreak = GS_FGD_TIE_RANK;
    ex->cluster = *cluster;
    ex->workload = *workload;
    memset(cluster, 0, sizeof *cluster);
    memset(workload, 0, sizeof *workload);
    int rc = GS_EINVAL;
    if (ex->cluster.n <= 0 || ex->cluster.total_gpus <= 0 || ex->workload.n <= 0 ||
        ex->workload.total_gpu_milli <= 0)
        goto fail;
    rc = gs_fgd_typical_build(&ex->workload, threshold_pct, &ex->typical);
    if (rc)
        goto fail;
    rc = GS_ENOMEM;
    int n = ex->workload.n;
    ex->order = gs_malloc((size_t)n * sizeof *ex->order);
    ex->shape = gs_malloc((size_t)n * sizeof *ex->shape);
    int *tmp = gs_malloc((size_t)n * sizeof *tmp);
    if (!ex->order || !ex->shape || !tmp) {
        gs_free(tmp);
        goto fail;
    }
    sort_pods = ex->workload.pods;
    for (int i = 0; i < n; i++)
        ex->order[i] = tmp[i] = i;
    qsort(ex->order, (size_t)n, sizeof *ex->order, by_name);
    qsort(tmp, (size_t)n, sizeof *tmp, by_shape);
    for (int k = 0; k < n; k++) {
        if (k > 0 && cmp_shape(&ex->workload.pods[tmp[k - 1]], &ex->workload.pods[tmp[k]]) != 0)
            ex->nshapes++;
        ex->shape[tmp[k]] = ex->nshapes;
    }
    ex->nshapes++;
    sort_pods = NULL;
    gs_free(tmp);
    return 0;
fail:
    gs_fgd_experiment_free(ex);
    return rc;
}

int gs_fgd_experiment_load(struct gs_fgd_experiment *ex, const char *dir, const char *workload,
                           double threshold_pct, struct gs_error *err)
{
    memset(ex, 0, sizeof *ex);
    struct gs_openb_models models = {0};
    struct gs_openb_cluster c;
    struct gs_openb_workload w;
    char path[4096];
    snprintf(path, sizeof path, "%s/openb_node_list_gpu_node.csv", dir);
    int rc = gs_openb_read_nodes(path, &models, &c, err);
    if (rc)
        return rc;
    snprintf(path, sizeof path, "%s/openb_pod_list_%s.csv", dir, workload);
    rc = gs_openb_read_pods(path, &models, &w, err);
    if (rc) {
        gs_openb_cluster_free(&c);
        return rc;
    }
    rc = gs_fgd_experiment_init(ex, &c, &w, threshold_pct);
    if (rc)
        gs_error_set(err, rc, path, 0, 0, "cannot set up the experiment: %s", gs_strerror(rc));
    return rc;
}

/* ---- one run ---- */

struct memo {
    uint32_t ver;
    int8_t score;
    int8_t gpu;
};

struct sim {
    const struct gs_fgd_experiment *ex;
    const struct gs_fgd_typical *t;
    int n;
    struct gs_fgd_node *nodes;
    struct gs_fgd_frag_cache frag;
    uint32_t *ver;      /* per node, bumped on every change */
    struct memo *memo;  /* [node * nshapes + shape]: FGD score and GPU */
    int *cand;
    int64_t *score;
    int *pods_on;
    int *rank;          /* tie-break order (GS_FGD_TIE_RANK) */
    struct gs_rng *rng;
};

static void sim_free(struct sim *s)
{
    gs_free(s->nodes);
    gs_fgd_frag_cache_free(&s->frag);
    gs_free(s->ver);
    gs_free(s->memo);
    gs_free(s->cand);
    gs_free(s->score);
    gs_free(s->pods_on);
    gs_free(s->rank);
    gs_rng_free(s->rng);
}

static int sim_init(struct sim *s, const struct gs_fgd_experiment *ex, enum gs_fgd_policy policy, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->ex = ex;
    s->t = &ex->typical;
    s->n = ex->cluster.n;
    size_t n = (size_t)s->n;
    s->nodes = gs_malloc(n * sizeof *s->nodes);
    s->ver = gs_calloc(n, sizeof *s->ver);
    s->cand = gs_malloc(n * sizeof *s->cand);
    s->score = gs_malloc(n * sizeof *s->score);
    s->pods_on = gs_calloc(n, sizeof *s->pods_on);
    s->rank = gs_malloc(n * sizeof *s->rank);
    if (policy == GS_FGD_FGD)
        s->memo = gs_calloc(n * (size_t)ex->nshapes, sizeof *s->memo);
    s->rng = gs_rng_new(seed);
    if (!s->nodes || !s->ver || !s->cand || !s->score || !s->pods_on || !s->rank || !s->rng ||
        (policy == GS_FGD_FGD && !s->memo))
        return GS_ENOMEM;
    for (int i = 0; i < s->n; i++) {
        const struct gs_openb_node *o = &ex->cluster.nodes[i];
        int rc = gs_fgd_node_init(&s->nodes[i], o->cpu_milli, o->memory_mib, o->gpu, o->model);
        if (rc)
            return rc;
        s->ver[i] = 1;
        s->rank[i] = i;
    }
    /* The node names' rand.Perm prefixes (syncClusterResourceList): a seeded permutation. */
    gsl_ran_shuffle((gsl_rng *)gs_rng_gsl(s->rng, GS_STREAM_TIEBREAK), s->rank, n, sizeof *s->rank);
    return gs_fgd_frag_cache_init(&s->frag, s->t, s->nodes, s->n);
}

static struct gs_fgd_pod pod_of(const struct gs_openb_pod *o)
{
    return (struct gs_fgd_pod){o->cpu_milli, o->memory_mib, o->num_gpu, o->gpu_milli, o->spec_mask};
}

/* Uniform choice among `k` equal options, drawing only when there is a choice. */
static int pick(struct sim *s, int k)
{
    return k <= 1 ? 0 : (int)gs_rng_uniform_int(s->rng, GS_STREAM_TIEBREAK, (uint64_t)k);
}

/* Schedule one pod: filter, score, select, allocate. Returns 1 when placed, 0 when no node
 * fits, or a negative GS_E* code. */
static int sim_place(struct sim *s, enum gs_fgd_policy policy, const struct gs_fgd_pod *p, int shape)
{
    int m = 0;
    for (int i = 0; i < s->n; i++)
        if (gs_fgd_filter(&s->nodes[i], p))
            s->cand[m++] = i;
    if (m == 0)
        return 0;
    int chosen = -1, gpu = -1;
    bool share = p->num_gpu == 1 && p->gpu_milli > 0 && p->gpu_milli < GS_GPU_MILLI;
    if (policy == GS_FGD_RANDOM) {
        chosen = s->cand[pick(s, m)];
        if (share) { /* allocateGpuIdBasedOnRandomFit: uniform among the GPUs that fit */
            const struct gs_gpushare *g = &s->nodes[chosen].gpu;
            int k = 0;
            for (int i = 0; i < g->ngpu; i++)
                k += g->free_milli[i] >= p->gpu_milli;
            int r = pick(s, k);
            for (int i = 0; i < g->ngpu; i++)
                if (g->free_milli[i] >= p->gpu_milli && r-- == 0) {
                    gpu = i;
                    break;
                }
        }
    } else {
        for (int k = 0; k < m; k++) {
            int i = s->cand[k];
            const struct gs_fgd_node *nd = &s->nodes[i];
            int sc = 0;
            switch (policy) {
            case GS_FGD_DOTPROD:
                sc = gs_fgd_score_dotprod(nd, p);
                break;
            case GS_FGD_CLUSTERING:
                sc = gs_fgd_score_clustering(nd, p);
                break;
            case GS_FGD_PACKING:
                sc = gs_fgd_score_packing(nd, p);
                break;
            case GS_FGD_BESTFIT:
                sc = gs_fgd_score_bestfit_raw(nd, p);
                break;
            case GS_FGD_FGD: {
                struct memo *me = &s->memo[(size_t)i * (size_t)s->ex->nshapes + (size_t)shape];
                if (me->ver != s->ver[i]) {
                    int g;
                    me->score = (int8_t)gs_fgd_score_fgd(s->t, nd, s->frag.node_frag[i], p, &g);
                    me->gpu = (int8_t)g;
                    me->ver = s->ver[i];
                }
                sc = me->score;
                break;
            }
            default:
                return GS_EINVAL;
            }
            s->score[k] = sc;
        }
        if (policy == GS_FGD_BESTFIT)
            gs_fgd_normalize_scores(s->score, m);
        int64_t best = INT64_MIN;
        int ties = 0;
        for (int k = 0; k < m; k++) {
            if (s->score[k] > best) {
                best = s->score[k];
                ties = 1;
            } else if (s->score[k] == best) {
                ties++;
            }
        }
        if (s->ex->tiebreak == GS_FGD_TIE_RANK) {
            for (int k = 0; k < m; k++)
                if (s->score[k] == best && (chosen < 0 || s->rank[s->cand[k]] < s->rank[chosen]))
                    chosen = s->cand[k];
        } else {
            int r = pick(s, ties);
            for (int k = 0; k < m; k++)
                if (s->score[k] == best && r-- == 0) {
                    chosen = s->cand[k];
                    break;
                }
        }
        if (policy == GS_FGD_FGD && share)
            gpu = s->memo[(size_t)chosen * (size_t)s->ex->nshapes + (size_t)shape].gpu;
    }
    struct gs_fgd_node *nd = &s->nodes[chosen];
    struct gs_gpushare_req rq = {p->num_gpu, p->gpu_milli};
    struct gs_gpushare_alloc a;
    int rc = gs_gpushare_choose(&nd->gpu, &rq, share ? gpu : -1, &a);
    if (rc)
        return GS_EINTERNAL;
    rc = gs_fgd_node_account(nd, p, &a, true);
    if (rc)
        return GS_EINTERNAL;
    s->ver[chosen]++;
    s->pods_on[chosen]++;
    gs_fgd_frag_cache_update(&s->frag, s->t, s->nodes, chosen);
    return 1;
}

/* Binning of the log points (merge_alloc_discrete.py). */
struct bins {
    double alloc[GS_FGD_CURVE_MAX], frag[GS_FGD_CURVE_MAX], ratio[GS_FGD_CURVE_MAX];
    int cnt[GS_FGD_CURVE_MAX];
};

static double round2(double x) { return rint(x * 100.0) / 100.0; }

static void log_point(struct bins *b, const struct sim *s, int64_t arrived, int64_t total_gpus)
{
    /* Python's round(x, 0) rounds half to even, as rint does in the default rounding mode. */
    double ar = rint((double)arrived / (double)total_gpus / 10.0);
    if (!(ar >= 0 && ar < GS_FGD_CURVE_MAX))
        return;
    int x = (int)ar;
    struct gs_fgd_frag_sample fs;
    gs_fgd_frag_cache_sample(&s->frag, &fs);
    int64_t used = total_gpus * GS_GPU_MILLI - fs.idle_milli;
    b->alloc[x] += round2((double)used / (double)total_gpus / 10.0);
    b->frag[x] += round2(fs.frag_pct);
    b->ratio[x] += round2(fs.frag_ratio_pct);
    b->cnt[x]++;
}

static void finish_curve(const struct bins *b, int ncols, struct gs_fgd_curve *c)
{
    c->ncols = ncols;
    for (int x = 0; x < ncols; x++) {
        double sa = b->alloc[x], sf = b->frag[x], sr = b->ratio[x];
        int n = b->cnt[x];
        if (n == 0) { /* widen to x - 1 .. x + 1 */
            for (int d = -1; d <= 1; d += 2) {
                int y = x + d;
                if (y < 0 || y >= GS_FGD_CURVE_MAX)
                    continue;
                sa += b->alloc[y];
                sf += b->frag[y];
                sr += b->ratio[y];
                n += b->cnt[y];
            }
        }
        c->alloc_pct[x] = n ? round2(sa / n) : NAN;
        c->frag_pct[x] = n ? round2(sf / n) : NAN;
        c->frag_ratio_pct[x] = n ? round2(sr / n) : NAN;
    }
    for (int x = ncols; x < GS_FGD_CURVE_MAX; x++)
        c->alloc_pct[x] = c->frag_pct[x] = c->frag_ratio_pct[x] = NAN;
}

static int milli_of(const struct gs_openb_pod *p) { return p->gpu_milli; }
static int64_t total_of(const struct gs_openb_pod *p) { return (int64_t)p->gpu_milli * p->num_gpu; }

int gs_fgd_experiment_run(const struct gs_fgd_experiment *ex, enum gs_fgd_policy policy, uint64_t seed,
                          double tune, struct gs_fgd_run_result *out)
{
    memset(out, 0, sizeof *out);
    if ((unsigned)policy >= GS_FGD_NPOLICIES || !(tune > 0 && tune <= 3.0) || ex->workload.n <= 0)
        return GS_EINVAL;
    struct sim s;
    struct bins *b = gs_calloc(1, sizeof *b);
    int rc = sim_init(&s, ex, policy, seed);
    int n = ex->workload.n, cap = 0, len = n;
    int *seq = NULL;
    if (!rc && !b)
        rc = GS_ENOMEM;
    if (!rc)
        rc = GS_GROW(seq, cap, n * 2 + 16);
    if (rc)
        goto done;
    /* SortClusterPods: by name, then shuffled with the seed. */
    memcpy(seq, ex->order, (size_t)n * sizeof *seq);
    gsl_ran_shuffle((gsl_rng *)gs_rng_gsl(s.rng, GS_STREAM_ARRIVALS), seq, (size_t)n, sizeof *seq);
    /* TunePodsByNodeTotalResource (after the shuffle, as in core.go Simulate). */
    int64_t cap_milli = ex->cluster.total_gpus * GS_GPU_MILLI;
    double target = tune * (double)cap_milli;
    int64_t req = ex->workload.total_gpu_milli;
    if ((double)req < target) { /* tuneUpPods: copies drawn with replacement, appended */
        for (;;) {
            int idx = (int)gs_rng_uniform_int(s.rng, GS_STREAM_SAMPLING, (uint64_t)n);
            const struct gs_openb_pod *p = &ex->workload.pods[idx];
            if ((double)(req + milli_of(p)) > target) /* the authors' test adds the per-GPU milli */
                break;
            req += total_of(p);
            if (len >= (1 << 28)) {
                rc = GS_ERANGE;
                goto done;
            }
            if ((rc = GS_GROW(seq, cap, len + 1)))
                goto done;
            seq[len++] = idx;
        }
    } else if ((double)req > target) { /* tuneDownPods: random pods removed */
        while ((double)req > target && len > 0) {
            int k = (int)gs_rng_uniform_int(s.rng, GS_STREAM_SAMPLING, (uint64_t)len);
            req -= total_of(&ex->workload.pods[seq[k]]);
            memmove(&seq[k], &seq[k + 1], (size_t)(len - k - 1) * sizeof *seq);
            len--;
        }
    }
    /* SchedulePods: one decision per pod, a log point after each (and one before the first). */
    int64_t total_gpus = ex->cluster.total_gpus, arrived = 0;
    struct gs_fgd_frag_sample fs;
    gs_fgd_frag_cache_sample(&s.frag, &fs);
    out->empty_frag_pct = fs.frag_pct;
    log_point(b, &s, 0, total_gpus);
    for (int k = 0; k < len; k++) {
        const struct gs_openb_pod *o = &ex->workload.pods[seq[k]];
        struct gs_fgd_pod p = pod_of(o);
        arrived += total_of(o);
        int r = sim_place(&s, policy, &p, ex->shape[seq[k]]);
        if (r < 0) {
            rc = r;
            goto done;
        }
        if (r)
            out->placed++;
        else
            out->failed++;
        log_point(b, &s, arrived, total_gpus);
    }
    out->pods = len;
    out->arrived_milli = arrived;
    gs_fgd_frag_cache_sample(&s.frag, &fs);
    out->used_milli = total_gpus * GS_GPU_MILLI - fs.idle_milli;
    for (int i = 0; i < s.n; i++)
        if (s.pods_on[i] > out->max_pods_per_node)
            out->max_pods_per_node = s.pods_on[i];
    int ncols = (int)rint(tune * 100.0) + 1;
    finish_curve(b, ncols < GS_FGD_CURVE_MAX ? ncols : GS_FGD_CURVE_MAX, &out->curve);
done:
    gs_free(seq);
    gs_free(b);
    sim_free(&s);
    return rc;
}
