/* spec.cluster.source: a cluster imported from a file (sim/scenario/source.h), and the pools
 * imported nodes are grouped into.
 *
 *   cluster:
 *     source: {format: openb, nodes: openb_node_list_gpu_node.csv}
 *     source: {format: kubectl, nodes: nodes.json, pods: pods.json}
 *
 * nodePools may be given beside it (their pools come first). Imported nodes keep their names;
 * they join at 0s, pool by pool, in file order within a pool. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "sim/scenario/decode.h"
#include "sim/scenario/podspec.h"
#include "sim/scenario/source.h"

static int nomem(struct gs_ydec *d, const struct gs_ynode *n)
{
    return gs_error_set(d->err, GS_ENOMEM, n ? n->file : "", n ? n->line : 0, n ? n->col : 0, "out of memory");
}

const char *gs_scn_source_path(struct gs_ydec *d, const struct gs_ynode *at, const char *rel)
{
    const char *full = rel[0] == '/' || !d->dir || !d->dir[0] ? gs_arena_strdup(d->arena, rel)
                                                             : gs_arena_printf(d->arena, "%s/%s", d->dir, rel);
    if (!full)
        nomem(d, at);
    return full;
}

int gs_scn_cluster_source(struct gs_ydec *d, const struct gs_ynode *n, struct gs_scenario *sc)
{
    static const char *const keys[] = {"format", "nodes", "pods", NULL};
    static const char *const required[] = {"format", "nodes", NULL};
    static const char *const formats[] = {"openb", "kubectl", NULL};
    const char *path = "spec.cluster.source";
    int rc = gs_y_check_map(d, n, path, keys, NULL, required);
    if (rc)
        return rc;
    int f;
    if ((rc = gs_y_enum(d, gs_y_get(n, "format"), "spec.cluster.source.format", formats, &f)))
        return rc;
    if (f == 0) {
        const struct gs_ynode *pods = gs_y_get(n, "pods");
        if (pods)
            return gs_y_error(d, pods,
                              "'pods' in %s goes with format kubectl: an openb pod list is a workload "
                              "(spec.workloads[].trace: {format: openb, pods: <csv>})",
                              path);
        return gs_scn_openb_nodes(d, n, path, sc);
    }
    return gs_scn_snapshot(d, n, path, sc);
}

/* ------------------------------------------------------------------ pools */

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool pool_name_taken(const struct gs_world *w, const struct gs_pool *fresh, int nfresh, const char *name)
{
    for (int i = 0; i < w->npools; i++)
        if (strcmp(w->pools[i].name, name) == 0)
            return true;
    for (int i = 0; i < nfresh; i++)
        if (strcmp(fresh[i].name, name) == 0)
            return true;
    return false;
}

struct group {
    const char *stem, *product;
    int gpus, first, count, filled;
};

int gs_scn_source_pools(struct gs_ydec *d, const struct gs_ynode *at, const char *file, struct gs_src_node *nodes,
                        int n, struct gs_scenario *sc)
{
    struct gs_world *w = &sc->world;
    if (n <= 0)
        return 0;
    /* Names: unique in the file, and not the name of a node of spec.cluster.nodePools. */
    const char **sorted = gs_malloc(sizeof *sorted * (size_t)n);
    if (!sorted)
        return nomem(d, at);
    for (int i = 0; i < n; i++)
        sorted[i] = nodes[i].own.name;
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_names);
    for (int i = 1; i < n; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0) {
            int rc = gs_y_error(d, at, "duplicate node name '%.80s' in %s", sorted[i], file);
            gs_free(sorted);
            return rc;
        }
    gs_free(sorted);
    for (int i = 0; i < n; i++) {
        int p = gs_scn_node_pool(w, nodes[i].own.name);
        if (p >= 0)
            return gs_y_error(d, at, "node '%.80s' of %s has the name of a node of node pool '%s'",
                              nodes[i].own.name, file, w->pools[p].name);
    }

    struct group *g = gs_malloc(sizeof *g * (size_t)n);
    int *of = gs_malloc(sizeof *of * (size_t)n);
    if (!g || !of) {
        gs_free(g);
        gs_free(of);
        return nomem(d, at);
    }
    int ng = 0;
    for (int i = 0; i < n; i++) {
        const struct gs_src_node *s = &nodes[i];
        int k = 0;
        for (; k < ng; k++)
            if (g[k].gpus == s->gpus && strcmp(g[k].stem, s->stem) == 0 &&
                (g[k].product == s->product || (g[k].product && s->product && strcmp(g[k].product, s->product) == 0)))
                break;
        if (k == ng)
            g[ng++] = (struct group){.stem = s->stem, .product = s->product, .gpus = s->gpus, .first = i};
        g[k].count++;
        of[i] = k;
    }
    struct gs_pool *pools = gs_arena_alloc(d->arena, sizeof *pools * (size_t)(w->npools + ng));
    int rc = pools ? 0 : nomem(d, at);
    for (int k = 0; !rc && k < ng; k++) {
        struct gs_pool *pl = &pools[w->npools + k];
        const struct gs_src_node *first = &nodes[g[k].first];
        const char *name = g[k].stem;
        for (int suffix = 2; name && pool_name_taken(w, pools + w->npools, k, name); suffix++)
            name = gs_arena_printf(d->arena, "%s-%d", g[k].stem, suffix);
        struct gs_pool_node *pn = gs_arena_alloc(d->arena, sizeof *pn * (size_t)g[k].count);
        if (!name || !pn) {
            rc = nomem(d, at);
            break;
        }
        pl->name = name;
        pl->count = g[k].count;
        pl->gpu_product = g[k].product;
        pl->gpu_count = g[k].gpus;
        pl->capacity = *first->own.capacity;
        for (int r = 0; r < GS_RES_MAX; r++) {
            int64_t res = first->own.capacity->v[r] - first->own.allocatable->v[r];
            pl->reserved.v[r] = res > 0 ? res : 0;
        }
        pl->nodes = pn;
    }
    for (int i = 0; !rc && i < n; i++) {
        struct group *gr = &g[of[i]];
        struct gs_pool_node *pn = (struct gs_pool_node *)pools[w->npools + of[i]].nodes;
        pn[gr->filled++] = nodes[i].own;
    }
    gs_free(g);
    gs_free(of);
    if (rc)
        return rc;
    if (w->npools)
        memcpy(pools, w->pools, sizeof *pools * (size_t)w->npools);
    w->pools = pools;
    w->npools += ng;
    return 0;
}
