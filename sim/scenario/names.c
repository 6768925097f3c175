/* The loader's name indexes (podspec.h): node pools, imported nodes, PriorityClasses and
 * workloads by name, so that every lookup a decoder makes (an event's node or pool, a pod's
 * nodeName or priorityClassName, a snapshot pod's node) costs O(1) instead of a scan of the
 * world (a snapshot of 1,000,000 pods on 100,000 nodes made 10^11 comparisons).
 *
 * Each index mirrors one array of the world and is brought up to date at each lookup: it
 * remembers the array and the count it has indexed; entries appended since (same array, larger
 * count) are added, and a replaced array (spec.cluster.source copies the pools into a larger
 * one) is indexed afresh. Names in the world are arena strings, so the maps borrow them. The
 * answers are those of the scans they replace: the first pool in order that a node name fits,
 * the class of that name, the globalDefault class of the lowest value (the first of equals). */
#include <string.h>

#include "base/alloc.h"
#include "base/strmap.h"
#include "sim/scenario/podspec.h"

struct gs_scn_names {
    /* world.pools as indexed */
    const struct gs_pool *pools;
    int npools;
    struct gs_strmap pool_by_name;  /* pool name -> pool index */
    struct gs_strmap pool_by_node;  /* an imported node's own name -> its pool */
    /* world.priority_classes as indexed */
    const struct gs_priority_class *pcs;
    int npcs;
    struct gs_strmap pc_by_name;
    int global_default;             /* index of the globalDefault class, -1 when none */
    /* world.workloads as indexed */
    const struct gs_workload *wls;
    int nwls;
    struct gs_strmap wl_by_name;
};

int gs_scn_names_new(struct gs_scn_names **out)
{
    *out = gs_calloc(1, sizeof **out);
    return *out ? 0 : GS_ENOMEM;
}

void gs_scn_names_free(struct gs_scn_names *x)
{
    if (!x)
        return;
    gs_strmap_free(&x->pool_by_name);
    gs_strmap_free(&x->pool_by_node);
    gs_strmap_free(&x->pc_by_name);
    gs_strmap_free(&x->wl_by_name);
    gs_free(x);
}

static int nomem(struct gs_ydec *d, const struct gs_ynode *at)
{
    return gs_error_set(d->err, GS_ENOMEM, at ? at->file : "", at ? at->line : 0, at ? at->col : 0,
                        "out of memory");
}

/* Bring the pool indexes up to world.pools. */
static int sync_pools(struct gs_scn_names *x, const struct gs_world *w)
{
    if (x->pools != w->pools || x->npools > w->npools) {
        gs_strmap_free(&x->pool_by_name);
        gs_strmap_free(&x->pool_by_node);
        x->pools = w->pools;
        x->npools = 0;
    }
    for (; x->npools < w->npools; x->npools++) {
        const struct gs_pool *p = &w->pools[x->npools];
        /* The first of equal names is kept, as a scan from the start finds it. */
        if (gs_strmap_add(&x->pool_by_name, p->name, x->npools, NULL) < 0)
            return GS_ENOMEM;
        for (int i = 0; p->nodes && i < p->count; i++)
            if (gs_strmap_add(&x->pool_by_node, p->nodes[i].name, x->npools, NULL) < 0)
                return GS_ENOMEM;
    }
    return 0;
}

/* The pool of `node` by scanning (a decoder context without indexes: tests, catalogs). */
static int scan_node_pool(const struct gs_world *w, const char *node)
{
    for (int p = 0; p < w->npools; p++)
        for (int i = 0; w->pools[p].nodes && i < w->pools[p].count; i++)
            if (strcmp(w->pools[p].nodes[i].name, node) == 0)
                return p;
    for (int p = 0; p < w->npools; p++) {
        size_t len = strlen(w->pools[p].name);
        if (strncmp(node, w->pools[p].name, len) == 0 && node[len] == '-' && gs_scn_is_node_index(node + len + 1))
            return p;
    }
    return -1;
}

bool gs_scn_is_node_index(const char *q)
{
    /* The index as %d prints it: digits, no leading zero, fits an int. */
    size_t nd = strlen(q);
    if (nd == 0 || nd > 9 || (q[0] == '0' && nd > 1))
        return false;
    for (size_t i = 0; i < nd; i++)
        if (q[i] < '0' || q[i] > '9')
            return false;
    return true;
}

int gs_scn_node_pool(struct gs_ydec *d, const struct gs_ynode *at, const char *node, int *pool)
{
    const struct gs_world *w = d->world;
    struct gs_scn_names *x = d->names;
    if (!x) {
        *pool = scan_node_pool(w, node);
        return 0;
    }
    *pool = -1;
    if (sync_pools(x, w))
        return nomem(d, at);
    /* Imported nodes (spec.cluster.source) keep their own names. */
    int p = gs_strmap_get(&x->pool_by_node, node);
    if (p >= 0) {
        *pool = p;
        return 0;
    }
    /* <pool>-<index>: the index has no '-', so the pool is the name up to the last one. */
    const char *dash = strrchr(node, '-');
    if (dash && gs_scn_is_node_index(dash + 1))
        *pool = gs_strmap_getn(&x->pool_by_name, node, (size_t)(dash - node));
    return 0;
}

int gs_scn_pool_by_name(struct gs_ydec *d, const struct gs_ynode *at, const char *name, int *pool)
{
    const struct gs_world *w = d->world;
    struct gs_scn_names *x = d->names;
    *pool = -1;
    if (!x) {
        for (int i = 0; i < w->npools && *pool < 0; i++)
            if (strcmp(w->pools[i].name, name) == 0)
                *pool = i;
        return 0;
    }
    if (sync_pools(x, w))
        return nomem(d, at);
    *pool = gs_strmap_get(&x->pool_by_name, name);
    return 0;
}

/* Bring the PriorityClass index up to world.priority_classes. */
static int sync_classes(struct gs_scn_names *x, const struct gs_world *w)
{
    if (x->pcs != w->priority_classes || x->npcs > w->npriority_classes) {
        gs_strmap_free(&x->pc_by_name);
        x->pcs = w->priority_classes;
        x->npcs = 0;
        x->global_default = -1;
    }
    for (; x->npcs < w->npriority_classes; x->npcs++) {
        const struct gs_priority_class *pc = &w->priority_classes[x->npcs];
        if (gs_strmap_add(&x->pc_by_name, pc->name, x->npcs, NULL) < 0)
            return GS_ENOMEM;
        if (pc->global_default && (x->global_default < 0 || pc->value < w->priority_classes[x->global_default].value))
            x->global_default = x->npcs;
    }
    return 0;
}

int gs_scn_priority_class(struct gs_ydec *d, const struct gs_ynode *at, const char *name,
                          const struct gs_priority_class **out)
{
    const struct gs_world *w = d->world;
    struct gs_scn_names *x = d->names;
    *out = NULL;
    if (!x) {
        if (name) {
            *out = gs_world_find_priority_class(w, name);
            return 0;
        }
        for (int i = 0; i < w->npriority_classes; i++)
            if (w->priority_classes[i].global_default && (!*out || w->priority_classes[i].value < (*out)->value))
                *out = &w->priority_classes[i];
        return 0;
    }
    if (sync_classes(x, w))
        return nomem(d, at);
    int i = name ? gs_strmap_get(&x->pc_by_name, name) : x->global_default;
    *out = i >= 0 ? &w->priority_classes[i] : NULL;
    return 0;
}

int gs_scn_workload_by_name(struct gs_ydec *d, const struct gs_ynode *at, const char *name, int *index)
{
    const struct gs_world *w = d->world;
    struct gs_scn_names *x = d->names;
    *index = -1;
    if (!x) {
        for (int i = 0; i < w->nworkloads; i++)
            if (strcmp(w->workloads[i].name, name) == 0)
                *index = i;
        return 0;
    }
    if (x->wls != w->workloads || x->nwls > w->nworkloads) {
        gs_strmap_free(&x->wl_by_name);
        x->wls = w->workloads;
        x->nwls = 0;
    }
    for (; x->nwls < w->nworkloads; x->nwls++)
        if (gs_strmap_add(&x->wl_by_name, w->workloads[x->nwls].name, x->nwls, NULL) < 0)
            return nomem(d, at);
    *index = gs_strmap_get(&x->wl_by_name, name);
    return 0;
}
