/* gpusim: the DRA objects of a scenario (DeviceClasses, ResourceClaims, ResourceClaimTemplates,
 * pods' spec.resourceClaims, the NVIDIA DRA driver's settings) and their state during a run
 * (claims and their status, each node's ResourceSlice, devices in use, the GPU ledger).
 * The pure pieces (CEL, slices, the allocator, reason texts) are in dra.h; this header holds
 * what the scheduler's DynamicResources plugin reads (models/sched/plugins/dynamic_resources.c)
 * and what a run changes (sim/cluster/dra.c, sim/controllers/dra.c).
 *
 * Upstream: kubernetes pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go
 * (foreachPodResourceClaim, PreFilter, Filter, Reserve, PreBind), dynamic-resource-allocation
 * resourceclaim/resourceclaim.go (Name), pkg/controller/resourceclaim/controller.go (claims from
 * templates, deletion of a done pod's generated claims, removal of done pods from reservedFor
 * and deallocation of claims nobody reserves), kubernetes-sigs/dra-driver-nvidia-gpu (the
 * kubelet plugin's ResourceSlice, chart DeviceClasses).
 *
 * Memory: the spec lives in the scenario's arena except the compiled CEL programs
 * (gs_dra_spec_free). The state's arrays are heap memory it owns (gs_dra_state_free); slices
 * are built in an arena the caller passes (the world's).
 */
#ifndef GPUSIM_DRA_STATE_H
#define GPUSIM_DRA_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/dra/dra.h"
#include "models/world.h"

#define GS_DRA_POD_CLAIMS_MAX 32   /* pod.spec.resourceClaims entries (API validation limit) */
#define GS_DRA_NODE_DEVICES_MAX 1024 /* devices of one node's slice gpusim handles */

/* ------------------------------------------------------------------ the scenario's objects */

/* One pod.spec.resourceClaims entry. Exactly one of claim_name / template_name is set. */
struct gs_pod_claim_ref {
    const char *name;           /* the pod-level name containers refer to */
    const char *claim_name;     /* resourceClaimName, or NULL */
    const char *template_name;  /* resourceClaimTemplateName, or NULL */
    const char *file;           /* position in the scenario (for loader errors) */
    int line, col;
};

/* A pod template's spec.resourceClaims (gs_pod_template.claims). Arena. */
struct gs_pod_claims {
    const struct gs_pod_claim_ref *refs;
    int n;
};

/* A ResourceClaim object of spec.objects (exists from t=0, namespace "default" unless given). */
struct gs_dra_claim_obj {
    const char *name;
    const char *namespace_;
    struct gs_dra_claim_spec spec;
};

/* An expected ResourceClaim status (expect: object ... status:) as a subset match. */
struct gs_dra_expect_result {
    const char *request, *driver, *pool, *device; /* NULL: not compared */
};
struct gs_dra_expect_reserved {
    const char *resource, *name; /* NULL: not compared ("pods" is the only resource) */
};
struct gs_dra_expect_status {
    bool has_allocation;        /* status.allocation given */
    bool allocation_null;       /* allocation: null (the claim is not allocated) */
    bool has_results;           /* allocation.devices.results given: the list must match in order */
    const struct gs_dra_expect_result *results;
    int nresults;
    bool has_reserved;          /* reservedFor given: the list must match in order */
    const struct gs_dra_expect_reserved *reserved;
    int nreserved;
};

/* Everything DRA in a scenario (gs_scenario.dra; NULL when the scenario has none of it). */
struct gs_dra_spec {
    struct gs_device_class *classes;       /* spec.objects, then the driver chart's not overridden */
    int nclasses;
    struct gs_resource_claim_template *templates;
    int ntemplates;
    struct gs_dra_claim_obj *claims;
    int nclaims;
    /* operator.draDriver: the NVIDIA DRA driver's kubelet plugin */
    bool driver;                /* installed with gpus.enabled: publishes a ResourceSlice per GPU node */
    const char *chart_version;  /* spec.versions.dra-driver-nvidia-gpu, or NULL (the newest modelled) */
    bool publish_index;         /* the release publishes index and minor (v25.3, v25.8) */
    struct gs_labels plugin_node_selector;  /* kubeletPlugin.nodeSelector */
    const struct gs_toleration *plugin_tolerations; /* kubeletPlugin.tolerations */
    int nplugin_tolerations;
    bool plugin_default_affinity; /* kubeletPlugin.affinity absent: the chart's default, a node
                                   * labelled feature.node.kubernetes.io/pci-10de.present=true,
                                   * feature.node.kubernetes.io/cpu-model.vendor_id=NVIDIA or
                                   * nvidia.com/gpu.present=true */
    bool extended_resource;     /* DRAExtendedResource gate on: the chart's gpu.nvidia.com class
                                 * carries extendedResourceName nvidia.com/gpu */
};

/* Free the compiled CEL programs of every class, template and claim (arena memory stays).
 * NULL is fine. */
void gs_dra_spec_free(struct gs_dra_spec *s);
/* Class by name, NULL when absent. */
const struct gs_device_class *gs_dra_spec_class(const struct gs_dra_spec *s, const char *name);
/* Template by namespace and name, NULL when absent. */
const struct gs_resource_claim_template *gs_dra_spec_template(const struct gs_dra_spec *s, const char *ns,
                                                               const char *name);

/* Does the kubelet plugin's DaemonSet schedule a pod to a node with these labels and taints
 * (nodeSelector, the chart's default affinity, tolerations plus the DaemonSet controller's
 * automatic ones for not-ready, unreachable, disk-pressure, memory-pressure, pid-pressure and
 * unschedulable)? */
bool gs_dra_plugin_schedules(const struct gs_dra_spec *s, const struct gs_labels *labels,
                             const struct gs_taint *taints, int ntaints);

/* ------------------------------------------------------------------ run state */

struct gs_dra_claim_entry {
    struct gs_resource_claim c;
    bool exists;                /* false once deleted (a generated claim after its pod) */
};

struct gs_dra_node_state {
    bool published;             /* the kubelet plugin published the node's ResourceSlice */
    struct gs_resource_slice slice;
    bool *in_use;               /* per device of `slice`: held by an allocated claim (heap) */
    struct gs_gpu_ledger ledger; /* who holds each GPU (dra.h DECISION) */
    int64_t gpu_req_added;      /* nvidia.com/gpu added to the node's requested for DRA-held GPUs */
};

struct gs_dra_state {
    const struct gs_dra_spec *spec;   /* borrowed */
    struct gs_dra_claim_entry *claims; /* spec.objects claims first, then generated ones */
    int nclaims, claims_cap;
    struct gs_dra_node_state *nodes;   /* by node index */
    int nodes_cap;
    uint64_t *pod_dp;                  /* by pod: GPUs (bit i = GPU i) the device plugin gave it */
    int *pod_dp_node;                  /* by pod: the node of pod_dp, -1 none */
    int pods_cap;
};

/* Initialise `st` for `spec` (borrowed): one claim entry per spec.objects claim, no node
 * published. 0 or GS_ENOMEM. */
int gs_dra_state_init(struct gs_dra_state *st, const struct gs_dra_spec *spec);
/* Free what `st` owns (NULL is fine). */
void gs_dra_state_free(struct gs_dra_state *st);
/* Index of the existing claim `ns`/`name`, -1 when none. Linear. */
int gs_dra_state_find_claim(const struct gs_dra_state *st, const char *ns, const char *name);
/* Append a claim (copied; its spec stays borrowed). Returns its index or GS_ENOMEM. */
int gs_dra_state_add_claim(struct gs_dra_state *st, const struct gs_resource_claim *c);
/* Node `node`'s state, growing the array; NULL when out of memory. */
struct gs_dra_node_state *gs_dra_state_node(struct gs_dra_state *st, int node);
/* The allocator's view of node `node` (name `node_name`) with the spec's classes; `in_use`
 * (may be NULL) is put in the view. A node without a slice has no devices. */
struct gs_dra_node_view gs_dra_state_view(const struct gs_dra_state *st, int node, const char *node_name,
                                          const bool *in_use);

/* Give scheduler `s` (sched.h) the run's DRA state (borrowed: it must outlive the scheduler or
 * be replaced; NULL: none, the DynamicResources plugin then skips every pod). The scheduler
 * only reads it; whoever changes claims or slices between cycles must also raise the cluster
 * event GS_CE_RESOURCE_CHANGE (queue.h) so that waiting pods are retried.
 * models/sched/plugins/dynamic_resources.c. */
struct gs_sched;
void gs_sched_set_dra(struct gs_sched *s, const struct gs_dra_state *dra);

/* ------------------------------------------------------------------ a pod's claims */

/* The resourceclaim controller for a new pod `pod`: one claim `<pod>-<entry>` per
 * spec.resourceClaims entry with a template (spec shared with the template, owner the pod,
 * name in `a`). A missing template creates nothing (the pod then waits: not created yet).
 * Returns the number of claims created, or GS_ENOMEM. */
int gs_dra_state_create_pod_claims(struct gs_dra_state *st, struct gs_arena *a, const struct gs_world *w,
                                   int pod);

/* foreachPodResourceClaim + PreFilter's checks for pod `pod` of `w`: each spec.resourceClaims
 * entry's claim (a template's is `<pod>-<entry>`, owned by the pod) into claims[] (indexes
 * into st->claims; *nclaims of them). Returns 0 (all fine; a pod without claims gives
 * *nclaims 0), 1 with an UnschedulableAndUnresolvable reason in `reason` (`pod "default/p":
 * ResourceClaim not created yet`, `could not find ResourceClaim "default/c"`,
 * `resourceclaim "c" is being deleted`, the owner check, `resourceclaim in use`, `resource
 * claim default/c is in the process of being allocated`, `request r: device class c does not
 * exist`), or 2 with an Error status text (`request r: unsupported request type`). */
int gs_dra_pod_prefilter(const struct gs_dra_state *st, const struct gs_world *w, int pod, int *claims,
                         int *nclaims, char *reason, size_t n);

enum gs_dra_filter_result {
    GS_DRA_FIT = 0,             /* the node can run the pod; `out` holds the new allocations */
    GS_DRA_NOT_AVAILABLE,       /* an allocated claim is on another node */
    GS_DRA_CANNOT_ALLOCATE,     /* no allocation of the unallocated claims on this node */
    GS_DRA_ERROR,               /* a claim or class cannot be evaluated: `errbuf` has the text */
    GS_DRA_NOMEM                /* out of memory */
};

/* DynamicResources Filter for the claims of gs_dra_pod_prefilter on node `node`: allocated
 * claims must be on the node; the unallocated ones are allocated together from the node's
 * slice, skipping devices of allocated claims and GPUs the device plugin holds. On GS_DRA_FIT
 * out[i] is the allocation of the i-th unallocated claim in claims[] order (*nout of them;
 * `out` must hold nclaims entries, may be NULL when only the answer is wanted). Upstream
 * order: the allocator runs before the node check of allocated claims. */
enum gs_dra_filter_result gs_dra_pod_filter(const struct gs_dra_state *st, const struct gs_world *w,
                                            const int *claims, int nclaims, int node,
                                            struct gs_dra_allocation *out, int *nout, char *errbuf,
                                            size_t errlen);

/* Reserve + PreBind for pod `pod` bound to `node`: runs the Filter again (deterministic, so
 * the same allocation as the cycle's), writes status.allocation of the unallocated claims,
 * marks their devices in use and their GPUs held by DRA in the ledger, and adds the pod to
 * every claim's reservedFor. Returns 0; 1 when the pod has no claims; GS_EINVAL when the
 * claims no longer fit (nothing changed); GS_ERANGE when a claim's reservedFor is full; GS_ENOMEM
 * when out of memory (nothing changed). */
int gs_dra_state_bind(struct gs_dra_state *st, const struct gs_world *w, int pod, int node);

/* Pod `pod` is done or deleted: it leaves every claim's reservedFor; a claim nobody reserves
 * any more is deallocated (devices and GPUs freed); the pod's generated claims are deleted
 * (resourceclaim controller). Returns the number of claims deallocated or deleted. */
int gs_dra_state_release(struct gs_dra_state *st, const struct gs_world *w, int pod);

#endif
