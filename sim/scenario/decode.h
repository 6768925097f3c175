/* gpusim internal: the decoders of the scenario's sections. Each one checks its part of the
 * tree (keys, types, values) and fills the scenario; on error it fills d->err and returns
 * GS_EINVAL or GS_ENOTSUP. Called by load.c in this order: versions, objects, cluster, catalog,
 * operator, scheduler, workloads, events, expect (so priority classes, pools, resources, the
 * catalog and the operator config exist when needed). */
#ifndef GPUSIM_SCENARIO_DECODE_H
#define GPUSIM_SCENARIO_DECODE_H

#include "gpusim/scenario.h"
#include "sim/scenario/yaml.h"

/* spec.objects: PriorityClass now; other known kinds are "not supported yet". `seq` may be
 * NULL (no objects): world.priority_classes always gets the API server's built-in
 * system-cluster-critical (2000000000) and system-node-critical (2000001000) first. */
int gs_scn_objects(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc);
/* spec.cluster (required): nodePools (world.pools, in the arena). cpu in millicores, memory
 * and ephemeral-storage in bytes; capacity.cpu and .memory required, pods defaults to 110;
 * nvidia.com/gpu is refused in capacity (the run loop advertises gpu.count). */
int gs_scn_cluster(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc);
/* After the catalog is loaded (sc->catalog, with spec.catalog applied): every pool's
 * gpu.product must be a product of the catalog; an unknown one is an error at the product node
 * of `map` (spec.cluster) with a suggestion and a hint that spec.catalog.gpus can add it. */
int gs_scn_cluster_products(struct gs_ydec *d, const struct gs_ynode *map, const struct gs_scenario *sc);
/* spec.versions (may be NULL): gpu-operator v25.3.0 (default), v23.9.2 or v1.5.2 into
 * sc->gpu_operator_version; any other add-on or release is "not supported yet". */
int gs_scn_versions(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc);
/* spec.catalog: gpus (added, or replacing a product of the same name) and timingProfiles (added
 * or overriding) into sc->catalog, which load.c has loaded from gs_catalog_default_dir();
 * driverBuildFailures into sc->op.build_failures. */
int gs_scn_catalog(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc);
/* spec.operator into sc->op (load.c has set gs_operator_config_defaults); see operator.c for the
 * keys, defaults and what is not supported yet. */
int gs_scn_operator(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc);
/* A sequence of kernel names at `path` into *out (arena; NULL and 0 when empty). */
int gs_scn_kernels(struct gs_ydec *d, const struct gs_ynode *seq, const char *path, const char *const **out,
                   int *nout);
/* A driver version: 1 to 4 dot-separated runs of digits ("550.90.07", or a branch "550"). */
bool gs_scn_driver_version_ok(const char *s);
/* spec.scheduler: KubeSchedulerConfiguration, tieBreak, admission (into sc->sched, which
 * load.c has already filled with gs_sched_config_default for the release and the
 * DynamicResourceAllocation gate). */
int gs_scn_scheduler(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc);
/* spec.workloads: plain workloads and manifests (Pod, batch/v1 Job). */
int gs_scn_workloads(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc);
/* spec.events. */
int gs_scn_events(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc);
/* spec.expect. `horizon_source` names where sc->horizon comes from ("spec.horizon" or
 * "--horizon"; NULL without a horizon): a check whose `at` (or metric `from`/`to`) is after the
 * horizon is an error at that node. Each entry's `what` is set (gs_expect_describe). */
int gs_scn_expect(struct gs_ydec *d, const struct gs_ynode *seq, const char *horizon_source, struct gs_scenario *sc);

#endif
