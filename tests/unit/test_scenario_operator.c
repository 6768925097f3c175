/* The scenario side of the GPU bring-up (issue 3): spec.versions, spec.catalog, spec.operator,
 * nodePools[].hostDriver, the GPU events (kernelPatch, xid, devicePluginRestart,
 * precompiledImagePublished, driverUpgrade) and node `operand:` expectations, through
 * gs_scenario_load_string; and the real-world cases that use them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/scenario.h"

/* 8 lines: a body starts on line 9. */
#define HEADER                                                                                              \
    "apiVersion: gpusim/v1alpha1\n"                                                                         \
    "kind: Scenario\n"                                                                                      \
    "metadata: {name: t}\n"                                                                                 \
    "spec:\n"                                                                                               \
    "  cluster:\n"                                                                                          \
    "    nodePools:\n"                                                                                      \
    "    - {name: h100, count: 2, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: \"96\", " \
    "memory: 1Ti}, kernel: 5.15.0-117-generic}\n"                                                           \
    "    - {name: cpu, count: 1, capacity: {cpu: \"16\", memory: 64Gi}}\n"
#define L 9 /* the body's first line */

static struct gs_scenario sc;
static struct gs_error err;
static char text[1 << 16];

static void fini(void)
{
    gs_scenario_free(&sc);
}

TestSuite(operator, .fini = fini);

static int load(const char *body)
{
    gs_scenario_free(&sc);
    snprintf(text, sizeof text, "%s%s", HEADER, body);
    memset(&err, 0, sizeof err);
    return gs_scenario_load_string("t.yaml", text, &sc, &err);
}

static void ok(const char *body)
{
    int rc = load(body);
    cr_assert_eq(rc, 0, "load failed: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

/* Expect an error with this code, position and exact message. */
static void bad(const char *body, int code, int line, int col, const char *msg)
{
    int rc = load(body);
    cr_assert_eq(rc, code, "rc %d (want %d): %s:%d:%d: %s", rc, code, err.file, err.line, err.col, err.msg);
    cr_expect_eq(err.code, code);
    cr_expect_str_eq(err.msg, msg);
    cr_expect_eq(err.line, line, "line %d, want %d (%s)", err.line, line, err.msg);
    cr_expect_eq(err.col, col, "col %d, want %d (%s)", err.col, col, err.msg);
}

/* ------------------------------------------------------------------ defaults */

Test(operator, absent)
{
    ok("");
    cr_expect_not(sc.op.enabled);
    cr_expect_str_eq(sc.gpu_operator_version, "v25.3.0");
    /* the device plugin's default Xid policy holds without the section too */
    cr_expect(gs_xid_ignored(&sc.op.xid, 13));
    cr_expect(gs_xid_ignored(&sc.op.xid, 109));
    cr_expect_not(gs_xid_ignored(&sc.op.xid, 79));
    cr_expect_not(gs_xid_ignored(&sc.op.xid, 94));
    /* a GPU pool: the catalog is loaded */
    cr_expect_eq(sc.catalog.nproducts, 17);
    cr_expect_not_null(gs_catalog_profile(&sc.catalog, "default"));
    cr_expect_null(sc.op.timings);
}

Test(operator, cpu_only_skips_catalog)
{
    const char *t = "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n  cluster:\n"
                    "    nodePools: [{name: cpu, count: 1, capacity: {cpu: \"16\", memory: 64Gi}}]\n";
    gs_scenario_free(&sc);
    cr_assert_eq(gs_scenario_load_string("t.yaml", t, &sc, &err), 0, "%s", err.msg);
    cr_expect_eq(sc.catalog.nproducts, 0);
    cr_expect_eq(sc.catalog.nprofiles, 0);
}

Test(operator, empty_section_defaults)
{
    ok("  operator: {}\n");
    const struct gs_operator_config *op = &sc.op;
    cr_expect(op->enabled);
    cr_expect_eq(op->managed_by, GS_MANAGED_GPU_OPERATOR);
    cr_expect(op->nfd_enabled);
    cr_expect(op->driver_enabled);
    cr_expect_not(op->use_precompiled);
    cr_expect(op->toolkit_enabled);
    cr_expect(op->device_plugin_enabled);
    cr_expect(op->gfd_enabled);
    cr_expect(op->dcgm_exporter_enabled);
    cr_expect(op->mig_manager_enabled);
    cr_expect_str_eq(op->mig_strategy, "single"); /* the chart's default */
    cr_expect_str_eq(op->mig_config_default, "all-disabled");
    cr_expect(op->all_headers);
    cr_expect_eq(op->nprecompiled_kernels, 0);
    cr_expect_not(op->has_ds_tolerations);
    cr_expect_not(op->has_nfd_tolerations);
    cr_assert_not_null(op->timings);
    cr_expect_str_eq(op->timings->name, "default");
    cr_expect(gs_xid_ignored(&op->xid, 43));
}

/* ------------------------------------------------------------------ the fields */

Test(operator, full_section)
{
    ok("  operator:\n"
       "    managedBy: gpu-operator\n"
       "    driver: {enabled: true, usePrecompiled: true, version: \"535\", repository: nvcr.io/nvidia}\n"
       "    toolkit: {enabled: false}\n"
       "    devicePlugin:\n"
       "      enabled: true\n"
       "      env: [{name: PASS_DEVICE_SPECS, value: \"true\"}, {name: DP_DISABLE_HEALTHCHECKS, value: \"94, 79\"}]\n"
       "    gfd: {enabled: false}\n"
       "    dcgmExporter: {enabled: false}\n"
       "    migManager: {enabled: true, config: all-disabled}\n"
       "    mig: {strategy: none}\n"
       "    timings: precompiled\n"
       "    precompiledKernels: [5.15.0-117-generic, 5.15.0-118-generic]\n"
       "    availableHeaders: []\n"
       "    daemonsets:\n"
       "      tolerations: [{key: workload, value: aiml, effect: NoSchedule}]\n"
       "    validator:\n"
       "      plugin: {env: [{name: WITH_WORKLOAD, value: \"false\"}]}\n"
       "    nfd:\n"
       "      enabled: true\n"
       "      worker:\n"
       "        tolerations: [{key: nvidia.com/gpu, operator: Equal, value: present, effect: NoSchedule}]\n");
    const struct gs_operator_config *op = &sc.op;
    cr_expect(op->driver_enabled);
    cr_expect(op->use_precompiled);
    cr_expect_str_eq(op->driver_version, "535");
    cr_expect_not(op->toolkit_enabled);
    cr_expect(op->device_plugin_enabled);
    cr_expect_not(op->gfd_enabled);
    cr_expect_not(op->dcgm_exporter_enabled);
    cr_expect(op->mig_manager_enabled);
    cr_expect_str_eq(op->mig_strategy, "none");
    cr_expect_str_eq(op->mig_config_default, "all-disabled");
    cr_expect_str_eq(op->timings->name, "precompiled");
    cr_assert_eq(op->nprecompiled_kernels, 2);
    cr_expect_str_eq(op->precompiled_kernels[1], "5.15.0-118-generic");
    cr_expect_not(op->all_headers);
    cr_expect_eq(op->navailable_headers, 0);
    cr_assert(op->has_ds_tolerations);
    cr_assert_eq(op->nds_tolerations, 1);
    cr_expect_str_eq(op->ds_tolerations[0].key, "workload");
    cr_expect_str_eq(op->ds_tolerations[0].value, "aiml");
    cr_expect_eq(op->ds_tolerations[0].effect, GS_EFFECT_NO_SCHEDULE);
    cr_assert(op->has_nfd_tolerations);
    cr_expect_eq(op->nnfd_tolerations, 1);
    cr_expect_eq(op->nfd_tolerations[0].op, GS_TOL_EQUAL);
    cr_expect_str_eq(op->nfd_tolerations[0].value, "present");
    cr_expect(gs_xid_ignored(&op->xid, 94));
    cr_expect(gs_xid_ignored(&op->xid, 79));
    cr_expect(gs_xid_ignored(&op->xid, 13));
    cr_expect_not(gs_xid_ignored(&op->xid, 48));
}

Test(operator, headers_and_precompiled)
{
    ok("  operator:\n    availableHeaders: [5.15.0-117-generic]\n    precompiledKernels: []\n");
    cr_expect_not(sc.op.all_headers);
    cr_assert_eq(sc.op.navailable_headers, 1);
    cr_expect_str_eq(sc.op.available_headers[0], "5.15.0-117-generic");
    cr_expect_eq(sc.op.nprecompiled_kernels, 0);
}

Test(operator, xid_policy)
{
    ok("  operator:\n    devicePlugin:\n      env: [{name: DP_DISABLE_HEALTHCHECKS, value: all}]\n");
    cr_expect(sc.op.xid.disabled);
    cr_expect(gs_xid_ignored(&sc.op.xid, 79));
    ok("  operator:\n    devicePlugin:\n      env: [{name: DP_DISABLE_HEALTHCHECKS, value: XIDS}]\n");
    cr_expect(sc.op.xid.disabled);
    ok("  operator:\n    devicePlugin:\n      env: [{name: DP_ENABLE_HEALTHCHECKS, value: \"13\"}]\n");
    cr_expect_not(gs_xid_ignored(&sc.op.xid, 13));
    cr_expect(gs_xid_ignored(&sc.op.xid, 31));
    ok("  operator:\n    devicePlugin:\n      env: []\n");
    cr_expect(gs_xid_ignored(&sc.op.xid, 13));
    bad("  operator:\n    devicePlugin:\n      env: [{name: DP_DISABLE_HEALTHCHECKS, value: \"94,x9\"}]\n", GS_EINVAL,
        L + 2, 52,
        "invalid Xid 'x9' in DP_DISABLE_HEALTHCHECKS at spec.operator.devicePlugin.env[0].value: expected all, xids or "
        "comma-separated Xid numbers such as \"94,79\" (the device plugin would ignore it)");
    bad("  operator:\n    devicePlugin:\n      env: [{name: DP_DISABLE_HEALTHCHECKS, value: 94}]\n", GS_EINVAL, L + 2,
        52, "expected a string at spec.operator.devicePlugin.env[0].value, got the number 94 (quote it: \"94\")");
    bad("  operator:\n    devicePlugin:\n      env: [{name: X, valueFrom: {fieldRef: {}}}]\n", GS_ENOTSUP, L + 2, 23,
        "not supported yet: spec.operator.devicePlugin.env[0].valueFrom");
}

Test(operator, timings)
{
    ok("  operator: {timings: slow-compile}\n");
    cr_expect_str_eq(sc.op.timings->name, "slow-compile");
    ok("  operator:\n    timings: {base: fast, reboot: 3m, driverCompile: {uniform: [1m, 2m]}}\n");
    const struct gs_timing_profile *t = sc.op.timings;
    cr_expect_str_eq(t->name, "inline");
    cr_expect_eq(t->step[GS_STEP_REBOOT].fixed, GS_MIN(3));
    cr_expect_eq(t->step[GS_STEP_DRIVER_COMPILE].kind, GS_DUR_UNIFORM);
    cr_expect_eq(t->step[GS_STEP_TOOLKIT].fixed, GS_SEC(1)); /* from fast */
    ok("  operator:\n    timings: {driverCompile: 10m}\n");
    cr_expect_eq(sc.op.timings->step[GS_STEP_DRIVER_COMPILE].fixed, GS_MIN(10));
    cr_expect_eq(sc.op.timings->step[GS_STEP_TOOLKIT].fixed, GS_SEC(30)); /* from default */
    bad("  operator: {timings: slow-compil}\n", GS_EINVAL, L, 23,
        "unknown timing profile 'slow-compil' at spec.operator.timings (did you mean 'slow-compile'?)");
    bad("  operator: {timings: glacial-pace}\n", GS_EINVAL, L, 23,
        "unknown timing profile 'glacial-pace' at spec.operator.timings: profiles come from "
        "models/catalog/operands.yaml and spec.catalog.timingProfiles");
    bad("  operator:\n    timings: {tolkit: 3m}\n", GS_EINVAL, L + 1, 15,
        "unknown key 'tolkit' in spec.operator.timings (did you mean 'toolkit'?)");
    bad("  operator:\n    timings: {base: quick}\n", GS_EINVAL, L + 1, 21,
        "unknown base profile 'quick' at spec.operator.timings.base: the catalog has default, precompiled, "
        "slow-compile, fast");
}

Test(operator, driver_version)
{
    ok("  operator: {driver: {version: 550.90.07}}\n");
    cr_expect_str_eq(sc.op.driver_version, "550.90.07");
    bad("  operator: {driver: {version: latest}}\n", GS_EINVAL, L, 32,
        "invalid driver version \"latest\" at spec.operator.driver.version: expected a version such as \"550.90.07\" "
        "(with usePrecompiled, a branch such as \"550\")");
    bad("  operator: {driver: {enabled: yes}}\n", GS_EINVAL, L, 32,
        "expected true or false at spec.operator.driver.enabled, got 'yes' (YAML 1.1 yes/no/on/off are not booleans "
        "here: write true or false)");
}

/* GPU sharing and MIG keys (issue 5): decoded by the device-plugin and mig-parted modules. */
Test(operator, sharing_and_mig_keys)
{
    ok("  operator:\n    devicePlugin: {config: {version: v1}}\n");
    cr_expect(sc.has_dp);
    cr_expect_eq(sc.dp.n, 1);
    /* The GPU Operator passes its mig.strategy to the plugin over flags.migStrategy. */
    ok("  operator:\n    mig: {strategy: mixed}\n    devicePlugin: {config: {version: v1, flags: {migStrategy: none}}}\n");
    cr_expect_str_eq(sc.op.mig_strategy, "mixed");
    cr_expect_eq(sc.dp.configs[0].mig_strategy, GS_MIG_MIXED);
    ok("  operator:\n    mig: {strategy: single}\n");
    cr_expect_str_eq(sc.op.mig_strategy, "single");
    cr_expect_not(sc.has_dp);
    ok("  operator:\n    migManager: {config: all-1g.10gb}\n");
    cr_expect_str_eq(sc.op.mig_config_default, "all-1g.10gb");
    cr_expect_not_null(gs_migparted_find(&sc.migparted, "all-balanced"), "the catalog's defaults");
    ok("  operator:\n    migManager:\n      configFile:\n        version: v1\n        mig-configs:\n"
       "          half: [{devices: [0], mig-enabled: true, mig-devices: {1g.10gb: 7}}]\n");
    cr_expect_not_null(gs_migparted_find(&sc.migparted, "half"));
    cr_expect_null(gs_migparted_find(&sc.migparted, "all-balanced"), "a configFile replaces the defaults");
    ok("  operator:\n    managedBy: host\n    devicePlugin: {config: {version: v1, sharing: {timeSlicing: "
       "{renameByDefault: true, resources: [{name: nvidia.com/gpu, replicas: 4}]}}}}\n");
    cr_expect_eq(sc.op.managed_by, GS_MANAGED_HOST);
    cr_expect_eq(sc.dp.configs[0].mig_strategy, GS_MIG_NONE, "host: the plugin's own default");
    /* An unknown key in the plugin's config is a warning with its position. */
    ok("  operator:\n    devicePlugin: {config: {version: v1, sharing: {timeSlicing: {renameBydefault: true, "
       "resources: [{name: nvidia.com/gpu, replicas: 2}]}}}}\n");
    cr_assert_eq(sc.dp.nwarnings, 1);
    cr_expect_eq(sc.dp.warnings[0].line, L + 1);
    cr_expect_eq(load("  operator:\n    migManager: {configFile: mig.yaml}\n"), GS_EINVAL);
    cr_expect_str_eq(err.msg, "spec.operator.migManager.configFile: expected a mig-parted config (version: v1, "
                              "mig-configs: ...)");
}

Test(operator, unknown_and_unsupported)
{
    bad("  operator: {drvier: {}}\n", GS_EINVAL, L, 14, "unknown key 'drvier' in spec.operator (did you mean 'driver'?)");
    bad("  operator: {driver: {usePrecomplied: true}}\n", GS_EINVAL, L, 23,
        "unknown key 'usePrecomplied' in spec.operator.driver (did you mean 'usePrecompiled'?)");
    bad("  operator:\n    mig: {strategy: all}\n", GS_EINVAL, L + 1, 21,
        "invalid value 'all' at spec.operator.mig.strategy: expected one of none, single, mixed");
    bad("  operator:\n    migManager: {config: {name: custom, default: all-disabled}}\n", GS_ENOTSUP, L + 1, 27,
        "not supported yet: spec.operator.migManager.config.name");
    bad("  operator:\n    draDriver: {computeDomains: {enabled: true}}\n", GS_ENOTSUP, L + 1, 33,
        "not supported yet: spec.operator.draDriver.computeDomains.enabled: true");
    bad("  operator:\n    managedBy: kubectl\n", GS_EINVAL, L + 1, 16,
        "invalid value 'kubectl' at spec.operator.managedBy: expected one of gpu-operator, helm, host");
    bad("  operator:\n    driver: {upgradePolicy: {autoUpgrade: true}}\n", GS_ENOTSUP, L + 1, 14,
        "not supported yet: spec.operator.driver.upgradePolicy");
    bad("  operator:\n    validator: {plugin: {env: [{name: WITH_WORKLOAD, value: \"true\"}]}}\n", GS_ENOTSUP, L + 1,
        32, "not supported yet: spec.operator.validator.plugin.env[0]: WITH_WORKLOAD=true");
    bad("  operator:\n    nfd: {worker: {tolerations: [{key: nvidia.com/gpu, operator: Exists, value: x}]}}\n",
        GS_EINVAL, L + 1, 81,
        "spec.operator.nfd.worker.tolerations[0].operator: value must be empty when `operator` is 'Exists' (the API "
        "server refuses this pod)");
    bad("  operator: [driver]\n", GS_EINVAL, L, 13, "expected a mapping at spec.operator, got a sequence");
}

/* ------------------------------------------------------------------ versions */

Test(operator, versions)
{
    ok("  versions: {gpu-operator: v23.9.2}\n");
    cr_expect_str_eq(sc.gpu_operator_version, "v23.9.2");
    ok("  versions: {gpu-operator: v1.5.2}\n  operator: {}\n");
    cr_expect_str_eq(sc.gpu_operator_version, "v1.5.2");
    bad("  versions: {gpu-operator: v24.6.0}\n", GS_ENOTSUP, L, 28,
        "not supported yet: spec.versions.gpu-operator: v24.6.0 (gpusim models v25.3.0, v23.9.2 and v1.5.2)");
    bad("  versions: {kueue: v0.9.0}\n", GS_ENOTSUP, L, 21,
        "not supported yet: spec.versions.kueue: v0.9.0 (gpusim models Kueue v0.13.x to v0.15.x)");
    cr_expect_null(sc.device_plugin_version);
    ok("  versions: {k8s-device-plugin: v0.19.1}\n");
    cr_expect_str_eq(sc.device_plugin_version, "v0.19.1");
    cr_expect_str_eq(sc.gpu_operator_version, "v25.3.0");
    bad("  versions: {k8s-device-plugin: v0.17.0}\n", GS_ENOTSUP, L, 33,
        "not supported yet: spec.versions.k8s-device-plugin: v0.17.0 (gpusim models v0.19.1)");
}

/* ------------------------------------------------------------------ spec.catalog */

Test(operator, catalog_additions)
{
    ok("  catalog:\n"
       "    gpus:\n"
       "    - {product: NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition, nvmlName: NVIDIA RTX PRO 6000 Blackwell Server "
       "Edition, memoryMiB: 97887, computeCapability: \"12.0\", family: blackwell, migCapable: true, typicalPerNode: 8, "
       "architecture: Blackwell, brand: NvidiaRTX}\n"
       "    - {product: NVIDIA-H100-80GB-HBM3, nvmlName: NVIDIA H100 80GB HBM3, memoryMiB: 80000, computeCapability: "
       "\"9.0\", family: hopper, migCapable: true, typicalPerNode: 8, architecture: Hopper, brand: Nvidia}\n"
       "    timingProfiles:\n"
       "      glacial: {base: slow-compile, reboot: 20m}\n"
       "      default: {driverCompile: 4m}\n"
       "    driverBuildFailures:\n"
       "    - {kernelAtLeast: 6.8.0, driverBelow: \"550\", message: \"error: implicit declaration\"}\n"
       "  operator: {timings: glacial}\n");
    cr_expect_eq(sc.catalog.nproducts, 18);
    const struct gs_gpu_product *p = gs_catalog_product(&sc.catalog, "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition");
    cr_assert_not_null(p);
    cr_expect_eq(p->compute_major, 12);
    cr_expect_eq(gs_catalog_product(&sc.catalog, "NVIDIA-H100-80GB-HBM3")->memory_mib, 80000); /* replaced */
    const struct gs_timing_profile *g = gs_catalog_profile(&sc.catalog, "glacial");
    cr_assert_not_null(g);
    cr_expect_eq(sc.op.timings, g);
    cr_expect_eq(g->step[GS_STEP_REBOOT].fixed, GS_MIN(20));
    cr_expect_eq(g->step[GS_STEP_DRIVER_COMPILE].kind, GS_DUR_LOGNORMAL); /* from slow-compile */
    const struct gs_timing_profile *def = gs_catalog_profile(&sc.catalog, "default");
    cr_expect_eq(def->step[GS_STEP_DRIVER_COMPILE].fixed, GS_MIN(4));     /* overridden */
    cr_expect_eq(def->step[GS_STEP_TOOLKIT].fixed, GS_SEC(30));           /* kept */
    cr_expect_str_eq(sc.catalog.profiles[0].name, "default");
    cr_assert_eq(sc.op.nbuild_failures, 1);
    cr_expect_str_eq(sc.op.build_failures[0].kernel_at_least, "6.8.0");
    cr_expect_str_eq(sc.op.build_failures[0].driver_below, "550");
    cr_expect_str_eq(sc.op.build_failures[0].message, "error: implicit declaration");
}

Test(operator, catalog_errors)
{
    bad("  catalog: {gpu: []}\n", GS_EINVAL, L, 13, "unknown key 'gpu' in spec.catalog (did you mean 'gpus'?)");
    bad("  catalog:\n    gpus:\n    - {product: X}\n", GS_EINVAL, L + 2, 7,
        "missing required field 'nvmlName' in spec.catalog.gpus[0]");
    bad("  catalog:\n    timingProfiles: {quick: {reboot: soon}}\n", GS_EINVAL, L + 1, 38,
        "invalid duration \"soon\" at spec.catalog.timingProfiles.quick.reboot: expected a Go duration such as 90s, "
        "1h30m or 250ms");
    bad("  catalog:\n    driverBuildFailures: [{driverBelow: \"550\"}]\n", GS_EINVAL, L + 1, 27,
        "missing required field 'kernelAtLeast' in spec.catalog.driverBuildFailures[0]");
}

/* ------------------------------------------------------------------ hostDriver */

Test(operator, host_driver)
{
    const char *t = "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n  cluster:\n"
                    "    nodePools:\n"
                    "    - name: a\n      count: 1\n      capacity: {cpu: \"8\", memory: 8Gi}\n"
                    "      kernel: 5.15.0-117-generic\n      hostDriver: {version: 580.159.04}\n"
                    "    - name: b\n      count: 1\n      capacity: {cpu: \"8\", memory: 8Gi}\n"
                    "      hostDriver: {version: 580.159.04, kernels: [k1, k2]}\n"
                    "    - name: c\n      count: 1\n      capacity: {cpu: \"8\", memory: 8Gi}\n"
                    "      hostDriver: {version: \"580.159.04\"}\n";
    gs_scenario_free(&sc);
    cr_assert_eq(gs_scenario_load_string("t.yaml", t, &sc, &err), 0, "%d:%d: %s", err.line, err.col, err.msg);
    const struct gs_pool *a = &sc.world.pools[0], *b = &sc.world.pools[1], *c = &sc.world.pools[2];
    cr_expect_str_eq(a->host_driver_version, "580.159.04");
    cr_assert_eq(a->nhost_driver_kernels, 1);
    cr_expect_str_eq(a->host_driver_kernels[0], "5.15.0-117-generic"); /* the pool's kernel */
    cr_assert_eq(b->nhost_driver_kernels, 2);
    cr_expect_str_eq(b->host_driver_kernels[1], "k2");
    cr_expect_eq(c->nhost_driver_kernels, 0); /* no kernel known: the one the node joins with */
    bad("    - {name: d, count: 1, capacity: {cpu: \"8\", memory: 8Gi}, hostDriver: {kernels: [k]}}\n", GS_EINVAL, L,
        74, "missing required field 'version' in spec.cluster.nodePools[2].hostDriver");
    bad("    - {name: d, count: 1, capacity: {cpu: \"8\", memory: 8Gi}, hostDriver: {version: r580}}\n", GS_EINVAL, L,
        84,
        "invalid driver version \"r580\" at spec.cluster.nodePools[2].hostDriver.version: expected a version such as "
        "\"550.90.07\"");
}

/* ------------------------------------------------------------------ events */

Test(operator, gpu_events)
{
    ok("  operator: {}\n"
       "  events:\n"
       "  - {at: 40m, xid: {node: h100-1, gpu: 7, code: 79}}\n"
       "  - {at: 30m, kernelPatch: {pool: h100, kernel: 5.15.0-118-generic, maxUnavailable: 2}}\n"
       "  - {at: 31m, kernelPatch: {pool: h100, kernel: k2, maxUnavailable: \"50%\", rebootDuration: 5m}}\n"
       "  - {at: 32m, kernelPatch: {pool: cpu, kernel: k3}}\n"
       "  - {at: 2h, devicePluginRestart: {node: h100-0}}\n"
       "  - {at: 3h, precompiledImagePublished: {kernel: 5.15.0-118-generic}}\n"
       "  - {at: 4h, driverUpgrade: {version: 550.90.07}}\n"
       "  - at: 5h\n"
       "    driverUpgrade:\n"
       "      version: \"570.124.06\"\n"
       "      maxParallelUpgrades: 0\n"
       "      maxUnavailable: 1\n"
       "      drain: {enable: true, force: true, timeoutSeconds: 600, deleteEmptyDir: true}\n");
    cr_assert_eq(sc.nevents, 8);
    const struct gs_sevent *e = sc.events;
    cr_expect_eq(e[0].kind, GS_SEV_KERNEL_PATCH);
    cr_expect_eq(e[0].pool, 0);
    cr_expect_str_eq(e[0].kernel, "5.15.0-118-generic");
    cr_expect_eq(e[0].max_unavailable, 2);
    cr_expect_not(e[0].max_unavailable_percent);
    cr_expect_not(e[0].has_reboot_duration);
    cr_expect_eq(e[1].max_unavailable, 50);
    cr_expect(e[1].max_unavailable_percent);
    cr_expect(e[1].has_reboot_duration);
    cr_expect_eq(e[1].reboot_duration, GS_MIN(5));
    cr_expect_eq(e[2].pool, 1);
    cr_expect_eq(e[2].max_unavailable, 1); /* default */
    cr_expect_eq(e[3].kind, GS_SEV_XID);
    cr_expect_str_eq(e[3].node, "h100-1");
    cr_expect_eq(e[3].gpu, 7);
    cr_expect_eq(e[3].code, 79);
    cr_expect_eq(e[4].kind, GS_SEV_DEVICE_PLUGIN_RESTART);
    cr_expect_str_eq(e[4].node, "h100-0");
    cr_expect_eq(e[5].kind, GS_SEV_PRECOMPILED_IMAGE_PUBLISHED);
    cr_expect_str_eq(e[5].kernel, "5.15.0-118-generic");
    cr_expect_eq(e[6].kind, GS_SEV_DRIVER_UPGRADE);
    cr_expect_str_eq(e[6].version, "550.90.07");
    cr_expect_eq(e[6].max_parallel, 1);
    cr_expect_eq(e[6].max_unavailable, 25);
    cr_expect(e[6].max_unavailable_percent);
    cr_expect_not(e[6].drain);
    cr_expect_eq(e[6].drain_timeout, GS_SEC(300));
    cr_expect_str_eq(e[7].version, "570.124.06");
    cr_expect_eq(e[7].max_parallel, 0);
    cr_expect_eq(e[7].max_unavailable, 1);
    cr_expect_not(e[7].max_unavailable_percent);
    cr_expect(e[7].drain && e[7].drain_force && e[7].drain_delete_empty_dir);
    cr_expect_eq(e[7].drain_timeout, GS_SEC(600));
    cr_expect_eq(e[7].line, L + 9);
}

Test(operator, gpu_event_errors)
{
#define EV(x) "  operator: {}\n  events:\n  - " x "\n"
    bad(EV("{at: 1h, xid: {node: h100-0, gpu: 8, code: 79}}"), GS_EINVAL, L + 2, 39,
        "spec.events[0].xid.gpu must be between 0 and 7, got 8");
    bad(EV("{at: 1h, xid: {node: cpu-0, gpu: 0, code: 79}}"), GS_EINVAL, L + 2, 26,
        "node 'cpu-0' at spec.events[0].xid.node has no GPUs (pool 'cpu' has no gpu:)");
    bad(EV("{at: 1h, xid: {node: h100-0, gpu: 0, code: 0}}"), GS_EINVAL, L + 2, 48,
        "spec.events[0].xid.code must be between 1 and 1023, got 0");
    bad(EV("{at: 1h, xid: {node: h100-0, gpu: 0}}"), GS_EINVAL, L + 2, 19,
        "missing required field 'code' in spec.events[0].xid");
    bad(EV("{at: 1h, kernelPatch: {pool: h10, kernel: k}}"), GS_EINVAL, L + 2, 34,
        "unknown node pool 'h10' at spec.events[0].kernelPatch.pool (did you mean 'h100'?)");
    bad(EV("{at: 1h, kernelPatch: {pool: h100, kernel: k, maxUnavailable: 0}}"), GS_EINVAL, L + 2, 67,
        "spec.events[0].kernelPatch.maxUnavailable must be >= 1, got 0");
    bad(EV("{at: 1h, kernelPatch: {pool: h100, kernel: k, maxUnavailable: \"2\"}}"), GS_EINVAL, L + 2, 67,
        "invalid spec.events[0].kernelPatch.maxUnavailable \"2\": expected a number of nodes such as 2 or a "
        "percentage such as \"25%\"");
    bad(EV("{at: 1h, kernelPatch: {pool: h100, kernel: k, maxUnavailable: 120%}}"), GS_EINVAL, L + 2, 67,
        "spec.events[0].kernelPatch.maxUnavailable must be between 1% and 100%, got 120%");
    bad(EV("{at: 1h, kernelPatch: {pool: h100}}"), GS_EINVAL, L + 2, 27,
        "missing required field 'kernel' in spec.events[0].kernelPatch");
    bad(EV("{at: 1h, precompiledImagePublished: {kernel: k, image: x}}"), GS_EINVAL, L + 2, 53,
        "unknown key 'image' in spec.events[0].precompiledImagePublished");
    bad(EV("{at: 1h, devicePluginRestart: {node: a100-0}}"), GS_EINVAL, L + 2, 42,
        "spec.events[0].devicePluginRestart.node: node 'a100-0' cannot belong to any node pool: nodes are named "
        "<pool>-<index> (pools: h100, cpu)");
    bad(EV("{at: 1h, driverUpgrade: {version: 550.90.07, waitForCompletion: {timeoutSeconds: 0}}}"), GS_ENOTSUP, L + 2,
        50, "not supported yet: spec.events[0].driverUpgrade.waitForCompletion");
    bad(EV("{at: 1h, driverUpgrade: {version: 550.90.07, drain: {podSelector: app=x}}}"), GS_ENOTSUP, L + 2, 58,
        "not supported yet: spec.events[0].driverUpgrade.drain.podSelector");
    bad(EV("{at: 1h, operandFault: {node: h100-0}}"), GS_ENOTSUP, L + 2, 14,
        "not supported yet: spec.events[0].operandFault");
    /* driverUpgrade needs the operator's driver */
    bad("  events:\n  - {at: 1h, driverUpgrade: {version: 550.90.07}}\n", GS_EINVAL, L + 1, 29,
        "spec.events[0].driverUpgrade needs spec.operator with the driver enabled: the GPU Operator's upgrade "
        "controller rolls the driver out");
    bad("  operator: {driver: {enabled: false}}\n  events:\n  - {at: 1h, driverUpgrade: {version: 550.90.07}}\n",
        GS_EINVAL, L + 2, 29,
        "spec.events[0].driverUpgrade needs spec.operator with the driver enabled: the GPU Operator's upgrade "
        "controller rolls the driver out");
#undef EV
}

/* ------------------------------------------------------------------ expectations */

Test(operator, operand_expectations)
{
    ok("  operator: {}\n"
       "  expect:\n"
       "  - node: h100-0\n"
       "    at: 25m\n"
       "    operand: {nvidia-driver-daemonset: ImagePullBackOff, nvidia-operator-validator: \"Init:0/4\", "
       "gpu-feature-discovery: null, nvidia-container-toolkit-daemonset: Init:CrashLoopBackOff}\n"
       "    allocatable: {nvidia.com/gpu: \"0\"}\n"
       "  - {node: h100-1, operand: {nvidia-device-plugin-daemonset: Running}}\n");
    cr_assert_eq(sc.nexpects, 2);
    const struct gs_expect *e = &sc.expects[0];
    cr_expect_eq(e->kind, GS_EX_NODE);
    cr_assert_eq(e->noperands, 4);
    cr_expect_str_eq(e->operands[0].key, "nvidia-driver-daemonset");
    cr_expect_str_eq(e->operands[0].value, "ImagePullBackOff");
    cr_expect_str_eq(e->operands[1].value, "Init:0/4");
    cr_expect_null(e->operands[2].value);
    cr_expect_str_eq(e->operands[3].value, "Init:CrashLoopBackOff");
    cr_expect_eq(e->nallocatable, 1);
    cr_expect_eq(sc.expects[1].noperands, 1);
    cr_expect_not(sc.expects[1].has_schedulable);
}

Test(operator, operand_expectation_errors)
{
    bad("  expect:\n  - {node: h100-0, operand: {nvidia-driver-daemonst: Running}}\n", GS_EINVAL, L + 1, 30,
        "unknown operand 'nvidia-driver-daemonst' in spec.expect[0].operand (did you mean 'nvidia-driver-daemonset'?)");
    bad("  expect:\n  - {node: h100-0, operand: {kube-proxy: Running}}\n", GS_EINVAL, L + 1, 30,
        "unknown operand 'kube-proxy' in spec.expect[0].operand: expected a GPU Operator DaemonSet such as "
        "nvidia-driver-daemonset, nvidia-device-plugin-daemonset or nvidia-operator-validator");
    bad("  expect:\n  - {node: h100-0, operand: {nvidia-driver-daemonset: Runing}}\n", GS_EINVAL, L + 1, 55,
        "unknown pod status 'Runing' at spec.expect[0].operand[nvidia-driver-daemonset] (did you mean 'Running'?)");
    bad("  expect:\n  - {node: h100-0, operand: {nvidia-operator-validator: \"Init:4/4\"}}\n", GS_EINVAL, L + 1, 57,
        "unknown pod status 'Init:4/4' at spec.expect[0].operand[nvidia-operator-validator]: expected what kubectl "
        "get pods prints, e.g. Running, Init:0/4, ImagePullBackOff or CrashLoopBackOff (null: no pod)");
    bad("  expect:\n  - {node: h100-0, operand: {}}\n", GS_EINVAL, L + 1, 29,
        "spec.expect[0].operand is empty: give DaemonSet names and pod statuses, e.g. {nvidia-driver-daemonset: "
        "Running}");
    bad("  expect:\n  - {node: h100-0, at: 5m}\n", GS_EINVAL, L + 1, 5,
        "spec.expect[0] checks nothing: give schedulable, allocatable, capacity, labels or operand");
}

/* ------------------------------------------------------------------ the real-world cases */

static void load_case(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/../shared/cases/%s", GPUSIM_SOURCE_DIR, name);
    if (access(path, R_OK) != 0)
        cr_skip_test("%s not found", path);
    gs_scenario_free(&sc);
    int rc = gs_scenario_load(path, NULL, 0, -1, -1, &sc, &err);
    cr_assert_eq(rc, 0, "%s: %s:%d:%d: %s", name, err.file, err.line, err.col, err.msg);
}

Test(operator, case_c01)
{
    load_case("c01-precompiled-image-missing.yaml");
    cr_expect(sc.op.enabled);
    cr_expect(sc.op.use_precompiled);
    cr_expect_str_eq(sc.op.driver_version, "535");
    cr_assert_eq(sc.op.nprecompiled_kernels, 1);
    cr_expect_str_eq(sc.op.precompiled_kernels[0], "5.15.0-117-generic");
    cr_assert_eq(sc.nevents, 2);
    cr_expect_eq(sc.events[0].kind, GS_SEV_KERNEL_PATCH);
    cr_expect_eq(sc.events[0].max_unavailable, 2);
    cr_expect_eq(sc.events[1].kind, GS_SEV_PRECOMPILED_IMAGE_PUBLISHED);
    cr_expect_eq(sc.events[1].at, GS_MIN(360));
    cr_expect_eq(sc.expects[1].noperands, 1);
    cr_expect_str_eq(sc.expects[1].operands[0].value, "ImagePullBackOff");
    load_case("c01-precompiled-image-missing-compiled-driver.yaml");
    cr_expect_not(sc.op.use_precompiled);
    cr_expect_str_eq(sc.op.driver_version, "535.183.06");
}

Test(operator, case_c11)
{
    load_case("c11-validator-missing-toleration.yaml");
    cr_expect_str_eq(sc.gpu_operator_version, "v1.5.2");
    cr_assert(sc.op.has_ds_tolerations);
    cr_expect_str_eq(sc.op.ds_tolerations[0].key, "workload");
    cr_expect_str_eq(sc.expects[1].operands[0].key, "nvidia-device-plugin-daemonset");
}

Test(operator, case_c20)
{
    load_case("c20-xid94-unhealthy-until-restart.yaml");
    cr_expect_str_eq(sc.gpu_operator_version, "v23.9.2");
    cr_expect_not(gs_xid_ignored(&sc.op.xid, 94));
    cr_expect_eq(sc.events[0].kind, GS_SEV_XID);
    cr_expect_eq(sc.events[0].code, 94);
    cr_expect_eq(sc.events[2].kind, GS_SEV_DEVICE_PLUGIN_RESTART);
    load_case("c20-xid94-unhealthy-until-restart-ignore-xid-94.yaml");
    cr_expect(gs_xid_ignored(&sc.op.xid, 94));
    cr_expect_not(gs_xid_ignored(&sc.op.xid, 79));
}

Test(operator, case_c03)
{
    load_case("c03-nfd-toleration-mismatch.yaml");
    cr_expect_str_eq(sc.device_plugin_version, "v0.19.1");
    cr_expect_eq(sc.op.managed_by, GS_MANAGED_HELM);
    cr_expect(sc.op.gfd_enabled && sc.op.nfd_enabled && sc.op.device_plugin_enabled);
    cr_assert(sc.op.has_nfd_tolerations);
    cr_expect_str_eq(sc.op.nfd_tolerations[0].value, "present");
    cr_expect_str_eq(sc.expects[0].obj_kind, "DaemonSet");
    cr_expect_str_eq(sc.expects[0].name, "nvidia-device-plugin-node-feature-discovery-worker");
    cr_expect(sc.expects[0].has_desired_scheduled && !sc.expects[0].has_number_ready);
    cr_expect_eq(sc.expects[0].desired_scheduled, 0);
    cr_expect_not(sc.expects[0].has_exists);
}

/* managedBy helm: the k8s-device-plugin chart's defaults and what does not apply to it. */
Test(operator, managed_by_helm)
{
    ok("  operator: {managedBy: helm}\n");
    cr_expect_eq(sc.op.managed_by, GS_MANAGED_HELM);
    cr_expect(sc.op.device_plugin_enabled);
    cr_expect_not(sc.op.gfd_enabled);  /* chart default gfd.enabled: false */
    cr_expect_not(sc.op.nfd_enabled);  /* condition nfd.enabled,gfd.enabled: follows gfd */
    cr_expect_not(sc.op.driver_enabled);
    cr_expect_not(sc.op.toolkit_enabled);
    cr_expect_not(sc.op.has_nfd_tolerations);
    ok("  operator: {managedBy: helm, gfd: {enabled: true}}\n");
    cr_expect(sc.op.gfd_enabled && sc.op.nfd_enabled);
    ok("  operator: {managedBy: helm, gfd: {enabled: true}, nfd: {enabled: false}}\n");
    cr_expect(sc.op.gfd_enabled);
    cr_expect_not(sc.op.nfd_enabled);
    ok("  operator: {managedBy: helm, nfd: {enabled: true}}\n");
    cr_expect(sc.op.nfd_enabled);
    cr_expect_not(sc.op.gfd_enabled);
    ok("  operator: {managedBy: helm, devicePlugin: {enabled: false}}\n");
    cr_expect_not(sc.op.device_plugin_enabled);
    bad("  operator:\n    managedBy: helm\n    driver: {enabled: true}\n", GS_EINVAL, L + 2, 5,
        "spec.operator.driver does not apply with managedBy helm: the k8s-device-plugin chart installs only the "
        "device plugin, GFD and NFD (driver and toolkit come with the node image)");
    bad("  operator: {managedBy: helm, validator: {}}\n", GS_EINVAL, L, 31,
        "spec.operator.validator does not apply with managedBy helm: the k8s-device-plugin chart installs only the "
        "device plugin, GFD and NFD (driver and toolkit come with the node image)");
    /* The GPU Operator keeps its defaults. */
    ok("  operator: {}\n");
    cr_expect(sc.op.gfd_enabled && sc.op.nfd_enabled && sc.op.driver_enabled);
}
