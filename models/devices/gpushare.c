/* gpusim: the fractional GPU share model (see gpushare.h). */
#include "models/devices/gpushare.h"

#include <string.h>

#include "base/error.h"

int gs_gpushare_init(struct gs_gpushare *g, int ngpu)
{
    memset(g, 0, sizeof *g);
    if (ngpu < 0 || ngpu > GS_GPUS_MAX)
        return GS_ERANGE;
    g->ngpu = ngpu;
    for (int i = 0; i < ngpu; i++)
        g->free_milli[i] = GS_GPU_MILLI;
    return 0;
}

int gs_gpushare_check_req(const struct gs_gpushare_req *r)
{
    if (r->num_gpu < 0 || r->num_gpu > GS_GPUS_MAX || r->gpu_milli < 0 || r->gpu_milli > GS_GPU_MILLI)
        return GS_EINVAL;
    if ((r->num_gpu == 0) != (r->gpu_milli == 0))
        return GS_EINVAL;
    if (r->gpu_milli > 0 && r->gpu_milli < GS_GPU_MILLI && r->num_gpu != 1)
        return GS_EINVAL;
    return 0;
}

bool gs_gpushare_is_share(const struct gs_gpushare_req *r)
{
    return r->num_gpu == 1 && r->gpu_milli > 0 && r->gpu_milli < GS_GPU_MILLI;
}

int gs_gpushare_free_total(const struct gs_gpushare *g)
{
    int t = 0;
    for (int i = 0; i < g->ngpu; i++)
        t += g->free_milli[i];
    return t;
}

int gs_gpushare_fully_free(const struct gs_gpushare *g)
{
    int n = 0;
    for (int i = 0; i < g->ngpu; i++)
        n += g->free_milli[i] == GS_GPU_MILLI;
    return n;
}

bool gs_gpushare_fits(const struct gs_gpushare *g, const struct gs_gpushare_req *r)
{
    if (gs_gpushare_check_req(r))
        return false;
    if (r->num_gpu == 0)
        return true;
    int n = 0;
    for (int i = 0; i < g->ngpu; i++)
        if (g->free_milli[i] >= r->gpu_milli && ++n >= r->num_gpu)
            return true;
    return false;
}

int gs_gpushare_choose(const struct gs_gpushare *g, const struct gs_gpushare_req *r, int gpu,
                       struct gs_gpushare_alloc *out)
{
    memset(out, 0, sizeof *out);
    if (gs_gpushare_check_req(r) || gpu < -1 || gpu >= GS_GPUS_MAX)
        return GS_EINVAL;
    out->milli = r->gpu_milli;
    if (r->num_gpu == 0)
        return gpu == -1 ? 0 : GS_EINVAL;
    if (gs_gpushare_is_share(r)) {
        if (gpu >= 0) {
            if (gpu >= g->ngpu)
                return GS_EINVAL;
            if (g->free_milli[gpu] < r->gpu_milli)
                return GS_ERANGE;
            out->n = 1;
            out->gpu[0] = (uint8_t)gpu;
            return 0;
        }
        int best = -1; /* least free milli that fits; strict < keeps the lowest index on ties */
        for (int i = 0; i < g->ngpu; i++)
            if (g->free_milli[i] >= r->gpu_milli && (best < 0 || g->free_milli[i] < g->free_milli[best]))
                best = i;
        if (best < 0)
            return GS_ERANGE;
        out->n = 1;
        out->gpu[0] = (uint8_t)best;
        return 0;
    }
    if (gpu != -1)
        return GS_EINVAL;
    for (int i = 0; i < g->ngpu && out->n < r->num_gpu; i++)
        if (g->free_milli[i] == GS_GPU_MILLI)
            out->gpu[out->n++] = (uint8_t)i;
    if (out->n < r->num_gpu) {
        out->n = 0;
        return GS_ERANGE;
    }
    return 0;
}

/* Add sign * a->milli (sign -1 takes, +1 gives back) to each GPU of `a`, all or nothing: GS_EINVAL,
 * g unchanged, when `a` is malformed, names a GPU g lacks, or a GPU would go below 0 (taking) or
 * above GS_GPU_MILLI (giving back). */
static int apply(struct gs_gpushare *g, const struct gs_gpushare_alloc *a, int sign)
{
    if (a->n < 0 || a->n > GS_GPUS_MAX || a->milli < 0 || a->milli > GS_GPU_MILLI)
        return GS_EINVAL;
    int16_t next[GS_GPUS_MAX];
    memcpy(next, g->free_milli, sizeof next);
    for (int k = 0; k < a->n; k++) {
        int i = a->gpu[k];
        if (i >= g->ngpu)
            return GS_EINVAL;
        int v = next[i] + sign * a->milli;
        if (sign < 0 ? v < 0 : v > GS_GPU_MILLI)
            return GS_EINVAL;
        next[i] = (int16_t)v;
    }
    memcpy(g->free_milli, next, sizeof next);
    return 0;
}

int gs_gpushare_commit(struct gs_gpushare *g, const struct gs_gpushare_alloc *a)
{
    return apply(g, a, -1);
}

int gs_gpushare_allocate(struct gs_gpushare *g, const struct gs_gpushare_req *r, int gpu,
                         struct gs_gpushare_alloc *out)
{
    int rc = gs_gpushare_choose(g, r, gpu, out);
    return rc ? rc : gs_gpushare_commit(g, out);
}

int gs_gpushare_release(struct gs_gpushare *g, const struct gs_gpushare_alloc *a)
{
    return apply(g, a, +1);
}
