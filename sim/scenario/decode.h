/* gpusim internal: the decoders of the scenario's sections. Each one checks its part of the
 * tree (keys, types, values) and fills the scenario; on error it fills d->err and returns
 * GS_EINVAL or GS_ENOTSUP. Called by load.c in this order: objects, cluster, scheduler,
 * workloads, events, expect (so priority classes, pools and resources exist when needed). */
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
/* spec.scheduler: KubeSchedulerConfiguration, tieBreak, admission (into sc->sched, which
 * load.c has already filled with gs_sched_config_default for the release and the
 * DynamicResourceAllocation gate). */
int gs_scn_scheduler(struct gs_ydec *d, const struct gs_ynode *map, struct gs_scenario *sc);
/* spec.workloads: plain workloads and manifests (Pod, batch/v1 Job). */
int gs_scn_workloads(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc);
/* spec.events. */
int gs_scn_events(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc);
/* spec.expect. */
int gs_scn_expect(struct gs_ydec *d, const struct gs_ynode *seq, struct gs_scenario *sc);

#endif
