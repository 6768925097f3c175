/* gpusim: loading a scenario file (gpusim/v1alpha1, docs/scenario-format.md) into a world,
 * a scheduler configuration, timed events and expectations.
 *
 * Parsing uses libyaml into a node tree that keeps every node's file:line:column; checking
 * rejects unknown keys (suggesting the nearest valid one), wrong types, bad quantities and
 * durations, and keys whose behaviour a later gpusim release models ("not supported yet").
 */
#ifndef GPUSIM_SCENARIO_H
#define GPUSIM_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/bringup.h"
#include "models/catalog.h"
#include "models/dpconfig.h"
#include "base/error.h"
#include "models/admission/kueue.h"
#include "models/sched/sched.h"
#include "models/world.h"
#include "sim/objective.h"

struct gs_autoscaler_spec;

/* ---------------------------------------------------------------- timed events */

/* The scenario event kinds, written once: X(NAME, action) gives the enum constant GS_SEV_NAME and
 * the spec.events action key that selects it (SCENARIO.md "events"), in this order. The enum,
 * the loader's action table (sim/scenario/events.c) and gs_sevent_kind_name expand this list;
 * a new kind is added here and nowhere else (then decoded in events.c and run by the run loop).
 * (libuv's UV_HANDLE_TYPE_MAP is the model.) */
#define GS_SEVENT_KINDS(X)                                                                                                  \
    X(CORDON, "cordon")                                                                                                     \
    X(UNCORDON, "uncordon")                                                                                                 \
    X(DRAIN, "drain")                                                                                                       \
    X(DELETE_NODE, "deleteNode")                                                                                            \
    X(ADD_NODES, "addNodes")                                                                                                \
    X(LABEL, "label")                                                                                                       \
    X(DELETE_POD, "deletePod")                                                                                              \
    X(KERNEL_PATCH, "kernelPatch")                              /* reboot a pool into a kernel */                           \
    X(XID, "xid")                                               /* an Xid error on one GPU */                               \
    X(DEVICE_PLUGIN_RESTART, "devicePluginRestart")             /* the node's device-plugin pod restarts */                 \
    X(PRECOMPILED_IMAGE_PUBLISHED, "precompiledImagePublished") /* an image for a kernel appears */                         \
    X(DRIVER_UPGRADE, "driverUpgrade")                          /* a new driver.version, rolled out by its controller */  \
    X(SCALE, "scale")                                           /* kubectl scale on a LeaderWorkerSet (its groups) */       \
    X(SCHEDULER_RESTART, "schedulerRestart")                    /* kube-scheduler restarts, losing its memory */

enum gs_sevent_kind {
#define GS_SEV_ENUM(name, action) GS_SEV_##name,
    GS_SEVENT_KINDS(GS_SEV_ENUM)
#undef GS_SEV_ENUM
};

/* How many kinds GS_SEVENT_KINDS lists (not an enum constant, so that a switch over
 * enum gs_sevent_kind stays complete without a case for it). */
#define GS_SEV_COUNT_ONE(name, action) +1
#define GS_SEV_NKINDS (0 GS_SEVENT_KINDS(GS_SEV_COUNT_ONE))

/* The spec.events action key of kind `k` ("cordon", "kernelPatch", ...; static storage), or
 * NULL for a value that is not a kind. */
const char *gs_sevent_kind_name(enum gs_sevent_kind k);

struct gs_sevent {
    gs_time at;
    enum gs_sevent_kind kind;
    const char *node;   /* cordon, uncordon, drain, deleteNode, label */
    const char *pod;    /* deletePod */
    int workload;       /* scale: the LeaderWorkerSet's workload index */
    int replicas;       /* scale: the new spec.replicas */
    gs_time downtime;   /* schedulerRestart: no scheduling for this long (default 0) */
    int pool;           /* addNodes */
    int count;          /* addNodes */
    struct gs_labels set; /* label: set (a value NULL removes the key) */
    int line, col;      /* position in the scenario */
    /* kernelPatch {pool, kernel, maxUnavailable, rebootDuration}: `pool` above */
    const char *kernel;         /* kernelPatch, precompiledImagePublished */
    int max_unavailable;        /* kernelPatch (default 1), driverUpgrade (default 25%): a count, or a
                                 * percentage when max_unavailable_percent (resolve with
                                 * gs_max_unavailable: rounds up, at least 1) */
    bool max_unavailable_percent;
    bool has_reboot_duration;   /* kernelPatch.rebootDuration given: overrides the profile's reboot step */
    gs_time reboot_duration;
    /* xid {node, gpu, code}: `node` above */
    int gpu;                    /* GPU index on the node, 0 .. gpu.count-1 */
    int code;                   /* Xid, 1..1023 */
    /* driverUpgrade {version, maxParallelUpgrades, maxUnavailable, drain} (driver.upgradePolicy) */
    const char *version;        /* the new driver.version */
    int max_parallel;           /* maxParallelUpgrades (default 1; 0 = unlimited) */
    bool drain;                 /* drain.enable (default false) */
    bool drain_force;           /* drain.force (default false) */
    gs_time drain_timeout;      /* drain.timeoutSeconds (default 300 s; 0 = forever) */
    bool drain_delete_empty_dir; /* drain.deleteEmptyDir (default false) */
};

/* ---------------------------------------------------------------- expectations */

enum gs_expect_kind { GS_EX_POD, GS_EX_PODS, GS_EX_NODE, GS_EX_OBJECT, GS_EX_METRIC, GS_EX_POD_GROUP, GS_EX_STAT };

/* A resource/label expectation: value NULL means "absent". For resources, "0" also matches
 * absent. */
struct gs_expect_kv {
    const char *key;
    const char *value;
};

/* One expected status condition, `{type, status, reason, message | messageContains}` (the
 * metav1.Condition / PodCondition fields). NULL fields are not compared; `type` is required. */
struct gs_expect_condition {
    const char *type;
    const char *status;           /* "True" | "False" | "Unknown" */
    const char *reason;
    const char *message;
    const char *message_contains;
};

struct gs_expect {
    enum gs_expect_kind kind;
    int line, col;          /* where in the scenario, for the PASS/FAIL line */
    bool has_at;
    gs_time at;             /* default: end of run */
    bool has_window;
    gs_time from, to;       /* metric window */
    const char *name;       /* pod / node / object / podGroup name; metric name (camelCase) */
    /* pod */
    bool has_phase;
    enum gs_phase phase;
    const char *node;       /* pod: node; pods: node filter */
    const char *message;
    const char *message_contains;
    const char *reason;
    bool has_scheduled_within;
    gs_time scheduled_within;
    struct gs_expect_condition *conditions; /* pod and object: each must be present and match */
    const char *nominated_node; /* pod: status.nominatedNodeName ("" for none) */
    int nconditions;
    bool has_exists;
    bool exists;
    /* pods filters and bounds */
    const char *workload;
    const char *name_prefix;
    struct gs_labels label_selector;
    bool has_count, has_min, has_max;
    int64_t count, min, max;
    /* node */
    bool has_schedulable;
    bool schedulable;
    struct gs_expect_kv *allocatable;
    int nallocatable;
    struct gs_expect_kv *capacity;
    int ncapacity;
    struct gs_expect_kv *labels;
    int nlabels;
    struct gs_expect_kv *operands; /* operand: DaemonSet name (as written, per-kernel suffix dropped
                                    * by the checker) -> pod STATUS ("Running", "Init:0/4",
                                    * "ImagePullBackOff", ...); value NULL: no pod */
    int noperands;
    /* object */
    const char *obj_kind;
    const char *obj_api_version;
    const char *obj_namespace;
    bool has_rejected;
    bool rejected;
    /* object: `status:` fields, decoded at load. Only a DaemonSet's desiredNumberScheduled and
     * numberReady are compared; any other status key, and `status:` on other kinds, is "not
     * supported yet" */
    bool has_desired_scheduled;
    int64_t desired_scheduled;  /* status.desiredNumberScheduled */
    bool has_number_ready;
    int64_t number_ready;       /* status.numberReady */
    const void *obj_spec;   /* object: `spec:`, the same way (also refused for now) */
    const struct gs_dra_expect_status *dra_status; /* object ResourceClaim: `status:` (dra_state.h) */
    /* stat: the study metric (sim/objective.h; arena), evaluated at the end of the run; its
     * bounds are equals/mmin/mmax below, in seconds for a time, else in the metric's unit */
    const struct gs_objective *objective;
    /* metric */
    bool has_equals;
    double equals;
    bool has_mmin, has_mmax;
    double mmin, mmax;
    /* the line gpusim run prints, set by the loader (gs_expect_describe) */
    const char *what;       /* e.g. "pod trainer-b-0 at 10m0s: phase Pending" (arena) */
    /* result, filled by the checker */
    bool checked;
    bool pass;
    const char *detail;     /* what was seen (arena) */
    /* metric windows, while the run goes on (sim/check.c gs_check_sample): the first sample in
     * [from, to] that broke the bounds, if any */
    bool window_broken;
    double window_value;
    gs_time window_t;
};

/* Longest description gs_expect_describe writes in full (bytes, NUL included). */
#define GS_EXPECT_WHAT_MAX 4096

/* The one-line description of check `e` that `gpusim run` prints with PASS or FAIL (the loader
 * sets e->what to it, so a run interrupted before the check still names it; sim/check.c uses
 * it too): the kind and name, the time, a colon, then what is checked, e.g.
 *   pod job-2 at 11m20s: phase Running
 *   pods: {phase: Succeeded, workload: train} count 4
 *   node h100-0 at 2m0s: allocatable[nvidia.com/gpu]=8
 *   object Job/multi-gpu-test at 1m0s: rejected true message
 *   metric gpusAllocated from 10m0s to 1h0m0s: max 16
 * Writes at most `n` bytes including the NUL (`buf` may be NULL when n is 0); returns the length
 * it wanted, like snprintf. */
int gs_expect_describe(const struct gs_expect *e, char *buf, size_t n);

/* ---------------------------------------------------------------- the scenario */

struct gs_scenario {
    const char *path;       /* as given */
    const char *name;       /* metadata.name */
    const char *description;
    uint64_t seed;          /* default 1 */
    bool has_horizon;
    gs_time horizon;        /* GS_TIME_MAX when unset */
    int k8s_minor;          /* default 34 */
    gs_time sample_interval; /* default 60 s */
    gs_time start_latency;  /* bind -> Running, default 0 */
    const char *admission;  /* "podByPod" */
    struct gs_world world;
    struct gs_sched_config sched;
    struct gs_sevent *events;
    int nevents;
    struct gs_expect *expects;
    int nexpects;
    /* spec.operator: op.enabled is false without the section (the other fields then hold
     * gs_operator_config_defaults, e.g. the device plugin's default Xid policy). Arrays and
     * strings in the world's arena; op.timings points into `catalog`. */
    struct gs_operator_config op;
    /* models/catalog (gs_catalog_default_dir) plus spec.catalog, loaded when a pool has GPUs or
     * spec.operator or spec.catalog is present (otherwise empty). Arena storage. */
    struct gs_catalog catalog;
    const char *gpu_operator_version; /* spec.versions.gpu-operator: "v25.3.0" (default, the newest
                                       * modelled), "v23.9.2" or "v1.5.2" */
    const char *device_plugin_version; /* spec.versions.k8s-device-plugin: the k8s-device-plugin
                                        * chart release ("v0.19.1", the only one modelled); NULL
                                        * when not given */
    /* GPU sharing and MIG (sim/scenario/operator.c): operator.devicePlugin.config decoded as the
     * plugin decodes it (has_dp false without it: every node gets gs_dp_config_default), its
     * warnings (unknown keys the plugin ignores) in dp.warnings; the MIG catalog
     * (models/catalog/mig-profiles.yaml, loaded with the catalog) and the mig-parted configs
     * mig-manager uses (operator.migManager.configFile, else the catalog's
     * default-mig-parted-config). Arena storage. */
    bool has_dp;
    struct gs_dp_configs dp;
    struct gs_mig_catalog mig_catalog;
    struct gs_migparted_config migparted;
    /* Kueue: the kueue.x-k8s.io objects of spec.objects, scheduler.kueueConfig and
     * spec.versions.kueue (models/admission/kueue.h); NULL when none of them is given. Arena. */
    struct gs_kueue_spec *kueue;
    /* DRA: the resource.k8s.io objects of spec.objects, operator.draDriver and
     * spec.versions.dra-driver-nvidia-gpu (models/dra/dra_state.h); NULL when none is given.
     * Arena, but for the compiled CEL programs gs_scenario_free releases. */
    struct gs_dra_spec *dra;
    /* The Cluster Autoscaler (sim/autoscaler.h): node pools' `autoscaling` and spec.autoscaler;
     * NULL when no pool has `autoscaling` (the controller then does not run). Arena. */
    struct gs_autoscaler_spec *autoscaler;
};

/* Load and check `path`. `sets` are `--set path=value` overrides (count `nsets`), applied to
 * the YAML tree before checking; `seed_override` >= 0 replaces spec.seed; `horizon_override`
 * >= 0 replaces spec.horizon. On error fills `err` (file:line:col, message; err->code is
 * GS_EINVAL or GS_ENOTSUP) and returns it; GS_EIO when the file cannot be read.
 * On success the caller owns `sc` and frees it with gs_scenario_free. */
int gs_scenario_load(const char *path, const char *const *sets, int nsets, int64_t seed_override,
                     int64_t horizon_override, struct gs_scenario *sc, struct gs_error *err);

/* Same, from a string (for tests); `name` is used as the file name in messages. */
int gs_scenario_load_string(const char *name, const char *text, struct gs_scenario *sc,
                            struct gs_error *err);

void gs_scenario_free(struct gs_scenario *sc);

#endif
