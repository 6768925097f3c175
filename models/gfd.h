/* gpusim: the node labels GPU feature discovery writes, as pure data.
 *
 * Follows NVIDIA/k8s-device-plugin's GFD (docs/gpu-feature-discovery/README.md "Generated
 * Labels", the internal/lm package) as summarised in ../shared/reference/gpu-operator.md §4.
 * Full-GPU labels only: the MIG single/mixed per-profile labels (gpu.multiprocessors,
 * mig-<profile>.count, ...) come with the MIG model. gpu.machine and gfd.timestamp are not
 * written (no machine type in a scenario; timestamps would break byte-exact traces).
 */
#ifndef GPUSIM_GFD_H
#define GPUSIM_GFD_H

#include <stdbool.h>

#include "models/catalog.h"
#include "models/world.h"

/* sharing strategy of the device-plugin config (GFD nvidia.com/gpu.sharing-strategy). */
enum gs_sharing { GS_SHARING_NONE = 0, GS_SHARING_TIME_SLICING, GS_SHARING_MPS };
/* "none", "time-slicing", "mps". */
const char *gs_sharing_name(enum gs_sharing s);

/* MIG strategy (ClusterPolicy mig.strategy, device-plugin flags.migStrategy). */
enum gs_mig_strategy { GS_MIG_NONE = 0, GS_MIG_SINGLE, GS_MIG_MIXED };
/* "none", "single", "mixed". */
const char *gs_mig_strategy_name(enum gs_mig_strategy m);

struct gs_gfd_input {
    const struct gs_gpu_product *product; /* catalog entry; NULL for a product outside the catalog */
    const char *product_name;   /* the pool's gpu.product, used when `product` is NULL (borrowed) */
    int gpu_count;              /* physical GPUs of the node (>= 0) */
    const char *driver_version; /* NVML driver version, "550.90.07"; NULL or "": no cuda.* labels */
    enum gs_sharing sharing;
    int replicas;               /* per-GPU replicas of the sharing config (1 without sharing; < 1 counts as 1) */
    bool renamed;               /* the shared resource is renamed (renameByDefault or `rename`), so the
                                 * product label gets no -SHARED suffix */
    enum gs_mig_strategy mig_strategy;
};

/* Set the GFD labels for `in` into `out` (gs_labels_set, copies into arena `a`); labels
 * already in `out` with other keys are left alone. Written, all as strings:
 *   nvidia.com/gpu.product        product (+ "-SHARED" when replicas > 1 and not renamed)
 *   nvidia.com/gpu.count          gpu_count
 *   nvidia.com/gpu.replicas       replicas (the per-GPU value, as GFD's resource.go writes it)
 *   nvidia.com/gpu.sharing-strategy
 *   nvidia.com/gpu.mode           "compute"
 *   nvidia.com/mps.capable        "true" only with MPS sharing
 *   nvidia.com/vgpu.present       "false"
 *   nvidia.com/mig.strategy       only when not none
 * and when the product is in the catalog:
 *   nvidia.com/gpu.memory, nvidia.com/gpu.family, nvidia.com/gpu.compute.major/.minor,
 *   nvidia.com/mig.capable
 * and when driver_version parses as digits separated by dots ("550.90.07"; a branch "550"
 * gives only what it has):
 *   nvidia.com/cuda.driver-version.full/.major/.minor/.revision and the deprecated
 *   nvidia.com/cuda.driver.major/.minor/.rev (revision kept as written: "03"),
 *   nvidia.com/cuda.runtime-version.full/.major/.minor and the deprecated
 *   nvidia.com/cuda.runtime.major/.minor when gs_gfd_cuda_version knows the branch.
 * Returns 0, GS_EINVAL (in == NULL, or no product name at all) or GS_ENOMEM. */
int gs_gfd_labels(const struct gs_gfd_input *in, struct gs_labels *out, struct gs_arena *a);

/* GFD's product string for an NVML name (DP internal/lm sanitise): characters outside
 * [A-Za-z0-9-_. ] dropped, runs of spaces turned into one '-', leading and trailing spaces
 * dropped ("NVIDIA A100 80GB PCIe" -> "NVIDIA-A100-80GB-PCIe"). Writes at most `size` bytes
 * with the NUL; returns the length it needed (as snprintf). */
int gs_gfd_sanitize(const char *nvml_name, char *out, int size);

/* The CUDA driver API version (NVML cudaDriverVersion, what GFD calls cuda.runtime-version) a
 * driver branch supports, as "major.minor", from the branch (the first number of
 * `driver_version`); NULL when unknown. Mapping (nvidia-smi "CUDA Version" per branch): 418 10.1,
 * 440 10.2, 450 11.0, 455 11.1, 460 11.2, 465 11.3, 470 11.4, 495 11.5, 510 11.6, 515 11.7,
 * 520 11.8, 525 12.0, 530 12.1, 535 12.2 (reference §4 example), 545 12.3, 550 12.4, 555 12.5,
 * 560 12.6, 565 12.7, 570 12.8, 575 12.9, 580 13.0, 590 13.1, 595 13.2. Only 535 -> 12.2 is in
 * the reference; the rest are from CUDA release notes as remembered (unverified), 590 and
 * 595 least certain. Static storage. */
const char *gs_gfd_cuda_version(const char *driver_version);

#endif
