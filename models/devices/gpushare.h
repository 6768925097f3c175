/* gpusim: the fractional GPU share model (Alibaba's GPU sharing as the FGD paper models it).
 *
 * A node has up to GS_GPUS_MAX GPUs; each GPU has GS_GPU_MILLI (1000) milli units. A pod asks
 * either for `num_gpu` whole GPUs (gpu_milli == 1000), or for one share (num_gpu == 1,
 * 0 < gpu_milli < 1000) on a single GPU, or for no GPU (num_gpu == 0, gpu_milli == 0).
 *
 * Rules (kubernetes-scheduler-simulator pkg/type/resource.go AllocateExclusiveGpuId and
 * pkg/simulator/plugin/open_gpu_share.go allocateGpuIdBasedOnBestFit):
 * - whole-GPU pods take fully free GPUs only, lowest index first;
 * - a share goes to the best-fitting GPU (the least free milli that still fits; ties: the
 *   lowest index), unless the caller names the GPU (FGD and Random choose it themselves).
 *
 * Plain data, no allocation: struct gs_gpushare can be embedded in any node struct.
 * Not thread-safe per node (no internal locking); distinct nodes are independent.
 */
#ifndef GPUSIM_GPUSHARE_H
#define GPUSIM_GPUSHARE_H

#include <stdbool.h>
#include <stdint.h>

#define GS_GPUS_MAX 16
#define GS_GPU_MILLI 1000

/* The GPUs of one node: free milli per GPU, by device index. */
struct gs_gpushare {
    int ngpu;                        /* 0..GS_GPUS_MAX */
    int16_t free_milli[GS_GPUS_MAX]; /* 0..GS_GPU_MILLI each; entries >= ngpu are 0 */
};

/* What a pod asks for. */
struct gs_gpushare_req {
    int num_gpu;   /* number of GPUs, 0..GS_GPUS_MAX */
    int gpu_milli; /* milli per GPU: 0 (no GPU), 1..999 (a share, num_gpu == 1) or 1000 */
};

/* Where a pod's GPU request went: `n` GPUs (indices in gpu[]), `milli` taken from each. */
struct gs_gpushare_alloc {
    int n;
    int milli;
    uint8_t gpu[GS_GPUS_MAX];
};

/* Set `g` to `ngpu` fully free GPUs. Returns 0, or GS_ERANGE when ngpu is not in
 * 0..GS_GPUS_MAX (then `g` is left with 0 GPUs). */
int gs_gpushare_init(struct gs_gpushare *g, int ngpu);

/* 0 when `r` is a valid request (see the header comment), else GS_EINVAL. */
int gs_gpushare_check_req(const struct gs_gpushare_req *r);

/* True for a share request (num_gpu == 1 and 0 < gpu_milli < 1000). */
bool gs_gpushare_is_share(const struct gs_gpushare_req *r);

/* Total free milli on the node, and the number of fully free GPUs. */
int gs_gpushare_free_total(const struct gs_gpushare *g);
int gs_gpushare_fully_free(const struct gs_gpushare *g);

/* True when the request fits: at least num_gpu GPUs each with free >= gpu_milli (a request
 * for no GPU always fits). An invalid request never fits.
 * Follows CanNodeHostPodOnGpuMemory (pkg/utils/frag.go) and the Open-Gpu-Share filter. */
bool gs_gpushare_fits(const struct gs_gpushare *g, const struct gs_gpushare_req *r);

/* Choose the GPUs for `r` without changing `g`. `gpu` >= 0 names the GPU for a share (it must
 * fit); -1 means the default rule (best fit for a share, lowest fully free for whole GPUs);
 * a named GPU for a non-share request is GS_EINVAL. Returns 0 and fills *out, GS_EINVAL for
 * an invalid request or index, GS_ERANGE when the request does not fit. */
int gs_gpushare_choose(const struct gs_gpushare *g, const struct gs_gpushare_req *r, int gpu,
                       struct gs_gpushare_alloc *out);

/* Take `a` from `g` (as chosen by gs_gpushare_choose). Returns 0, or GS_EINVAL (and `g`
 * unchanged) when an index is out of range or a GPU has too little free milli. */
int gs_gpushare_commit(struct gs_gpushare *g, const struct gs_gpushare_alloc *a);

/* gs_gpushare_choose then gs_gpushare_commit. Same returns; `g` unchanged on error. */
int gs_gpushare_allocate(struct gs_gpushare *g, const struct gs_gpushare_req *r, int gpu,
                         struct gs_gpushare_alloc *out);

/* Give `a` back. Returns 0, or GS_EINVAL (and `g` unchanged) when an index is out of range
 * or a GPU would exceed GS_GPU_MILLI free. */
int gs_gpushare_release(struct gs_gpushare *g, const struct gs_gpushare_alloc *a);

#endif
