/* Devices through whole runs (gs_run, sim/devices_run.c): allocatable per resource name under
 * each MIG strategy and sharing config after bring-up, the label-driven MIG reconfiguration
 * timeline in the trace, the kubelet's Allocate refusal, and GPU share packing. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpusim/run.h"
#include "gpusim/scenario.h"

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

/* Rows of `sql` joined with '|' between columns and ';' between rows. */
static char *query(const char *sql)
{
    static char out[8192];
    sqlite3 *db;
    cr_assert_eq(sqlite3_open_v2(trace_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    size_t n = 0;
    out[0] = '\0';
    while (sqlite3_step(st) == SQLITE_ROW) {
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", c ? "|" : (n ? ";" : ""), v ? v : "NULL");
            if (n >= sizeof out)
                n = sizeof out - 1;
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
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
