/* gpusim: the API server's validation of pod resources, with its exact messages.
 *
 * Follows kubernetes pkg/apis/core/validation/validation.go (ValidatePodSpec's container order,
 * ValidateResourceRequirements, validateContainerResourceName, validateResourceName,
 * ValidateResourceQuantityValue, ValidateNonnegativeQuantity,
 * validateResourceQuantityHugePageValue), pkg/apis/core/helper/helpers.go
 * (IsExtendedResourceName, IsNativeResource, IsOvercommitAllowed, IsHugePageResourceName,
 * IsStandardResourceName, IsStandardContainerResourceName, IsIntegerResourceName), the
 * defaulting of pkg/apis/core/v1/defaults.go (SetDefaults_Pod: requests from limits, for Pods
 * only; SetDefaults_ResourceList: RoundUp to milli, for every ResourceList), apimachinery
 * pkg/util/validation/field (Path.Key, Error.ErrorBody, ErrorList.ToAggregate),
 * pkg/util/errors (aggregate.Error) and pkg/api/errors NewInvalid. See
 * ../shared/reference/kube-scheduler.md §4.
 */
#ifndef GPUSIM_VALIDATION_H
#define GPUSIM_VALIDATION_H

#include <stdbool.h>
#include <stddef.h>

#include "models/quantity.h"

struct gs_res_entry {
    const char *name;          /* resource name as written, e.g. "nvidia.com/gpu" (borrowed) */
    struct gs_quantity q;      /* as parsed by gs_quantity_parse from the text written */
};

/* One container's resources as the user wrote them (before defaulting). All pointers are
 * borrowed; the arrays may be NULL when their count is 0. */
struct gs_container_res {
    const char *name;
    bool init;                 /* an initContainers[] entry */
    struct gs_res_entry *requests;
    int nrequests;
    struct gs_res_entry *limits;
    int nlimits;
};

/* Validate the containers of one pod spec as the API server does when the object is created,
 * and write its error detail into `buf` (size n, snprintf-style truncation; buf may be NULL
 * when n is 0). Field paths are prefixed with `path_prefix` ("spec." for a Pod,
 * "spec.template.spec." for a Job or another pod template; NULL means "spec.").
 *
 * Defaulting first, as decoding does: for a Pod (path_prefix exactly "spec.") every limit
 * without a request becomes the request (SetDefaults_Pod; pod templates are not defaulted, so
 * a Job is validated as written), and every quantity is rounded up to milli units
 * (SetDefaults_ResourceList). Then, per container in order (containers[], then
 * initContainers[], each indexed from 0), limits and then requests, each sorted by resource
 * name (upstream iterates a Go map, so its order across names is random), the checks:
 *   limits[name] / requests[name]: resource name errors ("must be a standard resource type or
 *     fully qualified", "must be a standard resource for containers", "doesn't follow extended
 *     resource name standard", qualified-name errors); "must be greater than or equal to 0"
 *     (value rendered as its String(), quoted); "must be an integer" for extended resources
 *     (value rendered as the Go %#v dump of the Quantity, see gs_quantity_godump); huge pages
 *     "<q> is not positive integer multiple of hugepages-<size>";
 *   requests: `Invalid value: "<req>": must be equal to <name> limit of <lim>` (extended
 *     resources and huge pages) or `must be less than or equal to <name> limit of <lim>`;
 *   limits: `Required value: Limit must be set for non overcommitable resources`;
 *   resources: `Forbidden: HugePages require cpu or memory`.
 * Identical messages are reported once; one error is written as is, several as the API
 * server's aggregate "[err1, err2]".
 * Returns 0 when the spec is valid (buf is then ""), GS_EINVAL when it is refused (buf holds
 * the detail), GS_ENOMEM when an allocation failed (buf holds "out of memory"; whether the spec
 * is valid is then unknown). The heap memory used is freed before returning. */
int gs_validate_containers(const struct gs_container_res *c, int nc, const char *path_prefix, char *buf,
                           size_t n);

/* The same with every choice explicit. */
struct gs_validation_opts {
    const char *path_prefix;   /* as above; NULL means "spec." */
    bool pod_defaulting;       /* apply SetDefaults_Pod (requests from limits) */
    /* Render non-string bad values (the Quantity of "must be an integer") as JSON, "500m",
     * as apimachinery does since PR #132314 (field.Error.ErrorBody tries json.Marshal first;
     * merged mid-2025, release not verified). false: the Go %#v dump of older releases. */
    bool json_values;
};
int gs_validate_containers_opts(const struct gs_container_res *c, int nc,
                                const struct gs_validation_opts *opts, char *buf, size_t n);

/* The request the scheduler sees for resource `name` of a Pod's container after defaulting:
 * the request when written, else the limit (SetDefaults_Pod), else NULL. Borrowed pointer
 * into `c`. */
const struct gs_quantity *gs_container_effective_request(const struct gs_container_res *c,
                                                         const char *name);

/* IsExtendedResourceName: a name outside the kubernetes.io domain, not starting with
 * "requests.", that is a valid qualified name once prefixed with "requests."
 * ("nvidia.com/gpu" yes; "cpu", "hugepages-2Mi", "kubernetes.io/x", "Nvidia.com/gpu" no). */
bool gs_is_extended_resource(const char *name);

/* IsOvercommitAllowed: a native resource (no "/" or in *kubernetes.io/) that is not huge
 * pages; requests of all others must equal their limits. */
bool gs_is_overcommit_allowed(const char *name);

/* The full Status message of a refused object, as NewInvalid builds it:
 * `<Kind>.<group> "<name>" is invalid: <detail>` (group omitted for the core group, NULL or
 * "": `Pod "x" is invalid: ...`; `<Kind> "<name>" is invalid` when detail is NULL or "").
 * The name is quoted as Go's %q does. Returns snprintf's length. Allocates nothing (cannot
 * fail). */
int gs_validation_status_message(const char *kind, const char *group, const char *name,
                                 const char *detail, char *buf, size_t n);

#endif
