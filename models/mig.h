/* gpusim: Multi-Instance GPU (MIG) as pure data and functions: the profile tables of each
 * MIG-capable GPU (models/catalog/mig-profiles.yaml), layouts and whether they fit, mig-parted
 * configs (the operator's default ConfigMap and user files) applied to a node's GPUs, the
 * MIG manager's outcome, and what the device plugin and GFD make of a node's layouts under the
 * strategies none, single and mixed.
 *
 * Semantics: ../shared/reference/gpu-operator.md §3.3 (resource names), §4 (GFD labels), §5
 * (geometry, tables, mig-parted, reconfiguration). Loading is in sim/mig_catalog.c (YAML);
 * everything here is in models/mig.c and knows nothing of YAML, time or the world's nodes.
 * Units: memory in MiB (NVML's unit, as GFD labels it); slices are counts.
 */
#ifndef GPUSIM_MIG_H
#define GPUSIM_MIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/error.h"
#include "models/gfd.h"
#include "models/world.h"

#define GS_MIG_MAX_PROFILES 16 /* profiles per GPU */
#define GS_MIG_MAX_SLICES 8    /* memory slices per GPU */
#define GS_MIG_MAX_GPUS 64     /* GPUs per node that a config applies to */

/* ------------------------------------------------------------------ the catalog */

/* One GPU instance profile (nvidia-smi mig -lgip / -lgipp). */
struct gs_mig_profile {
    const char *name;      /* "1g.10gb", "1g.10gb+me" (arena) */
    int id;                /* -lgip profile ID (19 = 1g, 0 = 7g, ...) */
    int64_t memory_mib;    /* instance memory, MiB */
    int compute_slices;    /* the N of Ng */
    int memory_slices;     /* placement size */
    int max_instances;
    int starts[GS_MIG_MAX_SLICES]; /* allowed placement start offsets, memory slices, ascending */
    int nstarts;
    int multiprocessors;   /* SMs; 0 when unknown */
};

/* One MIG-capable GPU model. */
struct gs_mig_gpu {
    const char *name;             /* "A100-40GB" (arena) */
    const char *const *products;  /* GFD product strings (arena), nproducts >= 1 */
    int nproducts;
    const uint32_t *pci_ids;      /* mig-parted device IDs, 0x20B010DE = device 0x20B0, vendor 0x10DE */
    int npci;
    int compute_slices;           /* 7 (A30: 4) */
    int memory_slices;            /* 8 (A30: 4) */
    bool unverified;              /* IDs/placements not confirmed (B200) */
    const struct gs_mig_profile *profiles; /* arena, nprofiles <= GS_MIG_MAX_PROFILES */
    int nprofiles;
};

/* ---- mig-parted configs (NVIDIA/mig-parted api/spec/v1/spec.go) */

struct gs_mig_count {
    const char *profile;   /* profile name as written ("1g.10gb") (arena) */
    int count;             /* >= 0 */
};

/* One entry of a named config. */
struct gs_migparted_entry {
    const uint32_t *device_filter; /* NULL/0: every device */
    int nfilter;
    bool all_devices;              /* devices: all */
    const int *devices;            /* devices: [i, ...] when !all_devices */
    int ndevices;
    bool mig_enabled;
    const struct gs_mig_count *mig_devices; /* in document order */
    int nmig_devices;
};

struct gs_migparted_named {
    const char *name;                        /* "all-1g.10gb" (arena) */
    const struct gs_migparted_entry *entries; /* >= 1 */
    int nentries;
};

/* A mig-parted v1 file: `version: v1`, `mig-configs: {name: [entries]}`. */
struct gs_migparted_config {
    const struct gs_migparted_named *configs; /* document order */
    int nconfigs;
};

struct gs_mig_catalog {
    const struct gs_mig_gpu *gpus;             /* arena */
    int ngpus;
    struct gs_migparted_config defaults;       /* the operator's default-mig-parted-config */
};

/* The MIG model of a GPU product (GFD string, e.g. "NVIDIA-A100-SXM4-80GB"); NULL when the
 * product is not MIG-capable or not in the catalog. Borrowed from `c`. */
const struct gs_mig_gpu *gs_mig_gpu_for_product(const struct gs_mig_catalog *c, const char *product);
/* The MIG model by name ("A100-40GB"); NULL when absent. Borrowed. */
const struct gs_mig_gpu *gs_mig_gpu_by_name(const struct gs_mig_catalog *c, const char *name);
/* Index of profile `name` in g->profiles, or -1 (exact match: "1g.10gb+me", not "1g.10gb.me"). */
int gs_mig_profile_find(const struct gs_mig_gpu *g, const char *name);
/* A named config of `cfg`; NULL when absent. Borrowed. */
const struct gs_migparted_named *gs_migparted_find(const struct gs_migparted_config *cfg, const char *name);

/* ------------------------------------------------------------------ layouts */

/* The MIG state of one physical GPU: mode and how many instances of each profile (index into
 * gpu->profiles). A plain value (no pointers it owns). gpu == NULL: a GPU without MIG. */
struct gs_mig_layout {
    const struct gs_mig_gpu *gpu;      /* borrowed from the catalog */
    bool enabled;                      /* MIG mode */
    int count[GS_MIG_MAX_PROFILES];
};

/* One placed instance (for `gpusim describe` and tests). */
struct gs_mig_placement {
    int profile;   /* index into gpu->profiles */
    int start;     /* first memory slice */
};

/* Check that `l` fits its GPU: every count <= the profile's maxInstances, compute slices in total
 * <= the GPU's, and a placement exists for every instance on the memory-slice axis (exhaustive
 * search over the allowed starts, as NVML would find one). On success returns 0 and, when
 * `out` is not NULL, writes the placements (largest profiles first) into out[0..*nout) (room for
 * GS_MIG_MAX_SLICES). Otherwise returns GS_EINVAL and writes a reason to `why` (`whylen` bytes,
 * may be NULL), e.g.
 *   "8 x 1g.5gb exceeds the 7 instances A100-40GB allows"
 *   "3g.20gb x 2 + 4g.20gb x 1 needs 10 compute slices; A100-40GB has 7"
 *   "no placement of 2g.10gb x 3 + 3g.20gb x 1 fits the 8 memory slices of A100-40GB"
 * A layout with enabled == false and no instances is valid; instances with MIG disabled are not.
 * Follows reference §5.1 (placements) and NVML's CreateGpuInstance (insufficient resources). */
int gs_mig_layout_check(const struct gs_mig_layout *l, struct gs_mig_placement *out, int *nout, char *why,
                        size_t whylen);

/* Build a layout for GPU `g` from mig-parted `mig-devices` counts (enabled = true). A profile
 * name `g` lacks: GS_EINVAL, why = "A100-40GB has no MIG profile '1g.10gb+me'" (hint: the
 * closest name when there is one). Does not check the fit (gs_mig_layout_check). */
int gs_mig_layout_from_counts(const struct gs_mig_gpu *g, const struct gs_mig_count *counts, int n,
                              struct gs_mig_layout *out, char *why, size_t whylen);

/* Number of MIG devices (instances) of a layout; 0 when disabled. */
int gs_mig_layout_instances(const struct gs_mig_layout *l);

/* ------------------------------------------------------------------ the MIG manager */

/* nvidia.com/mig.config.state values (NVIDIA/mig-parted pkg/mig/reconfigure). */
enum gs_mig_state { GS_MIG_STATE_PENDING = 0, GS_MIG_STATE_REBOOTING, GS_MIG_STATE_SUCCESS, GS_MIG_STATE_FAILED };
/* "pending", "rebooting", "success", "failed"; NULL out of range. */
const char *gs_mig_state_name(enum gs_mig_state s);

/* What mig-manager does with a requested config on one node. */
struct gs_mig_outcome {
    enum gs_mig_state state;   /* SUCCESS or FAILED (PENDING is the label while it works) */
    bool noop;                 /* already applied: success at once, operands not paused */
    bool mode_change;          /* some GPU's MIG mode flips: needs a GPU reset (proposed timing key migModeChange) */
    int gpus_changed;          /* GPUs whose mode or instances change */
    char reason[512];          /* FAILED: why (gpusim's wording, naming the GPU and config) */
};

/* Apply named config `name` of `cfg` to a node with `ngpus` GPUs of product `product` whose
 * current layouts are cur[0..ngpus) (cur[i].gpu may be NULL for a GPU without MIG data). Follows
 * mig-parted (api/spec/v1 helpers, cmd apply): each entry selects the GPUs whose PCI ID matches
 * its device-filter (no filter: all) and whose index is in `devices` (or all); a GPU no entry
 * selects keeps its layout; a later entry selecting the same GPU overrides an earlier one.
 * A non MIG-capable GPU (product not in the MIG catalog) is skipped when the entry says
 * `devices: all` or `mig-enabled: false`, and fails the config when an explicit index list
 * asks to enable MIG ("cannot set MIG config on non MIG-capable GPU"). A profile the GPU lacks
 * or a layout that does not fit fails the whole config; the layouts are then unchanged
 * (next = cur): the real mig-manager leaves MIG mode possibly changed but this model keeps
 * the previous state (documented simplification).
 * Returns 0 and fills *res and next[0..ngpus) (which may alias nothing in cur). Errors:
 * GS_EINVAL when `name` is not in `cfg` (res->state FAILED, reason "unknown MIG config
 * 'x' (mig-parted: the selected config does not exist)"), ngpus out of [0, GS_MIG_MAX_GPUS]. */
int gs_mig_apply(const struct gs_mig_catalog *cat, const struct gs_migparted_config *cfg, const char *name,
                 const char *product, int ngpus, const struct gs_mig_layout *cur, struct gs_mig_layout *next,
                 struct gs_mig_outcome *res);

/* Initial layouts of a node: MIG disabled on every GPU (what all-disabled gives), gpu set from
 * the catalog for product (NULL when not MIG-capable). */
void gs_mig_layout_init(const struct gs_mig_catalog *cat, const char *product, int ngpus, struct gs_mig_layout *out);

/* ------------------------------------------------------------------ device plugin and GFD */

/* One advertised resource. */
struct gs_mig_resource {
    char name[64];   /* "nvidia.com/gpu", "nvidia.com/mig-1g.10gb", "nvidia.com/mig-1g.10gb.me" */
    int64_t count;   /* devices (before any sharing replicas) */
};

/* Resources the device plugin advertises for a node whose GPUs have layouts l[0..ngpus),
 * under `strategy` (NVIDIA/k8s-device-plugin internal/rm/device_map.go, rm.go; reference §3.3):
 *   none:   nvidia.com/gpu = ngpus (MIG-enabled GPUs are still offered whole)
 *   single: no GPU MIG-enabled -> nvidia.com/gpu = ngpus; all MIG-enabled with one profile and at
 *           least one instance -> nvidia.com/gpu = number of instances; anything else is invalid:
 *           the plugin fails to start, nothing is advertised (*nout = 0), returns GS_EINVAL with
 *           `why` (e.g. "mig strategy single: GPUs 0-1 have MIG enabled but GPU 2 does not")
 *   mixed:  nvidia.com/gpu = GPUs with MIG disabled (listed only when > 0: the plugin starts no
 *           server for a resource without devices), then one nvidia.com/mig-<profile> ('+' -> '.')
 *           per profile with instances, in profile-table order.
 * Writes at most `max` entries into out; returns 0, GS_EINVAL (single invalid) or GS_ERANGE
 * (more than `max` names). */
int gs_mig_resources(enum gs_mig_strategy strategy, const struct gs_mig_layout *l, int ngpus,
                     struct gs_mig_resource *out, int max, int *nout, char *why, size_t whylen);

/* The resource name of a MIG profile under mixed: "nvidia.com/mig-" + name with '+' -> '.'.
 * Writes at most `size` bytes with the NUL; returns the length needed (as snprintf). */
int gs_mig_resource_name(const char *profile, char *out, size_t size);

struct gs_dp_config; /* dpconfig.h */

/* The GFD MIG labels, set into `labels` (gs_labels_set copies into arena `a`) on top of what
 * gs_gfd_labels wrote for the full GPUs (NVIDIA/k8s-device-plugin internal/lm/mig-strategy.go,
 * internal/lm/resource.go and their tests; reference §4). `dp` (may be NULL: no sharing) gives
 * the replicas of each resource (gs_dp_share):
 *   nvidia.com/mig.capable         "true" when the product has a MIG model
 *   none:   nothing else (GFD writes no mig.strategy for none)
 *   single, no GPU MIG-enabled: nvidia.com/mig.strategy=single only
 *   single, valid: gpu.product=<product>-MIG-<profile> (+ "-SHARED" when nvidia.com/gpu is
 *           replicated and not renamed), gpu.count=<instances>, gpu.replicas, gpu.memory=<profile
 *           MiB>, gpu.multiprocessors (when known), gpu.slices.gi and gpu.slices.ci = compute slices
 *           (mig-parted makes one full compute instance per GPU instance)
 *   single, invalid: gpu.product=<product>-MIG-INVALID, gpu.count=0, gpu.replicas=0,
 *           gpu.memory=0 (multiprocessors and slices labels removed)
 *   mixed:  nvidia.com/mig.strategy=mixed, and per profile with instances, for the resource name
 *           R ("nvidia.com/mig-1g.10gb"): R.count, R.replicas, R.memory (MiB), R.product
 *           (<product>-MIG-<profile>, "-SHARED" as above), R.multiprocessors (when known),
 *           R.slices.gi, R.slices.ci, and R.sharing-strategy when R is replicated. Full-GPU
 *           labels are left as they are.
 * Not modelled: gpu.engines.* (no engine counts in the catalog). Returns 0 or GS_ENOMEM. */
int gs_mig_gfd_labels(enum gs_mig_strategy strategy, const char *product, const struct gs_mig_layout *l,
                      int ngpus, const struct gs_dp_config *dp, struct gs_labels *labels, struct gs_arena *a);

/* ------------------------------------------------------------------ loading */

/* Load models/catalog/mig-profiles.yaml from directory `dir` into `c` (storage in arena `a`,
 * which must outlive `c`). Implemented in sim/mig_catalog.c with libyaml. Errors: GS_EIO (file
 * unreadable; err names it), GS_EINVAL with file:line:column (unknown keys with "did you mean",
 * wrong types, a placement whose size is not the profile's memorySlices or that runs past the
 * GPU, duplicate GPU/product/profile names, an invalid defaultMigPartedConfig), GS_ENOMEM.
 * On error `c` is left empty. */
int gs_mig_catalog_load(const char *dir, struct gs_arena *a, struct gs_mig_catalog *c, struct gs_error *err);

#endif
