/* A kube-scheduler restart (scenario event schedulerRestart {schedulerName, downtime}): what
 * lives only in the scheduler's memory is lost, what lives in the API stays.
 * - Pods reserved and waiting at Permit were only assumed in the scheduler cache: they are
 *   pending again, their resources free, and they go back to the queue.
 * - The queue is rebuilt from the pending pods: all in activeQ, attempts and backoff reset.
 * - PodGroup backoffs (Coscheduling's memory) and the scheduler's caches and node rotation
 *   start over with the new scheduler.
 * - status.nominatedNodeName is in the API: nominations stay.
 * - For `downtime` (default 0: an instant restart) no scheduling cycle runs; a real restart
 *   waits for leader election and the informer caches.
 * Upstream: kubernetes pkg/scheduler/scheduler.go (New: empty cache and queue, informers list
 * the pods), pkg/scheduler/internal/cache (assumed pods are not persisted). */
#include "base/error.h"
#include "sim/frag_run.h"
#include "sim/run_state.h"

void gs_sched_run_restart(struct gs_runner *r, const struct gs_sevent *se)
{
    struct gs_world *w = r->w;
    gs_time now = gs_engine_now(r->eng);
    for (int i = 0; i < w->npods; i++) {
        struct gs_pod *p = &w->pods[i];
        if (!p->permit_waiting)
            continue;
        gs_run_cancel(r, &p->permit_ev);
        p->permit_waiting = false;
        gs_world_unassign(w, i);
        if (gs_queue_add(r->queue, i, now))
            r->err = GS_ENOMEM;
    }
    gs_queue_restart(r->queue);
    struct gs_sched *fresh = gs_sched_new(w, &r->sc->sched, r->rng);
    if (!fresh) {
        r->err = GS_ENOMEM;
        return;
    }
    gs_sched_free(r->sched);
    r->sched = fresh;
    /* What lives in the API (claims, slices) and the run's typical pods are the new one's too. */
    gs_dra_run_attach(r);
    gs_frag_run_attach(r);
    r->sched_resume_at = now + se->downtime;
    int rc = gs_trace_object(r->trace, now, "Pod", "kube-system", "kube-scheduler", "Restarted", NULL);
    if (rc && !r->err)
        r->err = rc;
    gs_run_cancel(r, &r->sched_ev); /* a cycle due now waits for the new scheduler */
    gs_run_want_cycle(r);
}
