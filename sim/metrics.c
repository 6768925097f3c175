/* Sampled metrics: whole-cluster and per-pool rows of the trace's sample table. */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/admission/gang.h"
#include "sim/frag_run.h"
#include "sim/run_state.h"

static void add_node(const struct gs_runner *r, const struct gs_node *n, struct gs_metrics *m)
{
    if (!n->exists)
        return;
    m->nodes_ready += gs_bringup_run_node_ready(r, (int)(n - r->w->nodes));
    if (r->gpu_res >= 0) {
        m->gpus_capacity += n->capacity.v[r->gpu_res];
        m->gpus_allocatable += n->allocatable.v[r->gpu_res];
        /* GPUs allocated: the nvidia.com/gpu requested, or more when gpu-milli shares hold GPUs
         * that no whole-GPU request counts (a GPU with any share held counts as allocated). */
        int64_t in_use = 0;
        for (int g = 0; g < n->gpus.ngpu; g++)
            in_use += n->gpus.free_milli[g] < GS_GPU_MILLI;
        int64_t req = n->requested.v[r->gpu_res];
        m->gpus_allocated += in_use > req ? in_use : req;
    }
}

void gs_metrics_now(const struct gs_runner *r, gs_time t, struct gs_metrics *m)
{
    memset(m, 0, sizeof *m);
    m->t = t;
    for (int i = 0; i < r->w->nnodes; i++)
        add_node(r, &r->w->nodes[i], m);
    m->pods_pending = r->phase_count[GS_PHASE_PENDING];
    m->pods_running = r->phase_count[GS_PHASE_RUNNING];
    if (r->w->ngroups)
        m->gpus_held_incomplete = gs_gang_gpus_held_incomplete(r->w, r->gpu_res);
    m->frag_gpus = gs_frag_run_gpus(r); /* the nodes changed since the last sample only */
}

/* The camelCase names of the sample columns (SCENARIO.md "metric:"). */
bool gs_metrics_get(const struct gs_metrics *m, const char *name, double *out)
{
    if (strcmp(name, "fragGpus") == 0) {
        *out = m->frag_gpus; /* NaN when not measured: no bound holds */
        return true;
    }
    static const struct {
        const char *name;
        size_t off;
        bool is_int;
    } cols[] = {
        {"nodesReady", offsetof(struct gs_metrics, nodes_ready), true},
        {"gpusCapacity", offsetof(struct gs_metrics, gpus_capacity), false},
        {"gpusAllocatable", offsetof(struct gs_metrics, gpus_allocatable), false},
        {"gpusAllocated", offsetof(struct gs_metrics, gpus_allocated), false},
        {"podsPending", offsetof(struct gs_metrics, pods_pending), true},
        {"podsRunning", offsetof(struct gs_metrics, pods_running), true},
        {"gpusHeldByIncompleteGroups", offsetof(struct gs_metrics, gpus_held_incomplete), false},
    };
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++) {
        if (strcmp(cols[i].name, name) != 0)
            continue;
        const char *p = (const char *)m + cols[i].off;
        *out = cols[i].is_int ? (double)*(const int *)p : (double)*(const int64_t *)p;
        return true;
    }
    return false;
}

static int keep(struct gs_runner *r, const struct gs_metrics *m)
{
    if (r->nsamples == r->samples_cap) {
        int cap = r->samples_cap ? r->samples_cap * 2 : 256;
        struct gs_metrics *s = gs_realloc(r->samples, sizeof *s * (size_t)cap);
        if (!s)
            return GS_ENOMEM;
        r->samples = s;
        r->samples_cap = cap;
    }
    /* A final sample at the time of the last periodic one replaces it. */
    if (r->nsamples > 0 && r->samples[r->nsamples - 1].t == m->t)
        r->nsamples--;
    r->samples[r->nsamples++] = *m;
    return 0;
}

int gs_metrics_sample(struct gs_runner *r, gs_time t)
{
    struct gs_metrics m;
    gs_metrics_now(r, t, &m);
    int rc = keep(r, &m);
    if (rc)
        return rc;
    /* Fragmentation: NaN (not measured) is written as NULL. */
    struct gs_trace_sample row = {
        .t_us = t,
        .pool = "",
        .nodes_ready = m.nodes_ready,
        .gpus_capacity = m.gpus_capacity,
        .gpus_allocatable = m.gpus_allocatable,
        .gpus_allocated = m.gpus_allocated,
        .pods_pending = m.pods_pending,
        .pods_running = m.pods_running,
        .gpus_held_incomplete = m.gpus_held_incomplete,
        .frag_gpus = m.frag_gpus,
    };
    rc = gs_trace_sample(r->trace, &row);
    if (rc)
        return rc;
    /* Per-pool rows count the pool's nodes and the pods running on them; pending pods belong
     * to no pool, so pods_pending is 0 there. */
    for (int p = 0; p < r->w->npools; p++) {
        struct gs_metrics pm;
        memset(&pm, 0, sizeof pm);
        for (int i = 0; i < r->w->nnodes; i++) {
            const struct gs_node *n = &r->w->nodes[i];
            if (n->pool != p || !n->exists)
                continue;
            add_node(r, n, &pm);
            pm.frag_gpus += gs_frag_run_node_gpus(r, i);
            for (int q = n->first_pod; q >= 0; q = r->w->pods[q].next_on_node)
                pm.pods_running += r->w->pods[q].phase == GS_PHASE_RUNNING;
        }
        struct gs_trace_sample prow = row;
        prow.pool = r->w->pools[p].name;
        prow.gpus_held_incomplete = 0;
        prow.nodes_ready = pm.nodes_ready;
        prow.gpus_capacity = pm.gpus_capacity;
        prow.gpus_allocatable = pm.gpus_allocatable;
        prow.gpus_allocated = pm.gpus_allocated;
        prow.pods_pending = 0;
        prow.pods_running = pm.pods_running;
        prow.frag_gpus = isnan(m.frag_gpus) ? NAN : pm.frag_gpus;
        if ((rc = gs_trace_sample(r->trace, &prow)))
            return rc;
    }
    return 0;
}
