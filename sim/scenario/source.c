/* spec.cluster.source: a cluster imported from a file (sim/scenario/source.h), and the pools
 * imported nodes are grouped into.
 *
 *   cluster:
 *     source: {format: openb, nodes: openb_node_list_gpu_node.csv}
 *     source: {format: kubectl, nodes: nodes.json, pods: pods.json}
 *
 * nodePools may be given beside it (their pools come first). Imported nodes keep their names;
 * they join at 0s, pool by pool, in file order within a pool. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/strmap.h"
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

struct group {
    const char *stem, *product;
    int gpus, first, count, filled;
};

/* The names of pools to come: the first of stem, stem-2, stem-3, ... that no pool has. `taken`
 * holds every pool name so far; `stems` maps a stem to its entry in `next`, the suffix to try
 * next (1: the stem itself), so that k groups of one stem cost O(k), not O(k^2). */
struct namer {
    struct gs_strmap taken, stems;
    int *next;
    int cap, n;
};

static const char *pool_name(struct gs_ydec *d, struct namer *nm, const char *stem, int *rc)
{
    int si = gs_strmap_get(&nm->stems, stem);
    if (si < 0) {
        if (GS_GROW(nm->next, nm->cap, nm->n + 1) || gs_strmap_add(&nm->stems, stem, nm->n, NULL) < 0) {
            *rc = GS_ENOMEM;
            return NULL;
        }
        si = nm->n++;
        nm->next[si] = 1;
    }
    for (;; nm->next[si]++) {
        int k = nm->next[si];
        const char *name = k == 1 ? stem : gs_arena_printf(d->arena, "%s-%d", stem, k);
        if (!name) {
            *rc = GS_ENOMEM;
            return NULL;
        }
        if (gs_strmap_get(&nm->taken, name) >= 0)
            continue;
        if (gs_strmap_add(&nm->taken, name, 0, NULL) < 0) {
            *rc = GS_ENOMEM;
            return NULL;
        }
        nm->next[si]++;
        return name;
    }
}

/* The key of a group: GPU count, stem and product (NULL apart from every product), unambiguous
 * (the stem's length is written), into *buf (heap, grown with GS_GROW). */
static const char *group_key(char **buf, int *cap, const struct gs_src_node *s)
{
    const char *prod = s->product ? s->product : "";
    int len = snprintf(NULL, 0, "%d %zu:%s %c%s", s->gpus, strlen(s->stem), s->stem, s->product ? 'p' : 'n', prod);
    if (len < 0 || GS_GROW(*buf, *cap, len + 1))
        return NULL;
    snprintf(*buf, (size_t)len + 1, "%d %zu:%s %c%s", s->gpus, strlen(s->stem), s->stem, s->product ? 'p' : 'n', prod);
    return *buf;
}

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
        int p, rc = gs_scn_node_pool(d, at, nodes[i].own.name, &p);
        if (rc)
            return rc;
        if (p >= 0)
            return gs_y_error(d, at, "node '%.80s' of %s has the name of a node of node pool '%s'",
                              nodes[i].own.name, file, w->pools[p].name);
    }

    /* Groups in order of first appearance, found through a map of their keys. */
    struct group *g = gs_malloc(sizeof *g * (size_t)n);
    int *of = gs_malloc(sizeof *of * (size_t)n);
    struct gs_strmap groups = {0};
    char *key = NULL;
    int keycap = 0, ng = 0, rc = g && of ? 0 : GS_ENOMEM;
    for (int i = 0; !rc && i < n; i++) {
        const struct gs_src_node *s = &nodes[i];
        const char *k = group_key(&key, &keycap, s);
        int gi = k ? gs_strmap_get(&groups, k) : -1;
        if (!k) {
            rc = GS_ENOMEM;
        } else if (gi < 0) {
            const char *copy = gs_arena_strdup(d->arena, k);
            if (!copy || gs_strmap_add(&groups, copy, ng, NULL) < 0) {
                rc = GS_ENOMEM;
                break;
            }
            gi = ng;
            g[ng++] = (struct group){.stem = s->stem, .product = s->product, .gpus = s->gpus, .first = i};
        }
        if (!rc) {
            g[gi].count++;
            of[i] = gi;
        }
    }
    gs_free(key);
    gs_strmap_free(&groups);
    struct gs_pool *pools = rc ? NULL : gs_arena_alloc(d->arena, sizeof *pools * (size_t)(w->npools + ng));
    struct namer nm = {0};
    if (!rc && !pools)
        rc = GS_ENOMEM;
    for (int i = 0; !rc && i < w->npools; i++)
        if (gs_strmap_add(&nm.taken, w->pools[i].name, 0, NULL) < 0)
            rc = GS_ENOMEM;
    for (int k = 0; !rc && k < ng; k++) {
        struct gs_pool *pl = &pools[w->npools + k];
        const struct gs_src_node *first = &nodes[g[k].first];
        const char *name = pool_name(d, &nm, g[k].stem, &rc);
        struct gs_pool_node *pn = name ? gs_arena_alloc(d->arena, sizeof *pn * (size_t)g[k].count) : NULL;
        if (!name || !pn) {
            rc = GS_ENOMEM;
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
    gs_strmap_free(&nm.taken);
    gs_strmap_free(&nm.stems);
    gs_free(nm.next);
    for (int i = 0; !rc && i < n; i++) {
        struct group *gr = &g[of[i]];
        struct gs_pool_node *pn = (struct gs_pool_node *)pools[w->npools + of[i]].nodes;
        pn[gr->filled++] = nodes[i].own;
    }
    gs_free(g);
    gs_free(of);
    if (rc)
        return nomem(d, at);
    if (w->npools)
        memcpy(pools, w->pools, sizeof *pools * (size_t)w->npools);
    w->pools = pools;
    w->npools += ng;
    return 0;
}
