/* The device plugin controller: NVIDIA's k8s-device-plugin and the GPU Operator's mig-manager on
 * each node. The plugin's config per node (named configs chosen by label
 * nvidia.com/device-plugin.config), what it advertises (allocatable per resource name) when it
 * registers, the MIG layouts and mig-manager reacting to label nvidia.com/mig.config, and the
 * kubelet's Allocate admission check. What pods get at bind is in device_plugin_alloc.c.
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
 *   layout. User pods are not evicted (mig-manager does not drain): a GPU whose mode or layout
 *   changes while a pod holds it (whole, a share, a replica, a MIG instance of its layout) fails
 *   the change the same way (mig_gpus_idle: NVML "In use by another client").
 * - The config-manager and mig-manager react to label changes the user makes (scenario label
 *   events); the operator's own label writes never touch nvidia.com/device-plugin.config, and
 *   the default nvidia.com/mig.config it sets is read by mig-manager when its pod starts.
 * - The Allocate check runs when the kubelet starts the pod (after its start latency), per
 *   container (regular and init), as the kubelet's device manager calls Allocate per container:
 *   two containers with nvidia.com/gpu: 1 each pass where one container with 2 is refused. A
 *   refused pod ends Failed with reason UnexpectedAdmissionError and is not re-created.
 *
 * Facts it keeps in the world (through the cluster): each node's device view (its config and
 * MIG layouts, read by GPU feature discovery in gpu_operator.c) and how many GPUs take shares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "models/bringup.h"
#include "models/devices/gpushare_pod.h"
#include "sim/controllers/device_plugin.h"

enum { TIMER_MIG_DONE = 0 };

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

struct dev_node *gs_dev_node(struct devices *d, int ni)
{
    return ni >= 0 && ni < d->cap && d->nodes[ni].init ? &d->nodes[ni] : NULL;
}

/* Node `ni`'s state, grown to hold it (NULL when out of memory). */
static struct dev_node *dev(struct devices *d, struct gs_cluster *c, int ni)
{
    if (ni < 0)
        return NULL;
    if (GS_GROW_ZERO(d->nodes, d->cap, ni + 1)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return NULL;
    }
    return &d->nodes[ni];
}

static const char *label(const struct gs_cluster *c, int ni, const char *key)
{
    return gs_labels_get(&c->w->nodes[ni].labels, key);
}

static bool str_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

bool gs_dev_share_node(const struct dev_node *dn)
{
    if (!dn || !dn->init || !dn->dp || dn->dp->sharing != GS_SHARING_NONE)
        return false;
    for (int g = 0; g < dn->ngpus; g++)
        if (dn->mig[g].enabled)
            return false;
    return true;
}

/* The node's GPUs take shares only without replicas or MIG devices (else none: a share pod does
 * not fit there). */
static void sync_shares(struct gs_cluster *c, int ni, const struct dev_node *dn)
{
    const struct gs_node *n = &c->w->nodes[ni];
    gs_cluster_set_share_gpus(c, ni, gs_dev_share_node(dn) && n->gpu_count <= GS_GPUS_MAX ? n->gpu_count : 0);
}

/* What GPU feature discovery sees of the node's devices. */
static void publish_view(struct devices *d, struct gs_cluster *c, int ni, const struct dev_node *dn)
{
    gs_cluster_set_device_view(c, ni, dn->dp ? dn->dp : &d->default_cfg, dn->has_mig ? dn->mig : NULL);
}

/* The plugin's config for node `ni` from its label (gs_dp_config_for_node). */
static void choose_config(struct devices *d, struct gs_cluster *c, int ni, struct dev_node *dn)
{
    const char *l = label(c, ni, "nvidia.com/device-plugin.config");
    dn->dp_label = l;
    if (!c->sc->has_dp) {
        dn->dp = &d->default_cfg;
        return;
    }
    char why[512];
    dn->dp = gs_dp_config_for_node(&c->sc->dp, l, why, sizeof why);
    if (!dn->dp)
        gs_cluster_node_event(c, ni, "DevicePlugin", "config", why);
    else if (c->sc->dp.named)
        gs_cluster_node_event(c, ni, "DevicePlugin", "config", dn->dp->name);
}

/* Node `ni` joined: MIG layouts all disabled (gs_mig_layout_init), the plugin's config from its
 * labels, every GPU fully free. */
static void joined(struct devices *d, struct gs_cluster *c, int ni)
{
    struct dev_node *dn = dev(d, c, ni);
    if (!dn)
        return;
    const struct gs_node *n = &c->w->nodes[ni];
    gs_free(dn->mig);
    gs_free(dn->next);
    memset(dn, 0, sizeof *dn);
    dn->init = true;
    dn->ngpus = n->gpu_count < 0 ? 0 : n->gpu_count > GS_MIG_MAX_GPUS ? GS_MIG_MAX_GPUS : n->gpu_count;
    dn->product = n->gpu_product;
    gs_cluster_set_share_gpus(c, ni, n->gpu_count > GS_GPUS_MAX ? 0 : n->gpu_count);
    if (dn->ngpus > 0) {
        dn->mig = gs_calloc((size_t)dn->ngpus, sizeof *dn->mig);
        dn->next = gs_calloc((size_t)dn->ngpus, sizeof *dn->next);
        if (!dn->mig || !dn->next) {
            gs_cluster_fail(c, GS_ENOMEM);
            return;
        }
        gs_mig_layout_init(&c->sc->mig_catalog, dn->product, dn->ngpus, dn->mig);
        dn->has_mig = dn->mig[0].gpu != NULL;
    }
    choose_config(d, c, ni, dn);
    publish_view(d, c, ni, dn);
    sync_shares(c, ni, dn);
}

/* ------------------------------------------------------------------ allocatable */

/* The model registered `amount` healthy (registered) GPUs on node `ni` (capacity when
 * `capacity`), `unhealthy` the bitmap of GPUs marked Unhealthy: advertise what the plugin does
 * under the node's config and MIG layouts instead (an Unhealthy GPU takes its replicas and MIG
 * devices with it), a row per resource whose amount changed. */
static void advertise(struct devices *d, struct gs_cluster *c, int ni, bool capacity, int64_t amount,
                      uint64_t unhealthy)
{
    struct dev_node *dn = gs_dev_node(d, ni);
    if (!dn)
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
                gs_cluster_node_event(c, ni, "DevicePlugin", "error", why);
        }
    }
    int *adv = capacity ? dn->cap_res : dn->alloc_res;
    int *nadv = capacity ? &dn->ncap_res : &dn->nalloc_res;
    int ri_new[DEV_MAX_RES];
    for (int i = 0; i < n; i++) {
        ri_new[i] = gs_res_intern(&c->w->res, &c->w->arena, list[i].name);
        if (ri_new[i] < 0) {
            gs_cluster_fail(c, GS_ENOMEM);
            return;
        }
    }
    /* Resources no longer advertised drop to 0 (kubelet keeps the name until its endpoint grace
     * period ends; 0 is what the scheduler sees). */
    for (int j = 0; j < *nadv; j++) {
        bool still = false;
        for (int i = 0; i < n && !still; i++)
            still = ri_new[i] == adv[j];
        if (!still)
            gs_cluster_set_resource(c, ni, capacity, adv[j], 0);
    }
    /* The plain resource keeps a row when it goes to 0 as before (the model said so). */
    if (n == 0 && *nadv == 0 && c->gpu_res >= 0)
        gs_cluster_set_resource(c, ni, capacity, c->gpu_res, 0);
    int k = 0;
    for (int i = 0; i < n; i++) {
        gs_cluster_set_resource(c, ni, capacity, ri_new[i], list[i].count);
        if (k < DEV_MAX_RES)
            adv[k++] = ri_new[i];
    }
    if (n > 0)
        *nadv = k;
    /* The plugin registered its devices: capacity lists the same names (healthy or not), which the
     * model does not repeat when its whole-GPU count did not change (MIG, a new config). */
    if (!capacity && amount > 0)
        advertise(d, c, ni, true, dn->ngpus, 0);
}

/* ------------------------------------------------------------------ the MIG manager */

static bool mig_manager_running(const struct gs_cluster *c, int ni)
{
    const char *st = c->w->nodes[ni].operand_status[GS_OPD_MIG_MANAGER];
    return st && strcmp(st, "Running") == 0;
}

/* Set (value NULL: remove) `n` labels of node `ni` as one patch; labels already so are left. */
static void set_labels(struct devices *d, struct gs_cluster *c, int ni, const char *const *keys,
                       const char *const *values, int n)
{
    bool changed = false;
    for (int i = 0; i < n; i++) {
        const char *cur = label(c, ni, keys[i]);
        if (values[i] ? cur && strcmp(cur, values[i]) == 0 : !cur)
            continue;
        gs_cluster_set_label(c, ni, keys[i], values[i]);
        changed = true;
    }
    if (changed)
        gs_cluster_node_patched(c, ni, true, false, d->self);
}

static void set_state(struct devices *d, struct gs_cluster *c, int ni, const char *state)
{
    const char *k = "nvidia.com/mig.config.state";
    set_labels(d, c, ni, &k, &state, 1);
}

/* "GPU 0: 2g.20gb x3 1g.10gb x1" or "GPU 2: MIG disabled", one row per GPU that changed. */
static void trace_layout(struct gs_cluster *c, int ni, int g, const struct gs_mig_layout *l)
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
    gs_cluster_node_event(c, ni, "Mig", subject, buf);
}

static void mig_reconcile(struct devices *d, struct gs_cluster *c, int ni)
{
    struct dev_node *dn = gs_dev_node(d, ni);
    if (!dn || dn->mig_busy || !dn->has_mig || !mig_manager_running(c, ni))
        return;
    const char *want = label(c, ni, "nvidia.com/mig.config");
    const char *state = label(c, ni, "nvidia.com/mig.config.state");
    if (!want || (str_eq(want, dn->mig_seen) && state))
        return;
    dn->mig_seen = gs_arena_strdup(&c->w->arena, want);
    int rc = gs_mig_apply(&c->sc->mig_catalog, &c->sc->migparted, want, dn->product, dn->ngpus, dn->mig, dn->next,
                          &dn->outcome);
    if (rc || (dn->outcome.state == GS_MIG_STATE_SUCCESS && dn->outcome.noop)) {
        /* Already in place, or a config that is not there (nothing paused). */
        if (rc)
            gs_cluster_node_event(c, ni, "MigManager", want, dn->outcome.reason);
        set_state(d, c, ni, rc ? "failed" : "success");
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
        const char *v = label(c, ni, pause_keys[i]);
        if (v && strcmp(v, "true") == 0) {
            dn->paused |= 1u << i;
            keys[n] = pause_keys[i];
            vals[n++] = PAUSED;
        }
    }
    set_labels(d, c, ni, keys, vals, n);
    const struct gs_timing_profile *p = c->sc->op.timings;
    gs_time dur = 0;
    if (p) {
        dur = gs_dur_draw(&p->step[GS_STEP_MIG_RECONFIGURE], c->rng);
        if (dn->outcome.mode_change && dn->outcome.state == GS_MIG_STATE_SUCCESS)
            dur += gs_dur_draw(&p->step[GS_STEP_MIG_MODE_CHANGE], c->rng);
    }
    gs_cluster_timer(c, d->self, gs_cluster_now(c) + dur, GS_PRIO_CLUSTER, TIMER_MIG_DONE, ni, dn->token, false);
}

/* mig-parted changes only the GPUs whose mode or instances differ (cmd/nvidia-mig-parted/apply
 * config.go: "Skipping -- already set to desired value"), and it does not drain user pods:
 * mig-manager only pauses the operator's GPU clients (pkg/mig/reconfigure/reconfigure.go
 * shutdownKubernetesGPUClients; reference §5.4). A pod's process on a GPU that changes makes the
 * change fail: a MIG mode flip needs a GPU reset, which nvidia-smi refuses with "In use by
 * another client" (apply/mode.go: "error resetting all GPUs"); a new layout first destroys the
 * GPU's instances (pkg/mig/config/config.go ClearMigConfig), which NVML refuses for an instance in
 * use. mig-manager then restores the paused clients and sets the state `failed`
 * (reconfigure.go setState(migStateFailed)); the layouts stay as they were (gs_mig_apply's
 * failure path). Not modelled: mig-parted resets all GPUs at once when a mode change is pending,
 * so a busy GPU whose mode does not change can fail a mode change elsewhere on some drivers;
 * gpusim checks the GPUs that change. Returns false (outcome failed) on a busy GPU. */
static bool mig_gpus_idle(const struct devices *d, const struct gs_cluster *c, int ni, struct dev_node *dn)
{
    for (int g = 0; g < dn->ngpus; g++) {
        const struct gs_mig_layout *a = &dn->mig[g], *b = &dn->next[g];
        bool mode = a->enabled != b->enabled;
        if (!mode && memcmp(a->count, b->count, sizeof a->count) == 0)
            continue;
        int pi = gs_dev_gpu_holder(d, c, ni, dn, g);
        if (pi < 0)
            continue;
        dn->outcome.state = GS_MIG_STATE_FAILED;
        snprintf(dn->outcome.reason, sizeof dn->outcome.reason,
                 "config '%.100s': GPU %d: In use by another client (pod %.100s): %s", dn->mig_seen ? dn->mig_seen : "",
                 g, c->w->pods[pi].name,
                 mode ? "the MIG mode change needs a GPU reset (mig-parted: error resetting all GPUs)"
                      : "mig-parted cannot destroy its MIG instances (error clearing MigConfig)");
        return false;
    }
    return true;
}

/* A MIG reconfiguration is over (token: the one it was started with). */
static void mig_done(struct devices *d, struct gs_cluster *c, int ni, uint32_t token)
{
    struct dev_node *dn = gs_dev_node(d, ni);
    if (!dn || !dn->mig_busy || token != dn->token || !c->w->nodes[ni].exists)
        return;
    dn->mig_busy = false;
    bool ok = dn->outcome.state == GS_MIG_STATE_SUCCESS && mig_gpus_idle(d, c, ni, dn);
    if (ok) {
        for (int g = 0; g < dn->ngpus; g++)
            if (memcmp(&dn->mig[g], &dn->next[g], sizeof dn->mig[g]) != 0) {
                dn->mig[g] = dn->next[g];
                trace_layout(c, ni, g, &dn->mig[g]);
            }
        sync_shares(c, ni, dn);
    } else {
        gs_cluster_node_event(c, ni, "MigManager", dn->mig_seen, dn->outcome.reason);
    }
    /* Restore the paused clients (their pods start again: the plugin registers the new devices,
     * GFD relabels), then the state. */
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
    set_labels(d, c, ni, keys, vals, n);
    /* The label may have changed again meanwhile. */
    mig_reconcile(d, c, ni);
}

/* A user's label change: a new nvidia.com/device-plugin.config switches the plugin's config (the
 * config-manager restarts the plugin and GFD); a new nvidia.com/mig.config is applied by
 * mig-manager (when it runs). */
static void labels_changed(struct devices *d, struct gs_cluster *c, int ni)
{
    struct dev_node *dn = gs_dev_node(d, ni);
    if (!dn)
        return;
    const char *l = label(c, ni, "nvidia.com/device-plugin.config");
    if (c->sc->has_dp && c->sc->dp.named && !str_eq(l, dn->dp_label)) {
        choose_config(d, c, ni, dn);
        publish_view(d, c, ni, dn);
        sync_shares(c, ni, dn);
        gs_cluster_device_config_changed(c, ni);
    }
    dn = gs_dev_node(d, ni);
    const char *want = label(c, ni, "nvidia.com/mig.config");
    if (dn && want && !str_eq(want, dn->mig_seen))
        mig_reconcile(d, c, ni);
}

/* ------------------------------------------------------------------ the controller */

static int setup(struct gs_cluster *c, int self, void **state)
{
    struct devices *d = gs_calloc(1, sizeof *d);
    if (!d)
        return GS_ENOMEM;
    d->self = self;
    gs_intmap_init(&d->pods, sizeof(struct pod_alloc));
    const struct gs_operator_config *op = &c->sc->op;
    /* Without a config file the plugin runs with its defaults; the GPU Operator passes its
     * mig.strategy, the device-plugin chart and host installs default to none. */
    bool operator = op->enabled && op->managed_by == GS_MANAGED_GPU_OPERATOR;
    gs_dp_config_default(&d->default_cfg, operator ? strategy_of(op->mig_strategy) : GS_MIG_NONE);
    *state = d;
    return 0;
}

static void destroy(void *state)
{
    struct devices *d = state;
    for (int i = 0; i < d->cap; i++) {
        gs_free(d->nodes[i].mig);
        gs_free(d->nodes[i].next);
    }
    gs_free(d->nodes);
    int pos = 0;
    struct pod_alloc *a;
    while ((a = gs_intmap_next(&d->pods, &pos, NULL)))
        gs_free(a->devs);
    gs_intmap_free(&d->pods);
    gs_free(d);
}

static void on_watch(void *state, struct gs_cluster *c, const struct gs_watch_event *ev)
{
    struct devices *d = state;
    struct dev_node *dn;
    switch (ev->type) {
    case GS_W_NODE_ADDED:
        joined(d, c, ev->node);
        break;
    case GS_W_NODE_LABELED:
        if (ev->origin < 0)
            labels_changed(d, c, ev->node);
        break;
    case GS_W_DEVICES_REGISTERED:
        advertise(d, c, ev->node, ev->capacity, ev->amount, ev->unhealthy);
        break;
    case GS_W_OPERAND_STARTED:
        if (ev->operand != GS_OPD_MIG_MANAGER)
            break;
        if ((dn = gs_dev_node(d, ev->node)))
            dn->mig_seen = NULL; /* a new mig-manager pod looks at the label afresh */
        mig_reconcile(d, c, ev->node);
        break;
    case GS_W_POD_BOUND:
        gs_dev_pod_bound(d, c, ev->pod, ev->share_gpu);
        break;
    case GS_W_POD_STOPPING:
        gs_dev_pod_released(d, c, ev->pod);
        break;
    default:
        break;
    }
}

static void on_timer(void *state, struct gs_cluster *c, int type, int64_t a, int64_t b)
{
    if (type == TIMER_MIG_DONE)
        mig_done(state, c, (int)a, (uint32_t)b);
}

/* The kubelet admits a pod on its node: the device plugin's Allocate check for each of its
 * nvidia.com/ resources (gs_dp_allocate_check), per container (the template's container_max). */
static bool admit_pod(void *state, struct gs_cluster *c, int pi)
{
    struct devices *d = state;
    const struct gs_pod *p = &c->w->pods[pi];
    struct dev_node *dn = gs_dev_node(d, p->node);
    if (!dn || !dn->dp)
        return true;
    for (int ri = GS_RES_FIXED; ri < c->w->res.n; ri++) {
        /* The kubelet calls Allocate per container and the plugin checks each ContainerRequest
         * (k8s-device-plugin internal/plugin/server.go Allocate: `for _, req := range
         * reqs.ContainerRequests` -> rm.ValidateRequest, len(DevicesIDs) > 1): the largest single
         * container decides, not the pod's total. */
        int64_t req = p->tmpl->container_max.v[ri];
        if (req == 0)
            req = p->tmpl->requests.v[ri]; /* a template not built from containers */
        if (req <= 1 || strncmp(c->w->res.names[ri], "nvidia.com/", 11) != 0)
            continue;
        char msg[600];
        if (gs_dp_allocate_check(dn->dp, c->w->res.names[ri], req, false, msg, sizeof msg) == 0)
            continue;
        gs_cluster_fail_pod(c, pi, GS_DP_ADMISSION_REASON, msg);
        return false;
    }
    return true;
}

const struct gs_controller gs_ctl_device_plugin = {
    .name = "device-plugin",
    .setup = setup,
    .free = destroy,
    .on_watch = on_watch,
    .watches = GS_WATCH_BIT(GS_W_DEVICES_REGISTERED) | GS_WATCH_BIT(GS_W_NODE_ADDED) |
               GS_WATCH_BIT(GS_W_NODE_LABELED) | GS_WATCH_BIT(GS_W_OPERAND_STARTED) |
               GS_WATCH_BIT(GS_W_POD_BOUND) | GS_WATCH_BIT(GS_W_POD_STOPPING),
    .on_timer = on_timer,
    .admit_pod = admit_pod,
};
