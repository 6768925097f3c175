/* GPU feature discovery's labels as pure data (gfd.h). Upstream: NVIDIA/k8s-device-plugin
 * internal/lm (resource.go: product, count, replicas, memory, family, compute; nvml.go: driver
 * and CUDA versions; mig-strategy.go, labeler.go: mode, mig.capable, mps.capable, vgpu). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/gfd.h"

const char *gs_sharing_name(enum gs_sharing s)
{
    switch (s) {
    case GS_SHARING_TIME_SLICING:
        return "time-slicing";
    case GS_SHARING_MPS:
        return "mps";
    case GS_SHARING_NONE:
        break;
    }
    return "none";
}

const char *gs_mig_strategy_name(enum gs_mig_strategy m)
{
    switch (m) {
    case GS_MIG_SINGLE:
        return "single";
    case GS_MIG_MIXED:
        return "mixed";
    case GS_MIG_NONE:
        break;
    }
    return "none";
}

static bool keep(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.' || c == ' ';
}

int gs_gfd_sanitize(const char *nvml_name, char *out, int size)
{
    int n = 0;
    bool pending_dash = false;
    for (const char *p = nvml_name ? nvml_name : ""; *p; p++) {
        if (!keep(*p))
            continue;
        if (*p == ' ') {
            /* strings.Fields + Join("-"): one dash between words, none at the ends */
            pending_dash = n > 0;
            continue;
        }
        if (pending_dash) {
            if (n + 1 < size)
                out[n] = '-';
            n++;
            pending_dash = false;
        }
        if (n + 1 < size)
            out[n] = *p;
        n++;
    }
    if (size > 0)
        out[n < size ? n : size - 1] = '\0';
    return n;
}

/* Branch -> "CUDA Version" of nvidia-smi (see gfd.h for how sure each is). */
static const struct {
    int branch;
    const char *cuda;
} cuda_by_branch[] = {
    {418, "10.1"}, {440, "10.2"}, {450, "11.0"}, {455, "11.1"}, {460, "11.2"}, {465, "11.3"},
    {470, "11.4"}, {495, "11.5"}, {510, "11.6"}, {515, "11.7"}, {520, "11.8"}, {525, "12.0"},
    {530, "12.1"}, {535, "12.2"}, {545, "12.3"}, {550, "12.4"}, {555, "12.5"}, {560, "12.6"},
    {565, "12.7"}, {570, "12.8"}, {575, "12.9"}, {580, "13.0"}, {590, "13.1"}, {595, "13.2"},
};

/* Split "535.129.03" into up to 3 digit runs; returns how many, 0 when not digits and dots. */
static int split_version(const char *v, char parts[3][16])
{
    int n = 0, len = 0;
    if (!v || !*v)
        return 0;
    for (const char *p = v;; p++) {
        if (*p >= '0' && *p <= '9') {
            if (len >= 15)
                return 0;
            parts[n][len++] = *p;
            continue;
        }
        if (len == 0 || (*p != '.' && *p != '\0'))
            return 0;
        parts[n][len] = '\0';
        n++;
        len = 0;
        if (*p == '\0')
            return n;
        if (n == 3)
            return 0;
    }
}

const char *gs_gfd_cuda_version(const char *driver_version)
{
    char parts[3][16];
    if (split_version(driver_version, parts) == 0)
        return NULL;
    int branch = atoi(parts[0]);
    for (size_t i = 0; i < sizeof cuda_by_branch / sizeof cuda_by_branch[0]; i++)
        if (cuda_by_branch[i].branch == branch)
            return cuda_by_branch[i].cuda;
    return NULL;
}

static int set(struct gs_labels *out, struct gs_arena *a, const char *key, const char *value)
{
    return gs_labels_set(out, a, key, value);
}

static int set_int(struct gs_labels *out, struct gs_arena *a, const char *key, long long v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", v);
    return gs_labels_set(out, a, key, buf);
}

static int version_labels(const char *driver, struct gs_labels *out, struct gs_arena *a)
{
    char parts[3][16];
    int n = split_version(driver, parts);
    if (n == 0)
        return 0;
    int rc = 0;
    rc |= set(out, a, "nvidia.com/cuda.driver-version.full", driver);
    rc |= set(out, a, "nvidia.com/cuda.driver-version.major", parts[0]);
    rc |= set(out, a, "nvidia.com/cuda.driver.major", parts[0]);
    if (n >= 2) {
        /* parseDriverVersion: a two-part version has an empty revision */
        const char *rev = n == 3 ? parts[2] : "";
        rc |= set(out, a, "nvidia.com/cuda.driver-version.minor", parts[1]);
        rc |= set(out, a, "nvidia.com/cuda.driver-version.revision", rev);
        rc |= set(out, a, "nvidia.com/cuda.driver.minor", parts[1]);
        rc |= set(out, a, "nvidia.com/cuda.driver.rev", rev);
    }
    const char *cuda = gs_gfd_cuda_version(driver);
    if (cuda) {
        const char *dot = strchr(cuda, '.');
        char major[8];
        snprintf(major, sizeof major, "%.*s", (int)(dot - cuda), cuda);
        rc |= set(out, a, "nvidia.com/cuda.runtime-version.full", cuda);
        rc |= set(out, a, "nvidia.com/cuda.runtime-version.major", major);
        rc |= set(out, a, "nvidia.com/cuda.runtime-version.minor", dot + 1);
        rc |= set(out, a, "nvidia.com/cuda.runtime.major", major);
        rc |= set(out, a, "nvidia.com/cuda.runtime.minor", dot + 1);
    }
    return rc ? GS_ENOMEM : 0;
}

int gs_gfd_labels(const struct gs_gfd_input *in, struct gs_labels *out, struct gs_arena *a)
{
    if (!in || !out || !a)
        return GS_EINVAL;
    const struct gs_gpu_product *p = in->product;
    const char *name = p ? p->product : in->product_name;
    if (!name || !*name)
        return GS_EINVAL;
    int replicas = in->replicas < 1 ? 1 : in->replicas;
    int rc = 0;
    /* resource.go: "-SHARED" when replicated under the original resource name */
    if (replicas > 1 && !in->renamed) {
        char *shared = gs_arena_printf(a, "%s-SHARED", name);
        if (!shared)
            return GS_ENOMEM;
        rc |= set(out, a, "nvidia.com/gpu.product", shared);
    } else {
        rc |= set(out, a, "nvidia.com/gpu.product", name);
    }
    rc |= set_int(out, a, "nvidia.com/gpu.count", in->gpu_count < 0 ? 0 : in->gpu_count);
    rc |= set_int(out, a, "nvidia.com/gpu.replicas", replicas);
    rc |= set(out, a, "nvidia.com/gpu.sharing-strategy", gs_sharing_name(in->sharing));
    rc |= set(out, a, "nvidia.com/gpu.mode", "compute");
    rc |= set(out, a, "nvidia.com/mps.capable", in->sharing == GS_SHARING_MPS ? "true" : "false");
    rc |= set(out, a, "nvidia.com/vgpu.present", "false");
    if (in->mig_strategy != GS_MIG_NONE)
        rc |= set(out, a, "nvidia.com/mig.strategy", gs_mig_strategy_name(in->mig_strategy));
    if (p) {
        rc |= set_int(out, a, "nvidia.com/gpu.memory", p->memory_mib);
        rc |= set(out, a, "nvidia.com/gpu.family", p->family);
        rc |= set_int(out, a, "nvidia.com/gpu.compute.major", p->compute_major);
        rc |= set_int(out, a, "nvidia.com/gpu.compute.minor", p->compute_minor);
        rc |= set(out, a, "nvidia.com/mig.capable", p->mig_capable ? "true" : "false");
    }
    if (rc)
        return GS_ENOMEM;
    return version_labels(in->driver_version, out, a);
}
