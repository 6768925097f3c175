/* DRA wired to a run (run_state.h gs_dra_run_*): the NVIDIA DRA driver's kubelet plugin
 * publishing a ResourceSlice per GPU node, the resourceclaim controller (claims from
 * templates, deletion and deallocation when pods end), the DynamicResources plugin's Reserve
 * and PreBind at bind time, the GPU ledger between the device plugin and DRA, and the
 * `object:` checks of kind ResourceClaim, ResourceSlice and DeviceClass.
 *
 * Rules this file chooses (SCENARIO.md leaves them open):
 * - The kubelet plugin publishes `<node>-gpu.nvidia.com` as soon as its DaemonSet would run on
 *   the node (kubeletPlugin nodeSelector, the chart's default affinity unless `affinity:
 *   null`, tolerations): at join, or when the node's labels later let it in. gpusim does not
 *   wait for a driver the GPU Operator installs, and a slice stays while its node exists.
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
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "models/dra/dra_state.h"
#include "sim/run_state.h"

struct gs_dra_run {
    struct gs_dra_state st;
    uint64_t seen_changes;   /* w->node_changes when unpublished nodes were last looked at */
};

int gs_dra_run_setup(struct gs_runner *r)
{
    if (!r->sc->dra)
        return 0;
    r->dra = gs_calloc(1, sizeof *r->dra);
    if (!r->dra || gs_dra_state_init(&r->dra->st, r->sc->dra))
        return GS_ENOMEM;
    gs_dra_run_attach(r);
    return 0;
}

void gs_dra_run_attach(struct gs_runner *r)
{
    if (r->dra && r->sched)
        gs_sched_set_dra(r->sched, &r->dra->st);
}

void gs_dra_run_free(struct gs_runner *r)
{
    if (!r->dra)
        return;
    if (r->sched)
        gs_sched_set_dra(r->sched, NULL);
    gs_dra_state_free(&r->dra->st);
    gs_free(r->dra);
    r->dra = NULL;
}

static int grow_pods(struct gs_dra_state *st, int need)
{
    if (need <= st->pods_cap)
        return 0;
    int cap = st->pods_cap ? st->pods_cap : 64;
    while (cap < need)
        cap *= 2;
    uint64_t *m = gs_realloc(st->pod_dp, sizeof *m * (size_t)cap);
    if (m)
        st->pod_dp = m;
    int *n = gs_realloc(st->pod_dp_node, sizeof *n * (size_t)cap);
    if (n)
        st->pod_dp_node = n;
    if (!m || !n)
        return GS_ENOMEM;
    for (int i = st->pods_cap; i < cap; i++) {
        st->pod_dp[i] = 0;
        st->pod_dp_node[i] = -1;
    }
    st->pods_cap = cap;
    return 0;
}

/* The device plugin gives pod `pi` its whole GPUs on node `ni` (lowest free first). */
static void dp_take(struct gs_runner *r, int pi, int ni)
{
    struct gs_dra_state *st = &r->dra->st;
    const struct gs_pod *p = &r->w->pods[pi];
    int64_t want = r->gpu_res >= 0 ? p->tmpl->requests.v[r->gpu_res] : 0;
    struct gs_dra_node_state *ns = ni < st->nodes_cap ? &st->nodes[ni] : NULL;
    if (want <= 0 || want > GS_DRA_MAX_GPUS || !ns || !ns->published)
        return;
    if (grow_pods(st, pi + 1)) {
        r->err = GS_ENOMEM;
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

static void dp_release(struct gs_runner *r, int pi)
{
    struct gs_dra_state *st = &r->dra->st;
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
static void sync_requested(struct gs_runner *r, int ni)
{
    struct gs_dra_state *st = &r->dra->st;
    if (ni < 0 || ni >= st->nodes_cap || r->gpu_res < 0)
        return;
    struct gs_dra_node_state *ns = &st->nodes[ni];
    int64_t held = ns->published ? gs_gpu_ledger_dra_held(&ns->ledger) : 0;
    if (held == ns->gpu_req_added)
        return;
    r->w->nodes[ni].requested.v[r->gpu_res] += held - ns->gpu_req_added;
    ns->gpu_req_added = held;
    gs_node_touch(r->w, ni);
}

/* The kubelet plugin publishes node `ni`'s ResourceSlice when it runs there. */
static void try_publish(struct gs_runner *r, int ni)
{
    struct gs_dra_state *st = &r->dra->st;
    const struct gs_dra_spec *spec = r->sc->dra;
    const struct gs_node *n = &r->w->nodes[ni];
    if (!spec->driver || !n->exists || n->gpu_count <= 0 || !n->gpu_product)
        return;
    if (ni < st->nodes_cap && st->nodes[ni].published)
        return;
    if (!gs_dra_plugin_schedules(spec, &n->labels, n->taints, n->ntaints))
        return;
    const struct gs_gpu_product *prod = gs_catalog_product(&r->sc->catalog, n->gpu_product);
    struct gs_dra_node_state *ns = gs_dra_state_node(st, ni);
    if (!prod || !ns) {
        r->err = ns ? GS_EINTERNAL : GS_ENOMEM;
        return;
    }
    const struct gs_pool *pl = &r->w->pools[n->pool];
    struct gs_dra_slice_opts opts = {
        .driver_version = pl->host_driver_version ? pl->host_driver_version
                          : r->sc->op.enabled && r->sc->op.driver_enabled ? r->sc->op.driver_version
                                                                         : NULL,
        .publish_index = spec->publish_index,
    };
    struct gs_error e = {0};
    int rc = gs_dra_slice_build(&r->w->arena, n->name, prod, n->gpu_count, NULL, &opts, &ns->slice, &e);
    if (rc == GS_EINVAL) {
        /* A driver version the plugin cannot publish: use the default rather than fail the run. */
        opts.driver_version = NULL;
        rc = gs_dra_slice_build(&r->w->arena, n->name, prod, n->gpu_count, NULL, &opts, &ns->slice, &e);
    }
    if (rc || ns->slice.ndevices > GS_DRA_NODE_DEVICES_MAX) {
        r->err = rc == GS_ENOMEM ? GS_ENOMEM : GS_EINTERNAL;
        return;
    }
    gs_free(ns->in_use);
    ns->in_use = gs_calloc((size_t)(ns->slice.ndevices ? ns->slice.ndevices : 1), sizeof *ns->in_use);
    if (!ns->in_use || gs_gpu_ledger_init(&ns->ledger, n->gpu_count)) {
        r->err = GS_ENOMEM;
        return;
    }
    ns->published = true;
    ns->gpu_req_added = 0;
    /* GPUs the device plugin already gave out on the node. */
    for (int q = n->first_pod; q >= 0; q = r->w->pods[q].next_on_node)
        dp_take(r, q, ni);
    char count[32];
    snprintf(count, sizeof count, "%d", ns->slice.ndevices);
    gs_run_node_event(r, ni, "ResourceSlice", ns->slice.name, count);
    gs_run_cluster_event(r, GS_CE_RESOURCE_CHANGE);
}

void gs_dra_run_node_joined(struct gs_runner *r, int ni)
{
    if (r->dra)
        try_publish(r, ni);
}

void gs_dra_run_before_cycle(struct gs_runner *r)
{
    if (!r->dra || !r->sc->dra->driver || r->dra->seen_changes == r->w->node_changes)
        return;
    r->dra->seen_changes = r->w->node_changes;
    for (int ni = 0; ni < r->w->nnodes; ni++)
        if (r->w->nodes[ni].gpu_count > 0 && !(ni < r->dra->st.nodes_cap && r->dra->st.nodes[ni].published))
            try_publish(r, ni);
    r->dra->seen_changes = r->w->node_changes;
}

void gs_dra_run_pod_created(struct gs_runner *r, int pi)
{
    if (!r->dra || !r->w->pods[pi].tmpl->claims)
        return;
    int rc = gs_dra_state_create_pod_claims(&r->dra->st, &r->w->arena, r->w, pi);
    if (rc < 0)
        r->err = rc;
    else if (rc > 0)
        gs_run_cluster_event(r, GS_CE_RESOURCE_CHANGE);
}

void gs_dra_run_bind(struct gs_runner *r, int pi, int ni)
{
    if (!r->dra)
        return;
    if (r->w->pods[pi].tmpl->claims) {
        int rc = gs_dra_state_bind(&r->dra->st, r->w, pi, ni);
        if (rc < 0) {
            /* The cycle's Filter said the claims fit: a mismatch is gpusim's bug. */
            char msg[256];
            snprintf(msg, sizeof msg, "DRA: claims of pod %s no longer fit node %s at bind", r->w->pods[pi].name,
                     r->w->nodes[ni].name);
            gs_run_pod_event(r, pi, "Warning", msg);
        }
    }
    dp_take(r, pi, ni);
    sync_requested(r, ni);
}

void gs_dra_run_pod_ended(struct gs_runner *r, int pi, int ni)
{
    if (!r->dra)
        return;
    dp_release(r, pi);
    if (r->w->pods[pi].tmpl->claims && gs_dra_state_release(&r->dra->st, r->w, pi) > 0) {
        for (int n = 0; n < r->w->nnodes && n < r->dra->st.nodes_cap; n++)
            if (r->dra->st.nodes[n].published)
                sync_requested(r, n);
        gs_run_cluster_event(r, GS_CE_RESOURCE_CHANGE);
    } else if (ni >= 0) {
        sync_requested(r, ni);
    }
}

/* ------------------------------------------------------------------ devices in the trace */

uint64_t gs_dra_run_dra_gpus(const struct gs_runner *r, int ni)
{
    if (!r->dra || ni < 0 || ni >= r->dra->st.nodes_cap || !r->dra->st.nodes[ni].published)
        return 0;
    const struct gs_gpu_ledger *l = &r->dra->st.nodes[ni].ledger;
    uint64_t m = 0;
    for (int g = 0; g < l->ngpus && g < 64; g++)
        if (l->holder[g] == GS_GPU_HELD_DRA)
            m |= UINT64_C(1) << g;
    return m;
}

/* The kubelet plugin prepares each device of the pod's claims (NodePrepareResources): written
 * per device in claim order (spec.objects claims, then generated ones), results in order. */
void gs_dra_run_trace_devices(struct gs_runner *r, int pi)
{
    const struct gs_pod *p = &r->w->pods[pi];
    if (!r->dra || !p->tmpl->claims || p->node < 0)
        return;
    const struct gs_dra_state *st = &r->dra->st;
    const struct gs_resource_slice *sl =
        p->node < st->nodes_cap && st->nodes[p->node].published ? &st->nodes[p->node].slice : NULL;
    for (int ci = 0; ci < st->nclaims; ci++) {
        const struct gs_resource_claim *c = &st->claims[ci].c;
        if (!st->claims[ci].exists || !c->allocated || !gs_dra_claim_reserved_for(c, pi))
            continue;
        for (int k = 0; k < c->allocation.nresults; k++) {
            const struct gs_dra_device_result *d = &c->allocation.results[k];
            int gpu = -1;
            for (int i = 0; sl && d->device && i < sl->ndevices && gpu < 0; i++)
                if (sl->devices[i].name && strcmp(sl->devices[i].name, d->device) == 0)
                    gpu = sl->devices[i].gpu;
            char msg[512];
            snprintf(msg, sizeof msg, "%s claim=%s request=%s device=%s gpu=%d",
                     c->allocation.node_name ? c->allocation.node_name : r->w->nodes[p->node].name, c->name,
                     d->request ? d->request : "", d->device ? d->device : "", gpu);
            gs_run_pod_event(r, pi, "DeviceAllocated", msg);
        }
    }
}

/* ------------------------------------------------------------------ object checks */

bool gs_dra_run_kind(const char *kind)
{
    return strcmp(kind, "ResourceClaim") == 0 || strcmp(kind, "ResourceSlice") == 0 ||
           strcmp(kind, "DeviceClass") == 0 || strcmp(kind, "ResourceClaimTemplate") == 0;
}

static bool str_match(const char *want, const char *have)
{
    return !want || (have && strcmp(want, have) == 0);
}

/* The status subset of an expect: against claim `c`. */
static bool claim_status(const struct gs_runner *r, const struct gs_resource_claim *c,
                         const struct gs_dra_expect_status *x, char *why, size_t n)
{
    if (x->has_allocation && x->allocation_null) {
        if (c->allocated) {
            snprintf(why, n, "allocated on %s", c->allocation.node_name ? c->allocation.node_name : "?");
            return false;
        }
    } else if (x->has_allocation) {
        if (!c->allocated) {
            snprintf(why, n, "not allocated");
            return false;
        }
        if (x->has_results) {
            bool ok = x->nresults == c->allocation.nresults;
            for (int i = 0; ok && i < x->nresults; i++) {
                const struct gs_dra_expect_result *e = &x->results[i];
                const struct gs_dra_device_result *h = &c->allocation.results[i];
                ok = str_match(e->request, h->request) && str_match(e->driver, h->driver) &&
                     str_match(e->pool, h->pool) && str_match(e->device, h->device);
            }
            if (!ok) {
                size_t used = (size_t)snprintf(why, n, "allocation results are [");
                for (int i = 0; i < c->allocation.nresults && used < n; i++) {
                    const struct gs_dra_device_result *h = &c->allocation.results[i];
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
        bool ok = x->nreserved == c->nreserved;
        for (int i = 0; ok && i < x->nreserved; i++)
            ok = str_match(x->reserved[i].resource, "pods") &&
                 str_match(x->reserved[i].name, r->w->pods[c->reserved_for[i]].name);
        if (!ok) {
            size_t used = (size_t)snprintf(why, n, "reservedFor is [");
            for (int i = 0; i < c->nreserved && used < n; i++)
                used += (size_t)snprintf(why + used, n - used, "%s%s", i ? ", " : "", r->w->pods[c->reserved_for[i]].name);
            if (used < n)
                snprintf(why + used, n - used, "]");
            return false;
        }
    }
    return true;
}

bool gs_dra_run_object(const struct gs_runner *r, const struct gs_expect *e, bool *exists, char *why, size_t n)
{
    *exists = false;
    why[0] = '\0';
    const struct gs_dra_spec *spec = r->sc->dra;
    const char *ns = e->obj_namespace ? e->obj_namespace : "default";
    if (strcmp(e->obj_kind, "DeviceClass") == 0) {
        *exists = gs_dra_spec_class(spec, e->name) != NULL;
        return true;
    }
    if (strcmp(e->obj_kind, "ResourceClaimTemplate") == 0) {
        *exists = gs_dra_spec_template(spec, ns, e->name) != NULL;
        return true;
    }
    if (!r->dra)
        return !e->dra_status || (snprintf(why, n, "no ResourceClaim named %s", e->name), false);
    const struct gs_dra_state *st = &r->dra->st;
    if (strcmp(e->obj_kind, "ResourceSlice") == 0) {
        for (int i = 0; i < st->nodes_cap; i++)
            if (st->nodes[i].published && i < r->w->nnodes && r->w->nodes[i].exists &&
                strcmp(st->nodes[i].slice.name, e->name) == 0)
                *exists = true;
        return true;
    }
    int ci = gs_dra_state_find_claim(st, ns, e->name);
    *exists = ci >= 0;
    if (!e->dra_status)
        return true;
    if (ci < 0) {
        snprintf(why, n, "no ResourceClaim named %s/%s", ns, e->name);
        return false;
    }
    return claim_status(r, &st->claims[ci].c, e->dra_status, why, n);
}
