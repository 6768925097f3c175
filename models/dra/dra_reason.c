/* gpusim: the DynamicResources plugin's reason texts (Kubernetes 1.34), dra.h.
 * Sources: dynamic-resource-allocation/resourceclaim (Name: ErrClaimNotFound "ResourceClaim not
 * created yet"; IsForPod), client-go tools/cache assume cache (NotFoundError "could not find %v
 * %q" with type ResourceClaim and key namespace/name), dynamicresources.go
 * (foreachPodResourceClaim, PreFilter, validateDeviceClass) and framework/runtime
 * RunFilterPlugins ("running %q filter plugin: %w"). */
#include <stdio.h>

#include "models/dra/dra.h"

int gs_dra_reason_not_created(char *buf, size_t n, const char *ns, const char *pod)
{
    return snprintf(buf, n, "pod \"%s/%s\": ResourceClaim not created yet", ns, pod);
}

int gs_dra_reason_not_found(char *buf, size_t n, const char *ns, const char *claim)
{
    return snprintf(buf, n, "could not find ResourceClaim \"%s/%s\"", ns, claim);
}

int gs_dra_reason_deleting(char *buf, size_t n, const char *claim)
{
    return snprintf(buf, n, "resourceclaim \"%s\" is being deleted", claim);
}

int gs_dra_reason_not_owner(char *buf, size_t n, const char *ns, const char *claim, const char *pod)
{
    return snprintf(buf, n, "ResourceClaim %s/%s was not created for pod %s/%s (pod is not owner)", ns,
                    claim, ns, pod);
}

int gs_dra_reason_pending(char *buf, size_t n, const char *ns, const char *claim)
{
    return snprintf(buf, n, "resource claim %s/%s is in the process of being allocated", ns, claim);
}

int gs_dra_reason_no_class(char *buf, size_t n, const char *request, const char *device_class)
{
    return snprintf(buf, n, "request %s: device class %s does not exist", request, device_class);
}

int gs_dra_filter_error(char *buf, size_t n, const char *alloc_error)
{
    return snprintf(buf, n, "running \"DynamicResources\" filter plugin: %s", alloc_error);
}
