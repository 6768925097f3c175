/* gpusim internal: clusters and pods imported from outside the scenario file.
 *
 *   spec.cluster.source {format: openb, nodes: <csv>}               openb_source.c
 *   spec.cluster.source {format: kubectl, nodes: <json>, pods: <json>}  snapshot.c
 *   spec.workloads[].trace {format: openb, pods: <csv>, ...}         podtrace.c
 *
 * Imported nodes become pools (one per node shape: source.c gs_scn_source_pools) whose
 * gs_pool.nodes keep each node's own name, labels, taints, cordon and resources; imported pods
 * become GS_WL_LIST workloads. Paths are relative to the scenario's directory. Errors fill
 * d->err (GS_EINVAL, GS_ENOTSUP; GS_ENOMEM) and name the imported file, with its line:column
 * where known, and the JSON path or CSV row. Not a public header. */
#ifndef GPUSIM_SCENARIO_SOURCE_H
#define GPUSIM_SCENARIO_SOURCE_H

#include "sim/scenario.h"
#include "sim/scenario/yaml.h"

/* The pod annotation of a GPU share in milli-GPU (the device plugin controller, sim/controllers/device_plugin.h). */
#define GS_SRC_GPU_MILLI_ANNOTATION "alibabacloud.com/gpu-milli"
/* The node label that carries an openb GPU model (A10, G2, T4, ...), as the FGD simulator
 * writes it; a trace pod's gpu_spec is a required nodeAffinity on it. */
#define GS_SRC_CARD_MODEL_LABEL "alibabacloud.com/gpu-card-model"

/* One imported node before it is put in a pool. */
struct gs_src_node {
    const char *stem;       /* pool name stem (a DNS label): "t4-2gpu", "p4d-24xlarge", "cpu" */
    const char *product;    /* GPU product (nvidia.com/gpu.product), NULL without GPUs */
    int gpus;               /* GPU count */
    struct gs_pool_node own; /* name, labels, taints, cordon, capacity and allocatable */
};

/* spec.cluster.source at `n` (path "spec.cluster.source"): pools appended to sc->world.pools;
 * a kubectl snapshot's pods become workloads snapshot-running and snapshot-pending in
 * sc->world.workloads (gs_scn_workloads appends the scenario's own after them). */
int gs_scn_cluster_source(struct gs_ydec *d, const struct gs_ynode *n, struct gs_scenario *sc);

/* Group `nodes` (count `n`, in file order) into pools by (stem, product, gpus), appended to
 * sc->world.pools in order of first appearance, named by their stem (with -2, -3, ... when a
 * stem is taken). Each pool's capacity and reserved are its first node's; every node keeps
 * its own. Duplicate or invalid node names are errors at `at` naming `file`. */
int gs_scn_source_pools(struct gs_ydec *d, const struct gs_ynode *at, const char *file, struct gs_src_node *nodes,
                        int n, struct gs_scenario *sc);

/* The file `rel` of key node `at` relative to the scenario's directory (arena). NULL only
 * when out of memory (d->err set). */
const char *gs_scn_source_path(struct gs_ydec *d, const struct gs_ynode *at, const char *rel);

/* {format: openb, nodes} (source.c has checked the keys): one node per CSV row. */
int gs_scn_openb_nodes(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_scenario *sc);
/* {format: kubectl, nodes, pods}: the two `kubectl get -o json` lists. */
int gs_scn_snapshot(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_scenario *sc);

/* spec.workloads[i] with a `trace:` key (at `path`) into `w`; its name node (or the trace
 * node when unnamed) into *name_node. */
int gs_scn_trace_workload(struct gs_ydec *d, const struct gs_ynode *e, const char *path, struct gs_scenario *sc,
                          struct gs_workload *w, const struct gs_ynode **name_node);

#endif
