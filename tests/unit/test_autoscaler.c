/* The Cluster Autoscaler (sim/controllers/autoscaler.c): whole runs read back from the trace's
 * NodeGroup object rows and the pods' TriggeredScaleUp / NotTriggerScaleUp events, and the
 * loader's errors for node groups and spec.autoscaler (sim/scenario/autoscaling.c). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "reports/autoscaler.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "trace_query.h"

static char trace_path[256];

/* Run `yaml`; the trace stays at trace_path for queries (removed by the next run). */
static void run_text(const char *yaml)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-autoscaler-%d.db", (int)getpid());
    unlink(trace_path);
    struct gs_scenario sc;
    struct gs_error err = {0};
    int rc = gs_scenario_load_string("t.yaml", yaml, &sc, &err);
    cr_assert(eq(int, rc, 0), "load: %d:%d %s", err.line, err.col, err.msg);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result res;
    char eb[256] = "";
    rc = gs_run(&sc, &o, &res, eb, sizeof eb);
    gs_scenario_free(&sc);
    cr_assert(eq(int, rc, 0), "run: %s", eb);
}

static void fini(void)
{
    if (trace_path[0])
        unlink(trace_path);
}

TestSuite(autoscaler, .fini = fini);

/* A scenario: a CPU pool, GPU pool(s) in `pools`, `autoscaler` (spec.autoscaler or ""), and
 * `workloads`. */
static const char *scenario(const char *horizon, const char *pools, const char *autoscaler, const char *workloads)
{
    static char buf[8192];
    snprintf(buf, sizeof buf,
             "apiVersion: gpusim/v1alpha1\n"
             "kind: Scenario\n"
             "metadata: {name: t}\n"
             "spec:\n"
             "  horizon: %s\n"
             "%s"
             "  cluster:\n"
             "    nodePools:\n"
             "    - {name: cpu, count: 1, capacity: {cpu: '16', memory: 64Gi}}\n"
             "%s"
             "  workloads:\n"
             "%s",
             horizon, autoscaler, pools, workloads);
    return buf;
}

#define H100_POOL(name, min, max, prov, extra)                                                                    \
    "    - {name: " name ", count: " #min ", gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: "   \
    "'192', memory: 2Ti}, reserved: {cpu: '1', memory: 8Gi}, autoscaling: {minSize: " #min ", maxSize: " #max \
    ", provisioning: " #prov "}" extra "}\n"

/* `n` pods of `gpus` GPUs each at time 0, running `dur`. */
#define GPU_PODS(name, n, gpus, dur, extra)                                                                      \
    "  - name: " name "\n    replicas: " #n "\n    arrival: {at: 0s}\n    duration: " #dur "\n"                    \
    "    template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: " #gpus         \
    ", cpu: '8', memory: 64Gi}}}]" extra "}}\n"

static int count(const char *sql)
{
    int n = -1;
    sscanf(gs_test_query(trace_path, sql), "%d", &n);
    return n;
}

Test(autoscaler, burst_scales_up_by_the_estimators_count_once)
{
    run_text(scenario("1h", H100_POOL("h100", 0, 30, 3m, ""), "", GPU_PODS("train", 20, 8, 20m, "")));
    /* 20 pods of 8 GPUs, one per 8-GPU node: 20 nodes, in one decision, at the first scan */
    cr_expect(eq(str, gs_test_query(trace_path, "select t_us, message from object where status = 'ScaleUp'"),
                 "0|ScaleUp: 0->20 (max 30), 20 pods unschedulable, expander least-waste"));
    /* no second scale-up while the 20 nodes provision (3 minutes, 18 scans) */
    cr_expect(eq(int, count("select count(*) from object where status = 'ScaleUp'"), 1));
    cr_expect(eq(str, gs_test_query(trace_path, "select count(*), message from pod_event where reason = "
                                                "'TriggeredScaleUp'"),
                 "20|pod triggered scale-up: [{h100 0->20 (max: 30)}]"));
    /* the nodes join after the provisioning time and the pods bind then */
    cr_expect(eq(str, gs_test_query(trace_path, "select count(*), min(t_us), max(t_us) from node_event where kind "
                                                "= 'Joined' and subject = 'h100'"),
                 "20|180000000|180000000"));
    cr_expect(eq(int, count("select count(*) from pod where scheduled_us = 180000000"), 20));
}

Test(autoscaler, two_pods_per_node_gives_half_the_nodes_rounded_up)
{
    run_text(scenario("30m", H100_POOL("h100", 0, 30, 2m, ""), "", GPU_PODS("infer", 7, 4, 1h, "")));
    cr_expect(eq(str, gs_test_query(trace_path, "select message from object where status = 'ScaleUp'"),
                 "ScaleUp: 0->4 (max 30), 7 pods unschedulable, expander least-waste"));
    cr_expect(eq(int, count("select count(*) from pod where scheduled_us is not null"), 7));
}

Test(autoscaler, max_size_caps_the_scale_up_then_not_triggered)
{
    run_text(scenario("30m", H100_POOL("h100", 0, 5, 2m, ""), "", GPU_PODS("train", 8, 8, 1h, "")));
    cr_expect(eq(str, gs_test_query(trace_path, "select t_us, message from object where status = 'ScaleUp'"),
                 "0|ScaleUp: 0->5 (max 5), 5 pods unschedulable, expander least-waste"));
    /* the next scan: the 5 nodes on their way absorb 5 pods, the group is full for the others */
    cr_expect(eq(str, gs_test_query(trace_path, "select count(*), min(t_us), message from pod_event where reason = "
                                                "'NotTriggerScaleUp' group by message"),
                 "3|10000000|pod didn't trigger scale-up: 1 max node group size reached"));
    cr_expect(eq(int, count("select count(*) from pod where scheduled_us is not null"), 5));
}

Test(autoscaler, a_pod_no_template_fits_gets_the_filter_reason_once)
{
    run_text(scenario("10m", H100_POOL("h100", 0, 5, 2m, ""), "",
                      GPU_PODS("lost", 1, 8, 1h, ", nodeSelector: {example.com/zone: mars}")));
    cr_expect(eq(int, count("select count(*) from object"), 0));
    /* written once although every scan (60 of them) finds the same reason */
    cr_expect(eq(str, gs_test_query(trace_path, "select t_us, message from pod_event where reason = "
                                                "'NotTriggerScaleUp'"),
                 "0|pod didn't trigger scale-up: 1 node(s) didn't match Pod's node affinity/selector"));
}

Test(autoscaler, empty_nodes_go_after_the_unneeded_time)
{
    run_text(scenario("1h", H100_POOL("h100", 0, 8, 3m, ""), "", GPU_PODS("train", 3, 8, 20m, "")));
    /* pods end at 23m (3m provisioning + 20m): the nodes are empty and unneeded from that scan,
     * and go at 33m, all three in one bulk deletion */
    cr_expect(eq(str, gs_test_query(trace_path, "select t_us, message from object where status = 'ScaleDown'"),
                 "1980000000|ScaleDown: 3->0 (min 0), 3 empty node(s) removed (unneeded for 10m0s): h100-0, "
                 "h100-1, h100-2"));
    cr_expect(eq(int, count("select count(*) from node_event where kind = 'Deleted' and t_us = 1980000000"), 3));
}

Test(autoscaler, min_size_is_kept)
{
    run_text(scenario("1h", H100_POOL("h100", 2, 8, 3m, ""), "", GPU_PODS("train", 4, 8, 20m, "")));
    /* 2 nodes at the start, 2 more for the 4 pods; after the pods, down to minSize 2 */
    cr_expect(eq(str, gs_test_query(trace_path, "select message from object where status = 'ScaleUp'"),
                 "ScaleUp: 2->4 (max 8), 2 pods unschedulable, expander least-waste"));
    cr_expect(eq(str, gs_test_query(trace_path, "select message from object where status = 'ScaleDown'"),
                 "ScaleDown: 4->2 (min 2), 2 empty node(s) removed (unneeded for 10m0s): h100-0, h100-1"));
}

Test(autoscaler, an_underused_node_is_drained_after_the_unneeded_time)
{
    /* two 5-GPU pods for 10m bring two nodes up (ready at 3m); two 1-GPU pods of a
     * ReplicaSet-style workload arrive at 4m and spread one per node. At 13m the big pods end:
     * each node holds 1 of 8 GPUs (below 0.5) and h100-0's pod fits h100-1, not the other way
     * round once h100-0 is gone from the simulation. Unneeded from the 13m scan, drained at
     * 23m (cooldown after the 0s scale-up ended at 10m), deleted once its pod has terminated
     * (30s grace), and the pod re-created on h100-1. */
    run_text(scenario("40m", H100_POOL("h100", 0, 8, 3m, ""), "",
                      GPU_PODS("big", 2, 5, 10m, "")
                      "  - name: small\n    replicas: 2\n    arrival: {at: 4m}\n"
                      "    template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1, "
                      "cpu: '1', memory: 1Gi}}}]}}\n"));
    cr_expect(eq(str, gs_test_query(trace_path, "select t_us, message from object where status = 'ScaleDown'"),
                 "1380000000|ScaleDown: 2->1 (min 0), node h100-0 drained and removed (GPU utilisation 0.12 below "
                 "0.50, unneeded for 10m0s)"));
    cr_expect(eq(str, gs_test_query(trace_path, "select n.name, e.t_us from node_event e join node n on n.id = "
                                                "e.node_id where e.kind = 'Deleted'"),
                 "h100-0|1410000000"));
    /* the evicted pod's replacement runs on the remaining node */
    cr_expect(eq(str, gs_test_query(trace_path, "select count(*) from pod p join node n on n.id = p.node_id where "
                                                "p.workload = 'small' and p.finished_us is null and n.name = 'h100-1'"),
                 "2"));
}

/* The drain scenario above with spec.autoscaler `as`: the number of ScaleDown rows. */
static int drain_scenario_scale_downs(const char *as)
{
    run_text(scenario("40m", H100_POOL("h100", 0, 8, 3m, ""), as,
                      GPU_PODS("big", 2, 5, 10m, "")
                      "  - name: small\n    replicas: 2\n    arrival: {at: 4m}\n"
                      "    template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 1, "
                      "cpu: '1', memory: 1Gi}}}]}}\n"));
    return count("select count(*) from object where status = 'ScaleDown'");
}

Test(autoscaler, scale_down_respects_the_gpu_threshold_and_the_switch)
{
    cr_expect(eq(int, drain_scenario_scale_downs(""), 1));
    /* 1 of 8 GPUs (0.125) is not below 0.1 */
    cr_expect(eq(int, drain_scenario_scale_downs("  autoscaler: {scaleDownGpuUtilizationThreshold: 0.1}\n"), 0));
    /* the cpu/memory threshold does not apply to GPU nodes */
    cr_expect(eq(int, drain_scenario_scale_downs("  autoscaler: {scaleDownUtilizationThreshold: 0}\n"), 1));
    cr_expect(eq(int, drain_scenario_scale_downs("  autoscaler: {scaleDownEnabled: false}\n"), 0));
    /* a longer unneeded time than the run leaves: none */
    cr_expect(eq(int, drain_scenario_scale_downs("  autoscaler: {scaleDownUnneededTime: 30m}\n"), 0));
}

/* Two CPU nodes (one 10-cpu pod each for 5m), then two pods of 1 cpu and `mem` each, one per
 * node: the number of ScaleDown rows. */
static int cpu_scale_downs(const char *mem)
{
    char wl[1024];
    snprintf(wl, sizeof wl,
             "  - name: big\n    replicas: 2\n    arrival: {at: 0s}\n    duration: 5m\n"
             "    template: {spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '10', memory: 1Gi}}}]}}\n"
             "  - name: small\n    replicas: 2\n    arrival: {at: 2m}\n"
             "    template: {spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '1', memory: %s}}}]}}\n",
             mem);
    run_text(scenario("30m", "    - {name: c, count: 0, capacity: {cpu: '16', memory: 64Gi}, autoscaling: {maxSize: 4, "
                             "provisioning: 1m}}\n",
                      "", wl));
    return count("select count(*) from object where status = 'ScaleDown'");
}

Test(autoscaler, cpu_nodes_use_the_larger_of_cpu_and_memory)
{
    /* 1/16 cpu but 40/64 memory: 0.625, not below 0.5 */
    cr_expect(eq(int, cpu_scale_downs("40Gi"), 0));
    /* 20/64 memory: 0.31, and the pod fits the other node: one drain */
    cr_expect(eq(int, cpu_scale_downs("20Gi"), 1));
}

#define POOL(name, cpu, mem, extra)                                                                               \
    "    - {name: " name ", count: 0, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '" cpu     \
    "', memory: " mem "}, autoscaling: {maxSize: 4, provisioning: 1m}" extra "}\n"

Test(autoscaler, least_waste_picks_the_group_that_wastes_least)
{
    /* a pod of 8 GPUs, 16 cpu, 128Gi: on a (192 cpu, 2Ti) it wastes 0.92 + 0.94, on b (32 cpu,
     * 256Gi) 0.5 + 0.5 */
    run_text(scenario("10m", POOL("a", "192", "2Ti", "") POOL("b", "32", "256Gi", ""), "",
                      "  - name: p\n    replicas: 1\n    arrival: {at: 0s}\n"
                      "    template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 8, "
                      "cpu: '16', memory: 128Gi}}}]}}\n"));
    cr_expect(eq(str, gs_test_query(trace_path, "select name, message from object where status = 'ScaleUp'"),
                 "b|ScaleUp: 0->1 (max 4), 1 pods unschedulable, expander least-waste"));
}

Test(autoscaler, priority_expander_picks_the_highest_priority_group)
{
    run_text(scenario("10m", POOL("a", "192", "2Ti", "") POOL("b", "32", "256Gi", ""),
                      "  autoscaler:\n    expander: priority,least-waste\n"
                      "    priorities: |\n      20:\n      - ^a$\n      10:\n      - b\n",
                      "  - name: p\n    replicas: 1\n    arrival: {at: 0s}\n"
                      "    template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 8, "
                      "cpu: '16', memory: 128Gi}}}]}}\n"));
    cr_expect(eq(str, gs_test_query(trace_path, "select name, message from object where status = 'ScaleUp'"),
                 "a|ScaleUp: 0->1 (max 4), 1 pods unschedulable, expander priority,least-waste"));
}

Test(autoscaler, most_pods_picks_the_group_that_takes_more_pods)
{
    /* four pods of 40 cpu: a (one node at most, 192 cpu) takes all four on one node, b (48 cpu,
     * two nodes at most) two, one per node */
    run_text(scenario("10m",
                      "    - {name: a, count: 0, capacity: {cpu: '192', memory: 1Ti}, autoscaling: {maxSize: 1}}\n"
                      "    - {name: b, count: 0, capacity: {cpu: '48', memory: 1Ti}, autoscaling: {maxSize: 2}}\n",
                      "  autoscaler: {expander: most-pods}\n",
                      "  - name: p\n    replicas: 4\n    arrival: {at: 0s}\n"
                      "    template: {spec: {containers: [{name: c, image: x, resources: {requests: {cpu: '40', "
                      "memory: 1Gi}}}]}}\n"));
    cr_expect(eq(str, gs_test_query(trace_path, "select name, message from object where status = 'ScaleUp'"),
                 "a|ScaleUp: 0->1 (max 1), 4 pods unschedulable, expander most-pods"));
}

Test(autoscaler, provisioning_past_max_node_provision_time_fails_and_backs_off)
{
    run_text(scenario("50m", H100_POOL("h100", 0, 4, 20m, ""), "", GPU_PODS("train", 1, 8, 1h, "")));
    cr_expect(eq(str, gs_test_query(trace_path, "select t_us / 1000000, status, message from object order by rowid"),
                 "0|ScaleUp|ScaleUp: 0->1 (max 4), 1 pods unschedulable, expander least-waste;"
                 "900|ScaleUpFailed|ScaleUpFailed: 1 node(s) not ready within maxNodeProvisionTime 15m0s, removed: "
                 "1->0;"
                 "900|BackOff|BackOff: 5m0s after 1 failed scale-up(s), no scale-up of h100 before it ends;"
                 "1200|ScaleUp|ScaleUp: 0->1 (max 4), 1 pods unschedulable, expander least-waste;"
                 "2100|ScaleUpFailed|ScaleUpFailed: 1 node(s) not ready within maxNodeProvisionTime 15m0s, removed: "
                 "1->0;"
                 "2100|BackOff|BackOff: 10m0s after 2 failed scale-up(s), no scale-up of h100 before it ends;"
                 "2700|ScaleUp|ScaleUp: 0->1 (max 4), 1 pods unschedulable, expander least-waste"));
    /* once per change of text: again after the TriggeredScaleUp of 20m */
    cr_expect(eq(str, gs_test_query(trace_path, "select t_us / 1000000, message from pod_event where reason = "
                                                "'NotTriggerScaleUp'"),
                 "900|pod didn't trigger scale-up: 1 in backoff after failed scale-up;"
                 "2100|pod didn't trigger scale-up: 1 in backoff after failed scale-up"));
    cr_expect(eq(int, count("select count(*) from node_event where kind = 'Joined' and subject = 'h100'"), 0));
}

Test(autoscaler, nodes_on_their_way_absorb_new_pending_pods)
{
    /* three 4-GPU pods at 0s: two nodes (one with room for a fourth pod). A fourth pod at 30s
     * fits the node on its way: no second scale-up; it binds when the nodes join at 3m. */
    run_text(scenario("10m", H100_POOL("h100", 0, 8, 3m, ""), "",
                      GPU_PODS("a", 3, 4, 1h, "")
                      "  - name: b\n    arrival: {at: 30s}\n"
                      "    template: {spec: {containers: [{name: c, image: x, resources: {limits: {nvidia.com/gpu: 4, "
                      "cpu: '8', memory: 64Gi}}}]}}\n"));
    cr_expect(eq(str, gs_test_query(trace_path, "select t_us, message from object"),
                 "0|ScaleUp: 0->2 (max 8), 3 pods unschedulable, expander least-waste"));
    cr_expect(eq(str, gs_test_query(trace_path, "select count(*), min(scheduled_us) from pod"), "4|180000000"));
    cr_expect(eq(int, count("select count(*) from pod_event where reason like '%TriggerScaleUp'"), 0));
}

Test(autoscaler, the_pools_own_nodes_still_to_join_are_on_their_way)
{
    /* count 2 joining at 5m: the pod at 0s waits for them, no scale-up */
    run_text(scenario("10m", H100_POOL("h100", 2, 4, 1m, ", joinAt: 5m"), "", GPU_PODS("p", 1, 8, 1h, "")));
    cr_expect(eq(int, count("select count(*) from object"), 0));
    cr_expect(eq(str, gs_test_query(trace_path, "select scheduled_us from pod"), "300000000"));
}

/* The group the random expander picks between two equal groups, with seed `seed`. */
static char *random_pick(int seed)
{
    static char yaml[8192];
    char head[64];
    snprintf(head, sizeof head, "1h\n  seed: %d", seed);
    snprintf(yaml, sizeof yaml, "%s",
             scenario(head, POOL("a", "96", "1Ti", "") POOL("b", "96", "1Ti", ""), "  autoscaler: {expander: random}\n",
                      GPU_PODS("p", 1, 8, 1h, "")));
    run_text(yaml);
    return gs_test_query(trace_path, "select name from object where status = 'ScaleUp'");
}

Test(autoscaler, random_expander_is_seeded)
{
    int a = 0, b = 0;
    for (int seed = 1; seed <= 12; seed++) {
        char first[16];
        snprintf(first, sizeof first, "%s", random_pick(seed));
        cr_expect(eq(str, random_pick(seed), first), "seed %d picks the same group twice", seed);
        a += strcmp(first, "a") == 0;
        b += strcmp(first, "b") == 0;
    }
    /* both groups get picked over twelve seeds (each with probability 1 - 2^-11) */
    cr_expect(eq(int, a + b, 12));
    cr_expect(gt(int, a, 0));
    cr_expect(gt(int, b, 0));
}

Test(autoscaler, no_autoscaling_no_controller)
{
    run_text(scenario("10m", "", "", GPU_PODS("p", 1, 8, 1h, "")));
    cr_expect(eq(int, count("select count(*) from object"), 0));
    cr_expect(eq(int, count("select count(*) from pod_event where reason like '%ScaleUp'"), 0));
}

/* ------------------------------------------------------------------ the loader */

static void load_error(const char *yaml, int line, int col, const char *msg)
{
    struct gs_scenario sc;
    struct gs_error err = {0};
    int rc = gs_scenario_load_string("t.yaml", yaml, &sc, &err);
    if (rc == 0)
        gs_scenario_free(&sc);
    cr_assert(eq(int, rc, GS_EINVAL));
    cr_expect(eq(str, err.msg, (char *)msg));
    cr_expect(eq(int, err.line, line));
    cr_expect(eq(int, err.col, col));
}

Test(autoscaler, count_outside_the_range_is_an_error_at_count)
{
    load_error(scenario("10m",
                        "    - {name: g, count: 5, capacity: {cpu: '8', memory: 1Gi}, autoscaling: {maxSize: 4}}\n",
                        "", "    []\n"),
               9, 24, "node pool count 5 is outside its autoscaling range: it must be between minSize 0 and maxSize 4");
}

Test(autoscaler, unknown_expander)
{
    load_error(scenario("10m", "    - {name: g, count: 0, capacity: {cpu: '8', memory: 1Gi}, autoscaling: {maxSize: 4}}\n",
                        "  autoscaler: {expander: 'least-waste,price'}\n", "    []\n"),
               6, 26,
               "unknown expander 'price' in spec.autoscaler.expander: gpusim models least-waste, most-pods, random and "
               "priority (a comma-separated chain, e.g. priority,least-waste)");
}

Test(autoscaler, priority_expander_needs_priorities)
{
    load_error(scenario("10m", "    - {name: g, count: 0, capacity: {cpu: '8', memory: 1Gi}, autoscaling: {maxSize: 4}}\n",
                        "  autoscaler: {expander: priority}\n", "    []\n"),
               6, 26,
               "the priority expander needs spec.autoscaler.priorities (the data of the "
               "cluster-autoscaler-priority-expander ConfigMap: {<priority>: [<regex>, ...]})");
}

Test(autoscaler, bad_regex)
{
    load_error(scenario("10m", "    - {name: g, count: 0, capacity: {cpu: '8', memory: 1Gi}, autoscaling: {maxSize: 4}}\n",
                        "  autoscaler: {expander: priority, priorities: {10: ['a(']}}\n", "    []\n"),
               6, 54, "invalid regular expression 'a(' at spec.autoscaler.priorities.10[0]: Unmatched ( or \\(");
}

/* ------------------------------------------------------------------ with the GPU Operator */

#define OPERATOR_POOL(prov)                                                                                       \
    "    - {name: h100, count: 0, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '192', "      \
    "memory: 2Ti}, kernel: 5.15.0-105-generic, autoscaling: {maxSize: 4, provisioning: " prov "}}\n"              \
    "  operator:\n    driver: {enabled: true, usePrecompiled: false, version: '550.90.07'}\n"                      \
    "    toolkit: {enabled: true}\n"

Test(autoscaler, a_ready_node_without_gpus_is_still_upcoming)
{
    /* The node joins at 1m and compiles its driver: nvidia.com/gpu appears 4m10s later. In
     * between it is Ready without allocatable GPUs: counted as upcoming (the GPU label
     * override), it absorbs the pod and no second scale-up happens. */
    run_text(scenario("15m", OPERATOR_POOL("1m"), "", GPU_PODS("train", 1, 8, 1h, "")));
    cr_expect(eq(str, gs_test_query(trace_path, "select t_us, message from object"),
                 "0|ScaleUp: 0->1 (max 4), 1 pods unschedulable, expander least-waste"));
    cr_expect(eq(str, gs_test_query(trace_path, "select scheduled_us is not null from pod where name = 'train'"),
                 "1"));
}

Test(autoscaler, gpus_not_allocatable_within_max_node_provision_time_fail_the_scale_up)
{
    /* the same node with maxNodeProvisionTime 4m: registered at 1m but without GPUs at 4m */
    run_text(scenario("15m", OPERATOR_POOL("1m"), "  autoscaler: {maxNodeProvisionTime: 4m}\n",
                      GPU_PODS("train", 1, 8, 1h, "")));
    cr_expect(eq(str, gs_test_query(trace_path, "select t_us / 1000000, status from object order by rowid"),
                 "0|ScaleUp;240|ScaleUpFailed;240|BackOff;540|ScaleUp;780|ScaleUpFailed;780|BackOff"));
    cr_expect(eq(str, gs_test_query(trace_path, "select n.name, e.t_us / 1000000 from node_event e join node n on "
                                                "n.id = e.node_id where n.pool = 'h100' and e.kind in ('Joined', 'Deleted')"),
                 "h100-0|60;h100-0|240;h100-1|600;h100-1|780"));
}

/* ------------------------------------------------------------------ the report */

Test(autoscaler, report_counts_and_summary_section)
{
    run_text(scenario("1h", H100_POOL("h100", 0, 30, 3m, ""), "", GPU_PODS("train", 20, 8, 20m, "")));
    sqlite3 *db;
    cr_assert(eq(int, sqlite3_open_v2(trace_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK));
    struct gs_autoscaler_counts n;
    cr_expect(eq(int, gs_report_autoscaler_counts(db, &n), 1));
    cr_expect(eq(i64, n.scale_ups, 1));
    cr_expect(eq(i64, n.nodes_added, 20));
    cr_expect(eq(i64, n.scale_downs, 2)); /* 10 empty nodes per bulk (maxEmptyBulkDelete) */
    cr_expect(eq(i64, n.nodes_removed, 20));
    char buf[4096] = "";
    FILE *f = fmemopen(buf, sizeof buf, "w");
    cr_assert(eq(int, gs_report_autoscaler(db, f, NULL, 0), 0));
    fclose(f);
    cr_expect(eq(str, buf,
                 "\nAutoscaler (node groups h100 0..30): 1 scale-up (+20 nodes), 2 scale-downs (-20 nodes)\n"
                 "  0s       h100  ScaleUp: 0->20 (max 30), 20 pods unschedulable, expander least-waste\n"
                 "  33m0s    h100  ScaleDown: 20->10 (min 0), 10 empty node(s) removed (unneeded for 10m0s): h100-0, "
                 "h100-1, h100-2, h100-3, h100-4, h100-5, h100-6, h100-7, h100-8, h100-9\n"
                 "  33m10s   h100  ScaleDown: 10->0 (min 0), 10 empty node(s) removed (unneeded for 10m10s): "
                 "h100-10, h100-11, h100-12, h100-13, h100-14, h100-15, h100-16, h100-17, h100-18, h100-19\n"));
    sqlite3_close(db);
    /* a run without node groups: no section */
    run_text(scenario("10m", "", "", GPU_PODS("p", 1, 8, 1h, "")));
    cr_assert(eq(int, sqlite3_open_v2(trace_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK));
    cr_expect(eq(int, gs_report_autoscaler_counts(db, &n), 0));
    sqlite3_close(db);
}

Test(autoscaler, bad_regex_in_the_configmap_string_has_its_file_position)
{
    /* the block scalar's lines are lines 9 and 10 of the file, indented by 6 */
    load_error(scenario("10m", "    - {name: g, count: 0, capacity: {cpu: '8', memory: 1Gi}, autoscaling: {maxSize: 4}}\n",
                        "  autoscaler:\n    expander: priority\n    priorities: |\n      20:\n      - 'a('\n", "    []\n"),
               10, 9, "invalid regular expression 'a(' at spec.autoscaler.priorities.20[0]: Unmatched ( or \\(");
}
