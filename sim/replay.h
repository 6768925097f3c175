/* gpusim: a replay: run a scenario again, with the real engine, cluster, controllers and
 * scheduler, up to a simulated time T, and stop there, handing the caller the cluster at T
 * (its world, its DRA state) and the run's scheduler. `gpusim explain` computes its answers on
 * this state instead of guessing them from the trace.
 *
 * A replay is the run the trace recorded when it is given what the trace's `run` table says
 * made it (docs/trace-schema.md): scenario_path, seed, every override.<PATH> as `--set
 * PATH=VALUE`, horizon_us. The run is deterministic (same scenario, seed and overrides give the
 * same events), so the world at T is the one the trace describes at T; the caller checks that
 * it is (a scenario file edited since the run gives another world).
 *
 * The replay sets the run up as gs_run does (gs_cluster_init with gs_run_driver,
 * gs_run_schedule_scenario), then dispatches every event at or before min(T, horizon) (the
 * events of instant T included, so the state is the trace's "at T": every row with t_us <= T),
 * and stops without the run's end (no final sample, no final pod rows, no end-of-run checks).
 * Its own trace rows go to a trace at --trace-level summary in a private temporary directory,
 * removed by gs_replay_free: nothing is written beside the user's files.
 *
 * Units: time gs_time µs. Ownership: the replay owns the scenario, the cluster and the
 * temporary trace; free with gs_replay_free (also after a failed gs_replay_run).
 */
#ifndef GPUSIM_SIM_REPLAY_H
#define GPUSIM_SIM_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "base/error.h"
#include "base/time.h"
#include "sim/cluster.h"
#include "sim/scenario.h"

struct gs_sched;

struct gs_replay_opts {
    const char *scenario_path;   /* the scenario file to load (required) */
    const char *const *sets;     /* "PATH=VALUE" overrides, as gpusim run --set takes them */
    int nsets;
    int64_t seed;                /* >= 0: replaces spec.seed; < 0: the scenario's */
    int64_t horizon;             /* > 0: replaces spec.horizon (µs); <= 0: the scenario's */
    gs_time at;                  /* stop after the events at this time (µs, >= 0) */
    /* Called with the run's scheduler once (see hook_from), and again whenever the scheduler
     * controller replaces it (a schedulerRestart event) after that, before any cycle runs on
     * the new one: the place to install a gs_sched_observer. May be NULL. */
    void (*on_sched)(void *ctx, struct gs_sched *s);
    void *ctx;
    /* When on_sched is first called: < 0 at set-up; else just before the first event at or
     * after this time (µs), so an observer costs nothing before the cycles it is for. */
    gs_time hook_from;
    /* Set nonzero (e.g. by SIGINT) to stop the replay between events: gs_replay_run then
     * returns GS_EINTERRUPTED. May be NULL. */
    volatile const int *stop;
};

struct gs_replay {
    struct gs_scenario sc;       /* loaded scenario (its world is the cluster's) */
    struct gs_cluster c;         /* the cluster at `reached` */
    struct gs_run_opts run_opts; /* what gs_cluster_init was given */
    struct gs_trace *trace;      /* the private trace */
    char dir[256];               /* its temporary directory, "" when none */
    char trace_path[300];
    bool loaded, inited;
    gs_time reached;             /* the time of the last event dispatched (<= at), 0 before any */
    bool ended_before;           /* the run would have ended before `at` (no event or horizon left) */
};

/* Load o->scenario_path with o's overrides and replay it to o->at. Returns 0, or:
 *   - GS_EIO: the scenario file cannot be read (err says which), or the temporary trace cannot
 *     be made;
 *   - GS_EINVAL / GS_ENOTSUP: the scenario does not load now (err has file:line:col);
 *   - GS_ENOMEM, GS_ESQL: the replay itself failed (err says so);
 *   - GS_EINTERRUPTED: *o->stop was set.
 * `r` must be freed with gs_replay_free in every case. */
int gs_replay_run(const struct gs_replay_opts *o, struct gs_replay *r, struct gs_error *err);

/* The scheduler controller's scheduler at the replay's time (borrowed; NULL when the run has no
 * scheduler controller). It is the run's own, with its caches, queue state and nominations. */
struct gs_sched *gs_replay_sched(struct gs_replay *r);

/* The GPUs pod `pod` holds in its node's per-GPU share state (gs_node.gpus, gpushare.h), as
 * the device plugin recorded them at bind: whole GPUs or a gpu-milli share on a node that takes
 * shares. True with *node and *a set; false when the pod holds none there (not bound, no GPU,
 * devices of another kind: MIG, replicas, DRA). What-if questions that take a pod off its node
 * give these back with gs_gpushare_release and take them again with gs_gpushare_commit. */
bool gs_replay_pod_gpus(struct gs_replay *r, int pod, int *node, struct gs_gpushare_alloc *a);

/* Free everything the replay owns and remove its temporary directory. Safe on a zeroed or
 * failed replay. */
void gs_replay_free(struct gs_replay *r);

#endif
