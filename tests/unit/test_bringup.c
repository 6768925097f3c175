/* The GPU Operator bring-up model: chain gating for every driver mode and kernel availability,
 * opt-out labels, Xid health, device-plugin restarts, reboots, wave sizes and the driver
 * upgrade state machine. A small harness plays the run loop: it keeps the node's labels and
 * a timer list, applies the model's actions and feeds the timers back in time order. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "models/bringup.h"
#include "base/error.h"

/* ---------------------------------------------------------------- harness */

#define MAXT 256
#define GS_HOUR_TEST GS_MIN(60)

struct timer {
    gs_time at;
    int seq;
    enum gs_bringup_timer t;
    uint32_t gen, token;
    bool background;
};

struct harness {
    struct gs_arena arena;
    struct gs_operator_config cfg;
    struct gs_timing_profile prof;
    struct gs_node_bringup b;
    struct gs_labels labels;
    struct gs_taint taints[4];
    int ntaints;
    const char *published[8];
    int npublished;
    gs_time now;
    struct timer timers[MAXT];
    int ntimers, seq;
    int64_t alloc, cap;
    bool alloc_known;
    gs_time schedulable_at;
    const char *kernel_seen;
    int fired_stale;
    /* last OPERAND action per operand */
    char last_status[GS_OPD_COUNT][32];
    /* history of driver retry delays */
    gs_time retry_delays[32];
    int nretry;
};

static struct harness H;

static void profile_defaults(struct gs_timing_profile *p)
{
    memset(p, 0, sizeof *p);
    p->name = "test";
    gs_time s[GS_STEP_COUNT] = {
        [GS_STEP_NFD_LABEL] = GS_SEC(10),       [GS_STEP_OPERATOR_LABEL] = GS_SEC(5),
        [GS_STEP_DRIVER_COMPILE] = GS_SEC(180), [GS_STEP_DRIVER_PRECOMPILED] = GS_SEC(30),
        [GS_STEP_DRIVER_HOST] = GS_SEC(5),      [GS_STEP_DRIVER_VALIDATION] = GS_SEC(5),
        [GS_STEP_TOOLKIT] = GS_SEC(30),         [GS_STEP_TOOLKIT_VALIDATION] = GS_SEC(5),
        [GS_STEP_DEVICE_PLUGIN] = GS_SEC(10),   [GS_STEP_GFD] = GS_SEC(10),
        [GS_STEP_MIG_MANAGER] = GS_SEC(10),     [GS_STEP_DCGM_EXPORTER] = GS_SEC(20),
        [GS_STEP_CUDA_VALIDATION] = GS_SEC(20), [GS_STEP_PLUGIN_VALIDATION] = GS_SEC(5),
        [GS_STEP_REBOOT] = GS_SEC(120),         [GS_STEP_IMAGE_PULL_BACKOFF] = 0,
    };
    for (int i = 0; i < GS_STEP_COUNT; i++) {
        p->step[i].kind = GS_DUR_FIXED;
        p->step[i].fixed = s[i];
    }
}

static const struct gs_gpu_product h100 = {
    .product = "NVIDIA-H100-80GB-HBM3", .nvml_name = "NVIDIA H100 80GB HBM3", .memory_mib = 81559,
    .compute_major = 9, .compute_minor = 0, .family = "hopper", .mig_capable = true, .typical_per_node = 8,
};

static void setup(void)
{
    memset(&H, 0, sizeof H);
    gs_operator_config_defaults(&H.cfg);
    H.cfg.driver_version = "550.90.07";
    profile_defaults(&H.prof);
    H.cfg.timings = &H.prof;
    H.schedulable_at = -1;
}

static void teardown(void)
{
    gs_arena_free(&H.arena);
}

TestSuite(bringup, .init = setup, .fini = teardown);

static struct gs_bringup_ctx ctx(void)
{
    return (struct gs_bringup_ctx){
        .cfg = &H.cfg, .rng = NULL, .arena = &H.arena, .now = H.now, .labels = &H.labels,
        .taints = H.taints, .ntaints = H.ntaints, .published = H.published, .npublished = H.npublished,
    };
}

static void apply(struct gs_bringup_actions *out);

static void labels_changed(void)
{
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = ctx();
    gs_bringup_labels_changed(&c, &H.b, &out);
    apply(&out);
}

static void apply(struct gs_bringup_actions *out)
{
    cr_assert(!out->overflow);
    bool labels = false;
    for (int i = 0; i < out->n; i++) {
        const struct gs_bringup_action *a = &out->a[i];
        switch (a->kind) {
        case GS_BA_LABEL_SET:
            gs_labels_set(&H.labels, &H.arena, a->key, a->value);
            labels = true;
            break;
        case GS_BA_LABEL_DEL:
            gs_labels_del(&H.labels, a->key);
            labels = true;
            break;
        case GS_BA_ALLOCATABLE:
            H.alloc = a->amount;
            H.alloc_known = true;
            break;
        case GS_BA_CAPACITY:
            H.cap = a->amount;
            break;
        case GS_BA_OPERAND:
            snprintf(H.last_status[a->operand], sizeof H.last_status[0], "%s", a->value ? a->value : "");
            break;
        case GS_BA_TIMER:
            cr_assert_lt(H.ntimers, MAXT);
            H.timers[H.ntimers++] = (struct timer){H.now + a->delay, H.seq++, a->timer, a->generation, a->token,
                                                   a->background};
            if (a->timer == GS_BT_DRIVER_RETRY && H.nretry < 32)
                H.retry_delays[H.nretry++] = a->delay;
            break;
        case GS_BA_SCHEDULABLE:
            if (H.schedulable_at < 0)
                H.schedulable_at = H.now;
            break;
        case GS_BA_KERNEL:
            H.kernel_seen = a->value;
            break;
        case GS_BA_UPGRADE_STATE:
            break;
        }
    }
    if (labels)
        labels_changed();
}

/* Fire timers in (time, order started) until `until`; returns how many fired (stale ones too). */
static int run_until(gs_time until)
{
    int fired = 0;
    for (;;) {
        int best = -1;
        for (int i = 0; i < H.ntimers; i++)
            if (H.timers[i].at <= until &&
                (best < 0 || H.timers[i].at < H.timers[best].at ||
                 (H.timers[i].at == H.timers[best].at && H.timers[i].seq < H.timers[best].seq)))
                best = i;
        if (best < 0)
            break;
        struct timer t = H.timers[best];
        H.timers[best] = H.timers[--H.ntimers];
        H.now = t.at;
        struct gs_bringup_actions out = {0};
        struct gs_bringup_ctx c = ctx();
        if (!gs_bringup_timer(&c, &H.b, t.t, t.gen, t.token, &out))
            H.fired_stale++;
        apply(&out);
        fired++;
    }
    if (H.now < until)
        H.now = until;
    return fired;
}

static void join(int gpus, const char *kernel)
{
    struct gs_bringup_node n = {.gpu_count = gpus, .product = gpus ? h100.product : NULL,
                                .catalog = gpus ? &h100 : NULL, .kernel = kernel};
    gs_bringup_init(&H.b, &n);
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = ctx();
    gs_bringup_join(&c, &H.b, &out);
    apply(&out);
}

static const char *st(enum gs_operand o)
{
    const char *s = gs_bringup_status_text(&H.b, o);
    return s ? s : "<none>";
}

static const char *lbl(const char *k)
{
    const char *v = gs_labels_get(&H.labels, k);
    return v ? v : "<absent>";
}

static void reboot(const char *kernel)
{
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = ctx();
    gs_bringup_reboot(&c, &H.b, kernel, &out);
    apply(&out);
}

/* Timeline of the default profile, compiled driver with headers:
 *   10 s NFD labels, 15 s operator labels, 195 s driver built, 200 s driver-ready,
 *   230 s toolkit, 235 s toolkit-ready, 245 s plugin registered (allocatable 8),
 *   255 s cuda-ready, 260 s plugin-ready: validator Running. */

/* ---------------------------------------------------------------- the chain */

Test(bringup, compiled_driver_with_headers_brings_the_node_up_in_order)
{
    join(8, "5.15.0-105-generic");
    cr_assert_str_eq(st(GS_OPD_NFD_WORKER), "ContainerCreating");
    run_until(GS_SEC(10));
    cr_assert_str_eq(lbl("feature.node.kubernetes.io/pci-10de.present"), "true");
    cr_assert_str_eq(lbl("feature.node.kubernetes.io/kernel-version.full"), "5.15.0-105-generic");
    cr_assert_str_eq(lbl("feature.node.kubernetes.io/kernel-version.major"), "5");
    cr_assert_str_eq(lbl("feature.node.kubernetes.io/kernel-version.minor"), "15");
    cr_assert_str_eq(lbl("nvidia.com/gpu.present"), "<absent>");
    run_until(GS_SEC(15));
    cr_assert_str_eq(lbl("nvidia.com/gpu.present"), "true");
    cr_assert_str_eq(lbl("nvidia.com/gpu.deploy.driver"), "true");
    cr_assert_str_eq(lbl("nvidia.com/gpu.deploy.mig-manager"), "true"); /* H100 is MIG-capable */
    cr_assert_str_eq(lbl("nvidia.com/mig.config"), "all-disabled");
    cr_assert_str_eq(st(GS_OPD_DRIVER), "Running");
    cr_assert(!H.b.ready[GS_OPD_DRIVER]);
    cr_assert_str_eq(st(GS_OPD_TOOLKIT), "Init:0/1");
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "Init:0/1");
    cr_assert_str_eq(st(GS_OPD_GFD), "Init:0/1");
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Init:0/4");
    run_until(GS_SEC(199));
    cr_assert(H.b.ready[GS_OPD_DRIVER]);
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Init:0/4");
    run_until(GS_SEC(200));
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Init:1/4");
    cr_assert_str_eq(st(GS_OPD_TOOLKIT), "Running");
    run_until(GS_SEC(235));
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Init:2/4");
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "Running");
    cr_assert_eq(H.alloc, 0);
    run_until(GS_SEC(244));
    cr_assert_eq(H.schedulable_at, -1);
    run_until(GS_SEC(245));
    cr_assert_eq(H.alloc, 8);
    cr_assert_eq(H.cap, 8);
    cr_assert_eq(H.schedulable_at, GS_SEC(245));
    cr_assert_str_eq(lbl("nvidia.com/gpu.product"), "NVIDIA-H100-80GB-HBM3");
    cr_assert_str_eq(lbl("nvidia.com/gpu.count"), "8");
    run_until(GS_SEC(255));
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Init:3/4");
    run_until(GS_SEC(260));
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Running");
    cr_assert(gs_bringup_validated(&H.b));
    cr_assert_str_eq(st(GS_OPD_DCGM_EXPORTER), "Running");
    cr_assert_str_eq(st(GS_OPD_MIG_MANAGER), "Running");
    cr_assert_str_eq(lbl("nvidia.com/mig.config.state"), "success");
    cr_assert_str_eq(lbl("nvidia.com/cuda.driver-version.full"), "550.90.07");
    cr_assert_eq(H.ntimers, 0, "nothing left: %d timers", H.ntimers);
}

Test(bringup, compiled_driver_without_headers_crash_loops_with_kubelet_backoff)
{
    H.cfg.all_headers = false;
    static const char *const hdrs[] = {"5.15.0-105-generic"};
    H.cfg.available_headers = hdrs;
    H.cfg.navailable_headers = 1;
    join(8, "5.15.0-106-generic");
    run_until(GS_SEC(15));
    cr_assert_str_eq(st(GS_OPD_DRIVER), "Error");
    run_until(GS_SEC(15) + GS_SEC(10));
    cr_assert_str_eq(st(GS_OPD_DRIVER), "CrashLoopBackOff");
    run_until(GS_MIN(60));
    cr_assert_str_eq(st(GS_OPD_DRIVER), "CrashLoopBackOff");
    cr_assert_str_eq(st(GS_OPD_TOOLKIT), "Init:0/1");
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "Init:0/1");
    cr_assert_str_eq(st(GS_OPD_GFD), "Init:0/1");
    cr_assert_str_eq(st(GS_OPD_DCGM_EXPORTER), "Init:0/1");
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Init:0/4");
    cr_assert_eq(H.alloc, 0);
    cr_assert_eq(H.schedulable_at, -1);
    gs_time want[] = {GS_SEC(10), GS_SEC(20), GS_SEC(40), GS_SEC(80), GS_SEC(160), GS_SEC(300), GS_SEC(300)};
    cr_assert_geq(H.nretry, 7);
    for (int i = 0; i < 7; i++)
        cr_assert_eq(H.retry_delays[i], want[i], "retry %d: %lld", i, (long long)H.retry_delays[i]);
    cr_assert_gt(H.b.restarts[GS_OPD_DRIVER], 5);
    for (int i = 0; i < H.ntimers; i++)
        cr_assert(H.timers[i].background, "only background retries are left");
}

Test(bringup, driver_build_failure_on_newer_kernels_crash_loops)
{
    struct gs_build_failure f = {.kernel_at_least = "6.8", .driver_below = "550.100", .message = "build failed"};
    H.cfg.build_failures = &f;
    H.cfg.nbuild_failures = 1;
    join(8, "6.8.0-31-generic");
    run_until(GS_MIN(5));
    cr_assert_str_eq(st(GS_OPD_DRIVER), "CrashLoopBackOff");
    teardown();
    setup();
    H.cfg.build_failures = &f;
    H.cfg.nbuild_failures = 1;
    H.cfg.driver_version = "550.127.05";
    join(8, "6.8.0-31-generic");
    run_until(GS_MIN(5));
    cr_assert_eq(H.alloc, 8);
}

Test(bringup, precompiled_driver_with_an_image_is_quick)
{
    H.cfg.use_precompiled = true;
    H.cfg.driver_version = "535";
    static const char *const k[] = {"5.15.0-117-generic"};
    H.cfg.precompiled_kernels = k;
    H.cfg.nprecompiled_kernels = 1;
    join(8, "5.15.0-117-generic");
    run_until(GS_SEC(44));
    cr_assert(!H.b.ready[GS_OPD_DRIVER]);
    run_until(GS_SEC(45)); /* 15 s labels + 30 s pull and load */
    cr_assert(H.b.ready[GS_OPD_DRIVER]);
    run_until(GS_SEC(95)); /* 45 + 5 + 30 + 5 + 10 */
    cr_assert_eq(H.alloc, 8);
    cr_assert_eq(H.schedulable_at, GS_SEC(95));
    /* A branch has no x.y.z: no driver-version labels. */
    cr_assert_str_eq(lbl("nvidia.com/cuda.driver-version.full"), "<absent>");
}

Test(bringup, precompiled_driver_without_an_image_backs_off_until_published)
{
    H.cfg.use_precompiled = true;
    H.cfg.driver_version = "535";
    static const char *const k[] = {"5.15.0-117-generic"};
    H.cfg.precompiled_kernels = k;
    H.cfg.nprecompiled_kernels = 1;
    join(8, "5.15.0-118-generic");
    run_until(GS_SEC(15));
    cr_assert_str_eq(st(GS_OPD_DRIVER), "ErrImagePull");
    run_until(GS_SEC(25));
    cr_assert_str_eq(st(GS_OPD_DRIVER), "ImagePullBackOff");
    run_until(GS_HOUR_TEST);
    cr_assert_str_eq(st(GS_OPD_DRIVER), "ImagePullBackOff");
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Init:0/4");
    cr_assert_eq(H.alloc, 0);
    cr_assert_eq(H.b.restarts[GS_OPD_DRIVER], 0, "pull failures are not restarts");
    /* Published: nothing happens before the pending retry, which is now foreground. */
    gs_time retry = H.b.retry_at;
    H.published[H.npublished++] = "5.15.0-118-generic";
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = ctx();
    gs_bringup_image_published(&c, &H.b, "5.15.0-118-generic", &out);
    cr_assert_eq(out.n, 1);
    cr_assert_eq(out.a[0].kind, GS_BA_TIMER);
    cr_assert(!out.a[0].background);
    cr_assert_eq(H.now + out.a[0].delay, retry);
    apply(&out);
    run_until(retry - 1);
    cr_assert_str_eq(st(GS_OPD_DRIVER), "ImagePullBackOff");
    run_until(retry);
    cr_assert_str_eq(st(GS_OPD_DRIVER), "Running");
    run_until(retry + GS_SEC(80));
    cr_assert_eq(H.alloc, 8);
    /* The old background retry fired stale. */
    cr_assert_geq(H.fired_stale, 1);
}

Test(bringup, image_pull_retry_caps_the_pull_backoff)
{
    H.cfg.use_precompiled = true;
    H.prof.step[GS_STEP_IMAGE_PULL_BACKOFF].fixed = GS_SEC(30);
    join(8, "5.15.0-118-generic");
    run_until(GS_MIN(5));
    gs_time want[] = {GS_SEC(10), GS_SEC(20), GS_SEC(30), GS_SEC(30)};
    cr_assert_geq(H.nretry, 4);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(H.retry_delays[i], want[i], "retry %d: %lld", i, (long long)H.retry_delays[i]);
}

Test(bringup, an_image_for_another_kernel_changes_nothing)
{
    H.cfg.use_precompiled = true;
    join(8, "5.15.0-118-generic");
    run_until(GS_MIN(10));
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = ctx();
    gs_bringup_image_published(&c, &H.b, "5.15.0-119-generic", &out);
    cr_assert_eq(out.n, 0);
}

Test(bringup, host_driver_on_its_kernel_works_without_a_driver_pod)
{
    H.cfg.driver_enabled = false;
    join(8, "5.15.0-105-generic");
    run_until(GS_MIN(5));
    cr_assert_str_eq(st(GS_OPD_DRIVER), "<none>");
    cr_assert_eq(H.b.driver_mode, GS_DRIVER_HOST);
    cr_assert_eq(H.alloc, 8);
    /* 15 s labels + 5 s host validation + 30 + 5 + 10 */
    cr_assert_eq(H.schedulable_at, GS_SEC(65));
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Running");
}

Test(bringup, host_driver_on_another_kernel_loops_in_driver_validation)
{
    H.cfg.driver_enabled = false;
    join(8, "5.15.0-105-generic");
    run_until(GS_MIN(5));
    reboot("5.15.0-106-generic");
    cr_assert_eq(H.alloc, 0);
    cr_assert_eq(H.cap, 0);
    run_until(GS_MIN(30));
    cr_assert_str_eq(H.kernel_seen, "5.15.0-106-generic");
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Init:0/4");
    cr_assert_str_eq(st(GS_OPD_TOOLKIT), "Init:0/1");
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "Init:0/1");
    cr_assert_eq(H.alloc, 0);
    cr_assert_eq(H.ntimers, 0, "nothing polls: only a reboot changes the host driver");
}

Test(bringup, host_driver_built_for_both_kernels_survives_the_reboot)
{
    H.cfg.driver_enabled = false;
    static const char *const k[] = {"5.15.0-105-generic", "5.15.0-106-generic"};
    struct gs_bringup_node n = {.gpu_count = 8, .product = h100.product, .catalog = &h100,
                                .kernel = "5.15.0-105-generic", .host_driver_kernels = k, .nhost_driver_kernels = 2};
    gs_bringup_init(&H.b, &n);
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = ctx();
    gs_bringup_join(&c, &H.b, &out);
    apply(&out);
    run_until(GS_MIN(5));
    reboot("5.15.0-106-generic");
    run_until(GS_MIN(15));
    cr_assert_eq(H.alloc, 8);
}

/* ---------------------------------------------------------------- opt-outs */

Test(bringup, deploy_operands_false_strips_every_deploy_label)
{
    gs_labels_set(&H.labels, &H.arena, "nvidia.com/gpu.deploy.operands", "false");
    join(8, "5.15.0-105-generic");
    run_until(GS_MIN(30));
    cr_assert_str_eq(lbl("nvidia.com/gpu.present"), "true");
    cr_assert_str_eq(lbl("nvidia.com/gpu.deploy.driver"), "<absent>");
    cr_assert_str_eq(lbl("nvidia.com/gpu.deploy.device-plugin"), "<absent>");
    for (int o = GS_OPD_DRIVER; o < GS_OPD_COUNT; o++)
        cr_assert_str_eq(st(o), "<none>", "%s", gs_operand_name(o));
    cr_assert_str_eq(st(GS_OPD_NFD_WORKER), "Running");
    cr_assert(!H.alloc_known || H.alloc == 0);
}

Test(bringup, deploy_driver_false_uses_the_host_driver)
{
    gs_labels_set(&H.labels, &H.arena, "nvidia.com/gpu.deploy.driver", "false");
    join(8, "5.15.0-105-generic");
    run_until(GS_MIN(5));
    cr_assert_str_eq(lbl("nvidia.com/gpu.deploy.driver"), "false"); /* kept */
    cr_assert_str_eq(lbl("nvidia.com/gpu.deploy.toolkit"), "<absent>");
    cr_assert_str_eq(lbl("nvidia.com/gpu.deploy.container-toolkit"), "true");
    cr_assert_eq(H.b.driver_mode, GS_DRIVER_HOST);
    cr_assert_str_eq(st(GS_OPD_DRIVER), "<none>");
    cr_assert_eq(H.alloc, 8);
}

Test(bringup, deploy_device_plugin_false_advertises_nothing)
{
    gs_labels_set(&H.labels, &H.arena, "nvidia.com/gpu.deploy.device-plugin", "false");
    join(8, "5.15.0-105-generic");
    run_until(GS_MIN(10));
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "<none>");
    cr_assert_eq(H.alloc, 0);
    cr_assert_str_eq(st(GS_OPD_GFD), "Running");
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Running");
    /* Turning it back on starts the plugin, which finds toolkit-ready already there. */
    gs_labels_set(&H.labels, &H.arena, "nvidia.com/gpu.deploy.device-plugin", "true");
    labels_changed();
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "Running");
    run_until(GS_MIN(10) + GS_SEC(10));
    cr_assert_eq(H.alloc, 8);
    /* And off again: the plugin goes, and its resources with it. */
    gs_labels_set(&H.labels, &H.arena, "nvidia.com/gpu.deploy.device-plugin", "false");
    labels_changed();
    cr_assert_eq(H.alloc, 0);
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "<none>");
}

Test(bringup, untolerated_taint_keeps_nfd_away)
{
    H.taints[0] = (struct gs_taint){.key = "nvidia.com/gpu", .value = "true", .effect = GS_EFFECT_NO_SCHEDULE};
    H.ntaints = 1;
    struct gs_toleration t = {.key = "nvidia.com/gpu", .op = GS_TOL_EQUAL, .value = "present",
                              .effect = GS_EFFECT_NO_SCHEDULE, .toleration_seconds = -1};
    H.cfg.has_nfd_tolerations = true;
    H.cfg.nfd_tolerations = &t;
    H.cfg.nnfd_tolerations = 1;
    H.cfg.managed_by = GS_MANAGED_HELM;
    join(1, NULL);
    run_until(GS_MIN(30));
    cr_assert_str_eq(st(GS_OPD_NFD_WORKER), "<none>");
    cr_assert_str_eq(lbl("feature.node.kubernetes.io/pci-10de.present"), "<absent>");
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "<none>");
    cr_assert(!H.alloc_known);
}

Test(bringup, helm_managed_plugin_needs_only_nfd)
{
    H.cfg.managed_by = GS_MANAGED_HELM;
    join(1, NULL);
    run_until(GS_SEC(20)); /* NFD 10 s + plugin 10 s */
    cr_assert_eq(H.alloc, 1);
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "<none>");
    cr_assert_str_eq(st(GS_OPD_DRIVER), "<none>");
    cr_assert_str_eq(lbl("nvidia.com/gpu.present"), "<absent>");
}

/* The k8s-device-plugin chart's NFD worker tolerates nvidia.com/gpu only with value "present"
 * by default: a taint valued "true" keeps it, and so the plugin, away. */
Test(bringup, helm_default_nfd_tolerations_need_value_present)
{
    H.taints[0] = (struct gs_taint){.key = "nvidia.com/gpu", .value = "true", .effect = GS_EFFECT_NO_SCHEDULE};
    H.ntaints = 1;
    H.cfg.managed_by = GS_MANAGED_HELM;
    join(1, NULL);
    run_until(GS_MIN(30));
    cr_assert_str_eq(st(GS_OPD_NFD_WORKER), "<none>");
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "<none>");
    cr_assert(!H.alloc_known);
}

Test(bringup, helm_default_nfd_tolerations_accept_present)
{
    H.taints[0] = (struct gs_taint){.key = "nvidia.com/gpu", .value = "present", .effect = GS_EFFECT_NO_SCHEDULE};
    H.ntaints = 1;
    H.cfg.managed_by = GS_MANAGED_HELM;
    join(1, NULL);
    run_until(GS_SEC(20));
    cr_assert_str_eq(lbl("feature.node.kubernetes.io/pci-10de.present"), "true");
    cr_assert_eq(H.alloc, 1);
}

/* The chart's affinity also accepts nvidia.com/gpu.present=true: a node labelled so gets the
 * plugin even though NFD never ran there. */
Test(bringup, helm_plugin_lands_on_gpu_present_without_nfd)
{
    H.taints[0] = (struct gs_taint){.key = "nvidia.com/gpu", .value = "true", .effect = GS_EFFECT_NO_SCHEDULE};
    H.ntaints = 1;
    H.cfg.managed_by = GS_MANAGED_HELM;
    gs_labels_set(&H.labels, &H.arena, "nvidia.com/gpu.present", "true");
    join(1, NULL);
    run_until(GS_SEC(20));
    cr_assert_str_eq(st(GS_OPD_NFD_WORKER), "<none>");
    cr_assert_eq(H.alloc, 1);
}

Test(bringup, daemonset_names_per_install)
{
    cr_assert_str_eq(gs_operand_ds_name(GS_MANAGED_HELM, GS_OPD_DEVICE_PLUGIN), "nvidia-device-plugin");
    cr_assert_str_eq(gs_operand_ds_name(GS_MANAGED_HELM, GS_OPD_GFD), "nvidia-device-plugin-gpu-feature-discovery");
    cr_assert_str_eq(gs_operand_ds_name(GS_MANAGED_HELM, GS_OPD_NFD_WORKER),
                     "nvidia-device-plugin-node-feature-discovery-worker");
    cr_assert_null(gs_operand_ds_name(GS_MANAGED_HELM, GS_OPD_DRIVER));
    cr_assert_null(gs_operand_ds_name(GS_MANAGED_HOST, GS_OPD_DEVICE_PLUGIN));
    cr_assert_str_eq(gs_operand_ds_name(GS_MANAGED_GPU_OPERATOR, GS_OPD_NFD_WORKER),
                     "gpu-operator-node-feature-discovery-worker");
    cr_assert_eq(gs_operand_ds_find(GS_MANAGED_HELM, "nvidia-device-plugin"), GS_OPD_DEVICE_PLUGIN);
    cr_assert_eq(gs_operand_ds_find(GS_MANAGED_HELM, "nvidia-device-plugin-daemonset"), -1);
    cr_assert_eq(gs_operand_ds_find(GS_MANAGED_GPU_OPERATOR, "nvidia-device-plugin-daemonset"), GS_OPD_DEVICE_PLUGIN);
    cr_assert_eq(gs_operand_ds_find(GS_MANAGED_GPU_OPERATOR, "nvidia-device-plugin"), -1);
    cr_assert_eq(gs_operand_find("nvidia-device-plugin"), GS_OPD_DEVICE_PLUGIN);
}

Test(bringup, daemonset_placement)
{
    struct gs_operator_config *c = &H.cfg;
    struct gs_labels l = {0};
    struct gs_taint true_taint = {.key = "nvidia.com/gpu", .value = "true", .effect = GS_EFFECT_NO_SCHEDULE};
    struct gs_taint other = {.key = "dedicated", .value = "x", .effect = GS_EFFECT_NO_EXECUTE};
    struct gs_taint cond = {.key = "node.kubernetes.io/not-ready", .value = "", .effect = GS_EFFECT_NO_EXECUTE};
    /* GPU Operator: deploy labels select, the NFD worker goes everywhere it tolerates. */
    cr_assert(gs_operand_ds_schedules(c, GS_OPD_NFD_WORKER, NULL, &true_taint, 1));
    cr_assert_not(gs_operand_ds_schedules(c, GS_OPD_NFD_WORKER, NULL, &other, 1));
    cr_assert(gs_operand_ds_schedules(c, GS_OPD_NFD_WORKER, NULL, &cond, 1), "condition taints are tolerated");
    cr_assert_not(gs_operand_ds_schedules(c, GS_OPD_DEVICE_PLUGIN, &l, NULL, 0));
    gs_labels_set(&l, &H.arena, "nvidia.com/gpu.deploy.device-plugin", "true");
    cr_assert(gs_operand_ds_schedules(c, GS_OPD_DEVICE_PLUGIN, &l, &true_taint, 1));
    c->device_plugin_enabled = false;
    cr_assert_not(gs_operand_ds_exists(c, GS_OPD_DEVICE_PLUGIN));
    cr_assert_not(gs_operand_ds_schedules(c, GS_OPD_DEVICE_PLUGIN, &l, NULL, 0));
    c->device_plugin_enabled = true;
    /* helm: the chart's affinity and tolerations. */
    c->managed_by = GS_MANAGED_HELM;
    c->gfd_enabled = false;
    cr_assert_not(gs_operand_ds_exists(c, GS_OPD_GFD));
    cr_assert_not(gs_operand_ds_exists(c, GS_OPD_DRIVER));
    cr_assert_not(gs_operand_ds_schedules(c, GS_OPD_DEVICE_PLUGIN, &l, NULL, 0), "deploy labels do not count");
    gs_labels_set(&l, &H.arena, "feature.node.kubernetes.io/pci-10de.present", "true");
    cr_assert(gs_operand_ds_schedules(c, GS_OPD_DEVICE_PLUGIN, &l, &true_taint, 1));
    cr_assert_not(gs_operand_ds_schedules(c, GS_OPD_DEVICE_PLUGIN, &l, &other, 1));
    cr_assert_not(gs_operand_ds_schedules(c, GS_OPD_NFD_WORKER, &l, &true_taint, 1), "Equal present only");
    struct gs_taint present = true_taint;
    present.value = "present";
    cr_assert(gs_operand_ds_schedules(c, GS_OPD_NFD_WORKER, &l, &present, 1));
    struct gs_taint critical = {.key = "CriticalAddonsOnly", .value = "true", .effect = GS_EFFECT_NO_EXECUTE};
    cr_assert(gs_operand_ds_schedules(c, GS_OPD_DEVICE_PLUGIN, &l, &critical, 1));
    c->nfd_enabled = false;
    cr_assert_not(gs_operand_ds_schedules(c, GS_OPD_NFD_WORKER, &l, NULL, 0));
}

Test(bringup, cpu_node_gets_nfd_labels_only)
{
    join(0, "5.15.0-105-generic");
    run_until(GS_MIN(10));
    cr_assert_str_eq(lbl("feature.node.kubernetes.io/pci-10de.present"), "<absent>");
    cr_assert_str_eq(lbl("nvidia.com/gpu.present"), "<absent>");
    cr_assert_str_eq(lbl("feature.node.kubernetes.io/kernel-version.full"), "5.15.0-105-generic");
    cr_assert(!H.alloc_known);
}

/* ---------------------------------------------------------------- health */

Test(bringup, xid_policy_default_ignores_application_errors)
{
    struct gs_xid_policy p;
    cr_assert_eq(gs_xid_policy_parse(&p, NULL, NULL), 0);
    int ignored[] = {13, 31, 43, 45, 68, 109};
    for (size_t i = 0; i < 6; i++)
        cr_assert(gs_xid_ignored(&p, ignored[i]), "xid %d", ignored[i]);
    int marked[] = {48, 63, 64, 74, 79, 94, 95, 119, 300};
    for (size_t i = 0; i < 9; i++)
        cr_assert(!gs_xid_ignored(&p, marked[i]), "xid %d", marked[i]);
    cr_assert(!p.disabled);
}

Test(bringup, xid_policy_env)
{
    struct gs_xid_policy p;
    cr_assert_eq(gs_xid_policy_parse(&p, "94, 79", NULL), 0);
    cr_assert(gs_xid_ignored(&p, 94));
    cr_assert(gs_xid_ignored(&p, 79));
    cr_assert(gs_xid_ignored(&p, 13));
    cr_assert(!gs_xid_ignored(&p, 48));
    cr_assert_eq(gs_xid_policy_parse(&p, "all", NULL), 0);
    cr_assert(p.disabled);
    cr_assert(gs_xid_ignored(&p, 48));
    cr_assert_eq(gs_xid_policy_parse(&p, "xids", "48"), 0);
    cr_assert(!p.disabled);
    cr_assert(!gs_xid_ignored(&p, 48));
    cr_assert(gs_xid_ignored(&p, 79));
    cr_assert_eq(gs_xid_policy_parse(&p, NULL, "13"), 0);
    cr_assert(!gs_xid_ignored(&p, 13));
    cr_assert(gs_xid_ignored(&p, 31));
    cr_assert_eq(gs_xid_policy_parse(&p, NULL, "all"), 0);
    cr_assert(!gs_xid_ignored(&p, 31));
    cr_assert_eq(gs_xid_policy_parse(&p, "bogus,94", NULL), GS_EINVAL);
    cr_assert(gs_xid_ignored(&p, 94));
}

static bool xid(int gpu, int code)
{
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = ctx();
    bool r = gs_bringup_xid(&c, &H.b, gpu, code, &out);
    apply(&out);
    return r;
}

Test(bringup, xid_marks_one_gpu_unhealthy_until_the_plugin_restarts)
{
    join(8, "5.15.0-105-generic");
    cr_assert(!xid(3, 79), "no plugin yet: nobody watches");
    run_until(GS_MIN(10));
    cr_assert_eq(H.alloc, 8);
    int ignored[] = {13, 31, 43, 45, 68, 109};
    for (size_t i = 0; i < 6; i++)
        cr_assert(!xid(3, ignored[i]));
    cr_assert_eq(H.alloc, 8);
    cr_assert(xid(3, 94));
    cr_assert_eq(H.alloc, 7);
    cr_assert_eq(H.cap, 8);
    cr_assert(!xid(3, 79), "already unhealthy");
    cr_assert(xid(5, 48));
    cr_assert_eq(H.alloc, 6);
    cr_assert(!xid(8, 48), "no such GPU");
    run_until(GS_HOUR_TEST);
    cr_assert_eq(H.alloc, 6, "no recovery without a restart");
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = ctx();
    gs_bringup_plugin_restart(&c, &H.b, &out);
    apply(&out);
    cr_assert_eq(H.alloc, 0);
    cr_assert_eq(H.cap, 8, "kubelet keeps capacity while the endpoint is gone");
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "Running");
    cr_assert(!H.b.ready[GS_OPD_DEVICE_PLUGIN]);
    run_until(H.now + GS_SEC(10));
    cr_assert_eq(H.alloc, 8);
    cr_assert_eq(H.b.restarts[GS_OPD_DEVICE_PLUGIN], 1);
}

Test(bringup, healthchecks_disabled_never_marks)
{
    gs_xid_policy_parse(&H.cfg.xid, "all", NULL);
    join(8, NULL);
    run_until(GS_MIN(10));
    cr_assert(!xid(0, 79));
    cr_assert_eq(H.alloc, 8);
}

/* ---------------------------------------------------------------- reboots */

Test(bringup, reboot_restarts_everything_and_old_timers_are_stale)
{
    join(8, "5.15.0-105-generic");
    run_until(GS_SEC(100)); /* the driver is compiling */
    int before = H.ntimers;
    cr_assert_gt(before, 0);
    reboot("5.15.0-106-generic");
    cr_assert(H.b.rebooting);
    run_until(GS_SEC(219)); /* the old compile timer (195 s) fires stale */
    cr_assert_geq(H.fired_stale, 1);
    cr_assert(!H.b.ready[GS_OPD_DRIVER]);
    cr_assert_str_eq(lbl("feature.node.kubernetes.io/kernel-version.full"), "5.15.0-105-generic");
    run_until(GS_SEC(220)); /* 100 + 120 s reboot */
    cr_assert(!H.b.rebooting);
    cr_assert_str_eq(H.kernel_seen, "5.15.0-106-generic");
    run_until(GS_SEC(230)); /* NFD relabels */
    cr_assert_str_eq(lbl("feature.node.kubernetes.io/kernel-version.full"), "5.15.0-106-generic");
    /* Labels persisted, so the compiled driver restarted at once with the node. */
    run_until(GS_SEC(220 + 180 + 5 + 30 + 5 + 10));
    cr_assert_eq(H.alloc, 8);
}

Test(bringup, reboot_drops_allocatable_and_capacity)
{
    join(8, "5.15.0-105-generic");
    run_until(GS_MIN(10));
    cr_assert_eq(H.alloc, 8);
    cr_assert(xid(1, 79));
    reboot("5.15.0-106-generic");
    cr_assert_eq(H.alloc, 0);
    cr_assert_eq(H.cap, 0);
    cr_assert_eq(H.b.unhealthy, 0u, "a reboot clears the marks");
    run_until(GS_MIN(30));
    cr_assert_eq(H.alloc, 8);
    cr_assert_eq(H.b.restarts[GS_OPD_DEVICE_PLUGIN], 1);
}

Test(bringup, precompiled_reboot_into_a_kernel_without_image)
{
    H.cfg.use_precompiled = true;
    static const char *const k[] = {"5.15.0-117-generic"};
    H.cfg.precompiled_kernels = k;
    H.cfg.nprecompiled_kernels = 1;
    join(8, "5.15.0-117-generic");
    run_until(GS_MIN(10));
    cr_assert_eq(H.alloc, 8);
    reboot("5.15.0-118-generic");
    run_until(GS_MIN(10) + GS_SEC(120));
    /* Until NFD relabels the kernel, the new kernel's DaemonSet has no pod here. */
    cr_assert_str_eq(st(GS_OPD_DRIVER), "<none>");
    run_until(GS_MIN(15));
    cr_assert_str_eq(st(GS_OPD_DRIVER), "ImagePullBackOff");
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Init:0/4");
    cr_assert_eq(H.alloc, 0);
}

Test(bringup, driver_restart_reruns_the_chain_on_the_new_version)
{
    join(8, "5.15.0-105-generic");
    run_until(GS_MIN(10));
    struct gs_bringup_actions out = {0};
    struct gs_bringup_ctx c = ctx();
    gs_bringup_driver_restart(&c, &H.b, "570.86.15", &out);
    apply(&out);
    cr_assert_eq(H.alloc, 0);
    cr_assert_str_eq(st(GS_OPD_DRIVER), "Running");
    cr_assert_str_eq(st(GS_OPD_VALIDATOR), "Init:0/4");
    cr_assert_str_eq(st(GS_OPD_DEVICE_PLUGIN), "Init:0/1");
    run_until(GS_MIN(20));
    cr_assert_eq(H.alloc, 8);
    cr_assert(gs_bringup_validated(&H.b));
    cr_assert_str_eq(lbl("nvidia.com/cuda.driver-version.full"), "570.86.15");
}

/* ---------------------------------------------------------------- helpers */

Test(bringup, kubelet_backoff)
{
    cr_assert_eq(gs_kubelet_backoff(1), GS_SEC(10));
    cr_assert_eq(gs_kubelet_backoff(2), GS_SEC(20));
    cr_assert_eq(gs_kubelet_backoff(5), GS_SEC(160));
    cr_assert_eq(gs_kubelet_backoff(6), GS_SEC(300));
    cr_assert_eq(gs_kubelet_backoff(1000), GS_SEC(300));
}

Test(bringup, timer_encoding_round_trips)
{
    enum gs_bringup_timer t;
    uint32_t g, k;
    gs_bringup_timer_decode(gs_bringup_timer_encode(GS_BT_REBOOT, 0x7ffffffeu, 0xabcdefu), &t, &g, &k);
    cr_assert_eq(t, GS_BT_REBOOT);
    cr_assert_eq(g, 0x7ffffffeu);
    cr_assert_eq(k, 0xabcdefu);
    cr_assert_geq(gs_bringup_timer_encode(GS_BT_UPGRADE_TIMEOUT, 0x7fffffffu, 0xffffffu), 0);
}

Test(bringup, version_compare)
{
    cr_assert_lt(gs_version_cmp("5.15.0-99-generic", "5.15.0-118-generic"), 0);
    cr_assert_gt(gs_version_cmp("6.8.0-31-generic", "6.8"), 0);
    cr_assert_eq(gs_version_cmp("535.183.06", "535.183.6"), 0);
    cr_assert_lt(gs_version_cmp("535.183.06", "550"), 0);
    cr_assert_eq(gs_version_cmp("5.15.0-105-generic", "5.15.0-105-generic"), 0);
}

Test(bringup, operand_names)
{
    cr_assert_eq(gs_operand_find("nvidia-driver-daemonset"), GS_OPD_DRIVER);
    cr_assert_eq(gs_operand_find("nvidia-driver-daemonset-5.15.0-118-generic-ubuntu22.04"), GS_OPD_DRIVER);
    cr_assert_eq(gs_operand_find("nvidia-operator-validator"), GS_OPD_VALIDATOR);
    cr_assert_eq(gs_operand_find("nvidia-device-plugin-node-feature-discovery-worker"), GS_OPD_NFD_WORKER);
    cr_assert_eq(gs_operand_find("nope"), -1);
    cr_assert_str_eq(gs_operand_deploy_label(GS_OPD_TOOLKIT), "container-toolkit");
}

/* ---------------------------------------------------------------- waves and upgrades */

Test(bringup, max_unavailable_int_and_percent)
{
    cr_assert_eq(gs_max_unavailable(1, false, 10), 1);
    cr_assert_eq(gs_max_unavailable(3, false, 2), 3);
    cr_assert_eq(gs_max_unavailable(25, true, 10), 3); /* 2.5 rounds up */
    cr_assert_eq(gs_max_unavailable(25, true, 4), 1);
    cr_assert_eq(gs_max_unavailable(1, true, 10), 1);
    cr_assert_eq(gs_max_unavailable(50, true, 3), 2);
    cr_assert_eq(gs_max_unavailable(100, true, 7), 7);
    cr_assert_eq(gs_max_unavailable(0, false, 7), 0);
}

Test(bringup, kernel_patch_waves)
{
    int nodes[] = {10, 11, 12, 13, 14};
    struct gs_kpatch k;
    gs_kpatch_init(&k, "5.15.0-118-generic", gs_max_unavailable(40, true, 5), nodes, 5);
    cr_assert_eq(k.max_unavailable, 2);
    int w[8];
    cr_assert_eq(gs_kpatch_next_wave(&k, w, 8), 2);
    cr_assert_eq(w[0], 10);
    cr_assert_eq(w[1], 11);
    cr_assert_eq(gs_kpatch_next_wave(&k, w, 8), 0, "a wave is in flight");
    cr_assert(!gs_kpatch_node_back(&k));
    cr_assert_eq(gs_kpatch_next_wave(&k, w, 8), 0);
    cr_assert(gs_kpatch_node_back(&k));
    cr_assert_eq(gs_kpatch_next_wave(&k, w, 8), 2);
    cr_assert_eq(w[0], 12);
    gs_kpatch_node_back(&k);
    gs_kpatch_node_back(&k);
    cr_assert_eq(gs_kpatch_next_wave(&k, w, 8), 1);
    cr_assert_eq(w[0], 14);
    cr_assert(!gs_kpatch_done(&k));
    gs_kpatch_node_back(&k);
    cr_assert(gs_kpatch_done(&k));
    cr_assert_eq(gs_kpatch_next_wave(&k, w, 8), 0);
    /* maxUnavailable 0 still progresses one node at a time. */
    gs_kpatch_init(&k, "x", 0, nodes, 5);
    cr_assert_eq(gs_kpatch_next_wave(&k, w, 8), 1);
}

Test(bringup, upgrade_state_sequence)
{
    struct gs_upgrade_policy p = {.max_parallel = 1, .max_unavailable = 1, .drain = false};
    struct gs_upgrade_node n = {.state = GS_UPG_REQUIRED};
    enum gs_upgrade_state seq[] = {GS_UPG_CORDON,     GS_UPG_WAIT_FOR_JOBS, GS_UPG_POD_DELETION,
                                   GS_UPG_DRAIN,      GS_UPG_POD_RESTART};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++) {
        n.state = gs_upgrade_next(&p, &n);
        cr_assert_eq(n.state, seq[i], "step %zu: %s", i, gs_upgrade_state_name(n.state));
    }
    cr_assert_eq(gs_upgrade_next(&p, &n), GS_UPG_POD_RESTART, "waits for the driver");
    n.driver_ready = true;
    n.state = gs_upgrade_next(&p, &n);
    cr_assert_eq(n.state, GS_UPG_VALIDATION);
    cr_assert_eq(gs_upgrade_next(&p, &n), GS_UPG_VALIDATION, "waits for the validator");
    n.validated = true;
    n.state = gs_upgrade_next(&p, &n);
    cr_assert_eq(n.state, GS_UPG_UNCORDON);
    n.state = gs_upgrade_next(&p, &n);
    cr_assert_eq(n.state, GS_UPG_DONE);
    cr_assert_str_eq(gs_upgrade_state_name(GS_UPG_DONE), "upgrade-done");
    cr_assert_str_eq(gs_upgrade_state_name(GS_UPG_WAIT_FOR_JOBS), "wait-for-jobs-required");
    cr_assert_null(gs_upgrade_state_name(GS_UPG_NONE));

    /* Validation timeout fails; a driver that is Ready moves it on to uncordon (upstream
     * ProcessUpgradeFailedNodes); a node cordoned before skips the uncordon. */
    struct gs_upgrade_node v = {.state = GS_UPG_VALIDATION, .timed_out = true};
    cr_assert_eq(gs_upgrade_next(&p, &v), GS_UPG_FAILED);
    v.state = GS_UPG_FAILED;
    cr_assert_eq(gs_upgrade_next(&p, &v), GS_UPG_FAILED);
    v.driver_ready = true;
    cr_assert_eq(gs_upgrade_next(&p, &v), GS_UPG_UNCORDON);
    v.unschedulable_before = true;
    cr_assert_eq(gs_upgrade_next(&p, &v), GS_UPG_DONE);
    /* A crash-looping driver fails the upgrade. */
    struct gs_upgrade_node f = {.state = GS_UPG_POD_RESTART, .driver_failing = true};
    cr_assert_eq(gs_upgrade_next(&p, &f), GS_UPG_FAILED);
    struct gs_upgrade_node d = {.state = GS_UPG_POD_DELETION, .delete_failed = true};
    cr_assert_eq(gs_upgrade_next(&p, &d), GS_UPG_FAILED);
    p.drain = true;
    cr_assert_eq(gs_upgrade_next(&p, &d), GS_UPG_DRAIN);
}

Test(bringup, upgrade_slots_follow_get_upgrades_available)
{
    struct gs_upgrade_policy p = {.max_parallel = 1, .max_unavailable = gs_max_unavailable(25, true, 8)};
    cr_assert_eq(p.max_unavailable, 2);
    cr_assert_eq(gs_upgrade_slots(&p, 8, 0, 0, 8), 1);
    cr_assert_eq(gs_upgrade_slots(&p, 7, 1, 1, 8), 0, "maxParallelUpgrades 1 in progress");
    p.max_parallel = 0; /* unlimited: maxUnavailable bounds it */
    cr_assert_eq(gs_upgrade_slots(&p, 8, 0, 0, 8), 2);
    cr_assert_eq(gs_upgrade_slots(&p, 6, 2, 2, 8), 0);
    cr_assert_eq(gs_upgrade_slots(&p, 6, 1, 1, 8), 1);
    cr_assert_eq(gs_upgrade_slots(&p, 8, 0, 1, 8), 1, "a node cordoned by hand counts");
    p.max_parallel = 4;
    p.max_unavailable = 8;
    cr_assert_eq(gs_upgrade_slots(&p, 3, 0, 0, 8), 3, "never more than are waiting");
}
