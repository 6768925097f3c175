/* GPU fragmentation in a run (sim/frag_run.h). */
#include <math.h>
#include <stdlib.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/fgd/fgd_world.h"
#include "sim/frag_run.h"

struct gs_frag_run {
    struct gs_fgd_world_typical wt;
    bool have_wt;
    struct gs_fgd_view view;
};

int gs_frag_run_setup(struct gs_runner *r)
{
    struct gs_frag_run *f = gs_calloc(1, sizeof *f);
    if (!f)
        return GS_ENOMEM;
    r->frag = f;
    int rc = gs_fgd_world_typical_build(r->w, GS_FGD_TYPICAL_PCT, &f->wt);
    if (rc == GS_ENOMEM)
        return rc;
    f->have_wt = rc == 0;
    gs_fgd_view_init(&f->view, r->w, f->have_wt ? &f->wt : NULL, false);
    gs_frag_run_attach(r);
    return 0;
}

void gs_frag_run_attach(struct gs_runner *r)
{
    const struct gs_frag_run *f = r->frag;
    if (f && f->have_wt && r->sched)
        gs_sched_set_fgd_typical(r->sched, &f->wt);
}

void gs_frag_run_free(struct gs_runner *r)
{
    struct gs_frag_run *f = r->frag;
    if (!f)
        return;
    if (r->sched)
        gs_sched_set_fgd_typical(r->sched, NULL);
    gs_fgd_view_free(&f->view);
    gs_fgd_world_typical_free(&f->wt);
    gs_free(f);
    r->frag = NULL;
}

double gs_frag_run_gpus(const struct gs_runner *r)
{
    struct gs_frag_run *f = r->frag;
    if (!f || !f->have_wt || gs_fgd_view_sync(&f->view))
        return NAN;
    return gs_fgd_view_frag_gpus(&f->view);
}

double gs_frag_run_node_gpus(const struct gs_runner *r, int ni)
{
    const struct gs_frag_run *f = r->frag;
    return f && f->have_wt ? gs_fgd_view_node_frag_gpus(&f->view, ni) : 0.0;
}

void gs_frag_run_pod_changed(struct gs_runner *r)
{
    if (!r->opts || !r->opts->sample_every_pod)
        return;
    int rc = gs_metrics_sample(r, gs_engine_now(r->eng));
    if (rc && !r->err)
        r->err = rc;
}
