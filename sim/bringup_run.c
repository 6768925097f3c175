/* The GPU Operator's bring-up wired to a run: per-node state (models/bringup.c) kept in an
 * array indexed by node, the model's actions applied to the world (labels, allocatable,
 * capacity, kernel, schedulable_at) and written as node_event rows, and the rollouts that move
 * many nodes: kernel-patch waves and driver upgrades (models/bringup_upgrade.c).
 *
 * Rules this file chooses (SCENARIO.md leaves them open):
 * - Eviction (a node drained for a reboot or a driver upgrade): every pod is deleted with
 *   reason Evicted. A Job replaces its pods (as for any deletion). A plain workload's pod is
 *   re-created with the workload's next index, as its ReplicaSet would; bare Pod manifests,
 *   pods pinned with spec.nodeName and pods of a PodGroup are not re-created.
 * - A kernel-patch wave is over when each of its nodes is back and Ready, meaning kubelet is
 *   back (the reboot step), not that its GPUs are advertised again: node lifecycle tools
 *   (kured, cloud node-pool upgrades) wait for the Ready condition. The node is uncordoned
 *   then (unless it was cordoned before the patch) and the next wave starts.
 * - nodes_ready (samples) leaves out nodes that are rebooting.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "models/bringup.h"
#include "base/error.h"
#include "sim/devices_run.h"
#include "sim/run_state.h"

struct bu_node {
    struct gs_node_bringup b;
    bool started;            /* gs_bringup_init done */
    int patch;               /* the kernel patch rebooting it, -1 */
    bool cordoned_by_rollout; /* a rollout cordoned it: uncordon when done */
    bool upg_managed;        /* part of the current driver upgrade */
    bool upg_unsched_before; /* cordoned before its upgrade started */
    bool upg_timed_out;
};

struct kpatch_run {
    struct gs_kpatch k;
    int *nodes;
    int *wave;
    bool has_reboot_duration;
    gs_time reboot_duration;
};

struct gs_bringup_run {
    struct gs_operator_config cfg; /* sc->op; driver.version changes with driverUpgrade */
    struct bu_node *nodes;
    int cap;
    const char **published;
    int npublished, published_cap;
    struct kpatch_run *patches;
    int npatches, patches_cap;
    bool upg_active;
    struct gs_upgrade_policy upg;
};

/* ------------------------------------------------------------------ helpers */

static struct bu_node *node_state(struct gs_runner *r, int ni)
{
    struct gs_bringup_run *bu = r->bringup;
    if (ni >= bu->cap) {
        int cap = bu->cap ? bu->cap : 64;
        while (cap <= ni)
            cap *= 2;
        struct bu_node *n = gs_realloc(bu->nodes, sizeof *n * (size_t)cap);
        if (!n) {
            r->err = GS_ENOMEM;
            return NULL;
        }
        memset(n + bu->cap, 0, sizeof *n * (size_t)(cap - bu->cap));
        for (int i = bu->cap; i < cap; i++)
            n[i].patch = -1;
        bu->nodes = n;
        bu->cap = cap;
    }
    return &bu->nodes[ni];
}

static struct gs_bringup_ctx make_ctx(struct gs_runner *r, int ni)
{
    struct gs_node *n = &r->w->nodes[ni];
    struct gs_bringup_ctx c = {
        .cfg = &r->bringup->cfg,
        .rng = r->rng,
        .arena = &r->w->arena,
        .now = gs_engine_now(r->eng),
        .labels = &n->labels,
        .taints = n->taints,
        .ntaints = n->ntaints,
        .published = r->bringup->published,
        .npublished = r->bringup->npublished,
    };
    gs_devices_run_ctx(r, ni, &c); /* the plugin's config and the MIG layouts (devices_run.c) */
    return c;
}

static const char *effect_name(enum gs_effect e)
{
    switch (e) {
    case GS_EFFECT_NO_SCHEDULE: return "NoSchedule";
    case GS_EFFECT_PREFER_NO_SCHEDULE: return "PreferNoSchedule";
    case GS_EFFECT_NO_EXECUTE: return "NoExecute";
    case GS_EFFECT_ALL: break;
    }
    return "";
}

/* A resource amount as the kubelet reports it: cpu in cores or millicores, memory and
 * ephemeral-storage in Ki when whole, other resources as counts. */
static void fmt_amount(int ri, int64_t v, char *buf, size_t n)
{
    if (ri == GS_RES_CPU && v % 1000 != 0)
        snprintf(buf, n, "%lldm", (long long)v);
    else if (ri == GS_RES_CPU)
        snprintf(buf, n, "%lld", (long long)(v / 1000));
    else if ((ri == GS_RES_MEMORY || ri == GS_RES_EPHEMERAL) && v != 0 && v % 1024 == 0)
        snprintf(buf, n, "%lldKi", (long long)(v / 1024));
    else
        snprintf(buf, n, "%lld", (long long)v);
}

static void set_unschedulable(struct gs_runner *r, int ni, bool on)
{
    struct gs_node *n = &r->w->nodes[ni];
    if (n->unschedulable == on)
        return;
    n->unschedulable = on;
    gs_node_touch(r->w, ni);
    gs_run_node_event(r, ni, "Cordon", NULL, on ? "true" : "false");
    if (!on)
        gs_run_cluster_event(r, GS_CE_NODE_TAINT);
}

/* The operand's DaemonSet name as the installed chart names it (helm: nvidia-device-plugin...). */
static const char *operand_ds_name(const struct gs_runner *r, enum gs_operand o)
{
    const char *n = gs_operand_ds_name(r->bringup->cfg.managed_by, o);
    return n ? n : gs_operand_name(o);
}

/* Apply the model's actions to node `ni`. Label changes are a node update: the scheduler's
 * queue hears of them, and the operands re-read their deploy labels. */
static void apply(struct gs_runner *r, int ni, const struct gs_bringup_actions *out)
{
    struct gs_node *n = &r->w->nodes[ni];
    struct bu_node *s = &r->bringup->nodes[ni];
    gs_time now = gs_engine_now(r->eng);
    bool labels = false, grew = false, resources = false;
    char buf[96];
    if (out->overflow && !r->err)
        r->err = GS_EINTERNAL;
    for (int i = 0; i < out->n; i++) {
        const struct gs_bringup_action *a = &out->a[i];
        switch (a->kind) {
        case GS_BA_LABEL_SET: {
            const char *cur = gs_labels_get(&n->labels, a->key);
            if (cur && strcmp(cur, a->value ? a->value : "") == 0)
                break;
            if (gs_labels_set(&n->labels, &r->w->arena, a->key, a->value))
                r->err = GS_ENOMEM;
            gs_run_node_event(r, ni, "Label", a->key, a->value ? a->value : "");
            labels = true;
            break;
        }
        case GS_BA_LABEL_DEL:
            if (gs_labels_del(&n->labels, a->key)) {
                gs_run_node_event(r, ni, "Label", a->key, NULL);
                labels = true;
            }
            break;
        case GS_BA_ALLOCATABLE:
        case GS_BA_CAPACITY: {
            if (r->devices && strcmp(a->key, "nvidia.com/gpu") == 0) {
                /* What the device plugin advertises under its config and the MIG layouts. */
                gs_devices_run_advertise(r, ni, a->kind == GS_BA_CAPACITY, a->amount, s->b.unhealthy, &grew, &resources);
                break;
            }
            int ri = gs_res_intern(&r->w->res, &r->w->arena, a->key);
            if (ri < 0) {
                r->err = GS_ENOMEM;
                break;
            }
            struct gs_resvec *v = a->kind == GS_BA_ALLOCATABLE ? &n->allocatable : &n->capacity;
            if (a->kind == GS_BA_ALLOCATABLE && a->amount > v->v[ri])
                grew = true;
            resources |= v->v[ri] != a->amount;
            v->v[ri] = a->amount;
            fmt_amount(ri, a->amount, buf, sizeof buf);
            gs_run_node_event(r, ni, a->kind == GS_BA_ALLOCATABLE ? "Allocatable" : "Capacity", a->key, buf);
            break;
        }
        case GS_BA_OPERAND:
            /* kubectl's READY and STATUS columns: "0/1 Init:0/1", "1/1 Running"; NULL: gone. */
            if (a->value)
                snprintf(buf, sizeof buf, "%d/1 %s", a->amount ? 1 : 0, a->value);
            gs_run_node_event(r, ni, "Operand", operand_ds_name(r, a->operand), a->value ? buf : NULL);
            break;
        case GS_BA_TIMER:
            gs_run_at(r, now + a->delay, GS_PRIO_CLUSTER, a->background ? GS_EV_BRINGUP_BG : GS_EV_BRINGUP, ni,
                      gs_bringup_timer_encode(a->timer, a->generation, a->token));
            break;
        case GS_BA_SCHEDULABLE:
            if (n->schedulable_at < 0) {
                n->schedulable_at = now;
                snprintf(buf, sizeof buf, "%lld", (long long)s->b.allocatable);
                gs_run_node_event(r, ni, "Schedulable", "nvidia.com/gpu", buf);
            }
            break;
        case GS_BA_KERNEL:
            n->kernel = a->value;
            gs_run_node_event(r, ni, "Kernel", NULL, a->value);
            break;
        case GS_BA_UPGRADE_STATE:
            break; /* the label action next to it says it all */
        }
    }
    /* The scheduler caches what it reads of a node until it is touched. */
    if (labels || resources)
        gs_node_touch(r->w, ni);
    if (labels) {
        gs_run_cluster_event(r, GS_CE_NODE_LABEL);
        struct gs_bringup_actions more = {0};
        struct gs_bringup_ctx c = make_ctx(r, ni);
        gs_bringup_labels_changed(&c, &s->b, &more);
        apply(r, ni, &more);
    }
    if (grew)
        gs_run_cluster_event(r, GS_CE_NODE_ALLOCATABLE);
}

/* ------------------------------------------------------------------ setup and join */

int gs_bringup_run_setup(struct gs_runner *r)
{
    r->bringup = gs_calloc(1, sizeof *r->bringup);
    if (!r->bringup)
        return GS_ENOMEM;
    r->bringup->cfg = r->sc->op;
    if (!r->sc->op.enabled)
        r->bringup->cfg.managed_by = GS_MANAGED_HOST; /* the node image runs the plugin */
    return gs_devices_run_setup(r);
}

void gs_bringup_run_free(struct gs_runner *r)
{
    gs_devices_run_free(r);
    struct gs_bringup_run *bu = r->bringup;
    if (!bu)
        return;
    for (int i = 0; i < bu->npatches; i++) {
        gs_free(bu->patches[i].nodes);
        gs_free(bu->patches[i].wave);
    }
    gs_free(bu->patches);
    gs_free(bu->published);
    gs_free(bu->nodes);
    gs_free(bu);
    r->bringup = NULL;
}

/* The node as it registered: labels, taints, capacity and allocatable as rows, so a trace
 * alone can describe the node at any time. */
static void trace_initial(struct gs_runner *r, int ni)
{
    const struct gs_node *n = &r->w->nodes[ni];
    char buf[512];
    for (int i = 0; i < n->labels.n; i++)
        gs_run_node_event(r, ni, "Label", n->labels.kv[i].key, n->labels.kv[i].value);
    for (int i = 0; i < n->ntaints; i++) {
        const struct gs_taint *t = &n->taints[i];
        if (t->value && t->value[0])
            snprintf(buf, sizeof buf, "%s=%s:%s", t->key, t->value, effect_name(t->effect));
        else
            snprintf(buf, sizeof buf, "%s:%s", t->key, effect_name(t->effect));
        gs_run_node_event(r, ni, "Taint", buf, "true");
    }
    if (n->unschedulable)
        gs_run_node_event(r, ni, "Cordon", NULL, "true");
    for (int ri = 0; ri < r->w->res.n; ri++) {
        if (n->capacity.v[ri]) {
            fmt_amount(ri, n->capacity.v[ri], buf, sizeof buf);
            gs_run_node_event(r, ni, "Capacity", r->w->res.names[ri], buf);
        }
        if (n->allocatable.v[ri]) {
            fmt_amount(ri, n->allocatable.v[ri], buf, sizeof buf);
            gs_run_node_event(r, ni, "Allocatable", r->w->res.names[ri], buf);
        }
    }
}

void gs_bringup_run_joined(struct gs_runner *r, int ni)
{
    struct bu_node *s = node_state(r, ni);
    if (!s)
        return;
    gs_devices_run_joined(r, ni);
    trace_initial(r, ni);
    const struct gs_node *n = &r->w->nodes[ni];
    const struct gs_pool *pl = &r->w->pools[n->pool];
    struct gs_bringup_node info = {
        .gpu_count = n->gpu_count,
        .product = n->gpu_product,
        .catalog = n->gpu_product ? gs_catalog_product(&r->sc->catalog, n->gpu_product) : NULL,
        .kernel = n->kernel,
        .host_driver_version = pl->host_driver_version,
        .host_driver_kernels = pl->host_driver_kernels,
        .nhost_driver_kernels = pl->nhost_driver_kernels,
        .host_driver_any_kernel = !r->sc->op.enabled,
    };
    memset(s, 0, sizeof *s);
    s->patch = -1;
    gs_bringup_init(&s->b, &info);
    s->started = true;
    if (!r->sc->op.enabled) {
        gs_bringup_join_advertised(&s->b);
        return;
    }
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = make_ctx(r, ni);
    gs_bringup_join(&c, &s->b, &out);
    apply(r, ni, &out);
}

bool gs_bringup_run_node_ready(const struct gs_runner *r, int ni)
{
    const struct gs_bringup_run *bu = r->bringup;
    return !bu || ni >= bu->cap || !bu->nodes[ni].started || !bu->nodes[ni].b.rebooting;
}

const char *gs_bringup_run_operand_status(const struct gs_runner *r, int ni, const char *name, bool *known)
{
    int o = gs_operand_find(name);
    *known = o >= 0;
    const struct gs_bringup_run *bu = r->bringup;
    if (o < 0 || !bu || ni >= bu->cap || !bu->nodes[ni].started)
        return NULL;
    return gs_bringup_status_text(&bu->nodes[ni].b, (enum gs_operand)o);
}

bool gs_bringup_run_daemonset(const struct gs_runner *r, const char *name, int64_t *desired, int64_t *ready)
{
    *desired = *ready = 0;
    const struct gs_bringup_run *bu = r->bringup;
    if (!bu)
        return false;
    const struct gs_operator_config *c = &bu->cfg;
    int o = gs_operand_ds_find(c->managed_by, name);
    if (o < 0 || !gs_operand_ds_exists(c, (enum gs_operand)o))
        return false;
    for (int ni = 0; ni < r->w->nnodes; ni++) {
        const struct gs_node *n = &r->w->nodes[ni];
        if (!n->exists || !gs_operand_ds_schedules(c, (enum gs_operand)o, &n->labels, n->taints, n->ntaints))
            continue;
        (*desired)++;
        if (ni < bu->cap && bu->nodes[ni].started && bu->nodes[ni].b.ready[o])
            (*ready)++;
    }
    return true;
}

void gs_bringup_run_labels_changed(struct gs_runner *r, int ni)
{
    if (!r->bringup || ni >= r->bringup->cap || !r->bringup->nodes[ni].started)
        return;
    struct bu_node *s = &r->bringup->nodes[ni];
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = make_ctx(r, ni);
    gs_bringup_labels_changed(&c, &s->b, &out);
    apply(r, ni, &out);
    gs_devices_run_labels_changed(r, ni); /* device-plugin.config, mig.config */
}

void gs_bringup_run_set_labels(struct gs_runner *r, int ni, const char *const *keys, const char *const *values, int n)
{
    if (!r->bringup || ni >= r->bringup->cap || !r->bringup->nodes[ni].started)
        return;
    struct gs_bringup_actions out = {0};
    for (int i = 0; i < n && i < GS_BRINGUP_MAX_ACTIONS; i++) {
        out.a[out.n++] = (struct gs_bringup_action){
            .kind = values[i] ? GS_BA_LABEL_SET : GS_BA_LABEL_DEL, .key = keys[i], .value = values[i]};
    }
    apply(r, ni, &out);
}

void gs_bringup_run_plugin_restart(struct gs_runner *r, int ni)
{
    if (!r->bringup || ni >= r->bringup->cap || !r->bringup->nodes[ni].started)
        return;
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = make_ctx(r, ni);
    gs_bringup_plugin_restart(&c, &r->bringup->nodes[ni].b, &out);
    gs_bringup_gfd_restart(&c, &r->bringup->nodes[ni].b, &out); /* GFD's config-manager too */
    apply(r, ni, &out);
}

/* ------------------------------------------------------------------ eviction */

/* Evict the pods on node `ni` (only those requesting nvidia.com/gpu when gpu_only); plain
 * workloads re-create theirs (run.c evict_pod). */
static void evict_pods(struct gs_runner *r, int ni, bool gpu_only, const char *msg)
{
    struct gs_world *w = r->w;
    int cnt = 0;
    for (int q = w->nodes[ni].first_pod; q >= 0; q = w->pods[q].next_on_node)
        cnt++;
    if (cnt == 0)
        return;
    int *list = gs_malloc(sizeof *list * (size_t)cnt);
    if (!list) {
        r->err = GS_ENOMEM;
        return;
    }
    int k = 0;
    for (int q = w->nodes[ni].first_pod; q >= 0 && k < cnt; q = w->pods[q].next_on_node)
        list[k++] = q;
    for (int i = 0; i < k; i++) {
        const struct gs_pod *p = &w->pods[list[i]];
        if (p->deleted)
            continue;
        if (gpu_only && (r->gpu_res < 0 || (p->tmpl->requests.v[r->gpu_res] <= 0 && p->tmpl->limits.v[r->gpu_res] <= 0)))
            continue;
        gs_run_evict_pod(r, list[i], "Evicted", msg);
    }
    gs_free(list);
}

/* ------------------------------------------------------------------ kernel patches */

static void kpatch_next_wave(struct gs_runner *r, int pi);

static void reboot_node(struct gs_runner *r, int ni, int pi)
{
    struct gs_bringup_run *bu = r->bringup;
    struct bu_node *s = &bu->nodes[ni];
    struct kpatch_run *kp = &bu->patches[pi];
    char msg[256];
    s->patch = pi;
    if (!r->w->nodes[ni].unschedulable) {
        s->cordoned_by_rollout = true;
        set_unschedulable(r, ni, true);
    }
    snprintf(msg, sizeof msg, "drained to reboot into kernel %s", kp->k.kernel);
    evict_pods(r, ni, false, msg);
    gs_run_node_event(r, ni, "Reboot", NULL, kp->k.kernel);
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = make_ctx(r, ni);
    c.has_reboot_duration = kp->has_reboot_duration;
    c.reboot_duration = kp->reboot_duration;
    gs_bringup_reboot(&c, &s->b, kp->k.kernel, &out);
    apply(r, ni, &out);
}

static void kpatch_next_wave(struct gs_runner *r, int pi)
{
    for (;;) {
        struct kpatch_run *kp = &r->bringup->patches[pi];
        int n = gs_kpatch_next_wave(&kp->k, kp->wave, kp->k.n);
        bool wave_over = false;
        for (int i = 0; i < n; i++) {
            int ni = kp->wave[i];
            if (r->w->nodes[ni].exists)
                reboot_node(r, ni, pi);
            else
                wave_over = gs_kpatch_node_back(&kp->k); /* deleted since: nothing to wait for */
        }
        if (!wave_over)
            return;
    }
}

/* kubelet is back on node `ni`: the node is Ready. */
static void node_back(struct gs_runner *r, int ni)
{
    struct gs_bringup_run *bu = r->bringup;
    struct bu_node *s = &bu->nodes[ni];
    int pi = s->patch;
    if (pi < 0)
        return;
    s->patch = -1;
    if (s->cordoned_by_rollout && !s->upg_managed) {
        s->cordoned_by_rollout = false;
        set_unschedulable(r, ni, false);
    }
    if (gs_kpatch_node_back(&bu->patches[pi].k))
        kpatch_next_wave(r, pi);
}

static void kernel_patch(struct gs_runner *r, const struct gs_sevent *se)
{
    struct gs_bringup_run *bu = r->bringup;
    struct gs_world *w = r->w;
    int total = 0, n = 0;
    for (int i = 0; i < w->nnodes; i++)
        if (w->nodes[i].exists && w->nodes[i].pool == se->pool)
            total++;
    if (total == 0) {
        gs_run_warn(r, se, "node of pool", w->pools[se->pool].name);
        return;
    }
    if (bu->npatches == bu->patches_cap) {
        int cap = bu->patches_cap ? bu->patches_cap * 2 : 4;
        struct kpatch_run *p = gs_realloc(bu->patches, sizeof *p * (size_t)cap);
        if (!p) {
            r->err = GS_ENOMEM;
            return;
        }
        bu->patches = p;
        bu->patches_cap = cap;
    }
    struct kpatch_run *kp = &bu->patches[bu->npatches];
    memset(kp, 0, sizeof *kp);
    kp->nodes = gs_malloc(sizeof *kp->nodes * (size_t)total);
    kp->wave = gs_malloc(sizeof *kp->wave * (size_t)total);
    if (!kp->nodes || !kp->wave) {
        gs_free(kp->nodes);
        gs_free(kp->wave);
        r->err = GS_ENOMEM;
        return;
    }
    /* Nodes already on the kernel, or rebooting for another patch, are left alone. */
    for (int i = 0; i < w->nnodes; i++) {
        const struct gs_node *nd = &w->nodes[i];
        if (!nd->exists || nd->pool != se->pool)
            continue;
        if (nd->kernel && se->kernel && strcmp(nd->kernel, se->kernel) == 0)
            continue;
        if (i < bu->cap && bu->nodes[i].patch >= 0)
            continue;
        kp->nodes[n++] = i;
    }
    kp->has_reboot_duration = se->has_reboot_duration;
    kp->reboot_duration = se->reboot_duration;
    int mu = gs_max_unavailable(se->max_unavailable, se->max_unavailable_percent, total);
    gs_kpatch_init(&kp->k, se->kernel, mu, kp->nodes, n);
    int pi = bu->npatches++;
    kpatch_next_wave(r, pi);
}

/* ------------------------------------------------------------------ driver upgrades */

static void upgrade_reconcile(struct gs_runner *r);

static void set_upgrade_state(struct gs_runner *r, int ni, enum gs_upgrade_state st)
{
    struct gs_bringup_actions out = {0};
    gs_bringup_set_upgrade_state(&r->bringup->nodes[ni].b, st, &out);
    apply(r, ni, &out);
}

static bool upgrade_in_progress(enum gs_upgrade_state s)
{
    return s != GS_UPG_NONE && s != GS_UPG_DONE && s != GS_UPG_REQUIRED;
}

/* Side effects of entering `to` from `from` (LIB ProcessXxxNodes). */
static void upgrade_transition(struct gs_runner *r, int ni, enum gs_upgrade_state from, enum gs_upgrade_state to)
{
    struct gs_bringup_run *bu = r->bringup;
    struct bu_node *s = &bu->nodes[ni];
    char msg[256];
    set_upgrade_state(r, ni, to);
    switch (to) {
    case GS_UPG_WAIT_FOR_JOBS: /* ProcessCordonRequiredNodes cordoned it */
        s->upg_unsched_before = r->w->nodes[ni].unschedulable;
        if (!s->upg_unsched_before) {
            s->cordoned_by_rollout = true;
            set_unschedulable(r, ni, true);
        }
        break;
    case GS_UPG_DRAIN: /* coming from pod-deletion: the GPU pods were deleted */
        if (from == GS_UPG_POD_DELETION) {
            snprintf(msg, sizeof msg, "GPU pods deleted for the driver upgrade to %s", bu->cfg.driver_version);
            evict_pods(r, ni, true, msg);
        }
        break;
    case GS_UPG_POD_RESTART: {
        if (bu->upg.drain) {
            snprintf(msg, sizeof msg, "drained for the driver upgrade to %s", bu->cfg.driver_version);
            evict_pods(r, ni, false, msg);
        }
        struct gs_bringup_actions out = {0};
        struct gs_bringup_ctx c = make_ctx(r, ni);
        gs_bringup_driver_restart(&c, &s->b, bu->cfg.driver_version, &out);
        apply(r, ni, &out);
        break;
    }
    case GS_UPG_VALIDATION: {
        s->upg_timed_out = false;
        struct gs_bringup_actions out = {0};
        gs_bringup_start_upgrade_timer(&s->b, GS_UPGRADE_VALIDATION_TIMEOUT, &out);
        apply(r, ni, &out);
        break;
    }
    case GS_UPG_DONE:
        if (s->cordoned_by_rollout && s->patch < 0) {
            s->cordoned_by_rollout = false;
            set_unschedulable(r, ni, false);
        }
        break;
    default:
        break;
    }
}

/* Move node `ni` along its upgrade as far as it can go now; true when it moved. */
static bool upgrade_step(struct gs_runner *r, int ni)
{
    struct gs_bringup_run *bu = r->bringup;
    struct bu_node *s = &bu->nodes[ni];
    bool moved = false;
    for (int guard = 0; guard < GS_UPG_COUNT * 2; guard++) {
        const struct gs_node_bringup *b = &s->b;
        enum gs_upgrade_state cur = b->upgrade;
        if (!upgrade_in_progress(cur))
            break;
        bool in_sync = b->driver_version && bu->cfg.driver_version && strcmp(b->driver_version, bu->cfg.driver_version) == 0;
        struct gs_upgrade_node un = {
            .state = cur,
            .driver_ready = in_sync && b->ready[GS_OPD_DRIVER],
            .validated = gs_bringup_validated(b),
            .timed_out = s->upg_timed_out,
            .unschedulable_before = s->upg_unsched_before,
            .driver_failing = !b->ready[GS_OPD_DRIVER] && b->restarts[GS_OPD_DRIVER] > 10,
        };
        enum gs_upgrade_state next = gs_upgrade_next(&bu->upg, &un);
        if (next == cur)
            break;
        upgrade_transition(r, ni, cur, next);
        moved = true;
    }
    return moved;
}

static void upgrade_reconcile(struct gs_runner *r)
{
    struct gs_bringup_run *bu = r->bringup;
    struct gs_world *w = r->w;
    for (int pass = 0; pass < 64; pass++) {
        bool changed = false;
        int required = 0, in_progress = 0, unavailable = 0, total = 0;
        for (int i = 0; i < w->nnodes && i < bu->cap; i++) {
            struct bu_node *s = &bu->nodes[i];
            if (!s->upg_managed || !w->nodes[i].exists)
                continue;
            if (upgrade_in_progress(s->b.upgrade))
                changed |= upgrade_step(r, i);
            total++;
            required += s->b.upgrade == GS_UPG_REQUIRED;
            in_progress += upgrade_in_progress(s->b.upgrade);
            unavailable += w->nodes[i].unschedulable || s->b.rebooting || s->b.upgrade == GS_UPG_CORDON;
        }
        int slots = gs_upgrade_slots(&bu->upg, required, in_progress, unavailable, total);
        for (int i = 0; i < w->nnodes && i < bu->cap && slots > 0; i++) {
            struct bu_node *s = &bu->nodes[i];
            if (s->upg_managed && w->nodes[i].exists && s->b.upgrade == GS_UPG_REQUIRED) {
                set_upgrade_state(r, i, GS_UPG_CORDON);
                slots--;
                changed = true;
            }
        }
        if (!changed)
            break;
    }
}

static void driver_upgrade(struct gs_runner *r, const struct gs_sevent *se)
{
    struct gs_bringup_run *bu = r->bringup;
    struct gs_world *w = r->w;
    if (!r->sc->op.enabled || bu->cfg.managed_by != GS_MANAGED_GPU_OPERATOR) {
        gs_run_warn(r, se, "driver DaemonSet (operator: section)", "for driverUpgrade");
        return;
    }
    bu->cfg.driver_version = se->version;
    int total = 0;
    for (int i = 0; i < w->nnodes && i < bu->cap; i++) {
        struct bu_node *s = &bu->nodes[i];
        s->upg_managed = w->nodes[i].exists && s->started && s->b.deployed[GS_OPD_DRIVER];
        total += s->upg_managed;
    }
    bu->upg.max_parallel = se->max_parallel;
    bu->upg.drain = se->drain;
    bu->upg.max_unavailable = gs_max_unavailable(se->max_unavailable, se->max_unavailable_percent, total);
    bu->upg_active = true;
    for (int i = 0; i < w->nnodes && i < bu->cap; i++) {
        struct bu_node *s = &bu->nodes[i];
        if (!s->upg_managed)
            continue;
        bool in_sync = s->b.driver_version && se->version && strcmp(s->b.driver_version, se->version) == 0;
        /* ProcessDoneOrUnknownNodes: a pod out of sync with the DaemonSet needs an upgrade. */
        set_upgrade_state(r, i, in_sync ? GS_UPG_DONE : GS_UPG_REQUIRED);
    }
    upgrade_reconcile(r);
}

/* ------------------------------------------------------------------ timers and events */

void gs_bringup_run_on_timer(struct gs_engine *eng, const struct gs_event *ev, void *ctx)
{
    (void)eng;
    struct gs_runner *r = ctx;
    int ni = (int)ev->a;
    struct gs_bringup_run *bu = r->bringup;
    if (ni >= bu->cap || !bu->nodes[ni].started || !r->w->nodes[ni].exists)
        return;
    struct bu_node *s = &bu->nodes[ni];
    enum gs_bringup_timer t;
    uint32_t gen, token;
    gs_bringup_timer_decode(ev->b, &t, &gen, &token);
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = make_ctx(r, ni);
    if (!gs_bringup_timer(&c, &s->b, t, gen, token, &out))
        return;
    apply(r, ni, &out);
    if (t == GS_BT_MIG_MANAGER)
        gs_devices_run_mig_started(r, ni); /* mig-manager applies nvidia.com/mig.config */
    if (t == GS_BT_REBOOT)
        node_back(r, ni);
    if (t == GS_BT_UPGRADE_TIMEOUT)
        s->upg_timed_out = true;
    if (bu->upg_active && s->upg_managed && upgrade_step(r, ni))
        upgrade_reconcile(r);
}

static int event_node(struct gs_runner *r, const struct gs_sevent *se)
{
    int ni = gs_world_find_node(r->w, se->node);
    if (ni < 0 || !r->w->nodes[ni].exists || ni >= r->bringup->cap || !r->bringup->nodes[ni].started) {
        gs_run_warn(r, se, "node", se->node);
        return -1;
    }
    return ni;
}

static void xid(struct gs_runner *r, const struct gs_sevent *se)
{
    int ni = event_node(r, se);
    if (ni < 0)
        return;
    struct bu_node *s = &r->bringup->nodes[ni];
    const struct gs_xid_policy *p = &r->bringup->cfg.xid;
    char subject[32], value[128];
    snprintf(subject, sizeof subject, "GPU %d", se->gpu);
    /* Why a device is not marked, decided before the model changes anything. */
    const char *why = se->gpu < 0 || se->gpu >= s->b.node.gpu_count ? "no such GPU"
                      : s->b.rebooting || !s->b.plugin_registered ? "not watched: the device plugin is not running"
                      : p->disabled                                ? "ignored: health checks disabled"
                      : gs_xid_ignored(p, se->code)                ? "ignored by the device plugin"
                      : (s->b.unhealthy >> se->gpu) & 1u           ? "device already Unhealthy"
                                                                   : NULL;
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = make_ctx(r, ni);
    bool marked = gs_bringup_xid(&c, &s->b, se->gpu, se->code, &out);
    snprintf(value, sizeof value, "Xid %d: %s", se->code, marked ? "device marked Unhealthy" : why ? why : "no effect");
    gs_run_node_event(r, ni, "Xid", subject, value);
    apply(r, ni, &out);
}

static void plugin_restart(struct gs_runner *r, const struct gs_sevent *se)
{
    int ni = event_node(r, se);
    if (ni < 0)
        return;
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = make_ctx(r, ni);
    gs_bringup_plugin_restart(&c, &r->bringup->nodes[ni].b, &out);
    apply(r, ni, &out);
}

static void image_published(struct gs_runner *r, const struct gs_sevent *se)
{
    struct gs_bringup_run *bu = r->bringup;
    bool known = false;
    for (int i = 0; i < bu->npublished; i++)
        known |= strcmp(bu->published[i], se->kernel) == 0;
    if (!known) {
        if (bu->npublished == bu->published_cap) {
            int cap = bu->published_cap ? bu->published_cap * 2 : 8;
            const char **p = gs_realloc(bu->published, sizeof *p * (size_t)cap);
            if (!p) {
                r->err = GS_ENOMEM;
                return;
            }
            bu->published = p;
            bu->published_cap = cap;
        }
        bu->published[bu->npublished++] = se->kernel;
    }
    for (int ni = 0; ni < r->w->nnodes && ni < bu->cap; ni++) {
        if (!bu->nodes[ni].started || !r->w->nodes[ni].exists)
            continue;
        struct gs_bringup_actions out = {0};
        struct gs_bringup_ctx c = make_ctx(r, ni);
        gs_bringup_image_published(&c, &bu->nodes[ni].b, se->kernel, &out);
        apply(r, ni, &out);
    }
}

void gs_bringup_run_event(struct gs_runner *r, const struct gs_sevent *se)
{
    switch (se->kind) {
    case GS_SEV_KERNEL_PATCH:
        kernel_patch(r, se);
        break;
    case GS_SEV_XID:
        xid(r, se);
        break;
    case GS_SEV_DEVICE_PLUGIN_RESTART:
        plugin_restart(r, se);
        break;
    case GS_SEV_PRECOMPILED_IMAGE_PUBLISHED:
        image_published(r, se);
        break;
    case GS_SEV_DRIVER_UPGRADE:
        driver_upgrade(r, se);
        break;
    default:
        break;
    }
}
