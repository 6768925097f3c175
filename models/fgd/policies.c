/* gpusim: the six FGD-paper policies as node filters and scorers (kubernetes-scheduler-simulator
 * pkg/simulator/plugin/{random,dot_product,gpu_clustering,gpu_packing,best_fit,fgd}_score.go,
 * plugin_utils.go, open_gpu_share.go; pkg/type/resource.go; see fgd.h). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "models/fgd/fgd.h"

static const char *const policy_names[GS_FGD_NPOLICIES] = {"Random", "DotProd", "GpuClustering",
                                                           "GpuPacking", "BestFit", "FGD"};

const char *gs_fgd_policy_name(enum gs_fgd_policy p)
{
    return (unsigned)p < GS_FGD_NPOLICIES ? policy_names[p] : "?";
}

int gs_fgd_policy_parse(const char *s)
{
    for (int i = 0; i < GS_FGD_NPOLICIES; i++)
        if (strcasecmp(s, policy_names[i]) == 0)
            return i;
    if (strcasecmp(s, "Clustering") == 0)
        return GS_FGD_CLUSTERING;
    if (strcasecmp(s, "Packing") == 0)
        return GS_FGD_PACKING;
    if (strcasecmp(s, "DotProduct") == 0)
        return GS_FGD_DOTPROD;
    return -1;
}

static int64_t nz_cpu(const struct gs_fgd_pod *p) { return p->cpu_milli > 0 ? p->cpu_milli : GS_FGD_DEFAULT_MILLI_CPU; }

static struct gs_gpushare_req req_of(const struct gs_fgd_pod *p)
{
    return (struct gs_gpushare_req){p->num_gpu, p->gpu_milli};
}

bool gs_fgd_filter(const struct gs_fgd_node *n, const struct gs_fgd_pod *p)
{
    /* NodeResourcesFit: CPU and memory. */
    if (p->cpu_milli > n->cpu_left || p->memory_mib > n->mem_left)
        return false;
    /* Open-Gpu-Share: a pod without GPU passes; a GPU pod needs GPUs, an allowed model and
     * room on its GPUs. */
    if (p->gpu_milli <= 0)
        return true;
    if (n->gpu.ngpu == 0 || !gs_openb_model_allowed(p->spec_mask, n->model))
        return false;
    struct gs_gpushare_req r = req_of(p);
    return gs_gpushare_fits(&n->gpu, &r);
}

int gs_fgd_score_dotprod(const struct gs_fgd_node *n, const struct gs_fgd_pod *p)
{
    int64_t cpu = nz_cpu(p);
    if (n->cpu_left < cpu) /* ToVirtualNodeResourceList: no candidate */
        return 0;
    /* MergeGpuDim + NormByMax: [cpu left, gpu milli left] . [cpu, gpu milli] over [128000, 8000] */
    double nv0 = (double)n->cpu_left / GS_FGD_MAX_SPEC_CPU;
    double nv1 = (double)gs_gpushare_free_total(&n->gpu) / GS_FGD_MAX_SPEC_GPU;
    double pv0 = (double)cpu / GS_FGD_MAX_SPEC_CPU;
    double pv1 = (double)((int64_t)p->gpu_milli * p->num_gpu) / GS_FGD_MAX_SPEC_GPU;
    double dot = 0.0;
    dot += nv0 * pv0;
    dot += nv1 * pv1;
    double s = dot / 2.0;
    s = 1.0 - s;
    return (int)(int64_t)((double)GS_FGD_MAX_SCORE * s);
}

int gs_fgd_score_clustering(const struct gs_fgd_node *n, const struct gs_fgd_pod *p)
{
    if (p->num_gpu == 0)
        return 0;
    if (!gs_openb_model_allowed(p->spec_mask, n->model))
        return 0;
    int tag = (p->num_gpu == 1 && p->gpu_milli < GS_GPU_MILLI) ? 0 : p->num_gpu;
    int ntags = 0;
    for (int k = 0; k <= GS_GPUS_MAX; k++)
        ntags += n->tag_count[k] > 0;
    int64_t used = GS_FGD_MAX_SPEC_GPU - gs_gpushare_free_total(&n->gpu);
    int64_t base = (int64_t)(GS_FGD_MAX_SCORE / 4) * used / GS_FGD_MAX_SPEC_GPU;
    if (n->tag_count[tag] > 0)
        return (int)(base + (ntags == 1 ? GS_FGD_MAX_SCORE * 3 / 4 : GS_FGD_MAX_SCORE * 2 / 4));
    return (int)(base + (ntags == 0 ? GS_FGD_MAX_SCORE / 4 : 0));
}

int gs_fgd_score_packing(const struct gs_fgd_node *n, const struct gs_fgd_pod *p)
{
    if (p->gpu_milli <= 0)
        return 0;
    if (!gs_openb_model_allowed(p->spec_mask, n->model))
        return 0;
    const struct gs_gpushare *g = &n->gpu;
    int fully = gs_gpushare_fully_free(g);
    if (fully == g->ngpu) { /* every GPU free */
        int s = GS_FGD_MAX_SCORE / 3 - fully;
        return s > fully ? s : fully;
    }
    /* SortedMilliGpuLeftIndexList(true): ascending free milli, stable by index. */
    int idx[GS_GPUS_MAX];
    for (int i = 0; i < g->ngpu; i++) {
        int j = i;
        while (j > 0 && g->free_milli[idx[j - 1]] > g->free_milli[i]) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
    int need = p->num_gpu, full_used = 0, nuse = 0;
    int use[GS_GPUS_MAX];
    for (int k = 0; k < g->ngpu && need > 0; k++) {
        int i = idx[k];
        if (p->gpu_milli <= g->free_milli[i]) {
            need--;
            use[nuse++] = i;
            if (g->free_milli[i] == GS_GPU_MILLI)
                full_used++;
        }
    }
    if (need != 0) /* the authors return an error status; the filter prevents it */
        return 0;
    if (full_used > 0) {
        int s = GS_FGD_MAX_SCORE / 2 - full_used;
        return s > GS_FGD_MAX_SCORE / 3 ? s : GS_FGD_MAX_SCORE / 3;
    }
    int64_t pct = 0;
    for (int k = 0; k < nuse; k++)
        pct += (int64_t)g->free_milli[use[k]] * 100 / GS_GPU_MILLI;
    int64_t s = GS_FGD_MAX_SCORE - pct / 10;
    return (int)(s > GS_FGD_MAX_SCORE / 2 ? s : GS_FGD_MAX_SCORE / 2);
}

int gs_fgd_score_bestfit_raw(const struct gs_fgd_node *n, const struct gs_fgd_pod *p)
{
    if (!gs_openb_model_allowed(p->spec_mask, n->model) && p->gpu_milli > 0)
        return 0;
    double free0 = (double)n->cpu_left, free1 = (double)gs_gpushare_free_total(&n->gpu);
    double req0 = (double)nz_cpu(p), req1 = (double)((int64_t)p->gpu_milli * p->num_gpu);
    if (free0 < req0 || free1 < req1) /* the authors return an error status; the filter prevents it */
        return 0;
    double s = 0.0;
    s += (free0 - req0) / GS_FGD_MAX_SPEC_CPU * 0.5;
    s += (free1 - req1) / GS_FGD_MAX_SPEC_GPU * 0.5;
    s = (1.0 - s) * (double)GS_FGD_MAX_SCORE;
    return (int)(int64_t)s;
}

void gs_fgd_normalize_scores(int64_t *scores, int n)
{
    if (n <= 0)
        return;
    int64_t hi = INT64_MIN + 1, lo = INT64_MAX;
    for (int i = 0; i < n; i++) {
        if (scores[i] > hi)
            hi = scores[i];
        if (scores[i] < lo)
            lo = scores[i];
    }
    int64_t range = hi - lo;
    for (int i = 0; i < n; i++)
        scores[i] = range == 0 ? 0 : (scores[i] - lo) * GS_FGD_MAX_SCORE / range;
}

static int fgd_score_of(double before, double after)
{
    double x = (before - after) / 1000.0;
    double sig = 1.0 / (1.0 + exp(-x));
    return (int)(int64_t)(sig * (double)GS_FGD_MAX_SCORE);
}

int gs_fgd_score_fgd(const struct gs_fgd_typical *t, const struct gs_fgd_node *n, double node_frag,
                     const struct gs_fgd_pod *p, int *gpu)
{
    *gpu = -1;
    if (p->cpu_milli == 0 && p->memory_mib == 0 && p->num_gpu == 0)
        return GS_FGD_MAX_SCORE; /* a pod without requests */
    if (!gs_openb_model_allowed(p->spec_mask, n->model) && p->gpu_milli > 0)
        return 0;
    const struct gs_gpushare *g = &n->gpu;
    int64_t cpu = nz_cpu(p);
    int16_t fm[GS_GPUS_MAX];
    memcpy(fm, g->free_milli, sizeof fm);
    if (p->num_gpu == 1 && p->gpu_milli < GS_GPU_MILLI) {
        int best = -1, best_score = 0;
        for (int i = 0; i < g->ngpu; i++) {
            if (g->free_milli[i] < p->gpu_milli)
                continue;
            /* A GPU with the same free milli as an earlier one gives the same node state up to
             * GPU order, hence the same score; the earlier index wins ties anyway. */
            bool seen = false;
            for (int j = 0; j < i && !seen; j++)
                seen = g->free_milli[j] == g->free_milli[i];
            if (seen)
                continue;
            fm[i] = (int16_t)(fm[i] - p->gpu_milli);
            double after = gs_fgd_frag_of(t, n->cpu_left - cpu, n->model, fm, g->ngpu);
            fm[i] = g->free_milli[i];
            int s = fgd_score_of(node_frag, after);
            if (best < 0 || s > best_score) {
                best = i;
                best_score = s;
            }
        }
        *gpu = best;
        return best_score;
    }
    /* NodeResource.Sub: CPU, then the pod's GPUs from the least sufficient ones (ascending free
     * milli, stable). When it does not fit, Sub leaves the node as it was (score 50). */
    if (n->cpu_left < cpu || g->ngpu < p->num_gpu)
        return fgd_score_of(node_frag, node_frag);
    int64_t cpu_after = n->cpu_left - cpu;
    if (p->num_gpu > 0) {
        int idx[GS_GPUS_MAX];
        for (int i = 0; i < g->ngpu; i++) {
            int j = i;
            while (j > 0 && g->free_milli[idx[j - 1]] > g->free_milli[i]) {
                idx[j] = idx[j - 1];
                j--;
            }
            idx[j] = i;
        }
        int need = p->num_gpu;
        for (int k = 0; k < g->ngpu && need > 0; k++)
            if (p->gpu_milli <= fm[idx[k]]) {
                fm[idx[k]] = (int16_t)(fm[idx[k]] - p->gpu_milli);
                need--;
            }
        /* need > 0 cannot pass the filter; Sub would return the partly subtracted state. */
    }
    double after = gs_fgd_frag_of(t, cpu_after, n->model, fm, g->ngpu);
    return fgd_score_of(node_frag, after);
}
