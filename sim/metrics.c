/* Sampled metrics (sim/metrics.h): whole-cluster and per-pool rows of the trace's sample table,
 * from the world and the controllers' metrics hooks. */
#include "sim/check.h"
#include "sim/metrics.h"

#include <math.h>
#include <string.h>

#include "base/array.h"
#include "base/error.h"
#include "models/admission/gang.h"
#include "sim/cluster.h"
#include "sim/controller.h"

const char *const gs_metric_names[] = {
#define GS_METRIC_NAME(name, column, type, what) #name,
    GS_METRICS(GS_METRIC_NAME)
#undef GS_METRIC_NAME
    NULL,
};

bool gs_metrics_get(const struct gs_metrics *m, const char *name, double *out)
{
#define GS_METRIC_GET(mname, column, type, what)                                                      \
    if (strcmp(name, #mname) == 0) {                                                                 \
        *out = (double)m->column;                                                                    \
        return true;                                                                                 \
    }
    GS_METRICS(GS_METRIC_GET)
#undef GS_METRIC_GET
    return false;
}

static void add_node(const struct gs_cluster *c, const struct gs_node *n, struct gs_metrics *m)
{
    if (!n->exists)
        return;
    m->nodes_ready += n->ready;
    if (c->gpu_res >= 0) {
        m->gpus_capacity += n->capacity.v[c->gpu_res];
        m->gpus_allocatable += n->allocatable.v[c->gpu_res];
        /* GPUs allocated: the nvidia.com/gpu requested, or more when gpu-milli shares hold GPUs
         * that no whole-GPU request counts (a GPU with any share held counts as allocated). */
        int64_t in_use = 0;
        for (int g = 0; g < n->gpus.ngpu; g++)
            in_use += n->gpus.free_milli[g] < GS_GPU_MILLI;
        int64_t req = n->requested.v[c->gpu_res];
        m->gpus_allocated += in_use > req ? in_use : req;
    }
}

void gs_metrics_now(struct gs_cluster *c, int pool, struct gs_metrics *m)
{
    const struct gs_world *w = c->w;
    memset(m, 0, sizeof *m);
    m->t = gs_cluster_now(c);
#define GS_METRIC_NAN_INT(name, column, type, what)
#define GS_METRIC_NAN_REAL(name, column, type, what) m->column = NAN;
#define GS_METRIC_NAN(name, column, type, what) GS_METRIC_NAN_##type(name, column, type, what)
    GS_METRICS(GS_METRIC_NAN)
#undef GS_METRIC_NAN
#undef GS_METRIC_NAN_REAL
#undef GS_METRIC_NAN_INT
    if (pool < 0) {
        for (int i = 0; i < w->nnodes; i++)
            add_node(c, &w->nodes[i], m);
        m->pods_pending = c->phase_count[GS_PHASE_PENDING];
        m->pods_running = c->phase_count[GS_PHASE_RUNNING];
        if (w->ngroups)
            m->gpus_held_by_incomplete_groups = gs_gang_gpus_held_incomplete(w, c->gpu_res);
    } else {
        /* A pool's nodes and the pods running on them; pending pods belong to no pool. */
        for (int i = 0; i < w->nnodes; i++) {
            const struct gs_node *n = &w->nodes[i];
            if (n->pool != pool || !n->exists)
                continue;
            add_node(c, n, m);
            for (int q = n->first_pod; q >= 0; q = w->pods[q].next_on_node)
                m->pods_running += w->pods[q].phase == GS_PHASE_RUNNING;
        }
    }
    for (int i = 0; i < c->nctl; i++)
        if (c->state[i] && c->ctl[i]->metrics)
            c->ctl[i]->metrics(c->state[i], c, pool, m);
}

/* Give the whole-cluster sample to the metric windows. Samples stream: only the latest is
 * kept, because a later sample at the same time replaces it; an earlier one is judged
 * (gs_check_sample) when one with a later time comes. Memory does not grow with the horizon. */
static void keep(struct gs_cluster *c, const struct gs_metrics *m)
{
    if (c->has_last_sample && c->last_sample.t != m->t)
        gs_check_sample(c, &c->last_sample);
    c->last_sample = *m;
    c->has_last_sample = true;
}

/* Add a sample of slot `slot` (0: the cluster, p + 1: pool p) to its GPU-time. */
static void integrate(struct gs_cluster *c, int slot, const struct gs_metrics *m)
{
    struct gs_gpu_time *g = &c->gpu_time[slot];
    gs_step_integral_add(&g->allocated, m->t, (double)m->gpus_allocated);
    gs_step_integral_add(&g->allocatable, m->t, (double)m->gpus_allocatable);
    gs_step_integral_add(&g->held_incomplete, m->t, (double)m->gpus_held_by_incomplete_groups);
}

const struct gs_gpu_time *gs_metrics_gpu_time(const struct gs_cluster *c, int pool)
{
    int slot = pool + 1;
    if (slot < 0 || slot >= c->gpu_time_cap || !c->gpu_time[slot].allocated.has)
        return NULL;
    return &c->gpu_time[slot];
}

int gs_metrics_final_sample(struct gs_cluster *c, gs_time t)
{
    int rc = gs_trace_sample_drop_last(c->trace, t);
    return rc ? rc : gs_metrics_sample(c, t);
}

int gs_metrics_sample(struct gs_cluster *c, gs_time t)
{
    if (GS_GROW_ZERO(c->gpu_time, c->gpu_time_cap, c->w->npools + 1))
        return GS_ENOMEM;
    struct gs_metrics m;
    gs_metrics_now(c, -1, &m);
    m.t = t;
    keep(c, &m);
    integrate(c, 0, &m);
    int rc = gs_trace_sample(c->trace, "", &m);
    for (int p = 0; p < c->w->npools && !rc; p++) {
        struct gs_metrics pm;
        gs_metrics_now(c, p, &pm);
        pm.t = t;
        /* A REAL metric not measured for the cluster is not measured for its pools either. */
#define GS_METRIC_POOL_INT(name, column, type, what)
#define GS_METRIC_POOL_REAL(name, column, type, what) if (isnan(m.column)) pm.column = NAN;
#define GS_METRIC_POOL(name, column, type, what) GS_METRIC_POOL_##type(name, column, type, what)
        GS_METRICS(GS_METRIC_POOL)
#undef GS_METRIC_POOL
#undef GS_METRIC_POOL_REAL
#undef GS_METRIC_POOL_INT
        integrate(c, p + 1, &pm);
        rc = gs_trace_sample(c->trace, c->w->pools[p].name, &pm);
    }
    return rc;
}
