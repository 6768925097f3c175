/* gpusim: one owner per physical GPU when a node runs both the device plugin and the DRA
 * driver. The rule and why are in models/dra/dra.h ("DECISION"); Kubernetes itself does
 * not coordinate the kubelet's device manager and DRA, so this is gpusim's bookkeeping. */
#include <string.h>

#include "models/dra/dra.h"

int gs_gpu_ledger_init(struct gs_gpu_ledger *l, int ngpus)
{
    if (!l || ngpus < 0 || ngpus > GS_DRA_MAX_GPUS)
        return GS_EINVAL;
    memset(l, 0, sizeof *l);
    l->ngpus = ngpus;
    return 0;
}

int gs_gpu_ledger_dp_take(struct gs_gpu_ledger *l, int count, int *idx)
{
    if (count < 0 || (count > 0 && !idx))
        return GS_EINVAL;
    if (gs_gpu_ledger_dp_free(l) < count)
        return GS_ERANGE;
    int k = 0;
    for (int g = 0; g < l->ngpus && k < count; g++)
        if (l->holder[g] == GS_GPU_FREE) {
            l->holder[g] = GS_GPU_HELD_DP;
            idx[k++] = g;
        }
    return 0;
}

int gs_gpu_ledger_dp_release(struct gs_gpu_ledger *l, const int *idx, int n)
{
    for (int i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= l->ngpus || l->holder[idx[i]] != GS_GPU_HELD_DP)
            return GS_EINVAL;
    for (int i = 0; i < n; i++)
        l->holder[idx[i]] = GS_GPU_FREE;
    return 0;
}

int gs_gpu_ledger_dp_retake(struct gs_gpu_ledger *l, const int *idx, int n)
{
    for (int i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= l->ngpus || l->holder[idx[i]] != GS_GPU_FREE)
            return GS_EINVAL;
    for (int i = 0; i < n; i++)
        l->holder[idx[i]] = GS_GPU_HELD_DP;
    return 0;
}

/* The GPU of result i, or -1 when the device is unknown or not on a GPU of this ledger. */
static int result_gpu(const struct gs_gpu_ledger *l, const struct gs_dra_node_view *v,
                      const struct gs_dra_device_result *r)
{
    const struct gs_dra_device *d = gs_dra_node_device(v, r->index, NULL);
    return d && d->gpu >= 0 && d->gpu < l->ngpus ? d->gpu : -1;
}

int gs_gpu_ledger_dra_take(struct gs_gpu_ledger *l, const struct gs_dra_node_view *v,
                           const struct gs_dra_allocation *a)
{
    for (int i = 0; i < a->nresults; i++) {
        int g = result_gpu(l, v, &a->results[i]);
        if (g >= 0 && l->holder[g] == GS_GPU_HELD_DP)
            return GS_EINVAL;
    }
    for (int i = 0; i < a->nresults; i++) {
        int g = result_gpu(l, v, &a->results[i]);
        if (g >= 0) {
            l->holder[g] = GS_GPU_HELD_DRA;
            l->dra_devices[g]++;
        }
    }
    return 0;
}

void gs_gpu_ledger_dra_release(struct gs_gpu_ledger *l, const struct gs_dra_node_view *v,
                               const struct gs_dra_allocation *a)
{
    for (int i = 0; i < a->nresults; i++) {
        int g = result_gpu(l, v, &a->results[i]);
        if (g < 0 || l->holder[g] != GS_GPU_HELD_DRA)
            continue;
        if (--l->dra_devices[g] <= 0) {
            l->dra_devices[g] = 0;
            l->holder[g] = GS_GPU_FREE;
        }
    }
}

static int count(const struct gs_gpu_ledger *l, int holder)
{
    int n = 0;
    for (int g = 0; g < l->ngpus; g++)
        n += l->holder[g] == holder;
    return n;
}

int gs_gpu_ledger_dp_free(const struct gs_gpu_ledger *l) { return count(l, GS_GPU_FREE); }
int gs_gpu_ledger_dra_held(const struct gs_gpu_ledger *l) { return count(l, GS_GPU_HELD_DRA); }

void gs_gpu_ledger_block(const struct gs_gpu_ledger *l, const struct gs_dra_node_view *v, bool *in_use)
{
    int n = gs_dra_node_device_count(v);
    for (int i = 0; in_use && i < n; i++) {
        const struct gs_dra_device *d = gs_dra_node_device(v, i, NULL);
        if (d && d->gpu >= 0 && d->gpu < l->ngpus && l->holder[d->gpu] == GS_GPU_HELD_DP)
            in_use[i] = true;
    }
}
