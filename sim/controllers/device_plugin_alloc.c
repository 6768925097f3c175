/* The devices the device plugin hands pods at bind (sim/controllers/device_plugin.h), and what a
 * pod holds when mig-manager asks.
 *
 * Rules this file chooses (reference ../shared/reference/gpu-operator.md §3 leaves them open):
 * - GPU shares: a pod asks for a share with the annotation alibabacloud.com/gpu-milli (1..999,
 *   one GPU); nvidia.com/gpu: N takes N fully free GPUs, lowest index first; a share the best
 *   fitting GPU (gpushare.h), or the one FGDScore chose when that score plugin is enabled (the
 *   scheduler passes it with the bind). Only on nodes without time-slicing, MPS or MIG devices.
 *   On a node where the DRA ledger gives GPUs to claims, those GPUs are not offered (dra.h
 *   DECISION).
 * - Devices at bind (the kubelet's device manager asks the plugin's GetPreferredAllocation,
 *   k8s-device-plugin internal/rm: alignedAlloc for whole GPUs without replicas, else
 *   distributedAlloc), on nodes that do not take shares: each nvidia.com/ resource of the pod gets
 *   its devices among those the plugin advertises under that name (dev_slots: healthy GPUs by
 *   index, MIG devices by GPU then placement start from gs_mig_layout_check; the sharing config's
 *   selected devices under the replicated name). One device at a time: the one with the fewest
 *   replicas in use, ties to the lowest index, and on it the lowest free replica (the plugin's IDs
 *   <uuid>::<n>); for devices without replicas that is the lowest free index (gpusim has no NVLink
 *   topology for the aligned policy; the same rule as whole GPUs on share nodes and the DRA
 *   ledger). Not modelled: sharedDevicesAllocationPolicy packed/spread. Devices other pods hold,
 *   whole GPUs and shares kept from before a MIG change, and GPUs the DRA ledger gives to claims
 *   are not free. A pod the Allocate check will refuse gets none. Each device is a pod_event
 *   DeviceAllocated "<node> <resource> gpu=<i>[ mig=<profile> start=<s>][ replica=<k>/<replicas>]";
 *   too few free devices: DeviceAllocationFailed. The pod holds them until it ends
 *   (pod.finished_us says when; no release row).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/devices/gpushare_pod.h"
#include "sim/controllers/device_plugin.h"

/* ---- GPUs in use when mig-parted applies the change */

/* True when pod `pi` holds some of the resource named `name` (a request > 0). */
static bool pod_requests_name(const struct gs_cluster *c, int pi, const char *name)
{
    int ri = gs_res_find(&c->w->res, name);
    return ri >= 0 && c->w->pods[pi].tmpl->requests.v[ri] > 0;
}

/* A pod on node `ni` that holds GPU `g` (in its current layout), or -1. A pod counts while it is
 * bound and has not ended (Pending before its start, Running, terminating); one waiting at
 * Permit holds nothing yet. Exact where the pod's devices are recorded: whole GPUs and shares
 * (node->gpus, pod_alloc.a) and the devices given at bind (pod_alloc.devs: whole GPUs, MIG
 * devices, replicas). A pod with no record (none taken, or none recorded) on a node that does
 * not take shares falls back to its resource names: every GPU whose devices are advertised
 * under a resource the pod holds counts:
 * nvidia.com/gpu for a GPU with MIG off (or any GPU under the none strategy, and the MIG
 * devices under single), nvidia.com/mig-<profile> for each profile of its layout under mixed,
 * and the replicated or renamed name of each under time-slicing or MPS. */
int gs_dev_gpu_holder(const struct devices *d, const struct gs_cluster *c, int ni, const struct dev_node *dn, int g)
{
    const struct gs_node *n = &c->w->nodes[ni];
    bool tracked = g < n->gpus.ngpu;
    const struct gs_dp_config *cfg = dn->dp ? dn->dp : &d->default_cfg;
    const struct gs_mig_layout *l = &dn->mig[g];
    char base[GS_MIG_MAX_PROFILES + 1][64];
    const char *names[2 * (GS_MIG_MAX_PROFILES + 1)]; /* into base, or the config's renames */
    int nn = 0;
    if (!tracked) {
        int nb = 0;
        if (!l->enabled || cfg->mig_strategy != GS_MIG_MIXED || !l->gpu)
            snprintf(base[nb++], sizeof base[0], "nvidia.com/gpu");
        else
            for (int p = 0; p < l->gpu->nprofiles && nb < GS_MIG_MAX_PROFILES + 1; p++)
                if (l->count[p] > 0)
                    gs_mig_resource_name(l->gpu->profiles[p].name, base[nb++], sizeof base[0]);
        for (int i = 0; i < nb; i++) {
            const char *to = base[i];
            names[nn++] = base[i];
            if (gs_dp_share(cfg, base[i], NULL, &to) && strcmp(to, base[i]) != 0)
                names[nn++] = to;
        }
    }
    for (int q = n->first_pod; q >= 0; q = c->w->pods[q].next_on_node) {
        const struct gs_pod *p = &c->w->pods[q];
        if (p->permit_waiting || (p->phase != GS_PHASE_PENDING && p->phase != GS_PHASE_RUNNING))
            continue;
        const struct pod_alloc *s = gs_intmap_get(&d->pods, q);
        bool recorded = false;
        for (int i = 0; s && s->held && s->node == ni && i < s->a.n; i++) {
            recorded = true;
            if (s->a.gpu[i] == g)
                return q;
        }
        for (int h = 0; s && s->dev_node == ni && h < s->ndevs; h++) {
            recorded = true;
            if (s->devs[h].gpu == g)
                return q;
        }
        if (recorded || tracked)
            continue;
        for (int i = 0; i < nn; i++)
            if (pod_requests_name(c, q, names[i]))
                return q;
    }
    return -1;
}

/* Pod `pi`'s record, added (zeroed: nothing held) when it has none; NULL when out of memory
 * (the run fails). The address is valid until the next record is added or dropped. */
static struct pod_alloc *pod_slot(struct devices *d, struct gs_cluster *c, int pi)
{
    void *a;
    int rc = gs_intmap_put(&d->pods, pi, &a, NULL);
    if (rc) {
        gs_cluster_fail(c, rc);
        return NULL;
    }
    return a;
}

/* Drop pod `pi`'s record (and its device list) when it holds nothing: such a record reads as
 * none everywhere, so only the pods holding GPUs or devices keep one. */
static void pod_drop_if_empty(struct devices *d, int pi)
{
    struct pod_alloc *a = gs_intmap_get(&d->pods, pi);
    if (!a || a->held || a->ndevs > 0)
        return;
    gs_free(a->devs);
    gs_intmap_del(&d->pods, pi);
}

/* ------------------------------------------------------------------ devices handed to pods */

/* One device the plugin advertises on a node (dev_slots), and how much of it is held. */
struct dev_slot {
    int ri;          /* the resource it is advertised under (w->res), -1: a name no pod asks for */
    int gpu, profile, start;
    int replicas;    /* 1: not replicated */
    int used;        /* replicas held (a device held whole counts all) */
    uint64_t ids;    /* bit k: replica k held (replicas beyond 64 are counted, not named) */
};

#define DEV_MAX_SLOTS (GS_MIG_MAX_GPUS * GS_MIG_MAX_SLICES)

static int cmp_placement(const void *a, const void *b)
{
    const struct gs_mig_placement *x = a, *y = b;
    return x->start != y->start ? x->start - y->start : x->profile - y->profile;
}

/* Does sharing entry `e` select the j-th device (index order) of its resource? As
 * models/dpconfig.c counts them: all, the first `count`, or the listed indices. */
static bool dev_selected(const struct gs_dp_resource *e, int j)
{
    if (e->devices == GS_DP_DEVICES_COUNT)
        return j < e->count;
    if (e->devices != GS_DP_DEVICES_LIST)
        return true;
    for (int i = 0; i < e->nlist; i++) {
        const char *s = e->list[i];
        char *end;
        long v = strtol(s, &end, 10);
        if (*s && *end == '\0' && v == j)
            return true;
    }
    return false;
}

/* The devices the plugin advertises on node `ni` under its config and the current MIG layouts,
 * Unhealthy GPUs left out (as device_plugin.c advertise does), in the plugin's device order: GPU
 * index, then MIG placement start. Each device is under its base name (nvidia.com/gpu, or
 * nvidia.com/mig-<profile> under mixed) unless the sharing config selects it, then under the
 * replicated name with its replicas. None when the plugin would not start. */
static int dev_slots(struct gs_cluster *c, const struct dev_node *dn, struct dev_slot *out, int max)
{
    const struct gs_dp_config *cfg = dn->dp;
    if (!cfg || dn->ngpus <= 0)
        return 0;
    struct gs_mig_layout tmp[GS_MIG_MAX_GPUS];
    int idx[GS_MIG_MAX_GPUS], k = 0;
    for (int g = 0; g < dn->ngpus; g++)
        if (g >= 64 || !((dn->unhealthy >> g) & 1u)) {
            tmp[k] = dn->mig[g];
            idx[k++] = g;
        }
    struct gs_dp_alloc list[DEV_MAX_RES];
    int nlist = 0;
    if (k == 0 || gs_dp_allocatable(cfg, tmp, k, list, DEV_MAX_RES, &nlist, NULL, 0) != 0)
        return 0;
    char bases[GS_MIG_MAX_PROFILES + 1][64];
    int seen[GS_MIG_MAX_PROFILES + 1], nb = 0, n = 0;
    for (int i = 0; i < k; i++) {
        const struct gs_mig_layout *l = &tmp[i];
        bool mig = cfg->mig_strategy != GS_MIG_NONE && l->enabled && l->gpu;
        struct gs_mig_placement pl[GS_MIG_MAX_SLICES];
        int np = 1;
        if (mig) {
            if (gs_mig_layout_check(l, pl, &np, NULL, 0) != 0)
                np = 0;
            qsort(pl, (size_t)np, sizeof pl[0], cmp_placement);
        }
        for (int d = 0; d < np && n < max; d++) {
            char base[64];
            if (!mig || cfg->mig_strategy == GS_MIG_SINGLE)
                strcpy(base, "nvidia.com/gpu");
            else
                gs_mig_resource_name(l->gpu->profiles[pl[d].profile].name, base, sizeof base);
            int b = 0;
            while (b < nb && strcmp(bases[b], base) != 0)
                b++;
            if (b == nb) {
                if (nb == GS_MIG_MAX_PROFILES + 1)
                    continue;
                strcpy(bases[nb], base);
                seen[nb++] = 0;
            }
            int j = seen[b]++, replicas = 1;
            const char *to = base;
            const struct gs_dp_resource *e = gs_dp_share(cfg, base, &replicas, &to);
            if (!e || !dev_selected(e, j)) {
                replicas = 1;
                to = base;
            }
            out[n++] = (struct dev_slot){.ri = gs_res_find(&c->w->res, to), .gpu = idx[i],
                                         .profile = mig ? pl[d].profile : -1, .start = mig ? pl[d].start : 0,
                                         .replicas = replicas < 1 ? 1 : replicas};
        }
    }
    return n;
}

static void slot_take(struct dev_slot *s, int replica)
{
    if (replica < 0) {
        s->used = s->replicas;
        s->ids = ~UINT64_C(0);
        return;
    }
    if (s->used < s->replicas)
        s->used++;
    if (replica < 64)
        s->ids |= UINT64_C(1) << replica;
}

/* What other pods on node `ni` hold: their devices, whole GPUs and shares kept in node->gpus
 * from before the node stopped taking shares, and GPUs the DRA ledger gives to claims. */
static void dev_mark_used(const struct devices *d, struct gs_cluster *c, int ni, int self, struct dev_slot *s, int n)
{
    uint64_t dra = gs_cluster_dra_gpus(c, ni);
    for (int i = 0; i < n; i++)
        if (s[i].profile < 0 && s[i].gpu < 64 && ((dra >> s[i].gpu) & 1u))
            slot_take(&s[i], -1);
    for (int q = c->w->nodes[ni].first_pod; q >= 0; q = c->w->pods[q].next_on_node) {
        const struct pod_alloc *a = q == self ? NULL : gs_intmap_get(&d->pods, q);
        if (!a)
            continue;
        for (int h = 0; a->dev_node == ni && h < a->ndevs; h++) {
            const struct dev_hold *x = &a->devs[h];
            for (int i = 0; i < n; i++)
                if (s[i].gpu == x->gpu && s[i].profile == x->profile && (x->profile < 0 || s[i].start == x->start))
                    slot_take(&s[i], s[i].replicas > 1 ? x->replica : -1);
        }
        for (int h = 0; a->held && a->node == ni && h < a->a.n; h++)
            for (int i = 0; i < n; i++)
                if (s[i].profile < 0 && s[i].gpu == a->a.gpu[h])
                    slot_take(&s[i], -1);
    }
}

/* Would the plugin refuse the pod at Allocate (device_plugin.c admit_pod's check)? It then gets no
 * device: the kubelet fails it when it starts. */
static bool dev_refused(const struct gs_cluster *c, const struct dev_node *dn, int pi)
{
    const struct gs_pod_template *t = c->w->pods[pi].tmpl;
    for (int ri = GS_RES_FIXED; ri < c->w->res.n; ri++) {
        int64_t req = t->container_max.v[ri] ? t->container_max.v[ri] : t->requests.v[ri];
        if (req > 1 && strncmp(c->w->res.names[ri], "nvidia.com/", 11) == 0 &&
            gs_dp_allocate_check(dn->dp, c->w->res.names[ri], req, false, NULL, 0) != 0)
            return true;
    }
    return false;
}

/* The kubelet's device manager asks the plugin for its preferred devices of each nvidia.com/
 * resource of pod `pi` (GetPreferredAllocation) and allocates them; see the rules at the top. */
static void dev_allocate(struct devices *d, struct gs_cluster *c, int pi, const struct dev_node *dn)
{
    const struct gs_pod *p = &c->w->pods[pi];
    int ni = p->node;
    const struct gs_pod_template *t = p->tmpl;
    bool any = false;
    for (int ri = GS_RES_FIXED; ri < c->w->res.n && !any; ri++)
        any = t->requests.v[ri] > 0 && strncmp(c->w->res.names[ri], "nvidia.com/", 11) == 0;
    if (!any || !dn || !dn->init || !dn->dp || dev_refused(c, dn, pi))
        return;
    struct pod_alloc *a = pod_slot(d, c, pi);
    if (!a)
        return;
    a->ndevs = 0;
    struct dev_slot s[DEV_MAX_SLOTS];
    int n = dev_slots(c, dn, s, DEV_MAX_SLOTS);
    dev_mark_used(d, c, ni, pi, s, n);
    const char *node = c->w->nodes[ni].name;
    for (int ri = GS_RES_FIXED; ri < c->w->res.n; ri++) {
        int64_t want = t->requests.v[ri];
        const char *name = c->w->res.names[ri];
        if (want <= 0 || strncmp(name, "nvidia.com/", 11) != 0)
            continue;
        int first = a->ndevs;
        char msg[256];
        for (int64_t k = 0; k < want; k++) {
            /* distributedAlloc: the device with the fewest replicas in use, lowest index first. */
            int best = -1;
            for (int i = 0; i < n; i++)
                if (s[i].ri == ri && s[i].used < s[i].replicas && (best < 0 || s[i].used < s[best].used))
                    best = i;
            if (best < 0) {
                int avail = 0;
                for (int i = 0; i < n; i++)
                    if (s[i].ri == ri)
                        avail += s[i].replicas - s[i].used;
                snprintf(msg, sizeof msg, "%s %s: %lld requested, %d free", node, name, (long long)want,
                         avail + (a->ndevs - first));
                gs_cluster_pod_event(c, pi, "DeviceAllocationFailed", msg);
                a->ndevs = first;
                break;
            }
            int replica = -1;
            if (s[best].replicas > 1) {
                replica = s[best].used;
                for (int id = 0; id < s[best].replicas && id < 64; id++)
                    if (!((s[best].ids >> id) & 1u)) {
                        replica = id;
                        break;
                    }
            }
            slot_take(&s[best], replica);
            if (gs_array_grow((void **)&a->devs, &a->devcap, a->ndevs + 1, sizeof *a->devs)) {
                gs_cluster_fail(c, GS_ENOMEM);
                return;
            }
            a->devs[a->ndevs++] = (struct dev_hold){.ri = ri, .gpu = s[best].gpu, .profile = s[best].profile,
                                                    .start = s[best].start, .replica = replica,
                                                    .replicas = s[best].replicas};
        }
        for (int h = first; h < a->ndevs; h++) {
            const struct dev_hold *x = &a->devs[h];
            size_t len = (size_t)snprintf(msg, sizeof msg, "%s %s gpu=%d", node, name, x->gpu);
            if (x->profile >= 0 && dn->mig[x->gpu].gpu && len < sizeof msg)
                len += (size_t)snprintf(msg + len, sizeof msg - len, " mig=%s start=%d",
                                        dn->mig[x->gpu].gpu->profiles[x->profile].name, x->start);
            if (x->replica >= 0 && len < sizeof msg)
                snprintf(msg + len, sizeof msg - len, " replica=%d/%d", x->replica, x->replicas);
            gs_cluster_pod_event(c, pi, "DeviceAllocated", msg);
        }
    }
    a->dev_node = ni;
    pod_drop_if_empty(d, pi); /* none taken */
}

/* Choose on `view` (the node's GPUs without those DRA holds), take from node `ni`'s. */
static int share_take(struct gs_cluster *c, int ni, const struct gs_gpushare *view, const struct gs_gpushare_req *req,
                      int gpu, struct gs_gpushare_alloc *out)
{
    int rc = gs_gpushare_choose(view, req, gpu, out);
    return rc ? rc : gs_cluster_take_share(c, ni, out);
}

void gs_dev_pod_bound(struct devices *d, struct gs_cluster *c, int pi, int share_gpu)
{
    const struct gs_pod *p = &c->w->pods[pi];
    struct gs_gpushare_req req;
    if (p->node < 0)
        return;
    struct dev_node *dn = gs_dev_node(d, p->node);
    if (!gs_dev_share_node(dn)) {
        dev_allocate(d, c, pi, dn); /* replicas, MIG devices, whole GPUs beside MIG ones */
        return;
    }
    if (!gs_gpushare_pod_req(c->w, p->tmpl, &req, NULL))
        return;
    struct pod_alloc *s = pod_slot(d, c, pi);
    if (!s)
        return;
    p = &c->w->pods[pi];
    const struct gs_node *n = &c->w->nodes[p->node];
    char msg[160];
    /* GPUs the DRA ledger gave to claims are not the device plugin's to hand out. */
    struct gs_gpushare view = n->gpus;
    uint64_t dra = gs_cluster_dra_gpus(c, p->node);
    for (int g = 0; g < view.ngpu && g < 64; g++)
        if ((dra >> g) & 1u)
            view.free_milli[g] = 0;
    /* FGDScore picks a share's GPU itself (fgd_score.go); else -1: the best-fitting GPU. */
    int gpu = share_gpu;
    if (share_take(c, p->node, &view, &req, gpu, &s->a) != 0 &&
        (gpu < 0 || share_take(c, p->node, &view, &req, -1, &s->a) != 0)) {
        /* The scheduler's count said yes but no GPU holds the request (a share not filtered). */
        snprintf(msg, sizeof msg, "%s: no GPU with %d free milli-GPU (x%d)", n->name, req.gpu_milli, req.num_gpu);
        gs_cluster_pod_event(c, pi, "GpuAllocationFailed", msg);
        pod_drop_if_empty(d, pi);
        return;
    }
    s->held = true;
    s->node = p->node;
    size_t len = (size_t)snprintf(msg, sizeof msg, "%s gpu=", n->name);
    for (int i = 0; i < s->a.n && len < sizeof msg - 16; i++)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%d", i ? "," : "", s->a.gpu[i]);
    snprintf(msg + len, sizeof msg - len, " milli=%d", s->a.milli);
    gs_cluster_pod_event(c, pi, "GpuAllocated", msg);
}

void gs_dev_pod_released(struct devices *d, struct gs_cluster *c, int pi)
{
    struct pod_alloc *s = gs_intmap_get(&d->pods, pi);
    if (!s)
        return;
    /* Its devices go back with the record (the trace says so by the pod's end); a share or
     * whole GPUs go back to the node. */
    if (s->held && s->node < c->w->nnodes)
        gs_cluster_give_share(c, s->node, &s->a);
    gs_free(s->devs);
    gs_intmap_del(&d->pods, pi);
}
