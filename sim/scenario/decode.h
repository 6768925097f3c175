/* gpusim internal: the decoders of the scenario's sections. Each one checks its part of the
 * tree (keys, types, values) and fills the scenario; on error it fills d->err and returns
 * GS_EINVAL or GS_ENOTSUP. Called by load.c in this order: versions, objects, cluster, catalog,
 * operator, scheduler, workloads, events, expect (so priority classes, pools, resources, the
 * catalog and the operator config exist when needed). */
#ifndef GPUSIM_SCENARIO_DECODE_H
#define GPUSIM_SCENARIO_DECODE_H

#include "sim/scenario.h"
#include "sim/scenario/yaml.h"

/* spec.objects: PriorityClass now; other known kinds are "not supported yet". `seq` may be
 * NULL (no objects): world.priority_classes always gets the API server's built-in
 * system-cluster-critical (2000000000) and system-node-critical (2000001000) first. */
int gs_scn_objects(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc);
/* Kueue (sim/scenario/kueue.c): one kueue.x-k8s.io object of spec.objects (ResourceFlavor,
 * ClusterQueue, LocalQueue in v1beta1; Topology in v1alpha1 or v1beta1) at `n` (`path` names
 * it) into sc->kueue (created on first use, arena); scheduler.kueueConfig (a
 * config.kueue.x-k8s.io/v1beta1 Configuration); spec.versions.kueue (v0.13.x to v0.15.x).
 * Errors as the other decoders (GS_EINVAL, GS_ENOTSUP, file:line:col). */
int gs_scn_kueue_object(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *api_version,
                        const char *kind, struct gs_scenario *sc);
int gs_scn_kueue_config(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_scenario *sc);
/* The kueue.x-k8s.io/queue-name label in a Job or Pod manifest's metadata `meta` (at `path`):
 * checked (a LocalQueue name) and recorded for workload `workload` in sc->kueue->labels. */
int gs_scn_kueue_queue_label(struct gs_ydec *d, const struct gs_ynode *meta, const char *path, const char *workload,
                             struct gs_scenario *sc);
int gs_scn_kueue_version(struct gs_ydec *d, const struct gs_ynode *v, const char *path, struct gs_scenario *sc);
/* DRA (sim/scenario/dra.c): one resource.k8s.io object of spec.objects (DeviceClass,
 * ResourceClaim, ResourceClaimTemplate) at `n` into sc->dra (created on first use by
 * gs_scn_dra_spec, arena; NULL when out of memory); a pod's spec.resourceClaims at `seq` (may be
 * NULL) into *out (NULL when none); spec.versions.dra-driver-nvidia-gpu; operator.draDriver;
 * after the workloads, gs_scn_dra_finish adds the driver chart's DeviceClasses and checks that
 * every deviceClassName and every pod's claim or template exists (errors at their position,
 * with a suggestion; `objects` is spec.objects or NULL); a ResourceClaim's expected `status:`.
 * gs_scn_dra_free releases the compiled CEL programs (gs_scenario_free calls it). Errors as
 * the other decoders (GS_EINVAL, GS_ENOTSUP, file:line:col; a bad CEL selector's column is the
 * column inside the expression's line). */
int gs_scn_dra_object(struct gs_ydec *d, const struct gs_ynode *n, const char *path, const char *api_version,
                      const char *kind, struct gs_scenario *sc);
struct gs_pod_claims;
int gs_scn_dra_pod_claims(struct gs_ydec *d, const struct gs_ynode *seq, const char *path,
                          const struct gs_pod_claims **out);
int gs_scn_dra_version(struct gs_ydec *d, const struct gs_ynode *v, const char *path, struct gs_scenario *sc);
int gs_scn_dra_driver(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_scenario *sc);
int gs_scn_dra_finish(struct gs_ydec *d, const struct gs_ynode *objects, struct gs_scenario *sc);
struct gs_dra_expect_status;
int gs_scn_dra_expect_status(struct gs_ydec *d, const struct gs_ynode *st, const char *path,
                             const struct gs_dra_expect_status **out);
struct gs_dra_spec *gs_scn_dra_spec(struct gs_ydec *d, struct gs_scenario *sc);
void gs_scn_dra_free(struct gs_scenario *sc);
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
/* A leaderworkerset.x-k8s.io/v1 LeaderWorkerSet manifest `m` (at `path`) into workload `w`
 * (sim/scenario/lws.c). */
int gs_scn_lws_manifest(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_scenario *sc,
                        struct gs_workload *w, const struct gs_ynode **name_node);
/* A scheduling.x-k8s.io/v1alpha1 PodGroup manifest into workload `w` (sim/scenario/podgroup.c). */
int gs_scn_podgroup_manifest(struct gs_ydec *d, const struct gs_ynode *m, const char *path, struct gs_workload *w,
                             const struct gs_ynode **name_node);
int gs_scn_workloads(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc);
/* A workload's `duration` at `n` (NULL or null: runs until deleted): a Go duration, or
 * {distribution: fixed|exponential|lognormal, ...} (workloads.c). */
int gs_scn_duration_dist(struct gs_ydec *d, const struct gs_ynode *n, const char *path, struct gs_duration_dist *dd);
/* Node pools' `autoscaling` (spec.cluster.nodePools[i].autoscaling) and spec.autoscaler into
 * sc->autoscaler (sim/autoscaler.h; NULL when no pool has autoscaling). `spec` is the spec map;
 * `horizon_source` as for gs_scn_expect (autoscaling needs a horizon). */
int gs_scn_autoscaling(struct gs_ydec *d, const struct gs_ynode *spec, const char *horizon_source,
                       struct gs_scenario *sc);
/* spec.events. */
int gs_scn_events(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc);
/* spec.expect. `horizon_source` names where sc->horizon comes from ("spec.horizon" or
 * "--horizon"; NULL without a horizon): a check whose `at` (or metric `from`/`to`) is after the
 * horizon is an error at that node. Each entry's `what` is set (gs_expect_describe). */
int gs_scn_expect(struct gs_ydec *d, const struct gs_ynode *seq, const char *horizon_source, struct gs_scenario *sc);

/* The size limits of sim/limits.h, once everything is loaded: total nodes (error at
 * spec.cluster) and planned pods (error at the workload making the most, or spec.workloads).
 * `spec` is the spec map. Returns 0 or GS_EINVAL (d->err set). */
int gs_scn_limits(struct gs_ydec *d, const struct gs_ynode *spec, const struct gs_scenario *sc);

#endif
