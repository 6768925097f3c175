/* The GPU Operator's per-node operand chain: what the node's facts allow (validation files,
 * ready pods, labels, taints), the label passes of NFD, the operator and GFD, the driver in its
 * three modes, and the inputs that restart the chain (join, timers, reboot, image published,
 * label changes, driver restart). Reference gpu-operator.md §1.1–1.4, §2.1–2.2, §4. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/bringup.h"
#include "models/dpconfig.h"
#include "models/gfd.h"
#include "models/mig.h"
#include "models/bringup_internal.h"

/* ---------------------------------------------------------------- facts */

static bool in_list(const char *const *list, int n, const char *s)
{
    for (int i = 0; i < n && s; i++)
        if (list[i] && strcmp(list[i], s) == 0)
            return true;
    return false;
}

static bool has_headers(const struct gs_bringup_ctx *ctx, const char *kernel)
{
    const struct gs_operator_config *c = ctx->cfg;
    /* A pool without a kernel runs "the" kernel, for which everything exists. */
    return !kernel || c->all_headers || in_list(c->available_headers, c->navailable_headers, kernel);
}

/* A driverBuildFailures entry matching (kernel, driver version), or NULL. */
static const struct gs_build_failure *build_failure(const struct gs_bringup_ctx *ctx, const char *kernel,
                                                    const char *version)
{
    const struct gs_operator_config *c = ctx->cfg;
    for (int i = 0; i < c->nbuild_failures; i++) {
        const struct gs_build_failure *f = &c->build_failures[i];
        if (f->kernel_at_least && (!kernel || gs_version_cmp(kernel, f->kernel_at_least) < 0))
            continue;
        if (f->driver_below && version && gs_version_cmp(version, f->driver_below) >= 0)
            continue;
        return f;
    }
    return NULL;
}

bool gs_bu_has_image(const struct gs_bringup_ctx *ctx, const char *kernel)
{
    const struct gs_operator_config *c = ctx->cfg;
    return !kernel || in_list(c->precompiled_kernels, c->nprecompiled_kernels, kernel) ||
           in_list(ctx->published, ctx->npublished, kernel);
}

/* The host's driver works on the kernels it was built for (default: the one it joined with). */
static bool host_driver_ok(const struct gs_node_bringup *b)
{
    if (!b->kernel || b->node.host_driver_any_kernel)
        return true; /* no kernel modelled, or a driver that follows the kernel */
    if (b->node.nhost_driver_kernels == 0)
        return b->node.kernel && strcmp(b->kernel, b->node.kernel) == 0;
    return in_list(b->node.host_driver_kernels, b->node.nhost_driver_kernels, b->kernel);
}

/* Does a DaemonSet with these tolerations place a pod on the node? DaemonSet pods tolerate the
 * node.kubernetes.io condition taints and unschedulable automatically (pkg/controller/daemon
 * util.AddOrUpdateDaemonPodTolerations); PreferNoSchedule never blocks. */
static bool tolerates(const struct gs_taint *taints, int ntaints, const struct gs_toleration *tol, int ntol)
{
    for (int i = 0; i < ntaints; i++) {
        const struct gs_taint *t = &taints[i];
        if (t->effect == GS_EFFECT_PREFER_NO_SCHEDULE)
            continue;
        if (strncmp(t->key, "node.kubernetes.io/", 19) == 0)
            continue;
        bool ok = false;
        for (int j = 0; j < ntol && !ok; j++)
            ok = gs_toleration_tolerates(&tol[j], t);
        if (!ok)
            return false;
    }
    return true;
}

/* The GPU Operator chart's default operand and NFD worker toleration: nvidia.com/gpu Exists
 * NoSchedule. */
static const struct gs_toleration default_tolerations[] = {
    {.key = "nvidia.com/gpu", .op = GS_TOL_EXISTS, .value = "", .effect = GS_EFFECT_NO_SCHEDULE,
     .toleration_seconds = -1},
};

/* The k8s-device-plugin chart (DP deployments/helm/nvidia-device-plugin/values.yaml): the plugin
 * and GFD tolerate CriticalAddonsOnly (any effect) and nvidia.com/gpu Exists NoSchedule ... */
static const struct gs_toleration helm_tolerations[] = {
    {.key = "CriticalAddonsOnly", .op = GS_TOL_EXISTS, .value = "", .effect = GS_EFFECT_ALL,
     .toleration_seconds = -1},
    {.key = "nvidia.com/gpu", .op = GS_TOL_EXISTS, .value = "", .effect = GS_EFFECT_NO_SCHEDULE,
     .toleration_seconds = -1},
};
/* ... while its NFD worker (nfd.worker.tolerations) tolerates only the value "present". */
static const struct gs_toleration helm_nfd_tolerations[] = {
    {.key = "node-role.kubernetes.io/master", .op = GS_TOL_EQUAL, .value = "", .effect = GS_EFFECT_NO_SCHEDULE,
     .toleration_seconds = -1},
    {.key = "nvidia.com/gpu", .op = GS_TOL_EQUAL, .value = "present", .effect = GS_EFFECT_NO_SCHEDULE,
     .toleration_seconds = -1},
};

/* The tolerations of operand o's DaemonSet under configuration c. */
static const struct gs_toleration *ds_tolerations(const struct gs_operator_config *c, enum gs_operand o, int *n)
{
    bool helm = c->managed_by == GS_MANAGED_HELM;
    if (o == GS_OPD_NFD_WORKER) {
        if (c->has_nfd_tolerations) {
            *n = c->nnfd_tolerations;
            return c->nfd_tolerations;
        }
        *n = helm ? 2 : 1;
        return helm ? helm_nfd_tolerations : default_tolerations;
    }
    if (c->has_ds_tolerations) {
        *n = c->nds_tolerations;
        return c->ds_tolerations;
    }
    *n = helm ? 2 : 1;
    return helm ? helm_tolerations : default_tolerations;
}

static bool ds_tolerated(const struct gs_bringup_ctx *ctx)
{
    int n;
    const struct gs_toleration *t = ds_tolerations(ctx->cfg, GS_OPD_DEVICE_PLUGIN, &n);
    return tolerates(ctx->taints, ctx->ntaints, t, n);
}

static bool nfd_tolerated(const struct gs_bringup_ctx *ctx)
{
    int n;
    const struct gs_toleration *t = ds_tolerations(ctx->cfg, GS_OPD_NFD_WORKER, &n);
    return tolerates(ctx->taints, ctx->ntaints, t, n);
}

static bool label_is(const struct gs_labels *l, const char *key, const char *value)
{
    const char *v = l ? gs_labels_get(l, key) : NULL;
    return v && strcmp(v, value) == 0;
}

/* The k8s-device-plugin chart's default node affinity for the plugin and GFD: one of
 * feature.node.kubernetes.io/pci-10de.present In [true], cpu-model.vendor_id In [NVIDIA]
 * (Tegra) or nvidia.com/gpu.present In [true]. */
static bool helm_affinity(const struct gs_labels *l)
{
    return label_is(l, "feature.node.kubernetes.io/pci-10de.present", "true") ||
           label_is(l, "feature.node.kubernetes.io/cpu-model.vendor_id", "NVIDIA") ||
           label_is(l, "nvidia.com/gpu.present", "true");
}

static const char *deploy_key(enum gs_operand o);

/* Whether the ClusterPolicy enables operand `o` (the NFD worker is always part of the chain). */
static bool operand_enabled(const struct gs_operator_config *c, enum gs_operand o)
{
    switch (o) {
    case GS_OPD_NFD_WORKER: return true;
    case GS_OPD_DRIVER: return c->driver_enabled;
    case GS_OPD_TOOLKIT: return c->toolkit_enabled;
    case GS_OPD_DEVICE_PLUGIN: return c->device_plugin_enabled;
    case GS_OPD_GFD: return c->gfd_enabled;
    case GS_OPD_MIG_MANAGER: return c->mig_manager_enabled;
    case GS_OPD_DCGM_EXPORTER: return c->dcgm_exporter_enabled;
    case GS_OPD_VALIDATOR: return true;
    case GS_OPD_COUNT: break;
    }
    return false;
}

bool gs_operand_ds_exists(const struct gs_operator_config *c, enum gs_operand o)
{
    switch (c->managed_by) {
    case GS_MANAGED_GPU_OPERATOR:
        return o == GS_OPD_NFD_WORKER ? c->nfd_enabled : operand_enabled(c, o);
    case GS_MANAGED_HELM:
        return (o == GS_OPD_NFD_WORKER && c->nfd_enabled) || (o == GS_OPD_DEVICE_PLUGIN && c->device_plugin_enabled) ||
               (o == GS_OPD_GFD && c->gfd_enabled);
    case GS_MANAGED_HOST: break;
    }
    return false;
}

bool gs_operand_ds_schedules(const struct gs_operator_config *c, enum gs_operand o, const struct gs_labels *labels,
                             const struct gs_taint *taints, int ntaints)
{
    if (o < 0 || o >= GS_OPD_COUNT || !gs_operand_ds_exists(c, o))
        return false;
    int n;
    const struct gs_toleration *t = ds_tolerations(c, o, &n);
    if (!tolerates(taints, ntaints, t, n))
        return false;
    if (o == GS_OPD_NFD_WORKER)
        return true; /* no nodeSelector: every node */
    if (c->managed_by == GS_MANAGED_HELM)
        return helm_affinity(labels);
    if (!label_is(labels, deploy_key(o), "true"))
        return false;
    /* A precompiled driver runs one DaemonSet per kernel, each selecting its kernel-version.full:
     * together they select every node NFD gave a kernel label. */
    if (o == GS_OPD_DRIVER && c->use_precompiled)
        return labels && gs_labels_get(labels, "feature.node.kubernetes.io/kernel-version.full");
    return true;
}

static const char *label(const struct gs_bringup_ctx *ctx, const char *key)
{
    return ctx->labels ? gs_labels_get(ctx->labels, key) : NULL;
}

/* OP hasMIGCapableGPU: GFD's mig.capable label, else a product name with h100/a100/a30. */
static bool mig_capable(const struct gs_bringup_ctx *ctx, const struct gs_node_bringup *b)
{
    const char *l = label(ctx, "nvidia.com/mig.capable");
    if (l)
        return strcmp(l, "true") == 0;
    if (b->node.catalog)
        return b->node.catalog->mig_capable;
    const char *p = b->node.product;
    if (!p)
        return false;
    char low[128];
    size_t i = 0;
    for (; p[i] && i < sizeof low - 1; i++)
        low[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] - 'A' + 'a' : p[i]);
    low[i] = '\0';
    return strstr(low, "h100") || strstr(low, "a100") || strstr(low, "a30");
}

/* The deploy-label key of operand o (static storage per operand). */
static const char *deploy_key(enum gs_operand o)
{
    static const char *const keys[GS_OPD_COUNT] = {
        [GS_OPD_DRIVER] = "nvidia.com/gpu.deploy.driver",
        [GS_OPD_TOOLKIT] = "nvidia.com/gpu.deploy.container-toolkit",
        [GS_OPD_DEVICE_PLUGIN] = "nvidia.com/gpu.deploy.device-plugin",
        [GS_OPD_GFD] = "nvidia.com/gpu.deploy.gpu-feature-discovery",
        [GS_OPD_MIG_MANAGER] = "nvidia.com/gpu.deploy.mig-manager",
        [GS_OPD_DCGM_EXPORTER] = "nvidia.com/gpu.deploy.dcgm-exporter",
        [GS_OPD_VALIDATOR] = "nvidia.com/gpu.deploy.operator-validator",
    };
    return o > 0 && o < GS_OPD_COUNT ? keys[o] : NULL;
}

/* Deploy labels the operator sets that no modelled operand selects on (dcgm, node status
 * exporter, client): written for fidelity of the node's labels. */
static const char *const other_deploy_keys[] = {
    "nvidia.com/gpu.deploy.dcgm",
    "nvidia.com/gpu.deploy.node-status-exporter",
    "nvidia.com/gpu.deploy.client",
};

/* Which operands have a pod on the node, from its labels (after the operator labelled it) and
 * the configuration. Also decides the driver mode. */
static void compute_deployed(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, bool want[GS_OPD_COUNT])
{
    const struct gs_operator_config *c = ctx->cfg;
    memset(want, 0, sizeof(bool) * GS_OPD_COUNT);
    bool gpu = b->node.gpu_count > 0;
    bool ds_ok = ds_tolerated(ctx);
    switch (c->managed_by) {
    case GS_MANAGED_GPU_OPERATOR:
        for (int o = GS_OPD_DRIVER; o < GS_OPD_COUNT; o++) {
            const char *v = label(ctx, deploy_key(o));
            want[o] = gpu && b->operator_labelled && ds_ok && v && strcmp(v, "true") == 0 &&
                      operand_enabled(c, (enum gs_operand)o);
        }
        break;
    case GS_MANAGED_HELM:
        /* The device-plugin chart: plugin and GFD select nodes by the chart's node affinity
         * (NFD's PCI label, or gpu.present). */
        want[GS_OPD_DEVICE_PLUGIN] = gpu && ds_ok && helm_affinity(ctx->labels) && c->device_plugin_enabled;
        want[GS_OPD_GFD] = gpu && ds_ok && helm_affinity(ctx->labels) && c->gfd_enabled;
        break;
    case GS_MANAGED_HOST:
        break;
    }
    /* Driver mode: driver.enabled=false, or a node whose deploy.driver is not "true" (false,
     * pre-installed), uses the host's driver. */
    const char *dv = label(ctx, "nvidia.com/gpu.deploy.driver");
    if (c->managed_by != GS_MANAGED_GPU_OPERATOR || !c->driver_enabled || (dv && strcmp(dv, "true") != 0))
        b->driver_mode = GS_DRIVER_HOST;
    else
        b->driver_mode = c->use_precompiled ? GS_DRIVER_PRECOMPILED : GS_DRIVER_COMPILED;
}

/* Stop an operand's pod (label removed, opted out): it disappears; the device plugin's
 * resources go with it (kubelet marks the endpoint's devices unhealthy). */
static void stop_operand(struct gs_node_bringup *b, struct gs_bringup_actions *out, enum gs_operand o)
{
    gs_bu_set_status(b, out, o, GS_OPD_ABSENT, false);
    switch (o) {
    case GS_OPD_DRIVER:
        b->pending &= ~(1u << GS_BT_DRIVER | 1u << GS_BT_DRIVER_RETRY);
        b->backoff_n = 0;
        break;
    case GS_OPD_TOOLKIT: b->pending &= ~(1u << GS_BT_TOOLKIT); break;
    case GS_OPD_DEVICE_PLUGIN:
        b->pending &= ~(1u << GS_BT_DEVICE_PLUGIN);
        b->plugin_registered = false;
        gs_bu_set_allocatable(b, out, 0);
        break;
    case GS_OPD_GFD:
        /* GFD labels again when its pod comes back (paused for a MIG change, re-enabled). */
        b->pending &= ~(1u << GS_BT_GFD);
        b->gfd_labelled = false;
        break;
    case GS_OPD_MIG_MANAGER: b->pending &= ~(1u << GS_BT_MIG_MANAGER); break;
    case GS_OPD_DCGM_EXPORTER: b->pending &= ~(1u << GS_BT_DCGM_EXPORTER); break;
    case GS_OPD_VALIDATOR:
        b->pending &= ~(1u << GS_BT_DRIVER_VALIDATION | 1u << GS_BT_TOOLKIT_VALIDATION |
                        1u << GS_BT_CUDA_VALIDATION | 1u << GS_BT_PLUGIN_VALIDATION);
        break;
    default: break;
    }
}

static void apply_deployed(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                           struct gs_bringup_actions *out)
{
    bool want[GS_OPD_COUNT];
    compute_deployed(ctx, b, want);
    for (int o = GS_OPD_DRIVER; o < GS_OPD_COUNT; o++) {
        if (b->deployed[o] && !want[o])
            stop_operand(b, out, (enum gs_operand)o);
        b->deployed[o] = want[o];
    }
}

/* ---------------------------------------------------------------- label passes */

/* The kernel version labels NFD's kernel source writes (kernel-version.full/.major/.minor/
 * .revision). */
static void nfd_kernel_labels(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                              struct gs_bringup_actions *out)
{
    if (!b->kernel)
        return;
    gs_bu_label_set(out, "feature.node.kubernetes.io/kernel-version.full", b->kernel);
    b->kernel_label = b->kernel;
    long part[3] = {0, 0, 0};
    const char *s = b->kernel;
    for (int i = 0; i < 3 && *s; i++) {
        char *end;
        part[i] = strtol(s, &end, 10);
        if (end == s)
            break;
        s = *end == '.' ? end + 1 : end;
        if (*end != '.')
            break;
    }
    static const char *const keys[3] = {"feature.node.kubernetes.io/kernel-version.major",
                                        "feature.node.kubernetes.io/kernel-version.minor",
                                        "feature.node.kubernetes.io/kernel-version.revision"};
    for (int i = 0; i < 3; i++)
        gs_bu_label_set(out, keys[i], ctx->arena ? gs_arena_printf(ctx->arena, "%ld", part[i]) : "0");
}

/* OP NodeLabelingReconciler: gpu.present, the deploy labels (an existing non-empty value is
 * kept, so opt-outs and pauses survive), mig.config; deploy.operands=false removes them all. */
static void operator_labels(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                            struct gs_bringup_actions *out)
{
    const struct gs_operator_config *c = ctx->cfg;
    gs_bu_label_set(out, "nvidia.com/gpu.present", "true");
    const char *ops = label(ctx, "nvidia.com/gpu.deploy.operands");
    bool disabled = ops && strcmp(ops, "false") == 0;
    bool mig = mig_capable(ctx, b);
    for (int o = GS_OPD_DRIVER; o < GS_OPD_COUNT; o++) {
        const char *k = deploy_key((enum gs_operand)o);
        const char *v = label(ctx, k);
        if (disabled) {
            if (v)
                gs_bu_label_del(out, k);
            continue;
        }
        if (o == GS_OPD_MIG_MANAGER && !mig)
            continue;
        if (!v || !*v)
            gs_bu_label_set(out, k, "true");
    }
    for (size_t i = 0; i < sizeof other_deploy_keys / sizeof other_deploy_keys[0]; i++) {
        const char *v = label(ctx, other_deploy_keys[i]);
        if (disabled && v)
            gs_bu_label_del(out, other_deploy_keys[i]);
        else if (!disabled && (!v || !*v))
            gs_bu_label_set(out, other_deploy_keys[i], "true");
    }
    if (!disabled && mig && c->mig_manager_enabled && c->mig_config_default && !label(ctx, "nvidia.com/mig.config"))
        gs_bu_label_set(out, "nvidia.com/mig.config", c->mig_config_default);
}

/* ---------------------------------------------------------------- the chain */

static void driver_attempt(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                           struct gs_bringup_actions *out);

void gs_bu_advance(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, struct gs_bringup_actions *out)
{
    const struct gs_operator_config *c = ctx->cfg;
    if (!b->joined || b->rebooting)
        return;
    bool gpu = b->node.gpu_count > 0;

    /* 1. NFD worker: one labelling pass per boot. */
    if (c->managed_by != GS_MANAGED_HOST && !b->nfd_pass_done) {
        if (!nfd_tolerated(ctx)) {
            gs_bu_set_status(b, out, GS_OPD_NFD_WORKER, GS_OPD_ABSENT, false);
        } else if (!gs_bu_pending(b, GS_BT_NFD_LABEL)) {
            gs_bu_set_status(b, out, GS_OPD_NFD_WORKER, GS_OPD_CONTAINER_CREATING, false);
            gs_bu_start_timer(ctx, b, out, GS_BT_NFD_LABEL, gs_bu_step(ctx, GS_STEP_NFD_LABEL), false);
        }
    }
    if (!gpu)
        return;

    /* 2. The operator's labels, once NFD found the GPU. */
    if (c->managed_by == GS_MANAGED_GPU_OPERATOR) {
        if (!b->nfd_labelled)
            return;
        if (!b->operator_labelled) {
            if (!gs_bu_pending(b, GS_BT_OPERATOR_LABEL))
                gs_bu_start_timer(ctx, b, out, GS_BT_OPERATOR_LABEL, gs_bu_step(ctx, GS_STEP_OPERATOR_LABEL), false);
            return;
        }
    }
    apply_deployed(ctx, b, out);
    bool validating = c->managed_by == GS_MANAGED_GPU_OPERATOR;

    /* 3. The driver pod. A precompiled driver's DaemonSet selects on kernel-version.full, so
     * after a reboot its pod appears only once NFD relabelled the kernel. */
    if (b->deployed[GS_OPD_DRIVER]) {
        bool ds_matches = b->driver_mode != GS_DRIVER_PRECOMPILED || !b->kernel ||
                          (b->kernel_label && strcmp(b->kernel_label, b->kernel) == 0);
        if (!ds_matches)
            gs_bu_set_status(b, out, GS_OPD_DRIVER, GS_OPD_ABSENT, false);
        else if (b->status[GS_OPD_DRIVER] == GS_OPD_ABSENT)
            driver_attempt(ctx, b, out);
    }

    /* 4. driver-ready (validator driver-validation, also the toolkit's init container). Without
     * the operator (helm, host) nothing validates: the host driver either works or not. */
    bool driver_ok = b->driver_mode == GS_DRIVER_HOST ? host_driver_ok(b) : b->driver_ctr_ready;
    if (!validating) {
        b->driver_ready = driver_ok;
        b->toolkit_installed = b->toolkit_ready = driver_ok;
    } else if (!b->driver_ready && driver_ok && (b->deployed[GS_OPD_VALIDATOR] || b->deployed[GS_OPD_TOOLKIT]) &&
               !gs_bu_pending(b, GS_BT_DRIVER_VALIDATION)) {
        gs_bu_start_timer(ctx, b, out, GS_BT_DRIVER_VALIDATION,
                    gs_bu_step(ctx, b->driver_mode == GS_DRIVER_HOST ? GS_STEP_DRIVER_HOST : GS_STEP_DRIVER_VALIDATION),
                    false);
    }

    /* 5. The container toolkit; without its pod the host's toolkit is used. */
    if (b->deployed[GS_OPD_TOOLKIT]) {
        if (!b->driver_ready) {
            gs_bu_set_status(b, out, GS_OPD_TOOLKIT, GS_OPD_INIT, false);
        } else if (!b->toolkit_installed) {
            gs_bu_set_status(b, out, GS_OPD_TOOLKIT, GS_OPD_RUNNING, false);
            if (!gs_bu_pending(b, GS_BT_TOOLKIT))
                gs_bu_start_timer(ctx, b, out, GS_BT_TOOLKIT, gs_bu_step(ctx, GS_STEP_TOOLKIT), false);
        } else {
            gs_bu_set_status(b, out, GS_OPD_TOOLKIT, GS_OPD_RUNNING, true);
        }
    } else if (b->driver_ready) {
        b->toolkit_installed = true;
    }

    /* 6. toolkit-ready (validator toolkit-validation). */
    if (validating && !b->toolkit_ready && b->toolkit_installed && b->driver_ready &&
        b->deployed[GS_OPD_VALIDATOR] && !gs_bu_pending(b, GS_BT_TOOLKIT_VALIDATION))
        gs_bu_start_timer(ctx, b, out, GS_BT_TOOLKIT_VALIDATION, gs_bu_step(ctx, GS_STEP_TOOLKIT_VALIDATION), false);

    /* 7. The operands that wait for toolkit-ready. */
    static const struct {
        enum gs_operand o;
        enum gs_bringup_timer t;
        enum gs_step s;
    } deps[] = {
        {GS_OPD_DEVICE_PLUGIN, GS_BT_DEVICE_PLUGIN, GS_STEP_DEVICE_PLUGIN},
        {GS_OPD_GFD, GS_BT_GFD, GS_STEP_GFD},
        {GS_OPD_MIG_MANAGER, GS_BT_MIG_MANAGER, GS_STEP_MIG_MANAGER},
        {GS_OPD_DCGM_EXPORTER, GS_BT_DCGM_EXPORTER, GS_STEP_DCGM_EXPORTER},
    };
    for (size_t i = 0; i < sizeof deps / sizeof deps[0]; i++) {
        enum gs_operand o = deps[i].o;
        if (!b->deployed[o] || b->ready[o])
            continue;
        if (!validating && !b->toolkit_ready) {
            /* The standalone plugin fails to initialise NVML (failOnInitError) and restarts. */
            gs_bu_set_status(b, out, o, GS_OPD_CRASH_LOOP, false);
        } else if (!b->toolkit_ready) {
            gs_bu_set_status(b, out, o, GS_OPD_INIT, false);
        } else {
            gs_bu_set_status(b, out, o, GS_OPD_RUNNING, false);
            if (!gs_bu_pending(b, deps[i].t))
                gs_bu_start_timer(ctx, b, out, deps[i].t, gs_bu_step(ctx, deps[i].s), false);
        }
    }
    /* managedBy host: the node image's plugin registers once the host driver works. */
    if (c->managed_by == GS_MANAGED_HOST && !b->plugin_registered && b->driver_ready &&
        !gs_bu_pending(b, GS_BT_DEVICE_PLUGIN))
        gs_bu_start_timer(ctx, b, out, GS_BT_DEVICE_PLUGIN, gs_bu_step(ctx, GS_STEP_DEVICE_PLUGIN), false);

    /* 8. The validator: Init:k/4 as its init containers pass, then Running. */
    if (b->deployed[GS_OPD_VALIDATOR]) {
        if (b->toolkit_ready && !b->cuda_ready && !gs_bu_pending(b, GS_BT_CUDA_VALIDATION))
            gs_bu_start_timer(ctx, b, out, GS_BT_CUDA_VALIDATION, gs_bu_step(ctx, GS_STEP_CUDA_VALIDATION), false);
        /* plugin-validation needs the plugin registered (capacity > 0); with no plugin on the
         * node there is nothing to validate (unverified: modelled as passing). */
        bool plugin_ok = b->plugin_registered || !b->deployed[GS_OPD_DEVICE_PLUGIN];
        if (b->cuda_ready && !b->plugin_ready && plugin_ok && !gs_bu_pending(b, GS_BT_PLUGIN_VALIDATION))
            gs_bu_start_timer(ctx, b, out, GS_BT_PLUGIN_VALIDATION, gs_bu_step(ctx, GS_STEP_PLUGIN_VALIDATION), false);
        int k = 0;
        if (b->driver_ready) {
            k = 1;
            if (b->toolkit_ready) {
                k = 2;
                if (b->cuda_ready) {
                    k = 3;
                    if (b->plugin_ready)
                        k = 4;
                }
            }
        }
        b->validator_init = k < 4 ? k : 4;
        if (k < 4)
            gs_bu_set_status(b, out, GS_OPD_VALIDATOR, GS_OPD_INIT, false);
        else
            gs_bu_set_status(b, out, GS_OPD_VALIDATOR, GS_OPD_RUNNING, true);
    }
}

/* One try of the driver container: the install timer, or a failure and kubelet's back-off. */
static void driver_attempt(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                           struct gs_bringup_actions *out)
{
    const struct gs_operator_config *c = ctx->cfg;
    bool ok;
    bool pull = b->driver_mode == GS_DRIVER_PRECOMPILED;
    if (pull)
        ok = gs_bu_has_image(ctx, b->kernel);
    else
        ok = has_headers(ctx, b->kernel) && !build_failure(ctx, b->kernel, b->driver_version);
    if (ok) {
        /* Running 0/1 while it compiles or loads; Ready after the startup probe. */
        b->backoff_n = 0;
        gs_bu_set_status(b, out, GS_OPD_DRIVER, GS_OPD_RUNNING, false);
        gs_bu_start_timer(ctx, b, out, GS_BT_DRIVER,
                    gs_bu_step(ctx, pull ? GS_STEP_DRIVER_PRECOMPILED : GS_STEP_DRIVER_COMPILE), false);
        return;
    }
    /* No headers ("Could not resolve Linux kernel version") or no image for the kernel: the
     * first failure shows Error / ErrImagePull, later ones the back-off status. */
    b->backoff_n++;
    if (pull) {
        gs_bu_set_status(b, out, GS_OPD_DRIVER, b->backoff_n == 1 ? GS_OPD_ERR_IMAGE_PULL : GS_OPD_IMAGE_PULL_BACKOFF, false);
    } else {
        if (b->backoff_n > 1)
            b->restarts[GS_OPD_DRIVER]++;
        gs_bu_set_status(b, out, GS_OPD_DRIVER, b->backoff_n == 1 ? GS_OPD_ERROR : GS_OPD_CRASH_LOOP, false);
    }
    gs_time d = gs_kubelet_backoff(b->backoff_n);
    /* imagePullRetry caps the pull back-off (kubelet's cap is 300 s). */
    if (pull && c->timings) {
        gs_time cap = gs_dur_draw(&c->timings->step[GS_STEP_IMAGE_PULL_BACKOFF], ctx->rng);
        if (cap > 0 && cap < d)
            d = cap;
    }
    b->retry_at = ctx->now + d;
    /* Background: nothing but a later event (image published, reboot) can change the outcome. */
    gs_bu_start_timer(ctx, b, out, GS_BT_DRIVER_RETRY, d, true);
}

/* ---------------------------------------------------------------- GFD labels */

/* The labels GPU feature discovery writes (models/gfd.c, reference §4), as actions. */
static void gfd_labels(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, struct gs_bringup_actions *out)
{
    if (!ctx->arena)
        return;
    const char *ms = ctx->cfg->mig_strategy;
    struct gs_gfd_input in = {
        .product = b->node.catalog,
        .product_name = b->node.product,
        .gpu_count = b->node.gpu_count,
        /* Only an operator-built driver's version is a full NVML version: a precompiled one
         * names a branch ("535"); a host driver's is the pool's hostDriver.version. */
        .driver_version = b->driver_mode == GS_DRIVER_COMPILED ? b->driver_version
                          : b->driver_mode == GS_DRIVER_HOST   ? b->node.host_driver_version
                                                               : NULL,
        .sharing = GS_SHARING_NONE,
        .replicas = 1,
        .mig_strategy = ms && strcmp(ms, "single") == 0  ? GS_MIG_SINGLE
                        : ms && strcmp(ms, "mixed") == 0 ? GS_MIG_MIXED
                                                         : GS_MIG_NONE,
    };
    /* The device plugin's config (sharing, renames, its MIG strategy) and the MIG layouts. */
    if (ctx->dp)
        gs_dp_gfd_input(ctx->dp, &in);
    struct gs_labels l = {0};
    if (gs_gfd_labels(&in, &l, ctx->arena) != 0)
        return;
    if (ctx->mig && b->node.product &&
        gs_mig_gfd_labels(in.mig_strategy, b->node.product, ctx->mig, b->node.gpu_count, ctx->dp, &l, ctx->arena))
        return;
    for (int i = 0; i < l.n; i++)
        gs_bu_label_set(out, l.kv[i].key, l.kv[i].value);
    /* Labels an earlier pass wrote that this one does not (a MIG profile gone, no sharing any
     * more): GFD owns them, so they go. */
    static const char *const owned[] = {"nvidia.com/mig.strategy", "nvidia.com/gpu.multiprocessors",
                                        "nvidia.com/gpu.slices.gi", "nvidia.com/gpu.slices.ci"};
    for (int i = 0; ctx->labels && i < ctx->labels->n; i++) {
        const char *k = ctx->labels->kv[i].key;
        bool mine = strncmp(k, "nvidia.com/mig-", 15) == 0;
        for (size_t j = 0; j < sizeof owned / sizeof owned[0] && !mine; j++)
            mine = strcmp(k, owned[j]) == 0;
        if (mine && !gs_labels_get(&l, k))
            gs_bu_label_del(out, k);
    }
}

/* ---------------------------------------------------------------- inputs */

void gs_bringup_init(struct gs_node_bringup *b, const struct gs_bringup_node *node)
{
    memset(b, 0, sizeof *b);
    b->node = *node;
    if (b->node.gpu_count > 64)
        b->node.gpu_count = 64;
    b->kernel = node->kernel;
}

void gs_bringup_join(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, struct gs_bringup_actions *out)
{
    b->joined = true;
    b->driver_version = ctx->cfg->driver_version;
    compute_deployed(ctx, b, (bool[GS_OPD_COUNT]){0});
    gs_bu_advance(ctx, b, out);
}

void gs_bringup_join_advertised(struct gs_node_bringup *b)
{
    b->joined = true;
    b->driver_mode = GS_DRIVER_HOST;
    if (b->node.gpu_count > 0) {
        b->plugin_registered = true;
        b->capacity = b->allocatable = b->node.gpu_count;
        b->schedulable_once = true;
        b->driver_ready = b->toolkit_installed = b->toolkit_ready = true;
    }
}

static void register_plugin(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                            struct gs_bringup_actions *out)
{
    (void)ctx;
    b->plugin_registered = true;
    gs_bu_set_capacity(b, out, b->node.gpu_count);
    gs_bu_set_allocatable(b, out, gs_bringup_healthy(b));
    if (b->allocatable > 0 && !b->schedulable_once) {
        b->schedulable_once = true;
        gs_bu_push(out, GS_BA_SCHEDULABLE);
    }
}

bool gs_bringup_timer(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, enum gs_bringup_timer t,
                      uint32_t generation, uint32_t token, struct gs_bringup_actions *out)
{
    if (t < 0 || t >= GS_BT_COUNT || generation != b->generation || token != b->token[t] || !gs_bu_pending(b, t))
        return false;
    b->pending &= ~(1u << t);
    switch (t) {
    case GS_BT_NFD_LABEL:
        b->nfd_pass_done = true;
        gs_bu_set_status(b, out, GS_OPD_NFD_WORKER, GS_OPD_RUNNING, true);
        if (b->node.gpu_count > 0 && !b->nfd_labelled)
            gs_bu_label_set(out, "feature.node.kubernetes.io/pci-10de.present", "true");
        b->nfd_labelled = b->node.gpu_count > 0;
        nfd_kernel_labels(ctx, b, out);
        break;
    case GS_BT_OPERATOR_LABEL:
        operator_labels(ctx, b, out);
        b->operator_labelled = true;
        /* The labels are not applied to ctx->labels yet: the caller applies the actions and
         * calls gs_bringup_labels_changed, which starts the operands. */
        return true;
    case GS_BT_DRIVER:
        b->driver_ctr_ready = true;
        gs_bu_set_status(b, out, GS_OPD_DRIVER, GS_OPD_RUNNING, true);
        break;
    case GS_BT_DRIVER_RETRY:
        driver_attempt(ctx, b, out);
        break;
    case GS_BT_DRIVER_VALIDATION:
        b->driver_ready = true;
        break;
    case GS_BT_TOOLKIT:
        b->toolkit_installed = true;
        gs_bu_set_status(b, out, GS_OPD_TOOLKIT, GS_OPD_RUNNING, true);
        break;
    case GS_BT_TOOLKIT_VALIDATION:
        b->toolkit_ready = true;
        break;
    case GS_BT_DEVICE_PLUGIN:
        if (b->deployed[GS_OPD_DEVICE_PLUGIN])
            gs_bu_set_status(b, out, GS_OPD_DEVICE_PLUGIN, GS_OPD_RUNNING, true);
        register_plugin(ctx, b, out);
        break;
    case GS_BT_GFD:
        gs_bu_set_status(b, out, GS_OPD_GFD, GS_OPD_RUNNING, true);
        if (!b->gfd_labelled)
            gfd_labels(ctx, b, out);
        b->gfd_labelled = true;
        break;
    case GS_BT_MIG_MANAGER:
        gs_bu_set_status(b, out, GS_OPD_MIG_MANAGER, GS_OPD_RUNNING, true);
        if (!ctx->mig_external && label(ctx, "nvidia.com/mig.config"))
            gs_bu_label_set(out, "nvidia.com/mig.config.state", "success");
        break;
    case GS_BT_DCGM_EXPORTER:
        gs_bu_set_status(b, out, GS_OPD_DCGM_EXPORTER, GS_OPD_RUNNING, true);
        break;
    case GS_BT_CUDA_VALIDATION:
        b->cuda_ready = true;
        break;
    case GS_BT_PLUGIN_VALIDATION:
        b->plugin_ready = true;
        break;
    case GS_BT_REBOOT:
        b->rebooting = false;
        b->kernel = b->next_kernel ? b->next_kernel : b->kernel;
        b->next_kernel = NULL;
        {
            struct gs_bringup_action *a = gs_bu_push(out, GS_BA_KERNEL);
            if (a)
                a->value = b->kernel;
        }
        break;
    case GS_BT_UPGRADE_TIMEOUT:
        return true; /* the upgrade planner's; nothing changes on the node */
    case GS_BT_COUNT:
        return false;
    }
    gs_bu_advance(ctx, b, out);
    return true;
}

/* Forget everything that lives in /run and in kubelet's memory: the validation files, the
 * device-plugin registration and its health marks. Operand pods restart (status reset without
 * emitting: what kubectl shows changes when they come back). */
static void lose_runtime_state(struct gs_node_bringup *b, struct gs_bringup_actions *out)
{
    b->generation = (b->generation + 1) & 0x7fffffffu;
    b->pending = 0;
    b->driver_ctr_ready = b->driver_ready = b->toolkit_installed = b->toolkit_ready = false;
    b->cuda_ready = b->plugin_ready = b->plugin_registered = false;
    b->unhealthy = 0;
    b->backoff_n = 0;
    b->validator_init = 0;
    gs_bu_set_allocatable(b, out, 0);
}

void gs_bringup_reboot(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, const char *kernel,
                       struct gs_bringup_actions *out)
{
    lose_runtime_state(b, out);
    /* kubelet zeroes extended resources when it starts (kubelet_node_status.go
     * reconcileExtendedResource): the plugin must register again. */
    gs_bu_set_capacity(b, out, 0);
    b->rebooting = true;
    b->next_kernel = kernel ? kernel : b->kernel;
    b->nfd_pass_done = false;
    b->gfd_labelled = false;
    for (int o = 0; o < GS_OPD_COUNT; o++) {
        if (b->status[o] != GS_OPD_ABSENT && o != GS_OPD_DRIVER)
            b->restarts[o]++;
        else if (o == GS_OPD_DRIVER && b->status[o] == GS_OPD_RUNNING)
            b->restarts[o]++;
        b->status[o] = GS_OPD_ABSENT;
        b->ready[o] = false;
    }
    gs_bu_start_timer(ctx, b, out, GS_BT_REBOOT,
                ctx->has_reboot_duration ? ctx->reboot_duration : gs_bu_step(ctx, GS_STEP_REBOOT), false);
}

void gs_bringup_image_published(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, const char *kernel,
                                struct gs_bringup_actions *out)
{
    if (!kernel || !b->kernel || strcmp(kernel, b->kernel) != 0 || b->driver_mode != GS_DRIVER_PRECOMPILED)
        return;
    if (b->status[GS_OPD_DRIVER] != GS_OPD_ERR_IMAGE_PULL && b->status[GS_OPD_DRIVER] != GS_OPD_IMAGE_PULL_BACKOFF)
        return;
    if (!gs_bu_pending(b, GS_BT_DRIVER_RETRY))
        return;
    /* Same retry time, but now a foreground timer: a run without a horizon waits for it. */
    gs_time d = b->retry_at > ctx->now ? b->retry_at - ctx->now : 0;
    gs_bu_start_timer(ctx, b, out, GS_BT_DRIVER_RETRY, d, false);
}

void gs_bringup_gfd_restart(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                            struct gs_bringup_actions *out)
{
    if (!b->joined || b->rebooting || !b->gfd_labelled || !b->deployed[GS_OPD_GFD])
        return;
    b->gfd_labelled = false;
    b->restarts[GS_OPD_GFD]++;
    gs_bu_set_status(b, out, GS_OPD_GFD, GS_OPD_RUNNING, false);
    gs_bu_start_timer(ctx, b, out, GS_BT_GFD, gs_bu_step(ctx, GS_STEP_GFD), false);
}

void gs_bringup_labels_changed(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                               struct gs_bringup_actions *out)
{
    gs_bu_advance(ctx, b, out);
}

void gs_bringup_driver_restart(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b, const char *version,
                               struct gs_bringup_actions *out)
{
    if (!b->joined || b->rebooting)
        return;
    /* k8s-driver-manager evicts the operands (paused-for-driver-upgrade), unloads the modules
     * and the validator's preStop removes the *-ready files: every operand after the driver
     * restarts and re-proves the chain. */
    lose_runtime_state(b, out);
    if (version)
        b->driver_version = version;
    b->gfd_labelled = false;
    for (int o = GS_OPD_DRIVER; o < GS_OPD_COUNT; o++) {
        if (b->status[o] != GS_OPD_ABSENT)
            b->restarts[o]++;
        b->status[o] = GS_OPD_ABSENT;
        b->ready[o] = false;
    }
    gs_bu_advance(ctx, b, out);
}
