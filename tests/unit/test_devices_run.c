/* Devices through whole runs (gs_run, sim/controllers/device_plugin.c): allocatable per resource name under
 * each MIG strategy and sharing config after bring-up, the label-driven MIG reconfiguration
 * timeline in the trace, the kubelet's Allocate refusal, and GPU share packing. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/run.h"
#include "sim/scenario.h"
#include "trace_query.h"

static char trace_path[256];
static struct gs_scenario sc;
static bool loaded;

static void setup(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-devices-run-%d.db", (int)getpid());
}

static void teardown(void)
{
    if (loaded)
        gs_scenario_free(&sc);
    loaded = false;
    unlink(trace_path);
}

TestSuite(devices_run, .init = setup, .fini = teardown);

static void run(const char *yaml)
{
    struct gs_error err = {0};
    if (loaded)
        gs_scenario_free(&sc);
    unlink(trace_path);
    int rc = gs_scenario_load_string("test.yaml", yaml, &sc, &err);
    cr_assert_eq(rc, 0, "load: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    loaded = true;
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result r;
    char ebuf[256];
    cr_assert_eq(gs_run(&sc, &o, &r, ebuf, sizeof ebuf), 0, "%s", ebuf);
    for (int i = 0; i < sc.nexpects; i++)
        cr_expect(sc.expects[i].pass, "check %d (%s): %s", i, sc.expects[i].what, sc.expects[i].detail);
}

/* Rows of `sql` on this test's trace (trace_query.h). */
static char *query(const char *sql)
{
    return gs_test_query(trace_path, sql);
}

#define HEAD                                                                                                 \
    "apiVersion: gpusim/v1alpha1\n"                                                                          \
    "kind: Scenario\n"                                                                                       \
    "metadata: {name: devices}\n"                                                                            \
    "spec:\n"                                                                                                \
    "  horizon: 10m\n"

/* An A100 80GB node whose pool label asks for a layout with 1g.10gb x7 on GPU 0 and 3g.40gb x2
 * on GPU 1; the other six GPUs stay whole. `strategy` is mig.strategy. */
static void mig_node(const char *strategy, const char *expect)
{
    char y[4096];
    snprintf(y, sizeof y,
             HEAD "  cluster:\n"
                  "    nodePools:\n"
                  "    - {name: a, count: 1, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 8},\n"
                  "       capacity: {cpu: '96', memory: 1Ti}, labels: {nvidia.com/mig.config: two}}\n"
                  "  operator:\n"
                  "    timings: fast\n"
                  "    mig: {strategy: %s}\n"
                  "    migManager:\n"
                  "      configFile:\n"
                  "        version: v1\n"
                  "        mig-configs:\n"
                  "          two:\n"
                  "          - {devices: [0], mig-enabled: true, mig-devices: {1g.10gb: 7}}\n"
                  "          - {devices: [1], mig-enabled: true, mig-devices: {3g.40gb: 2}}\n"
                  "  expect:\n%s",
             strategy, expect);
    run(y);
}

Test(devices_run, allocatable_mixed)
{
    mig_node("mixed", "  - node: a-0\n"
                      "    at: 5m\n"
                      "    allocatable: {nvidia.com/gpu: '6', nvidia.com/mig-1g.10gb: '7', nvidia.com/mig-3g.40gb: '2'}\n"
                      "    labels: {nvidia.com/mig.config.state: success, nvidia.com/mig-3g.40gb.count: '2'}\n");
    /* One Allocatable row per resource name, over time: 8 whole GPUs, 0 while paused, then the
     * mixed resources. */
    cr_expect_str_eq(query("SELECT subject, value FROM node_event WHERE kind = 'Allocatable' AND subject LIKE 'nvidia%'"
                           " ORDER BY rowid"),
                     "nvidia.com/gpu|8;nvidia.com/gpu|0;nvidia.com/gpu|6;nvidia.com/mig-1g.10gb|7;"
                     "nvidia.com/mig-3g.40gb|2");
    cr_expect_str_eq(query("SELECT subject, value FROM node_event WHERE kind = 'Mig' ORDER BY rowid"),
                     "GPU 0|1g.10gb x7;GPU 1|3g.40gb x2");
}

Test(devices_run, allocatable_none)
{
    /* none: MIG-enabled GPUs are still offered whole. */
    mig_node("none", "  - node: a-0\n"
                     "    at: 5m\n"
                     "    allocatable: {nvidia.com/gpu: '8', nvidia.com/mig-1g.10gb: null}\n"
                     "    labels: {nvidia.com/mig.config.state: success}\n");
}

Test(devices_run, allocatable_single_invalid)
{
    /* single with two profiles: the plugin does not start, GFD writes -MIG-INVALID. */
    mig_node("single", "  - node: a-0\n"
                       "    at: 5m\n"
                       "    allocatable: {nvidia.com/gpu: '0'}\n"
                       "    labels: {nvidia.com/gpu.product: NVIDIA-A100-SXM4-80GB-MIG-INVALID,"
                       " nvidia.com/gpu.count: '0'}\n");
    cr_expect(strstr(query("SELECT value FROM node_event WHERE kind = 'DevicePlugin' AND subject = 'error'"),
                     "single"),
              "the plugin's error is in the trace");
}

Test(devices_run, mig_label_timeline)
{
    run(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: h, count: 1, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 2},\n"
             "       capacity: {cpu: '96', memory: 1Ti}}\n"
             "  operator:\n"
             "    timings: fast\n"
             "    mig: {strategy: single}\n"
             "  events:\n"
             "  - at: 2m\n"
             "    label: {node: h-0, set: {nvidia.com/mig.config: all-1g.10gb}}\n"
             "  expect:\n"
             "  - node: h-0\n"
             "    at: 3m\n"
             "    allocatable: {nvidia.com/gpu: '14'}\n"
             "    labels: {nvidia.com/gpu.product: NVIDIA-H100-80GB-HBM3-MIG-1g.10gb, nvidia.com/gpu.count: '14'}\n");
    /* pending at 2m, the clients paused, 1 s reconfigure + 1 s mode change (fast), success. */
    cr_expect_str_eq(query("SELECT t_us / 1000000, value FROM node_event WHERE subject = 'nvidia.com/mig.config.state'"
                           " ORDER BY rowid"),
                     "8|success;120|pending;122|success");
    cr_expect_str_eq(query("SELECT t_us / 1000000, value FROM node_event WHERE kind = 'Allocatable' AND subject ="
                           " 'nvidia.com/gpu' ORDER BY rowid"),
                     "8|2;120|0;123|14");
}

Test(devices_run, admission_refused)
{
    run(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: g, count: 1, gpu: {product: NVIDIA-L4, count: 1}, capacity: {cpu: '8', memory: 32Gi}}\n"
             "  operator:\n"
             "    timings: fast\n"
             "    devicePlugin: {config: {version: v1, sharing: {timeSlicing: {failRequestsGreaterThanOne: true,"
             " resources: [{name: nvidia.com/gpu, replicas: 4}]}}}}\n"
             "  workloads:\n"
             "  - name: two\n"
             "    replicas: 1\n"
             "    arrival: {at: 1m}\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/gpu: 2}}}]}}\n"
             "  expect:\n"
             "  - pod: two\n"
             "    phase: Failed\n"
             "    reason: UnexpectedAdmissionError\n"
             "    messageContains: 'maximum request size for shared resources is 1; found 2'\n");
    cr_expect_str_eq(query("SELECT e.reason FROM pod_event e ORDER BY rowid"),
                     "Created;Scheduled;UnexpectedAdmissionError");
    cr_expect_str_eq(query("SELECT phase FROM pod"), "Failed");
}

Test(devices_run, share_packing)
{
    run(HEAD "  scheduler: {tieBreak: first}\n"
             "  cluster:\n"
             "    nodePools:\n"
             "    - {name: g, count: 1, gpu: {product: NVIDIA-L4, count: 3}, capacity: {cpu: '8', memory: 32Gi}}\n"
             "  workloads:\n"
             "  - name: s\n"
             "    replicas: 4\n"
             "    arrival: {at: 0s, stagger: 1s}\n"
             "    template: {metadata: {annotations: {alibabacloud.com/gpu-milli: '500'}}, spec: {containers: [{name: m}]}}\n"
             "  - name: w\n"
             "    replicas: 2\n"
             "    arrival: {at: 10s, stagger: 1s}\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
             "  expect:\n"
             "  - pod: w-0\n"
             "    phase: Running\n"
             "  - pod: w-1\n"
             "    phase: Pending\n"
             "    messageContains: '1 Insufficient alibabacloud.com/gpu-milli'\n");
    /* Best fit: two 500 shares fill GPU 0, the next two GPU 1; the whole-GPU pod takes GPU 2. */
    cr_expect_str_eq(query("SELECT p.name, e.message FROM pod_event e JOIN pod p ON p.id = e.pod_id"
                           " WHERE e.reason = 'GpuAllocated' ORDER BY e.rowid"),
                     "s-0|g-0 gpu=0 milli=500;s-1|g-0 gpu=0 milli=500;s-2|g-0 gpu=1 milli=500;"
                     "s-3|g-0 gpu=1 milli=500;w-0|g-0 gpu=2 milli=1000");
}

/* ------------------------------------------------------------------ MIG changes under running pods */

/* The tester's repro (scenarios/teaching/mig-mixed.yaml with the whole-GPU pods arriving before
 * the label): six pods hold GPUs 0-5 when all-1g.10gb asks to flip every GPU's MIG mode. The
 * GPU reset fails (NVML "In use by another client"), mig-manager restores the operands and
 * sets `failed`; no GPU is split, so no GPU is handed out twice. */
Test(devices_run, mig_change_fails_on_busy_gpus)
{
    run(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: a100, count: 1, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 8},\n"
             "       capacity: {cpu: '128', memory: 1Ti}}\n"
             "  operator:\n"
             "    mig: {strategy: mixed}\n"
             "    migManager: {config: all-disabled}\n"
             "  workloads:\n"
             "  - name: whole\n"
             "    replicas: 6\n"
             "    arrival: {at: 4m50s}\n"
             "    template: {spec: {containers: [{name: main, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
             "  - name: slice\n"
             "    replicas: 2\n"
             "    arrival: {at: 8m}\n"
             "    template: {spec: {containers: [{name: main, resources: {limits: {nvidia.com/mig-1g.10gb: 1}}}]}}\n"
             "  events:\n"
             "  - at: 5m\n"
             "    label: {node: a100-0, set: {nvidia.com/mig.config: all-1g.10gb}}\n"
             "  expect:\n"
             "  - node: a100-0\n"
             "    at: 9m\n"
             "    allocatable: {nvidia.com/gpu: '8', nvidia.com/mig-1g.10gb: null}\n"
             "    labels: {nvidia.com/mig.config: all-1g.10gb, nvidia.com/mig.config.state: failed,\n"
             "             nvidia.com/gpu.deploy.device-plugin: 'true'}\n"
             "  - pods: {workload: whole, phase: Running}\n"
             "    at: 9m\n"
             "    count: 6\n"
             "  - pods: {workload: slice, phase: Pending}\n"
             "    at: 9m\n"
             "    count: 2\n");
    cr_expect_str_eq(query("SELECT count(*) FROM node_event WHERE kind = 'Mig'"), "0", "no layout changed");
    cr_expect_str_eq(query("SELECT value FROM node_event WHERE subject = 'nvidia.com/mig.config.state' AND t_us >="
                           " 300000000 ORDER BY rowid"),
                     "pending;failed");
    cr_expect_str_eq(query("SELECT value FROM node_event WHERE kind = 'MigManager'"),
                     "config 'all-1g.10gb': GPU 0: In use by another client (pod whole-0): the MIG mode change needs a"
                     " GPU reset (mig-parted: error resetting all GPUs)");
    /* Six distinct GPUs, none given twice. */
    cr_expect_str_eq(query("SELECT group_concat(message, ';') FROM (SELECT e.message FROM pod_event e"
                           " WHERE e.reason = 'GpuAllocated' ORDER BY e.rowid)"),
                     "a100-0 gpu=0 milli=1000;a100-0 gpu=1 milli=1000;a100-0 gpu=2 milli=1000;"
                     "a100-0 gpu=3 milli=1000;a100-0 gpu=4 milli=1000;a100-0 gpu=5 milli=1000");
}

/* Only the GPUs that change matter (mig-parted skips a GPU already in its desired state):
 * GPUs 6 and 7 are idle, so splitting them succeeds while GPUs 0-5 keep their pods. */
Test(devices_run, mig_change_on_idle_gpus_succeeds)
{
    run(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: a100, count: 1, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 8},\n"
             "       capacity: {cpu: '128', memory: 1Ti}}\n"
             "  operator:\n"
             "    timings: fast\n"
             "    mig: {strategy: mixed}\n"
             "    migManager:\n"
             "      config: all-disabled\n"
             "      configFile:\n"
             "        version: v1\n"
             "        mig-configs:\n"
             "          all-disabled: [{devices: all, mig-enabled: false}]\n"
             "          last-two: [{devices: [6, 7], mig-enabled: true, mig-devices: {1g.10gb: 7}}]\n"
             "  workloads:\n"
             "  - name: whole\n"
             "    replicas: 6\n"
             "    arrival: {at: 1m}\n"
             "    template: {spec: {containers: [{name: main, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
             "  events:\n"
             "  - at: 2m\n"
             "    label: {node: a100-0, set: {nvidia.com/mig.config: last-two}}\n"
             "  expect:\n"
             "  - node: a100-0\n"
             "    at: 3m\n"
             "    allocatable: {nvidia.com/gpu: '6', nvidia.com/mig-1g.10gb: '14'}\n"
             "    labels: {nvidia.com/mig.config.state: success}\n"
             "  - pods: {workload: whole, phase: Running}\n"
             "    at: 3m\n"
             "    count: 6\n");
    cr_expect_str_eq(query("SELECT subject, value FROM node_event WHERE kind = 'Mig' ORDER BY rowid"),
                     "GPU 6|1g.10gb x7;GPU 7|1g.10gb x7");
    cr_expect_str_eq(query("SELECT count(*) FROM node_event WHERE kind = 'MigManager'"), "0");
}

/* A MIG node (mixed): GPU 0 has seven 1g.10gb instances, GPU 1 is whole. `config` is applied
 * at 3m while a pod holds a 1g.10gb instance (from 1m). */
static void mig_instance_busy(const char *config, const char *expect)
{
    char y[4096];
    snprintf(y, sizeof y,
             HEAD "  cluster:\n"
                  "    nodePools:\n"
                  "    - {name: a, count: 1, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 2},\n"
                  "       capacity: {cpu: '96', memory: 1Ti}, labels: {nvidia.com/mig.config: one}}\n"
                  "  operator:\n"
                  "    timings: fast\n"
                  "    mig: {strategy: mixed}\n"
                  "    migManager:\n"
                  "      configFile:\n"
                  "        version: v1\n"
                  "        mig-configs:\n"
                  "          one: [{devices: [0], mig-enabled: true, mig-devices: {1g.10gb: 7}}]\n"
                  "          regrid: [{devices: [0], mig-enabled: true, mig-devices: {3g.40gb: 2}}]\n"
                  "          both: [{devices: all, mig-enabled: true, mig-devices: {1g.10gb: 7}}]\n"
                  "  workloads:\n"
                  "  - name: slice\n"
                  "    replicas: 1\n"
                  "    arrival: {at: 1m}\n"
                  "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/mig-1g.10gb: 1}}}]}}\n"
                  "  events:\n"
                  "  - at: 3m\n"
                  "    label: {node: a-0, set: {nvidia.com/mig.config: %s}}\n"
                  "  expect:\n"
                  "  - pod: slice\n"
                  "    phase: Running\n"
                  "    at: 4m\n%s",
             config, expect);
    run(y);
}

Test(devices_run, mig_regrid_fails_on_instance_in_use)
{
    /* GPU 0's layout changes (mode stays on): its instances would be destroyed, one is in use. */
    mig_instance_busy("regrid", "  - node: a-0\n"
                                "    at: 4m\n"
                                "    allocatable: {nvidia.com/gpu: '1', nvidia.com/mig-1g.10gb: '7',"
                                " nvidia.com/mig-3g.40gb: null}\n"
                                "    labels: {nvidia.com/mig.config.state: failed}\n");
    cr_expect_str_eq(query("SELECT value FROM node_event WHERE kind = 'MigManager'"),
                     "config 'regrid': GPU 0: In use by another client (pod slice): mig-parted cannot destroy its MIG"
                     " instances (error clearing MigConfig)");
    cr_expect_str_eq(query("SELECT subject, value FROM node_event WHERE kind = 'Mig' ORDER BY rowid"),
                     "GPU 0|1g.10gb x7", "only the layout applied at join");
}

Test(devices_run, mig_change_of_another_gpu_succeeds)
{
    /* GPU 0 is already as asked (skipped); GPU 1 flips its mode and nothing holds it. */
    mig_instance_busy("both", "  - node: a-0\n"
                              "    at: 4m\n"
                              "    allocatable: {nvidia.com/gpu: null, nvidia.com/mig-1g.10gb: '14'}\n"
                              "    labels: {nvidia.com/mig.config.state: success}\n");
    cr_expect_str_eq(query("SELECT subject, value FROM node_event WHERE kind = 'Mig' ORDER BY rowid"),
                     "GPU 0|1g.10gb x7;GPU 1|1g.10gb x7");
}

Test(devices_run, mig_change_fails_on_time_sliced_replica)
{
    /* Time-slicing with renameByDefault: the pod holds one nvidia.com/gpu.shared replica; gpusim
     * does not know which GPU it is on, so every GPU advertised under that name counts. */
    run(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: a, count: 1, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 2},\n"
             "       capacity: {cpu: '96', memory: 1Ti}}\n"
             "  operator:\n"
             "    timings: fast\n"
             "    mig: {strategy: mixed}\n"
             "    devicePlugin: {config: {version: v1, sharing: {timeSlicing: {renameByDefault: true,"
             " resources: [{name: nvidia.com/gpu, replicas: 4}]}}}}\n"
             "  workloads:\n"
             "  - name: ts\n"
             "    replicas: 1\n"
             "    arrival: {at: 1m}\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/gpu.shared: 1}}}]}}\n"
             "  events:\n"
             "  - at: 2m\n"
             "    label: {node: a-0, set: {nvidia.com/mig.config: all-1g.10gb}}\n"
             "  expect:\n"
             "  - pod: ts\n"
             "    phase: Running\n"
             "    at: 3m\n"
             "  - node: a-0\n"
             "    at: 3m\n"
             "    allocatable: {nvidia.com/gpu.shared: '8', nvidia.com/mig-1g.10gb: null}\n"
             "    labels: {nvidia.com/mig.config.state: failed}\n");
    cr_expect(strstr(query("SELECT value FROM node_event WHERE kind = 'MigManager'"),
                     "GPU 0: In use by another client (pod ts)"),
              "the replica holder is named");
    cr_expect_str_eq(query("SELECT count(*) FROM node_event WHERE kind = 'Mig'"), "0");
}

/* ------------------------------------------------------------------ Allocate per container */

/* Two containers asking for one replica each pass the plugin's per-ContainerRequest check
 * (MPS refuses > 1 by default); an init container asking for 2 is refused. */
static void per_container(const char *sharing)
{
    char y[4096];
    snprintf(y, sizeof y,
             HEAD "  cluster:\n"
                  "    nodePools:\n"
                  "    - {name: h, count: 1, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 2},\n"
                  "       capacity: {cpu: '64', memory: 512Gi}}\n"
                  "  operator:\n"
                  "    timings: fast\n"
                  "    mig: {strategy: none}\n"
                  "    devicePlugin: {config: {version: v1, sharing: {%s}}}\n"
                  "  workloads:\n"
                  "  - name: two\n"
                  "    replicas: 1\n"
                  "    arrival: {at: 1m}\n"
                  "    template: {spec: {containers: [{name: main, resources: {limits: {nvidia.com/gpu: 1}}},\n"
                  "                                   {name: side, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
                  "  - name: init\n"
                  "    replicas: 1\n"
                  "    arrival: {at: 1m}\n"
                  "    template: {spec: {initContainers: [{name: i, resources: {limits: {nvidia.com/gpu: 2}}}],\n"
                  "                      containers: [{name: main, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
                  "  expect:\n"
                  "  - pod: two\n"
                  "    phase: Running\n"
                  "  - pod: init\n"
                  "    phase: Failed\n"
                  "    reason: UnexpectedAdmissionError\n"
                  "    messageContains: 'maximum request size for shared resources is 1; found 2'\n",
             sharing);
    run(y);
}

Test(devices_run, allocate_per_container_mps)
{
    per_container("mps: {resources: [{name: nvidia.com/gpu, replicas: 4}]}");
}

Test(devices_run, allocate_per_container_time_slicing)
{
    per_container("timeSlicing: {failRequestsGreaterThanOne: true, resources: [{name: nvidia.com/gpu, replicas: 4}]}");
}

Test(devices_run, mig_change_checks_the_instance_holder_gpu)
{
    /* Both GPUs have 1g.10gb instances; the pod's instance is on GPU 0 (the lowest device), so
     * re-gridding GPU 1 alone succeeds. */
    run(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: a, count: 1, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 2},\n"
             "       capacity: {cpu: '96', memory: 1Ti}, labels: {nvidia.com/mig.config: both}}\n"
             "  operator:\n"
             "    timings: fast\n"
             "    mig: {strategy: mixed}\n"
             "    migManager:\n"
             "      configFile:\n"
             "        version: v1\n"
             "        mig-configs:\n"
             "          both: [{devices: all, mig-enabled: true, mig-devices: {1g.10gb: 7}}]\n"
             "          regrid-1:\n"
             "          - {devices: [0], mig-enabled: true, mig-devices: {1g.10gb: 7}}\n"
             "          - {devices: [1], mig-enabled: true, mig-devices: {3g.40gb: 2}}\n"
             "  workloads:\n"
             "  - name: slice\n"
             "    replicas: 1\n"
             "    arrival: {at: 1m}\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/mig-1g.10gb: 1}}}]}}\n"
             "  events:\n"
             "  - at: 3m\n"
             "    label: {node: a-0, set: {nvidia.com/mig.config: regrid-1}}\n"
             "  expect:\n"
             "  - pod: slice\n"
             "    phase: Running\n"
             "    at: 4m\n"
             "  - node: a-0\n"
             "    at: 4m\n"
             "    allocatable: {nvidia.com/mig-1g.10gb: '7', nvidia.com/mig-3g.40gb: '2'}\n"
             "    labels: {nvidia.com/mig.config.state: success}\n");
    cr_expect(strstr(query("SELECT message FROM pod_event WHERE reason = 'DeviceAllocated'"), "gpu=0"),
              "the instance is on GPU 0");
}
