/* gpusim: a run: wires a loaded scenario's world to the engine, the scheduler and the trace,
 * and checks the scenario's expect: block.
 *
 * Pod lifecycle: created (Pending) → bound by the scheduler → Running after the start latency
 * → Succeeded when its duration ends (resources freed, pending pods woken). A pod the API server
 * refuses ends Rejected at creation. Without `operator:`, nodes join with their GPUs advertised
 * (allocatable nvidia.com/gpu = GPU count) and the labels GPU feature discovery would set.
 */
#ifndef GPUSIM_RUN_H
#define GPUSIM_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/scenario.h"
#include "sim/trace.h"

struct gs_run_opts {
    const char *trace_path;          /* required */
    enum gs_trace_level trace_level; /* default GS_TRACE_EVENTS */
    volatile const int *stop;        /* set nonzero (e.g. by SIGINT) to stop; may be NULL */
    /* Called about every `progress_every` dispatched events with the simulated time; may be NULL. */
    void (*progress)(gs_time now, gs_time horizon, uint64_t events, void *ctx);
    void *progress_ctx;
    /* Also write a sample row (whole cluster and per pool) after every bind and every pod that
     * leaves its node, so fragmentation can be followed pod by pod (gpusim run
     * --sample-every-pod). Default false: samples every spec.sampleInterval only. */
    bool sample_every_pod;
    /* What the trace records of how it was made (docs/trace-schema.md, the run table): the
     * command line as run (run.command; NULL: not written), and the --set arguments as given,
     * "PATH=VALUE" each (run.override.PATH = VALUE, split at the first '='; a PATH given twice
     * keeps the last VALUE). Borrowed for the call of gs_run. */
    const char *command;
    const char *const *overrides;
    int noverrides;
};

struct gs_run_result {
    const char *status;  /* "complete" | "interrupted" | "failed" (static) */
    gs_time end;         /* simulated end time */
    uint64_t events;     /* events dispatched */
    int checks_total;
    int checks_failed;
    int pods_created;
    int pods_scheduled;  /* bind decisions */
    uint64_t cycles;     /* scheduling cycles run */
    gs_time complete_until; /* every event at or before it was dispatched and written */
    bool trace_at_path;  /* the trace is at o->trace_path (status complete); else it was left
                          * at o->trace_path + ".partial" (gs_trace_partial_path) */
};

/* Run `sc` (borrowed; its world is modified) to its horizon or until no event is left.
 * Writes the trace to o->trace_path (sim/trace.h: through PATH.partial, renamed into place when
 * the run is complete) and fills *r. The expect: results are stored in
 * sc->expects[i].pass/detail and in the trace. Returns 0 (even when checks fail: see
 * r->checks_failed), GS_EIO/GS_ESQL when the trace cannot be written (errbuf says why),
 * GS_ENOMEM. An interrupted run returns 0 with r->status "interrupted". */
int gs_run(struct gs_scenario *sc, const struct gs_run_opts *o, struct gs_run_result *r, char *errbuf,
           int errlen);

/* The pieces of gs_run that sim/replay.c shares, so a replay sets a run up exactly as gs_run
 * does: the driver of the run's own periodic work (samples and checks; gs_cluster_init's
 * `driver`) and the scenario's own events, scheduled on a fresh cluster (nodes joining,
 * workload arrivals, spec.events, timed checks, the first sample: this order decides the order
 * of events at equal times). */
struct gs_cluster;
struct gs_event;
void gs_run_driver(struct gs_cluster *c, const struct gs_event *ev);
void gs_run_schedule_scenario(struct gs_cluster *c);

#endif
