/* gpusim: the scenario's size limits and memory estimate (sim/limits.h). */
#include "sim/limits.h"

#include <limits.h>

#include "sim/scenario/decode.h"

/* a * b, saturating at INT64_MAX (both >= 0) */
static int64_t mul_sat(int64_t a, int64_t b)
{
    if (a == 0 || b == 0)
        return 0;
    return a > INT64_MAX / b ? INT64_MAX : a * b;
}

static int64_t add_sat(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Arrivals of workload `w` before the horizon. An arrival without count (until the horizon)
 * has its bound in count already: every arrival at or before the horizon for `every`, a
 * Poisson quantile for poisson (sim/scenario/workloads.c open_count). */
static int64_t arrivals(const struct gs_scenario *sc, const struct gs_workload *w)
{
    const struct gs_arrival *a = &w->arrival;
    int64_t n = a->count;
    if (!sc->has_horizon)
        return n;
    if (a->start > sc->horizon)
        return 0;
    if (a->kind == GS_ARRIVE_EVERY && a->every > 0) {
        int64_t fit = (sc->horizon - a->start) / a->every + 1;
        if (fit < n)
            n = fit;
    }
    return n;
}

/* The groups LeaderWorkerSet `wi` creates over the run without replacements, counting its
 * `scale` events (sim/controllers/lws.c): the groups of its first arrival (spec.replicas as the
 * scale events before the arrival left it), those of every later arrival at the most replicas
 * it ever has, and every scale-up after the first arrival (new group indexes are new pods, and
 * a scale-down then up creates the groups again). Events after the horizon do not run. With
 * `at_event`, the index in sc->events of the scale event from which the workload's pods pass
 * `budget` (-1 when none). */
static int64_t lws_groups(const struct gs_scenario *sc, int wi, int64_t budget, int *at_event)
{
    const struct gs_workload *w = &sc->world.workloads[wi];
    int64_t n = arrivals(sc, w), size = w->lws_size > 0 ? w->lws_size : 1;
    if (at_event)
        *at_event = -1;
    if (n == 0)
        return 0;
    int64_t r = w->replicas, most, groups;
    int e = 0;
    /* A scale before the first arrival only sets the count it arrives with. */
    for (; e < sc->nevents && sc->events[e].at < w->arrival.start; e++)
        if (sc->events[e].kind == GS_SEV_SCALE && sc->events[e].workload == wi)
            r = sc->events[e].replicas;
    most = r;
    for (int f = e; f < sc->nevents; f++)
        if (sc->events[f].kind == GS_SEV_SCALE && sc->events[f].workload == wi &&
            (!sc->has_horizon || sc->events[f].at <= sc->horizon) && sc->events[f].replicas > most)
            most = sc->events[f].replicas;
    groups = add_sat(r, mul_sat(n - 1, most));
    for (; e < sc->nevents; e++) {
        const struct gs_sevent *ev = &sc->events[e];
        if (ev->kind != GS_SEV_SCALE || ev->workload != wi || (sc->has_horizon && ev->at > sc->horizon))
            continue;
        if (ev->replicas > r)
            groups = add_sat(groups, ev->replicas - r);
        r = ev->replicas;
        if (at_event && *at_event < 0 && mul_sat(groups, size) > budget)
            *at_event = e;
    }
    return groups;
}

int64_t gs_scenario_workload_pods(const struct gs_scenario *sc, int wi)
{
    const struct gs_workload *w = &sc->world.workloads[wi];
    if (w->rejected)
        return 0;
    switch (w->kind) {
    case GS_WL_PODGROUP:
        return 0;
    case GS_WL_LIST: {
        int64_t n = 0;
        for (int i = 0; i < w->nlist; i++)
            n += !sc->has_horizon || w->list[i].arrive <= sc->horizon;
        return n;
    }
    case GS_WL_JOB: {
        int64_t per = w->completions > 0 ? w->completions : w->parallelism;
        per = add_sat(per < 0 ? 0 : per, w->backoff_limit < 0 ? 0 : w->backoff_limit);
        return mul_sat(arrivals(sc, w), per);
    }
    case GS_WL_LWS:
        return mul_sat(lws_groups(sc, wi, 0, NULL), w->lws_size);
    case GS_WL_POD:
    case GS_WL_PLAIN:
    default:
        return mul_sat(arrivals(sc, w), w->replicas > 0 ? w->replicas : 1);
    }
}

void gs_scenario_size(const struct gs_scenario *sc, struct gs_scenario_size *out)
{
    const struct gs_world *w = &sc->world;
    out->nodes = 0;
    for (int p = 0; p < w->npools; p++)
        out->nodes = add_sat(out->nodes, w->pools[p].count);
    out->pods = 0;
    for (int i = 0; i < w->nworkloads; i++)
        out->pods = add_sat(out->pods, gs_scenario_workload_pods(sc, i));
    out->memory_bytes =
        add_sat(add_sat(GS_MEM_BASE, mul_sat(out->nodes, GS_MEM_PER_NODE)), mul_sat(out->pods, GS_MEM_PER_POD));
    /* A LeaderWorkerSet's pods carry a template each (sim/controllers/lws.c member_template). */
    for (int i = 0; i < w->nworkloads; i++) {
        const struct gs_workload *wl = &w->workloads[i];
        if (wl->kind != GS_WL_LWS)
            continue;
        int64_t labels = wl->tmpl.labels.n;
        if (wl->lws_leader_tmpl && wl->lws_leader_tmpl->labels.n > labels)
            labels = wl->lws_leader_tmpl->labels.n;
        out->memory_bytes = add_sat(out->memory_bytes, mul_sat(gs_scenario_workload_pods(sc, i),
                                                               GS_MEM_PER_LWS_POD + labels * GS_MEM_PER_LABEL));
    }
    /* What the loader keeps for the new workload forms (arena data of the run's life): a pod
     * template per gpusPerPod count (the pods of one count share it, so a pod's memory does not
     * depend on its count) and the values of an empirical duration. */
    for (int i = 0; i < w->nworkloads; i++) {
        const struct gs_workload *wl = &w->workloads[i];
        out->memory_bytes = add_sat(out->memory_bytes, mul_sat(wl->ngpu_choices, (int64_t)(sizeof(struct gs_pod_template) +
                                                                                         sizeof(struct gs_gpu_choice))));
        if (wl->duration.kind == GS_DIST_EMPIRICAL)
            out->memory_bytes = add_sat(out->memory_bytes, mul_sat(wl->duration.nvalues, (int64_t)sizeof(gs_time)));
    }
    /* Kueue: a Workload per arrival, per LeaderWorkerSet group, per listed pod (counted for
     * every workload: which ones a LocalQueue holds is known only as they arrive). */
    for (int i = 0; sc->kueue && i < w->nworkloads; i++) {
        const struct gs_workload *wl = &w->workloads[i];
        int64_t n = wl->rejected || wl->kind == GS_WL_PODGROUP ? 0
                    : wl->kind == GS_WL_LWS                     ? lws_groups(sc, i, 0, NULL)
                    : wl->kind == GS_WL_LIST                    ? gs_scenario_workload_pods(sc, i)
                                                                : arrivals(sc, wl);
        out->memory_bytes = add_sat(out->memory_bytes, mul_sat(n, GS_MEM_PER_KUEUE_WORKLOAD));
    }
}

int gs_scn_limits(struct gs_ydec *d, const struct gs_ynode *spec, const struct gs_scenario *sc)
{
    const struct gs_ynode *cluster = gs_y_get(spec, "cluster"), *workloads = gs_y_get(spec, "workloads");
    if (!cluster)
        cluster = spec;
    struct gs_scenario_size size;
    gs_scenario_size(sc, &size);
    if (size.nodes > GS_MAX_NODES)
        return gs_y_error(d, cluster,
                          "spec.cluster has %lld nodes in all; gpusim runs at most %d nodes (the limits are in "
                          "docs/scenario-format.md, \"Limits and memory\")",
                          (long long)size.nodes, GS_MAX_NODES);
    if (size.pods <= GS_MAX_PODS)
        return 0;
    /* Point at the workload that makes the most pods. */
    int worst = 0;
    int64_t most = -1;
    for (int i = 0; i < sc->world.nworkloads; i++) {
        int64_t n = gs_scenario_workload_pods(sc, i);
        if (n > most) {
            most = n;
            worst = i;
        }
    }
    /* A scale event that takes a LeaderWorkerSet past the limit: the error is at the event. */
    const struct gs_ynode *events = gs_y_get(spec, "events");
    for (int i = 0; i < sc->world.nworkloads && events && events->type == GS_Y_SEQ; i++) {
        if (sc->world.workloads[i].kind != GS_WL_LWS || sc->world.workloads[i].rejected)
            continue;
        int64_t mine = gs_scenario_workload_pods(sc, i);
        int e;
        lws_groups(sc, i, GS_MAX_PODS - (size.pods - mine), &e);
        if (e < 0)
            continue;
        const struct gs_sevent *ev = &sc->events[e];
        for (int k = 0; k < events->n; k++)
            if (events->items[k]->line == ev->line && events->items[k]->col == ev->col)
                return gs_y_error(d, events->items[k],
                                  "the workloads create %lld pods over the run (LeaderWorkerSet %s %lld, scaled to "
                                  "%d groups of %d here); gpusim runs at most %d pods (lower the replicas; the "
                                  "limits are in docs/scenario-format.md, \"Limits and memory\")",
                                  (long long)size.pods, sc->world.workloads[i].name, (long long)mine, ev->replicas,
                                  sc->world.workloads[i].lws_size, GS_MAX_PODS);
    }
    /* (snapshots and pod lists add workloads that are not items of spec.workloads) */
    const struct gs_ynode *at = !workloads                                            ? spec
                                : workloads->type == GS_Y_SEQ && workloads->n == sc->world.nworkloads ? workloads->items[worst]
                                                                                                      : workloads;
    return gs_y_error(d, at,
                      "the workloads create %lld pods over the run (this one %lld); gpusim runs at most %d pods "
                      "(shorten the horizon or lower count/replicas; the limits are in docs/scenario-format.md, "
                      "\"Limits and memory\")",
                      (long long)size.pods, (long long)most, GS_MAX_PODS);
}
