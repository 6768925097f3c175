/* gpusim: DRA objects during a run (dra_state.h): claims and their status, each node's
 * ResourceSlice and devices in use, and a pod's claims through PreFilter, Filter, Reserve /
 * PreBind and the resourceclaim controller's clean-up.
 * Follows kubernetes dynamicresources.go (foreachPodResourceClaim, PreFilter, Filter: the
 * allocator runs before the check of allocated claims' node selectors) and
 * pkg/controller/resourceclaim/controller.go (generated claims of a done pod are deleted,
 * claims no pod reserves are deallocated). */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "models/dra/dra_state.h"

/* ------------------------------------------------------------------ spec */

void gs_dra_spec_free(struct gs_dra_spec *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->nclasses; i++)
        gs_device_class_free(&s->classes[i]);
    for (int i = 0; i < s->ntemplates; i++)
        gs_dra_claim_spec_free(&s->templates[i].spec);
    for (int i = 0; i < s->nclaims; i++)
        gs_dra_claim_spec_free(&s->claims[i].spec);
}

const struct gs_device_class *gs_dra_spec_class(const struct gs_dra_spec *s, const char *name)
{
    for (int i = 0; s && name && i < s->nclasses; i++)
        if (strcmp(s->classes[i].name, name) == 0)
            return &s->classes[i];
    return NULL;
}

const struct gs_resource_claim_template *gs_dra_spec_template(const struct gs_dra_spec *s, const char *ns,
                                                               const char *name)
{
    for (int i = 0; s && name && i < s->ntemplates; i++)
        if (strcmp(s->templates[i].name, name) == 0 && strcmp(s->templates[i].namespace_, ns) == 0)
            return &s->templates[i];
    return NULL;
}

bool gs_dra_plugin_schedules(const struct gs_dra_spec *s, const struct gs_labels *labels,
                             const struct gs_taint *taints, int ntaints)
{
    if (!s || !s->driver)
        return false;
    for (int i = 0; i < s->plugin_node_selector.n; i++) {
        const char *v = gs_labels_get(labels, s->plugin_node_selector.kv[i].key);
        if (!v || strcmp(v, s->plugin_node_selector.kv[i].value) != 0)
            return false;
    }
    if (s->plugin_default_affinity) {
        const char *a = gs_labels_get(labels, "feature.node.kubernetes.io/pci-10de.present");
        const char *b = gs_labels_get(labels, "feature.node.kubernetes.io/cpu-model.vendor_id");
        const char *c = gs_labels_get(labels, "nvidia.com/gpu.present");
        if (!(a && strcmp(a, "true") == 0) && !(b && strcmp(b, "NVIDIA") == 0) && !(c && strcmp(c, "true") == 0))
            return false;
    }
    /* The DaemonSet controller adds these tolerations to every daemon pod
     * (pkg/controller/daemon/util AddOrUpdateDaemonPodTolerations). */
    static const char *const automatic[] = {"node.kubernetes.io/not-ready",      "node.kubernetes.io/unreachable",
                                            "node.kubernetes.io/disk-pressure",  "node.kubernetes.io/memory-pressure",
                                            "node.kubernetes.io/pid-pressure",   "node.kubernetes.io/unschedulable",
                                            NULL};
    for (int i = 0; i < ntaints; i++) {
        const struct gs_taint *t = &taints[i];
        if (t->effect == GS_EFFECT_PREFER_NO_SCHEDULE)
            continue;
        bool ok = false;
        for (int k = 0; automatic[k] && !ok; k++)
            ok = strcmp(t->key, automatic[k]) == 0;
        for (int k = 0; k < s->nplugin_tolerations && !ok; k++)
            ok = gs_toleration_tolerates(&s->plugin_tolerations[k], t);
        if (!ok)
            return false;
    }
    return true;
}

/* ------------------------------------------------------------------ state */

int gs_dra_state_init(struct gs_dra_state *st, const struct gs_dra_spec *spec)
{
    memset(st, 0, sizeof *st);
    st->spec = spec;
    for (int i = 0; spec && i < spec->nclaims; i++) {
        struct gs_resource_claim c;
        gs_resource_claim_init(&c, spec->claims[i].name, spec->claims[i].namespace_, &spec->claims[i].spec);
        if (gs_dra_state_add_claim(st, &c) < 0) {
            gs_dra_state_free(st);
            return GS_ENOMEM;
        }
    }
    return 0;
}

void gs_dra_state_free(struct gs_dra_state *st)
{
    if (!st)
        return;
    for (int i = 0; i < st->nodes_cap; i++)
        gs_free(st->nodes[i].in_use);
    gs_free(st->nodes);
    gs_free(st->claims);
    gs_free(st->pod_dp);
    gs_free(st->pod_dp_node);
    memset(st, 0, sizeof *st);
}

int gs_dra_state_find_claim(const struct gs_dra_state *st, const char *ns, const char *name)
{
    for (int i = 0; name && i < st->nclaims; i++) {
        const struct gs_resource_claim *c = &st->claims[i].c;
        if (st->claims[i].exists && strcmp(c->name, name) == 0 && strcmp(c->namespace_, ns) == 0)
            return i;
    }
    return -1;
}

int gs_dra_state_add_claim(struct gs_dra_state *st, const struct gs_resource_claim *c)
{
    if (gs_array_grow((void **)&st->claims, &st->claims_cap, st->nclaims + 1, sizeof *st->claims))
        return GS_ENOMEM;
    struct gs_dra_claim_entry *e = &st->claims[st->nclaims];
    e->c = *c;
    e->exists = true;
    return st->nclaims++;
}

struct gs_dra_node_state *gs_dra_state_node(struct gs_dra_state *st, int node)
{
    if (node < 0)
        return NULL;
    if (node >= st->nodes_cap) {
        int old = st->nodes_cap;
        if (gs_array_grow((void **)&st->nodes, &st->nodes_cap, node + 1, sizeof *st->nodes))
            return NULL;
        memset(&st->nodes[old], 0, sizeof *st->nodes * (size_t)(st->nodes_cap - old));
    }
    return &st->nodes[node];
}

struct gs_dra_node_view gs_dra_state_view(const struct gs_dra_state *st, int node, const char *node_name,
                                          const bool *in_use)
{
    const struct gs_dra_node_state *ns = node >= 0 && node < st->nodes_cap ? &st->nodes[node] : NULL;
    bool pub = ns && ns->published;
    return (struct gs_dra_node_view){
        .node_name = node_name,
        .slices = pub ? &ns->slice : NULL,
        .nslices = pub ? 1 : 0,
        .in_use = in_use,
        .classes = st->spec ? st->spec->classes : NULL,
        .nclasses = st->spec ? st->spec->nclasses : 0,
    };
}

/* ------------------------------------------------------------------ a pod's claims */

static const char *ns_of(const struct gs_pod *p)
{
    (void)p;
    return "default"; /* gpusim's pods all live in the default namespace */
}

/* The claim of entry `r` of pod `pod` (resourceclaim.Name, IsForPod): its index, or -1 with
 * the reason. */
static int claim_of(const struct gs_dra_state *st, const struct gs_world *w, int pod,
                    const struct gs_pod_claim_ref *r, char *reason, size_t n)
{
    const struct gs_pod *p = &w->pods[pod];
    const char *ns = ns_of(p);
    if (r->claim_name) {
        int ci = gs_dra_state_find_claim(st, ns, r->claim_name);
        if (ci < 0)
            gs_dra_reason_not_found(reason, n, ns, r->claim_name);
        return ci;
    }
    /* A generated claim is recorded in the pod's status.resourceClaimStatuses by the
     * controller; gpusim names it <pod>-<entry> and finds it by owner. */
    for (int i = 0; i < st->nclaims; i++) {
        const struct gs_dra_claim_entry *e = &st->claims[i];
        if (!e->exists || e->c.owner_pod != pod)
            continue;
        size_t pl = strlen(p->name);
        if (strncmp(e->c.name, p->name, pl) == 0 && e->c.name[pl] == '-' && strcmp(e->c.name + pl + 1, r->name) == 0)
            return i;
    }
    gs_dra_reason_not_created(reason, n, ns, p->name);
    return -1;
}

int gs_dra_pod_prefilter(const struct gs_dra_state *st, const struct gs_world *w, int pod, int *claims,
                         int *nclaims, char *reason, size_t n)
{
    *nclaims = 0;
    const struct gs_pod_claims *pcl = w->pods[pod].tmpl->claims;
    if (!pcl)
        return 0;
    for (int i = 0; i < pcl->n && i < GS_DRA_POD_CLAIMS_MAX; i++) {
        int ci = claim_of(st, w, pod, &pcl->refs[i], reason, n);
        if (ci < 0)
            return 1;
        if (st->claims[ci].c.deleting) {
            gs_dra_reason_deleting(reason, n, st->claims[ci].c.name);
            return 1;
        }
        claims[(*nclaims)++] = ci;
    }
    for (int i = 0; i < *nclaims; i++) {
        const struct gs_resource_claim *c = &st->claims[claims[i]].c;
        int rc = gs_dra_prefilter_claim(c, pod, st->spec ? st->spec->classes : NULL,
                                        st->spec ? st->spec->nclasses : 0, reason, n);
        if (rc)
            return rc;
    }
    return 0;
}

enum gs_dra_filter_result gs_dra_pod_filter(const struct gs_dra_state *st, const struct gs_world *w,
                                            const int *claims, int nclaims, int node,
                                            struct gs_dra_allocation *out, int *nout, char *errbuf,
                                            size_t errlen)
{
    const char *node_name = w->nodes[node].name;
    const struct gs_resource_claim *todo[GS_DRA_POD_CLAIMS_MAX];
    int ntodo = 0;
    bool unavailable = false;
    if (nout)
        *nout = 0;
    for (int i = 0; i < nclaims; i++) {
        const struct gs_resource_claim *c = &st->claims[claims[i]].c;
        if (c->allocated) {
            unavailable = unavailable || !gs_dra_claim_available_on(c, node_name);
        } else if (ntodo < GS_DRA_POD_CLAIMS_MAX) {
            todo[ntodo++] = c;
        }
    }
    if (ntodo > 0) {
        /* Devices held by allocated claims and GPUs the device plugin holds. */
        static const bool none[1];
        bool scratch[GS_DRA_NODE_DEVICES_MAX];
        const bool *in_use = none;
        const struct gs_dra_node_state *ns = node < st->nodes_cap ? &st->nodes[node] : NULL;
        if (ns && ns->published) {
            int nd = ns->slice.ndevices < GS_DRA_NODE_DEVICES_MAX ? ns->slice.ndevices : GS_DRA_NODE_DEVICES_MAX;
            memcpy(scratch, ns->in_use, sizeof scratch[0] * (size_t)nd);
            struct gs_dra_node_view v0 = gs_dra_state_view(st, node, node_name, NULL);
            gs_gpu_ledger_block(&ns->ledger, &v0, scratch);
            in_use = scratch;
        }
        struct gs_dra_node_view v = gs_dra_state_view(st, node, node_name, in_use);
        struct gs_dra_allocation local[GS_DRA_POD_CLAIMS_MAX];
        int rc = gs_dra_allocate(&v, todo, ntodo, out ? out : local, errbuf, errlen);
        if (rc == GS_ENOMEM) {
            if (errlen)
                strncpy(errbuf, "out of memory", errlen - 1), errbuf[errlen - 1] = '\0';
            return GS_DRA_NOMEM;
        }
        if (rc < 0)
            return GS_DRA_ERROR;
        if (rc == 0)
            return GS_DRA_CANNOT_ALLOCATE;
    }
    if (unavailable)
        return GS_DRA_NOT_AVAILABLE;
    if (nout)
        *nout = ntodo;
    return GS_DRA_FIT;
}

int gs_dra_state_create_pod_claims(struct gs_dra_state *st, struct gs_arena *a, const struct gs_world *w,
                                   int pod)
{
    const struct gs_pod *p = &w->pods[pod];
    const struct gs_pod_claims *pcl = p->tmpl->claims;
    int made = 0;
    for (int i = 0; pcl && i < pcl->n; i++) {
        const struct gs_pod_claim_ref *r = &pcl->refs[i];
        const struct gs_resource_claim_template *t =
            r->template_name ? gs_dra_spec_template(st->spec, ns_of(p), r->template_name) : NULL;
        if (!t)
            continue;
        struct gs_resource_claim c;
        if (gs_resource_claim_from_template(&c, a, t, p->name, r->name, pod) || gs_dra_state_add_claim(st, &c) < 0)
            return GS_ENOMEM;
        made++;
    }
    return made;
}

int gs_dra_state_bind(struct gs_dra_state *st, const struct gs_world *w, int pod, int node)
{
    int claims[GS_DRA_POD_CLAIMS_MAX], n = 0;
    char buf[512];
    if (gs_dra_pod_prefilter(st, w, pod, claims, &n, buf, sizeof buf) != 0)
        return GS_EINVAL;
    if (n == 0)
        return 1;
    struct gs_dra_allocation out[GS_DRA_POD_CLAIMS_MAX];
    int nout = 0;
    enum gs_dra_filter_result fr = gs_dra_pod_filter(st, w, claims, n, node, out, &nout, buf, sizeof buf);
    if (fr == GS_DRA_NOMEM)
        return GS_ENOMEM;
    if (fr != GS_DRA_FIT)
        return GS_EINVAL;
    for (int i = 0; i < n; i++)
        if (!gs_dra_claim_reserved_for(&st->claims[claims[i]].c, pod) &&
            !gs_dra_claim_can_be_reserved(&st->claims[claims[i]].c))
            return GS_ERANGE;
    struct gs_dra_node_state *ns = gs_dra_state_node(st, node);
    int k = 0;
    for (int i = 0; i < n; i++) {
        struct gs_resource_claim *c = &st->claims[claims[i]].c;
        if (!c->allocated && k < nout) {
            c->allocation = out[k++];
            c->allocated = true;
            c->pending_allocation = false;
            if (ns && ns->published) {
                gs_dra_mark_in_use(&c->allocation, ns->in_use, true);
                struct gs_dra_node_view v = gs_dra_state_view(st, node, w->nodes[node].name, NULL);
                gs_gpu_ledger_dra_take(&ns->ledger, &v, &c->allocation);
            }
        }
        gs_dra_claim_reserve(c, pod);
    }
    return 0;
}

int gs_dra_state_release(struct gs_dra_state *st, const struct gs_world *w, int pod)
{
    int changed = 0;
    for (int i = 0; i < st->nclaims; i++) {
        struct gs_dra_claim_entry *e = &st->claims[i];
        if (!e->exists)
            continue;
        bool owned = e->c.owner_pod == pod;
        if (!owned && !gs_dra_claim_reserved_for(&e->c, pod))
            continue;
        bool unused = gs_dra_claim_unreserve(&e->c, pod);
        if (unused || (owned && e->c.allocated && e->c.nreserved == 0)) {
            const struct gs_dra_allocation *a = &e->c.allocation;
            int ni = a->node_name ? gs_world_find_node(w, a->node_name) : -1;
            struct gs_dra_node_state *ns = ni >= 0 && ni < st->nodes_cap ? &st->nodes[ni] : NULL;
            if (ns && ns->published) {
                struct gs_dra_node_view v = gs_dra_state_view(st, ni, a->node_name, NULL);
                gs_gpu_ledger_dra_release(&ns->ledger, &v, a);
                gs_dra_claim_deallocate(&e->c, ns->in_use);
            } else {
                gs_dra_claim_deallocate(&e->c, NULL);
            }
            changed++;
        }
        if (owned) {
            e->exists = false;
            changed++;
        }
    }
    return changed;
}
