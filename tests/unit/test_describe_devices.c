/* `gpusim describe`'s Devices section through whole runs (gs_run, then gs_report_describe on
 * the trace): which device each pod holds (sim/controllers/device_plugin_alloc.c and sim/cluster/dra.c write
 * DeviceAllocated / GpuAllocated at bind) as of --at: time-slicing replicas (the device
 * plugin's distributed allocation), MIG devices under the mixed strategy beside whole GPUs,
 * DRA claims (a shared claim's pods on one GPU), and the GPU ledger between the device plugin
 * and DRA. */
#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/engine.h"
#include "reports/report.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "trace_query.h"

static char trace_path[256];
static struct gs_scenario sc;
static bool loaded;
static char *text; /* the last description */

static void setup(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-describe-devices-%d.db", (int)getpid());
}

static void teardown(void)
{
    if (loaded)
        gs_scenario_free(&sc);
    loaded = false;
    free(text);
    text = NULL;
    unlink(trace_path);
}

TestSuite(describe_devices, .init = setup, .fini = teardown);

static void run(const char *yaml)
{
    struct gs_error err = {0};
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

/* The Devices section of `node` at `at` (-1: the end), in `text`. */
static const char *describe(const char *node, gs_time at)
{
    free(text);
    text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    char err[256];
    cr_assert_eq(gs_report_describe(trace_path, node, at, f, err, sizeof err), 0, "%s", err);
    fclose(f);
    char *dev = strstr(text, "Devices:");
    cr_assert_not_null(dev, "%s", text);
    char *end = strstr(dev, "Non-terminated Pods:");
    if (end)
        *end = '\0';
    return dev;
}

/* Rows of `sql` on this test's trace (trace_query.h). */
static char *query(const char *sql)
{
    return gs_test_query(trace_path, sql);
}

#define HEAD                                                                                                 \
    "apiVersion: gpusim/v1alpha1\n"                                                                          \
    "kind: Scenario\n"                                                                                       \
    "metadata: {name: describe-devices}\n"                                                                   \
    "spec:\n"                                                                                                \
    "  horizon: 20m\n"

Test(describe_devices, time_slicing_replicas)
{
    /* Two L4 GPUs x 2 replicas. a-0..a-2 arrive a second apart: the plugin spreads them (the GPU
     * with the fewest replicas in use, lowest index first; the lowest free replica), short
     * (2m..5m) takes GPU 1's second replica; b at 7m takes the replica short left. */
    run(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: g, count: 1, gpu: {product: NVIDIA-L4, count: 2}, capacity: {cpu: '8', memory: 32Gi}}\n"
             "  operator:\n"
             "    timings: fast\n"
             "    devicePlugin: {config: {version: v1, sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu,"
             " replicas: 2}]}}}}\n"
             "  workloads:\n"
             "  - name: a\n"
             "    replicas: 3\n"
             "    arrival: {at: 1m, stagger: 1s}\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
             "  - name: short\n"
             "    replicas: 1\n"
             "    arrival: {at: 2m}\n"
             "    duration: 3m\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
             "  - name: b\n"
             "    replicas: 1\n"
             "    arrival: {at: 7m}\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
             "  expect:\n"
             "  - {pods: {phase: Running}, at: 3m, count: 4}\n");
    cr_expect_str_eq(query("SELECT p.name, e.message FROM pod_event e JOIN pod p ON p.id = e.pod_id"
                           " WHERE e.reason = 'DeviceAllocated' ORDER BY e.rowid"),
                     "a-0|g-0 nvidia.com/gpu gpu=0 replica=0/2;a-1|g-0 nvidia.com/gpu gpu=1 replica=0/2;"
                     "a-2|g-0 nvidia.com/gpu gpu=0 replica=1/2;short|g-0 nvidia.com/gpu gpu=1 replica=1/2;"
                     "b|g-0 nvidia.com/gpu gpu=1 replica=1/2");
    const char *d = describe("g-0", GS_MIN(3));
    cr_expect(strstr(d, "Devices:              (2 GPUs NVIDIA-L4)\n"), "%s", d);
    cr_expect(strstr(d, "  GPU 0   MIG disabled                 replicas 2/2 in use\n"
                        "          replica 0                  a-0\n"
                        "          replica 1                  a-2\n"
                        "  GPU 1   MIG disabled                 replicas 2/2 in use\n"
                        "          replica 0                  a-1\n"
                        "          replica 1                  short\n"),
              "%s", d);
    /* short is gone at 6m: its replica is free. */
    d = describe("g-0", GS_MIN(6));
    cr_expect(strstr(d, "  GPU 1   MIG disabled                 replicas 1/2 in use\n"
                        "          replica 0                  a-1\n"),
              "%s", d);
    cr_expect_null(strstr(d, "short"), "%s", d);
    d = describe("g-0", -1);
    cr_expect(strstr(d, "          replica 1                  b\n"), "%s", d);
}

Test(describe_devices, mig_mixed_and_whole_gpus)
{
    /* GPU 0: 3g.40gb + 1g.10gb x3; GPU 1 whole. The 3g.40gb device sits at start 0, the 1g.10gb
     * ones at 4, 5, 6; a whole-GPU pod takes GPU 1; one 1g.10gb device stays free. */
    run(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: a, count: 1, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 2},\n"
             "       capacity: {cpu: '96', memory: 1Ti}, labels: {nvidia.com/mig.config: part}}\n"
             "  operator:\n"
             "    timings: fast\n"
             "    mig: {strategy: mixed}\n"
             "    migManager:\n"
             "      configFile:\n"
             "        version: v1\n"
             "        mig-configs:\n"
             "          part:\n"
             "          - {devices: [0], mig-enabled: true, mig-devices: {3g.40gb: 1, 1g.10gb: 3}}\n"
             "          - {devices: [1], mig-enabled: false}\n"
             "  workloads:\n"
             "  - name: big\n"
             "    arrival: {at: 5m}\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/mig-3g.40gb: 1}}}]}}\n"
             "  - name: small\n"
             "    replicas: 2\n"
             "    arrival: {at: 5m, stagger: 1s}\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/mig-1g.10gb: 1}}}]}}\n"
             "  - name: whole\n"
             "    arrival: {at: 5m}\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n"
             "  expect:\n"
             "  - {pods: {phase: Running}, at: 6m, count: 4}\n");
    const char *d = describe("a-0", GS_MIN(4));
    cr_expect(strstr(d, "  GPU 0   1g.10gb x3 3g.40gb x1        MIG devices 0/4 in use\n"
                        "  GPU 1   MIG disabled                 free 1000m\n"),
              "%s", d);
    d = describe("a-0", GS_MIN(6));
    cr_expect(strstr(d, "  GPU 0   1g.10gb x3 3g.40gb x1        MIG devices 3/4 in use\n"
                        "          MIG 3g.40gb start 0        big\n"
                        "          MIG 1g.10gb start 4        small-0\n"
                        "          MIG 1g.10gb start 5        small-1\n"
                        "  GPU 1   MIG disabled                 free    0m  whole 1000m\n"),
              "%s", d);
}

Test(describe_devices, mig_layout_in_trace)
{
    /* The layout the MIG manager applied is the one the placements come from. */
    run(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: a, count: 1, gpu: {product: NVIDIA-A100-SXM4-80GB, count: 1},\n"
             "       capacity: {cpu: '96', memory: 1Ti}, labels: {nvidia.com/mig.config: all-1g.10gb}}\n"
             "  operator:\n"
             "    timings: fast\n"
             "    mig: {strategy: single}\n"
             "  workloads:\n"
             "  - name: s\n"
             "    replicas: 8\n"
             "    arrival: {at: 5m}\n"
             "    template: {spec: {containers: [{name: m, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n");
    /* single: the MIG devices are nvidia.com/gpu; seven fit, the eighth waits. */
    const char *d = describe("a-0", -1);
    cr_expect(strstr(d, "  GPU 0   1g.10gb x7                   MIG devices 7/7 in use\n"
                        "          MIG 1g.10gb start 0        s-0\n"),
              "%s", d);
    cr_expect(strstr(d, "          MIG 1g.10gb start 6        s-6\n"), "%s", d);
    cr_expect_null(strstr(d, "s-7"), "%s", d);
}

#define DRA_HEAD                                                                                             \
    HEAD "  cluster:\n"                                                                                      \
         "    nodePools:\n"                                                                                  \
         "    - {name: l4, count: 1, gpu: {product: NVIDIA-L4, count: 2}, capacity: {cpu: '16', memory: 64Gi}}\n"

Test(describe_devices, dra_shared_claim)
{
    /* Two pods share claim one-l4 (gpu-0) until 10m; then own gets a claim of its own. */
    run(DRA_HEAD "  operator:\n"
                 "    managedBy: helm\n"
                 "    devicePlugin: {enabled: false}\n"
                 "    draDriver: {gpus: {enabled: true}, kubeletPlugin: {affinity: null}}\n"
                 "  objects:\n"
                 "  - apiVersion: resource.k8s.io/v1\n"
                 "    kind: ResourceClaim\n"
                 "    metadata: {name: one-l4}\n"
                 "    spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}\n"
                 "  - apiVersion: resource.k8s.io/v1\n"
                 "    kind: ResourceClaimTemplate\n"
                 "    metadata: {name: t}\n"
                 "    spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}}\n"
                 "  workloads:\n"
                 "  - name: sharer\n"
                 "    replicas: 2\n"
                 "    arrival: {at: 0s}\n"
                 "    duration: 10m\n"
                 "    template:\n"
                 "      spec:\n"
                 "        resourceClaims: [{name: gpu, resourceClaimName: one-l4}]\n"
                 "        containers: [{name: m, resources: {claims: [{name: gpu}]}}]\n"
                 "  - name: own\n"
                 "    arrival: {at: 12m}\n"
                 "    template:\n"
                 "      spec:\n"
                 "        resourceClaims: [{name: gpu, resourceClaimTemplateName: t}]\n"
                 "        containers: [{name: m, resources: {claims: [{name: gpu}]}}]\n");
    cr_expect_str_eq(query("SELECT p.name, e.message FROM pod_event e JOIN pod p ON p.id = e.pod_id"
                           " WHERE e.reason = 'DeviceAllocated' ORDER BY e.rowid"),
                     "sharer-0|l4-0 claim=one-l4 request=gpu device=gpu-0 gpu=0;"
                     "sharer-1|l4-0 claim=one-l4 request=gpu device=gpu-0 gpu=0;"
                     "own|l4-0 claim=own-gpu request=gpu device=gpu-0 gpu=0");
    const char *d = describe("l4-0", GS_MIN(5));
    cr_expect(strstr(d, "  GPU 0   MIG disabled                 free    0m  sharer-0 (claim one-l4), sharer-1 (claim"
                        " one-l4)\n"
                        "  GPU 1   MIG disabled                 free 1000m\n"),
              "%s", d);
    d = describe("l4-0", GS_MIN(11));
    cr_expect(strstr(d, "  GPU 0   MIG disabled                 free 1000m\n"), "%s", d);
    d = describe("l4-0", -1);
    cr_expect(strstr(d, "  GPU 0   MIG disabled                 free    0m  own (claim own-gpu)\n"), "%s", d);
}

Test(describe_devices, device_plugin_beside_dra)
{
    /* The ledger: a claim holds gpu-0, so the device plugin's pod gets GPU 1, and describe names
     * one owner per GPU. */
    run(DRA_HEAD "  operator:\n"
                 "    managedBy: helm\n"
                 "    draDriver: {kubeletPlugin: {affinity: null}}\n"
                 "  objects:\n"
                 "  - apiVersion: resource.k8s.io/v1\n"
                 "    kind: ResourceClaimTemplate\n"
                 "    metadata: {name: one}\n"
                 "    spec: {spec: {devices: {requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]}}}\n"
                 "  workloads:\n"
                 "  - name: dra\n"
                 "    arrival: {at: 1m}\n"
                 "    template:\n"
                 "      spec:\n"
                 "        resourceClaims: [{name: gpu, resourceClaimTemplateName: one}]\n"
                 "        containers: [{name: c, resources: {claims: [{name: gpu}]}}]\n"
                 "  - name: dp\n"
                 "    arrival: {at: 2m}\n"
                 "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]}}\n");
    cr_expect_str_eq(query("SELECT p.name, e.reason, e.message FROM pod_event e JOIN pod p ON p.id = e.pod_id"
                           " WHERE e.reason IN ('DeviceAllocated', 'GpuAllocated') ORDER BY e.rowid"),
                     "dra|DeviceAllocated|l4-0 claim=dra-gpu request=gpu device=gpu-0 gpu=0;"
                     "dp|GpuAllocated|l4-0 gpu=1 milli=1000");
    const char *d = describe("l4-0", -1);
    cr_expect(strstr(d, "  GPU 0   MIG disabled                 free    0m  dra (claim dra-gpu)\n"
                        "  GPU 1   MIG disabled                 free    0m  dp 1000m\n"),
              "%s", d);
}
