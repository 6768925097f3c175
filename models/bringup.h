/* gpusim: a GPU node's bring-up under the NVIDIA GPU Operator: the operand chain gated like the
 * validation files (/run/nvidia/validations), the three driver modes, kernel changes, GPU health,
 * and the planners for kernel-patch waves and driver upgrades.
 *
 * Plain data plus functions: the model never touches the engine, the world or the trace. Each
 * function takes the node's bring-up state (struct gs_node_bringup) and an input (joined, a timer
 * fired, rebooted into a kernel, an image published, an Xid, a device-plugin restart) and appends
 * ACTIONS that the run loop applies: labels to set or remove, allocatable/capacity to change,
 * operand pod statuses to record, timers to start. Internally every input ends in one
 * level-triggered pass (`advance`) that starts whatever the current facts allow, as the real
 * operands' init containers poll their validation files.
 *
 * Follows ../shared/reference/gpu-operator.md §1 (labels, chain), §2.1–2.2 (driver modes, kernel
 * changes), §2.4 (upgrade controller), §3.2–3.4 (allocatable, health), §4 (GFD labels); kubelet's
 * container restart and image pull back-off (kubernetes pkg/kubelet/kubelet.go backOffPeriod 10 s,
 * MaxContainerBackOff 300 s).
 *
 * Time is int64 microseconds (gs_time). Strings in actions are static or in the arena given in
 * struct gs_bringup_ctx; the caller copies what it keeps (gs_labels_set copies).
 */
#ifndef GPUSIM_BRINGUP_H
#define GPUSIM_BRINGUP_H

#include <stdbool.h>
#include <stdint.h>

#include "models/catalog.h"
#include "base/time.h"
#include "base/rng.h"
#include "models/world.h"

struct gs_dp_config;  /* dpconfig.h */
struct gs_mig_layout; /* mig.h */

/* ---------------------------------------------------------------- operands */

/* Operand DaemonSets, by their real names (OP assets/state-* DaemonSets). */
enum gs_operand {
    GS_OPD_NFD_WORKER = 0,       /* gpu-operator-node-feature-discovery-worker */
    GS_OPD_DRIVER,               /* nvidia-driver-daemonset (per-kernel suffix dropped) */
    GS_OPD_TOOLKIT,              /* nvidia-container-toolkit-daemonset */
    GS_OPD_DEVICE_PLUGIN,        /* nvidia-device-plugin-daemonset */
    GS_OPD_GFD,                  /* gpu-feature-discovery */
    GS_OPD_MIG_MANAGER,          /* nvidia-mig-manager */
    GS_OPD_DCGM_EXPORTER,        /* nvidia-dcgm-exporter */
    GS_OPD_VALIDATOR,            /* nvidia-operator-validator */
    GS_OPD_COUNT
};
_Static_assert(GS_OPD_COUNT == GS_NODE_OPERANDS, "world.h keeps a status per operand");
/* The DaemonSet name of an operand (static). */
const char *gs_operand_name(enum gs_operand o);
/* The operand named `name` (a DaemonSet name as above, also "nvidia-driver-daemonset-<kernel>...",
 * "...node-feature-discovery-worker" and the k8s-device-plugin chart's "nvidia-device-plugin" and
 * "nvidia-device-plugin-gpu-feature-discovery"); -1 when unknown. */
int gs_operand_find(const char *name);
/* The deploy-label suffix of an operand ("driver", "container-toolkit", ...); NULL for NFD. */
const char *gs_operand_deploy_label(enum gs_operand o);

enum gs_driver_mode { GS_DRIVER_COMPILED = 0, GS_DRIVER_PRECOMPILED, GS_DRIVER_HOST };

/* Who installs the node software (SCENARIO.md operator.managedBy). */
enum gs_managed_by {
    GS_MANAGED_GPU_OPERATOR = 0, /* ClusterPolicy: validator, operand DaemonSets */
    GS_MANAGED_HELM,             /* standalone device-plugin (+GFD, NFD) charts; host driver and toolkit */
    GS_MANAGED_HOST,             /* the node image runs the device plugin; no DaemonSets */
};

/* The device plugin's Xid health policy (DP internal/rm/health.go): Xids it ignores. */
struct gs_xid_policy {
    bool disabled;          /* DP_DISABLE_HEALTHCHECKS=all|xids: no device is ever marked */
    uint32_t ignore[8];     /* bitmap of ignored Xids < 256 */
    bool ignore_high;       /* Xids >= 256 are ignored (only when DP_DISABLE_HEALTHCHECKS=all) */
};

/* A compiled driver that fails to build on newer kernels (spec.catalog.driverBuildFailures). */
struct gs_build_failure {
    const char *kernel_at_least;  /* kernel version, compared numerically segment by segment */
    const char *driver_below;     /* driver version; NULL: every version */
    const char *message;          /* the driver container's last log line */
};

/* The operator: section of a scenario (ClusterPolicy fields that matter). Strings and arrays
 * borrowed (scenario arena). gs_operator_config_defaults gives the chart defaults. */
struct gs_operator_config {
    bool enabled;                    /* an operator: section is present */
    enum gs_managed_by managed_by;
    bool nfd_enabled;                /* nfd.enabled (false: NFD is run by someone else, same labels) */
    bool driver_enabled;             /* driver.enabled (default true); false = host driver */
    bool use_precompiled;            /* driver.usePrecompiled */
    const char *driver_version;      /* driver.version ("550.90.07", or a branch when precompiled) */
    bool toolkit_enabled;            /* toolkit.enabled; false = host toolkit */
    bool device_plugin_enabled;
    bool gfd_enabled;
    bool dcgm_exporter_enabled;
    bool mig_manager_enabled;
    const char *mig_strategy;        /* "none" | "single" | "mixed" */
    const char *mig_config_default;  /* migManager.config (default "all-disabled"); NULL: none */
    const struct gs_timing_profile *timings; /* NULL: every step takes 0 s */
    const char *const *precompiled_kernels; /* kernels with a precompiled image at t=0 */
    int nprecompiled_kernels;
    bool all_headers;                /* availableHeaders absent: every kernel has headers */
    const char *const *available_headers; /* kernels whose headers the distro repo has */
    int navailable_headers;
    const struct gs_build_failure *build_failures;
    int nbuild_failures;
    struct gs_xid_policy xid;        /* from devicePlugin.env DP_DISABLE/ENABLE_HEALTHCHECKS */
    /* DaemonSet tolerations: operands (daemonsets.tolerations; with managedBy helm the chart's
     * `tolerations`) and the NFD worker (nfd.worker.tolerations). has_* false: the chart
     * defaults: GPU Operator nvidia.com/gpu Exists NoSchedule for both; k8s-device-plugin chart
     * CriticalAddonsOnly Exists + nvidia.com/gpu Exists NoSchedule for plugin and GFD, and
     * node-role.kubernetes.io/master Equal "" + nvidia.com/gpu Equal "present" (NoSchedule)
     * for its NFD worker. */
    bool has_ds_tolerations;
    const struct gs_toleration *ds_tolerations;
    int nds_tolerations;
    bool has_nfd_tolerations;
    const struct gs_toleration *nfd_tolerations;
    int nnfd_tolerations;
};

/* Chart defaults (OP deployments/gpu-operator/values.yaml): everything enabled but the
 * precompiled driver, managedBy gpu-operator, all headers available, host driver follows every
 * default Xid policy, mig strategy "single", mig config "all-disabled", no profile.
 * Sets enabled = true. */
void gs_operator_config_defaults(struct gs_operator_config *c);

/* ---------------------------------------------------------------- DaemonSets */

/* The DaemonSet name of operand `o` as `by` installs it (static): the GPU Operator's operand
 * names (gs_operand_name); for helm the k8s-device-plugin chart (DP
 * deployments/helm/nvidia-device-plugin) released as "nvidia-device-plugin": the plugin
 * "nvidia-device-plugin", GFD "nvidia-device-plugin-gpu-feature-discovery" and the bundled NFD
 * subchart's worker "nvidia-device-plugin-node-feature-discovery-worker". NULL when that install
 * has no DaemonSet for `o` (helm: driver, toolkit, ...; host: none). */
const char *gs_operand_ds_name(enum gs_managed_by by, enum gs_operand o);
/* The operand whose DaemonSet `by` names `name` (exact name); -1 when none. */
int gs_operand_ds_find(enum gs_managed_by by, const char *name);
/* Does configuration `c` create operand `o`'s DaemonSet at all (its enabled switch; helm: NFD
 * when nfd_enabled, which the loader sets as the chart's dependency condition
 * `nfd.enabled,gfd.enabled` decides)? */
bool gs_operand_ds_exists(const struct gs_operator_config *c, enum gs_operand o);
/* Would operand `o`'s DaemonSet run a pod on a node with these labels and taints, as the
 * DaemonSet controller decides (pkg/controller/daemon NodeShouldRunDaemonPod): the DaemonSet
 * exists, its tolerations (as the model's chain uses them: daemonsets.tolerations /
 * nfd.worker.tolerations or each chart's defaults) tolerate every NoSchedule and NoExecute
 * taint (the node.kubernetes.io/ condition taints and unschedulable are tolerated by every
 * DaemonSet pod), and its nodeSelector / node affinity match: the GPU Operator's operands
 * nvidia.com/gpu.deploy.<operand>=true (a precompiled driver also a kernel-version.full label:
 * its per-kernel DaemonSets together); helm's plugin and GFD the chart's default affinity
 * (pci-10de.present=true, cpu-model.vendor_id=NVIDIA or nvidia.com/gpu.present=true); NFD
 * workers every node. `labels` may be NULL (no labels). */
bool gs_operand_ds_schedules(const struct gs_operator_config *c, enum gs_operand o, const struct gs_labels *labels,
                             const struct gs_taint *taints, int ntaints);

/* Parse DP_DISABLE_HEALTHCHECKS and DP_ENABLE_HEALTHCHECKS (either NULL when unset) into `p`,
 * as DP internal/rm/health.go does: the default ignore set 13, 31, 43, 45, 68, 109; "all" or
 * "xids" in the disable list disables Xid checks entirely; other comma-separated numbers are
 * added to the ignore set; numbers in the enable list are checked whatever the disable list
 * says ("all" there re-enables everything). Returns 0, or GS_EINVAL for an entry that is
 * neither a number nor all/xids (the plugin logs and skips it; the caller may warn). */
int gs_xid_policy_parse(struct gs_xid_policy *p, const char *disable, const char *enable);
/* True when the device plugin ignores Xid `code` under `p`. */
bool gs_xid_ignored(const struct gs_xid_policy *p, int code);

/* Compare two dotted/dashed version strings numerically segment by segment
 * ("5.15.0-118-generic" > "5.15.0-99-generic"; "535.183.06" < "550"); non-numeric segments
 * compare as strings. <0, 0, >0. */
int gs_version_cmp(const char *a, const char *b);

/* ---------------------------------------------------------------- per-node state */

/* The pod STATUS column `kubectl get pods` prints for an operand. */
enum gs_opd_status {
    GS_OPD_ABSENT = 0,         /* no pod (not deployed on this node, opted out, untolerated taint) */
    GS_OPD_INIT,               /* waiting in an init container: "Init:0/1", validator "Init:k/4" */
    GS_OPD_CONTAINER_CREATING, /* "ContainerCreating" */
    GS_OPD_RUNNING,            /* "Running" (ready or not: see gs_node_bringup.ready) */
    GS_OPD_ERROR,              /* "Error": the first failed start, before the back-off */
    GS_OPD_CRASH_LOOP,         /* "CrashLoopBackOff" */
    GS_OPD_ERR_IMAGE_PULL,     /* "ErrImagePull": the first failed pull */
    GS_OPD_IMAGE_PULL_BACKOFF, /* "ImagePullBackOff" */
};

/* The timers of a node's bring-up (what a GS_BA_TIMER action asks to be told about). */
enum gs_bringup_timer {
    GS_BT_NFD_LABEL = 0,        /* NFD worker labelled the node (pci-10de, kernel) */
    GS_BT_OPERATOR_LABEL,       /* the operator set gpu.present and the deploy labels */
    GS_BT_DRIVER,               /* the driver container finished installing (.driver-ctr-ready) */
    GS_BT_DRIVER_RETRY,         /* kubelet's back-off is over: the driver container is tried again */
    GS_BT_DRIVER_VALIDATION,    /* driver-ready written */
    GS_BT_TOOLKIT,              /* toolkit installed, runtime restarted */
    GS_BT_TOOLKIT_VALIDATION,   /* toolkit-ready written */
    GS_BT_DEVICE_PLUGIN,        /* device plugin registered with kubelet */
    GS_BT_GFD,                  /* GPU feature discovery's first labelling pass */
    GS_BT_MIG_MANAGER,          /* mig-manager started (mig.config.state=success) */
    GS_BT_DCGM_EXPORTER,        /* dcgm-exporter serving */
    GS_BT_CUDA_VALIDATION,      /* cuda-ready written */
    GS_BT_PLUGIN_VALIDATION,    /* plugin-ready written: the validator is Running */
    GS_BT_REBOOT,               /* the node is back from a reboot (kubelet Ready) */
    GS_BT_UPGRADE_TIMEOUT,      /* driver upgrade validation timeout (600 s) */
    GS_BT_COUNT
};
const char *gs_bringup_timer_name(enum gs_bringup_timer t);

/* Driver upgrade controller states (label nvidia.com/gpu-driver-upgrade-state, LIB
 * pkg/upgrade/consts.go). GS_UPG_NONE is the label absent. */
enum gs_upgrade_state {
    GS_UPG_NONE = 0,
    GS_UPG_REQUIRED,            /* upgrade-required */
    GS_UPG_CORDON,              /* cordon-required */
    GS_UPG_WAIT_FOR_JOBS,       /* wait-for-jobs-required */
    GS_UPG_POD_DELETION,        /* pod-deletion-required */
    GS_UPG_DRAIN,               /* drain-required */
    GS_UPG_POD_RESTART,         /* pod-restart-required */
    GS_UPG_VALIDATION,          /* validation-required */
    GS_UPG_UNCORDON,            /* uncordon-required */
    GS_UPG_DONE,                /* upgrade-done */
    GS_UPG_FAILED,              /* upgrade-failed */
    GS_UPG_COUNT
};
/* The label value of a state ("upgrade-required", ...; NULL for GS_UPG_NONE). */
const char *gs_upgrade_state_name(enum gs_upgrade_state s);

#define GS_UPGRADE_LABEL "nvidia.com/gpu-driver-upgrade-state"
/* LIB validation_manager.go: validation-required times out after 600 s. */
#define GS_UPGRADE_VALIDATION_TIMEOUT GS_SEC(600)

/* kubelet's back-off for container restarts and image pulls: 10 s doubling to 300 s. */
#define GS_KUBELET_BACKOFF_INITIAL GS_SEC(10)
#define GS_KUBELET_BACKOFF_MAX GS_SEC(300)

/* What the model knows of the node itself, fixed for its life (gs_bringup_init). */
struct gs_bringup_node {
    int gpu_count;                  /* physical GPUs (<= 64) */
    const char *product;            /* GFD product string; NULL for none */
    const struct gs_gpu_product *catalog; /* catalog facts, NULL when unknown */
    const char *kernel;             /* kernel at join (borrowed) */
    const char *host_driver_version; /* the node image's driver (pool hostDriver.version), NULL unknown */
    /* The host driver (pool hostDriver.kernels): the kernels it was built for; none given: only
     * the kernel the node joined with. Used when the driver is not the operator's. Borrowed. */
    const char *const *host_driver_kernels;
    int nhost_driver_kernels;
    bool host_driver_any_kernel;    /* the node image keeps its driver working on every kernel */
};

struct gs_node_bringup {
    struct gs_bringup_node node;
    enum gs_driver_mode driver_mode;   /* from the config and the node's deploy.driver label */
    const char *kernel;                /* running kernel (borrowed) */
    const char *next_kernel;           /* while rebooting: the kernel it comes back with */
    const char *kernel_label;          /* what NFD last wrote as kernel-version.full */
    const char *driver_version;        /* the version the driver DS runs */
    bool joined;
    bool nfd_labelled;                 /* pci-10de written (a GPU node's labels persist) */
    bool nfd_pass_done;                /* NFD labelled the node since it (re)booted */
    bool operator_labelled;            /* gpu.present + deploy labels written */
    bool deployed[GS_OPD_COUNT];       /* deploy label true (and not opted out, taint tolerated) */
    enum gs_opd_status status[GS_OPD_COUNT];
    bool ready[GS_OPD_COUNT];          /* the pod's READY column is n/n */
    const char *shown[GS_OPD_COUNT];   /* the status text last emitted (static strings) */
    bool shown_ready[GS_OPD_COUNT];    /* the readiness last emitted */
    int restarts[GS_OPD_COUNT];        /* container restarts (RESTARTS column) */
    int validator_init;                /* 0..4 init containers passed */
    bool driver_ctr_ready, driver_ready, toolkit_installed, toolkit_ready, cuda_ready, plugin_ready;
    bool plugin_registered;            /* the device plugin is registered with kubelet */
    bool gfd_labelled;
    int64_t capacity, allocatable;     /* nvidia.com/gpu as last advertised */
    uint64_t unhealthy;                /* bitmap of GPUs the device plugin marked Unhealthy */
    uint32_t generation;               /* bumped on reboot: timers of an older generation are stale */
    uint32_t token[GS_BT_COUNT];       /* per timer: only the latest started one is live */
    uint32_t pending;                  /* bitmask of timers in flight (1u << enum gs_bringup_timer) */
    gs_time retry_at;                  /* absolute time of the pending driver retry */
    int backoff_n;                     /* failed driver attempts in a row */
    bool rebooting;
    bool schedulable_once;             /* GS_BA_SCHEDULABLE was emitted */
    enum gs_upgrade_state upgrade;
    const char *upgrade_version;       /* the version being rolled out */
};

/* An action the run loop applies to the node. */
enum gs_bringup_action_kind {
    GS_BA_LABEL_SET,        /* key, value */
    GS_BA_LABEL_DEL,        /* key */
    GS_BA_ALLOCATABLE,      /* key = resource, amount (nvidia.com/gpu: healthy devices) */
    GS_BA_CAPACITY,         /* key = resource, amount */
    GS_BA_OPERAND,          /* operand, value = status text ("Init:0/4", "Running", ...),
                             * amount = 1 when the pod is ready */
    GS_BA_TIMER,            /* timer fires after `delay` (generation, token identify it) */
    GS_BA_SCHEDULABLE,      /* first time GPUs are allocatable */
    GS_BA_KERNEL,           /* value = the kernel the node now runs */
    GS_BA_UPGRADE_STATE,    /* value = state name (also a LABEL action is emitted) */
};

struct gs_bringup_action {
    enum gs_bringup_action_kind kind;
    const char *key;        /* label key or resource name (static or arena) */
    const char *value;      /* label value or status text (static or arena) */
    int64_t amount;         /* ALLOCATABLE, CAPACITY, OPERAND (ready) */
    enum gs_operand operand;
    enum gs_bringup_timer timer; /* TIMER */
    gs_time delay;          /* TIMER, microseconds >= 0 */
    uint32_t generation;    /* TIMER: the node's generation when started */
    uint32_t token;         /* TIMER: the timer's token when started */
    bool background;        /* TIMER: a retry nothing waits for (does not keep a run alive) */
};

#define GS_BRINGUP_MAX_ACTIONS 128
struct gs_bringup_actions {
    struct gs_bringup_action a[GS_BRINGUP_MAX_ACTIONS];
    int n;
    bool overflow;          /* more actions were asked for than fit (a programming error) */
};

/* Everything a model function reads besides the node's state. All borrowed. */
struct gs_bringup_ctx {
    const struct gs_operator_config *cfg;
    struct gs_rng *rng;                 /* durations: stream GS_STREAM_BRINGUP; NULL: medians */
    struct gs_arena *arena;             /* formatted label values */
    gs_time now;                        /* current time, microseconds */
    const struct gs_labels *labels;     /* the node's current labels (opt-outs) */
    const struct gs_taint *taints;      /* the node's current taints (DaemonSet placement) */
    int ntaints;
    const char *const *published;       /* kernels whose precompiled image was published later */
    int npublished;
    bool has_reboot_duration;           /* gs_bringup_reboot: use reboot_duration, not the profile */
    gs_time reboot_duration;
    /* The node's devices as the device plugin and GFD see them (sim/controllers/device_plugin.c, node.dp_view and node.mig_view); all optional.
     * dp: the plugin's config for this node (NULL: no sharing, MIG strategy cfg->mig_strategy);
     * mig: node.gpu_count MIG layouts (NULL: no MIG data, every GPU whole). GFD's labels follow
     * them (gs_dp_gfd_input, gs_mig_gfd_labels); allocatable stays the model's healthy count of
     * nvidia.com/gpu, which the run loop turns into per-resource amounts. */
    const struct gs_dp_config *dp;
    const struct gs_mig_layout *mig;
    /* The run loop drives mig-manager's work (nvidia.com/mig.config.state): when true the model
     * does not write the state label when mig-manager starts. */
    bool mig_external;
};

/* The encoding of a timer in an event's 64-bit argument, and back. */
int64_t gs_bringup_timer_encode(enum gs_bringup_timer t, uint32_t generation, uint32_t token);
void gs_bringup_timer_decode(int64_t v, enum gs_bringup_timer *t, uint32_t *generation, uint32_t *token);

/* Draw a duration (microseconds, >= 0) from `d` with stream GS_STREAM_BRINGUP; rng NULL gives
 * the fixed value / (min+max)/2 / mean / median. */
gs_time gs_dur_draw(const struct gs_dur *d, struct gs_rng *rng);

/* kubelet's back-off before attempt n+1 after n >= 1 failures: 10 s × 2^(n−1), at most 300 s. */
gs_time gs_kubelet_backoff(int failures);

/* The node's STATUS text for operand `o` ("Init:2/4", "Running", ...; NULL when ABSENT). Static. */
const char *gs_bringup_status_text(const struct gs_node_bringup *b, enum gs_operand o);

/* Set up `b` for a node (not yet joined). */
void gs_bringup_init(struct gs_node_bringup *b, const struct gs_bringup_node *node);

/* The node registered (kubelet Ready): NFD starts. Appends actions to `out`. */
void gs_bringup_join(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                     struct gs_bringup_actions *out);

/* The node registered with its GPUs already advertised (no operator: section, the node image
 * runs the device plugin): the state says so, without actions. Later reboots and plugin
 * restarts re-register after the devicePlugin step. */
void gs_bringup_join_advertised(struct gs_node_bringup *b);

/* A timer fired. Returns false (and does nothing) when it is stale: an older generation, or a
 * later timer of the same kind was started since. The caller applies the actions; when they
 * change labels it must call gs_bringup_labels_changed with the updated labels (the operator's
 * deploy labels start the operands that way, as a node update does). */
bool gs_bringup_timer(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, enum gs_bringup_timer t,
                      uint32_t generation, uint32_t token, struct gs_bringup_actions *out);

/* The node goes down to reboot into `kernel` (borrowed): every operand stops, the validation
 * files (tmpfs) are lost, nvidia.com/gpu drops to 0 (kubelet zeroes extended resources when it
 * restarts), older timers become stale; GS_BT_REBOOT fires when kubelet is back. */
void gs_bringup_reboot(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, const char *kernel,
                       struct gs_bringup_actions *out);

/* A precompiled image for `kernel` was published: a driver in ImagePullBackOff on that kernel
 * succeeds at its next pull retry (the pending retry is re-issued as a foreground timer at the
 * same time, so a run without a horizon waits for it). ctx->published must already hold it. */
void gs_bringup_image_published(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                                const char *kernel, struct gs_bringup_actions *out);

/* Xid `code` on GPU `gpu`: unless ignored (policy) or the plugin is not running, that GPU is
 * marked Unhealthy and allocatable drops by one (capacity unchanged; pods keep running).
 * Returns true when the device was newly marked. */
bool gs_bringup_xid(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, int gpu, int code,
                    struct gs_bringup_actions *out);

/* The device-plugin pod restarts (kubectl delete pod): kubelet's endpoint goes (allocatable 0,
 * capacity kept), the plugin re-enumerates (marks cleared) and registers again after its step. */
void gs_bringup_plugin_restart(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                               struct gs_bringup_actions *out);

/* GFD's config-manager switched its config (label nvidia.com/device-plugin.config): a GFD pod
 * that has labelled the node restarts and labels again after its step (gfd), with the device
 * view of ctx at that time. No-op when GFD is not deployed or has not labelled yet. */
void gs_bringup_gfd_restart(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                            struct gs_bringup_actions *out);

/* The node's labels changed from outside (label event): re-read the opt-outs, stop operands
 * whose deploy label is no longer true and start those that now are. */
void gs_bringup_labels_changed(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                               struct gs_bringup_actions *out);

/* The driver DaemonSet now runs `version` (driver upgrade, pod-restart-required): the driver pod
 * restarts (driver-manager unloads the modules, so every operand after it restarts too and
 * allocatable drops to 0 until the plugin registers again). */
void gs_bringup_driver_restart(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                               const char *version, struct gs_bringup_actions *out);

/* Start a GS_BT_UPGRADE_TIMEOUT timer of `delay` (the upgrade planner's validation timeout). */
void gs_bringup_start_upgrade_timer(struct gs_node_bringup *b, gs_time delay, struct gs_bringup_actions *out);

/* Record the upgrade state of the node (label action + state action). */
void gs_bringup_set_upgrade_state(struct gs_node_bringup *b, enum gs_upgrade_state s,
                                  struct gs_bringup_actions *out);

/* True when the whole chain is up: plugin registered and validator Running (or not deployed). */
bool gs_bringup_validated(const struct gs_node_bringup *b);

/* Healthy GPUs (gpu_count minus the unhealthy marks). */
int gs_bringup_healthy(const struct gs_node_bringup *b);

/* ---------------------------------------------------------------- kernel-patch waves */

/* A kernelPatch rollout over a pool: nodes reboot in waves of at most max_unavailable; a wave
 * starts when every node of the previous wave is back and Ready (kubelet Ready, not GPUs
 * ready: what `kubectl wait --for=condition=Ready` and kured-style rollouts wait for). */
struct gs_kpatch {
    const char *kernel;       /* borrowed */
    int max_unavailable;      /* wave size (>= 1) */
    int *nodes;               /* node indexes in order (caller-owned storage, n entries) */
    int n;
    int next;                 /* first node not yet started */
    int in_flight;            /* nodes of the current wave not yet back */
};

/* Resolve an int-or-percent maxUnavailable against `total` as upstream does
 * (intstr.GetScaledValueFromIntOrPercent with roundUp=true: "25%" of 10 = 3, "1%" of 10 = 1).
 * `percent` true: value is a percentage. Negative values give 0. */
int gs_max_unavailable(int value, bool percent, int total);

/* Set up a rollout of `n` nodes (the array is borrowed and must outlive k) in waves of
 * max(1, max_unavailable): a rollout always progresses. */
void gs_kpatch_init(struct gs_kpatch *k, const char *kernel, int max_unavailable, int *nodes, int n);

/* Start the next wave: writes up to max_unavailable node indexes to `out` (capacity `cap`) and
 * returns how many; 0 when the rollout is finished or a wave is still in flight. */
int gs_kpatch_next_wave(struct gs_kpatch *k, int *out, int cap);
/* A node of the current wave is back and Ready. Returns true when the wave is complete. */
bool gs_kpatch_node_back(struct gs_kpatch *k);
/* True when every node was rebooted and is back. */
bool gs_kpatch_done(const struct gs_kpatch *k);

/* ---------------------------------------------------------------- driver upgrades */

/* One driver upgrade rollout (driver.upgradePolicy; LIB pkg/upgrade). */
struct gs_upgrade_policy {
    int max_parallel;         /* maxParallelUpgrades; 0 = unlimited */
    int max_unavailable;      /* resolved against the managed nodes (gs_max_unavailable) */
    bool drain;               /* drain.enable */
};

/* Input to one step of a node's upgrade state machine. */
struct gs_upgrade_node {
    enum gs_upgrade_state state;
    bool driver_ready;        /* the driver pod is Ready on the new version */
    bool validated;           /* the validator is Running again */
    bool timed_out;           /* validation-required exceeded GS_UPGRADE_VALIDATION_TIMEOUT */
    bool unschedulable_before; /* the node was cordoned before the upgrade started */
    bool delete_failed;       /* GPU pod deletion failed */
    bool driver_failing;      /* the driver container is not ready and restarted more than 10 times */
};

/* The state after `n`'s current state under `p`, as the upgrade controller's
 * ProcessXxxNodes functions move it (no slot accounting: see gs_upgrade_slots). States that
 * wait (pod-restart before the driver is ready, validation before the validator runs) return
 * their own state. */
enum gs_upgrade_state gs_upgrade_next(const struct gs_upgrade_policy *p, const struct gs_upgrade_node *n);

/* How many of the `required` nodes in upgrade-required may move to cordon-required now
 * (LIB common_manager.go GetUpgradesAvailable): maxParallelUpgrades (0 = all of them) minus
 * the nodes `in_progress` (any state but unknown, done and upgrade-required; failed counts),
 * capped by maxUnavailable against `unavailable` (cordoned or not Ready nodes, plus those in
 * cordon-required) when maxUnavailable < `total` managed nodes. Never negative. */
int gs_upgrade_slots(const struct gs_upgrade_policy *p, int required, int in_progress, int unavailable, int total);

#endif
