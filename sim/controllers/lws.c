/* The LeaderWorkerSet controller: each group is a leader pod `<lws>-<g>` and size-1 workers
 * `<lws>-<g>-<i>`, created together (startupPolicy LeaderCreated) or the workers once the leader
 * runs (LeaderReady); with the Coscheduling plugin each group is a PodGroup `<lws>-<g>` with
 * minMember = size (SCENARIO.md "names of objects that controllers create"). With restartPolicy
 * RecreateGroupOnPodRestart, a pod of a group that ends takes the whole group down and the group
 * is created again under the same names; with None only that pod is re-created. Under Kueue a
 * group's pods come when its Workload is admitted (GROUP_ADMITTED).
 *
 * Upstream: kubernetes-sigs/lws pkg/controllers/leaderworkerset_controller.go (leader
 * StatefulSet), pod_controller.go (worker StatefulSet per leader; on a restarted or deleted pod
 * with RecreateGroupOnPodRestart the leader is deleted, which removes the workers), pkg/utils
 * (labels leaderworkerset.sigs.k8s.io/name, group-index, worker-index). The real controller
 * waits for the old pods to go and for the StatefulSets to act; gpusim re-creates the group at
 * once. */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "base/intern.h"
#include "sim/controller.h"

enum { TIMER_RESTART = 0 };

struct lws {
    int self;
};

static int setup(struct gs_cluster *c, int self, void **state)
{
    bool any = false;
    for (int i = 0; i < c->w->nworkloads && !any; i++)
        any = c->w->workloads[i].kind == GS_WL_LWS;
    if (!any)
        return 0;
    struct lws *s = gs_calloc(1, sizeof *s);
    if (!s)
        return GS_ENOMEM;
    s->self = self;
    *state = s;
    return 0;
}

static void destroy(void *state)
{
    gs_free(state);
}

/* Set `key` to `value` in `l`, which has room for one more pair, sharing both strings (no copy). */
static void set_shared(struct gs_labels *l, const char *key, const char *value)
{
    int pos = 0;
    while (pos < l->n && strcmp(l->kv[pos].key, key) < 0)
        pos++;
    if (pos < l->n && strcmp(l->kv[pos].key, key) == 0) {
        l->kv[pos].value = value;
        return;
    }
    memmove(&l->kv[pos + 1], &l->kv[pos], sizeof *l->kv * (size_t)(l->n - pos));
    l->kv[pos].key = key;
    l->kv[pos].value = value;
    l->n++;
}

/* A copy of `base` labelled for group `g`, worker `k` (0: the leader). Arena storage: the
 * template and one label array of exactly its size. The strings are shared, not copied: the
 * base template's (world arena), the label keys (static), the workload's name and the indexes
 * (interned in the cluster's table, one copy per distinct number). A pod of a LeaderWorkerSet
 * costs this template on top of a pod's record (GS_MEM_PER_LWS_POD in sim/limits.h). */
static const struct gs_pod_template *member_template(struct gs_cluster *c, const struct gs_workload *wl,
                                                     const struct gs_pod_template *base, int g, int k)
{
    struct gs_arena *a = &c->w->arena;
    struct gs_pod_template *t = gs_arena_alloc(a, sizeof *t);
    char gs[16], ks[16];
    snprintf(gs, sizeof gs, "%d", g);
    snprintf(ks, sizeof ks, "%d", k);
    const char *gv = gs_intern(&c->messages, gs), *kv = gs_intern(&c->messages, ks);
    if (!t || !gv || !kv)
        return NULL;
    *t = *base;
    int cap = base->labels.n + 3;
    t->labels.kv = gs_arena_alloc(a, sizeof *t->labels.kv * (size_t)cap);
    if (!t->labels.kv)
        return NULL;
    t->labels.cap = cap;
    t->labels.n = base->labels.n; /* sorted, one pair a key */
    for (int i = 0; i < base->labels.n; i++) {
        t->labels.kv[i].key = base->labels.kv[i].key;
        t->labels.kv[i].value = base->labels.kv[i].value ? base->labels.kv[i].value : "";
    }
    set_shared(&t->labels, "leaderworkerset.sigs.k8s.io/name", wl->name);
    set_shared(&t->labels, "leaderworkerset.sigs.k8s.io/group-index", gv);
    set_shared(&t->labels, "leaderworkerset.sigs.k8s.io/worker-index", kv);
    return t;
}

static int spawn_member(struct gs_cluster *c, int wi, int g, int k, int gi)
{
    const struct gs_workload *wl = &c->w->workloads[wi];
    /* Under Kueue (no leaderTemplate there) every member comes from the injected template. */
    const struct gs_pod_template *base = wl->active_tmpl ? wl->active_tmpl
                                         : k == 0        ? wl->lws_leader_tmpl
                                                         : &wl->tmpl;
    const struct gs_pod_template *t = member_template(c, wl, base, g, k);
    if (!t) {
        gs_cluster_fail(c, GS_ENOMEM);
        return GS_ENOMEM;
    }
    char name[300];
    if (k == 0)
        snprintf(name, sizeof name, "%s-%d", wl->name, g);
    else
        snprintf(name, sizeof name, "%s-%d-%d", wl->name, g, k);
    struct gs_pod_spec spec = {.workload = wi, .name = name, .tmpl = t, .group = gi, .lws_group = g, .lws_worker = k};
    return gs_cluster_create_pod(c, &spec);
}

/* The PodGroup of group `g` with the Coscheduling plugin (or gang admission), else -1. */
static int pod_group(struct gs_cluster *c, int wi, int g)
{
    const struct gs_workload *wl = &c->w->workloads[wi];
    if (!c->sc->sched.filter_enabled[GS_PL_COSCHEDULING])
        return -1;
    char name[300];
    snprintf(name, sizeof name, "%s-%d", wl->name, g);
    return gs_cluster_group(c, wi, 0, name, wl->lws_size);
}

static void create_workers(struct gs_cluster *c, int wi, int g, int gi)
{
    const struct gs_workload *wl = &c->w->workloads[wi];
    for (int k = 1; k < wl->lws_size && !c->err; k++)
        spawn_member(c, wi, g, k, gi);
}

static void create_group(struct gs_cluster *c, int wi, int g)
{
    const struct gs_workload *wl = &c->w->workloads[wi];
    int gi = pod_group(c, wi, g);
    if (spawn_member(c, wi, g, 0, gi) < 0)
        return;
    if (!wl->lws_leader_ready)
        create_workers(c, wi, g, gi);
}

/* Delete the active pods of group `g` of `wi` (all groups >= `g` when `and_above`), but `except`. */
static void delete_groups(struct gs_cluster *c, int wi, int g, bool and_above, int except, const char *msg)
{
    struct gs_world *w = c->w;
    for (int i = 0; i < w->npods; i++) {
        const struct gs_pod *q = &w->pods[i];
        if (i != except && q->workload == wi && (and_above ? q->lws_group >= g : q->lws_group == g) && !q->deleted &&
            (q->phase == GS_PHASE_PENDING || q->phase == GS_PHASE_RUNNING))
            gs_cluster_delete_pod(c, i, GS_DEL_OWNER, "Deleted", msg);
    }
}

/* A pod of the LeaderWorkerSet ended: re-create the pod (restartPolicy None) or its group. */
static void restart(struct gs_cluster *c, int pi)
{
    struct gs_world *w = c->w;
    int wi = w->pods[pi].workload, g = w->pods[pi].lws_group, k = w->pods[pi].lws_worker;
    const struct gs_workload *wl = &w->workloads[wi];
    /* Already handled: a pod of this group was created after this one (another member's restart
     * re-created the group). */
    for (int i = pi + 1; i < w->npods; i++)
        if (w->pods[i].workload == wi && w->pods[i].lws_group == g &&
            (wl->lws_restart != GS_LWS_RESTART_NONE || w->pods[i].lws_worker == k))
            return;
    if (wl->lws_restart == GS_LWS_RESTART_NONE) {
        /* The StatefulSet re-creates the one pod under its name. */
        spawn_member(c, wi, g, k, w->pods[pi].group);
        return;
    }
    /* RecreateGroupOnPodRestart: the rest of the group goes, then the group comes back. */
    char msg[400];
    snprintf(msg, sizeof msg, "LeaderWorkerSet %s recreates group %d after pod %s restarted", wl->name, g,
             w->pods[pi].name);
    delete_groups(c, wi, g, false, pi, msg);
    create_group(c, wi, g);
}

static void scale(struct gs_cluster *c, int wi, int replicas)
{
    const struct gs_workload *wl = &c->w->workloads[wi];
    int old = wl->replicas;
    gs_cluster_set_replicas(c, wi, replicas);
    if (wl->arrivals_done == 0)
        return; /* not created yet: it arrives with the new count */
    /* New groups: unless an admission hook (Kueue) takes each (a Workload per group). */
    for (int g = old; g < replicas && !c->err; g++)
        if (!gs_cluster_admit_group(c, wi, g))
            create_group(c, wi, g);
    /* Scaling down removes the highest groups (the leader StatefulSet's highest ordinals). */
    delete_groups(c, wi, replicas, true, -1, "LeaderWorkerSet scaled down");
    for (int g = replicas; g < old; g++)
        gs_cluster_group_deleted(c, wi, g);
}

static bool is_lws(const struct gs_cluster *c, int wi)
{
    return wi >= 0 && c->w->workloads[wi].kind == GS_WL_LWS;
}

static void on_watch(void *state, struct gs_cluster *c, const struct gs_watch_event *ev)
{
    struct lws *s = state;
    switch (ev->type) {
    case GS_W_WORKLOAD_ARRIVED:
        if (is_lws(c, ev->workload) && !ev->held_by_admission)
            for (int g = 0; g < c->w->workloads[ev->workload].replicas && !c->err; g++)
                create_group(c, ev->workload, g);
        break;
    case GS_W_GROUP_ADMITTED:
        if (is_lws(c, ev->workload) && ev->lws_group >= 0)
            create_group(c, ev->workload, ev->lws_group);
        break;
    case GS_W_POD_STARTED: {
        const struct gs_pod *p = &c->w->pods[ev->pod];
        /* LeaderReady: the workers come once the leader runs. */
        if (is_lws(c, p->workload) && c->w->workloads[p->workload].lws_leader_ready && p->lws_worker == 0)
            create_workers(c, p->workload, p->lws_group, p->group);
        break;
    }
    case GS_W_POD_TERMINATED:
        if (is_lws(c, ev->workload) && ev->cause != GS_DEL_OWNER)
            gs_cluster_timer(c, s->self, gs_cluster_now(c), GS_PRIO_CREATE, TIMER_RESTART, ev->pod, 0, false);
        break;
    default:
        break;
    }
}

static void on_timer(void *state, struct gs_cluster *c, int type, int64_t a, int64_t b)
{
    (void)state;
    (void)b;
    if (type == TIMER_RESTART)
        restart(c, (int)a);
}

static bool scenario_event(void *state, struct gs_cluster *c, const struct gs_sevent *se)
{
    (void)state;
    if (se->kind != GS_SEV_SCALE)
        return false;
    scale(c, se->workload, se->replicas);
    return true;
}

const struct gs_controller gs_ctl_lws = {
    .name = "leaderworkerset",
    .setup = setup,
    .free = destroy,
    .on_watch = on_watch,
    .watches = GS_WATCH_BIT(GS_W_GROUP_ADMITTED) | GS_WATCH_BIT(GS_W_POD_STARTED) |
               GS_WATCH_BIT(GS_W_POD_TERMINATED) | GS_WATCH_BIT(GS_W_WORKLOAD_ARRIVED),
    .on_timer = on_timer,
    .scenario_event = scenario_event,
};
