/* gpusim: DeviceClasses, claim specs, ResourceClaims and their status bookkeeping (dra.h).
 * Follows dynamic-resource-allocation/resourceclaim/resourceclaim.go (CanBeReserved,
 * IsReservedForPod), the resourceclaim controller's template claims and deallocation of
 * claims no pod reserves, and dynamicresources.go PreFilter (claim checks in its order). */
#include <stdio.h>
#include <string.h>

#include "models/dra/dra.h"

static void free_selectors(struct gs_dra_selector *s, int n)
{
    for (int i = 0; s && i < n; i++) {
        gs_cel_free(s[i].prog);
        s[i].prog = NULL;
    }
}

/* Compile selectors without a program; `what` prefixes the error ("deviceclass x"). */
static int compile_selectors(struct gs_dra_selector *s, int n, const char *what, struct gs_error *err)
{
    for (int i = 0; i < n; i++) {
        if (s[i].prog)
            continue;
        struct gs_error e = {0};
        int rc = gs_cel_compile(s[i].expression, &s[i].prog, &e);
        if (rc) {
            if (rc == GS_EINVAL)
                gs_error_set(err, GS_EINVAL, NULL, 1, e.col, "%s: selector #%d: %s", what, i, e.msg);
            return rc;
        }
    }
    return 0;
}

int gs_device_class_init(struct gs_device_class *c, struct gs_arena *a, const char *name,
                         const char *const *expressions, int n, const char *extended_resource_name,
                         struct gs_error *err)
{
    if (!c || !a || !name || n < 0 || (n > 0 && !expressions))
        return gs_error_set(err, GS_EINVAL, NULL, 0, 0, "DRA: invalid DeviceClass arguments");
    memset(c, 0, sizeof *c);
    c->name = gs_arena_strdup(a, name);
    c->extended_resource_name = extended_resource_name ? gs_arena_strdup(a, extended_resource_name) : NULL;
    c->selectors = n ? gs_arena_alloc(a, (size_t)n * sizeof *c->selectors) : NULL;
    if (!c->name || (extended_resource_name && !c->extended_resource_name) || (n && !c->selectors))
        return GS_ENOMEM;
    for (int i = 0; i < n; i++)
        if (!(c->selectors[i].expression = gs_arena_strdup(a, expressions[i] ? expressions[i] : "")))
            return GS_ENOMEM;
    c->nselectors = n;
    char what[320];
    snprintf(what, sizeof what, "deviceclass %s", name);
    int rc = compile_selectors(c->selectors, n, what, err);
    if (rc)
        free_selectors(c->selectors, n);
    return rc;
}

int gs_device_class_nvidia(struct gs_device_class out[2], struct gs_arena *a, bool extended_resource,
                           struct gs_error *err)
{
    static const char *gpu[] = {
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"};
    static const char *mig[] = {
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"};
    int rc = gs_device_class_init(&out[0], a, GS_DRA_CLASS_GPU, gpu, 1,
                                  extended_resource ? "nvidia.com/gpu" : NULL, err);
    if (rc)
        return rc;
    rc = gs_device_class_init(&out[1], a, GS_DRA_CLASS_MIG, mig, 1, NULL, err);
    if (rc)
        gs_device_class_free(&out[0]);
    return rc;
}

void gs_device_class_free(struct gs_device_class *c)
{
    if (c)
        free_selectors(c->selectors, c->nselectors);
}

int gs_dra_claim_spec_compile(struct gs_dra_claim_spec *s, struct gs_error *err)
{
    if (!s)
        return gs_error_set(err, GS_EINVAL, NULL, 0, 0, "DRA: no claim spec");
    for (int r = 0; r < s->nrequests; r++) {
        char what[320];
        snprintf(what, sizeof what, "request %s", s->requests[r].name ? s->requests[r].name : "");
        int rc = compile_selectors(s->requests[r].selectors, s->requests[r].nselectors, what, err);
        if (rc) {
            gs_dra_claim_spec_free(s);
            return rc;
        }
    }
    return 0;
}

void gs_dra_claim_spec_free(struct gs_dra_claim_spec *s)
{
    for (int r = 0; s && r < s->nrequests; r++)
        free_selectors(s->requests[r].selectors, s->requests[r].nselectors);
}

void gs_resource_claim_init(struct gs_resource_claim *c, const char *name, const char *ns,
                            const struct gs_dra_claim_spec *spec)
{
    memset(c, 0, sizeof *c);
    c->name = name;
    c->namespace_ = ns;
    c->spec = spec;
    c->owner_pod = -1;
}

int gs_resource_claim_from_template(struct gs_resource_claim *c, struct gs_arena *a,
                                    const struct gs_resource_claim_template *t, const char *pod_name,
                                    const char *pod_claim, int pod)
{
    char *name = gs_arena_printf(a, "%s-%s", pod_name, pod_claim);
    if (!name)
        return GS_ENOMEM;
    gs_resource_claim_init(c, name, t->namespace_, &t->spec);
    c->owner_pod = pod;
    return 0;
}

bool gs_dra_claim_reserved_for(const struct gs_resource_claim *c, int pod)
{
    for (int i = 0; i < c->nreserved; i++)
        if (c->reserved_for[i] == pod)
            return true;
    return false;
}

bool gs_dra_claim_can_be_reserved(const struct gs_resource_claim *c)
{
    return c->nreserved < GS_DRA_RESERVED_FOR_MAX;
}

int gs_dra_claim_reserve(struct gs_resource_claim *c, int pod)
{
    if (gs_dra_claim_reserved_for(c, pod))
        return 0;
    if (!gs_dra_claim_can_be_reserved(c))
        return GS_ERANGE;
    c->reserved_for[c->nreserved++] = pod;
    return 0;
}

bool gs_dra_claim_unreserve(struct gs_resource_claim *c, int pod)
{
    for (int i = 0; i < c->nreserved; i++)
        if (c->reserved_for[i] == pod) {
            memmove(&c->reserved_for[i], &c->reserved_for[i + 1],
                    (size_t)(c->nreserved - i - 1) * sizeof c->reserved_for[0]);
            c->nreserved--;
            return c->allocated && c->nreserved == 0;
        }
    return false;
}

void gs_dra_claim_deallocate(struct gs_resource_claim *c, bool *in_use)
{
    if (c->allocated && in_use)
        gs_dra_mark_in_use(&c->allocation, in_use, false);
    c->allocated = false;
    c->pending_allocation = false;
    memset(&c->allocation, 0, sizeof c->allocation);
}

bool gs_dra_claim_available_on(const struct gs_resource_claim *c, const char *node)
{
    if (!c->allocated || !c->allocation.node_name)
        return true;
    return node && strcmp(c->allocation.node_name, node) == 0;
}

static const struct gs_device_class *find_class(const struct gs_device_class *classes, int n,
                                                const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (classes[i].name && strcmp(classes[i].name, name) == 0)
            return &classes[i];
    return NULL;
}

int gs_dra_prefilter_claim(const struct gs_resource_claim *c, int pod,
                           const struct gs_device_class *classes, int nclasses, char *reason, size_t n)
{
    if (c->deleting) {
        gs_dra_reason_deleting(reason, n, c->name);
        return 1;
    }
    if (c->allocated && !gs_dra_claim_can_be_reserved(c) && !gs_dra_claim_reserved_for(c, pod)) {
        snprintf(reason, n, "%s", GS_DRA_REASON_IN_USE);
        return 1;
    }
    if (c->allocated)
        return 0;
    if (c->pending_allocation) {
        gs_dra_reason_pending(reason, n, c->namespace_, c->name);
        return 1;
    }
    for (int r = 0; c->spec && r < c->spec->nrequests; r++) {
        const struct gs_dra_request *q = &c->spec->requests[r];
        if (!q->device_class_name || !*q->device_class_name) {
            /* validateDeviceClass: statusError (an Error status, not Unschedulable). */
            snprintf(reason, n, "request %s: unsupported request type", q->name ? q->name : "");
            return 2;
        }
        if (!find_class(classes, nclasses, q->device_class_name)) {
            gs_dra_reason_no_class(reason, n, q->name ? q->name : "", q->device_class_name);
            return 1;
        }
    }
    return 0;
}
