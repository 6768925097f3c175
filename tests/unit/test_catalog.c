/* The catalogs (catalog.h, sim/catalog.c, models/catalog.c): the shipped gpus.yaml and
 * operands.yaml load and say what the reference says; bad catalog files give file:line:col
 * errors; product and profile lookups; duration distributions. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "models/bringup.h"
#include "models/catalog.h"
#include "base/rng.h"

static struct gs_arena arena;
static struct gs_catalog cat;
static struct gs_error err;
static char dir[64];

static void setup(void)
{
    memset(&arena, 0, sizeof arena);
    memset(&cat, 0, sizeof cat);
    memset(&err, 0, sizeof err);
    dir[0] = '\0';
}

static void teardown(void)
{
    gs_arena_free(&arena);
    if (dir[0]) {
        char p[128];
        snprintf(p, sizeof p, "%s/gpus.yaml", dir);
        unlink(p);
        snprintf(p, sizeof p, "%s/operands.yaml", dir);
        unlink(p);
        rmdir(dir);
    }
}

TestSuite(catalog, .init = setup, .fini = teardown);

static const char *shipped(void)
{
    return GPUSIM_SOURCE_DIR "/models/catalog";
}

static void load_shipped(void)
{
    int rc = gs_catalog_load(shipped(), &arena, &cat, &err);
    cr_assert_eq(rc, 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

/* ------------------------------------------------------------------ the shipped catalogs */

Test(catalog, shipped_products)
{
    load_shipped();
    cr_assert_eq(cat.nproducts, 17);
    /* every product the brief and the cases name */
    static const char *const names[] = {
        "Tesla-T4",           "NVIDIA-L4",          "NVIDIA-L40S",           "NVIDIA-A10",
        "NVIDIA-A10G",        "NVIDIA-A100-PCIE-40GB", "NVIDIA-A100-SXM4-40GB", "NVIDIA-A100-SXM4-80GB",
        "NVIDIA-A100-80GB-PCIe", "NVIDIA-H100-80GB-HBM3", "NVIDIA-H100-PCIe",   "NVIDIA-H100-NVL",
        "NVIDIA-H200",        "NVIDIA-B200",        "NVIDIA-GB200",          "Tesla-V100-SXM2-16GB",
        "NVIDIA-GeForce-RTX-3090-Ti", NULL};
    for (int i = 0; names[i]; i++)
        cr_expect(gs_catalog_product(&cat, names[i]) != NULL, "%s missing", names[i]);

    /* reference §6 and §4 */
    const struct gs_gpu_product *h = gs_catalog_product(&cat, "NVIDIA-H100-80GB-HBM3");
    cr_assert_not_null(h);
    cr_expect_str_eq(h->nvml_name, "NVIDIA H100 80GB HBM3");
    cr_expect_eq(h->memory_mib, 81559);
    cr_expect_eq(h->compute_major, 9);
    cr_expect_eq(h->compute_minor, 0);
    cr_expect_str_eq(h->family, "hopper");
    cr_expect(h->mig_capable);
    cr_expect_eq(h->typical_per_node, 8);
    cr_expect_str_eq(h->architecture, "Hopper");
    cr_expect_str_eq(h->brand, "Nvidia");

    static const struct {
        const char *product;
        int64_t mib;
        int major, minor;
        const char *family;
        bool mig;
    } rows[] = {
        {"Tesla-T4", 15360, 7, 5, "turing", false},
        {"NVIDIA-L4", 23034, 8, 9, "ada-lovelace", false},
        {"NVIDIA-L40S", 46068, 8, 9, "ada-lovelace", false},
        {"NVIDIA-A10", 23028, 8, 6, "ampere", false},
        {"NVIDIA-A100-PCIE-40GB", 40960, 8, 0, "ampere", true},
        {"NVIDIA-A100-SXM4-80GB", 81920, 8, 0, "ampere", true},
        {"NVIDIA-H100-NVL", 95830, 9, 0, "hopper", true},
        {"NVIDIA-H200", 143771, 9, 0, "hopper", true},
        {"NVIDIA-B200", 183359, 10, 0, "blackwell", true},
        {"NVIDIA-GB200", 189471, 10, 0, "blackwell", true},
        {"Tesla-V100-SXM2-16GB", 16384, 7, 0, "volta", false},
        {"NVIDIA-GeForce-RTX-3090-Ti", 24564, 8, 6, "ampere", false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const struct gs_gpu_product *p = gs_catalog_product(&cat, rows[i].product);
        cr_assert_not_null(p, "%s", rows[i].product);
        cr_expect_eq(p->memory_mib, rows[i].mib, "%s memory", rows[i].product);
        cr_expect_eq(p->compute_major, rows[i].major, "%s", rows[i].product);
        cr_expect_eq(p->compute_minor, rows[i].minor, "%s", rows[i].product);
        cr_expect_str_eq(p->family, rows[i].family, "%s", rows[i].product);
        cr_expect_eq(p->mig_capable, rows[i].mig, "%s", rows[i].product);
    }
    cr_expect_eq(gs_catalog_product(&cat, "NVIDIA-GB200")->typical_per_node, 4);
    cr_expect_str_eq(gs_catalog_product(&cat, "NVIDIA-GeForce-RTX-3090-Ti")->brand, "GeForce");
    cr_expect_str_eq(gs_catalog_product(&cat, "Tesla-V100-SXM2-16GB")->architecture, "Volta");
}

Test(catalog, product_lookup)
{
    load_shipped();
    cr_expect_null(gs_catalog_product(&cat, "NVIDIA-H100"));
    cr_expect_null(gs_catalog_product(&cat, "nvidia-h100-80gb-hbm3")); /* exact, as a label value */
    cr_expect_null(gs_catalog_product(&cat, NULL));
    cr_expect_null(gs_catalog_product(NULL, "Tesla-T4"));
    struct gs_catalog empty = {0};
    cr_expect_null(gs_catalog_product(&empty, "Tesla-T4"));
}

static gs_time fixed(const struct gs_timing_profile *p, enum gs_step s)
{
    cr_assert_eq(p->step[s].kind, GS_DUR_FIXED, "%s.%s is not fixed", p->name, gs_step_name(s));
    return p->step[s].fixed;
}

/* Time to schedulable (nvidia.com/gpu allocatable) along the chain, with the given driver step. */
static gs_time to_schedulable(const struct gs_timing_profile *p, enum gs_step driver)
{
    return fixed(p, GS_STEP_NFD_LABEL) + fixed(p, GS_STEP_OPERATOR_LABEL) + fixed(p, driver) +
           fixed(p, GS_STEP_DRIVER_VALIDATION) + fixed(p, GS_STEP_TOOLKIT) + fixed(p, GS_STEP_TOOLKIT_VALIDATION) +
           fixed(p, GS_STEP_DEVICE_PLUGIN);
}

Test(catalog, shipped_profiles)
{
    load_shipped();
    cr_assert_geq(cat.nprofiles, 4);
    cr_expect_str_eq(cat.profiles[0].name, "default");
    const struct gs_timing_profile *def = gs_catalog_profile(&cat, "default");
    const struct gs_timing_profile *pre = gs_catalog_profile(&cat, "precompiled");
    const struct gs_timing_profile *slow = gs_catalog_profile(&cat, "slow-compile");
    const struct gs_timing_profile *fast = gs_catalog_profile(&cat, "fast");
    cr_assert(def && pre && slow && fast);
    cr_expect_null(gs_catalog_profile(&cat, "Default"));
    cr_expect_null(gs_catalog_profile(&cat, NULL));

    /* the header's arithmetic */
    cr_expect_eq(fixed(def, GS_STEP_DRIVER_COMPILE), GS_MIN(3));
    cr_expect_eq(to_schedulable(def, GS_STEP_DRIVER_COMPILE), GS_SEC(250));   /* 4m10s: inside 3-5 min */
    cr_expect_eq(to_schedulable(def, GS_STEP_DRIVER_PRECOMPILED), GS_SEC(130)); /* 2m10s: 48 % saved */
    cr_expect_eq(to_schedulable(def, GS_STEP_DRIVER_HOST), GS_SEC(75));
    cr_expect_eq(to_schedulable(pre, GS_STEP_DRIVER_PRECOMPILED), GS_SEC(97));
    cr_expect_eq(fixed(pre, GS_STEP_DRIVER_PRECOMPILED), GS_SEC(60)); /* startupProbe initialDelaySeconds */
    cr_expect_eq(to_schedulable(fast, GS_STEP_DRIVER_COMPILE), GS_SEC(8));
    /* precompiled starts from default: steps it does not list are default's */
    cr_expect_eq(fixed(pre, GS_STEP_DRIVER_HOST), fixed(def, GS_STEP_DRIVER_HOST));
    cr_expect_eq(fixed(pre, GS_STEP_IMAGE_PULL_BACKOFF), GS_MIN(5));
    cr_expect_str_eq(pre->name, "precompiled");
    /* slow-compile: a lognormal compile */
    cr_expect_eq(slow->step[GS_STEP_DRIVER_COMPILE].kind, GS_DUR_LOGNORMAL);
    cr_expect_eq(slow->step[GS_STEP_DRIVER_COMPILE].median, GS_MIN(8));
    cr_expect_float_eq(slow->step[GS_STEP_DRIVER_COMPILE].sigma, 0.35, 1e-12);
    cr_expect_eq(fixed(slow, GS_STEP_REBOOT), GS_MIN(5));
    /* every step of every profile is set */
    for (int i = 0; i < cat.nprofiles; i++)
        for (int s = 0; s < GS_STEP_COUNT; s++)
            if (cat.profiles[i].step[s].kind == GS_DUR_FIXED)
                cr_expect_gt(cat.profiles[i].step[s].fixed, 0, "%s.%s", cat.profiles[i].name,
                             gs_step_name((enum gs_step)s));
}

Test(catalog, step_names)
{
    for (int s = 0; s < GS_STEP_COUNT; s++) {
        const char *n = gs_step_name((enum gs_step)s);
        cr_assert_not_null(n);
        cr_expect_eq(gs_step_find(n), s);
    }
    cr_expect_str_eq(gs_step_name(GS_STEP_DRIVER_COMPILE), "driverCompile");
    cr_expect_str_eq(gs_step_name(GS_STEP_IMAGE_PULL_BACKOFF), "imagePullRetry");
    cr_expect_null(gs_step_name(GS_STEP_COUNT));
    cr_expect_eq(gs_step_find("drivercompile"), -1);
    cr_expect_eq(gs_step_find(NULL), -1);
}

Test(catalog, families)
{
    cr_expect_str_eq(gs_gpu_family(7, 0), "volta");
    cr_expect_str_eq(gs_gpu_family(7, 2), "volta");
    cr_expect_str_eq(gs_gpu_family(7, 5), "turing");
    cr_expect_str_eq(gs_gpu_family(8, 0), "ampere");
    cr_expect_str_eq(gs_gpu_family(8, 6), "ampere");
    cr_expect_str_eq(gs_gpu_family(8, 7), "ampere");
    cr_expect_str_eq(gs_gpu_family(8, 9), "ada-lovelace");
    cr_expect_str_eq(gs_gpu_family(9, 0), "hopper");
    cr_expect_str_eq(gs_gpu_family(10, 0), "blackwell");
    cr_expect_str_eq(gs_gpu_family(12, 0), "blackwell");
    cr_expect_str_eq(gs_gpu_family(13, 0), "rubin");
    cr_expect_str_eq(gs_gpu_family(6, 1), "pascal");
    cr_expect_str_eq(gs_gpu_family(11, 0), "undefined");
    cr_expect_str_eq(gs_gpu_family(0, 0), "undefined");
}

Test(catalog, default_dir)
{
    const char *old = getenv("GPUSIM_CATALOG");
    char *saved = old ? strdup(old) : NULL;
    setenv("GPUSIM_CATALOG", "/somewhere/else", 1);
    cr_expect_str_eq(gs_catalog_default_dir(), "/somewhere/else");
    setenv("GPUSIM_CATALOG", "", 1);
    cr_expect_str_eq(gs_catalog_default_dir(), GPUSIM_SOURCE_DIR "/models/catalog");
    unsetenv("GPUSIM_CATALOG");
    cr_expect_str_eq(gs_catalog_default_dir(), GPUSIM_SOURCE_DIR "/models/catalog");
    if (saved) {
        setenv("GPUSIM_CATALOG", saved, 1);
        free(saved);
    }
}

/* ------------------------------------------------------------------ bad catalog files */

#define GPUS_HEAD "apiVersion: gpusim/v1alpha1\nkind: GPUCatalog\ngpus:\n"
/* One good product at lines 4..12. */
#define GPU_T4                                                                                         \
    "- product: Tesla-T4\n"                                                                            \
    "  nvmlName: Tesla T4\n"                                                                           \
    "  memoryMiB: 15360\n"                                                                             \
    "  computeCapability: \"7.5\"\n"                                                                   \
    "  family: turing\n"                                                                               \
    "  migCapable: false\n"                                                                            \
    "  typicalPerNode: 4\n"                                                                            \
    "  architecture: Turing\n"                                                                         \
    "  brand: Tesla\n"

#define OPS_HEAD "apiVersion: gpusim/v1alpha1\nkind: OperandTimings\ntimingProfiles:\n"
/* A complete default profile at lines 4..20 (its steps at lines 5..20). */
#define OPS_DEFAULT                                                                                    \
    "  default:\n"                                                                                     \
    "    nfdLabel: 15s\n"                                                                              \
    "    operatorLabel: 5s\n"                                                                          \
    "    driverCompile: 3m\n"                                                                          \
    "    driverPrecompiled: 60s\n"                                                                     \
    "    driverHost: 5s\n"                                                                             \
    "    driverValidation: 5s\n"                                                                       \
    "    toolkit: 30s\n"                                                                               \
    "    toolkitValidation: 5s\n"                                                                      \
    "    devicePlugin: 10s\n"                                                                          \
    "    gfd: 10s\n"                                                                                   \
    "    migManager: 10s\n"                                                                            \
    "    dcgmExporter: 30s\n"                                                                          \
    "    cudaValidation: 20s\n"                                                                        \
    "    pluginValidation: 5s\n"                                                                       \
    "    reboot: 2m\n"                                                                                 \
    "    imagePullRetry: 5m\n"

static void write_file(const char *name, const char *text)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/gpusim-catalog-XXXXXX");
        cr_assert_not_null(mkdtemp(dir));
    }
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static int load_files(const char *gpus, const char *ops)
{
    if (gpus)
        write_file("gpus.yaml", gpus);
    if (ops)
        write_file("operands.yaml", ops);
    gs_arena_free(&arena);
    memset(&err, 0, sizeof err);
    return gs_catalog_load(dir, &arena, &cat, &err);
}

/* The error must be in `file` at line:col with exactly `msg`. */
static void bad(const char *gpus, const char *ops, int code, const char *file, int line, int col, const char *msg)
{
    int rc = load_files(gpus, ops);
    cr_assert_eq(rc, code, "rc %d (want %d): %s:%d:%d: %s", rc, code, err.file, err.line, err.col, err.msg);
    char want[160];
    snprintf(want, sizeof want, "%s/%s", dir, file);
    cr_expect_str_eq(err.file, want);
    cr_expect_eq(err.line, line, "line %d, want %d (%s)", err.line, line, err.msg);
    cr_expect_eq(err.col, col, "col %d, want %d (%s)", err.col, col, err.msg);
    cr_expect_str_eq(err.msg, msg);
    cr_expect_eq(cat.nproducts, 0, "a failed load leaves the catalog empty");
    cr_expect_eq(cat.nprofiles, 0);
}

Test(catalog, minimal_files_load)
{
    int rc = load_files(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: 10s\n");
    cr_assert_eq(rc, 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    cr_expect_eq(cat.nproducts, 1);
    cr_expect_eq(cat.nprofiles, 2);
    const struct gs_timing_profile *q = gs_catalog_profile(&cat, "quick");
    cr_assert_not_null(q);
    cr_expect_eq(q->step[GS_STEP_REBOOT].fixed, GS_SEC(10));
    cr_expect_eq(q->step[GS_STEP_DRIVER_COMPILE].fixed, GS_MIN(3)); /* from default */
}

Test(catalog, bad_products)
{
    bad(GPUS_HEAD "- product: Tesla-T4\n  memoryMib: 1\n", OPS_HEAD OPS_DEFAULT, GS_EINVAL, "gpus.yaml", 5, 3,
        "unknown key 'memoryMib' in gpus[0] (did you mean 'memoryMiB'?)");
    bad(GPUS_HEAD "- product: Tesla-T4\n  nvmlName: Tesla T4\n", OPS_HEAD OPS_DEFAULT, GS_EINVAL, "gpus.yaml", 4, 3,
        "missing required field 'memoryMiB' in gpus[0]");
    bad(GPUS_HEAD GPU_T4 GPU_T4, OPS_HEAD OPS_DEFAULT, GS_EINVAL, "gpus.yaml", 13, 12,
        "duplicate product 'Tesla-T4' in gpus (first at line 4 column 12)");
    /* family against the compute capability */
    bad(GPUS_HEAD "- product: Tesla-T4\n  nvmlName: Tesla T4\n  memoryMiB: 15360\n  computeCapability: \"7.5\"\n"
                  "  family: volta\n  migCapable: false\n  typicalPerNode: 4\n  architecture: Turing\n  brand: Tesla\n",
        OPS_HEAD OPS_DEFAULT, GS_EINVAL, "gpus.yaml", 8, 11,
        "family 'volta' at gpus[0].family does not match computeCapability 7.5: GFD derives 'turing'");
    /* the product string is GFD's sanitised NVML name */
    bad(GPUS_HEAD "- product: Tesla_T4\n  nvmlName: Tesla T4\n  memoryMiB: 15360\n  computeCapability: \"7.5\"\n"
                  "  family: turing\n  migCapable: false\n  typicalPerNode: 4\n  architecture: Turing\n  brand: Tesla\n",
        OPS_HEAD OPS_DEFAULT, GS_EINVAL, "gpus.yaml", 4, 12,
        "product 'Tesla_T4' at gpus[0].product is not GFD's form of nvmlName 'Tesla T4': expected 'Tesla-T4' "
        "(characters outside [A-Za-z0-9-_. ] dropped, spaces turned into '-')");
    bad(GPUS_HEAD "- product: Tesla-T4\n  nvmlName: Tesla T4\n  memoryMiB: 15360\n  computeCapability: 7\n"
                  "  family: turing\n  migCapable: false\n  typicalPerNode: 4\n  architecture: Turing\n  brand: Tesla\n",
        OPS_HEAD OPS_DEFAULT, GS_EINVAL, "gpus.yaml", 7, 22,
        "invalid computeCapability \"7\" at gpus[0].computeCapability: expected \"major.minor\" such as \"9.0\"");
    bad(GPUS_HEAD "- product: Tesla-T4\n  nvmlName: Tesla T4\n  memoryMiB: \"15360\"\n  computeCapability: \"7.5\"\n"
                  "  family: turing\n  migCapable: false\n  typicalPerNode: 4\n  architecture: Turing\n  brand: Tesla\n",
        OPS_HEAD OPS_DEFAULT, GS_EINVAL, "gpus.yaml", 6, 14,
        "expected an integer at gpus[0].memoryMiB, got the string \"15360\" (remove the quotes)");
    bad("apiVersion: gpusim/v1alpha1\nkind: GpuCatalog\ngpus: []\n", OPS_HEAD OPS_DEFAULT, GS_EINVAL, "gpus.yaml", 2,
        7, "unsupported kind \"GpuCatalog\": expected GPUCatalog");
    bad("apiVersion: gpusim/v1alpha1\nkind: GPUCatalog\ngpu: []\n", OPS_HEAD OPS_DEFAULT, GS_EINVAL, "gpus.yaml", 3,
        1, "unknown key 'gpu' at the top level (did you mean 'gpus'?)");
}

Test(catalog, bad_profiles)
{
    bad(GPUS_HEAD GPU_T4, OPS_HEAD "  quick:\n    reboot: 10s\n" OPS_DEFAULT, GS_EINVAL, "operands.yaml", 4, 3,
        "timingProfiles must start with the 'default' profile (the others start from it), not 'quick'");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD "  default:\n    nfdLabel: 15s\n", GS_EINVAL, "operands.yaml", 5, 5,
        "missing step 'operatorLabel' in timingProfiles.default: the default profile gives every step");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    driverCompil: 10s\n", GS_EINVAL, "operands.yaml", 22, 5,
        "unknown key 'driverCompil' in timingProfiles.quick (did you mean 'driverCompile'?)");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    base: slow\n", GS_EINVAL, "operands.yaml", 22, 11,
        "unknown base profile 'slow' at timingProfiles.quick.base: the catalog has default");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  Quick:\n    reboot: 1s\n", GS_EINVAL, "operands.yaml", 21, 3,
        "invalid timing profile name 'Quick' in timingProfiles: use lowercase letters, digits and '-' (at most 63, "
        "e.g. slow-compile)");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: 10\n", GS_EINVAL, "operands.yaml", 22, 13,
        "invalid duration \"10\" at timingProfiles.quick.reboot: expected a Go duration such as 90s, 1h30m or "
        "250ms");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD "", GS_EINVAL, "operands.yaml", 3, 16,
        "expected a mapping at timingProfiles, got null");
}

Test(catalog, bad_distributions)
{
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: {uniform: [3m, 90s]}\n", GS_EINVAL, "operands.yaml",
        22, 23, "timingProfiles.quick.reboot.uniform: min (3m) is above max (90s)");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: {uniform: [3m]}\n", GS_EINVAL, "operands.yaml", 22,
        23, "timingProfiles.quick.reboot.uniform takes two durations, [min, max], got 1");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: {lognormal: {median: 2m, sigma: -1}}\n",
        GS_EINVAL, "operands.yaml", 22, 45, "timingProfiles.quick.reboot.lognormal.sigma must be >= 0, got -1");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: {lognormal: {median: 0s, sigma: 1}}\n",
        GS_EINVAL, "operands.yaml", 22, 34, "timingProfiles.quick.reboot.lognormal.median must be positive, got 0s");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: {lognormal: {median: 2m}}\n", GS_EINVAL,
        "operands.yaml", 22, 25, "missing required field 'sigma' in timingProfiles.quick.reboot.lognormal");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: {normal: 1m}\n", GS_EINVAL, "operands.yaml", 22, 14,
        "unknown key 'normal' in timingProfiles.quick.reboot");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: {uniform: [1m, 2m], exponential: 1m}\n", GS_EINVAL,
        "operands.yaml", 22, 13, "timingProfiles.quick.reboot: give one of uniform, exponential or lognormal");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: {distribution: exponential, mean: 1m}\n",
        GS_EINVAL, "operands.yaml", 22, 14,
        "timingProfiles.quick.reboot: a timing distribution is written {uniform: [a, b]}, {exponential: mean} or "
        "{lognormal: {median: m, sigma: s}}");
    bad(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT "  quick:\n    reboot: [1m, 2m]\n", GS_EINVAL, "operands.yaml", 22, 13,
        "expected a duration such as 90s or a distribution ({uniform: [a, b]}, {exponential: mean} or {lognormal: "
        "{median: m, sigma: s}}) at timingProfiles.quick.reboot, got a sequence");
}

Test(catalog, missing_files)
{
    write_file("gpus.yaml", GPUS_HEAD GPU_T4);
    gs_arena_free(&arena);
    int rc = gs_catalog_load(dir, &arena, &cat, &err);
    cr_assert_eq(rc, GS_EIO);
    char want[160];
    snprintf(want, sizeof want, "%s/operands.yaml", dir);
    cr_expect_str_eq(err.file, want);
    cr_expect_str_eq(err.msg, "cannot open: No such file or directory: the gpusim catalog is missing (set "
                              "GPUSIM_CATALOG to the models/catalog directory)");
    gs_arena_free(&arena);
    rc = gs_catalog_load("/nonexistent-gpusim-dir", &arena, &cat, &err);
    cr_expect_eq(rc, GS_EIO);
    cr_expect_str_eq(err.file, "/nonexistent-gpusim-dir/gpus.yaml");
}

/* ------------------------------------------------------------------ distributions */

Test(catalog, distributions)
{
    int rc = load_files(GPUS_HEAD GPU_T4, OPS_HEAD OPS_DEFAULT
                        "  dist:\n"
                        "    driverCompile: {uniform: [90s, 3m]}\n"
                        "    toolkit: {exponential: 30s}\n"
                        "    reboot: {lognormal: {median: 2m, sigma: 0.5}}\n"
                        "    gfd: {uniform: [10s, 10s]}\n"
                        "    nfdLabel: 0s\n");
    cr_assert_eq(rc, 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    const struct gs_timing_profile *p = gs_catalog_profile(&cat, "dist");
    cr_assert_not_null(p);
    const struct gs_dur *u = &p->step[GS_STEP_DRIVER_COMPILE], *e = &p->step[GS_STEP_TOOLKIT],
                        *l = &p->step[GS_STEP_REBOOT];
    cr_expect_eq(u->kind, GS_DUR_UNIFORM);
    cr_expect_eq(u->min, GS_SEC(90));
    cr_expect_eq(u->max, GS_MIN(3));
    cr_expect_eq(e->kind, GS_DUR_EXPONENTIAL);
    cr_expect_eq(e->mean, GS_SEC(30));
    cr_expect_eq(l->kind, GS_DUR_LOGNORMAL);
    cr_expect_eq(l->median, GS_MIN(2));
    cr_expect_float_eq(l->sigma, 0.5, 1e-12);
    cr_expect_eq(p->step[GS_STEP_NFD_LABEL].fixed, 0);

    /* Draws (the bring-up model's gs_dur_draw) stay in range and are reproducible. */
    struct gs_rng *r1 = gs_rng_new(7), *r2 = gs_rng_new(7);
    cr_assert(r1 && r2);
    double sum_u = 0, sum_e = 0;
    int below = 0;
    const int n = 4000;
    for (int i = 0; i < n; i++) {
        gs_time x = gs_dur_draw(u, r1);
        cr_assert(x >= GS_SEC(90) && x <= GS_MIN(3), "uniform draw %lld", (long long)x);
        cr_assert_eq(x, gs_dur_draw(u, r2));
        sum_u += (double)x;
        gs_time y = gs_dur_draw(e, r1);
        cr_assert_geq(y, 0);
        (void)gs_dur_draw(e, r2);
        sum_e += (double)y;
        gs_time z = gs_dur_draw(l, r1);
        (void)gs_dur_draw(l, r2);
        cr_assert_gt(z, 0);
        below += z < GS_MIN(2);
        cr_assert_eq(gs_dur_draw(&p->step[GS_STEP_GFD], r1), GS_SEC(10));
        (void)gs_dur_draw(&p->step[GS_STEP_GFD], r2);
    }
    cr_expect(fabs(sum_u / n - 135e6) < 3e6, "uniform mean %f", sum_u / n);
    cr_expect(fabs(sum_e / n - 30e6) < 3e6, "exponential mean %f", sum_e / n);
    cr_expect(below > n * 45 / 100 && below < n * 55 / 100, "lognormal median: %d of %d below", below, n);
    /* without a generator: the central value */
    cr_expect_eq(gs_dur_draw(&p->step[GS_STEP_DEVICE_PLUGIN], NULL), GS_SEC(10));
    gs_rng_free(r1);
    gs_rng_free(r2);
}
