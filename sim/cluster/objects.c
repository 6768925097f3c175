/* The cluster layer's objects other than nodes and pods (sim/cluster.h): workloads arriving
 * (the user creating a Job, a Deployment-like workload, a LeaderWorkerSet, a PodGroup, or the pods
 * of a list), PodGroups, suspension and admission; and the dispatch of the run's own events. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/array.h"
#include "base/error.h"
#include "models/admission/validation.h"
#include "sim/cluster/internal.h"
#include "sim/controller.h"

int64_t gs_workload_planned_pods(const struct gs_workload *wl)
{
    if (wl->kind == GS_WL_POD)
        return 1;
    if (wl->kind == GS_WL_JOB)
        return wl->completions > 0 ? wl->completions : wl->parallelism;
    return (int64_t)wl->replicas * (wl->arrival.count > 0 ? wl->arrival.count : 1);
}

int gs_cluster_podgroup_object(const struct gs_cluster *c, const char *name)
{
    const struct gs_world *w = c->w;
    for (int g = 0; g < w->ngroups; g++)
        if (w->groups[g].workload >= 0 && w->workloads[w->groups[g].workload].kind == GS_WL_PODGROUP &&
            strcmp(w->groups[g].name, name) == 0)
            return g;
    return -1;
}

int gs_cluster_group(struct gs_cluster *c, int wi, int arrival, const char *name, int min_member)
{
    struct gs_world *w = c->w;
    const struct gs_workload *wl = &w->workloads[wi];
    for (int g = w->ngroups - 1; g >= 0; g--)
        if (w->groups[g].workload == wi && strcmp(w->groups[g].name, name) == 0)
            return g;
    if (GS_GROW(w->groups, w->groups_cap, w->ngroups + 1)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return -1;
    }
    int gi = w->ngroups++;
    struct gs_group *g = &w->groups[gi];
    memset(g, 0, sizeof *g);
    g->name = gs_arena_strdup(&w->arena, name);
    g->workload = wi;
    g->arrival = arrival;
    g->min_member = min_member;
    g->first_pod = g->last_pod = -1;
    g->created_us = gs_cluster_now(c);
    g->schedule_timeout_us = wl->group_timeout_us;
    if (!g->name) {
        gs_cluster_fail(c, GS_ENOMEM);
        return -1;
    }
    return gi;
}

void gs_cluster_job_counted(struct gs_cluster *c, int wi, bool succeeded)
{
    struct gs_workload *wl = &c->w->workloads[wi];
    if (succeeded)
        wl->succeeded++;
    else
        wl->failed++;
}

void gs_cluster_set_replicas(struct gs_cluster *c, int wi, int replicas)
{
    c->w->workloads[wi].replicas = replicas;
}

void gs_cluster_set_suspended(struct gs_cluster *c, int wi, bool suspended)
{
    c->w->workloads[wi].suspended = suspended;
}

void gs_cluster_set_active_template(struct gs_cluster *c, int wi, const struct gs_pod_template *tmpl)
{
    c->w->workloads[wi].active_tmpl = tmpl;
}

void gs_cluster_admit(struct gs_cluster *c, int wi, int arrival, int lws_group, int count,
                      const struct gs_pod_template *tmpl)
{
    struct gs_watch_event ev = gs_watch_init(GS_W_GROUP_ADMITTED);
    ev.workload = wi;
    ev.arrival = arrival;
    ev.lws_group = lws_group;
    ev.count = count;
    ev.tmpl = tmpl;
    gs_cluster_watch(c, &ev);
}

void gs_cluster_group_deleted(struct gs_cluster *c, int wi, int g)
{
    struct gs_watch_event ev = gs_watch_init(GS_W_GROUP_DELETED);
    ev.workload = wi;
    ev.lws_group = g;
    gs_cluster_watch(c, &ev);
}

/* The admission chain: the first hook that takes the object wins. */
static bool admission(struct gs_cluster *c, int wi, int arrival, int lws_group)
{
    for (int i = 0; i < c->nctl; i++)
        if (c->state[i] && c->ctl[i]->admit_group &&
            c->ctl[i]->admit_group(c->state[i], c, wi, arrival, lws_group))
            return true;
    return false;
}

bool gs_cluster_admit_group(struct gs_cluster *c, int wi, int g)
{
    return admission(c, wi, 0, g);
}

/* The pods of a pod list (workloads[].trace, a cluster snapshot's pods) due at this instant,
 * created as bare pods under their own names and templates, then the next instant. One
 * GS_EV_ARRIVAL is pending per list at a time, so a 10k-row trace costs no more events than it
 * has instants. A listed pod's duration is its own unless the workload has a `duration`
 * distribution, drawn for each pod in creation order. */
static void list_arrival(struct gs_cluster *c, int wi, int k)
{
    const struct gs_workload *wl = &c->w->workloads[wi];
    gs_time now = gs_cluster_now(c);
    int i = k;
    for (; i < wl->nlist && wl->list[i].arrive <= now; i++) {
        const struct gs_listed_pod *lp = &wl->list[i];
        struct gs_pod_spec spec = {.workload = wi, .name = lp->name, .tmpl = lp->tmpl, .group = -1,
                                   .lws_group = -1, .has_duration = wl->duration.kind == GS_DIST_NONE,
                                   .duration = lp->duration};
        if (gs_cluster_create_pod(c, &spec) < 0)
            return;
    }
    if (i < wl->nlist)
        gs_cluster_at(c, wl->list[i].arrive, GS_PRIO_CREATE, GS_EV_ARRIVAL, wi, i);
}

/* The first arrival after `from` µs of a Poisson process whose rate follows the hour of day
 * (arrival.profile.hourly), by thinning (P. A. W. Lewis and G. S. Shedler, "Simulation of
 * nonhomogeneous Poisson processes by thinning", Naval Research Logistics Quarterly 26(3), 1979):
 * candidates at the largest rate, rate x hourly_max, each kept with probability
 * hourly[hour] / hourly_max; both draws from the arrivals stream. -1 when the next candidate
 * passes the horizon first (the run ends before it). */
static gs_time profiled_arrival(struct gs_cluster *c, const struct gs_arrival *a, gs_time from)
{
    const gs_time hour = (gs_time)3600 * 1000000, day = 24 * hour;
    double mean = 1.0 / (a->rate_per_us * a->hourly_max), t = (double)from;
    for (;;) {
        t += gs_rng_exponential(c->rng, GS_STREAM_ARRIVALS, mean);
        if (t > 9.0e18 || (c->sc->has_horizon && t > (double)c->sc->horizon))
            return -1;
        gs_time at = (gs_time)llround(t);
        int h = (int)(((at + a->day_offset) % day) / hour);
        if (gs_rng_uniform(c->rng, GS_STREAM_ARRIVALS) * a->hourly_max < a->hourly[h])
            return at;
    }
}

void gs_cluster_arrival(struct gs_cluster *c, int wi, int arrival)
{
    struct gs_workload *wl = &c->w->workloads[wi];
    gs_time now = gs_cluster_now(c);
    if (arrival < 0) {
        /* A profiled Poisson process starts at arrival.start with no arrival there: its first
         * one is drawn as the others are (scheduled by schedule_scenario, sim/run.c). */
        gs_time first = profiled_arrival(c, &wl->arrival, now);
        if (first >= 0)
            gs_cluster_at(c, first, GS_PRIO_CREATE, GS_EV_ARRIVAL, wi, 0);
        return;
    }
    wl->arrivals_done++;
    if (wl->kind == GS_WL_LIST) {
        list_arrival(c, wi, arrival);
        return;
    }
    if (wl->kind == GS_WL_JOB && wl->tmpl.invalid_detail) {
        /* A refused Job makes no pods (SCENARIO.md: object rejected). */
        char msg[2048];
        gs_validation_status_message("Job", "batch", wl->name, wl->tmpl.invalid_detail, msg, sizeof msg);
        wl->rejected = true;
        wl->reject_message = gs_arena_strdup(&c->w->arena, msg);
        gs_cluster_object(c, "Job", "default", wl->name, "Rejected", msg);
        return;
    }
    bool held = admission(c, wi, arrival, -1);
    if (wl->kind == GS_WL_PODGROUP) {
        /* The PodGroup object: pods labelled scheduling.x-k8s.io/pod-group join it. */
        if (gs_cluster_podgroup_object(c, wl->name) < 0)
            gs_cluster_group(c, wi, arrival, wl->name, wl->group_min_member);
        gs_cluster_object(c, "PodGroup", "default", wl->name, "Created", NULL);
    }
    struct gs_watch_event ev = gs_watch_init(GS_W_WORKLOAD_ARRIVED);
    ev.workload = wi;
    ev.arrival = arrival;
    ev.held_by_admission = held;
    gs_cluster_watch(c, &ev);
    /* The next arrival of a repeating workload. */
    wl = &c->w->workloads[wi];
    if (wl->arrival.count > 0 && arrival + 1 < wl->arrival.count) {
        gs_time next = -1;
        if (wl->arrival.hourly)
            next = profiled_arrival(c, &wl->arrival, now);
        else if (wl->arrival.kind == GS_ARRIVE_EVERY)
            next = now + wl->arrival.every;
        else if (wl->arrival.kind == GS_ARRIVE_POISSON && wl->arrival.rate_per_us > 0)
            next = now + (gs_time)llround(gs_rng_exponential(c->rng, GS_STREAM_ARRIVALS, 1.0 / wl->arrival.rate_per_us));
        /* Without count, arrivals end at the horizon (count is only their bound). */
        if (next >= 0 && !(wl->arrival.until_horizon && next > c->sc->horizon))
            gs_cluster_at(c, next, GS_PRIO_CREATE, GS_EV_ARRIVAL, wi, arrival + 1);
    }
}

/* ------------------------------------------------------------------ the run's own events */

static void scenario_event(struct gs_cluster *c, int i)
{
    const struct gs_sevent *se = &c->sc->events[i];
    if (gs_cluster_scenario_event(c, se))
        return;
    for (int k = 0; k < c->nctl; k++)
        if (c->state[k] && c->ctl[k]->scenario_event && c->ctl[k]->scenario_event(c->state[k], c, se))
            return;
}

void gs_cluster_on_event(struct gs_cluster *c, const struct gs_event *ev)
{
    switch ((enum gs_ev_kind)ev->kind) {
    case GS_EV_NODE_JOIN: gs_cluster_node_join(c, (int)ev->a); break;
    case GS_EV_SCENARIO: scenario_event(c, (int)ev->a); break;
    case GS_EV_ARRIVAL: gs_cluster_arrival(c, (int)ev->a, (int)ev->b); break;
    case GS_EV_POD_START: gs_cluster_pod_start(c, (int)ev->a); break;
    case GS_EV_POD_FINISH: gs_cluster_pod_finish(c, (int)ev->a); break;
    case GS_EV_POD_GONE: gs_cluster_pod_gone(c, (int)ev->a, ev->b != 0); break;
    default: GS_ASSERT(!"an event kind without a handler"); break;
    }
}
