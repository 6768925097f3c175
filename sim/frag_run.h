/* gpusim internal: GPU fragmentation in a run (sim/frag_run.c): the typical-pod set of the
 * scenario's workloads (fgd_world.h, 95 % popularity), handed to the scheduler for FGDScore, and
 * the cluster's fragmentation kept incrementally for the trace's sample.frag_gpus column and
 * the fragGpus metric; a sample after every bind and every pod that leaves its node with
 * `gpusim run --sample-every-pod`. Not a public header. */
#ifndef GPUSIM_SIM_FRAG_RUN_H
#define GPUSIM_SIM_FRAG_RUN_H

#include "sim/run_state.h"

/* Allocate r->frag and build the typical set (after r->sched exists; a scenario whose workloads
 * make no pod has none: fragmentation is then not measured). 0 or GS_ENOMEM. */
int gs_frag_run_setup(struct gs_runner *r);
void gs_frag_run_free(struct gs_runner *r);
/* Give r->sched the typical set (at setup, and to a restarted scheduler). */
void gs_frag_run_attach(struct gs_runner *r);

/* Cluster fragmentation now, in GPUs (the sum over existing nodes of the FGD node frag amount,
 * gs_fgd_node_frag, / 1000); NaN when not measured. Only the nodes changed since the last call
 * are recomputed. */
double gs_frag_run_gpus(const struct gs_runner *r);
/* Node `ni`'s part of it (call gs_frag_run_gpus first); 0 when not measured. */
double gs_frag_run_node_gpus(const struct gs_runner *r, int ni);

/* A pod was bound to a node or left it: with opts->sample_every_pod, a sample now. */
void gs_frag_run_pod_changed(struct gs_runner *r);

#endif
