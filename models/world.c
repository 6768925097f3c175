/* The world: interned resources, node and pod arrays, and the accounting of pods on nodes. */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/world.h"

static const char *const phase_names[GS_PHASE_COUNT] = {"Pending", "Running", "Succeeded", "Failed",
                                                        "Rejected"};

const char *gs_phase_name(enum gs_phase p)
{
    return (unsigned)p < GS_PHASE_COUNT ? phase_names[p] : "Unknown";
}

int gs_res_find(const struct gs_resources *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (strcmp(r->names[i], name) == 0)
            return i;
    return -1;
}

int gs_res_intern(struct gs_resources *r, struct gs_arena *a, const char *name)
{
    int i = gs_res_find(r, name);
    if (i >= 0)
        return i;
    if (r->n == GS_RES_MAX)
        return -1;
    const char *copy = gs_arena_strdup(a, name);
    if (!copy)
        return -1;
    r->names[r->n] = copy;
    return r->n++;
}

/* kubernetes pkg/apis/core/helper/helpers.go: IsExtendedResourceName = not a native resource
 * (IsNativeResource: no "/" at all, or containing "kubernetes.io/"), not "requests."-prefixed,
 * and (roughly) a qualified name. */
bool gs_res_is_extended(const char *name)
{
    const char *slash = strchr(name, '/');
    if (!slash || strstr(name, "kubernetes.io/"))
        return false;
    if (strncmp(name, "requests.", 9) == 0)
        return false;
    return slash != name && slash[1] != '\0';
}

int gs_world_init(struct gs_world *w)
{
    memset(w, 0, sizeof *w);
    static const char *const fixed[GS_RES_FIXED] = {"cpu", "memory", "pods", "ephemeral-storage"};
    for (int i = 0; i < GS_RES_FIXED; i++)
        if (gs_res_intern(&w->res, &w->arena, fixed[i]) != i)
            return GS_ENOMEM;
    return 0;
}

void gs_world_free(struct gs_world *w)
{
    gs_free(w->nodes);
    gs_free(w->node_change_log);
    gs_free(w->pods);
    gs_free(w->groups);
    gs_arena_free(&w->arena);
    memset(w, 0, sizeof *w);
}

/* Count a change of node n and log it (the log exists once a node was added). */
static void node_changed(struct gs_world *w, int n)
{
    w->node_change_log[w->node_changes % GS_NODE_CHANGE_LOG] = n;
    w->node_changes++;
}

static int copy_labels(struct gs_labels *dst, const struct gs_labels *src, struct gs_arena *a)
{
    dst->n = dst->cap = 0;
    dst->kv = NULL;
    if (src->n == 0)
        return 0;
    dst->kv = gs_arena_alloc(a, sizeof *dst->kv * (size_t)src->n);
    if (!dst->kv)
        return GS_ENOMEM;
    memcpy(dst->kv, src->kv, sizeof *dst->kv * (size_t)src->n);
    dst->n = dst->cap = src->n;
    return 0;
}

int gs_world_add_node(struct gs_world *w, int pool, int index_in_pool, gs_time now)
{
    GS_ASSERT(pool >= 0 && pool < w->npools);
    if (!w->node_change_log) {
        w->node_change_log = gs_malloc(sizeof *w->node_change_log * GS_NODE_CHANGE_LOG);
        if (!w->node_change_log)
            return GS_ENOMEM;
    }
    if (gs_array_grow((void **)&w->nodes, &w->nodes_cap, w->nnodes + 1, sizeof *w->nodes))
        return GS_ENOMEM;
    const struct gs_pool *pl = &w->pools[pool];
    struct gs_node *n = &w->nodes[w->nnodes];
    memset(n, 0, sizeof *n);
    const struct gs_pool_node *own = pl->nodes && index_in_pool < pl->count ? &pl->nodes[index_in_pool] : NULL;
    n->name = own ? own->name : gs_arena_printf(&w->arena, "%s-%d", pl->name, index_in_pool);
    if (!n->name)
        return GS_ENOMEM;
    n->pool = pool;
    n->index_in_pool = index_in_pool;
    n->exists = true;
    n->joined_at = now;
    n->deleted_at = -1;
    n->schedulable_at = -1;
    n->first_pod = -1;
    n->min_prio = INT32_MAX;
    n->nmin_prio = 0;
    n->gen = 1;
    n->ready = true;
    if (copy_labels(&n->labels, &pl->labels, &w->arena))
        return GS_ENOMEM;
    if (pl->ntaints) {
        n->taints = gs_arena_alloc(&w->arena, sizeof *n->taints * (size_t)pl->ntaints);
        if (!n->taints)
            return GS_ENOMEM;
        memcpy(n->taints, pl->taints, sizeof *n->taints * (size_t)pl->ntaints);
        n->ntaints = pl->ntaints;
    }
    if (own) {
        /* An imported node (spec.cluster.source): its own labels, taints and cordon. */
        for (int i = 0; i < own->labels.n; i++)
            if (gs_labels_set(&n->labels, &w->arena, own->labels.kv[i].key, own->labels.kv[i].value))
                return GS_ENOMEM;
        n->taints = NULL;
        n->ntaints = 0;
        if (own->ntaints) {
            n->taints = gs_arena_alloc(&w->arena, sizeof *n->taints * (size_t)own->ntaints);
            if (!n->taints)
                return GS_ENOMEM;
            memcpy(n->taints, own->taints, sizeof *n->taints * (size_t)own->ntaints);
            n->ntaints = own->ntaints;
        }
        n->unschedulable = own->unschedulable;
    }
    n->capacity = pl->capacity;
    for (int r = 0; r < GS_RES_MAX; r++) {
        int64_t a = pl->capacity.v[r] - pl->reserved.v[r];
        n->allocatable.v[r] = a > 0 ? a : 0;
    }
    if (own && own->capacity && own->allocatable) {
        n->capacity = *own->capacity;
        n->allocatable = *own->allocatable;
    }
    n->gpu_product = pl->gpu_product;
    n->gpu_count = pl->gpu_count;
    n->kernel = pl->kernel;
    node_changed(w, w->nnodes);
    return w->nnodes++;
}

int gs_world_add_pod(struct gs_world *w, const char *name, int wl, const struct gs_pod_template *tmpl,
                     gs_time now)
{
    if (gs_array_grow((void **)&w->pods, &w->pods_cap, w->npods + 1, sizeof *w->pods))
        return GS_ENOMEM;
    struct gs_pod *p = &w->pods[w->npods];
    memset(p, 0, sizeof *p);
    p->name = gs_arena_strdup(&w->arena, name);
    if (!p->name)
        return GS_ENOMEM;
    p->workload = wl;
    p->group = -1;
    p->next_in_group = -1;
    p->lws_group = -1;
    p->tmpl = tmpl;
    p->phase = GS_PHASE_PENDING;
    p->node = -1;
    p->last_node = -1;
    p->next_on_node = p->prev_on_node = -1;
    p->created_us = now;
    p->scheduled_us = p->started_us = p->finished_us = -1;
    p->duration_us = -1;
    p->nominated_node = -1;
    p->preempted_by = -1;
    return w->npods++;
}

void gs_world_assign(struct gs_world *w, int pi, int ni)
{
    struct gs_pod *p = &w->pods[pi];
    struct gs_node *n = &w->nodes[ni];
    GS_ASSERT(p->node < 0);
    const struct gs_pod_template *t = p->tmpl;
    for (int r = 0; r < w->res.n; r++)
        n->requested.v[r] += t->requests.v[r];
    n->nonzero_cpu += t->nonzero_cpu;
    n->nonzero_mem += t->nonzero_mem;
    n->npods++;
    p->node = ni;
    p->last_node = ni;
    p->prev_on_node = -1;
    p->next_on_node = n->first_pod;
    if (n->first_pod >= 0)
        w->pods[n->first_pod].prev_on_node = pi;
    n->first_pod = pi;
    node_changed(w, ni);
    int32_t prio = t->priority;
    if (prio < n->min_prio) {
        n->min_prio = prio;
        n->nmin_prio = 1;
    } else if (prio == n->min_prio) {
        n->nmin_prio++;
    }
}

void gs_world_unassign(struct gs_world *w, int pi)
{
    struct gs_pod *p = &w->pods[pi];
    if (p->node < 0)
        return;
    struct gs_node *n = &w->nodes[p->node];
    const struct gs_pod_template *t = p->tmpl;
    for (int r = 0; r < w->res.n; r++)
        n->requested.v[r] -= t->requests.v[r];
    n->nonzero_cpu -= t->nonzero_cpu;
    n->nonzero_mem -= t->nonzero_mem;
    n->npods--;
    if (p->prev_on_node >= 0)
        w->pods[p->prev_on_node].next_on_node = p->next_on_node;
    else
        n->first_pod = p->next_on_node;
    if (p->next_on_node >= 0)
        w->pods[p->next_on_node].prev_on_node = p->prev_on_node;
    node_changed(w, p->node);
    p->next_on_node = p->prev_on_node = -1;
    p->node = -1;
    /* The lowest priority only moves up when its last pod leaves: walk the list then. */
    if (t->priority == n->min_prio && --n->nmin_prio == 0) {
        n->min_prio = INT32_MAX;
        for (int q = n->first_pod; q >= 0; q = w->pods[q].next_on_node) {
            int32_t qp = w->pods[q].tmpl->priority;
            if (qp < n->min_prio) {
                n->min_prio = qp;
                n->nmin_prio = 1;
            } else if (qp == n->min_prio) {
                n->nmin_prio++;
            }
        }
    }
}

void gs_node_touch(struct gs_world *w, int n)
{
    GS_ASSERT(n >= 0 && n < w->nnodes);
    w->nodes[n].gen++;
    node_changed(w, n);
}

int32_t gs_node_min_priority_walk(const struct gs_world *w, int n)
{
    int32_t m = INT32_MAX;
    for (int q = w->nodes[n].first_pod; q >= 0; q = w->pods[q].next_on_node)
        if (w->pods[q].tmpl->priority < m)
            m = w->pods[q].tmpl->priority;
    return m;
}

int gs_world_find_node(const struct gs_world *w, const char *name)
{
    for (int i = 0; i < w->nnodes; i++)
        if (strcmp(w->nodes[i].name, name) == 0)
            return i;
    return -1;
}

int gs_world_find_pod(const struct gs_world *w, const char *name)
{
    /* The newest pod of that name: a StatefulSet-style controller (LeaderWorkerSet) re-creates
     * a pod under its old name. */
    for (int i = w->npods - 1; i >= 0; i--)
        if (strcmp(w->pods[i].name, name) == 0)
            return i;
    return -1;
}

int gs_world_find_workload(const struct gs_world *w, const char *name)
{
    for (int i = 0; i < w->nworkloads; i++)
        if (strcmp(w->workloads[i].name, name) == 0)
            return i;
    return -1;
}

const struct gs_priority_class *gs_world_find_priority_class(const struct gs_world *w, const char *name)
{
    for (int i = 0; i < w->npriority_classes; i++)
        if (strcmp(w->priority_classes[i].name, name) == 0)
            return &w->priority_classes[i];
    return NULL;
}

int64_t gs_node_gpu_allocatable(const struct gs_world *w, const struct gs_node *n)
{
    int r = gs_res_find(&w->res, "nvidia.com/gpu");
    return r < 0 ? 0 : n->allocatable.v[r];
}
