/* spec.cluster.source {format: openb, nodes: <csv>}: an openb node list (models/openb.h,
 * ../shared/data/openb/README.md) as the cluster, one node per row.
 *
 * A node keeps its `sn` name; capacity = allocatable = cpu_milli millicores, memory_mib MiB
 * and 110 pods; `gpu` GPUs of the row's model. The model is the node label
 * alibabacloud.com/gpu-card-model (what a trace pod's gpu_spec selects), and its GPU product
 * (nvidia.com/gpu.product) is the catalog's where the catalog has the card (A10, T4,
 * V100M16), else the card's real GFD name (P100, V100M32) or openb-<model> for Alibaba's
 * undisclosed G1/G2/G3: custom products, outside the catalog. Pools are named
 * <model>-<gpus>gpu (lowercase) and `cpu` for the rows without GPUs. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "models/openb.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/source.h"

static const struct {
    const char *model, *product;
} products[] = {
    {"A10", "NVIDIA-A10"},              /* models/catalog/gpus.yaml */
    {"T4", "Tesla-T4"},                 /* models/catalog/gpus.yaml */
    {"V100M16", "Tesla-V100-SXM2-16GB"}, /* models/catalog/gpus.yaml */
    {"V100M32", "Tesla-V100-SXM2-32GB"}, /* not in the catalog */
    {"P100", "Tesla-P100-PCIE-16GB"},    /* not in the catalog */
};

static const char *product_of(struct gs_arena *a, const char *model)
{
    for (size_t i = 0; i < sizeof products / sizeof products[0]; i++)
        if (strcmp(products[i].model, model) == 0)
            return products[i].product;
    return gs_arena_printf(a, "openb-%s", model);
}

/* "<model>-<gpus>gpu" as a DNS label: lowercase, anything but [a-z0-9] becomes '-'. */
static const char *stem_of(struct gs_arena *a, const char *model, int gpus)
{
    char buf[64];
    size_t n = 0;
    for (const char *p = model; *p && n < 40; p++)
        buf[n++] = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '-';
    snprintf(buf + n, sizeof buf - n, "-%dgpu", gpus);
    return gs_arena_strdup(a, buf[0] == '-' ? buf + 1 : buf);
}

int gs_scn_openb_nodes(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_scenario *sc)
{
    const struct gs_ynode *fn = gs_y_get(n, "nodes");
    const char *rel, *file;
    char p[GS_SCN_PATH];
    int rc = gs_y_str(d, fn, gs_scn_path(p, "%s.nodes", path), &rel);
    if (rc)
        return rc;
    if (!(file = gs_scn_source_path(d, fn, rel)))
        return GS_ENOMEM;
    struct gs_openb_models models = {0};
    struct gs_openb_cluster c = {0};
    struct gs_error e = {0};
    rc = gs_openb_read_nodes(file, &models, &c, &e);
    if (rc == GS_EIO)
        return gs_y_error(d, fn, "cannot read the openb node list '%s' of %s: %s", rel, path, e.msg);
    if (rc) {
        *d->err = e;
        return rc;
    }
    struct gs_src_node *nodes = gs_arena_alloc(d->arena, sizeof *nodes * (size_t)(c.n ? c.n : 1));
    int cpu = gs_res_find(&d->world->res, "cpu"), mem = gs_res_find(&d->world->res, "memory");
    int pods = gs_res_find(&d->world->res, "pods");
    rc = nodes ? 0 : gs_error_set(d->err, GS_ENOMEM, fn->file, fn->line, fn->col, "out of memory");
    for (int i = 0; !rc && i < c.n; i++) {
        const struct gs_openb_node *on = &c.nodes[i];
        struct gs_src_node *s = &nodes[i];
        struct gs_resvec *cap = gs_arena_alloc(d->arena, sizeof *cap);
        if (!cap || !(s->own.name = gs_arena_strdup(d->arena, on->name))) {
            rc = gs_error_set(d->err, GS_ENOMEM, fn->file, fn->line, fn->col, "out of memory");
            break;
        }
        /* Row i is line i + 2 of the file (after the header). */
        if (!gs_scn_is_dns_subdomain(on->name)) {
            rc = gs_error_set(d->err, GS_EINVAL, file, i + 2, 1,
                              "invalid node name '%s': must be a DNS-1123 subdomain (lowercase alphanumerics, "
                              "'-' and '.')",
                              on->name);
            break;
        }
        if (on->memory_mib > (GS_QUANTITY_MAX >> 20) || on->cpu_milli > GS_QUANTITY_MAX) {
            rc = gs_error_set(d->err, GS_EINVAL, file, i + 2, 1,
                              "node '%s': %lld MiB of memory or %lld millicores is more than gpusim supports "
                              "(1Pi of memory, 2^50 millicores)",
                              on->name, (long long)on->memory_mib, (long long)on->cpu_milli);
            break;
        }
        cap->v[cpu] = on->cpu_milli;
        cap->v[mem] = on->memory_mib << 20;
        cap->v[pods] = 110;
        s->own.capacity = s->own.allocatable = cap;
        s->gpus = on->gpu;
        if (on->gpu > 0 && on->model >= 0) {
            const char *model = models.name[on->model];
            s->product = product_of(d->arena, model);
            s->stem = stem_of(d->arena, model, on->gpu);
            if (!s->product || !s->stem ||
                gs_labels_set(&s->own.labels, d->arena, GS_SRC_CARD_MODEL_LABEL, model))
                rc = gs_error_set(d->err, GS_ENOMEM, fn->file, fn->line, fn->col, "out of memory");
        } else if (on->gpu > 0) {
            s->stem = stem_of(d->arena, "gpu", on->gpu); /* GPUs of no model: no product */
            if (!s->stem)
                rc = gs_error_set(d->err, GS_ENOMEM, fn->file, fn->line, fn->col, "out of memory");
        } else {
            s->stem = "cpu";
        }
    }
    int count = c.n;
    gs_openb_cluster_free(&c);
    if (rc)
        return rc;
    return gs_scn_source_pools(d, fn, file, nodes, count, sc);
}
