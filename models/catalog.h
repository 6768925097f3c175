/* gpusim: the catalogs: GPU products (models/catalog/gpus.yaml) and operand timing profiles
 * (models/catalog/operands.yaml), plus what a scenario's spec.catalog adds for one run.
 * Plain data: loaded once at start by sim/catalog.c (YAML); the lookups here are pure
 * functions in models/catalog.c. Durations are drawn by the bring-up model (gs_dur_draw,
 * bringup.h); driverBuildFailures go to the operator config (struct gs_build_failure).
 * Facts and sources: ../shared/reference/gpu-operator.md §2.3 (timings) and §6 (products).
 */
#ifndef GPUSIM_CATALOG_H
#define GPUSIM_CATALOG_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "models/world.h"

/* One GPU product as GPU feature discovery reports it (gpus.yaml keys in parentheses).
 * Strings are arena (or static) storage. */
struct gs_gpu_product {
    const char *product;       /* (product) GFD nvidia.com/gpu.product, e.g. "NVIDIA-H100-80GB-HBM3" */
    const char *nvml_name;     /* (nvmlName) NVML name, e.g. "NVIDIA H100 80GB HBM3" */
    int64_t memory_mib;        /* (memoryMiB) NVML memory total, MiB, e.g. 81559 (GFD gpu.memory) */
    int compute_major;         /* (computeCapability "9.0") CUDA compute capability */
    int compute_minor;
    const char *family;        /* (family) GFD nvidia.com/gpu.family: volta, turing, ampere,
                                * ada-lovelace, hopper, blackwell; checked against the compute
                                * capability with gs_gpu_family */
    bool mig_capable;          /* (migCapable) */
    int typical_per_node;      /* (typicalPerNode) GPUs per node in the usual server shape */
    const char *architecture;  /* (architecture) DRA attribute: Volta, Turing, Ampere, Ada Lovelace,
                                * Hopper, Blackwell (go-nvlib GetArchitectureAsString) */
    const char *brand;         /* (brand) DRA attribute: Tesla, Nvidia, GeForce, ... (go-nvlib
                                * GetBrandAsString) */
};

/* The GFD family of a compute capability (DP internal/lm/resource.go getArchFamily: 7.0-7.4
 * volta, 7.5+ turing, 8.0-8.8 ampere, 8.9+ ada-lovelace, 9 hopper, 10 and 12 blackwell, 13 rubin;
 * 1 tesla, 2 fermi, 3 kepler, 5 maxwell, 6 pascal); "undefined" for anything else (GFD's value).
 * Static storage. */
const char *gs_gpu_family(int major, int minor);

/* A duration drawn at each use: fixed, uniform [min, max], exponential, or lognormal.
 * Microseconds. YAML (operands.yaml, spec.catalog, operator.timings): a Go duration ("90s"),
 * {uniform: [90s, 3m]}, {exponential: 30s} (the mean) or {lognormal: {median: 2m, sigma: 0.3}}. */
enum gs_dur_kind { GS_DUR_FIXED = 0, GS_DUR_UNIFORM, GS_DUR_EXPONENTIAL, GS_DUR_LOGNORMAL };
struct gs_dur {
    enum gs_dur_kind kind;
    gs_time fixed;         /* FIXED */
    gs_time min, max;      /* UNIFORM, min <= max */
    gs_time mean;          /* EXPONENTIAL, >= 0 */
    gs_time median;        /* LOGNORMAL, > 0 */
    double sigma;          /* LOGNORMAL, finite, >= 0 */
};

/* The steps of a GPU node's bring-up that take time (operands.yaml keys in camelCase). */
enum gs_step {
    GS_STEP_NFD_LABEL = 0,      /* nfdLabel: NFD worker starts and labels pci-10de */
    GS_STEP_OPERATOR_LABEL,     /* operatorLabel: operator sets gpu.present and deploy labels */
    GS_STEP_DRIVER_COMPILE,     /* driverCompile: driver pod start to .driver-ctr-ready, operator-built
                                 * (headers + compile + load + first passing startupProbe) */
    GS_STEP_DRIVER_PRECOMPILED, /* driverPrecompiled: the same with a precompiled image (pull + load +
                                 * first passing startupProbe) */
    GS_STEP_DRIVER_HOST,        /* driverHost: validation of a host-installed driver */
    GS_STEP_DRIVER_VALIDATION,  /* driverValidation: driver-ready written */
    GS_STEP_TOOLKIT,            /* toolkit: install + container runtime restart */
    GS_STEP_TOOLKIT_VALIDATION, /* toolkitValidation: toolkit-ready written */
    GS_STEP_DEVICE_PLUGIN,      /* devicePlugin: registration with kubelet (allocatable appears) */
    GS_STEP_GFD,                /* gfd: first labelling pass */
    GS_STEP_MIG_MANAGER,        /* migManager: start */
    GS_STEP_DCGM_EXPORTER,      /* dcgmExporter: start */
    GS_STEP_CUDA_VALIDATION,    /* cudaValidation: vectorAdd pod completes (cuda-ready) */
    GS_STEP_PLUGIN_VALIDATION,  /* pluginValidation: plugin-ready written */
    GS_STEP_REBOOT,             /* reboot: node down until kubelet is back */
    GS_STEP_IMAGE_PULL_BACKOFF, /* imagePullRetry: cap of kubelet's pull back-off for a missing image
                                * (10 s doubling up to it; kubelet's own cap is 300 s) */
    /* Optional steps (a profile without `base` may leave them out: 0 s). */
    GS_STEP_MIG_RECONFIGURE,    /* migReconfigure: mig-manager creates/destroys MIG instances
                                 * (nvidia-mig-parted apply, MIG mode already right) */
    GS_STEP_MIG_MODE_CHANGE,    /* migModeChange: a MIG mode change, the GPU reset it needs
                                 * (reference gpu-operator.md §5.4 steps 5-6), added to
                                 * migReconfigure */
    GS_STEP_COUNT
};

/* The first optional step: steps from here on may be absent from a profile without `base`. */
#define GS_STEP_FIRST_OPTIONAL GS_STEP_MIG_RECONFIGURE

/* Name of a step as written in operands.yaml ("driverCompile"); NULL out of range. */
const char *gs_step_name(enum gs_step s);
/* The step of a name ("driverCompile"), or -1. */
int gs_step_find(const char *name);

struct gs_timing_profile {
    const char *name;          /* "default", "precompiled", "slow-compile", "fast", ... */
    struct gs_dur step[GS_STEP_COUNT];
};

struct gs_catalog {
    struct gs_gpu_product *products;   /* arena */
    int nproducts;
    struct gs_timing_profile *profiles; /* arena; [0] is "default" */
    int nprofiles;
};

/* Product by GFD product string (exact); NULL when unknown (the scenario loader refuses a node
 * pool whose gpu.product is not in the catalog; spec.catalog.gpus can add one). */
const struct gs_gpu_product *gs_catalog_product(const struct gs_catalog *c, const char *product);
/* Timing profile by name; NULL when unknown. */
const struct gs_timing_profile *gs_catalog_profile(const struct gs_catalog *c, const char *name);
/* Load gpus.yaml and operands.yaml from directory `dir` into `c` (storage in arena `a`, which
 * must outlive `c`). Errors: GS_EIO when a file cannot be read (err names the file and
 * says to set GPUSIM_CATALOG), GS_EINVAL with file:line:column for bad content (unknown keys
 * with "did you mean", wrong types, a family that does not match the compute capability,
 * duplicate products or profiles, a `default` profile missing a step), GS_ENOMEM.
 * On error `c` is left empty. */
int gs_catalog_load(const char *dir, struct gs_arena *a, struct gs_catalog *c, struct gs_error *err);

/* The catalog directory: $GPUSIM_CATALOG if set and non-empty, else the source tree's
 * models/catalog (compiled in as GPUSIM_SOURCE_DIR) when it holds gpus.yaml, else
 * "<dir of the executable>/../share/gpusim/catalog". Static storage (valid until the next
 * call). */
const char *gs_catalog_default_dir(void);

#endif
