/* The GPU Operator bring-up model, common part: operand and timer names, the configuration and
 * the device plugin's Xid policy, durations and kubelet's back-off, actions, statuses. The
 * chain itself is in bringup_chain.c, GPU health in bringup_health.c, the rollout planners in
 * bringup_upgrade.c (reference gpu-operator.md §1–§4).
 *
 * Every input ends in gs_bu_advance() (bringup_chain.c): a level-triggered pass that looks at the node's facts (the
 * validation files, which pods are ready) and starts whatever they now allow, the way the real
 * operands' init containers poll /run/nvidia/validations every 5 s. Only changes are emitted:
 * an operand's status is written when its STATUS text or readiness differs from what was last
 * shown. Timers carry (generation, token): a reboot bumps the generation, and starting a timer
 * of a kind again bumps its token, so any older timer is stale when it fires.
 */
#include "models/bringup.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "models/bringup_internal.h"

/* ---------------------------------------------------------------- names */

static const char *const operand_names[GS_OPD_COUNT] = {
    [GS_OPD_NFD_WORKER] = "gpu-operator-node-feature-discovery-worker",
    [GS_OPD_DRIVER] = "nvidia-driver-daemonset",
    [GS_OPD_TOOLKIT] = "nvidia-container-toolkit-daemonset",
    [GS_OPD_DEVICE_PLUGIN] = "nvidia-device-plugin-daemonset",
    [GS_OPD_GFD] = "gpu-feature-discovery",
    [GS_OPD_MIG_MANAGER] = "nvidia-mig-manager",
    [GS_OPD_DCGM_EXPORTER] = "nvidia-dcgm-exporter",
    [GS_OPD_VALIDATOR] = "nvidia-operator-validator",
};

/* OP controllers/state_manager.go gpuStateLabels ("container" workload config). */
static const char *const deploy_labels[GS_OPD_COUNT] = {
    [GS_OPD_NFD_WORKER] = NULL,
    [GS_OPD_DRIVER] = "driver",
    [GS_OPD_TOOLKIT] = "container-toolkit",
    [GS_OPD_DEVICE_PLUGIN] = "device-plugin",
    [GS_OPD_GFD] = "gpu-feature-discovery",
    [GS_OPD_MIG_MANAGER] = "mig-manager",
    [GS_OPD_DCGM_EXPORTER] = "dcgm-exporter",
    [GS_OPD_VALIDATOR] = "operator-validator",
};

const char *gs_operand_name(enum gs_operand o)
{
    return o >= 0 && o < GS_OPD_COUNT ? operand_names[o] : "?";
}

const char *gs_operand_deploy_label(enum gs_operand o)
{
    return o >= 0 && o < GS_OPD_COUNT ? deploy_labels[o] : NULL;
}

int gs_operand_find(const char *name)
{
    if (!name)
        return -1;
    for (int o = 0; o < GS_OPD_COUNT; o++)
        if (strcmp(name, operand_names[o]) == 0)
            return o;
    /* The k8s-device-plugin chart's names (gs_operand_ds_name, managedBy helm). */
    if (strcmp(name, "nvidia-device-plugin") == 0)
        return GS_OPD_DEVICE_PLUGIN;
    if (strcmp(name, "nvidia-device-plugin-gpu-feature-discovery") == 0)
        return GS_OPD_GFD;
    /* Precompiled drivers run one DaemonSet per kernel: nvidia-driver-daemonset-<kernel>-<os>. */
    if (strncmp(name, "nvidia-driver-daemonset-", 24) == 0)
        return GS_OPD_DRIVER;
    /* The NFD worker's name depends on the chart that installs it. */
    size_t n = strlen(name);
    if (n >= 29 && strcmp(name + n - 29, "node-feature-discovery-worker") == 0)
        return GS_OPD_NFD_WORKER;
    return -1;
}

/* DP deployments/helm/nvidia-device-plugin: templates/daemonset-device-plugin.yml (fullname),
 * daemonset-gfd.yml ("%s-gpu-feature-discovery"), the nfd subchart (nameOverride
 * node-feature-discovery) worker; release "nvidia-device-plugin". */
static const char *const helm_names[GS_OPD_COUNT] = {
    [GS_OPD_NFD_WORKER] = "nvidia-device-plugin-node-feature-discovery-worker",
    [GS_OPD_DEVICE_PLUGIN] = "nvidia-device-plugin",
    [GS_OPD_GFD] = "nvidia-device-plugin-gpu-feature-discovery",
};

const char *gs_operand_ds_name(enum gs_managed_by by, enum gs_operand o)
{
    if (o < 0 || o >= GS_OPD_COUNT)
        return NULL;
    switch (by) {
    case GS_MANAGED_GPU_OPERATOR: return operand_names[o];
    case GS_MANAGED_HELM: return helm_names[o];
    case GS_MANAGED_HOST: break;
    }
    return NULL;
}

int gs_operand_ds_find(enum gs_managed_by by, const char *name)
{
    for (int o = 0; name && o < GS_OPD_COUNT; o++) {
        const char *n = gs_operand_ds_name(by, (enum gs_operand)o);
        if (n && strcmp(n, name) == 0)
            return o;
    }
    return -1;
}

static const char *const timer_names[GS_BT_COUNT] = {
    [GS_BT_NFD_LABEL] = "nfdLabel",
    [GS_BT_OPERATOR_LABEL] = "operatorLabel",
    [GS_BT_DRIVER] = "driver",
    [GS_BT_DRIVER_RETRY] = "driverRetry",
    [GS_BT_DRIVER_VALIDATION] = "driverValidation",
    [GS_BT_TOOLKIT] = "toolkit",
    [GS_BT_TOOLKIT_VALIDATION] = "toolkitValidation",
    [GS_BT_DEVICE_PLUGIN] = "devicePlugin",
    [GS_BT_GFD] = "gfd",
    [GS_BT_MIG_MANAGER] = "migManager",
    [GS_BT_DCGM_EXPORTER] = "dcgmExporter",
    [GS_BT_CUDA_VALIDATION] = "cudaValidation",
    [GS_BT_PLUGIN_VALIDATION] = "pluginValidation",
    [GS_BT_REBOOT] = "reboot",
    [GS_BT_UPGRADE_TIMEOUT] = "upgradeValidationTimeout",
};

const char *gs_bringup_timer_name(enum gs_bringup_timer t)
{
    return t >= 0 && t < GS_BT_COUNT ? timer_names[t] : "?";
}

/* ---------------------------------------------------------------- configuration */

void gs_operator_config_defaults(struct gs_operator_config *c)
{
    memset(c, 0, sizeof *c);
    c->enabled = true;
    c->managed_by = GS_MANAGED_GPU_OPERATOR;
    c->nfd_enabled = true;
    c->driver_enabled = true;
    c->use_precompiled = false;
    c->toolkit_enabled = true;
    c->device_plugin_enabled = true;
    c->gfd_enabled = true;
    c->dcgm_exporter_enabled = true;
    c->mig_manager_enabled = true;
    c->mig_strategy = "single";
    c->mig_config_default = "all-disabled";
    c->all_headers = true;
    gs_xid_policy_parse(&c->xid, NULL, NULL);
}

static void xid_set(uint32_t *bits, int code, bool on)
{
    if (code < 0 || code >= 256)
        return;
    if (on)
        bits[code / 32] |= 1u << (code % 32);
    else
        bits[code / 32] &= ~(1u << (code % 32));
}

static bool xid_has(const uint32_t *bits, int code)
{
    return code >= 0 && code < 256 && (bits[code / 32] >> (code % 32)) & 1u;
}

/* Walk a comma-separated list; calls fn for each trimmed entry. Returns GS_EINVAL when an entry
 * is neither a number nor "all"/"xids". */
static int parse_list(const char *s, uint32_t *bits, bool *all)
{
    int rc = 0;
    while (s && *s) {
        while (*s == ' ' || *s == ',')
            s++;
        if (!*s)
            break;
        const char *e = s;
        while (*e && *e != ',')
            e++;
        size_t n = (size_t)(e - s);
        while (n > 0 && s[n - 1] == ' ')
            n--;
        char buf[32];
        if (n >= sizeof buf) {
            rc = GS_EINVAL;
        } else {
            memcpy(buf, s, n);
            buf[n] = '\0';
            char *end;
            long v = strtol(buf, &end, 10);
            if (strcmp(buf, "all") == 0 || strcmp(buf, "xids") == 0)
                *all = true;
            else if (n > 0 && *end == '\0' && v >= 0)
                xid_set(bits, (int)v, true);
            else
                rc = GS_EINVAL;
        }
        s = e;
    }
    return rc;
}

int gs_xid_policy_parse(struct gs_xid_policy *p, const char *disable, const char *enable)
{
    memset(p, 0, sizeof *p);
    /* DP internal/rm/health.go: application errors that say nothing about the device. */
    static const int defaults[] = {13, 31, 43, 45, 68, 109};
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++)
        xid_set(p->ignore, defaults[i], true);
    bool dis_all = false, en_all = false;
    uint32_t en[8] = {0};
    int rc = parse_list(disable, p->ignore, &dis_all);
    int rc2 = parse_list(enable, en, &en_all);
    if (en_all) {
        /* Everything forced back on. */
        memset(p->ignore, 0, sizeof p->ignore);
        return rc ? rc : rc2;
    }
    if (dis_all) {
        p->disabled = true;
        p->ignore_high = true;
        for (int i = 0; i < 8; i++)
            p->ignore[i] = ~0u;
    }
    for (int i = 0; i < 8; i++)
        p->ignore[i] &= ~en[i];
    /* An explicitly enabled Xid is checked even when the rest are disabled. */
    for (int i = 0; i < 8; i++)
        if (en[i])
            p->disabled = false;
    return rc ? rc : rc2;
}

bool gs_xid_ignored(const struct gs_xid_policy *p, int code)
{
    if (code < 0)
        return true;
    if (code >= 256)
        return p->ignore_high;
    return xid_has(p->ignore, code);
}

int gs_version_cmp(const char *a, const char *b)
{
    a = a ? a : "";
    b = b ? b : "";
    while (*a || *b) {
        /* Skip separators. */
        while (*a == '.' || *a == '-' || *a == '_' || *a == '+')
            a++;
        while (*b == '.' || *b == '-' || *b == '_' || *b == '+')
            b++;
        if (!*a || !*b)
            return (*a != '\0') - (*b != '\0');
        bool da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';
        if (da && db) {
            while (*a == '0' && a[1] >= '0' && a[1] <= '9')
                a++;
            while (*b == '0' && b[1] >= '0' && b[1] <= '9')
                b++;
            size_t la = 0, lb = 0;
            while (a[la] >= '0' && a[la] <= '9')
                la++;
            while (b[lb] >= '0' && b[lb] <= '9')
                lb++;
            if (la != lb)
                return la < lb ? -1 : 1;
            int c = strncmp(a, b, la);
            if (c)
                return c < 0 ? -1 : 1;
            a += la;
            b += lb;
        } else if (da != db) {
            return da ? 1 : -1; /* a number sorts after a word ("5.15.0-1" > "5.15.0-rc") */
        } else {
            size_t la = 0, lb = 0;
            while (a[la] && !strchr(".-_+0123456789", a[la]))
                la++;
            while (b[lb] && !strchr(".-_+0123456789", b[lb]))
                lb++;
            size_t m = la < lb ? la : lb;
            int c = strncmp(a, b, m);
            if (c)
                return c < 0 ? -1 : 1;
            if (la != lb)
                return la < lb ? -1 : 1;
            a += la;
            b += lb;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- durations */

gs_time gs_dur_draw(const struct gs_dur *d, struct gs_rng *rng)
{
    double v = 0;
    switch (d->kind) {
    case GS_DUR_FIXED:
        return d->fixed > 0 ? d->fixed : 0;
    case GS_DUR_UNIFORM:
        if (d->max <= d->min)
            return d->min > 0 ? d->min : 0;
        v = rng ? (double)d->min + gs_rng_uniform(rng, GS_STREAM_BRINGUP) * (double)(d->max - d->min)
                : ((double)d->min + (double)d->max) / 2;
        break;
    case GS_DUR_EXPONENTIAL:
        if (d->mean <= 0)
            return 0;
        v = rng ? gs_rng_exponential(rng, GS_STREAM_BRINGUP, (double)d->mean) : (double)d->mean;
        break;
    case GS_DUR_LOGNORMAL:
        if (d->median <= 0)
            return 0;
        v = rng && d->sigma > 0 ? gs_rng_lognormal(rng, GS_STREAM_BRINGUP, (double)d->median, d->sigma)
                                : (double)d->median;
        break;
    }
    if (!(v >= 0))
        return 0;
    if (v > 1e17) /* about 3 years: longer than any run */
        return (gs_time)1e17;
    return (gs_time)llround(v);
}

gs_time gs_kubelet_backoff(int failures)
{
    gs_time d = GS_KUBELET_BACKOFF_INITIAL;
    for (int i = 1; i < failures && d < GS_KUBELET_BACKOFF_MAX; i++)
        d *= 2;
    return d < GS_KUBELET_BACKOFF_MAX ? d : GS_KUBELET_BACKOFF_MAX;
}

int64_t gs_bringup_timer_encode(enum gs_bringup_timer t, uint32_t generation, uint32_t token)
{
    /* generation in bits 32..62 (the sign bit stays clear), the timer in 24..31, the token in
     * 0..23. Tokens wrap after 16M restarts of one timer kind: harmless in practice. */
    return (int64_t)(((uint64_t)(generation & 0x7fffffffu) << 32) | ((uint64_t)(t & 0xff) << 24) |
                     (uint64_t)(token & 0xffffffu));
}

void gs_bringup_timer_decode(int64_t v, enum gs_bringup_timer *t, uint32_t *generation, uint32_t *token)
{
    uint64_t u = (uint64_t)v;
    *generation = (uint32_t)(u >> 32) & 0x7fffffffu;
    *t = (enum gs_bringup_timer)((u >> 24) & 0xff);
    *token = (uint32_t)(u & 0xffffffu);
}

/* ---------------------------------------------------------------- actions */

struct gs_bringup_action *gs_bu_push(struct gs_bringup_actions *out, enum gs_bringup_action_kind kind)
{
    if (out->n >= GS_BRINGUP_MAX_ACTIONS) {
        out->overflow = true;
        return NULL;
    }
    struct gs_bringup_action *a = &out->a[out->n++];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    return a;
}

void gs_bu_label_set(struct gs_bringup_actions *out, const char *key, const char *value)
{
    struct gs_bringup_action *a = gs_bu_push(out, GS_BA_LABEL_SET);
    if (a) {
        a->key = key;
        a->value = value;
    }
}

void gs_bu_label_del(struct gs_bringup_actions *out, const char *key)
{
    struct gs_bringup_action *a = gs_bu_push(out, GS_BA_LABEL_DEL);
    if (a)
        a->key = key;
}

static void resource(struct gs_bringup_actions *out, enum gs_bringup_action_kind k, int64_t amount)
{
    struct gs_bringup_action *a = gs_bu_push(out, k);
    if (a) {
        a->key = "nvidia.com/gpu";
        a->amount = amount;
    }
}

void gs_bu_set_allocatable(struct gs_node_bringup *b, struct gs_bringup_actions *out, int64_t v)
{
    if (b->allocatable == v)
        return;
    b->allocatable = v;
    resource(out, GS_BA_ALLOCATABLE, v);
}

void gs_bu_set_capacity(struct gs_node_bringup *b, struct gs_bringup_actions *out, int64_t v)
{
    if (b->capacity == v)
        return;
    b->capacity = v;
    resource(out, GS_BA_CAPACITY, v);
}

void gs_bu_start_timer(const struct gs_bringup_ctx *ctx, struct gs_node_bringup *b,
                        struct gs_bringup_actions *out, enum gs_bringup_timer t, gs_time delay, bool background)
{
    (void)ctx;
    b->token[t] = (b->token[t] + 1) & 0xffffffu;
    b->pending |= 1u << t;
    struct gs_bringup_action *a = gs_bu_push(out, GS_BA_TIMER);
    if (a) {
        a->timer = t;
        a->delay = delay > 0 ? delay : 0;
        a->generation = b->generation;
        a->token = b->token[t];
        a->background = background;
    }
}

void gs_bringup_start_upgrade_timer(struct gs_node_bringup *b, gs_time delay, struct gs_bringup_actions *out)
{
    gs_bu_start_timer(NULL, b, out, GS_BT_UPGRADE_TIMEOUT, delay, false);
}

bool gs_bu_pending(const struct gs_node_bringup *b, enum gs_bringup_timer t)
{
    return (b->pending >> t) & 1u;
}

gs_time gs_bu_step(const struct gs_bringup_ctx *ctx, enum gs_step s)
{
    const struct gs_timing_profile *p = ctx->cfg ? ctx->cfg->timings : NULL;
    if (!p)
        return 0;
    return gs_dur_draw(&p->step[s], ctx->rng);
}

/* ---------------------------------------------------------------- statuses */

static const char *const init4[] = {"Init:0/4", "Init:1/4", "Init:2/4", "Init:3/4"};

const char *gs_bringup_status_text(const struct gs_node_bringup *b, enum gs_operand o)
{
    switch (b->status[o]) {
    case GS_OPD_ABSENT:
        return NULL;
    case GS_OPD_INIT:
        if (o == GS_OPD_VALIDATOR)
            return init4[b->validator_init >= 0 && b->validator_init < 4 ? b->validator_init : 0];
        return "Init:0/1";
    case GS_OPD_CONTAINER_CREATING:
        return "ContainerCreating";
    case GS_OPD_RUNNING:
        return "Running";
    case GS_OPD_ERROR:
        return "Error";
    case GS_OPD_CRASH_LOOP:
        return "CrashLoopBackOff";
    case GS_OPD_ERR_IMAGE_PULL:
        return "ErrImagePull";
    case GS_OPD_IMAGE_PULL_BACKOFF:
        return "ImagePullBackOff";
    }
    return NULL;
}

/* Set an operand's status and readiness; emit an OPERAND action when what kubectl would show
 * changed. */
void gs_bu_set_status(struct gs_node_bringup *b, struct gs_bringup_actions *out, enum gs_operand o,
                       enum gs_opd_status st, bool ready)
{
    b->status[o] = st;
    b->ready[o] = ready && st == GS_OPD_RUNNING;
    const char *text = gs_bringup_status_text(b, o);
    if (text == b->shown[o] && b->ready[o] == b->shown_ready[o])
        return;
    b->shown[o] = text;
    b->shown_ready[o] = b->ready[o];
    struct gs_bringup_action *a = gs_bu_push(out, GS_BA_OPERAND);
    if (a) {
        a->operand = o;
        a->value = text; /* NULL: the pod is gone */
        a->amount = b->ready[o];
    }
}

bool gs_bringup_validated(const struct gs_node_bringup *b)
{
    if (b->rebooting || !b->joined)
        return false;
    bool plugin = b->plugin_registered || !b->deployed[GS_OPD_DEVICE_PLUGIN];
    bool validator = !b->deployed[GS_OPD_VALIDATOR] || (b->status[GS_OPD_VALIDATOR] == GS_OPD_RUNNING && b->ready[GS_OPD_VALIDATOR]);
    return plugin && validator;
}

void gs_bringup_set_upgrade_state(struct gs_node_bringup *b, enum gs_upgrade_state s, struct gs_bringup_actions *out)
{
    if (b->upgrade == s)
        return;
    b->upgrade = s;
    const char *name = gs_upgrade_state_name(s);
    if (name)
        gs_bu_label_set(out, GS_UPGRADE_LABEL, name);
    else
        gs_bu_label_del(out, GS_UPGRADE_LABEL);
    struct gs_bringup_action *a = gs_bu_push(out, GS_BA_UPGRADE_STATE);
    if (a)
        a->value = name;
}
