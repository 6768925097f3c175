/* GPU feature discovery labels (gfd.h, models/gfd.c): the reference's H100 example row (§4)
 * exactly, products outside the catalog, sharing, MIG strategy, driver and CUDA versions, and
 * GFD's product-name sanitising. */
#include <criterion/criterion.h>
#include <string.h>

#include "models/catalog.h"
#include "models/gfd.h"

static struct gs_arena arena;
static struct gs_labels labels;

static void setup(void)
{
    memset(&arena, 0, sizeof arena);
    memset(&labels, 0, sizeof labels);
}

static void teardown(void)
{
    gs_arena_free(&arena);
}

TestSuite(gfd, .init = setup, .fini = teardown);

/* The catalog's H100 SXM entry (gpus.yaml; reference §6 row "H100 SXM5 80GB"). */
static const struct gs_gpu_product h100 = {
    .product = "NVIDIA-H100-80GB-HBM3",
    .nvml_name = "NVIDIA H100 80GB HBM3",
    .memory_mib = 81559,
    .compute_major = 9,
    .compute_minor = 0,
    .family = "hopper",
    .mig_capable = true,
    .typical_per_node = 8,
    .architecture = "Hopper",
    .brand = "Nvidia",
};

struct kv {
    const char *k, *v;
};

/* `labels` must hold exactly `want`. */
static void exactly(const struct kv *want, int n)
{
    for (int i = 0; i < n; i++) {
        const char *got = gs_labels_get(&labels, want[i].k);
        cr_expect_not_null(got, "label %s missing", want[i].k);
        if (got)
            cr_expect_str_eq(got, want[i].v, "label %s", want[i].k);
    }
    for (int i = 0; i < labels.n; i++) {
        bool known = false;
        for (int j = 0; j < n; j++)
            known = known || strcmp(labels.kv[i].key, want[j].k) == 0;
        cr_expect(known, "unexpected label %s=%s", labels.kv[i].key, labels.kv[i].value);
    }
    cr_expect_eq(labels.n, n);
}

/* Reference §4: 8x H100 80GB SXM, driver 535.129.03, no sharing, MIG strategy none. */
Test(gfd, h100_example_row)
{
    struct gs_gfd_input in = {.product = &h100, .gpu_count = 8, .driver_version = "535.129.03", .replicas = 1};
    cr_assert_eq(gs_gfd_labels(&in, &labels, &arena), 0);
    static const struct kv want[] = {
        {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
        {"nvidia.com/gpu.memory", "81559"},
        {"nvidia.com/gpu.count", "8"},
        {"nvidia.com/gpu.replicas", "1"},
        {"nvidia.com/gpu.sharing-strategy", "none"},
        {"nvidia.com/gpu.family", "hopper"},
        {"nvidia.com/gpu.compute.major", "9"},
        {"nvidia.com/gpu.compute.minor", "0"},
        {"nvidia.com/cuda.driver.major", "535"},
        {"nvidia.com/cuda.driver.minor", "129"},
        {"nvidia.com/cuda.driver.rev", "03"},
        {"nvidia.com/cuda.driver-version.major", "535"},
        {"nvidia.com/cuda.driver-version.minor", "129"},
        {"nvidia.com/cuda.driver-version.revision", "03"},
        {"nvidia.com/cuda.driver-version.full", "535.129.03"},
        {"nvidia.com/cuda.runtime.major", "12"},
        {"nvidia.com/cuda.runtime.minor", "2"},
        {"nvidia.com/cuda.runtime-version.major", "12"},
        {"nvidia.com/cuda.runtime-version.minor", "2"},
        {"nvidia.com/cuda.runtime-version.full", "12.2"},
        {"nvidia.com/gpu.mode", "compute"},
        {"nvidia.com/mig.capable", "true"},
        {"nvidia.com/mps.capable", "false"},
        {"nvidia.com/vgpu.present", "false"},
    };
    exactly(want, (int)(sizeof want / sizeof want[0]));
    /* no mig.strategy label with strategy none */
    cr_expect_null(gs_labels_get(&labels, "nvidia.com/mig.strategy"));
}

Test(gfd, keeps_other_labels)
{
    cr_assert_eq(gs_labels_set(&labels, &arena, "kubernetes.io/hostname", "h100-0"), 0);
    cr_assert_eq(gs_labels_set(&labels, &arena, "nvidia.com/gpu.count", "3"), 0);
    struct gs_gfd_input in = {.product = &h100, .gpu_count = 8, .replicas = 1};
    cr_assert_eq(gs_gfd_labels(&in, &labels, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&labels, "kubernetes.io/hostname"), "h100-0");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.count"), "8");
}

Test(gfd, product_outside_catalog)
{
    struct gs_gfd_input in = {.product_name = "NVIDIA-RTX-PRO-6000", .gpu_count = 2, .replicas = 0};
    cr_assert_eq(gs_gfd_labels(&in, &labels, &arena), 0);
    static const struct kv want[] = {
        {"nvidia.com/gpu.product", "NVIDIA-RTX-PRO-6000"},
        {"nvidia.com/gpu.count", "2"},
        {"nvidia.com/gpu.replicas", "1"},
        {"nvidia.com/gpu.sharing-strategy", "none"},
        {"nvidia.com/gpu.mode", "compute"},
        {"nvidia.com/mps.capable", "false"},
        {"nvidia.com/vgpu.present", "false"},
    };
    exactly(want, (int)(sizeof want / sizeof want[0]));
}

Test(gfd, sharing)
{
    struct gs_gfd_input in = {.product = &h100, .gpu_count = 4, .sharing = GS_SHARING_TIME_SLICING, .replicas = 4};
    cr_assert_eq(gs_gfd_labels(&in, &labels, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3-SHARED");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.replicas"), "4");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.count"), "4");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/gpu.sharing-strategy"), "time-slicing");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mps.capable"), "false");

    /* renamed (renameByDefault): no -SHARED suffix */
    struct gs_labels l2 = {0};
    in.renamed = true;
    cr_assert_eq(gs_gfd_labels(&in, &l2, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&l2, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3");

    struct gs_labels l3 = {0};
    struct gs_gfd_input mps = {.product = &h100, .gpu_count = 8, .sharing = GS_SHARING_MPS, .replicas = 2};
    cr_assert_eq(gs_gfd_labels(&mps, &l3, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&l3, "nvidia.com/gpu.sharing-strategy"), "mps");
    cr_expect_str_eq(gs_labels_get(&l3, "nvidia.com/mps.capable"), "true");
    cr_expect_str_eq(gs_labels_get(&l3, "nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3-SHARED");
}

Test(gfd, mig_strategy)
{
    struct gs_gfd_input in = {.product = &h100, .gpu_count = 8, .replicas = 1, .mig_strategy = GS_MIG_SINGLE};
    cr_assert_eq(gs_gfd_labels(&in, &labels, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/mig.strategy"), "single");
    struct gs_labels l2 = {0};
    in.mig_strategy = GS_MIG_MIXED;
    cr_assert_eq(gs_gfd_labels(&in, &l2, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&l2, "nvidia.com/mig.strategy"), "mixed");
    cr_expect_str_eq(gs_mig_strategy_name(GS_MIG_NONE), "none");
    cr_expect_str_eq(gs_sharing_name(GS_SHARING_NONE), "none");
}

Test(gfd, driver_versions)
{
    /* a two-part version: empty revision, as GFD's parseDriverVersion */
    struct gs_gfd_input in = {.product_name = "X", .gpu_count = 1, .replicas = 1, .driver_version = "550.54"};
    cr_assert_eq(gs_gfd_labels(&in, &labels, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/cuda.driver-version.full"), "550.54");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/cuda.driver-version.revision"), "");
    cr_expect_str_eq(gs_labels_get(&labels, "nvidia.com/cuda.runtime-version.full"), "12.4");

    /* a branch alone (a precompiled driver's version): what it has */
    struct gs_labels l2 = {0};
    in.driver_version = "580";
    cr_assert_eq(gs_gfd_labels(&in, &l2, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&l2, "nvidia.com/cuda.driver-version.major"), "580");
    cr_expect_null(gs_labels_get(&l2, "nvidia.com/cuda.driver-version.minor"));
    cr_expect_str_eq(gs_labels_get(&l2, "nvidia.com/cuda.runtime-version.full"), "13.0");
    cr_expect_str_eq(gs_labels_get(&l2, "nvidia.com/cuda.runtime.major"), "13");
    cr_expect_str_eq(gs_labels_get(&l2, "nvidia.com/cuda.runtime.minor"), "0");

    /* an unknown branch: driver labels, no CUDA labels */
    struct gs_labels l3 = {0};
    in.driver_version = "999.1.2";
    cr_assert_eq(gs_gfd_labels(&in, &l3, &arena), 0);
    cr_expect_str_eq(gs_labels_get(&l3, "nvidia.com/cuda.driver.rev"), "2");
    cr_expect_null(gs_labels_get(&l3, "nvidia.com/cuda.runtime-version.full"));

    /* not a version, or none: no cuda.* labels at all */
    static const char *const bad[] = {"latest", "550.", ".90", "550..1", "1.2.3.4", "", NULL};
    for (int i = 0; bad[i]; i++) {
        struct gs_labels l4 = {0};
        in.driver_version = bad[i];
        cr_assert_eq(gs_gfd_labels(&in, &l4, &arena), 0);
        cr_expect_null(gs_labels_get(&l4, "nvidia.com/cuda.driver-version.full"), "%s", bad[i]);
        cr_expect_null(gs_labels_get(&l4, "nvidia.com/cuda.driver.major"), "%s", bad[i]);
    }
}

Test(gfd, cuda_versions)
{
    cr_expect_str_eq(gs_gfd_cuda_version("535.129.03"), "12.2");
    cr_expect_str_eq(gs_gfd_cuda_version("550.90.07"), "12.4");
    cr_expect_str_eq(gs_gfd_cuda_version("570.124.06"), "12.8");
    cr_expect_str_eq(gs_gfd_cuda_version("580.82.07"), "13.0");
    cr_expect_str_eq(gs_gfd_cuda_version("595.91.07"), "13.2");
    cr_expect_str_eq(gs_gfd_cuda_version("470"), "11.4");
    cr_expect_null(gs_gfd_cuda_version("540.1.1"));
    cr_expect_null(gs_gfd_cuda_version(NULL));
    cr_expect_null(gs_gfd_cuda_version("abc"));
}

Test(gfd, bad_input)
{
    cr_expect_eq(gs_gfd_labels(NULL, &labels, &arena), GS_EINVAL);
    struct gs_gfd_input in = {.gpu_count = 1};
    cr_expect_eq(gs_gfd_labels(&in, &labels, &arena), GS_EINVAL);
    in.product_name = "";
    cr_expect_eq(gs_gfd_labels(&in, &labels, &arena), GS_EINVAL);
    cr_expect_eq(labels.n, 0);
}

Test(gfd, sanitize)
{
    char out[64];
    static const struct kv cases[] = {
        {"NVIDIA H100 80GB HBM3", "NVIDIA-H100-80GB-HBM3"},
        {"NVIDIA A100 80GB PCIe", "NVIDIA-A100-80GB-PCIe"},
        {"NVIDIA A100-SXM4-40GB", "NVIDIA-A100-SXM4-40GB"},
        {"Tesla V100-SXM2-16GB", "Tesla-V100-SXM2-16GB"},
        {"NVIDIA GeForce RTX 3090 Ti", "NVIDIA-GeForce-RTX-3090-Ti"},
        {"  Tesla   T4 ", "Tesla-T4"},
        {"Quadro RTX 8000 (rev a1)", "Quadro-RTX-8000-rev-a1"},
        {"A_B.C", "A_B.C"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int n = gs_gfd_sanitize(cases[i].k, out, sizeof out);
        cr_expect_str_eq(out, cases[i].v, "%s", cases[i].k);
        cr_expect_eq(n, (int)strlen(cases[i].v));
    }
    /* truncation reports the length needed, as snprintf */
    char small[6];
    cr_expect_eq(gs_gfd_sanitize("NVIDIA L4", small, sizeof small), 9);
    cr_expect_str_eq(small, "NVIDI");
}
