/* gpusim: the NVIDIA device plugin's config file (version v1) as data, the named configs the
 * config-manager sidecar picks by node label, and what a config makes of a node: allocatable
 * per resource name (GPUs x replicas, renames, MIG resources), the GFD sharing labels, and the
 * Allocate check that refuses a shared request for more than one replica.
 *
 * Sources: NVIDIA/k8s-device-plugin api/config/v1 (config.go, flags.go, replicas.go,
 * sharing.go, resources.go, consts.go), internal/rm/rm.go (ValidateRequest),
 * internal/rm/device_map.go (replicas), cmd/nvidia-device-plugin/main.go (validateFlags),
 * internal/lm/resource.go (labels); kubernetes pkg/kubelet/cm/admission/errors.go and
 * pkg/kubelet/kubelet.go rejectPod (the pod's message); ../shared/reference/gpu-operator.md §3.
 * Decoding from YAML is in sim/scenario/dpconfig.c (sim/scenario/dpconfig.h); the functions
 * here are pure (models/dpconfig.c).
 */
#ifndef GPUSIM_DPCONFIG_H
#define GPUSIM_DPCONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/gfd.h"
#include "models/mig.h"
#include "models/world.h"

/* Which devices of a resource are replicated (ReplicatedDevices: a union). */
enum gs_dp_devices { GS_DP_DEVICES_ALL = 0, GS_DP_DEVICES_COUNT, GS_DP_DEVICES_LIST };

/* sharing.{timeSlicing,mps}.resources[i] (ReplicatedResource). */
struct gs_dp_resource {
    const char *name;          /* full name: the plugin prefixes "nvidia.com/" ("gpu" -> "nvidia.com/gpu") */
    const char *rename;        /* full name, or NULL; renameByDefault sets "<name>.shared" */
    int replicas;              /* >= 2 (the plugin refuses less) */
    enum gs_dp_devices devices;
    int count;                 /* GS_DP_DEVICES_COUNT: > 0 */
    const char *const *list;   /* GS_DP_DEVICES_LIST: GPU indices "0", MIG indices "0:1", UUIDs */
    int nlist;
};

/* One config file. Strings are arena storage. */
struct gs_dp_config {
    const char *name;                 /* the named-config key ("" for a single config) */
    enum gs_mig_strategy mig_strategy;  /* flags.migStrategy (default none, or the operator's) */
    bool mig_strategy_given;          /* flags.migStrategy was in the file */
    bool fail_on_init_error;          /* flags.failOnInitError (default true) */
    enum gs_sharing sharing;          /* the active strategy (Sharing.SharingStrategy(): mps when
                                       * sharing.mps has resources, else time-slicing when
                                       * timeSlicing has, else none) */
    bool rename_by_default;           /* of the active strategy */
    bool fail_requests_greater_than_one; /* effective value: time-slicing default false; MPS
                                       * default true, an explicit false honoured
                                       * (k8s-device-plugin PR #1762, 2026-05) */
    const struct gs_dp_resource *resources; /* of the active strategy */
    int nresources;
};

/* A warning from decoding (an unknown key the plugin ignores). */
struct gs_dp_warning {
    const char *file;  /* arena */
    int line, col;
    const char *msg;   /* arena, e.g. "unknown key 'renameBydefault' in <path>: ignored by the device
                        * plugin (did you mean 'renameByDefault'?)" */
};

/* The device plugin's configs on a cluster: one, or named ones chosen per node. */
struct gs_dp_configs {
    const struct gs_dp_config *configs; /* arena; n >= 1 once decoded */
    int n;
    bool named;                /* named configs (the config-manager picks one per node) */
    const char *default_name;  /* named: the default (chart devicePlugin.config.default), or NULL */
    const struct gs_dp_warning *warnings; /* arena, warnings_cap entries (base/array.h) */
    int nwarnings, warnings_cap;
};

/* A config with no file: migStrategy `mig` (the operator passes its mig.strategy), failOnInitError
 * true, no sharing. */
void gs_dp_config_default(struct gs_dp_config *c, enum gs_mig_strategy mig);

/* The config for a node, as the config-manager sidecar chooses it (k8s-device-plugin
 * cmd/config-manager, fallback strategies "named,single"): with named configs, the node label
 * nvidia.com/device-plugin.config (`label`, NULL or "" when the node has none) names one; without
 * the label, the default; without a default, the only config when there is exactly one. With a
 * single (unnamed) config, that config whatever the label.
 * Returns the config (borrowed from `cs`), or NULL when the label (or the default) names a config
 * that does not exist: the sidecar then fails and the plugin does not start with it; `why`
 * (may be NULL) gets "device-plugin config 'x' (node label nvidia.com/device-plugin.config) is
 * not one of: a, b". */
const struct gs_dp_config *gs_dp_config_for_node(const struct gs_dp_configs *cs, const char *label, char *why,
                                                 size_t whylen);

/* How `cfg` (may be NULL) replicates resource `name` ("nvidia.com/gpu"): writes the replicas
 * (1 when not replicated) and, when `renamed_to` is not NULL, the resulting name (the rename, or
 * `name`). Returns the matching resource entry or NULL. */
const struct gs_dp_resource *gs_dp_share(const struct gs_dp_config *cfg, const char *name, int *replicas,
                                         const char **renamed_to);

/* One allocatable entry. */
struct gs_dp_alloc {
    char name[64];   /* resource name */
    int64_t count;   /* devices advertised (replicas included) */
};

/* What the plugin advertises on a node whose GPUs have MIG layouts l[0..ngpus) (NULL: no MIG data,
 * every GPU whole) under `cfg` (NULL: gs_dp_config_default with MIG none): the MIG strategy's
 * resources (gs_mig_resources) with the sharing config applied per resource
 * (internal/rm/device_map.go updateDeviceMapWithReplicas): a resource named in sharing.*.resources
 * has the selected devices (all, the first `count` by index, or the listed GPU indices) advertised
 * `replicas` times each, under `rename` when set; its other devices stay under the original name;
 * a resource the sharing config does not name is unchanged, and a sharing entry naming a resource
 * the node does not have is ignored. Entries are written in order of first appearance, at most
 * `max`. Returns 0; GS_EINVAL when the plugin would not start (single strategy invalid, MPS with
 * mixed, a device count above the devices there are), with *nout = 0 and `why` set; GS_ERANGE when
 * `max` is too small. 4 GPUs x 4 replicas: nvidia.com/gpu 16; with renameByDefault:
 * nvidia.com/gpu.shared 16 and no nvidia.com/gpu. */
int gs_dp_allocatable(const struct gs_dp_config *cfg, const struct gs_mig_layout *l, int ngpus,
                      struct gs_dp_alloc *out, int max, int *nout, char *why, size_t whylen);

/* The GFD labels of a node under `cfg` (may be NULL), for gs_gfd_labels: fills in->sharing,
 * in->replicas (the per-GPU replicas of nvidia.com/gpu, 1 without sharing, as internal/lm/resource.go
 * writes it), in->renamed and in->mig_strategy. The -SHARED product suffix then follows from
 * gs_gfd_labels (replicas > 1 and not renamed). MIG labels: gs_mig_gfd_labels with `cfg`. */
void gs_dp_gfd_input(const struct gs_dp_config *cfg, struct gs_gfd_input *in);

/* The Allocate check (internal/rm/rm.go ValidateRequest) for a container that the scheduler
 * placed with `request` devices of `resource` (e.g. 2 of "nvidia.com/gpu"). Refused when the
 * resource's devices are replicas (`resource` is a replicated or renamed resource of `cfg`),
 * request > 1, and: time-slicing with failRequestsGreaterThanOne, or MPS unless
 * failRequestsGreaterThanOne was explicitly false. Returns 0 (allowed) or GS_EINVAL with the pod's
 * status.message in `msg` (`msglen` bytes), reason UnexpectedAdmissionError, exactly as the kubelet
 * writes it:
 *   Pod was rejected: Allocate failed due to rpc error: code = Unknown desc = invalid allocation
 *   request for "nvidia.com/gpu": invalid request: maximum request size for shared resources is 1;
 *   found 2, which is unexpected
 * (one line). With `legacy` (device plugin before v0.15.0) the plugin's part is the older
 * "request for 'nvidia.com/gpu: 2' too large: maximum request size for shared resources is 1"
 * (README "Shared Access to GPUs"). The pod fails (phase Failed) and is not retried. */
int gs_dp_allocate_check(const struct gs_dp_config *cfg, const char *resource, int64_t request, bool legacy,
                         char *msg, size_t msglen);

/* The kubelet's reason for that failure: "UnexpectedAdmissionError". */
#define GS_DP_ADMISSION_REASON "UnexpectedAdmissionError"

/* MPS per-replica limits (cmd/mps-control-daemon, reference §3.2): each replica of a GPU with
 * `memory_mib` MiB gets memory_mib / replicas MiB (pinned device memory limit) and
 * 100 / replicas percent of the threads (active thread percentage, integer division).
 * replicas < 1 counts as 1. */
void gs_dp_mps_limits(int64_t memory_mib, int replicas, int64_t *mem_per_replica_mib, int *thread_pct);

#endif
