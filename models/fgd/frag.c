/* gpusim: FGD node state and fragmentation (kubernetes-scheduler-simulator pkg/utils/frag.go
 * NodeGpuShareFragAmount, GetNodePodFrag, CanNodeHostPodOnGpuMemory,
 * GetGpuFragMilliByNodeResAndPodRes, FragAmountSumExceptQ3; see fgd.h). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "models/fgd/fgd.h"

int gs_fgd_node_init(struct gs_fgd_node *n, int64_t cpu_milli, int64_t memory_mib, int ngpu, int model)
{
    memset(n, 0, sizeof *n);
    n->cpu_left = n->cpu_cap = cpu_milli;
    n->mem_left = n->mem_cap = memory_mib;
    n->model = ngpu > 0 ? model : -1;
    return gs_gpushare_init(&n->gpu, ngpu);
}

static int tag_of(const struct gs_fgd_pod *p)
{
    if (p->num_gpu == 0)
        return -1;
    if (p->num_gpu == 1 && p->gpu_milli < GS_GPU_MILLI)
        return 0;
    return p->num_gpu;
}

int gs_fgd_node_account(struct gs_fgd_node *n, const struct gs_fgd_pod *p, const struct gs_gpushare_alloc *a,
                        bool add)
{
    int tag = tag_of(p);
    if (tag > GS_GPUS_MAX)
        return GS_EINVAL;
    if (add) {
        if (tag >= 0 && n->tag_count[tag] == UINT16_MAX)
            return GS_EINVAL;
        int rc = gs_gpushare_commit(&n->gpu, a);
        if (rc)
            return rc;
        n->cpu_left -= p->cpu_milli;
        n->mem_left -= p->memory_mib;
        if (tag >= 0)
            n->tag_count[tag]++;
    } else {
        if (tag >= 0 && n->tag_count[tag] == 0)
            return GS_EINVAL;
        int rc = gs_gpushare_release(&n->gpu, a);
        if (rc)
            return rc;
        n->cpu_left += p->cpu_milli;
        n->mem_left += p->memory_mib;
        if (tag >= 0)
            n->tag_count[tag]--;
    }
    return 0;
}

/* The categories of FragRatioDataMap, in its index order. */
enum { Q1_LACK_BOTH, Q2_LACK_GPU, Q3_SATISFIED, Q4_LACK_CPU, XL_SATISFIED, XR_LACK_CPU, NO_ACCESS, NCAT };

double gs_fgd_frag_of(const struct gs_fgd_typical *t, int64_t cpu_left, int model, const int16_t *free_milli,
                      int ngpu)
{
    int64_t total = 0;
    for (int g = 0; g < ngpu; g++)
        total += free_milli[g];
    if (total == 0)
        return 0.0; /* every category is freq * 0 */
    /* Per distinct per-GPU milli m: how many GPUs have free >= m, and the free milli on the
     * GPUs with free < m (the Q3 part booked as Q2). */
    int fit[GS_GPU_MILLI];
    int64_t below[GS_GPU_MILLI];
    for (int c = 0; c < t->nmilli; c++) {
        int m = t->milli[c], k = 0;
        int64_t b = 0;
        for (int g = 0; g < ngpu; g++) {
            if (free_milli[g] >= m)
                k++;
            else
                b += free_milli[g];
        }
        fit[c] = k;
        below[c] = b;
    }
    double cat[NCAT] = {0};
    double dt = (double)total;
    for (int i = 0; i < t->n; i++) {
        const struct gs_fgd_typical_pod *tp = &t->pods[i];
        double f = tp->freq;
        bool cpu_ok = cpu_left >= tp->cpu_milli;
        if (tp->gpu_milli == 0) {
            cat[cpu_ok ? XL_SATISFIED : XR_LACK_CPU] += f * dt;
            continue;
        }
        if (!gs_openb_model_allowed(tp->spec_mask, model)) {
            cat[NO_ACCESS] += f * dt;
            continue;
        }
        int c = tp->milli_class;
        /* CanNodeHostPodOnGpuMemory needs max(num_gpu, 1) GPUs with enough free milli. */
        bool gpu_ok = fit[c] >= (tp->num_gpu > 0 ? tp->num_gpu : 1);
        if (gpu_ok && cpu_ok) {
            cat[Q2_LACK_GPU] += f * (double)below[c];
            cat[Q3_SATISFIED] += f * (double)(total - below[c]);
        } else if (gpu_ok) {
            cat[Q4_LACK_CPU] += f * dt;
        } else {
            cat[cpu_ok ? Q2_LACK_GPU : Q1_LACK_BOTH] += f * dt;
        }
    }
    double out = 0.0;
    for (int k = 0; k < NCAT; k++)
        if (k != Q3_SATISFIED)
            out += cat[k];
    return out;
}

double gs_fgd_node_frag(const struct gs_fgd_typical *t, const struct gs_fgd_node *n)
{
    return gs_fgd_frag_of(t, n->cpu_left, n->model, n->gpu.free_milli, n->gpu.ngpu);
}

static void fill_sample(double frag, int64_t idle, int64_t gpus, struct gs_fgd_frag_sample *out)
{
    out->frag_milli = frag;
    out->idle_milli = idle;
    out->total_gpus = gpus;
    out->frag_gpus = frag / 1000.0;
    out->frag_pct = gpus > 0 ? 100.0 * frag / 1000.0 / (double)gpus : 0.0;
    out->frag_ratio_pct = idle > 0 ? 100.0 * frag / (double)idle : 0.0;
}

int gs_fgd_cluster_frag(const struct gs_fgd_typical *t, const struct gs_fgd_node *nodes, int n,
                        struct gs_fgd_frag_sample *out)
{
    double frag = 0.0;
    int64_t idle = 0, gpus = 0;
    for (int i = 0; i < n; i++) {
        frag += gs_fgd_node_frag(t, &nodes[i]);
        idle += gs_gpushare_free_total(&nodes[i].gpu);
        gpus += nodes[i].gpu.ngpu;
    }
    fill_sample(frag, idle, gpus, out);
    return 0;
}

int gs_fgd_frag_cache_init(struct gs_fgd_frag_cache *c, const struct gs_fgd_typical *t,
                           const struct gs_fgd_node *nodes, int n)
{
    memset(c, 0, sizeof *c);
    int need = n > 0 ? n : 1;
    if (GS_GROW(c->node_frag, c->frag_cap, need) || GS_GROW(c->node_idle, c->idle_cap, need) ||
        GS_GROW(c->node_gpus, c->gpus_cap, need)) {
        gs_fgd_frag_cache_free(c);
        return GS_ENOMEM;
    }
    c->n = n;
    for (int i = 0; i < n; i++) {
        c->node_frag[i] = gs_fgd_node_frag(t, &nodes[i]);
        c->node_idle[i] = gs_gpushare_free_total(&nodes[i].gpu);
        c->node_gpus[i] = nodes[i].gpu.ngpu;
        c->frag_milli += c->node_frag[i];
        c->idle_milli += c->node_idle[i];
        c->total_gpus += nodes[i].gpu.ngpu;
    }
    return 0;
}

int gs_fgd_frag_cache_grow(struct gs_fgd_frag_cache *c, const struct gs_fgd_typical *t,
                           const struct gs_fgd_node *nodes, int n)
{
    if (n <= c->n)
        return 0;
    if (GS_GROW(c->node_frag, c->frag_cap, n) || GS_GROW(c->node_idle, c->idle_cap, n) ||
        GS_GROW(c->node_gpus, c->gpus_cap, n))
        return GS_ENOMEM;
    for (int i = c->n; i < n; i++) {
        c->node_frag[i] = gs_fgd_node_frag(t, &nodes[i]);
        c->node_idle[i] = gs_gpushare_free_total(&nodes[i].gpu);
        c->node_gpus[i] = nodes[i].gpu.ngpu;
        c->frag_milli += c->node_frag[i];
        c->idle_milli += c->node_idle[i];
        c->total_gpus += nodes[i].gpu.ngpu;
    }
    c->n = n;
    return 0;
}

void gs_fgd_frag_cache_update(struct gs_fgd_frag_cache *c, const struct gs_fgd_typical *t,
                              const struct gs_fgd_node *nodes, int i)
{
    double f = gs_fgd_node_frag(t, &nodes[i]);
    int32_t idle = gs_gpushare_free_total(&nodes[i].gpu);
    c->frag_milli += f - c->node_frag[i];
    c->idle_milli += idle - c->node_idle[i];
    c->total_gpus += nodes[i].gpu.ngpu - c->node_gpus[i];
    c->node_frag[i] = f;
    c->node_idle[i] = idle;
    c->node_gpus[i] = nodes[i].gpu.ngpu;
}

void gs_fgd_frag_cache_sample(const struct gs_fgd_frag_cache *c, struct gs_fgd_frag_sample *out)
{
    fill_sample(c->frag_milli, c->idle_milli, c->total_gpus, out);
}

void gs_fgd_frag_cache_free(struct gs_fgd_frag_cache *c)
{
    if (!c)
        return;
    gs_free(c->node_frag);
    gs_free(c->node_idle);
    gs_free(c->node_gpus);
    memset(c, 0, sizeof *c);
}
