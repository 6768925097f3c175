/* schedulerRestart: the new scheduler keeps what lives outside the old one's memory (DRA claims
 * and slices, the run's typical pods), and loses Permit reservations (scenarios/teaching/
 * scheduler-restart.yaml covers those). */
#include <criterion/criterion.h>
#include <unistd.h>

#include "sim/run.h"
#include "sim/scenario.h"
#include "trace_query.h"

/* A claim asking 24Gi cannot be met by the T4s; the H100 joins at 5m. The scheduler restarts
 * at 1m: the claim must still keep the pod off the T4s. */
static const char yaml[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: restart-dra}\n"
    "spec:\n"
    "  horizon: 10m\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: t4, count: 2, gpu: {product: Tesla-T4, count: 1}, capacity: {cpu: '8', memory: 32Gi}}\n"
    "    - {name: h100, count: 1, joinAt: 5m, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8},\n"
    "       capacity: {cpu: '96', memory: 1Ti}}\n"
    "  operator:\n"
    "    managedBy: helm\n"
    "    devicePlugin: {enabled: false}\n"
    "    draDriver: {gpus: {enabled: true}, kubeletPlugin: {affinity: null}}\n"
    "  objects:\n"
    "  - apiVersion: resource.k8s.io/v1\n"
    "    kind: ResourceClaimTemplate\n"
    "    metadata: {name: gpu-24gi}\n"
    "    spec:\n"
    "      spec:\n"
    "        devices:\n"
    "          requests:\n"
    "          - name: gpu\n"
    "            exactly:\n"
    "              deviceClassName: gpu.nvidia.com\n"
    "              selectors:\n"
    "              - cel: {expression: \"device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('24Gi')) >= 0\"}\n"
    "  workloads:\n"
    "  - name: big\n"
    "    arrival: {at: 0s}\n"
    "    template:\n"
    "      spec:\n"
    "        resourceClaims: [{name: gpu, resourceClaimTemplateName: gpu-24gi}]\n"
    "        containers: [{name: main, resources: {claims: [{name: gpu}]}}]\n"
    "  events:\n"
    "  - {at: 1m, schedulerRestart: {downtime: 10s}}\n"
    "  expect:\n"
    "  - pod: big\n"
    "    at: 4m\n"
    "    phase: Pending\n"
    "    message: \"0/2 nodes are available: 2 cannot allocate all claims. still not schedulable, preemption: 0/2 "
    "nodes are available: 2 Preemption is not helpful for scheduling.\"\n"
    "  - pod: big\n"
    "    at: 6m\n"
    "    phase: Running\n"
    "    node: h100-0\n";

Test(sched_restart, keeps_dra_state)
{
    char path[128];
    snprintf(path, sizeof path, "/tmp/gpusim-test-restart-%d.db", (int)getpid());
    struct gs_scenario sc;
    struct gs_error err = {0};
    cr_assert_eq(gs_scenario_load_string("restart.yaml", yaml, &sc, &err), 0, "%s:%d:%d: %s", err.file, err.line,
                 err.col, err.msg);
    struct gs_run_opts o = {.trace_path = path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result res;
    char ebuf[256];
    cr_assert_eq(gs_run(&sc, &o, &res, ebuf, sizeof ebuf), 0, "%s", ebuf);
    for (int i = 0; i < sc.nexpects; i++)
        cr_expect(sc.expects[i].pass, "check %d (%s): %s", i, sc.expects[i].what, sc.expects[i].detail);
    cr_assert_eq(res.checks_total, 2);
    cr_assert_str_eq(gs_test_query(path, "SELECT count(*) FROM object WHERE name = 'kube-scheduler' AND status = "
                                         "'Restarted' AND t_us = 60000000"),
                     "1");
    gs_scenario_free(&sc);
    unlink(path);
}
