/* The DRA controller: the NVIDIA DRA driver's kubelet plugin publishing a ResourceSlice per GPU
 * node, and kube-controller-manager's resourceclaim controller (claims from a pod's
 * ResourceClaimTemplates; reservations released, unused claims deallocated and generated claims
 * deleted when the pod ends). The objects themselves are the cluster's (sim/cluster/dra.c); the
 * `object:` checks of kind ResourceClaim, ResourceClaimTemplate, ResourceSlice and DeviceClass
 * are answered here.
 *
 * Rules this file chooses (SCENARIO.md leaves them open):
 * - The kubelet plugin publishes `<node>-gpu.nvidia.com` as soon as its DaemonSet would run on the
 *   node (kubeletPlugin nodeSelector, the chart's default affinity unless `affinity: null`,
 *   tolerations): when the node joins, or when its labels later let the DaemonSet in. gpusim does
 *   not wait for a driver the GPU Operator installs, and a slice stays while its node exists.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/error.h"
#include "models/dra/dra_state.h"
#include "sim/controller.h"

struct dra {
    int self;
};

static int setup(struct gs_cluster *c, int self, void **state)
{
    if (!c->sc->dra)
        return 0;
    struct dra *s = gs_calloc(1, sizeof *s);
    if (!s)
        return GS_ENOMEM;
    s->self = self;
    *state = s;
    return 0;
}

static void destroy(void *state)
{
    gs_free(state);
}

/* The kubelet plugin publishes node `ni`'s ResourceSlice when its DaemonSet runs there. */
static void try_publish(struct gs_cluster *c, int ni)
{
    const struct gs_dra_spec *spec = c->sc->dra;
    const struct gs_node *n = &c->w->nodes[ni];
    if (!spec->driver || !n->exists || n->gpu_count <= 0 || !n->gpu_product || gs_cluster_slice_published(c, ni))
        return;
    if (gs_dra_plugin_schedules(spec, &n->labels, n->taints, n->ntaints))
        gs_cluster_publish_slice(c, ni);
}

static void on_watch(void *state, struct gs_cluster *c, const struct gs_watch_event *ev)
{
    (void)state;
    switch (ev->type) {
    case GS_W_NODE_ADDED:
    case GS_W_NODE_LABELED:
        try_publish(c, ev->node);
        break;
    case GS_W_POD_CREATED:
        gs_cluster_create_claims(c, ev->pod);
        break;
    case GS_W_POD_STOPPING:
        gs_cluster_release_claims(c, ev->pod, ev->node);
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------------ object checks */

static bool str_match(const char *want, const char *have)
{
    return !want || (have && strcmp(want, have) == 0);
}

/* The status subset of an expect: against claim `cl`; false with `why` when it does not match. */
static bool claim_status(const struct gs_cluster *c, const struct gs_resource_claim *cl,
                         const struct gs_dra_expect_status *x, char *why, size_t n)
{
    if (x->has_allocation && x->allocation_null) {
        if (cl->allocated) {
            snprintf(why, n, "allocated on %s", cl->allocation.node_name ? cl->allocation.node_name : "?");
            return false;
        }
    } else if (x->has_allocation) {
        if (!cl->allocated) {
            snprintf(why, n, "not allocated");
            return false;
        }
        if (x->has_results) {
            bool ok = x->nresults == cl->allocation.nresults;
            for (int i = 0; ok && i < x->nresults; i++) {
                const struct gs_dra_expect_result *e = &x->results[i];
                const struct gs_dra_device_result *h = &cl->allocation.results[i];
                ok = str_match(e->request, h->request) && str_match(e->driver, h->driver) &&
                     str_match(e->pool, h->pool) && str_match(e->device, h->device);
            }
            if (!ok) {
                size_t used = (size_t)snprintf(why, n, "allocation results are [");
                for (int i = 0; i < cl->allocation.nresults && used < n; i++) {
                    const struct gs_dra_device_result *h = &cl->allocation.results[i];
                    used += (size_t)snprintf(why + used, n - used, "%s{request: %s, driver: %s, pool: %s, device: %s}",
                                             i ? ", " : "", h->request, h->driver, h->pool, h->device);
                }
                if (used < n)
                    snprintf(why + used, n - used, "]");
                return false;
            }
        }
    }
    if (x->has_reserved) {
        bool ok = x->nreserved == cl->nreserved;
        for (int i = 0; ok && i < x->nreserved; i++)
            ok = str_match(x->reserved[i].resource, "pods") &&
                 str_match(x->reserved[i].name, c->w->pods[cl->reserved_for[i]].name);
        if (!ok) {
            size_t used = (size_t)snprintf(why, n, "reservedFor is [");
            for (int i = 0; i < cl->nreserved && used < n; i++)
                used += (size_t)snprintf(why + used, n - used, "%s%s", i ? ", " : "", c->w->pods[cl->reserved_for[i]].name);
            if (used < n)
                snprintf(why + used, n - used, "]");
            return false;
        }
    }
    return true;
}

static bool object(void *state, const struct gs_cluster *c, const struct gs_expect *e, struct gs_object_view *v)
{
    (void)state;
    const char *kind = e->obj_kind;
    if (strcmp(kind, "ResourceClaim") != 0 && strcmp(kind, "ResourceSlice") != 0 && strcmp(kind, "DeviceClass") != 0 &&
        strcmp(kind, "ResourceClaimTemplate") != 0)
        return false;
    const struct gs_dra_spec *spec = c->sc->dra;
    const char *ns = e->obj_namespace ? e->obj_namespace : "default";
    if (strcmp(kind, "DeviceClass") == 0) {
        v->exists = gs_dra_spec_class(spec, e->name) != NULL;
        return true;
    }
    if (strcmp(kind, "ResourceClaimTemplate") == 0) {
        v->exists = gs_dra_spec_template(spec, ns, e->name) != NULL;
        return true;
    }
    const struct gs_dra_state *st = c->dra;
    if (!st) {
        if (e->dra_status) {
            snprintf(v->why, sizeof v->why, "no ResourceClaim named %s", e->name);
            v->status_failed = true;
        }
        return true;
    }
    if (strcmp(kind, "ResourceSlice") == 0) {
        for (int i = 0; i < st->nodes_cap; i++)
            if (st->nodes[i].published && i < c->w->nnodes && c->w->nodes[i].exists &&
                strcmp(st->nodes[i].slice.name, e->name) == 0)
                v->exists = true;
        return true;
    }
    int ci = gs_dra_state_find_claim(st, ns, e->name);
    v->exists = ci >= 0;
    if (!e->dra_status)
        return true;
    if (ci < 0) {
        snprintf(v->why, sizeof v->why, "no ResourceClaim named %s/%s", ns, e->name);
        v->status_failed = true;
        return true;
    }
    v->status_failed = !claim_status(c, &st->claims[ci].c, e->dra_status, v->why, sizeof v->why);
    return true;
}

const struct gs_controller gs_ctl_dra = {
    .name = "dra",
    .setup = setup,
    .free = destroy,
    .on_watch = on_watch,
    .watches = GS_WATCH_BIT(GS_W_NODE_ADDED) | GS_WATCH_BIT(GS_W_NODE_LABELED) |
               GS_WATCH_BIT(GS_W_POD_CREATED) | GS_WATCH_BIT(GS_W_POD_STOPPING),
    .object = object,
};
