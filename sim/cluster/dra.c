/* The cluster layer's DRA objects (sim/cluster.h): ResourceSlices, ResourceClaims (allocation,
 * reservedFor) and the GPU ledger between the device plugin and DRA, kept in c->dra
 * (models/dra/dra_state.h). The DRA driver's kubelet plugin and the resourceclaim controller
 * that decide when these change are in sim/controllers/dra.c.
 *
 * Rules gpusim chooses (SCENARIO.md leaves them open):
 * - Reserve and PreBind happen at bind: the allocation is computed again on the chosen node
 *   (deterministic, so the cycle's), written to status.allocation, and the pod joins
 *   status.reservedFor. There is no in-flight state between the two, since gpusim binds at once.
 * - The dra.h ledger: a GPU DRA holds counts as requested nvidia.com/gpu on its node (added to
 *   the node's `requested`, so NodeResourcesFit and the gpusAllocated metric see it), and the
 *   GPUs the device plugin hands out (lowest free first, at bind) are taken from DRA's view.
 *   Pods bound through spec.nodeName bypass the ledger.
 * - The devices a pod gets through its claims are written at bind, after Scheduled, one
 *   pod_event DeviceAllocated per allocation result of each claim reserved for it (a shared
 *   claim's devices once per pod): what the kubelet plugin prepares for it.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/dra/dra_state.h"
#include "sim/cluster/internal.h"

static int grow_pods(struct gs_dra_state *st, int need)
{
    int old = st->pods_cap, cap_m = old, cap_n = old;
    if (need <= old)
        return 0;
    if (GS_GROW(st->pod_dp, cap_m, need))
        return GS_ENOMEM;
    if (GS_GROW(st->pod_dp_node, cap_n, need))
        return GS_ENOMEM;
    int cap = cap_m < cap_n ? cap_m : cap_n;
    for (int i = old; i < cap; i++) {
        st->pod_dp[i] = 0;
        st->pod_dp_node[i] = -1;
    }
    st->pods_cap = cap;
    return 0;
}

/* The device plugin gives pod `pi` its whole GPUs on node `ni` (lowest free first). */
static void dp_take(struct gs_cluster *c, int pi, int ni)
{
    struct gs_dra_state *st = c->dra;
    const struct gs_pod *p = &c->w->pods[pi];
    int64_t want = c->gpu_res >= 0 ? p->tmpl->requests.v[c->gpu_res] : 0;
    struct gs_dra_node_state *ns = ni < st->nodes_cap ? &st->nodes[ni] : NULL;
    if (want <= 0 || want > GS_DRA_MAX_GPUS || !ns || !ns->published)
        return;
    if (grow_pods(st, pi + 1)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    int idx[GS_DRA_MAX_GPUS];
    if (gs_gpu_ledger_dp_take(&ns->ledger, (int)want, idx))
        return; /* time-sliced or shared GPUs: more pods than GPUs, no one-to-one owner */
    uint64_t mask = 0;
    for (int i = 0; i < want; i++)
        mask |= UINT64_C(1) << idx[i];
    st->pod_dp[pi] = mask;
    st->pod_dp_node[pi] = ni;
}

static void dp_release(struct gs_cluster *c, int pi)
{
    struct gs_dra_state *st = c->dra;
    if (pi >= st->pods_cap || st->pod_dp_node[pi] < 0)
        return;
    int ni = st->pod_dp_node[pi];
    int idx[GS_DRA_MAX_GPUS], n = 0;
    for (int i = 0; i < GS_DRA_MAX_GPUS; i++)
        if (st->pod_dp[pi] >> i & 1)
            idx[n++] = i;
    if (ni < st->nodes_cap)
        gs_gpu_ledger_dp_release(&st->nodes[ni].ledger, idx, n);
    st->pod_dp[pi] = 0;
    st->pod_dp_node[pi] = -1;
}

/* Keep the node's requested nvidia.com/gpu in step with the GPUs DRA holds. */
static void sync_requested(struct gs_cluster *c, int ni)
{
    struct gs_dra_state *st = c->dra;
    if (ni < 0 || ni >= st->nodes_cap || c->gpu_res < 0)
        return;
    struct gs_dra_node_state *ns = &st->nodes[ni];
    int64_t held = ns->published ? gs_gpu_ledger_dra_held(&ns->ledger) : 0;
    if (held == ns->gpu_req_added)
        return;
    c->w->nodes[ni].requested.v[c->gpu_res] += held - ns->gpu_req_added;
    ns->gpu_req_added = held;
    gs_node_touch(c->w, ni);
}

bool gs_cluster_slice_published(const struct gs_cluster *c, int ni)
{
    return c->dra && ni < c->dra->nodes_cap && c->dra->nodes[ni].published;
}

void gs_cluster_publish_slice(struct gs_cluster *c, int ni)
{
    struct gs_dra_state *st = c->dra;
    if (!st)
        return;
    const struct gs_dra_spec *spec = c->sc->dra;
    const struct gs_node *n = &c->w->nodes[ni];
    if (!spec->driver || !n->exists || n->gpu_count <= 0 || !n->gpu_product || gs_cluster_slice_published(c, ni))
        return;
    const struct gs_gpu_product *prod = gs_catalog_product(&c->sc->catalog, n->gpu_product);
    struct gs_dra_node_state *ns = gs_dra_state_node(st, ni);
    if (!prod || !ns) {
        gs_cluster_fail(c, ns ? GS_EINTERNAL : GS_ENOMEM);
        return;
    }
    const struct gs_pool *pl = &c->w->pools[n->pool];
    struct gs_dra_slice_opts opts = {
        .driver_version = pl->host_driver_version ? pl->host_driver_version
                          : c->sc->op.enabled && c->sc->op.driver_enabled ? c->sc->op.driver_version
                                                                         : NULL,
        .publish_index = spec->publish_index,
    };
    struct gs_error e = {0};
    int rc = gs_dra_slice_build(&c->w->arena, n->name, prod, n->gpu_count, NULL, &opts, &ns->slice, &e);
    if (rc == GS_EINVAL) {
        /* A driver version the plugin cannot publish: use the default rather than fail the run. */
        opts.driver_version = NULL;
        rc = gs_dra_slice_build(&c->w->arena, n->name, prod, n->gpu_count, NULL, &opts, &ns->slice, &e);
    }
    if (rc || ns->slice.ndevices > GS_DRA_NODE_DEVICES_MAX) {
        gs_cluster_fail(c, rc == GS_ENOMEM ? GS_ENOMEM : GS_EINTERNAL);
        return;
    }
    gs_free(ns->in_use);
    ns->in_use = gs_calloc((size_t)(ns->slice.ndevices ? ns->slice.ndevices : 1), sizeof *ns->in_use);
    if (!ns->in_use || gs_gpu_ledger_init(&ns->ledger, n->gpu_count)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return;
    }
    ns->published = true;
    ns->gpu_req_added = 0;
    /* GPUs the device plugin already gave out on the node. */
    for (int q = n->first_pod; q >= 0; q = c->w->pods[q].next_on_node)
        dp_take(c, q, ni);
    char count[32];
    snprintf(count, sizeof count, "%d", ns->slice.ndevices);
    gs_cluster_node_event(c, ni, "ResourceSlice", ns->slice.name, count);
    gs_cluster_notify(c, GS_CE_RESOURCE_CHANGE);
}

void gs_cluster_create_claims(struct gs_cluster *c, int pi)
{
    if (!c->dra || !c->w->pods[pi].tmpl->claims)
        return;
    int rc = gs_dra_state_create_pod_claims(c->dra, &c->w->arena, c->w, pi);
    if (rc < 0)
        gs_cluster_fail(c, rc);
    else if (rc > 0)
        gs_cluster_notify(c, GS_CE_RESOURCE_CHANGE);
}

void gs_cluster_bind_claims(struct gs_cluster *c, int pi, int ni)
{
    if (!c->dra || !c->w->pods[pi].tmpl->claims)
        return;
    int rc = gs_dra_state_bind(c->dra, c->w, pi, ni);
    if (rc == GS_ENOMEM) {
        gs_cluster_fail(c, rc);
    } else if (rc < 0) {
        /* The cycle's Filter said the claims fit: a mismatch is gpusim's bug. */
        char msg[256];
        snprintf(msg, sizeof msg, "DRA: claims of pod %s no longer fit node %s at bind", c->w->pods[pi].name,
                 c->w->nodes[ni].name);
        gs_cluster_pod_event(c, pi, "Warning", msg);
    }
}

void gs_cluster_dra_bound(struct gs_cluster *c, int pi, int ni)
{
    if (!c->dra)
        return;
    dp_take(c, pi, ni);
    sync_requested(c, ni);
}

void gs_cluster_release_claims(struct gs_cluster *c, int pi, int ni)
{
    if (!c->dra)
        return;
    dp_release(c, pi);
    if (c->w->pods[pi].tmpl->claims && gs_dra_state_release(c->dra, c->w, pi) > 0) {
        for (int n = 0; n < c->w->nnodes && n < c->dra->nodes_cap; n++)
            if (c->dra->nodes[n].published)
                sync_requested(c, n);
        gs_cluster_notify(c, GS_CE_RESOURCE_CHANGE);
    } else if (ni >= 0) {
        sync_requested(c, ni);
    }
}

/* The kubelet plugin prepares each device of the pod's claims (NodePrepareResources): written
 * per device in claim order (spec.objects claims, then generated ones), results in order. */
void gs_cluster_dra_trace_devices(struct gs_cluster *c, int pi)
{
    const struct gs_pod *p = &c->w->pods[pi];
    if (!c->dra || !p->tmpl->claims || p->node < 0)
        return;
    const struct gs_dra_state *st = c->dra;
    const struct gs_resource_slice *sl =
        p->node < st->nodes_cap && st->nodes[p->node].published ? &st->nodes[p->node].slice : NULL;
    for (int ci = 0; ci < st->nclaims; ci++) {
        const struct gs_resource_claim *cl = &st->claims[ci].c;
        if (!st->claims[ci].exists || !cl->allocated || !gs_dra_claim_reserved_for(cl, pi))
            continue;
        for (int k = 0; k < cl->allocation.nresults; k++) {
            const struct gs_dra_device_result *d = &cl->allocation.results[k];
            int gpu = -1;
            for (int i = 0; sl && d->device && i < sl->ndevices && gpu < 0; i++)
                if (sl->devices[i].name && strcmp(sl->devices[i].name, d->device) == 0)
                    gpu = sl->devices[i].gpu;
            char msg[512];
            snprintf(msg, sizeof msg, "%s claim=%s request=%s device=%s gpu=%d",
                     cl->allocation.node_name ? cl->allocation.node_name : c->w->nodes[p->node].name, cl->name,
                     d->request ? d->request : "", d->device ? d->device : "", gpu);
            gs_cluster_pod_event(c, pi, "DeviceAllocated", msg);
        }
    }
}
