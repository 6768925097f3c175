/* gpusim: Dynamic Resource Allocation (resource.k8s.io/v1, Kubernetes 1.34) as plain data and
 * pure functions: ResourceSlices that the NVIDIA DRA driver publishes, DeviceClasses, claims
 * and templates, the structured allocator, and the DynamicResources plugin's reason strings.
 * Wiring into the scheduler and the scenario loader lives elsewhere (see "Calling it" below).
 *
 * Upstream sources followed (read, not copied):
 *  - kubernetes staging/src/k8s.io/dynamic-resource-allocation/structured/internal/stable/
 *    allocator_stable.go (Allocate, validateDeviceRequest, allocateOne, isSelectable,
 *    selectorsMatch, allocateDevice): backtracking over requests, and for each device of a
 *    request over the pools' slices and their devices in order, first solution wins;
 *    AllocationResultsMaxSize = 32; ResourceClaimReservedForMaxSize = 256.
 *  - kubernetes pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go
 *    (PreEnqueue, PreFilter, Filter, PostFilter, Reserve, PreBind; statusUnschedulable gives
 *    UnschedulableAndUnresolvable) and its dynamicresources_test.go expectations.
 *  - kubernetes staging/src/k8s.io/dynamic-resource-allocation/resourceclaim/resourceclaim.go
 *    (Name, IsForPod, CanBeReserved, IsReservedForPod) and the scheduler's claim assume cache.
 *  - kubernetes-sigs/dra-driver-nvidia-gpu (was NVIDIA/k8s-dra-driver-gpu)
 *    cmd/gpu-kubelet-plugin/deviceinfo.go, mig.go: device names gpu-<minor> and
 *    gpu-<minor>-mig-<profile without dots>-<profileID>-<placementStart>, attributes and
 *    capacities; the chart's DeviceClasses gpu.nvidia.com and mig.nvidia.com.
 *  - ../shared/reference/kube-scheduler.md §8, ../shared/reference/gpu-operator.md §8.
 *
 * Memory: slices, classes, claims and templates put their strings and arrays in a gs_arena
 * ("arena": valid until the arena is freed). Compiled CEL programs are heap memory owned by
 * the class or claim spec that holds them: release them with gs_device_class_free /
 * gs_dra_claim_spec_free (the arena memory itself is not freed by those).
 *
 * ------------------------------------------------------------------------------------------
 * DECISION: a node with both the device plugin and the DRA driver does not count its GPUs
 * twice.
 *
 * Kubernetes itself does not coordinate the two: the kubelet's device manager hands out
 * nvidia.com/gpu devices and the DRA driver prepares claimed devices independently, so a
 * node running both advertises every GPU twice (allocatable nvidia.com/gpu = N and N DRA
 * devices); NVIDIA's guidance is to run one or the other per node (the GPU Operator's DRA
 * mode disables the device plugin). With the alpha DRAExtendedResource gate (1.34), a
 * DeviceClass's extendedResourceName lets an nvidia.com/gpu request be served by DRA, but
 * only on nodes that do not advertise that resource through a device plugin
 * (kube-scheduler.md §8), so that mapping never merges the two views on one node.
 *
 * gpusim's rule (one physical GPU, two views, one owner): every GPU of a node is free, held
 * by the device plugin, or held by DRA (a full-GPU device or any MIG device on it).
 *  - A GPU held by DRA counts as requested nvidia.com/gpu on the node for NodeResourcesFit
 *    (allocatable stays what the device plugin advertises, as in the node object);
 *    gs_gpu_ledger_dra_held gives the count to add.
 *  - A GPU held by the device plugin makes its DRA devices (gpu-N and gpu-N-mig-*) count as
 *    allocated for the DRA allocator; gs_gpu_ledger_block marks them in the in-use array.
 *  - The device plugin takes fully free GPUs, lowest index first (as gpusim's whole-GPU
 *    placement does); DRA takes the GPU of whichever device the allocator picked.
 * So a pod is never given a GPU that another pod holds through the other view, and the
 * cluster's GPU capacity is counted once. Nodes that run only one of the two are unaffected.
 * ------------------------------------------------------------------------------------------
 *
 * Calling it from the scheduler (DynamicResources, default profile, 1.34):
 *  - PreEnqueue/PreFilter: for each pod.spec.resourceClaims entry find the claim (template
 *    claims must exist already: gs_dra_reason_not_created; a named claim that does not exist:
 *    gs_dra_reason_not_found); then gs_dra_prefilter_claim on each. Any reason makes the pod
 *    UnschedulableAndUnresolvable with that text (from PreEnqueue the pod just waits: no
 *    FailedScheduling event). A pod with no claims: Skip.
 *  - Filter(node): claims already allocated must satisfy gs_dra_claim_available_on, else
 *    GS_DRA_REASON_NOT_AVAILABLE; all unallocated claims of the pod go to one
 *    gs_dra_allocate call with the node's slices, classes and in-use devices (allocated
 *    claims + in-flight ones + gs_gpu_ledger_block). 0 -> UnschedulableAndUnresolvable
 *    GS_DRA_REASON_CANNOT_ALLOCATE; GS_EINVAL -> an Error status that aborts the attempt with
 *    gs_dra_filter_error's text; 1 -> keep the allocations for Reserve.
 *  - PostFilter: GS_DRA_POSTFILTER_* texts (as the FailedScheduling message's tail).
 *  - Reserve: mark the chosen node's allocations in-flight (gs_dra_mark_in_use) so the next
 *    pod sees them; Unreserve undoes it. PreBind: write claim.allocation, then
 *    gs_dra_claim_reserve. When a pod goes: gs_dra_claim_unreserve; when that returns true the
 *    claim is unused and gs_dra_claim_deallocate frees its devices (the resourceclaim
 *    controller's job); a template-generated claim is deleted with its pod.
 */
#ifndef GPUSIM_DRA_H
#define GPUSIM_DRA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "models/catalog.h"
#include "models/dra/cel.h"
#include "base/error.h"
#include "models/world.h"

#define GS_DRA_DRIVER_GPU "gpu.nvidia.com"      /* the NVIDIA GPU driver name */
#define GS_DRA_CLASS_GPU "gpu.nvidia.com"       /* DeviceClass for full GPUs */
#define GS_DRA_CLASS_MIG "mig.nvidia.com"       /* DeviceClass for MIG devices */
#define GS_DRA_ALLOCATION_RESULTS_MAX 32        /* resourceapi.AllocationResultsMaxSize */
#define GS_DRA_RESERVED_FOR_MAX 256             /* resourceapi.ResourceClaimReservedForMaxSize */
#define GS_DRA_MAX_GPUS 64                      /* GPUs per node in a gs_gpu_ledger */

/* ------------------------------------------------------------------ devices and slices */

/* One device of a ResourceSlice (resource.k8s.io/v1 Device). Arena storage. */
struct gs_dra_device {
    const char *name;                       /* "gpu-0", "gpu-0-mig-1g10gb-19-0" */
    struct gs_device_attribute *attrs;      /* bare names are in the slice driver's domain */
    int nattrs;
    struct gs_device_capacity *caps;
    int ncaps;
    int gpu;            /* index of the physical GPU it occupies on the node (MIG: its parent) */
    const char *parent; /* MIG: the parent GPU's device name ("gpu-0"); NULL for a full GPU */
};

/* A ResourceSlice for one node and driver (spec.nodeName set, one pool named after the node,
 * generation 1, resourceSliceCount 1). Arena storage. */
struct gs_resource_slice {
    const char *name;        /* "<node>-gpu.nvidia.com" (upstream: generated, with a suffix) */
    const char *driver;
    const char *node_name;
    const char *pool;
    int64_t generation;
    int64_t resource_slice_count;
    struct gs_dra_device *devices;
    int ndevices;
};

/* One existing MIG device on a GPU (static MIG), as nvidia-smi mig -lgi shows it. */
struct gs_dra_mig_device {
    const char *profile;        /* "1g.10gb" */
    int profile_id;             /* GPU instance profile ID (nvidia-smi mig -lgip), e.g. 19 */
    int placement_start;        /* first memory slice */
    int placement_size;         /* memory slices */
    int64_t memory_mib;         /* MiB (NVML MemorySizeMB is MiB) */
    int multiprocessors, copy_engines, decoders, encoders, jpeg_engines, ofa_engines;
};

/* Per-GPU MIG layout: nmig > 0 means MIG mode is on and only the MIG devices are published
 * (the full GPU is not), as the driver does for static MIG. */
struct gs_dra_gpu_layout {
    const struct gs_dra_mig_device *mig;
    int nmig;
};

/* What the kubelet plugin learns from NVML besides the catalog. NULL strings take defaults. */
struct gs_dra_slice_opts {
    const char *driver_version;      /* "580.159.04": published as semver "580.159.4"
                                      * (Masterminds semver, lenient); default "580.95.5" */
    const char *cuda_driver_version; /* "13.0": published as "13.0.0"; default "13.0.0" */
    bool publish_index;              /* also publish int attributes index and minor (driver
                                      * releases v25.3/v25.8; removed in v25.12 / v0.4.0) */
};

/* Build the gpu.nvidia.com ResourceSlice of node `node` with `ngpus` GPUs of `product`
 * (catalog.h): for GPU i (minor i) without MIG, device gpu-<i> with attributes (driver domain)
 * type="gpu", uuid (a deterministic "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" from node and
 * index), productName (NVML name), brand, architecture, cudaComputeCapability (version
 * "<major>.<minor>.0"), driverVersion, cudaDriverVersion (versions), optionally index/minor,
 * and capacity memory = memory_mib MiB (BinarySI); with MIG, one device per MIG instance:
 * type="mig", uuid ("MIG-..."), parentUUID, profile, productName, brand, architecture,
 * cudaComputeCapability, driverVersion, cudaDriverVersion; capacities multiprocessors,
 * copyEngines, decoders, encoders, jpegEngines, ofaEngines, memory (MiB) and one
 * memorySlice<N> = 1 per occupied slice. `layouts` may be NULL (no MIG anywhere) or hold
 * ngpus entries. Devices are in GPU order, MIG devices by placement as given.
 * Returns 0; GS_EINVAL (err says why: no product, ngpus out of 0..GS_DRA_MAX_GPUS, a bad
 * version text, a MIG device without profile or with a bad placement); GS_ENOMEM. */
int gs_dra_slice_build(struct gs_arena *a, const char *node, const struct gs_gpu_product *product,
                       int ngpus, const struct gs_dra_gpu_layout *layouts,
                       const struct gs_dra_slice_opts *opts, struct gs_resource_slice *out,
                       struct gs_error *err);

/* The device's CEL view (driver from its slice). Borrowed pointers. */
struct gs_cel_device gs_dra_cel_view(const struct gs_resource_slice *s, const struct gs_dra_device *d);

/* ------------------------------------------------------------------ classes and claims */

/* A CEL selector; `prog` is compiled from `expression` (NULL until compiled). */
struct gs_dra_selector {
    const char *expression; /* arena or static */
    struct gs_cel_program *prog;
};

/* DeviceClass (cluster-scoped). */
struct gs_device_class {
    const char *name;
    struct gs_dra_selector *selectors;
    int nselectors;
    const char *extended_resource_name; /* spec.extendedResourceName (DRAExtendedResource), or NULL */
};

/* Fill `c` with `n` selectors (expressions copied into the arena) and compile them. Returns 0;
 * GS_EINVAL when an expression does not compile (err: "deviceclass <name>: selector #<i>:
 * CEL: ..." with the column of the expression); GS_ENOMEM. On error `c` holds no programs. */
int gs_device_class_init(struct gs_device_class *c, struct gs_arena *a, const char *name,
                         const char *const *expressions, int n, const char *extended_resource_name,
                         struct gs_error *err);

/* The DeviceClasses the NVIDIA DRA driver's chart installs: out[0] gpu.nvidia.com
 * ("device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
 * extendedResourceName nvidia.com/gpu when `extended_resource` — the chart renders it on
 * resource.k8s.io/v1), out[1] mig.nvidia.com (type == 'mig'). Same returns as init. */
int gs_device_class_nvidia(struct gs_device_class out[2], struct gs_arena *a, bool extended_resource,
                           struct gs_error *err);

/* Free the class's compiled programs (arena memory stays). NULL is fine. */
void gs_device_class_free(struct gs_device_class *c);

enum gs_dra_allocation_mode { GS_DRA_EXACT_COUNT = 0, GS_DRA_ALL };

/* devices.requests[] with `exactly` (ExactDeviceRequest). */
struct gs_dra_request {
    const char *name;
    const char *device_class_name;
    struct gs_dra_selector *selectors;
    int nselectors;
    enum gs_dra_allocation_mode mode;   /* allocationMode, default ExactCount */
    int64_t count;                      /* ExactCount: count, default 1 */
};

/* ResourceClaimSpec.devices (requests only; constraints and config are not modelled). */
struct gs_dra_claim_spec {
    struct gs_dra_request *requests;
    int nrequests;
};

/* Compile every selector of `s` that has no program yet. Returns 0; GS_EINVAL (err:
 * "request <r>: selector #<i>: CEL: ... at column N"); GS_ENOMEM. On error no programs are
 * left compiled. */
int gs_dra_claim_spec_compile(struct gs_dra_claim_spec *s, struct gs_error *err);
/* Free the spec's compiled programs (arena memory stays). NULL is fine. */
void gs_dra_claim_spec_free(struct gs_dra_claim_spec *s);

struct gs_resource_claim_template {
    const char *name;
    const char *namespace_;
    struct gs_dra_claim_spec spec;
};

/* One allocated device (DeviceRequestAllocationResult) plus its index in the node's device
 * list (gs_dra_node_view, flattened in slice order). Strings borrowed from spec and slice. */
struct gs_dra_device_result {
    const char *request;
    const char *driver;
    const char *pool;
    const char *device;
    int index;
};

/* AllocationResult: the devices, and the node they are on (the allocation's nodeSelector
 * matches exactly that node, as a node-local slice makes it). */
struct gs_dra_allocation {
    int nresults;
    struct gs_dra_device_result results[GS_DRA_ALLOCATION_RESULTS_MAX];
    const char *node_name;
};

/* A ResourceClaim: spec (borrowed from its template or owned by the scenario) and status. */
struct gs_resource_claim {
    const char *name;
    const char *namespace_;
    const struct gs_dra_claim_spec *spec;
    int owner_pod;              /* pod index when generated from a template, else -1 */
    bool deleting;              /* metadata.deletionTimestamp set */
    bool allocated;             /* status.allocation set */
    bool pending_allocation;    /* Reserve done, PreBind not yet (in-flight) */
    struct gs_dra_allocation allocation;
    int nreserved;
    int reserved_for[GS_DRA_RESERVED_FOR_MAX]; /* status.reservedFor: pod indices */
};

/* A claim named `name` in `ns` with spec `spec` (borrowed), unallocated, not owned. */
void gs_resource_claim_init(struct gs_resource_claim *c, const char *name, const char *ns,
                            const struct gs_dra_claim_spec *spec);

/* The claim the resourceclaim controller creates for pod `pod` (index) named `pod_name` from
 * template `t` for the pod's resourceClaims entry `pod_claim`: spec shared with the template,
 * owner the pod, name "<pod_name>-<pod_claim>" (gpusim's deterministic choice; upstream uses
 * generateName "<pod>-<claim>-" plus 5 random characters). Name in the arena. 0 or
 * GS_ENOMEM. */
int gs_resource_claim_from_template(struct gs_resource_claim *c, struct gs_arena *a,
                                    const struct gs_resource_claim_template *t, const char *pod_name,
                                    const char *pod_claim, int pod);

/* resourceclaim.IsReservedForPod. */
bool gs_dra_claim_reserved_for(const struct gs_resource_claim *c, int pod);
/* resourceclaim.CanBeReserved: fewer than GS_DRA_RESERVED_FOR_MAX consumers. */
bool gs_dra_claim_can_be_reserved(const struct gs_resource_claim *c);
/* Add `pod` to reservedFor (PreBind); a no-op when already there. 0, or GS_ERANGE when full.
 * A claim reserved for several pods is shared: they all use its devices. */
int gs_dra_claim_reserve(struct gs_resource_claim *c, int pod);
/* Remove `pod` from reservedFor. Returns true when the claim is allocated and now reserved for
 * nobody: the resourceclaim controller then deallocates it (gs_dra_claim_deallocate). */
bool gs_dra_claim_unreserve(struct gs_resource_claim *c, int pod);
/* Clear the allocation and mark its devices free in `in_use` (may be NULL). */
void gs_dra_claim_deallocate(struct gs_resource_claim *c, bool *in_use);
/* Filter for an allocated claim: its nodeSelector matches `node` (unallocated: true). */
bool gs_dra_claim_available_on(const struct gs_resource_claim *c, const char *node);

/* PreFilter's checks of one claim of pod `pod`, in upstream order: being deleted, allocated
 * but in use by others and not reservable ("resourceclaim in use"), in-flight allocation,
 * unknown device class of an unallocated claim's request. Returns 0 when the claim is fine,
 * 1 with the reason in `reason` (UnschedulableAndUnresolvable), 2 with the error text for a
 * request without a device class ("request <r>: unsupported request type": an Error status).
 * The owner check of a template claim (gs_dra_reason_not_owner) is the caller's. */
int gs_dra_prefilter_claim(const struct gs_resource_claim *c, int pod,
                           const struct gs_device_class *classes, int nclasses, char *reason, size_t n);

/* ------------------------------------------------------------------ allocator */

/* What the allocator sees for one node. `in_use` has one entry per device, flattened in slice
 * order (gs_dra_node_device_count entries; NULL: none in use): devices of allocated claims,
 * of in-flight allocations and of GPUs the device plugin holds. */
struct gs_dra_node_view {
    const char *node_name;
    const struct gs_resource_slice *slices;
    int nslices;
    const bool *in_use;
    const struct gs_device_class *classes;
    int nclasses;
};

/* Number of devices over all slices of the view. */
int gs_dra_node_device_count(const struct gs_dra_node_view *v);
/* Device by flattened index (NULL when out of range); *slice (may be NULL) gets its slice. */
const struct gs_dra_device *gs_dra_node_device(const struct gs_dra_node_view *v, int index,
                                               const struct gs_resource_slice **slice);
/* Flattened index of device `device` in pool `pool` of `driver`, or -1. */
int gs_dra_node_device_index(const struct gs_dra_node_view *v, const char *driver, const char *pool,
                             const char *device);

/* Allocate all `nclaims` claims together on the view's node (Allocator.Allocate): every
 * request of every claim, each device at most once, none already in use. ExactCount requests
 * take `count` devices found by backtracking over the slices' devices in order; All takes
 * every device of the node that matches the class and request selectors, and fails if one of
 * them is in use or there is none. Class selectors are checked before request selectors;
 * results per (request, device) are cached for the call.
 * Returns 1 with out[i] the allocation of claims[i]; 0 when no allocation exists (Filter's
 * "cannot allocate all claims"); GS_EINVAL with upstream's error text in `errbuf` for a
 * claim or class that cannot be evaluated: "claim <ns>/<name>: selector #<i>: CEL runtime
 * error: no such key: productName", "class <c>: selector #<i>: CEL runtime error: ...",
 * "claim <ns>/<name>, request <r>: could not retrieve device class <c>:
 * deviceclass.resource.k8s.io \"<c>\" not found", "claim <ns>/<name>: number of requested
 * devices <n> exceeds the claim limit of 32"; GS_ENOMEM. `out` is written only on 1. */
int gs_dra_allocate(const struct gs_dra_node_view *v, const struct gs_resource_claim *const *claims,
                    int nclaims, struct gs_dra_allocation *out, char *errbuf, size_t errlen);

/* Set (used) or clear the in-use entries of an allocation's devices. */
void gs_dra_mark_in_use(const struct gs_dra_allocation *a, bool *in_use, bool used);

/* ------------------------------------------------------------------ device plugin vs DRA */

enum gs_gpu_holder { GS_GPU_FREE = 0, GS_GPU_HELD_DP, GS_GPU_HELD_DRA };

/* Who holds each physical GPU of one node (the DECISION above). Plain value, no pointers. */
struct gs_gpu_ledger {
    int ngpus;
    uint8_t holder[GS_DRA_MAX_GPUS];     /* enum gs_gpu_holder */
    int16_t dra_devices[GS_DRA_MAX_GPUS]; /* DRA devices allocated on the GPU (MIG: several) */
};

/* All `ngpus` GPUs free. GS_EINVAL when ngpus is outside 0..GS_DRA_MAX_GPUS. */
int gs_gpu_ledger_init(struct gs_gpu_ledger *l, int ngpus);
/* The device plugin gives `count` whole GPUs to a pod: the free ones with the lowest indices,
 * written to idx[0..count). GS_ERANGE (nothing changed) when fewer are free. */
int gs_gpu_ledger_dp_take(struct gs_gpu_ledger *l, int count, int *idx);
/* Return GPUs the device plugin gave out. GS_EINVAL (nothing changed) for a GPU it does not
 * hold. */
int gs_gpu_ledger_dp_release(struct gs_gpu_ledger *l, const int *idx, int n);
/* The device plugin takes back exactly the GPUs idx[0..n) (undoing gs_gpu_ledger_dp_release, as
 * explain's what-if does after taking a pod off a node). GS_EINVAL (nothing changed) when one is
 * not free. */
int gs_gpu_ledger_dp_retake(struct gs_gpu_ledger *l, const int *idx, int n);
/* DRA allocated the devices of `a` (devices looked up in `v` for their GPU): each GPU becomes
 * held by DRA. GS_EINVAL (nothing changed) when one is held by the device plugin. */
int gs_gpu_ledger_dra_take(struct gs_gpu_ledger *l, const struct gs_dra_node_view *v,
                           const struct gs_dra_allocation *a);
/* DRA deallocated `a`: a GPU is free again once none of its DRA devices is allocated. */
void gs_gpu_ledger_dra_release(struct gs_gpu_ledger *l, const struct gs_dra_node_view *v,
                               const struct gs_dra_allocation *a);
/* GPUs free for the device plugin. */
int gs_gpu_ledger_dp_free(const struct gs_gpu_ledger *l);
/* GPUs held by DRA: add this to the node's requested nvidia.com/gpu for NodeResourcesFit. */
int gs_gpu_ledger_dra_held(const struct gs_gpu_ledger *l);
/* Mark in `in_use` (flattened over `v`) every device on a GPU the device plugin holds. */
void gs_gpu_ledger_block(const struct gs_gpu_ledger *l, const struct gs_dra_node_view *v, bool *in_use);

/* ------------------------------------------------------------------ reason strings (1.34) */

/* Filter (UnschedulableAndUnresolvable), dynamicresources.go. */
#define GS_DRA_REASON_CANNOT_ALLOCATE "cannot allocate all claims"
#define GS_DRA_REASON_NOT_AVAILABLE "resourceclaim not available on the node"
/* PreFilter. */
#define GS_DRA_REASON_IN_USE "resourceclaim in use"
/* PostFilter (Unschedulable), the tail of the FailedScheduling message. */
#define GS_DRA_POSTFILTER_NO_NEW_CLAIMS "no new claims to deallocate"
#define GS_DRA_POSTFILTER_DEALLOCATED "deallocation of ResourceClaim completed"
#define GS_DRA_POSTFILTER_STILL "still not schedulable"

/* The following write the text (snprintf-style: at most n bytes, NUL-terminated; returns the
 * length wanted). Sources: resourceclaim.Name (ErrClaimNotFound), the claim assume cache
 * (NotFoundError), foreachPodResourceClaim, resourceclaim.IsForPod, PreFilter,
 * validateDeviceClass, framework/runtime RunFilterPlugins. */
/* `pod "<ns>/<pod>": ResourceClaim not created yet` (template claim not generated yet). */
int gs_dra_reason_not_created(char *buf, size_t n, const char *ns, const char *pod);
/* `could not find ResourceClaim "<ns>/<claim>"` (a named claim that does not exist). */
int gs_dra_reason_not_found(char *buf, size_t n, const char *ns, const char *claim);
/* `resourceclaim "<claim>" is being deleted`. */
int gs_dra_reason_deleting(char *buf, size_t n, const char *claim);
/* `ResourceClaim <ns>/<claim> was not created for pod <ns>/<pod> (pod is not owner)`. */
int gs_dra_reason_not_owner(char *buf, size_t n, const char *ns, const char *claim, const char *pod);
/* `resource claim <ns>/<claim> is in the process of being allocated`. */
int gs_dra_reason_pending(char *buf, size_t n, const char *ns, const char *claim);
/* `request <request>: device class <class> does not exist`. */
int gs_dra_reason_no_class(char *buf, size_t n, const char *request, const char *device_class);
/* The Error a failed allocation aborts the scheduling attempt with (the FailedScheduling
 * message): `running "DynamicResources" filter plugin: <alloc_error>`. */
int gs_dra_filter_error(char *buf, size_t n, const char *alloc_error);

#endif
