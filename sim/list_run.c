/* Pod lists in the run loop (sim/run_state.h gs_list_run_arrival): the pods of a GS_WL_LIST
 * workload (workloads[].trace, the pods of a cluster snapshot) are created at their own times,
 * under their own names, from their own (shared) templates.
 *
 * One GS_EV_ARRIVAL is pending per list at a time: it creates every pod due at that instant
 * and schedules the next one, so a 10k-row trace costs no more events than it has instants.
 * A listed pod's duration is its own unless the workload has a `duration` distribution, which
 * is then drawn for each pod in creation order. The pods are bare pods: never re-created. */
#include "sim/run_state.h"

void gs_list_run_arrival(struct gs_runner *r, int wi, int k)
{
    const struct gs_workload *wl = &r->w->workloads[wi];
    gs_time now = gs_engine_now(r->eng);
    int i = k;
    for (; i < wl->nlist && wl->list[i].arrive <= now; i++) {
        const struct gs_listed_pod *lp = &wl->list[i];
        int pi = gs_run_spawn_pod(r, wi, lp->name, lp->tmpl, -1);
        if (pi < 0)
            return;
        if (wl->duration.kind == GS_DIST_NONE)
            r->w->pods[pi].duration_us = lp->duration;
    }
    if (i < wl->nlist)
        gs_run_at(r, wl->list[i].arrive, GS_PRIO_CREATE, GS_EV_ARRIVAL, wi, i);
}
