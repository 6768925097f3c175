/* gpusim internal: the device plugin controller's state, shared by its files
 * (sim/controllers/device_plugin.c: config per node, what it advertises, the MIG manager, the
 * kubelet's Allocate check; sim/controllers/device_plugin_alloc.c: the devices and GPU shares
 * handed to pods at bind). */
#ifndef GPUSIM_SIM_CONTROLLERS_DEVICE_PLUGIN_H
#define GPUSIM_SIM_CONTROLLERS_DEVICE_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>

#include "base/intmap.h"
#include "models/dpconfig.h"
#include "models/mig.h"
#include "sim/controller.h"

#define DEV_MAX_RES 24

struct dev_node {
    bool init;
    int ngpus;
    const char *product;
    struct gs_mig_layout *mig;   /* ngpus layouts (NULL without GPUs) */
    struct gs_mig_layout *next;  /* the layouts being applied */
    bool has_mig;                /* the product has a MIG model */
    const struct gs_dp_config *dp; /* the plugin's config; NULL: it cannot start */
    const char *dp_label;        /* nvidia.com/device-plugin.config it was chosen with */
    const char *mig_seen;        /* the nvidia.com/mig.config value last handled */
    bool mig_busy;
    struct gs_mig_outcome outcome;
    uint32_t token;
    uint32_t paused;             /* bit i: pause_keys[i] was paused */
    int alloc_res[DEV_MAX_RES], nalloc_res; /* resources advertised in allocatable */
    int cap_res[DEV_MAX_RES], ncap_res;
    uint64_t unhealthy;          /* GPUs left out of allocatable at the last advertise (Xid) */
};

/* One device the device plugin handed to a pod on a node without shares (dev_allocate). */
struct dev_hold {
    int ri;          /* the resource it was requested as (w->res) */
    int gpu;         /* physical GPU index */
    int profile;     /* MIG profile (index into the GPU's profile table), -1: the whole GPU */
    int start;       /* MIG placement start (memory slice) */
    int replica;     /* replica 0..replicas-1 of a time-sliced / MPS device, -1: not replicated */
    int replicas;
};

/* What a bound pod holds (device_plugin_alloc.c). A record with nothing held (held false,
 * ndevs 0) means the same as none and is not kept. */
struct pod_alloc {
    bool held;                   /* a share or whole GPUs on a node that takes shares: `a` on `node` */
    int node;
    struct gs_gpushare_alloc a;
    struct dev_hold *devs;       /* heap; ndevs of them on node dev_node */
    int ndevs, devcap, dev_node;
};

struct devices {
    int self;
    struct dev_node *nodes;
    int cap;
    struct gs_intmap pods;       /* pod index -> struct pod_alloc, for the pods bound and not
                                  * yet stopping that hold GPUs or devices */
    struct gs_dp_config default_cfg;
};

/* device_plugin.c, for device_plugin_alloc.c */
/* Node `ni`'s state, NULL when it is not set up. */
struct dev_node *gs_dev_node(struct devices *d, int ni);
/* Shares are modelled on whole physical GPUs only: no replicas, no MIG devices. */
bool gs_dev_share_node(const struct dev_node *dn);

/* device_plugin_alloc.c */
/* Pod `pi` was bound to its node: its GPUs (whole or a share, `share_gpu`: the GPU a scheduler
 * plugin chose, -1) or the devices it gets (see the file's rules). */
void gs_dev_pod_bound(struct devices *d, struct gs_cluster *c, int pi, int share_gpu);
/* Pod `pi` leaves its node: its GPUs and devices are given back. */
void gs_dev_pod_released(struct devices *d, struct gs_cluster *c, int pi);
/* A pod on node `ni` that holds GPU `g` (in its current layout), or -1 (see the file). */
int gs_dev_gpu_holder(const struct devices *d, const struct gs_cluster *c, int ni, const struct dev_node *dn, int g);

#endif
