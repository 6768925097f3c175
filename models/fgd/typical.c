/* gpusim: the FGD typical-pod set (kubernetes-scheduler-simulator pkg/utils/frag.go
 * GetTypicalPods, pkg/type/resource.go TargetPodList.Less; see fgd.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "models/fgd/fgd.h"

struct key {
    int64_t cpu;
    int milli, num;
    const char *text; /* the raw gpu_spec */
    uint32_t mask;
    int64_t count;
};

static int64_t nonzero_cpu(int64_t cpu) { return cpu > 0 ? cpu : GS_FGD_DEFAULT_MILLI_CPU; }

/* PodResource.Less: cpu, then gpu milli, then gpu number, then the gpu_spec text. */
static int key_less(const struct key *a, const struct key *b)
{
    if (a->cpu != b->cpu)
        return a->cpu < b->cpu ? -1 : 1;
    if (a->milli != b->milli)
        return a->milli < b->milli ? -1 : 1;
    if (a->num != b->num)
        return a->num < b->num ? -1 : 1;
    return strcmp(a->text, b->text);
}

static int by_key(const void *x, const void *y) { return key_less(x, y); }

/* sort.Reverse(TargetPodList): count descending, then the larger key first. */
static int by_count_desc(const void *x, const void *y)
{
    const struct key *a = x, *b = y;
    if (a->count != b->count)
        return a->count > b->count ? -1 : 1;
    return -key_less(a, b);
}

void gs_fgd_typical_free(struct gs_fgd_typical *t)
{
    if (!t)
        return;
    for (int i = 0; i < t->n; i++)
        gs_free(t->pods[i].spec);
    gs_free(t->pods);
    memset(t, 0, sizeof *t);
}

int gs_fgd_typical_build(const struct gs_openb_workload *w, double threshold_pct, struct gs_fgd_typical *out)
{
    memset(out, 0, sizeof *out);
    if (w->n <= 0 || !(threshold_pct > 0 && threshold_pct <= 100))
        return GS_EINVAL;
    struct gs_fgd_typical_key *in = gs_malloc((size_t)w->n * sizeof *in);
    if (!in)
        return GS_ENOMEM;
    for (int i = 0; i < w->n; i++) {
        const struct gs_openb_pod *p = &w->pods[i];
        in[i] = (struct gs_fgd_typical_key){p->cpu_milli, p->gpu_milli, p->num_gpu, p->spec_mask, w->specs[p->spec], 1};
    }
    int rc = gs_fgd_typical_build_keys(in, w->n, threshold_pct, out);
    gs_free(in);
    return rc;
}

int gs_fgd_typical_build_keys(const struct gs_fgd_typical_key *in, int n, double threshold_pct,
                              struct gs_fgd_typical *out)
{
    memset(out, 0, sizeof *out);
    if (n <= 0 || !(threshold_pct > 0 && threshold_pct <= 100))
        return GS_EINVAL;
    int64_t npods = 0;
    for (int i = 0; i < n; i++) {
        if (in[i].count < 0 || in[i].count > INT64_MAX / 4 - npods)
            return GS_EINVAL;
        npods += in[i].count;
    }
    if (npods <= 0)
        return GS_EINVAL;
    struct key *k = gs_malloc((size_t)n * sizeof *k);
    if (!k)
        return GS_ENOMEM;
    int m = 0;
    for (int i = 0; i < n; i++)
        if (in[i].count > 0)
            k[m++] = (struct key){nonzero_cpu(in[i].cpu_milli), in[i].gpu_milli, in[i].num_gpu,
                                  in[i].spec ? in[i].spec : "", in[i].spec_mask, in[i].count};
    qsort(k, (size_t)m, sizeof *k, by_key);
    int nk = 0;
    for (int i = 0; i < m; i++) {
        if (nk > 0 && key_less(&k[nk - 1], &k[i]) == 0)
            k[nk - 1].count += k[i].count;
        else
            k[nk++] = k[i];
    }
    qsort(k, (size_t)nk, sizeof *k, by_count_desc);
    double total = (double)npods;
    double expected = threshold_pct * total / 100.0;
    int64_t cum = 0;
    int chosen = 0;
    while ((double)cum < expected && chosen < nk)
        cum += k[chosen++].count;
    out->pods = gs_calloc((size_t)chosen, sizeof *out->pods);
    if (!out->pods) {
        gs_free(k);
        return GS_ENOMEM;
    }
    out->nkeys = nk;
    out->npods = npods;
    out->covered = cum;
    for (int i = 0; i < chosen; i++) {
        struct gs_fgd_typical_pod *tp = &out->pods[i];
        const char *s = k[i].text;
        tp->spec = gs_malloc(strlen(s) + 1);
        if (!tp->spec) {
            out->n = i;
            gs_fgd_typical_free(out);
            gs_free(k);
            return GS_ENOMEM;
        }
        strcpy(tp->spec, s);
        tp->cpu_milli = k[i].cpu;
        tp->gpu_milli = k[i].milli;
        tp->num_gpu = k[i].num;
        tp->spec_mask = k[i].mask;
        tp->count = k[i].count;
        /* GetTypicalPods: count / total, then divided by cum / total after the cut. */
        tp->freq = ((double)k[i].count / total) / ((double)cum / total);
        tp->milli_class = -1;
    }
    out->n = chosen;
    gs_free(k);
    /* Distinct per-GPU milli values, ascending, so a node's fitting-GPU counts are computed
     * once per value rather than once per typical pod. */
    for (int m = 1; m <= GS_GPU_MILLI; m++)
        for (int i = 0; i < out->n; i++)
            if (out->pods[i].gpu_milli == m) {
                out->milli[out->nmilli++] = m;
                break;
            }
    for (int i = 0; i < out->n; i++)
        for (int c = 0; c < out->nmilli; c++)
            if (out->milli[c] == out->pods[i].gpu_milli)
                out->pods[i].milli_class = c;
    return 0;
}
