/* gpusim: spec.cluster -> world.pools (decode.h).
 *
 * Units: cpu in millicores (Quantity.MilliValue), memory and ephemeral-storage in bytes
 * (Quantity.Value), pods and extended resources as counts (Quantity.Value, rounded up).
 * capacity.cpu and capacity.memory are required; capacity.pods defaults to 110 (the kubelet's
 * maxPods); ephemeral-storage and extended resources default to absent (0). nvidia.com/gpu is
 * never in a pool's capacity: the run loop advertises `gpu.count` when the device plugin
 * registers. Every amount must be at most GS_QUANTITY_MAX (2^50 in those units: 1Pi of memory,
 * about 1.1e12 cores).
 *
 * hostDriver {version, kernels} (gpusim's key, SCENARIO.md "host: the node image's driver"): the
 * NVIDIA driver the node image ships, used when the operator does not install one. `version` is
 * required ("550.90.07"); `kernels` lists the kernels it has modules for and defaults to the
 * pool's `kernel` (an image's driver is built for the image's kernel), so a kernelPatch to any
 * other kernel breaks it; list every kernel the image's DKMS will rebuild for to keep it working. */
#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "base/strmap.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/source.h"

#define GS_POOL_MAX_NODES 1000000
#define GS_DEFAULT_MAX_PODS 110

/* One capacity/reserved map into `v`. `seen` marks the resources present. */
static int decode_resources(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_resvec *v,
                            bool seen[GS_RES_MAX])
{
    int rc = gs_y_want_map(d, m, path);
    if (rc)
        return rc;
    static const char *const native[] = {"cpu", "memory", "pods", "ephemeral-storage", NULL};
    for (int i = 0; i < m->n; i++) {
        const struct gs_ynode *k = m->pairs[i].key, *val = m->pairs[i].value;
        const char *name = k->text;
        char p[GS_SCN_PATH];
        gs_scn_path(p, "%s.%s", path, name);
        bool is_native = false;
        for (int j = 0; native[j]; j++)
            if (strcmp(name, native[j]) == 0)
                is_native = true;
        if (strcmp(name, "nvidia.com/gpu") == 0)
            return gs_y_error(d, k,
                              "nvidia.com/gpu cannot be set in %s: the device plugin advertises it; "
                              "use gpu: {product, count} in the node pool",
                              path);
        if (!is_native && !gs_res_is_extended(name)) {
            const char *near = gs_y_suggest(name, native);
            if (near)
                return gs_y_error(d, k, "unknown resource '%.80s' in %s (did you mean '%s'?)", name, path, near);
            return gs_y_error(d, k,
                              "unknown resource '%.80s' in %s: expected cpu, memory, pods, ephemeral-storage "
                              "or an extended resource such as example.com/fpga",
                              name, path);
        }
        if (!is_native && !gs_scn_is_qualified_name(name))
            return gs_y_error(d, k, "invalid resource name '%.80s' in %s: must be a qualified name such as example.com/fpga",
                              name, path);
        struct gs_quantity q;
        if ((rc = gs_y_quantity(d, val, p, &q)))
            return rc;
        if (gs_quantity_milli(&q) < 0)
            return gs_y_error(d, val, "%s must not be negative, got %s", p, val->text);
        int idx = gs_res_intern(&d->world->res, d->arena, name);
        if (idx < 0)
            return gs_y_error(d, k, "too many distinct resources (gpusim supports %d)", GS_RES_MAX);
        v->v[idx] = idx == GS_RES_CPU ? gs_quantity_milli(&q) : gs_quantity_value(&q);
        if ((rc = gs_scn_check_amount(d, val, p, name, v->v[idx])))
            return rc;
        seen[idx] = true;
    }
    return 0;
}

static const char *const taint_effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute", NULL};

/* Taint `i` of the list at `path`, node `t`, into pool->taints[i]. Taints are unique by key and
 * effect: the earlier ones are scanned up to GS_SCN_NAMES_SCAN, then looked up in `seen`, a map
 * of their keys for each effect. */
static int decode_taint(struct gs_ydec *d, const struct gs_ynode *t, const char *path, int i, struct gs_pool *pool,
                        struct gs_strmap seen[3])
{
    static const char *const keys[] = {"key", "value", "effect", "timeAdded", NULL};
    static const char *const req[] = {"key", "effect", NULL};
    char p[GS_SCN_PATH], pk[GS_SCN_PATH];
    gs_scn_path(p, "%s[%d]", path, i);
    int rc = gs_y_check_map(d, t, p, keys, NULL, req);
    if (rc)
        return rc;
    struct gs_taint *taint = &pool->taints[i];
    const struct gs_ynode *kn = gs_y_get(t, "key");
    if ((rc = gs_y_kstr(d, kn, gs_scn_path(pk, "%s.key", p), &taint->key)))
        return rc;
    if (!gs_scn_is_qualified_name(taint->key))
        return gs_y_error(d, kn, "invalid taint key \"%.80s\" at %s: must be a qualified name such as "
                          "example.com/dedicated", taint->key, pk);
    taint->value = "";
    const struct gs_ynode *vn = gs_y_get(t, "value");
    if (vn && !gs_y_is_null(vn)) {
        if ((rc = gs_y_kstr(d, vn, gs_scn_path(pk, "%s.value", p), &taint->value)))
            return rc;
        if (!gs_scn_is_label_value(taint->value))
            return gs_y_error(d, vn, "invalid taint value \"%.80s\" at %s: must be 63 characters or less, "
                              "alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric",
                              taint->value, pk);
    }
    int e;
    const struct gs_ynode *en = gs_y_get(t, "effect");
    if ((rc = gs_y_enum(d, en, gs_scn_path(pk, "%s.effect", p), taint_effects, &e)))
        return rc;
    taint->effect = e == 0 ? GS_EFFECT_NO_SCHEDULE : e == 1 ? GS_EFFECT_PREFER_NO_SCHEDULE : GS_EFFECT_NO_EXECUTE;
    bool dup = false;
    if (i <= GS_SCN_NAMES_SCAN) {
        for (int j = 0; j < i && !dup; j++)
            dup = strcmp(pool->taints[j].key, taint->key) == 0 && pool->taints[j].effect == taint->effect;
    } else {
        /* The earlier taints not in the maps yet (all of them the first time). */
        for (int j = seen[0].n + seen[1].n + seen[2].n; j < i; j++) {
            int ej = pool->taints[j].effect == GS_EFFECT_NO_SCHEDULE ? 0
                     : pool->taints[j].effect == GS_EFFECT_PREFER_NO_SCHEDULE ? 1 : 2;
            if (gs_strmap_add(&seen[ej], pool->taints[j].key, j, NULL) < 0)
                return gs_error_set(d->err, GS_ENOMEM, t->file, t->line, t->col, "out of memory");
        }
        dup = gs_strmap_get(&seen[e], taint->key) >= 0;
    }
    if (dup)
        return gs_y_error(d, t, "duplicate taint at %s: taints must be unique by key and effect (%s:%s)", p,
                          taint->key, taint_effects[e]);
    pool->ntaints++;
    return 0;
}

static int decode_taints(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, struct gs_pool *pool)
{
    int rc = gs_y_want_seq(d, seq, path);
    if (rc)
        return rc;
    if (seq->n == 0)
        return 0;
    pool->taints = gs_arena_alloc(d->arena, sizeof *pool->taints * (size_t)seq->n);
    if (!pool->taints)
        return gs_error_set(d->err, GS_ENOMEM, seq->file, seq->line, seq->col, "out of memory");
    struct gs_strmap seen[3] = {{0}};
    for (int i = 0; i < seq->n && !rc; i++)
        rc = decode_taint(d, seq->items[i], path, i, pool, seen);
    for (int e = 0; e < 3; e++)
        gs_strmap_free(&seen[e]);
    return rc;
}

static int decode_pool(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_pool *pool)
{
    static const char *const keys[] = {"name",   "count",  "gpu",     "capacity",  "reserved",   "labels",
                                       "taints", "kernel", "joinAt",  "joinEvery", "topology",   "hostDriver",
                                       "autoscaling", /* decoded by autoscaling.c */ "pricePerHour", NULL};
    static const char *const req[] = {"name", "count", "capacity", NULL};
    int rc = gs_y_check_map(d, m, path, keys, NULL, req);
    if (rc)
        return rc;
    char p[GS_SCN_PATH];
    const struct gs_ynode *n = gs_y_get(m, "name");
    if ((rc = gs_y_str(d, n, gs_scn_path(p, "%s.name", path), &pool->name)))
        return rc;
    if (!gs_scn_is_dns_label(pool->name) || strlen(pool->name) > 50)
        return gs_y_error(d, n,
                          "invalid node pool name \"%.80s\" at %s: must be a DNS-1123 label of at most 50 "
                          "characters (lowercase letters, digits or '-', starting and ending with a letter or "
                          "digit; node names are <name>-<index>)",
                          pool->name, p);
    int64_t v;
    if ((rc = gs_y_int(d, gs_y_get(m, "count"), gs_scn_path(p, "%s.count", path), 0, GS_POOL_MAX_NODES, &v)))
        return rc;
    pool->count = (int)v;

    if ((n = gs_y_get(m, "gpu"))) {
        static const char *const gkeys[] = {"product", "count", NULL};
        char gp[GS_SCN_PATH];
        gs_scn_path(gp, "%s.gpu", path);
        if ((rc = gs_y_check_map(d, n, gp, gkeys, NULL, gkeys)))
            return rc;
        if ((rc = gs_y_str(d, gs_y_get(n, "product"), gs_scn_path(p, "%s.product", gp), &pool->gpu_product)))
            return rc;
        /* gpusim keeps per-GPU state for up to GS_GPUS_MAX (16) GPUs a node. */
        if ((rc = gs_y_int(d, gs_y_get(n, "count"), gs_scn_path(p, "%s.count", gp), 1, GS_GPUS_MAX, &v)))
            return rc;
        pool->gpu_count = (int)v;
    }

    bool cap_seen[GS_RES_MAX] = {false}, res_seen[GS_RES_MAX] = {false};
    const struct gs_ynode *capn = gs_y_get(m, "capacity");
    char cp[GS_SCN_PATH];
    gs_scn_path(cp, "%s.capacity", path);
    if ((rc = decode_resources(d, capn, cp, &pool->capacity, cap_seen)))
        return rc;
    if (!cap_seen[GS_RES_CPU])
        return gs_y_error(d, capn, "missing required field 'cpu' in %s", cp);
    if (!cap_seen[GS_RES_MEMORY])
        return gs_y_error(d, capn, "missing required field 'memory' in %s", cp);
    if (!cap_seen[GS_RES_PODS])
        pool->capacity.v[GS_RES_PODS] = GS_DEFAULT_MAX_PODS;

    if ((n = gs_y_get(m, "reserved"))) {
        char rp[GS_SCN_PATH];
        gs_scn_path(rp, "%s.reserved", path);
        if ((rc = decode_resources(d, n, rp, &pool->reserved, res_seen)))
            return rc;
        for (int i = 0; i < n->n; i++) {
            int idx = gs_res_find(&d->world->res, n->pairs[i].key->text);
            if (idx >= 0 && pool->reserved.v[idx] > pool->capacity.v[idx])
                return gs_y_error(d, n->pairs[i].value, "%s.%s (%s) exceeds the capacity (%lld%s)", rp,
                                  n->pairs[i].key->text, n->pairs[i].value->text,
                                  (long long)pool->capacity.v[idx], idx == GS_RES_CPU ? "m" : "");
        }
    }

    if ((n = gs_y_get(m, "labels")) && !gs_y_is_null(n)) {
        char lp[GS_SCN_PATH];
        gs_scn_path(lp, "%s.labels", path);
        if ((rc = gs_y_labels(d, n, lp, &pool->labels)))
            return rc;
        for (int i = 0; i < n->n; i++) {
            const struct gs_ynode *k = n->pairs[i].key, *lv = n->pairs[i].value;
            if (!gs_scn_is_qualified_name(k->text))
                return gs_y_error(d, k, "invalid label key \"%.80s\" in %s: must be a qualified name such as "
                                  "example.com/rack", k->text, lp);
            if (!gs_y_is_null(lv) && !gs_scn_is_label_value(lv->text))
                return gs_y_error(d, lv, "invalid label value \"%.80s\" at %s.%s: must be 63 characters or less, "
                                  "alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric",
                                  lv->text, lp, k->text);
        }
    }
    if ((n = gs_y_get(m, "taints")) && !gs_y_is_null(n) &&
        (rc = decode_taints(d, n, gs_scn_path(p, "%s.taints", path), pool)))
        return rc;
    if ((n = gs_y_get(m, "kernel")) && (rc = gs_y_str(d, n, gs_scn_path(p, "%s.kernel", path), &pool->kernel)))
        return rc;
    if ((n = gs_y_get(m, "hostDriver")) && !gs_y_is_null(n)) {
        static const char *const hkeys[] = {"version", "kernels", NULL};
        static const char *const hreq[] = {"version", NULL};
        char hp[GS_SCN_PATH];
        gs_scn_path(hp, "%s.hostDriver", path);
        if ((rc = gs_y_check_map(d, n, hp, hkeys, NULL, hreq)))
            return rc;
        const struct gs_ynode *vn = gs_y_get(n, "version");
        if ((rc = gs_y_str(d, vn, gs_scn_path(p, "%s.version", hp), &pool->host_driver_version)))
            return rc;
        if (!gs_scn_driver_version_ok(pool->host_driver_version))
            return gs_y_error(d, vn, "invalid driver version \"%.60s\" at %s: expected a version such as \"550.90.07\"",
                              pool->host_driver_version, p);
        const struct gs_ynode *kn = gs_y_get(n, "kernels");
        if (kn && !gs_y_is_null(kn)) {
            if ((rc = gs_scn_kernels(d, kn, gs_scn_path(p, "%s.kernels", hp), &pool->host_driver_kernels,
                                     &pool->nhost_driver_kernels)))
                return rc;
        } else if (pool->kernel) {
            const char **k = gs_arena_alloc(d->arena, sizeof *k);
            if (!k)
                return gs_error_set(d->err, GS_ENOMEM, n->file, n->line, n->col, "out of memory");
            k[0] = pool->kernel;
            pool->host_driver_kernels = k;
            pool->nhost_driver_kernels = 1;
        }
    }
    if ((n = gs_y_get(m, "joinAt")) &&
        (rc = gs_y_duration(d, n, gs_scn_path(p, "%s.joinAt", path), false, &pool->join_at)))
        return rc;
    if ((n = gs_y_get(m, "joinEvery")) &&
        (rc = gs_y_duration(d, n, gs_scn_path(p, "%s.joinEvery", path), false, &pool->join_every)))
        return rc;
    if ((n = gs_y_get(m, "pricePerHour"))) {
        /* a cost proxy for studies: the report's cost is nodeHours x pricePerHour */
        if ((rc = gs_y_double(d, n, gs_scn_path(p, "%s.pricePerHour", path), &pool->price_per_hour)))
            return rc;
        /* bounded so that cost = node-hours x price stays finite: at most 1e9 an hour times
         * GS_MAX_NODES nodes for GS_TIME_MAX is about 2.6e20 */
        if (!(pool->price_per_hour >= 0 && pool->price_per_hour <= 1e9))
            return gs_y_error(d, n, "%s.pricePerHour must be from 0 to 1e9 (a price an hour), got %s", path, n->text);
        pool->has_price = true;
    }
    if ((n = gs_y_get(m, "topology"))) {
        static const char *const tkeys[] = {"nodesPerRack", "rackLabel", NULL};
        char tp[GS_SCN_PATH];
        gs_scn_path(tp, "%s.topology", path);
        if ((rc = gs_y_check_map(d, n, tp, tkeys, NULL, tkeys)))
            return rc;
        if ((rc = gs_y_int(d, gs_y_get(n, "nodesPerRack"), gs_scn_path(p, "%s.nodesPerRack", tp), 1,
                           GS_POOL_MAX_NODES, &v)))
            return rc;
        pool->nodes_per_rack = (int)v;
        const struct gs_ynode *rl = gs_y_get(n, "rackLabel");
        if ((rc = gs_y_str(d, rl, gs_scn_path(p, "%s.rackLabel", tp), &pool->rack_label)))
            return rc;
        if (!gs_scn_is_qualified_name(pool->rack_label))
            return gs_y_error(d, rl, "invalid label key \"%.80s\" at %s: must be a qualified name such as "
                              "example.com/rack", pool->rack_label, p);
    }
    return 0;
}

static int node_pools(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc);

int gs_scn_cluster(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc)
{
    static const char *const keys[] = {"nodePools", "source", NULL};
    int rc = gs_y_check_map(d, map, "spec.cluster", keys, NULL, NULL);
    if (rc)
        return rc;
    const struct gs_ynode *seq = gs_y_get(map, "nodePools"), *src = gs_y_get(map, "source");
    if (!seq && !src)
        return gs_y_error(d, map, "missing required field 'nodePools' in spec.cluster (or 'source', a cluster "
                                  "imported from a file)");
    struct gs_world *w = &sc->world;
    w->npools = 0;
    w->pools = NULL;
    if (seq && (rc = node_pools(d, seq, sc)))
        return rc;
    /* spec.cluster.source: imported nodes (sim/scenario/source.c), pools after nodePools'. */
    return src ? gs_scn_cluster_source(d, src, sc) : 0;
}

static int node_pools(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc)
{
    int rc;
    if ((rc = gs_y_want_seq(d, seq, "spec.cluster.nodePools")))
        return rc;
    struct gs_world *w = &sc->world;
    if (seq->n == 0)
        return 0;
    w->pools = gs_arena_alloc(d->arena, sizeof *w->pools * (size_t)seq->n);
    if (!w->pools)
        return gs_error_set(d->err, GS_ENOMEM, seq->file, seq->line, seq->col, "out of memory");
    struct gs_strmap names = {0}; /* pool name -> its entry */
    for (int i = 0; i < seq->n && !rc; i++) {
        char p[GS_SCN_PATH];
        gs_scn_path(p, "spec.cluster.nodePools[%d]", i);
        struct gs_pool *pool = &w->pools[i];
        if ((rc = decode_pool(d, seq->items[i], p, pool)))
            break;
        int j, added = gs_strmap_add(&names, pool->name, i, &j);
        if (added < 0) {
            rc = gs_error_set(d->err, GS_ENOMEM, seq->file, seq->line, seq->col, "out of memory");
        } else if (added == 1) {
            const struct gs_ynode *nn = gs_y_get(seq->items[i], "name");
            const struct gs_ynode *first = gs_y_get(seq->items[j], "name");
            rc = gs_y_error(d, nn, "duplicate node pool name '%s' (first at line %d column %d)", pool->name,
                            first->line, first->col);
        } else {
            w->npools++;
        }
    }
    gs_strmap_free(&names);
    return rc;
}

static bool iprefix(const char *pre, const char *s)
{
    for (; *pre; pre++, s++)
        if (tolower((unsigned char)*pre) != tolower((unsigned char)*s))
            return false;
    return true;
}

/* A product name is often written shortened or lengthened ("NVIDIA-H100-80GB" for
 * NVIDIA-H100-80GB-HBM3, "Tesla-T4-16GB"): prefer the catalog product one is a prefix of (the
 * closest in length), then the nearest by edit distance. */
static const char *product_suggestion(const char *product, const char *const *names)
{
    const char *best = NULL;
    size_t len = strlen(product), best_diff = SIZE_MAX;
    for (int i = 0; names[i]; i++) {
        size_t l = strlen(names[i]);
        if (len < 4 || l < 4 || !(len <= l ? iprefix(product, names[i]) : iprefix(names[i], product)))
            continue;
        size_t diff = len > l ? len - l : l - len;
        if (diff < best_diff) {
            best = names[i];
            best_diff = diff;
        }
    }
    return best ? best : gs_y_suggest(product, names);
}

int gs_scn_cluster_products(struct gs_ydec *d, const struct gs_ynode *map, const struct gs_scenario *sc)
{
    const struct gs_ynode *seq = gs_y_get(map, "nodePools");
    const struct gs_world *w = &sc->world;
    /* The catalog's products by name (the first of a name, as gs_catalog_product finds it). */
    struct gs_strmap products = {0};
    for (int j = 0; j < sc->catalog.nproducts; j++)
        if (gs_strmap_add(&products, sc->catalog.products[j].product, j, NULL) < 0) {
            gs_strmap_free(&products);
            return gs_error_set(d->err, GS_ENOMEM, map->file, map->line, map->col, "out of memory");
        }
    int i = 0;
    while (i < w->npools && seq && i < seq->n &&
           (!w->pools[i].gpu_product || gs_strmap_get(&products, w->pools[i].gpu_product) >= 0))
        i++;
    gs_strmap_free(&products);
    if (i < w->npools && seq && i < seq->n) {
        const char *product = w->pools[i].gpu_product;
        const struct gs_ynode *n = gs_y_get(gs_y_get(seq->items[i], "gpu"), "product");
        const char **names = gs_arena_alloc(d->arena, sizeof *names * (size_t)(sc->catalog.nproducts + 1));
        if (!names)
            return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0,
                                "out of memory");
        for (int j = 0; j < sc->catalog.nproducts; j++)
            names[j] = sc->catalog.products[j].product;
        names[sc->catalog.nproducts] = NULL;
        const char *near = product_suggestion(product, names);
        if (near)
            return gs_y_error(d, n,
                              "unknown GPU product '%.80s' at spec.cluster.nodePools[%d].gpu.product (did you "
                              "mean '%s'?); spec.catalog.gpus can add a product to the catalog",
                              product, i, near);
        return gs_y_error(d, n,
                          "unknown GPU product '%.80s' at spec.cluster.nodePools[%d].gpu.product: it is not in the "
                          "catalog (models/catalog/gpus.yaml, e.g. NVIDIA-H100-80GB-HBM3, NVIDIA-A100-SXM4-80GB, "
                          "NVIDIA-L4, Tesla-T4); spec.catalog.gpus can add it",
                          product, i);
    }
    return 0;
}
