/* The details of failed expect: checks (sim/check.c): a failed check says what it found instead,
 * the pods a count was about and where they are, the phase and message of a pod, the value of a
 * metric and when; passing checks keep their short detail. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <unistd.h>

#include "sim/run.h"
#include "sim/scenario.h"

static char trace_path[256];
static char partial_path[272];

static void setup(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-check-%d.db", (int)getpid());
    snprintf(partial_path, sizeof partial_path, "%s.partial", trace_path);
}

static void teardown(void)
{
    unlink(trace_path);
    unlink(partial_path);
}

TestSuite(check, .init = setup, .fini = teardown);

/* Two nodes of 8 GPUs; four 2-GPU trainers (two per node, as the default scores spread them)
 * and a 16-GPU pod that fits no node. At 1m trainer-3 is deleted and h100-1 cordoned. */
static const char scenario[] =
    "apiVersion: gpusim/v1alpha1\n"
    "kind: Scenario\n"
    "metadata: {name: checks}\n"
    "spec:\n"
    "  horizon: 5m\n"
    "  sampleInterval: 1m\n"
    "  cluster:\n"
    "    nodePools:\n"
    "    - {name: h100, count: 2, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8},\n"
    "       capacity: {cpu: '64', memory: 512Gi}}\n"
    "  workloads:\n"
    "  - name: trainer\n"
    "    replicas: 4\n"
    "    template: {metadata: {labels: {app: train}},\n"
    "               spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 2}}}]}}\n"
    "  - name: big\n"
    "    replicas: 1\n"
    "    template: {spec: {containers: [{name: c, resources: {limits: {nvidia.com/gpu: 16}}}]}}\n"
    "  events:\n"
    "  - {at: 1m, deletePod: {pod: trainer-3}}\n"
    "  - {at: 1m, cordon: {node: h100-1}}\n"
    "  expect:\n"
    /* 0 */ "  - {pods: {workload: trainer, node: h100-0}, at: 30s, count: 4}\n"
    /* 1 */ "  - {pods: {workload: trainer, phase: Pending}, at: 30s, count: 4}\n"
    /* 2 */ "  - {pods: {workload: nope}, count: 1}\n"
    /* 3 */ "  - {pods: {phase: Running}, at: 30s, count: 4}\n"
    /* 4 */ "  - {pods: {workload: big, message: x}, count: 1}\n"
    /* 5 */ "  - {pods: {labelSelector: {app: train}, namePrefix: trainer-}, count: 4}\n"
    /* 6 */ "  - {pods: {workload: trainer, reason: Evicted}, count: 1}\n"
    /* 7 */ "  - {pod: trainer-0, at: 30s, phase: Pending}\n"
    /* 8 */ "  - {pod: big, phase: Running}\n"
    /* 9 */ "  - {pod: trainr-0, phase: Running}\n"
    /* 10 */ "  - {pod: trainer-3, at: 3m, phase: Running}\n"
    /* 11 */ "  - {pod: trainer-0, phase: Running}\n"
    /* 12 */ "  - {metric: gpusAllocated, at: 30s, min: 9}\n"
    /* 13 */ "  - {metric: gpusAllocated, equals: 3}\n"
    /* 14 */ "  - {metric: gpusAllocated, from: 0s, to: 30s, max: 7}\n"
    /* 15 */ "  - {metric: gpusAllocated, at: 30s, equals: 8}\n"
    /* 16 */ "  - {node: h100-1, at: 2m, schedulable: true}\n"
    /* 17 */ "  - {node: h100-3, schedulable: true}\n";

static void run(struct gs_scenario *sc)
{
    struct gs_error err = {0};
    int rc = gs_scenario_load_string("test.yaml", scenario, sc, &err);
    cr_assert(eq(int, rc, 0), "load: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result r;
    char ebuf[256];
    cr_assert(eq(int, gs_run(sc, &o, &r, ebuf, sizeof ebuf), 0), "%s", ebuf);
    cr_assert(eq(int, sc->nexpects, 18));
}

#define DETAIL(i) ((char *)sc.expects[i].detail)

Test(check, a_failed_count_says_where_the_pods_are)
{
    struct gs_scenario sc;
    run(&sc);
    cr_assert(not(sc.expects[0].pass));
    cr_assert(eq(str, DETAIL(0), "2 matching; the 4 pods of workload trainer: 2 Running on h100-1, 2 Running on h100-0"));
    cr_assert(not(sc.expects[1].pass));
    cr_assert(eq(str, DETAIL(1), "0 matching; the 4 pods of workload trainer: 2 Running on h100-1, 2 Running on h100-0"));
    cr_assert(not(sc.expects[2].pass));
    cr_assert(eq(str, DETAIL(2), "0 matching; there is no pod of workload nope"));
    /* a deleted pod is in its own group; labels and name prefix say who the pods are */
    cr_assert(not(sc.expects[5].pass));
    cr_assert(eq(str, DETAIL(5), "3 matching; the 4 pods named trainer-* labelled app=train: 2 Running on h100-1, "
                                 "1 Running on h100-0, 1 deleted"));
    gs_scenario_free(&sc);
}

Test(check, a_failed_count_with_a_message_or_reason_names_one_found)
{
    struct gs_scenario sc;
    run(&sc);
    cr_assert(not(sc.expects[4].pass));
    cr_assert(eq(str, DETAIL(4),
                 "0 matching; the pod of workload big is Pending; big's message is \"0/2 nodes are available: "
                 "1 Insufficient nvidia.com/gpu, 1 node(s) were unschedulable. no new claims to deallocate, "
                 "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.\""));
    cr_assert(not(sc.expects[6].pass));
    cr_assert(eq(str, DETAIL(6), "0 matching; the 4 pods of workload trainer: 2 Running on h100-1, 1 Running on "
                                 "h100-0, 1 deleted; trainer-0's reason is <none>"));
    gs_scenario_free(&sc);
}

Test(check, a_failed_pod_check_says_its_phase_node_and_message)
{
    struct gs_scenario sc;
    run(&sc);
    cr_assert(not(sc.expects[7].pass));
    cr_assert(eq(str, DETAIL(7), "phase is Running on h100-1"));
    cr_assert(not(sc.expects[8].pass));
    cr_assert(eq(str, DETAIL(8),
                 "phase is Pending (message \"0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) were "
                 "unschedulable. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is "
                 "not helpful for scheduling.\")"));
    cr_assert(not(sc.expects[9].pass));
    cr_assert(eq(str, DETAIL(9), "no pod named trainr-0 (did you mean 'trainer-0'?)"));
    cr_assert(not(sc.expects[10].pass));
    cr_assert(eq(str, DETAIL(10), "pod was deleted"));
    cr_assert(not(sc.expects[17].pass));
    cr_assert(eq(str, DETAIL(17), "no node named h100-3 (did you mean 'h100-0'?)"));
    cr_assert(not(sc.expects[16].pass));
    cr_assert(eq(str, DETAIL(16), "schedulable is false (cordoned)"));
    gs_scenario_free(&sc);
}

Test(check, a_failed_metric_says_the_value_and_when)
{
    struct gs_scenario sc;
    run(&sc);
    cr_assert(not(sc.expects[12].pass));
    cr_assert(eq(str, DETAIL(12), "value 8 at 30s"));
    cr_assert(not(sc.expects[13].pass));
    cr_assert(eq(str, DETAIL(13), "value 6 at 5m0s"));
    cr_assert(not(sc.expects[14].pass));
    cr_assert(eq(str, DETAIL(14), "value 8 at 30s, the end of the window"));
    gs_scenario_free(&sc);
}

Test(check, passing_checks_keep_their_short_detail)
{
    struct gs_scenario sc;
    run(&sc);
    cr_assert(sc.expects[3].pass, "%s", DETAIL(3));
    cr_assert(eq(str, DETAIL(3), "4 matching"));
    cr_assert(sc.expects[11].pass, "%s", DETAIL(11));
    cr_assert(eq(str, DETAIL(11), "ok"));
    cr_assert(sc.expects[15].pass, "%s", DETAIL(15));
    cr_assert(eq(str, DETAIL(15), "value 8"));
    gs_scenario_free(&sc);
}
