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

/* Arrivals of workload `w` before the horizon. */
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
        return mul_sat(arrivals(sc, w), mul_sat(w->replicas, w->lws_size));
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
