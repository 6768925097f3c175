/* A node's devices in a run (sim/devices_run.h): the device plugin's config per node, what it
 * advertises (allocatable per resource name), MIG layouts and the MIG manager, the kubelet's
 * Allocate admission check, and GPU shares at bind.
 *
 * Rules this file chooses (reference ../shared/reference/gpu-operator.md §3, §5.4 leave them open):
 * - An Unhealthy GPU (Xid) takes all its replicas and MIG devices out of allocatable.
 * - mig-manager (nvidia.com/mig.config changed, or mig-manager started): a config already in
 *   place is `success` at once; an unknown config name is `failed` at once (mig-parted's
 *   assert --valid-config, before anything is paused); otherwise the state goes `pending`, the
 *   deploy labels of the device plugin, GFD, DCGM exporter, DCGM and GPU clients that are
 *   "true" become "paused-for-mig-change" (their pods go: allocatable drops to 0), the layout is
 *   applied after migReconfigure (+ migModeChange when a GPU's MIG mode flips), the labels are
 *   restored (the plugin registers again with the new devices, GFD relabels) and the state is
 *   `success`, or `failed` with the layouts unchanged (gs_mig_apply) when a GPU cannot take the
 *   layout. User pods are not evicted (mig-manager does not drain): a GPU whose mode or
 *   layout changes while a pod holds it (whole, a share, a replica, a MIG instance of its
 *   layout) fails the change the same way (mig_gpus_idle: NVML "In use by another client").
 * - The Allocate check runs when the kubelet starts the pod (after its start latency), per
 *   container (regular and init), as the kubelet's device manager calls Allocate per container:
 *   two containers with nvidia.com/gpu: 1 each pass where one container with 2 is refused. A
 *   refused pod ends Failed with reason UnexpectedAdmissionError and is not re-created.
 * - GPU shares: a pod asks for a share with the annotation alibabacloud.com/gpu-milli (1..999,
 *   one GPU); nvidia.com/gpu: N takes N fully free GPUs, lowest index first; a share the best
 *   fitting GPU (gpushare.h), or FGDScore's choice when that score plugin is enabled
 *   (gs_sched_share_gpu). Only on nodes without time-slicing, MPS or MIG devices. On a node
 *   where the DRA ledger gives GPUs to claims, those GPUs are not offered (dra.h DECISION).
 * - Devices at bind (the kubelet's device manager asks the plugin's GetPreferredAllocation,
 *   k8s-device-plugin internal/rm: alignedAlloc for whole GPUs without replicas, else
 *   distributedAlloc), on nodes that do not take shares: each nvidia.com/ resource of the pod
 *   gets its devices among those the plugin advertises under that name (dev_slots: healthy GPUs
 *   by index, MIG devices by GPU then placement start from gs_mig_layout_check; the sharing
 *   config's selected devices under the replicated name). One device at a time: the one with
 *   the fewest replicas in use, ties to the lowest index, and on it the lowest free replica
 *   (the plugin's IDs <uuid>::<n>); for devices without replicas that is the lowest free index
 *   (gpusim has no NVLink topology for the aligned policy; the same rule as whole GPUs on
 *   share nodes and the DRA ledger). Not modelled: sharedDevicesAllocationPolicy packed/spread.
 *   Devices other pods hold, whole GPUs and shares kept from before a MIG change, and GPUs the
 *   DRA ledger gives to claims are not free. A pod the Allocate check will refuse gets none.
 *   Each device is a pod_event DeviceAllocated "<node> <resource> gpu=<i>[ mig=<profile>
 *   start=<s>][ replica=<k>/<replicas>]"; too few free devices: DeviceAllocationFailed. The
 *   pod holds them until it ends (pod.finished_us says when; no release row).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "models/dpconfig.h"
#include "base/error.h"
#include "models/devices/gpushare_pod.h"
#include "models/mig.h"
#include "sim/devices_run.h"

#define DEV_MAX_RES 24

struct dev_node {
    bool init;
    int ngpus;
    const char *product;
    struct gs_mig_layout *mig;   /* ngpus layouts (NULL without GPUs) */
    struct gs_mig_layout *next;  /* the layouts being applied */
    bool has_mig;                /* the product has a MIG model */
    const struct gs_dp_config *dp; /* the plugin's config; NULL: it cannot start */
    const char *dp_label;        /* nvidia.com/device-plugin.config it was chosen with */
    const char *mig_seen;        /* the nvidia.com/mig.config value last handled */
    bool mig_busy;
    struct gs_mig_outcome outcome;
    uint32_t token;
    uint32_t paused;             /* bit i: pause_keys[i] was paused */
    int alloc_res[DEV_MAX_RES], nalloc_res; /* resources advertised in allocatable */
    int cap_res[DEV_MAX_RES], ncap_res;
    uint64_t unhealthy;          /* GPUs left out of allocatable at the last advertise (Xid) */
};

/* One device the device plugin handed to a pod on a node without shares (dev_allocate). */
struct dev_hold {
    int ri;          /* the resource it was requested as (w->res) */
    int gpu;         /* physical GPU index */
    int profile;     /* MIG profile (index into the GPU's profile table), -1: the whole GPU */
    int start;       /* MIG placement start (memory slice) */
    int replica;     /* replica 0..replicas-1 of a time-sliced / MPS device, -1: not replicated */
    int replicas;
};

struct pod_alloc {
    bool held;
    int node;
    struct gs_gpushare_alloc a;
    struct dev_hold *devs;       /* heap; ndevs of them on node dev_node */
    int ndevs, devcap, dev_node;
};

struct gs_devices_run {
    struct dev_node *nodes;
    int cap;
    struct pod_alloc *pods;
    int pods_cap;
    struct gs_dp_config default_cfg;
};

/* The clients mig-manager pauses (reference §5.4 step 4). */
static const char *const pause_keys[] = {
    "nvidia.com/gpu.deploy.device-plugin", "nvidia.com/gpu.deploy.gpu-feature-discovery",
    "nvidia.com/gpu.deploy.dcgm-exporter", "nvidia.com/gpu.deploy.dcgm", "nvidia.com/gpu.deploy.client",
};
#define NPAUSE ((int)(sizeof pause_keys / sizeof pause_keys[0]))
#define PAUSED "paused-for-mig-change"

static enum gs_mig_strategy strategy_of(const char *s)
{
    return s && strcmp(s, "mixed") == 0 ? GS_MIG_MIXED : s && strcmp(s, "single") == 0 ? GS_MIG_SINGLE : GS_MIG_NONE;
}

int gs_devices_run_setup(struct gs_runner *r)
{
    struct gs_devices_run *d = gs_calloc(1, sizeof *d);
    if (!d)
        return GS_ENOMEM;
    const struct gs_operator_config *op = &r->sc->op;
    /* Without a config file the plugin runs with its defaults; the GPU Operator passes its
     * mig.strategy, the device-plugin chart and host installs default to none. */
    bool operator = op->enabled && op->managed_by == GS_MANAGED_GPU_OPERATOR;
    gs_dp_config_default(&d->default_cfg, operator ? strategy_of(op->mig_strategy) : GS_MIG_NONE);
    r->devices = d;
    return 0;
}

void gs_devices_run_free(struct gs_runner *r)
{
    struct gs_devices_run *d = r->devices;
    if (!d)
        return;
    for (int i = 0; i < d->cap; i++) {
        gs_free(d->nodes[i].mig);
        gs_free(d->nodes[i].next);
    }
    gs_free(d->nodes);
    for (int i = 0; i < d->pods_cap; i++)
        gs_free(d->pods[i].devs);
    gs_free(d->pods);
    gs_free(d);
    r->devices = NULL;
}

static struct dev_node *dev(struct gs_runner *r, int ni)
{
    struct gs_devices_run *d = r->devices;
    if (!d || ni < 0)
        return NULL;
    if (ni >= d->cap) {
        int cap = d->cap ? d->cap : 64;
        while (cap <= ni)
            cap *= 2;
        struct dev_node *n = gs_realloc(d->nodes, sizeof *n * (size_t)cap);
        if (!n) {
            r->err = GS_ENOMEM;
            return NULL;
        }
        memset(n + d->cap, 0, sizeof *n * (size_t)(cap - d->cap));
        d->nodes = n;
        d->cap = cap;
    }
    return &d->nodes[ni];
}

static const char *label(const struct gs_runner *r, int ni, const char *key)
{
    return gs_labels_get(&r->w->nodes[ni].labels, key);
}

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool share_node(const struct dev_node *dn);

/* The node's GPUs take shares only without replicas or MIG devices (else none: a share pod
 * does not fit there). The scheduler reads n->gpus: a change is a node update. */
static void sync_shares(struct gs_runner *r, int ni, const struct dev_node *dn)
{
    struct gs_node *n = &r->w->nodes[ni];
    int want = share_node(dn) && n->gpu_count <= GS_GPUS_MAX ? n->gpu_count : 0;
    if (n->gpus.ngpu == want)
        return;
    gs_gpushare_init(&n->gpus, want);
    gs_node_touch(r->w, ni);
}

/* The plugin's config for node `ni` from its label (gs_dp_config_for_node). */
static void choose_config(struct gs_runner *r, int ni, struct dev_node *dn)
{
    const char *l = label(r, ni, "nvidia.com/device-plugin.config");
    dn->dp_label = l;
    if (!r->sc->has_dp) {
        dn->dp = &r->devices->default_cfg;
        return;
    }
    char why[512];
    dn->dp = gs_dp_config_for_node(&r->sc->dp, l, why, sizeof why);
    if (!dn->dp)
        gs_run_node_event(r, ni, "DevicePlugin", "config", why);
    else if (r->sc->dp.named)
        gs_run_node_event(r, ni, "DevicePlugin", "config", dn->dp->name);
}

void gs_devices_run_joined(struct gs_runner *r, int ni)
{
    struct dev_node *dn = dev(r, ni);
    if (!dn)
        return;
    struct gs_node *n = &r->w->nodes[ni];
    gs_free(dn->mig);
    gs_free(dn->next);
    memset(dn, 0, sizeof *dn);
    dn->init = true;
    dn->ngpus = n->gpu_count < 0 ? 0 : n->gpu_count > GS_MIG_MAX_GPUS ? GS_MIG_MAX_GPUS : n->gpu_count;
    dn->product = n->gpu_product;
    if (gs_gpushare_init(&n->gpus, n->gpu_count > GS_GPUS_MAX ? 0 : n->gpu_count))
        gs_gpushare_init(&n->gpus, 0);
    if (dn->ngpus > 0) {
        dn->mig = gs_calloc((size_t)dn->ngpus, sizeof *dn->mig);
        dn->next = gs_calloc((size_t)dn->ngpus, sizeof *dn->next);
        if (!dn->mig || !dn->next) {
            r->err = GS_ENOMEM;
            return;
        }
        gs_mig_layout_init(&r->sc->mig_catalog, dn->product, dn->ngpus, dn->mig);
        dn->has_mig = dn->mig[0].gpu != NULL;
    }
    choose_config(r, ni, dn);
    sync_shares(r, ni, dn);
}

void gs_devices_run_ctx(struct gs_runner *r, int ni, struct gs_bringup_ctx *c)
{
    const struct gs_operator_config *op = &r->sc->op;
    c->mig_external = op->enabled && op->managed_by == GS_MANAGED_GPU_OPERATOR;
    struct dev_node *dn = ni < (r->devices ? r->devices->cap : 0) ? &r->devices->nodes[ni] : NULL;
    if (!dn || !dn->init)
        return;
    c->dp = dn->dp ? dn->dp : &r->devices->default_cfg;
    c->mig = dn->has_mig ? dn->mig : NULL;
}

/* ------------------------------------------------------------------ allocatable */

static void fmt_count(int64_t v, char *buf, size_t n)
{
    snprintf(buf, n, "%lld", (long long)v);
}

static void set_amount(struct gs_runner *r, int ni, bool capacity, int ri, int64_t v, bool *grew, bool *changed)
{
    struct gs_node *n = &r->w->nodes[ni];
    struct gs_resvec *vec = capacity ? &n->capacity : &n->allocatable;
    if (vec->v[ri] == v)
        return;
    if (!capacity && v > vec->v[ri])
        *grew = true;
    *changed = true;
    vec->v[ri] = v;
    char buf[32];
    fmt_count(v, buf, sizeof buf);
    gs_run_node_event(r, ni, capacity ? "Capacity" : "Allocatable", r->w->res.names[ri], buf);
}

void gs_devices_run_advertise(struct gs_runner *r, int ni, bool capacity, int64_t amount, uint64_t unhealthy,
                              bool *grew, bool *changed)
{
    struct dev_node *dn = dev(r, ni);
    if (!dn || !dn->init)
        return;
    if (!capacity)
        dn->unhealthy = unhealthy; /* dev_slots leaves their devices out too */
    struct gs_dp_alloc list[DEV_MAX_RES];
    int n = 0;
    if (amount > 0 && dn->dp) {
        struct gs_mig_layout tmp[GS_MIG_MAX_GPUS];
        int k = 0;
        for (int g = 0; g < dn->ngpus; g++)
            if (capacity || g >= 64 || !((unhealthy >> g) & 1u))
                tmp[k++] = dn->mig[g];
        char why[512];
        if (gs_dp_allocatable(dn->dp, tmp, k, list, DEV_MAX_RES, &n, why, sizeof why)) {
            n = 0;
            if (!capacity)
                gs_run_node_event(r, ni, "DevicePlugin", "error", why);
        }
    }
    int *adv = capacity ? dn->cap_res : dn->alloc_res;
    int *nadv = capacity ? &dn->ncap_res : &dn->nalloc_res;
    int ri_new[DEV_MAX_RES];
    for (int i = 0; i < n; i++) {
        ri_new[i] = gs_res_intern(&r->w->res, &r->w->arena, list[i].name);
        if (ri_new[i] < 0) {
            r->err = GS_ENOMEM;
            return;
        }
    }
    /* Resources no longer advertised drop to 0 (kubelet keeps the name until its endpoint
     * grace period ends; 0 is what the scheduler sees). */
    for (int j = 0; j < *nadv; j++) {
        bool still = false;
        for (int i = 0; i < n && !still; i++)
            still = ri_new[i] == adv[j];
        if (!still)
            set_amount(r, ni, capacity, adv[j], 0, grew, changed);
    }
    /* The plain resource keeps a row when it goes to 0 as before (the model said so). */
    if (n == 0 && *nadv == 0 && r->gpu_res >= 0)
        set_amount(r, ni, capacity, r->gpu_res, 0, grew, changed);
    int k = 0;
    for (int i = 0; i < n; i++) {
        set_amount(r, ni, capacity, ri_new[i], list[i].count, grew, changed);
        if (k < DEV_MAX_RES)
            adv[k++] = ri_new[i];
    }
    if (n > 0)
        *nadv = k;
    /* The plugin registered its devices: capacity lists the same names (healthy or not), which
     * the model does not repeat when its whole-GPU count did not change (MIG, a new config). */
    if (!capacity && amount > 0)
        gs_devices_run_advertise(r, ni, true, dn->ngpus, 0, grew, changed);
}

/* ------------------------------------------------------------------ the MIG manager */

static bool mig_manager_running(const struct gs_runner *r, int ni)
{
    bool known;
    const char *st = gs_bringup_run_operand_status(r, ni, "nvidia-mig-manager", &known);
    return st && strcmp(st, "Running") == 0;
}

static void set_state(struct gs_runner *r, int ni, const char *state)
{
    const char *k = "nvidia.com/mig.config.state";
    gs_bringup_run_set_labels(r, ni, &k, &state, 1);
}

/* "GPU 0: 2g.20gb x3 1g.10gb x1" or "GPU 2: MIG disabled", one row per GPU that changed. */
static void trace_layout(struct gs_runner *r, int ni, int g, const struct gs_mig_layout *l)
{
    char subject[32], buf[256];
    size_t len = 0;
    snprintf(subject, sizeof subject, "GPU %d", g);
    buf[0] = '\0';
    if (!l->enabled) {
        snprintf(buf, sizeof buf, "MIG disabled");
    } else {
        for (int p = 0; l->gpu && p < l->gpu->nprofiles && len < sizeof buf - 40; p++)
            if (l->count[p] > 0) {
                int w = snprintf(buf + len, sizeof buf - len, "%s%s x%d", len ? " " : "", l->gpu->profiles[p].name,
                                 l->count[p]);
                if (w > 0)
                    len += (size_t)w;
            }
        if (len == 0)
            snprintf(buf, sizeof buf, "MIG enabled, no instances");
    }
    gs_run_node_event(r, ni, "Mig", subject, buf);
}

static void mig_reconcile(struct gs_runner *r, int ni)
{
    struct dev_node *dn = dev(r, ni);
    if (!dn || !dn->init || dn->mig_busy || !dn->has_mig || !mig_manager_running(r, ni))
        return;
    const char *want = label(r, ni, "nvidia.com/mig.config");
    const char *state = label(r, ni, "nvidia.com/mig.config.state");
    if (!want || (str_eq(want, dn->mig_seen) && state))
        return;
    dn->mig_seen = gs_arena_strdup(&r->w->arena, want);
    int rc = gs_mig_apply(&r->sc->mig_catalog, &r->sc->migparted, want, dn->product, dn->ngpus, dn->mig, dn->next,
                          &dn->outcome);
    if (rc || (dn->outcome.state == GS_MIG_STATE_SUCCESS && dn->outcome.noop)) {
        /* Already in place, or a config that is not there (nothing paused). */
        if (rc)
            gs_run_node_event(r, ni, "MigManager", want, dn->outcome.reason);
        set_state(r, ni, rc ? "failed" : "success");
        return;
    }
    dn->mig_busy = true;
    dn->token++;
    const char *keys[NPAUSE + 1], *vals[NPAUSE + 1];
    int n = 0;
    keys[n] = "nvidia.com/mig.config.state";
    vals[n++] = "pending";
    dn->paused = 0;
    for (int i = 0; i < NPAUSE; i++) {
        const char *v = label(r, ni, pause_keys[i]);
        if (v && strcmp(v, "true") == 0) {
            dn->paused |= 1u << i;
            keys[n] = pause_keys[i];
            vals[n++] = PAUSED;
        }
    }
    gs_bringup_run_set_labels(r, ni, keys, vals, n);
    const struct gs_timing_profile *p = r->sc->op.timings;
    gs_time d = 0;
    if (p) {
        d = gs_dur_draw(&p->step[GS_STEP_MIG_RECONFIGURE], r->rng);
        if (dn->outcome.mode_change && dn->outcome.state == GS_MIG_STATE_SUCCESS)
            d += gs_dur_draw(&p->step[GS_STEP_MIG_MODE_CHANGE], r->rng);
    }
    gs_run_at(r, gs_engine_now(r->eng) + d, GS_PRIO_CLUSTER, GS_EV_DEVICES, ni, dn->token);
}

/* ---- GPUs in use when mig-parted applies the change */

/* True when pod `pi` holds some of the resource named `name` (a request > 0). */
static bool pod_requests_name(const struct gs_runner *r, int pi, const char *name)
{
    int ri = gs_res_find(&r->w->res, name);
    return ri >= 0 && r->w->pods[pi].tmpl->requests.v[ri] > 0;
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
static int gpu_holder(const struct gs_runner *r, int ni, const struct dev_node *dn, int g)
{
    const struct gs_node *n = &r->w->nodes[ni];
    const struct gs_devices_run *d = r->devices;
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
    for (int q = n->first_pod; q >= 0; q = r->w->pods[q].next_on_node) {
        const struct gs_pod *p = &r->w->pods[q];
        if (p->permit_waiting || (p->phase != GS_PHASE_PENDING && p->phase != GS_PHASE_RUNNING))
            continue;
        const struct pod_alloc *s = q < d->pods_cap ? &d->pods[q] : NULL;
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
            if (pod_requests_name(r, q, names[i]))
                return q;
    }
    return -1;
}

/* mig-parted changes only the GPUs whose mode or instances differ (cmd/nvidia-mig-parted/apply
 * config.go: "Skipping -- already set to desired value"), and it does not drain user pods:
 * mig-manager only pauses the operator's GPU clients (pkg/mig/reconfigure/reconfigure.go
 * shutdownKubernetesGPUClients; reference §5.4). A pod's process on a GPU that changes makes
 * the change fail: a MIG mode flip needs a GPU reset, which nvidia-smi refuses with "In use by
 * another client" (apply/mode.go: "error resetting all GPUs"); a new layout first destroys the
 * GPU's instances (pkg/mig/config/config.go ClearMigConfig), which NVML refuses for an instance
 * in use. mig-manager then restores the paused clients and sets the state `failed`
 * (reconfigure.go setState(migStateFailed)); the layouts stay as they were (gs_mig_apply's
 * failure path). Not modelled: mig-parted resets all GPUs at once when a mode change is
 * pending, so a busy GPU whose mode does not change can fail a mode change elsewhere on some
 * drivers; gpusim checks the GPUs that change. Returns false (outcome failed) on a busy GPU. */
static bool mig_gpus_idle(struct gs_runner *r, int ni, struct dev_node *dn)
{
    for (int g = 0; g < dn->ngpus; g++) {
        const struct gs_mig_layout *a = &dn->mig[g], *b = &dn->next[g];
        bool mode = a->enabled != b->enabled;
        if (!mode && memcmp(a->count, b->count, sizeof a->count) == 0)
            continue;
        int pi = gpu_holder(r, ni, dn, g);
        if (pi < 0)
            continue;
        dn->outcome.state = GS_MIG_STATE_FAILED;
        snprintf(dn->outcome.reason, sizeof dn->outcome.reason,
                 "config '%.100s': GPU %d: In use by another client (pod %.100s): %s", dn->mig_seen ? dn->mig_seen : "",
                 g, r->w->pods[pi].name,
                 mode ? "the MIG mode change needs a GPU reset (mig-parted: error resetting all GPUs)"
                      : "mig-parted cannot destroy its MIG instances (error clearing MigConfig)");
        return false;
    }
    return true;
}

void gs_devices_run_on_timer(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct gs_runner *r = ctx;
    int ni = (int)ev->a;
    struct dev_node *dn = ni < (r->devices ? r->devices->cap : 0) ? &r->devices->nodes[ni] : NULL;
    if (!dn || !dn->init || !dn->mig_busy || (uint32_t)ev->b != dn->token || !r->w->nodes[ni].exists)
        return;
    dn->mig_busy = false;
    bool ok = dn->outcome.state == GS_MIG_STATE_SUCCESS && mig_gpus_idle(r, ni, dn);
    if (ok) {
        for (int g = 0; g < dn->ngpus; g++)
            if (memcmp(&dn->mig[g], &dn->next[g], sizeof dn->mig[g]) != 0) {
                dn->mig[g] = dn->next[g];
                trace_layout(r, ni, g, &dn->mig[g]);
            }
        sync_shares(r, ni, dn);
    } else {
        gs_run_node_event(r, ni, "MigManager", dn->mig_seen, dn->outcome.reason);
    }
    /* Restore the paused clients (their pods start again: the plugin registers the new
     * devices, GFD relabels), then the state. */
    const char *keys[NPAUSE + 1], *vals[NPAUSE + 1];
    int n = 0;
    for (int i = 0; i < NPAUSE; i++)
        if (dn->paused & (1u << i)) {
            keys[n] = pause_keys[i];
            vals[n++] = "true";
        }
    dn->paused = 0;
    keys[n] = "nvidia.com/mig.config.state";
    vals[n++] = ok ? "success" : "failed";
    gs_bringup_run_set_labels(r, ni, keys, vals, n);
    /* The label may have changed again meanwhile. */
    mig_reconcile(r, ni);
}

void gs_devices_run_mig_started(struct gs_runner *r, int ni)
{
    struct dev_node *dn = dev(r, ni);
    if (dn && dn->init)
        dn->mig_seen = NULL; /* a new mig-manager pod looks at the label afresh */
    mig_reconcile(r, ni);
}

void gs_devices_run_labels_changed(struct gs_runner *r, int ni)
{
    struct dev_node *dn = dev(r, ni);
    if (!dn || !dn->init)
        return;
    const char *l = label(r, ni, "nvidia.com/device-plugin.config");
    if (r->sc->has_dp && r->sc->dp.named && !str_eq(l, dn->dp_label)) {
        /* The config-manager sidecar switches the config and restarts the plugin. */
        choose_config(r, ni, dn);
        sync_shares(r, ni, dn);
        gs_bringup_run_plugin_restart(r, ni);
    }
    const char *want = label(r, ni, "nvidia.com/mig.config");
    if (want && !str_eq(want, dn->mig_seen))
        mig_reconcile(r, ni);
}

/* ------------------------------------------------------------------ kubelet admission */

bool gs_devices_run_admit(struct gs_runner *r, int pi)
{
    const struct gs_pod *p = &r->w->pods[pi];
    struct dev_node *dn = p->node >= 0 && r->devices && p->node < r->devices->cap ? &r->devices->nodes[p->node] : NULL;
    if (!dn || !dn->init || !dn->dp)
        return true;
    for (int ri = GS_RES_FIXED; ri < r->w->res.n; ri++) {
        /* The kubelet calls Allocate per container and the plugin checks each ContainerRequest
         * (k8s-device-plugin internal/plugin/server.go Allocate: `for _, req := range
         * reqs.ContainerRequests` -> rm.ValidateRequest, len(DevicesIDs) > 1): the largest
         * single container decides, not the pod's total. */
        int64_t req = p->tmpl->container_max.v[ri];
        if (req == 0)
            req = p->tmpl->requests.v[ri]; /* a template not built from containers */
        if (req <= 1 || strncmp(r->w->res.names[ri], "nvidia.com/", 11) != 0)
            continue;
        char msg[600];
        if (gs_dp_allocate_check(dn->dp, r->w->res.names[ri], req, false, msg, sizeof msg) == 0)
            continue;
        gs_run_fail_pod(r, pi, GS_DP_ADMISSION_REASON, msg);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------ GPU shares */

bool gs_devices_pod_request(const struct gs_runner *r, int pi, struct gs_gpushare_req *req)
{
    return gs_gpushare_pod_req(r->w, r->w->pods[pi].tmpl, req, NULL);
}

/* Shares are modelled on whole physical GPUs only: no replicas, no MIG devices. */
static bool share_node(const struct dev_node *dn)
{
    if (!dn || !dn->init || !dn->dp || dn->dp->sharing != GS_SHARING_NONE)
        return false;
    for (int g = 0; g < dn->ngpus; g++)
        if (dn->mig[g].enabled)
            return false;
    return true;
}

static struct pod_alloc *pod_slot(struct gs_runner *r, int pi)
{
    struct gs_devices_run *d = r->devices;
    if (pi >= d->pods_cap) {
        int old = d->pods_cap;
        if (gs_array_grow((void **)&d->pods, &d->pods_cap, pi + 1, sizeof *d->pods)) {
            r->err = GS_ENOMEM;
            return NULL;
        }
        memset(d->pods + old, 0, sizeof *d->pods * (size_t)(d->pods_cap - old));
    }
    return &d->pods[pi];
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
 * Unhealthy GPUs left out (as gs_devices_run_advertise does), in the plugin's device order: GPU
 * index, then MIG placement start. Each device is under its base name (nvidia.com/gpu, or
 * nvidia.com/mig-<profile> under mixed) unless the sharing config selects it, then under the
 * replicated name with its replicas. None when the plugin would not start. */
static int dev_slots(struct gs_runner *r, const struct dev_node *dn, struct dev_slot *out, int max)
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
            out[n++] = (struct dev_slot){.ri = gs_res_find(&r->w->res, to), .gpu = idx[i],
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
static void dev_mark_used(struct gs_runner *r, int ni, int self, struct dev_slot *s, int n)
{
    const struct gs_devices_run *d = r->devices;
    uint64_t dra = gs_dra_run_dra_gpus(r, ni);
    for (int i = 0; i < n; i++)
        if (s[i].profile < 0 && s[i].gpu < 64 && ((dra >> s[i].gpu) & 1u))
            slot_take(&s[i], -1);
    for (int q = r->w->nodes[ni].first_pod; q >= 0; q = r->w->pods[q].next_on_node) {
        if (q == self || q >= d->pods_cap)
            continue;
        const struct pod_alloc *a = &d->pods[q];
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

/* Would the plugin refuse the pod at Allocate (gs_devices_run_admit's check)? It then gets no
 * device: the kubelet fails it when it starts. */
static bool dev_refused(const struct gs_runner *r, const struct dev_node *dn, int pi)
{
    const struct gs_pod_template *t = r->w->pods[pi].tmpl;
    for (int ri = GS_RES_FIXED; ri < r->w->res.n; ri++) {
        int64_t req = t->container_max.v[ri] ? t->container_max.v[ri] : t->requests.v[ri];
        if (req > 1 && strncmp(r->w->res.names[ri], "nvidia.com/", 11) == 0 &&
            gs_dp_allocate_check(dn->dp, r->w->res.names[ri], req, false, NULL, 0) != 0)
            return true;
    }
    return false;
}

/* The kubelet's device manager asks the plugin for its preferred devices of each nvidia.com/
 * resource of pod `pi` (GetPreferredAllocation) and allocates them; see the rules at the top. */
static void dev_allocate(struct gs_runner *r, int pi, const struct dev_node *dn)
{
    const struct gs_pod *p = &r->w->pods[pi];
    int ni = p->node;
    const struct gs_pod_template *t = p->tmpl;
    bool any = false;
    for (int ri = GS_RES_FIXED; ri < r->w->res.n && !any; ri++)
        any = t->requests.v[ri] > 0 && strncmp(r->w->res.names[ri], "nvidia.com/", 11) == 0;
    if (!any || !dn || !dn->init || !dn->dp || dev_refused(r, dn, pi))
        return;
    struct pod_alloc *a = pod_slot(r, pi);
    if (!a)
        return;
    a->ndevs = 0;
    struct dev_slot s[DEV_MAX_SLOTS];
    int n = dev_slots(r, dn, s, DEV_MAX_SLOTS);
    dev_mark_used(r, ni, pi, s, n);
    const char *node = r->w->nodes[ni].name;
    for (int ri = GS_RES_FIXED; ri < r->w->res.n; ri++) {
        int64_t want = t->requests.v[ri];
        const char *name = r->w->res.names[ri];
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
                gs_run_pod_event(r, pi, "DeviceAllocationFailed", msg);
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
                r->err = GS_ENOMEM;
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
            gs_run_pod_event(r, pi, "DeviceAllocated", msg);
        }
    }
    a->dev_node = ni;
}

/* Choose on `view` (the node's GPUs without those DRA holds), take from `g`. */
static int share_take(struct gs_gpushare *g, const struct gs_gpushare *view, const struct gs_gpushare_req *req,
                      int gpu, struct gs_gpushare_alloc *out)
{
    int rc = gs_gpushare_choose(view, req, gpu, out);
    return rc ? rc : gs_gpushare_commit(g, out);
}

void gs_devices_run_bound(struct gs_runner *r, int pi)
{
    const struct gs_pod *p = &r->w->pods[pi];
    struct gs_gpushare_req req;
    gs_dra_run_trace_devices(r, pi); /* the devices of its claims */
    if (!r->devices || p->node < 0)
        return;
    struct dev_node *dn = p->node < r->devices->cap ? &r->devices->nodes[p->node] : NULL;
    if (!share_node(dn)) {
        dev_allocate(r, pi, dn); /* replicas, MIG devices, whole GPUs beside MIG ones */
        return;
    }
    if (!gs_devices_pod_request(r, pi, &req))
        return;
    struct pod_alloc *s = pod_slot(r, pi);
    if (!s)
        return;
    struct gs_node *n = &r->w->nodes[p->node];
    char msg[160];
    /* GPUs the DRA ledger gave to claims are not the device plugin's to hand out. */
    struct gs_gpushare view = n->gpus;
    uint64_t dra = gs_dra_run_dra_gpus(r, p->node);
    for (int g = 0; g < view.ngpu && g < 64; g++)
        if ((dra >> g) & 1u)
            view.free_milli[g] = 0;
    /* The scheduler's choice (Open-Gpu-Share PreBind: FGDScore's, fgd_score.go); else -1: the
     * best-fitting GPU. */
    int gpu = r->share_pod == pi ? r->share_gpu : -1;
    r->share_pod = -1;
    if (share_take(&n->gpus, &view, &req, gpu, &s->a) != 0 &&
        (gpu < 0 || share_take(&n->gpus, &view, &req, -1, &s->a) != 0)) {
        /* The scheduler's count said yes but no GPU holds the request (a share not filtered). */
        snprintf(msg, sizeof msg, "%s: no GPU with %d free milli-GPU (x%d)", n->name, req.gpu_milli, req.num_gpu);
        gs_run_pod_event(r, pi, "GpuAllocationFailed", msg);
        return;
    }
    s->held = true;
    s->node = p->node;
    /* The scheduler's per-node copies read n->gpus: a change after the pod was assumed (Permit)
     * must be logged like any node update. */
    gs_node_touch(r->w, p->node);
    size_t len = (size_t)snprintf(msg, sizeof msg, "%s gpu=", n->name);
    for (int i = 0; i < s->a.n && len < sizeof msg - 16; i++)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%d", i ? "," : "", s->a.gpu[i]);
    snprintf(msg + len, sizeof msg - len, " milli=%d", s->a.milli);
    gs_run_pod_event(r, pi, "GpuAllocated", msg);
}

void gs_devices_run_released(struct gs_runner *r, int pi)
{
    if (!r->devices || pi >= r->devices->pods_cap)
        return;
    struct pod_alloc *s = &r->devices->pods[pi];
    s->ndevs = 0; /* its devices (the trace says so by the pod's end) */
    if (!s->held)
        return;
    s->held = false;
    if (s->node < r->w->nnodes)
        gs_gpushare_release(&r->w->nodes[s->node].gpus, &s->a);
}
