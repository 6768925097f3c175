/* Bring-up through whole runs (gs_run): kernel-patch waves, eviction and re-creation, driver
 * upgrades, Xids without an operator, node expectations on operands, and the trace-only
 * reports (describe, the summary's Bring-up section). */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/report.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "trace_query.h"

static char trace_path[256];

static void setup(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-bringup-run-%d.db", (int)getpid());
}

static void teardown(void)
{
    unlink(trace_path);
}

TestSuite(bringup_run, .init = setup, .fini = teardown);

static void run(struct gs_scenario *sc, const char *yaml)
{
    struct gs_error err = {0};
    int rc = gs_scenario_load_string("test.yaml", yaml, sc, &err);
    cr_assert_eq(rc, 0, "load: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result r;
    char ebuf[256];
    cr_assert_eq(gs_run(sc, &o, &r, ebuf, sizeof ebuf), 0, "%s", ebuf);
    for (int i = 0; i < sc->nexpects; i++)
        cr_expect(sc->expects[i].pass, "check %d (%s): %s", i, sc->expects[i].what, sc->expects[i].detail);
}

/* Rows of `sql` on this test's trace (trace_query.h). */
static char *query(const char *sql)
{
    return gs_test_query(trace_path, sql);
}

#define HEAD                                                                                                 \
    "apiVersion: gpusim/v1alpha1\n"                                                                          \
    "kind: Scenario\n"                                                                                       \
    "metadata: {name: bringup}\n"                                                                            \
    "spec:\n"

static const char waves[] = HEAD
    "  horizon: 1h\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 3, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, kernel: 5.15.0-105-generic,\n"
    "       capacity: {cpu: '96', memory: 1Ti}}\n"
    "  operator:\n"
    "    driver: {enabled: true, version: 550.90.07}\n"
    "    timings: fast\n"
    "  workloads:\n"
    "  - name: serve\n"
    "    replicas: 3\n"
    "    arrival: {at: 1m}\n"
    "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}\n"
    "  - arrival: {at: 1m}\n"
    "    manifest: {apiVersion: v1, kind: Pod, metadata: {name: lone}, spec: {containers: [{name: c, resources: {limits: {cpu: '1'}}}]}}\n"
    "  events:\n"
    "  - at: 10m\n"
    "    kernelPatch: {pool: gpu, kernel: 5.15.0-106-generic, maxUnavailable: 1}\n"
    "  expect:\n"
    "  - node: gpu-0\n"
    "    at: 10m5s\n"
    "    schedulable: false\n"
    "    allocatable: {nvidia.com/gpu: '0'}\n"
    "  - node: gpu-1\n"
    "    at: 10m5s\n"
    "    schedulable: true\n"
    "  - node: gpu-2\n"
    "    at: 30m\n"
    "    allocatable: {nvidia.com/gpu: '8'}\n"
    "    labels: {feature.node.kubernetes.io/kernel-version.full: 5.15.0-106-generic}\n"
    "    operand: {nvidia-driver-daemonset: Running, nvidia-operator-validator: Running, gpu-feature-discovery: Running}\n"
    "  - pods: {phase: Running, workload: serve}\n"
    "    at: 30m\n"
    "    count: 3\n";

Test(bringup_run, kernel_patch_reboots_one_wave_at_a_time)
{
    struct gs_scenario sc;
    run(&sc, waves);
    /* Each node reboots once the previous one is back (fast profile: reboot 10 s). */
    cr_assert_str_eq(query("SELECT n.name, e.t_us / 1000000 FROM node_event e JOIN node n ON n.id = e.node_id"
                           " WHERE e.kind = 'Reboot' ORDER BY e.t_us, n.name"),
                     "gpu-0|600;gpu-1|610;gpu-2|620");
    cr_assert_str_eq(query("SELECT n.name, e.t_us / 1000000 FROM node_event e JOIN node n ON n.id = e.node_id"
                           " WHERE e.kind = 'Kernel' ORDER BY e.t_us, n.name"),
                     "gpu-0|610;gpu-1|620;gpu-2|630");
    /* Cordoned for the reboot, uncordoned when kubelet is back. */
    cr_assert_str_eq(query("SELECT e.t_us / 1000000, e.value FROM node_event e WHERE e.kind = 'Cordon' AND e.node_id ="
                           " (SELECT id FROM node WHERE name = 'gpu-1') ORDER BY e.rowid"),
                     "610|true;620|false");
    /* The three serve pods and the bare pod were evicted; the serve pods were re-created with
     * new indexes, like a ReplicaSet, the bare pod was not. */
    cr_assert_str_eq(query("SELECT count(*) FROM pod_event WHERE reason = 'Evicted'"), "4");
    cr_assert_str_eq(query("SELECT count(*) FROM pod WHERE workload = 'lone'"), "1");
    cr_assert_str_eq(query("SELECT group_concat(name) FROM (SELECT name FROM pod WHERE workload = 'serve'"
                           " AND phase = 'Running' ORDER BY name)"),
                     "serve-3,serve-4,serve-5");
    gs_scenario_free(&sc);
}

static const char percent[] = HEAD
    "  horizon: 30m\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 3, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, kernel: 5.15.0-105-generic,\n"
    "       capacity: {cpu: '96', memory: 1Ti}}\n"
    "  operator:\n"
    "    driver: {enabled: true, version: 550.90.07}\n"
    "    timings: fast\n"
    "  events:\n"
    "  - at: 10m\n"
    "    kernelPatch: {pool: gpu, kernel: 5.15.0-106-generic, maxUnavailable: '50%', rebootDuration: 1m}\n";

Test(bringup_run, kernel_patch_percent_rounds_up)
{
    struct gs_scenario sc;
    run(&sc, percent);
    /* 50 % of 3 rounds up to 2: two nodes, then the third a minute later. */
    cr_assert_str_eq(query("SELECT n.name, e.t_us / 1000000 FROM node_event e JOIN node n ON n.id = e.node_id"
                           " WHERE e.kind = 'Reboot' ORDER BY e.t_us, n.name"),
                     "gpu-0|600;gpu-1|600;gpu-2|660");
    gs_scenario_free(&sc);
}

static const char upgrade[] = HEAD
    "  horizon: 1h\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 2, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, kernel: 5.15.0-105-generic,\n"
    "       capacity: {cpu: '96', memory: 1Ti}}\n"
    "  operator:\n"
    "    driver: {enabled: true, version: 550.90.07}\n"
    "    timings: fast\n"
    "  workloads:\n"
    "  - name: train\n"
    "    replicas: 2\n"
    "    arrival: {at: 1m}\n"
    "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 8}}}]}}\n"
    "  events:\n"
    "  - at: 10m\n"
    "    driverUpgrade: {version: 570.86.15, maxParallelUpgrades: 1, maxUnavailable: 1}\n"
    "  expect:\n"
    "  - node: gpu-0\n"
    "    at: 30m\n"
    "    labels: {nvidia.com/gpu-driver-upgrade-state: upgrade-done, nvidia.com/cuda.driver-version.full: 570.86.15}\n"
    "    schedulable: true\n"
    "  - node: gpu-1\n"
    "    at: 30m\n"
    "    labels: {nvidia.com/gpu-driver-upgrade-state: upgrade-done}\n"
    "  - pods: {phase: Running, workload: train}\n"
    "    at: 30m\n"
    "    count: 2\n";

Test(bringup_run, driver_upgrade_walks_the_states_one_node_at_a_time)
{
    struct gs_scenario sc;
    run(&sc, upgrade);
    const char *want = "upgrade-required;cordon-required;wait-for-jobs-required;pod-deletion-required;"
                       "drain-required;pod-restart-required;validation-required;uncordon-required;upgrade-done";
    cr_assert_str_eq(query("SELECT e.value FROM node_event e WHERE e.kind = 'Label'"
                           " AND e.subject = 'nvidia.com/gpu-driver-upgrade-state'"
                           " AND e.node_id = (SELECT id FROM node WHERE name = 'gpu-0') ORDER BY e.rowid"),
                     want);
    cr_assert_str_eq(query("SELECT e.value FROM node_event e WHERE e.kind = 'Label'"
                           " AND e.subject = 'nvidia.com/gpu-driver-upgrade-state'"
                           " AND e.node_id = (SELECT id FROM node WHERE name = 'gpu-1') ORDER BY e.rowid"),
                     want);
    /* maxParallelUpgrades 1: gpu-1 is cordoned only after gpu-0 is done. */
    char *done0 = strdup(query("SELECT min(t_us) FROM node_event WHERE value = 'upgrade-done'"
                               " AND node_id = (SELECT id FROM node WHERE name = 'gpu-0')"));
    char *cordon1 = strdup(query("SELECT min(t_us) FROM node_event WHERE value = 'cordon-required'"
                                 " AND node_id = (SELECT id FROM node WHERE name = 'gpu-1')"));
    cr_assert_leq(atoll(done0), atoll(cordon1), "gpu-0 done at %s, gpu-1 cordoned at %s", done0, cordon1);
    cr_assert_gt(atoll(done0), 600000000LL);
    free(done0);
    free(cordon1);
    /* Each node's GPU pod was deleted (and re-created elsewhere or later). */
    cr_assert_str_eq(query("SELECT count(*) FROM pod_event WHERE reason = 'Evicted'"), "2");
    gs_scenario_free(&sc);
}

static const char no_operator[] = HEAD
    "  horizon: 1h\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 1, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '96', memory: 1Ti}}\n"
    "  events:\n"
    "  - at: 10m\n"
    "    xid: {node: gpu-0, gpu: 2, code: 79}\n"
    "  - at: 11m\n"
    "    xid: {node: gpu-0, gpu: 3, code: 13}\n"
    "  - at: 20m\n"
    "    devicePluginRestart: {node: gpu-0}\n"
    "  expect:\n"
    "  - node: gpu-0\n"
    "    at: 5m\n"
    "    allocatable: {nvidia.com/gpu: '8'}\n"
    "  - node: gpu-0\n"
    "    at: 15m\n"
    "    allocatable: {nvidia.com/gpu: '7'}\n"
    "    capacity: {nvidia.com/gpu: '8'}\n"
    "  - node: gpu-0\n"
    "    at: 25m\n"
    "    allocatable: {nvidia.com/gpu: '8'}\n";

Test(bringup_run, xid_and_plugin_restart_without_an_operator)
{
    struct gs_scenario sc;
    run(&sc, no_operator);
    cr_assert_str_eq(query("SELECT subject, value FROM node_event WHERE kind = 'Xid' ORDER BY rowid"),
                     "GPU 2|Xid 79: device marked Unhealthy;GPU 3|Xid 13: ignored by the device plugin");
    gs_scenario_free(&sc);
}

static const char stuck[] = HEAD
    "  horizon: 40m\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu, count: 1, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 8}, kernel: 5.15.0-118-generic,\n"
    "       capacity: {cpu: '96', memory: 1Ti}, taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}\n"
    "  operator:\n"
    "    driver: {enabled: true, usePrecompiled: true, version: '535'}\n"
    "    precompiledKernels: [5.15.0-117-generic]\n"
    "  events:\n"
    "  - at: 30m\n"
    "    precompiledImagePublished: {kernel: 5.15.0-118-generic}\n"
    "  expect:\n"
    "  - node: gpu-0\n"
    "    at: 20m\n"
    "    operand: {nvidia-driver-daemonset: ImagePullBackOff, nvidia-container-toolkit-daemonset: Init:0/1,\n"
    "              nvidia-operator-validator: Init:0/4, nvidia-dcgm-exporter: Init:0/1}\n"
    "    allocatable: {nvidia.com/gpu: null}\n"
    "    schedulable: false\n";

/* managedBy helm with DaemonSet status checks: the NFD worker tolerates gpu-a's taint value
 * "present" but not gpu-b's "true", so only gpu-a gets the PCI label and the plugin. */
static const char helm[] = HEAD
    "  horizon: 30m\n"
    "  versions: {k8s-device-plugin: v0.19.1}\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: gpu-a, count: 2, gpu: {product: NVIDIA-A10G, count: 1}, capacity: {cpu: '16', memory: 64Gi},\n"
    "       taints: [{key: nvidia.com/gpu, value: present, effect: NoSchedule}]}\n"
    "    - {name: gpu-b, count: 1, gpu: {product: NVIDIA-A10G, count: 1}, capacity: {cpu: '16', memory: 64Gi},\n"
    "       taints: [{key: nvidia.com/gpu, value: 'true', effect: NoSchedule}]}\n"
    "    - {name: cpu, count: 1, capacity: {cpu: '16', memory: 64Gi}}\n"
    "  operator: {managedBy: helm, gfd: {enabled: true}}\n"
    "  expect:\n"
    "  - object: {kind: DaemonSet, name: nvidia-device-plugin-node-feature-discovery-worker}\n"
    "    at: 20m\n"
    "    status: {desiredNumberScheduled: 3, numberReady: 3}\n"
    "  - object: {kind: DaemonSet, name: nvidia-device-plugin}\n"
    "    at: 20m\n"
    "    status: {desiredNumberScheduled: 2, numberReady: 2}\n"
    "  - object: {kind: DaemonSet, name: nvidia-device-plugin-gpu-feature-discovery}\n"
    "    at: 20m\n"
    "    status: {desiredNumberScheduled: 2}\n"
    "  - {object: {kind: DaemonSet, name: nvidia-driver-daemonset}, exists: false}\n"
    "  - {object: {kind: DaemonSet, name: nvidia-device-plugin-daemonset}, exists: false}\n"
    "  - node: gpu-b-0\n"
    "    at: 20m\n"
    "    allocatable: {nvidia.com/gpu: null}\n"
    "    operand: {nvidia-device-plugin: null}\n"
    "  - node: gpu-a-0\n"
    "    at: 20m\n"
    "    allocatable: {nvidia.com/gpu: 1}\n"
    "    operand: {nvidia-device-plugin: Running}\n";

Test(bringup_run, helm_daemonset_status)
{
    struct gs_scenario sc;
    run(&sc, helm);
    cr_assert_str_eq(query("SELECT DISTINCT subject FROM node_event WHERE kind = 'Operand' ORDER BY subject"),
                     "nvidia-device-plugin;nvidia-device-plugin-gpu-feature-discovery;"
                     "nvidia-device-plugin-node-feature-discovery-worker");
    gs_scenario_free(&sc);
}

/* A DaemonSet status check that fails says what it saw. */
Test(bringup_run, daemonset_status_mismatch_detail)
{
    static const char yaml[] = HEAD
        "  horizon: 10m\n"
        "  cluster:\n"
        "    nodePools:\n"
        "    - {name: g, count: 2, gpu: {product: NVIDIA-A10G, count: 1}, capacity: {cpu: '16', memory: 64Gi}}\n"
        "  operator: {}\n"
        "  expect:\n"
        "  - object: {kind: DaemonSet, name: gpu-operator-node-feature-discovery-worker}\n"
        "    status: {desiredNumberScheduled: 1}\n"
        "  - object: {kind: DaemonSet, name: nvidia-device-plugin}\n"
        "    status: {desiredNumberScheduled: 0}\n";
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert_eq(gs_scenario_load_string("test.yaml", yaml, &sc, &err), 0, "%s", err.msg);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result r;
    char ebuf[256];
    cr_assert_eq(gs_run(&sc, &o, &r, ebuf, sizeof ebuf), 0, "%s", ebuf);
    cr_expect_not(sc.expects[0].pass);
    cr_expect_str_eq(sc.expects[0].detail, "desiredNumberScheduled is 2");
    cr_expect_not(sc.expects[1].pass);
    cr_expect_str_eq(sc.expects[1].detail, "no DaemonSet named nvidia-device-plugin");
    gs_scenario_free(&sc);
}

Test(bringup_run, describe_reads_the_node_back_from_the_trace)
{
    struct gs_scenario sc;
    run(&sc, stuck);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    char err[256];
    cr_assert_eq(gs_report_describe(trace_path, "gpu-0", GS_MIN(20), f, err, sizeof err), 0, "%s", err);
    fclose(f);
    cr_assert(strstr(buf, "Name:               gpu-0\n"), "%s", buf);
    cr_assert(strstr(buf, "Taints:             nvidia.com/gpu=present:NoSchedule\n"), "%s", buf);
    cr_assert(strstr(buf, "Unschedulable:      false\n"), "%s", buf);
    cr_assert(strstr(buf, "feature.node.kubernetes.io/pci-10de.present=true\n"), "%s", buf);
    cr_assert(strstr(buf, "nvidia-driver-daemonset"), "%s", buf);
    cr_assert(strstr(buf, "ImagePullBackOff"), "%s", buf);
    cr_assert(strstr(buf, "Init:0/4"), "%s", buf);
    cr_assert(strstr(buf, "Kernel Version:     5.15.0-118-generic"), "%s", buf);
    cr_assert_null(strstr(buf, "nvidia.com/gpu.product="), "GFD has not run: %s", buf);
    /* Labels are sorted. */
    cr_assert_lt(strstr(buf, "feature.node"), strstr(buf, "kubernetes.io/hostname"));
    free(buf);
    /* At the end the image was published and the node is up. */
    buf = NULL;
    f = open_memstream(&buf, &len);
    cr_assert_eq(gs_report_describe(trace_path, "gpu-0", -1, f, err, sizeof err), 0, "%s", err);
    fclose(f);
    cr_assert(strstr(buf, "nvidia.com/gpu.product=NVIDIA-A100-SXM4-80GB"), "%s", buf);
    cr_assert(strstr(buf, "  nvidia.com/gpu:    8\n"), "%s", buf);
    free(buf);
    /* Errors name what is wrong. */
    f = fopen("/dev/null", "w");
    cr_assert_eq(gs_report_describe(trace_path, "nope", -1, f, err, sizeof err), GS_EINVAL);
    cr_assert(strstr(err, "no node named 'nope'"), "%s", err);
    fclose(f);
    /* The summary's Bring-up section. */
    buf = NULL;
    f = open_memstream(&buf, &len);
    cr_assert_eq(gs_report_summary(trace_path, f, err, sizeof err), 0, "%s", err);
    fclose(f);
    cr_assert(strstr(buf, "Bring-up (time from join to GPUs allocatable):"), "%s", buf);
    cr_assert(strstr(buf, "longest operand step: nvidia-driver-daemonset on gpu-0, ImagePullBackOff"), "%s", buf);
    free(buf);
    gs_scenario_free(&sc);
}
