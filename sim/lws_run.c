/* The LeaderWorkerSet controller in the run loop: each group is a leader pod `<lws>-<g>` and
 * size-1 workers `<lws>-<g>-<i>`, created together (startupPolicy LeaderCreated) or the
 * workers once the leader runs (LeaderReady); under gang admission each group is a PodGroup
 * `<lws>-<g>` with minMember = size (SCENARIO.md "names of objects that controllers create").
 * With restartPolicy RecreateGroupOnPodRestart, a pod of a group that fails or is deleted
 * takes the whole group down and the group is created again under the same names; with None
 * only that pod is re-created.
 *
 * Upstream: kubernetes-sigs/lws pkg/controllers/leaderworkerset_controller.go (leader
 * StatefulSet), pod_controller.go (worker StatefulSet per leader; on a restarted or deleted
 * pod with RecreateGroupOnPodRestart the leader is deleted, which removes the workers),
 * pkg/utils (labels leaderworkerset.sigs.k8s.io/name, group-index, worker-index). The real
 * controller waits for the old pods to go and for the StatefulSets to act; gpusim re-creates
 * the group at once. */
#include <stdio.h>
#include <string.h>

#include "base/error.h"
#include "sim/run_state.h"

static int copy_labels(struct gs_arena *a, const struct gs_labels *from, struct gs_labels *to)
{
    memset(to, 0, sizeof *to);
    for (int i = 0; i < from->n; i++)
        if (gs_labels_set(to, a, from->kv[i].key, from->kv[i].value))
            return GS_ENOMEM;
    return 0;
}

/* A copy of `base` labelled for group `g`, worker `k` (0: the leader). Arena storage. */
static const struct gs_pod_template *member_template(struct gs_runner *r, const struct gs_workload *wl,
                                                     const struct gs_pod_template *base, int g, int k)
{
    struct gs_arena *a = &r->w->arena;
    struct gs_pod_template *t = gs_arena_alloc(a, sizeof *t);
    char gs[16], ks[16];
    snprintf(gs, sizeof gs, "%d", g);
    snprintf(ks, sizeof ks, "%d", k);
    if (!t)
        return NULL;
    *t = *base;
    if (copy_labels(a, &base->labels, &t->labels) ||
        gs_labels_set(&t->labels, a, "leaderworkerset.sigs.k8s.io/name", wl->name) ||
        gs_labels_set(&t->labels, a, "leaderworkerset.sigs.k8s.io/group-index", gs) ||
        gs_labels_set(&t->labels, a, "leaderworkerset.sigs.k8s.io/worker-index", ks))
        return NULL;
    return t;
}

static int spawn_member(struct gs_runner *r, int wi, int g, int k, int gi)
{
    const struct gs_workload *wl = &r->w->workloads[wi];
    /* Under Kueue (no leaderTemplate there) every member comes from the injected template. */
    const struct gs_pod_template *base = wl->active_tmpl ? wl->active_tmpl
                                         : k == 0        ? wl->lws_leader_tmpl
                                                         : &wl->tmpl;
    const struct gs_pod_template *t = member_template(r, wl, base, g, k);
    if (!t)
        return r->err = GS_ENOMEM;
    char name[300];
    if (k == 0)
        snprintf(name, sizeof name, "%s-%d", wl->name, g);
    else
        snprintf(name, sizeof name, "%s-%d-%d", wl->name, g, k);
    int pi = gs_run_spawn_pod(r, wi, name, t, gi);
    if (pi >= 0) {
        r->w->pods[pi].lws_group = g;
        r->w->pods[pi].lws_worker = k;
    }
    return pi;
}

/* The PodGroup of group `g` under gang admission (or with the Coscheduling plugin), else -1. */
static int pod_group(struct gs_runner *r, int wi, int g)
{
    const struct gs_workload *wl = &r->w->workloads[wi];
    if (!r->sc->sched.filter_enabled[GS_PL_COSCHEDULING])
        return -1;
    char name[300];
    snprintf(name, sizeof name, "%s-%d", wl->name, g);
    return gs_run_group(r, wi, name, wl->lws_size);
}

static void create_workers(struct gs_runner *r, int wi, int g, int gi)
{
    const struct gs_workload *wl = &r->w->workloads[wi];
    for (int k = 1; k < wl->lws_size && !r->err; k++)
        spawn_member(r, wi, g, k, gi);
}

static void create_group(struct gs_runner *r, int wi, int g)
{
    const struct gs_workload *wl = &r->w->workloads[wi];
    int gi = pod_group(r, wi, g);
    if (spawn_member(r, wi, g, 0, gi) < 0)
        return;
    if (!wl->lws_leader_ready)
        create_workers(r, wi, g, gi);
}

void gs_lws_run_create_group(struct gs_runner *r, int wi, int g)
{
    create_group(r, wi, g);
}

void gs_lws_run_arrival(struct gs_runner *r, int wi)
{
    const struct gs_workload *wl = &r->w->workloads[wi];
    for (int g = 0; g < wl->replicas && !r->err; g++)
        create_group(r, wi, g);
}

void gs_lws_run_pod_started(struct gs_runner *r, int pi)
{
    const struct gs_pod *p = &r->w->pods[pi];
    if (p->workload < 0)
        return;
    const struct gs_workload *wl = &r->w->workloads[p->workload];
    /* LeaderReady: the workers come once the leader runs. */
    if (wl->kind == GS_WL_LWS && wl->lws_leader_ready && p->lws_worker == 0)
        create_workers(r, p->workload, p->lws_group, p->group);
}

bool gs_lws_run_pod_ended(struct gs_runner *r, int pi)
{
    const struct gs_pod *p = &r->w->pods[pi];
    return !r->lws_recreating && p->workload >= 0 && r->w->workloads[p->workload].kind == GS_WL_LWS;
}

void gs_lws_run_on_restart(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct gs_runner *r = ctx;
    struct gs_world *w = r->w;
    int pi = (int)ev->a;
    int wi = w->pods[pi].workload, g = w->pods[pi].lws_group, k = w->pods[pi].lws_worker;
    const struct gs_workload *wl = &w->workloads[wi];
    /* Already handled: a pod of this group was created after this one (another member's
     * restart re-created the group). */
    for (int i = pi + 1; i < w->npods; i++)
        if (w->pods[i].workload == wi && w->pods[i].lws_group == g && (wl->lws_restart != GS_LWS_RESTART_NONE ||
                                                                       w->pods[i].lws_worker == k))
            return;
    if (wl->lws_restart == GS_LWS_RESTART_NONE) {
        /* The StatefulSet re-creates the one pod under its name. */
        spawn_member(r, wi, g, k, w->pods[pi].group);
        return;
    }
    /* RecreateGroupOnPodRestart: the rest of the group goes, then the group comes back. */
    char msg[400];
    snprintf(msg, sizeof msg, "LeaderWorkerSet %s recreates group %d after pod %s restarted", wl->name, g,
             w->pods[pi].name);
    r->lws_recreating = true;
    for (int i = 0; i < w->npods; i++) {
        const struct gs_pod *q = &w->pods[i];
        if (i != pi && q->workload == wi && q->lws_group == g && !q->deleted &&
            (q->phase == GS_PHASE_PENDING || q->phase == GS_PHASE_RUNNING))
            gs_run_delete_pod(r, i, "Deleted", msg);
    }
    r->lws_recreating = false;
    create_group(r, wi, g);
}

void gs_lws_run_scale(struct gs_runner *r, int wi, int replicas)
{
    struct gs_world *w = r->w;
    struct gs_workload *wl = &w->workloads[wi];
    int old = wl->replicas;
    wl->replicas = replicas;
    if (wl->arrivals_done == 0)
        return; /* not created yet: it arrives with the new count */
    /* New groups: through Kueue when it manages the LeaderWorkerSet (a Workload each). */
    for (int g = old; g < replicas && !r->err; g++)
        if (!gs_kueue_run_lws_group(r, wi, g))
            create_group(r, wi, g);
    /* Scaling down removes the highest groups (the leader StatefulSet's highest ordinals). */
    r->lws_recreating = true;
    for (int i = 0; i < w->npods; i++) {
        const struct gs_pod *q = &w->pods[i];
        if (q->workload == wi && q->lws_group >= replicas && !q->deleted &&
            (q->phase == GS_PHASE_PENDING || q->phase == GS_PHASE_RUNNING))
            gs_run_delete_pod(r, i, "Deleted", "LeaderWorkerSet scaled down");
    }
    r->lws_recreating = false;
    for (int g = replicas; g < old; g++)
        gs_kueue_run_lws_group_deleted(r, wi, g);
}
