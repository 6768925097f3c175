/* gpusim: the ResourceSlice the NVIDIA DRA kubelet plugin publishes for a node (dra.h).
 * Follows kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/deviceinfo.go
 * (GpuInfo.GetDevice) and mig.go (MigSpecTuple.ToCanonicalName, CommonAttributesMig,
 * CommonCapacitiesMig), with the catalog (models/catalog/gpus.yaml) in place of NVML. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "models/dra/dra.h"

#define DEFAULT_DRIVER_VERSION "580.95.5"
#define DEFAULT_CUDA_DRIVER_VERSION "13.0.0"

static uint64_t fnv1a(uint64_t h, const char *s)
{
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ULL;
    }
    return h;
}

/* A deterministic UUID-shaped identifier for GPU `index` (mig < 0) or one of its MIG devices. */
static char *make_uuid(struct gs_arena *a, const char *prefix, const char *node, int index, int mig)
{
    char key[96];
    snprintf(key, sizeof key, "/%d/%d", index, mig);
    uint64_t h1 = fnv1a(fnv1a(14695981039346656037ULL, node), key);
    uint64_t h2 = fnv1a(h1 ^ 0x9e3779b97f4a7c15ULL, "uuid");
    return gs_arena_printf(a, "%s-%08" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%04" PRIx64 "-%012" PRIx64,
                           prefix, h1 >> 32, (h1 >> 16) & 0xffff, h1 & 0xffff, h2 >> 48,
                           (uint64_t)(h2 & 0xffffffffffffULL));
}

/* Masterminds semver NewVersion (lenient): "580.159.04" -> "580.159.4", "13.0" -> "13.0.0". */
static int lenient_version(struct gs_arena *a, const char *text, struct gs_device_attribute *attr,
                           const char *name, struct gs_error *err)
{
    long long part[3] = {0, 0, 0};
    int np = 0;
    const char *p = text;
    if (*p == 'v')
        p++;
    while (np < 3) {
        if (*p < '0' || *p > '9')
            return gs_error_set(err, GS_EINVAL, NULL, 0, 0, "DRA: invalid %s \"%s\"", name, text);
        long long v = 0;
        while (*p >= '0' && *p <= '9') {
            if (v > 100000000LL)
                return gs_error_set(err, GS_EINVAL, NULL, 0, 0, "DRA: invalid %s \"%s\"", name, text);
            v = v * 10 + (*p++ - '0');
        }
        part[np++] = v;
        if (*p != '.')
            break;
        p++;
    }
    if (*p != '\0')
        return gs_error_set(err, GS_EINVAL, NULL, 0, 0, "DRA: invalid %s \"%s\"", name, text);
    char *s = gs_arena_printf(a, "%lld.%lld.%lld", part[0], part[1], part[2]);
    if (!s)
        return GS_ENOMEM;
    attr->name = name;
    attr->kind = GS_ATTR_VERSION;
    attr->s = s;
    return gs_semver_parse(s, &attr->v, NULL) ? GS_EINVAL : 0;
}

static void str_attr(struct gs_device_attribute *at, const char *name, const char *v)
{
    at->name = name;
    at->kind = GS_ATTR_STRING;
    at->s = v ? v : "";
}

static void int_attr(struct gs_device_attribute *at, const char *name, int64_t v)
{
    at->name = name;
    at->kind = GS_ATTR_INT;
    at->i = v;
}

static int cap_count(struct gs_device_capacity *c, const char *name, int64_t value,
                     const char *suffix)
{
    char buf[48];
    snprintf(buf, sizeof buf, "%" PRId64 "%s", value, suffix);
    c->name = name;
    return gs_quantity_parse(buf, &c->value) ? GS_EINVAL : 0;
}

/* The attributes shared by a GPU and its MIG devices (the parent's identity). */
static int common_attrs(struct gs_arena *a, const struct gs_gpu_product *prod,
                        const struct gs_dra_slice_opts *o, struct gs_device_attribute *at,
                        struct gs_error *err)
{
    str_attr(&at[0], "productName", prod->nvml_name);
    str_attr(&at[1], "brand", prod->brand);
    str_attr(&at[2], "architecture", prod->architecture);
    char cc[32];
    snprintf(cc, sizeof cc, "%d.%d", prod->compute_major, prod->compute_minor);
    int rc;
    if ((rc = lenient_version(a, cc, &at[3], "cudaComputeCapability", err)) ||
        (rc = lenient_version(a, o && o->driver_version ? o->driver_version : DEFAULT_DRIVER_VERSION,
                              &at[4], "driverVersion", err)) ||
        (rc = lenient_version(a, o && o->cuda_driver_version ? o->cuda_driver_version
                                                             : DEFAULT_CUDA_DRIVER_VERSION,
                              &at[5], "cudaDriverVersion", err)))
        return rc;
    return 0;
}
#define NCOMMON 6

/* toRFC1123Compliant(strings.ReplaceAll(profile, ".", "")). */
static char *profile_token(struct gs_arena *a, const char *profile)
{
    char buf[64];
    size_t n = 0;
    for (const char *p = profile; *p && n < sizeof buf - 1; p++) {
        char c = *p;
        if (c == '.')
            continue;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'))
            c = '-';
        buf[n++] = c;
    }
    buf[n] = '\0';
    char *s = buf;
    while (*s == '-')
        s++;
    while (n > 0 && buf[n - 1] == '-')
        buf[--n] = '\0';
    return gs_arena_strdup(a, s);
}

static int build_gpu(struct gs_arena *a, const char *node, const struct gs_gpu_product *prod, int i,
                     const struct gs_dra_slice_opts *o, struct gs_dra_device *d, const char *uuid,
                     struct gs_error *err)
{
    bool idx = o && o->publish_index;
    int na = 2 + NCOMMON + (idx ? 2 : 0);
    d->attrs = gs_arena_alloc(a, (size_t)na * sizeof *d->attrs);
    d->caps = gs_arena_alloc(a, sizeof *d->caps);
    d->name = gs_arena_printf(a, "gpu-%d", i);
    if (!d->attrs || !d->caps || !d->name)
        return GS_ENOMEM;
    (void)node;
    str_attr(&d->attrs[0], "type", "gpu");
    str_attr(&d->attrs[1], "uuid", uuid);
    int rc = common_attrs(a, prod, o, d->attrs + 2, err);
    if (rc)
        return rc;
    if (idx) {
        int_attr(&d->attrs[2 + NCOMMON], "index", i);
        int_attr(&d->attrs[3 + NCOMMON], "minor", i);
    }
    d->nattrs = na;
    if (cap_count(&d->caps[0], "memory", prod->memory_mib, "Mi"))
        return GS_EINVAL;
    d->ncaps = 1;
    d->gpu = i;
    d->parent = NULL;
    return 0;
}

static int build_mig(struct gs_arena *a, const char *node, const struct gs_gpu_product *prod, int i,
                     int m, const struct gs_dra_mig_device *md, const struct gs_dra_slice_opts *o,
                     const char *parent_uuid, const char *parent_name, struct gs_dra_device *d,
                     struct gs_error *err)
{
    if (!md->profile || !*md->profile || md->placement_start < 0 || md->placement_size < 1 ||
        md->placement_start + md->placement_size > 8 || md->memory_mib < 0)
        return gs_error_set(err, GS_EINVAL, NULL, 0, 0,
                            "DRA: node %s GPU %d: MIG device %d needs a profile and a placement within 8 slices",
                            node, i, m);
    char *tok = profile_token(a, md->profile);
    d->name = tok ? gs_arena_printf(a, "gpu-%d-mig-%s-%d-%d", i, tok, md->profile_id, md->placement_start) : NULL;
    int na = 4 + NCOMMON, nc = 7 + md->placement_size;
    d->attrs = gs_arena_alloc(a, (size_t)na * sizeof *d->attrs);
    d->caps = gs_arena_alloc(a, (size_t)nc * sizeof *d->caps);
    char *uuid = make_uuid(a, "MIG", node, i, m);
    char *profile = gs_arena_strdup(a, md->profile);
    if (!d->name || !d->attrs || !d->caps || !uuid || !profile)
        return GS_ENOMEM;
    str_attr(&d->attrs[0], "type", "mig");
    str_attr(&d->attrs[1], "uuid", uuid);
    str_attr(&d->attrs[2], "parentUUID", parent_uuid);
    str_attr(&d->attrs[3], "profile", profile);
    int rc = common_attrs(a, prod, o, d->attrs + 4, err);
    if (rc)
        return rc;
    d->nattrs = na;
    static const char *names[] = {"multiprocessors", "copyEngines", "decoders", "encoders",
                                  "jpegEngines", "ofaEngines"};
    int64_t vals[] = {md->multiprocessors, md->copy_engines, md->decoders, md->encoders,
                      md->jpeg_engines, md->ofa_engines};
    for (int k = 0; k < 6; k++)
        if (cap_count(&d->caps[k], names[k], vals[k], ""))
            return GS_EINVAL;
    if (cap_count(&d->caps[6], "memory", md->memory_mib, "Mi"))
        return GS_EINVAL;
    for (int s = 0; s < md->placement_size; s++) {
        char *nm = gs_arena_printf(a, "memorySlice%d", md->placement_start + s);
        if (!nm)
            return GS_ENOMEM;
        if (cap_count(&d->caps[7 + s], nm, 1, ""))
            return GS_EINVAL;
    }
    d->ncaps = nc;
    d->gpu = i;
    d->parent = parent_name;
    return 0;
}

int gs_dra_slice_build(struct gs_arena *a, const char *node, const struct gs_gpu_product *product,
                       int ngpus, const struct gs_dra_gpu_layout *layouts,
                       const struct gs_dra_slice_opts *opts, struct gs_resource_slice *out,
                       struct gs_error *err)
{
    if (!a || !node || !out)
        return gs_error_set(err, GS_EINVAL, NULL, 0, 0, "DRA: no arena, node or slice");
    memset(out, 0, sizeof *out);
    if (!product || !product->nvml_name)
        return gs_error_set(err, GS_EINVAL, NULL, 0, 0, "DRA: node %s: no GPU product", node);
    if (ngpus < 0 || ngpus > GS_DRA_MAX_GPUS)
        return gs_error_set(err, GS_EINVAL, NULL, 0, 0, "DRA: node %s: %d GPUs (0 to %d supported)",
                            node, ngpus, GS_DRA_MAX_GPUS);
    int ndev = 0;
    for (int i = 0; i < ngpus; i++)
        ndev += (layouts && layouts[i].nmig > 0) ? layouts[i].nmig : 1;
    struct gs_dra_device *devs = ndev ? gs_arena_alloc(a, (size_t)ndev * sizeof *devs) : NULL;
    out->name = gs_arena_printf(a, "%s-%s", node, GS_DRA_DRIVER_GPU);
    out->node_name = gs_arena_strdup(a, node);
    if ((ndev && !devs) || !out->name || !out->node_name)
        return GS_ENOMEM;
    out->driver = GS_DRA_DRIVER_GPU;
    out->pool = out->node_name;
    out->generation = 1;
    out->resource_slice_count = 1;
    int k = 0;
    for (int i = 0; i < ngpus; i++) {
        char *uuid = make_uuid(a, "GPU", node, i, -1);
        char *pname = gs_arena_printf(a, "gpu-%d", i);
        if (!uuid || !pname)
            return GS_ENOMEM;
        int rc;
        if (layouts && layouts[i].nmig > 0) {
            for (int m = 0; m < layouts[i].nmig; m++)
                if ((rc = build_mig(a, node, product, i, m, &layouts[i].mig[m], opts, uuid, pname,
                                    &devs[k++], err)))
                    return rc;
        } else if ((rc = build_gpu(a, node, product, i, opts, &devs[k++], uuid, err))) {
            return rc;
        }
    }
    out->devices = devs;
    out->ndevices = ndev;
    return 0;
}

struct gs_cel_device gs_dra_cel_view(const struct gs_resource_slice *s, const struct gs_dra_device *d)
{
    struct gs_cel_device v = {
        .driver = s ? s->driver : NULL,
        .attrs = d ? d->attrs : NULL,
        .nattrs = d ? d->nattrs : 0,
        .caps = d ? d->caps : NULL,
        .ncaps = d ? d->ncaps : 0,
    };
    return v;
}
