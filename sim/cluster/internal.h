/* gpusim internal: what the cluster layer's files (sim/cluster/) share. Not for controllers. */
#ifndef GPUSIM_SIM_CLUSTER_INTERNAL_H
#define GPUSIM_SIM_CLUSTER_INTERNAL_H

#include "sim/cluster.h"


/* A watch event of `type` with every index -1 and everything else zero. */
struct gs_watch_event gs_watch_init(enum gs_watch_type type);

/* The run's own event kinds below GS_EV_TIMER, but samples and checks (sim/cluster/cluster.c
 * dispatches here: node joins, scenario events, arrivals, the kubelets' pod events). */
void gs_cluster_on_event(struct gs_cluster *c, const struct gs_event *ev);

/* pods.c */
/* The kubelet's handlers of GS_EV_POD_START, GS_EV_POD_FINISH, GS_EV_POD_GONE. */
void gs_cluster_pod_start(struct gs_cluster *c, int p);
void gs_cluster_pod_finish(struct gs_cluster *c, int p);
void gs_cluster_pod_gone(struct gs_cluster *c, int p, bool eviction);

/* attempts.c: free the attempts' record (c->attempts). */
void gs_cluster_attempts_free(struct gs_cluster *c);

/* nodes.c: the handler of GS_EV_NODE_JOIN. */
void gs_cluster_node_join(struct gs_cluster *c, int pool);

/* dra.c: the device plugin's whole GPUs of pod `p` on node `n` in the DRA ledger, and the node's
 * requested nvidia.com/gpu kept in step with the GPUs DRA holds (at bind). */
void gs_cluster_dra_bound(struct gs_cluster *c, int p, int n);
/* The devices of pod `p`'s claims (one DeviceAllocated row per allocation result). */
void gs_cluster_dra_trace_devices(struct gs_cluster *c, int p);

#endif
