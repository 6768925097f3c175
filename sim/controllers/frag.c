/* GPU fragmentation in a run: the cluster's fragmentation kept incrementally (fgd_world.h, over
 * the typical pods of the scenario's workloads, c->typical) for the trace's sample.frag_gpus
 * column and the fragGpus metric, and with `gpusim run --sample-every-pod` a sample after every
 * bind by the scheduler and every pod that leaves its node. Not measured (NaN) when the
 * workloads make no pod. */
#include <math.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/fgd/fgd_world.h"
#include "sim/controller.h"
#include "sim/metrics.h"

struct frag {
    bool measured; /* the workloads have typical pods */
    struct gs_fgd_view view;
};

static int setup(struct gs_cluster *c, int self, void **state)
{
    (void)self;
    struct frag *f = gs_calloc(1, sizeof *f);
    if (!f)
        return GS_ENOMEM;
    f->measured = c->typical != NULL;
    gs_fgd_view_init(&f->view, c->w, c->typical, false);
    *state = f;
    return 0;
}

static void destroy(void *state)
{
    struct frag *f = state;
    gs_fgd_view_free(&f->view);
    gs_free(f);
}

static void on_watch(void *state, struct gs_cluster *c, const struct gs_watch_event *ev)
{
    (void)state;
    if (!c->opts || !c->opts->sample_every_pod)
        return;
    switch (ev->type) {
    case GS_W_POD_BOUND: /* bound by the scheduler (not a nodeName pod the kubelet took) */
        if (ev->scheduled)
            gs_cluster_sample(c);
        break;
    case GS_W_POD_TERMINATED: /* it left a node */
        if (ev->held)
            gs_cluster_sample(c);
        break;
    default:
        break;
    }
}

/* The cluster's fragmentation (the nodes changed since the last call are recomputed), or a pool's
 * (the sum over its nodes, after a whole-cluster call). */
static void metrics(void *state, struct gs_cluster *c, int pool, struct gs_metrics *m)
{
    struct frag *f = state;
    if (!f->measured)
        return; /* NaN: not measured */
    if (pool < 0) {
        int rc = gs_fgd_view_sync(&f->view);
        gs_cluster_fail(c, rc);
        m->frag_gpus = rc ? NAN : gs_fgd_view_frag_gpus(&f->view);
        return;
    }
    double sum = 0;
    for (int i = 0; i < c->w->nnodes; i++)
        if (c->w->nodes[i].pool == pool && c->w->nodes[i].exists)
            sum += gs_fgd_view_node_frag_gpus(&f->view, i);
    m->frag_gpus = sum;
}

const struct gs_controller gs_ctl_frag = {
    .name = "fragmentation",
    .setup = setup,
    .free = destroy,
    .on_watch = on_watch,
    .watches = GS_WATCH_BIT(GS_W_POD_BOUND) | GS_WATCH_BIT(GS_W_POD_TERMINATED),
    .metrics = metrics,
};
