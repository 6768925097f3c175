/* The GPU Operator controller: per-node bring-up of the node software (models/bringup.c: NFD,
 * driver, container toolkit, device plugin, GPU feature discovery, mig-manager, DCGM exporter,
 * validator), applied to the cluster as labels, the device plugin's registration, operand
 * status rows, the kernel and the Schedulable row; the node events that touch it (xid,
 * devicePluginRestart, precompiledImagePublished); and, without an `operator:` section, the node
 * image's own device plugin advertising the GPUs as the node joins. Rollouts (kernel-patch waves,
 * driver upgrades) are in gpu_operator_rollout.c.
 *
 * Shared facts it keeps in the world (through the cluster): each node's Ready condition (false
 * while rebooting) and each operand's pod status. It reads the device plugin's config and MIG
 * layouts from the world (node.dp_view, node.mig_view) for GPU feature discovery's labels.
 */
#include <stdio.h>
#include <string.h>

#include "base/alloc.h"
#include "base/array.h"
#include "base/error.h"
#include "sim/controllers/gpu_operator.h"

/* ------------------------------------------------------------------ helpers */

static struct bu_node *node_state(struct gpu_operator *op, struct gs_cluster *c, int ni)
{
    int old = op->cap;
    if (GS_GROW_ZERO(op->nodes, op->cap, ni + 1)) {
        gs_cluster_fail(c, GS_ENOMEM);
        return NULL;
    }
    for (int i = old; i < op->cap; i++)
        op->nodes[i].patch = -1;
    return &op->nodes[ni];
}

static bool started(const struct gpu_operator *op, int ni)
{
    return ni < op->cap && op->nodes[ni].started;
}

struct gs_bringup_ctx gs_operator_ctx(struct gpu_operator *op, struct gs_cluster *c, int ni)
{
    const struct gs_node *n = &c->w->nodes[ni];
    const struct gs_operator_config *cfg = &c->sc->op;
    struct gs_bringup_ctx x = {
        .cfg = &op->cfg,
        .rng = c->rng,
        .arena = &c->w->arena,
        .now = gs_cluster_now(c),
        .labels = &n->labels,
        .taints = n->taints,
        .ntaints = n->ntaints,
        .published = op->published,
        .npublished = op->npublished,
        .mig_external = cfg->enabled && cfg->managed_by == GS_MANAGED_GPU_OPERATOR,
        .dp = n->dp_view,   /* the device plugin's config and MIG layouts (device_plugin.c) */
        .mig = n->mig_view,
    };
    return x;
}

/* The node's facts other controllers read: Ready (kubelet up) and each operand's pod. */
static void sync_facts(struct gpu_operator *op, struct gs_cluster *c, int ni)
{
    const struct bu_node *s = &op->nodes[ni];
    gs_cluster_set_ready(c, ni, !s->b.rebooting);
    for (int o = 0; o < GS_OPD_COUNT; o++)
        gs_cluster_set_operand(c, ni, o, gs_bringup_status_text(&s->b, (enum gs_operand)o), s->b.ready[o]);
}

void gs_operator_set_unschedulable(struct gs_cluster *c, int ni, bool on)
{
    if (c->w->nodes[ni].unschedulable == on)
        return;
    gs_cluster_set_unschedulable(c, ni, on);
    if (!on)
        gs_cluster_notify(c, GS_CE_NODE_TAINT);
}

/* The operand's DaemonSet name as the installed chart names it (helm: nvidia-device-plugin...). */
static const char *operand_ds_name(const struct gpu_operator *op, enum gs_operand o)
{
    const char *n = gs_operand_ds_name(op->cfg.managed_by, o);
    return n ? n : gs_operand_name(o);
}

void gs_operator_apply(struct gpu_operator *op, struct gs_cluster *c, int ni, const struct gs_bringup_actions *out)
{
    struct gs_node *n = &c->w->nodes[ni];
    struct bu_node *s = &op->nodes[ni];
    gs_time now = gs_cluster_now(c);
    bool labels = false, grew = false, resources = false;
    char buf[96];
    sync_facts(op, c, ni);
    if (out->overflow)
        gs_cluster_fail(c, GS_EINTERNAL);
    for (int i = 0; i < out->n; i++) {
        const struct gs_bringup_action *a = &out->a[i];
        switch (a->kind) {
        case GS_BA_LABEL_SET: {
            const char *cur = gs_labels_get(&n->labels, a->key);
            if (cur && strcmp(cur, a->value ? a->value : "") == 0)
                break;
            gs_cluster_set_label(c, ni, a->key, a->value ? a->value : "");
            labels = true;
            break;
        }
        case GS_BA_LABEL_DEL:
            if (gs_labels_get(&n->labels, a->key)) {
                gs_cluster_set_label(c, ni, a->key, NULL);
                labels = true;
            }
            break;
        case GS_BA_ALLOCATABLE:
        case GS_BA_CAPACITY: {
            /* The model counts whole healthy nvidia.com/gpu; the device plugin advertises them
             * under its config and the MIG layouts (device_plugin.c). */
            int bits = gs_cluster_gpus_registered(c, ni, a->kind == GS_BA_CAPACITY, a->amount, s->b.unhealthy);
            grew |= (bits & GS_RES_GREW) != 0;
            resources |= (bits & GS_RES_CHANGED) != 0;
            break;
        }
        case GS_BA_OPERAND:
            /* kubectl's READY and STATUS columns: "0/1 Init:0/1", "1/1 Running"; NULL: gone. */
            if (a->value)
                snprintf(buf, sizeof buf, "%d/1 %s", a->amount ? 1 : 0, a->value);
            gs_cluster_node_event(c, ni, "Operand", operand_ds_name(op, a->operand), a->value ? buf : NULL);
            break;
        case GS_BA_TIMER:
            gs_cluster_timer(c, op->self, now + a->delay, GS_PRIO_CLUSTER, OPERATOR_TIMER, ni,
                             gs_bringup_timer_encode(a->timer, a->generation, a->token), a->background);
            break;
        case GS_BA_SCHEDULABLE:
            gs_cluster_set_schedulable(c, ni, s->b.allocatable);
            break;
        case GS_BA_KERNEL:
            gs_cluster_set_kernel(c, ni, a->value);
            break;
        case GS_BA_UPGRADE_STATE:
            break; /* the label action next to it says it all */
        }
        n = &c->w->nodes[ni];
    }
    /* One patch of the node: the scheduler's queue hears of it, and the operands (this
     * controller, on NODE_LABELED) re-read their deploy labels. */
    if (labels || resources || grew)
        gs_cluster_node_patched(c, ni, labels, grew, op->self);
}

/* Run `fn` of the model on node `ni` and apply what it says. */
#define MODEL_STEP(op, c, ni, call)                                                                  \
    do {                                                                                             \
        struct gs_bringup_actions out_ = {0};                                                        \
        struct gs_bringup_ctx x_ = gs_operator_ctx((op), (c), (ni));                                 \
        struct gs_node_bringup *b_ = &(op)->nodes[(ni)].b;                                            \
        call;                                                                                        \
        gs_operator_apply((op), (c), (ni), &out_);                                                   \
    } while (0)

/* ------------------------------------------------------------------ joining */

/* Without a GPU Operator the node image's device plugin advertises the GPUs as the node joins,
 * with the labels GPU feature discovery would set (reference gpu-operator.md §4). */
static void host_advertise(struct gs_cluster *c, int ni)
{
    const struct gs_node *n = &c->w->nodes[ni];
    if (n->gpu_count <= 0 || c->gpu_res < 0)
        return;
    char count[32];
    snprintf(count, sizeof count, "%d", n->gpu_count);
    gs_cluster_set_label(c, ni, "nvidia.com/gpu.present", "true");
    gs_cluster_set_label(c, ni, "nvidia.com/gpu.count", count);
    if (n->gpu_product)
        gs_cluster_set_label(c, ni, "nvidia.com/gpu.product", n->gpu_product);
    gs_cluster_set_resource(c, ni, true, c->gpu_res, n->gpu_count);
    gs_cluster_set_resource(c, ni, false, c->gpu_res, n->gpu_count);
    gs_cluster_set_schedulable(c, ni, n->gpu_count);
}

static void joined(struct gpu_operator *op, struct gs_cluster *c, int ni)
{
    struct bu_node *s = node_state(op, c, ni);
    if (!s)
        return;
    const struct gs_node *n = &c->w->nodes[ni];
    const struct gs_pool *pl = &c->w->pools[n->pool];
    struct gs_bringup_node info = {
        .gpu_count = n->gpu_count,
        .product = n->gpu_product,
        .catalog = n->gpu_product ? gs_catalog_product(&c->sc->catalog, n->gpu_product) : NULL,
        .kernel = n->kernel,
        .host_driver_version = pl->host_driver_version,
        .host_driver_kernels = pl->host_driver_kernels,
        .nhost_driver_kernels = pl->nhost_driver_kernels,
        .host_driver_any_kernel = !c->sc->op.enabled,
    };
    memset(s, 0, sizeof *s);
    s->patch = -1;
    gs_bringup_init(&s->b, &info);
    s->started = true;
    if (!c->sc->op.enabled) {
        gs_bringup_join_advertised(&s->b);
        sync_facts(op, c, ni);
        host_advertise(c, ni);
        return;
    }
    MODEL_STEP(op, c, ni, gs_bringup_join(&x_, b_, &out_));
}

/* ------------------------------------------------------------------ node events */

static int event_node(struct gpu_operator *op, struct gs_cluster *c, const struct gs_sevent *se)
{
    int ni = gs_world_find_node(c->w, se->node);
    if (ni < 0 || !c->w->nodes[ni].exists || !started(op, ni)) {
        gs_cluster_warn(c, se, "node", se->node);
        return -1;
    }
    return ni;
}

static void xid(struct gpu_operator *op, struct gs_cluster *c, const struct gs_sevent *se)
{
    int ni = event_node(op, c, se);
    if (ni < 0)
        return;
    struct bu_node *s = &op->nodes[ni];
    const struct gs_xid_policy *p = &op->cfg.xid;
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
    struct gs_bringup_ctx x = gs_operator_ctx(op, c, ni);
    bool marked = gs_bringup_xid(&x, &s->b, se->gpu, se->code, &out);
    snprintf(value, sizeof value, "Xid %d: %s", se->code, marked ? "device marked Unhealthy" : why ? why : "no effect");
    gs_cluster_node_event(c, ni, "Xid", subject, value);
    gs_operator_apply(op, c, ni, &out);
}

static void image_published(struct gpu_operator *op, struct gs_cluster *c, const struct gs_sevent *se)
{
    bool known = false;
    for (int i = 0; i < op->npublished; i++)
        known |= strcmp(op->published[i], se->kernel) == 0;
    if (!known) {
        if (GS_GROW(op->published, op->published_cap, op->npublished + 1)) {
            gs_cluster_fail(c, GS_ENOMEM);
            return;
        }
        op->published[op->npublished++] = se->kernel;
    }
    for (int ni = 0; ni < c->w->nnodes && ni < op->cap; ni++) {
        if (!op->nodes[ni].started || !c->w->nodes[ni].exists)
            continue;
        MODEL_STEP(op, c, ni, gs_bringup_image_published(&x_, b_, se->kernel, &out_));
    }
}

static bool scenario_event(void *state, struct gs_cluster *c, const struct gs_sevent *se)
{
    struct gpu_operator *op = state;
    int ni;
    switch (se->kind) {
    case GS_SEV_KERNEL_PATCH:
        gs_operator_kernel_patch(op, c, se);
        return true;
    case GS_SEV_XID:
        xid(op, c, se);
        return true;
    case GS_SEV_DEVICE_PLUGIN_RESTART:
        if ((ni = event_node(op, c, se)) >= 0)
            MODEL_STEP(op, c, ni, gs_bringup_plugin_restart(&x_, b_, &out_));
        return true;
    case GS_SEV_PRECOMPILED_IMAGE_PUBLISHED:
        image_published(op, c, se);
        return true;
    case GS_SEV_DRIVER_UPGRADE:
        gs_operator_driver_upgrade(op, c, se);
        return true;
    default:
        return false;
    }
}

/* ------------------------------------------------------------------ the controller */

static int setup(struct gs_cluster *c, int self, void **state)
{
    struct gpu_operator *op = gs_calloc(1, sizeof *op);
    if (!op)
        return GS_ENOMEM;
    op->self = self;
    op->cfg = c->sc->op;
    if (!c->sc->op.enabled)
        op->cfg.managed_by = GS_MANAGED_HOST; /* the node image runs the plugin */
    *state = op;
    return 0;
}

static void destroy(void *state)
{
    struct gpu_operator *op = state;
    for (int i = 0; i < op->npatches; i++) {
        gs_free(op->patches[i].nodes);
        gs_free(op->patches[i].wave);
    }
    gs_free(op->patches);
    gs_free(op->published);
    gs_free(op->nodes);
    gs_free(op);
}

static void on_watch(void *state, struct gs_cluster *c, const struct gs_watch_event *ev)
{
    struct gpu_operator *op = state;
    switch (ev->type) {
    case GS_W_NODE_ADDED:
        joined(op, c, ev->node);
        break;
    case GS_W_NODE_LABELED:
        /* The operands re-read their deploy labels (the node's opt-outs). */
        if (started(op, ev->node))
            MODEL_STEP(op, c, ev->node, gs_bringup_labels_changed(&x_, b_, &out_));
        break;
    case GS_W_DEVICE_CONFIG_CHANGED:
        /* The device plugin's config-manager switched config: the plugin and GFD restart. */
        if (started(op, ev->node))
            MODEL_STEP(op, c, ev->node, {
                gs_bringup_plugin_restart(&x_, b_, &out_);
                gs_bringup_gfd_restart(&x_, b_, &out_);
            });
        break;
    default:
        break;
    }
}

static void on_timer(void *state, struct gs_cluster *c, int type, int64_t a, int64_t b)
{
    struct gpu_operator *op = state;
    (void)type;
    int ni = (int)a;
    if (!started(op, ni) || !c->w->nodes[ni].exists)
        return;
    struct bu_node *s = &op->nodes[ni];
    enum gs_bringup_timer t;
    uint32_t gen, token;
    gs_bringup_timer_decode(b, &t, &gen, &token);
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx x = gs_operator_ctx(op, c, ni);
    if (!gs_bringup_timer(&x, &s->b, t, gen, token, &out))
        return;
    gs_operator_apply(op, c, ni, &out);
    if (t == GS_BT_MIG_MANAGER)
        gs_cluster_operand_started(c, ni, GS_OPD_MIG_MANAGER); /* it applies nvidia.com/mig.config */
    if (t == GS_BT_REBOOT)
        gs_operator_node_back(op, c, ni);
    s = &op->nodes[ni];
    if (t == GS_BT_UPGRADE_TIMEOUT)
        s->upg_timed_out = true;
    if (op->upg_active && s->upg_managed && gs_operator_upgrade_step(op, c, ni))
        gs_operator_upgrade_reconcile(op, c);
}

/* `object:` checks of kind DaemonSet: the node software's (operator.managedBy), with
 * status.desiredNumberScheduled (the existing nodes its pod is scheduled to) and numberReady. */
static bool object(void *state, const struct gs_cluster *c, const struct gs_expect *e, struct gs_object_view *v)
{
    const struct gpu_operator *op = state;
    if (strcmp(e->obj_kind, "DaemonSet") != 0)
        return false;
    int o = op ? gs_operand_ds_find(op->cfg.managed_by, e->name) : -1;
    v->exists = o >= 0 && gs_operand_ds_exists(&op->cfg, (enum gs_operand)o);
    if (!e->has_desired_scheduled && !e->has_number_ready)
        return true;
    if (!v->exists) {
        snprintf(v->why, sizeof v->why, "no DaemonSet named %s", e->name);
        v->status_failed = true;
        return true;
    }
    int64_t desired = 0, ready = 0;
    for (int ni = 0; ni < c->w->nnodes; ni++) {
        const struct gs_node *n = &c->w->nodes[ni];
        if (!n->exists || !gs_operand_ds_schedules(&op->cfg, (enum gs_operand)o, &n->labels, n->taints, n->ntaints))
            continue;
        desired++;
        if (started(op, ni) && op->nodes[ni].b.ready[o])
            ready++;
    }
    size_t len = 0;
    if (e->has_desired_scheduled && desired != e->desired_scheduled)
        len += (size_t)snprintf(v->why + len, sizeof v->why - len, "desiredNumberScheduled is %lld; ", (long long)desired);
    if (e->has_number_ready && ready != e->number_ready && len < sizeof v->why)
        len += (size_t)snprintf(v->why + len, sizeof v->why - len, "numberReady is %lld; ", (long long)ready);
    v->status_failed = len > 0;
    return true;
}

const struct gs_controller gs_ctl_gpu_operator = {
    .name = "gpu-operator",
    .setup = setup,
    .free = destroy,
    .on_watch = on_watch,
    .watches = GS_WATCH_BIT(GS_W_DEVICE_CONFIG_CHANGED) | GS_WATCH_BIT(GS_W_NODE_ADDED) |
               GS_WATCH_BIT(GS_W_NODE_LABELED),
    .on_timer = on_timer,
    .scenario_event = scenario_event,
    .object = object,
};
