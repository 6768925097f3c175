/* The scenario loader: YAML tree and accessors (sim/scenario/yaml.c), the top level and
 * --set (load.c), spec.cluster (cluster.c), spec.scheduler (scheduler.c) and spec.objects
 * (objects.c). Every bad input must give the right message at the right line:column. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "sim/scenario.h"
#include "sim/scenario/yaml.h"

#define HEAD                                                                                         \
    "apiVersion: gpusim/v1alpha1\n"                                                                  \
    "kind: Scenario\n"                                                                               \
    "metadata:\n"                                                                                    \
    "  name: t\n"                                                                                    \
    "spec:\n"

/* A pool at lines 6..11 (the pool map starts at line 8 column 7). */
#define CLUSTER                                                                                      \
    "  cluster:\n"                                                                                   \
    "    nodePools:\n"                                                                               \
    "    - name: h100\n"                                                                             \
    "      count: 2\n"                                                                               \
    "      gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}\n"                                       \
    "      capacity: {cpu: \"96\", memory: 1Ti}\n"

static struct gs_scenario sc;
static struct gs_error err;

static int load(const char *text)
{
    memset(&err, 0, sizeof err);
    return gs_scenario_load_string("t.yaml", text, &sc, &err);
}

static void fini(void)
{
    gs_scenario_free(&sc);
}

/* Expect an error with this code, position and message. */
static void bad(const char *text, int code, int line, int col, const char *msg)
{
    int rc = load(text);
    cr_assert_eq(rc, code, "rc %d (want %d): %s:%d:%d: %s", rc, code, err.file, err.line, err.col, err.msg);
    cr_assert_eq(err.code, code);
    cr_expect_str_eq(err.msg, msg);
    cr_expect_eq(err.line, line, "line %d, want %d (%s)", err.line, line, err.msg);
    cr_expect_eq(err.col, col, "col %d, want %d (%s)", err.col, col, err.msg);
}

static void good(const char *text)
{
    int rc = load(text);
    cr_assert_eq(rc, 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
}

/* Load `text` from a file with --set arguments (below). */
static int load_file_sets(const char *text, const char *const *sets, int n);

TestSuite(scenario, .fini = fini);

/* ------------------------------------------------------------------ good scenarios */

Test(scenario, minimal_defaults)
{
    good(HEAD CLUSTER);
    cr_assert_str_eq(sc.name, "t");
    cr_assert_eq(sc.seed, 1);
    cr_assert_eq(sc.has_horizon, false);
    cr_assert_eq(sc.horizon, GS_TIME_MAX);
    cr_assert_eq(sc.k8s_minor, 34);
    cr_assert_eq(sc.sample_interval, GS_SEC(60));
    cr_assert_eq(sc.start_latency, 0);
    cr_assert_str_eq(sc.admission, "podByPod");
    cr_assert_eq(sc.sched.dra_enabled, true);
    cr_assert_eq(sc.sched.k8s_minor, 34);
    cr_assert_str_eq(sc.sched.scheduler_name, "default-scheduler");
    cr_assert_eq(sc.world.npools, 1);
    const struct gs_pool *p = &sc.world.pools[0];
    cr_assert_str_eq(p->name, "h100");
    cr_assert_eq(p->count, 2);
    cr_assert_str_eq(p->gpu_product, "NVIDIA-H100-80GB-HBM3");
    cr_assert_eq(p->gpu_count, 8);
    cr_assert_eq(p->capacity.v[GS_RES_CPU], 96000);
    cr_assert_eq(p->capacity.v[GS_RES_MEMORY], 1099511627776LL);
    cr_assert_eq(p->capacity.v[GS_RES_PODS], 110);
    cr_assert_eq(p->capacity.v[GS_RES_EPHEMERAL], 0);
    cr_assert_eq(gs_res_find(&sc.world.res, "nvidia.com/gpu"), -1, "GPUs are not pool capacity");
    /* the API server's built-in priority classes */
    const struct gs_priority_class *pc = gs_world_find_priority_class(&sc.world, "system-node-critical");
    cr_assert_not_null(pc);
    cr_assert_eq(pc->value, 2000001000);
}

Test(scenario, spec_scalars)
{
    good(HEAD "  seed: 42\n"
              "  horizon: 2h\n"
              "  kubernetesVersion: \"1.28\"\n"
              "  sampleInterval: 30s\n"
              "  startLatency: 1500ms\n"
              "  featureGates: {DynamicResourceAllocation: true}\n" CLUSTER);
    cr_assert_eq(sc.seed, 42);
    cr_assert(sc.has_horizon);
    cr_assert_eq(sc.horizon, GS_SEC(7200));
    cr_assert_eq(sc.k8s_minor, 28);
    cr_assert_eq(sc.sched.k8s_minor, 28);
    cr_assert_eq(sc.sched.dra_enabled, true);
    cr_assert_eq(sc.sample_interval, GS_SEC(30));
    cr_assert_eq(sc.start_latency, GS_MS(1500));
}

Test(scenario, kubernetes_version_forms)
{
    good(HEAD "  kubernetesVersion: 1.30\n" CLUSTER); /* a plain YAML number, as written */
    cr_assert_eq(sc.k8s_minor, 30);
    cr_assert_eq(sc.sched.dra_enabled, false, "DRA is on by default from 1.34");
    cr_assert_eq(sc.sched.filter_enabled[GS_PL_DYNAMIC_RESOURCES], false);
    gs_scenario_free(&sc);
    good(HEAD "  kubernetesVersion: v1.35.2\n" CLUSTER);
    cr_assert_eq(sc.k8s_minor, 35);
}

Test(scenario, pool_capacity_units_reserved_labels_taints)
{
    good(HEAD "  cluster:\n"
              "    nodePools:\n"
              "    - name: cpu\n"
              "      count: 0\n"
              "      capacity: {cpu: 1500m, memory: 16Gi, pods: \"64\", ephemeral-storage: 100G, example.com/fpga: 2}\n"
              "      reserved: {cpu: 500m, memory: 512Mi}\n"
              "      labels: {topology.kubernetes.io/zone: zone-a, rack: \"7\"}\n"
              "      taints:\n"
              "      - {key: nvidia.com/gpu, value: present, effect: NoSchedule}\n"
              "      - {key: spot, effect: PreferNoSchedule}\n"
              "      kernel: 5.15.0-105-generic\n"
              "      joinAt: 30s\n"
              "      joinEvery: 2s\n"
              "      topology: {nodesPerRack: 2, rackLabel: cloud.example/rack}\n");
    const struct gs_pool *p = &sc.world.pools[0];
    cr_assert_eq(p->count, 0);
    cr_assert_null(p->gpu_product);
    cr_assert_eq(p->gpu_count, 0);
    cr_assert_eq(p->capacity.v[GS_RES_CPU], 1500);
    cr_assert_eq(p->capacity.v[GS_RES_MEMORY], 16LL << 30);
    cr_assert_eq(p->capacity.v[GS_RES_PODS], 64);
    cr_assert_eq(p->capacity.v[GS_RES_EPHEMERAL], 100000000000LL);
    int fpga = gs_res_find(&sc.world.res, "example.com/fpga");
    cr_assert_geq(fpga, GS_RES_FIXED);
    cr_assert_eq(p->capacity.v[fpga], 2);
    cr_assert_eq(p->reserved.v[GS_RES_CPU], 500);
    cr_assert_eq(p->reserved.v[GS_RES_MEMORY], 512LL << 20);
    cr_assert_str_eq(gs_labels_get(&p->labels, "topology.kubernetes.io/zone"), "zone-a");
    cr_assert_str_eq(gs_labels_get(&p->labels, "rack"), "7");
    cr_assert_eq(p->ntaints, 2);
    cr_assert_str_eq(p->taints[0].key, "nvidia.com/gpu");
    cr_assert_str_eq(p->taints[0].value, "present");
    cr_assert_eq(p->taints[0].effect, GS_EFFECT_NO_SCHEDULE);
    cr_assert_str_eq(p->taints[1].key, "spot");
    cr_assert_str_eq(p->taints[1].value, "");
    cr_assert_eq(p->taints[1].effect, GS_EFFECT_PREFER_NO_SCHEDULE);
    cr_assert_str_eq(p->kernel, "5.15.0-105-generic");
    cr_assert_eq(p->join_at, GS_SEC(30));
    cr_assert_eq(p->join_every, GS_SEC(2));
    cr_assert_eq(p->nodes_per_rack, 2);
    cr_assert_str_eq(p->rack_label, "cloud.example/rack");
}

Test(scenario, scheduler_config)
{
    good(HEAD CLUSTER "  scheduler:\n"
                      "    tieBreak: first\n"
                      "    admission: podByPod\n"
                      "    config:\n"
                      "      apiVersion: kubescheduler.config.k8s.io/v1\n"
                      "      kind: KubeSchedulerConfiguration\n"
                      "      percentageOfNodesToScore: 100\n"
                      "      profiles:\n"
                      "      - schedulerName: default-scheduler\n"
                      "        plugins:\n"
                      "          score:\n"
                      "            disabled: [{name: NodeResourcesBalancedAllocation}]\n"
                      "            enabled: [{name: NodeResourcesFit, weight: 5}]\n"
                      "        pluginConfig:\n"
                      "        - name: NodeResourcesFit\n"
                      "          args:\n"
                      "            ignoredResourceGroups: [example.com]\n"
                      "            scoringStrategy:\n"
                      "              type: MostAllocated\n"
                      "              resources: [{name: cpu, weight: 1}, {name: memory}, {name: nvidia.com/gpu, weight: 3}]\n");
    const struct gs_sched_config *c = &sc.sched;
    cr_assert(c->tiebreak_first);
    cr_assert_eq(c->percentage_of_nodes_to_score, 100);
    cr_assert_eq(c->score_enabled[GS_PL_BALANCED_ALLOCATION], false);
    cr_assert_eq(c->score_enabled[GS_PL_NODE_RESOURCES_FIT], true);
    cr_assert_eq(c->score_weight[GS_PL_NODE_RESOURCES_FIT], 5);
    cr_assert_eq(c->score_weight[GS_PL_TAINT_TOLERATION], 3, "defaults kept");
    cr_assert_eq(c->score_weight[GS_PL_NODE_AFFINITY], 2);
    cr_assert_eq(c->filter_enabled[GS_PL_NODE_RESOURCES_FIT], true);
    cr_assert_eq(c->strategy, GS_SCORE_MOST_ALLOCATED);
    cr_assert_eq(c->nscore_res, 3);
    cr_assert_eq(c->score_res[0], GS_RES_CPU);
    cr_assert_eq(c->score_res_weight[0], 1);
    cr_assert_eq(c->score_res[1], GS_RES_MEMORY);
    cr_assert_eq(c->score_res_weight[1], 1, "an unset weight is 1");
    cr_assert_eq(c->score_res[2], gs_res_find(&sc.world.res, "nvidia.com/gpu"));
    cr_assert_eq(c->score_res_weight[2], 3);
    cr_assert_eq(c->nignored_groups, 1);
    cr_assert_str_eq(c->ignored_groups[0], "example.com");
}

Test(scenario, scheduler_rtcr_and_multipoint)
{
    good(HEAD CLUSTER "  scheduler:\n"
                      "    config:\n"
                      "      profiles:\n"
                      "      - plugins:\n"
                      "          multiPoint:\n"
                      "            enabled: [{name: TaintToleration}, {name: NodeAffinity, weight: 7}]\n"
                      "          filter:\n"
                      "            disabled: [{name: '*'}]\n"
                      "            enabled: [{name: NodeResourcesFit}]\n"
                      "        pluginConfig:\n"
                      "        - name: NodeResourcesFit\n"
                      "          args:\n"
                      "            scoringStrategy:\n"
                      "              type: RequestedToCapacityRatio\n"
                      "              resources: []\n"
                      "              requestedToCapacityRatio:\n"
                      "                shape: [{utilization: 0, score: 0}, {utilization: 100, score: 10}]\n");
    const struct gs_sched_config *c = &sc.sched;
    cr_assert_eq(c->score_weight[GS_PL_TAINT_TOLERATION], 1, "re-enabled without weight: 1, as upstream");
    cr_assert_eq(c->score_weight[GS_PL_NODE_AFFINITY], 7);
    cr_assert_eq(c->filter_enabled[GS_PL_TAINT_TOLERATION], false);
    cr_assert_eq(c->filter_enabled[GS_PL_NODE_UNSCHEDULABLE], false);
    cr_assert_eq(c->filter_enabled[GS_PL_NODE_RESOURCES_FIT], true);
    cr_assert_eq(c->filter_enabled[GS_PL_DEFAULT_PREEMPTION], true, "postFilter untouched");
    cr_assert_eq(c->score_enabled[GS_PL_TAINT_TOLERATION], true);
    cr_assert_eq(c->strategy, GS_SCORE_RTCR);
    cr_assert_eq(c->nscore_res, 2, "empty resources: cpu and memory");
    cr_assert_eq(c->nshape, 2);
    cr_assert_eq(c->shape[1].utilization, 100);
    cr_assert_eq(c->shape[1].score, 10);
}

Test(scenario, priority_classes)
{
    good(HEAD "  objects:\n"
              "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000}\n"
              "  - apiVersion: scheduling.k8s.io/v1\n"
              "    kind: PriorityClass\n"
              "    metadata: {name: low}\n"
              "    value: -5\n"
              "    globalDefault: true\n"
              "    preemptionPolicy: Never\n"
              "    description: batch\n" CLUSTER);
    const struct gs_priority_class *h = gs_world_find_priority_class(&sc.world, "high");
    const struct gs_priority_class *l = gs_world_find_priority_class(&sc.world, "low");
    cr_assert_not_null(h);
    cr_assert_not_null(l);
    cr_assert_eq(h->value, 1000);
    cr_assert_eq(h->global_default, false);
    cr_assert_eq(h->preemption_policy, GS_PREEMPT_LOWER_PRIORITY);
    cr_assert_eq(l->value, -5);
    cr_assert_eq(l->global_default, true);
    cr_assert_eq(l->preemption_policy, GS_PREEMPT_NEVER);
}

Test(scenario, anchors_and_aliases)
{
    good(HEAD "  cluster:\n"
              "    nodePools:\n"
              "    - name: a\n"
              "      count: 1\n"
              "      capacity: &cap {cpu: \"8\", memory: 32Gi}\n"
              "    - name: b\n"
              "      count: 1\n"
              "      capacity: *cap\n");
    cr_assert_eq(sc.world.npools, 2);
    cr_assert_eq(sc.world.pools[1].capacity.v[GS_RES_CPU], 8000);
}

/* ------------------------------------------------------------------ YAML errors */

Test(scenario, invalid_yaml_indentation)
{
    bad(HEAD "  seed: 1\n"
             "   horizon: 2h\n",
        GS_EINVAL, 7, 11, "invalid YAML: mapping values are not allowed in this context");
}

Test(scenario, truncated_file)
{
    bad(HEAD "  cluster:\n"
             "    nodePools: [{name: a, count: 1\n",
        GS_EINVAL, 8, 1,
        "invalid YAML: did not find expected ',' or '}' (while parsing a flow mapping started at line 7 column 17)");
}

Test(scenario, unterminated_string)
{
    bad(HEAD "  horizon: \"2h\n", GS_EINVAL, 7, 1,
        "invalid YAML: found unexpected end of stream (while scanning a quoted scalar started at line 6 column 12)");
}

Test(scenario, block_mapping_missing_key)
{
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: a\n"
             "  - count: 1\n",
        GS_EINVAL, 9, 3,
        "invalid YAML: did not find expected key (while parsing a block mapping started at line 6 column 3)");
}

Test(scenario, duplicate_key)
{
    bad(HEAD "  seed: 1\n"
             "  seed: 2\n" CLUSTER,
        GS_EINVAL, 7, 3, "duplicate key 'seed' (already set at line 6 column 3)");
}

Test(scenario, empty_file)
{
    bad("", GS_EINVAL, 1, 1, "empty file: expected a YAML document");
    bad("# just a comment\n", GS_EINVAL, 1, 1, "empty file: expected a YAML document");
}

Test(scenario, several_documents)
{
    bad(HEAD CLUSTER "---\n" HEAD CLUSTER, GS_EINVAL, 12, 1,
        "several YAML documents in one file: a scenario is a single document (remove the '---' separator)");
}

Test(scenario, merge_key_refused)
{
    bad(HEAD "  x: &a {seed: 1}\n"
             "  y:\n"
             "    <<: *a\n",
        GS_EINVAL, 8, 5, "merge keys ('<<') are not supported: write the keys out");
}

Test(scenario, undefined_alias)
{
    bad(HEAD "  seed: *nope\n", GS_EINVAL, 6, 9, "invalid YAML: undefined alias '*nope'");
}

Test(scenario, not_a_mapping)
{
    bad("- a\n- b\n", GS_EINVAL, 1, 1, "expected a mapping at the top level, got a sequence");
}

/* ------------------------------------------------------------------ checking errors */

Test(scenario, unknown_key_with_suggestion)
{
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      count: 2\n"
             "      gpus: {product: X, count: 8}\n",
        GS_EINVAL, 10, 7, "unknown key 'gpus' in spec.cluster.nodePools[0] (did you mean 'gpu'?)");
}

Test(scenario, unknown_key_top_level)
{
    bad("apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspecs: {}\n", GS_EINVAL, 4, 1,
        "unknown key 'specs' at the top level (did you mean 'spec'?)");
}

Test(scenario, unknown_key_without_suggestion)
{
    bad(HEAD "  frobnicate: 1\n" CLUSTER, GS_EINVAL, 6, 3, "unknown key 'frobnicate' in spec");
}

Test(scenario, bad_quantity)
{
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      count: 2\n"
             "      capacity: {cpu: \"96\", memory: 16GG}\n",
        GS_EINVAL, 10, 37,
        "invalid quantity \"16GG\" at spec.cluster.nodePools[0].capacity.memory: quantities must match the "
        "regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
}

/* Amounts above GS_QUANTITY_MAX (2^50 in gpusim's units) would overflow the scheduler's scores. */
Test(scenario, quantity_above_the_bound)
{
    good(HEAD "  cluster:\n"
              "    nodePools:\n"
              "    - {name: big, count: 1,\n"
              "       capacity: {cpu: \"1125899906842624m\", memory: 1Pi, pods: \"1125899906842624\"}}\n");
    cr_assert_eq(sc.world.pools[0].capacity.v[GS_RES_MEMORY], GS_QUANTITY_MAX);
    cr_assert_eq(sc.world.pools[0].capacity.v[GS_RES_CPU], GS_QUANTITY_MAX);
    gs_scenario_free(&sc);
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      count: 2\n"
             "      capacity: {cpu: \"96\", memory: 2Pi}\n",
        GS_EINVAL, 10, 37,
        "spec.cluster.nodePools[0].capacity.memory: 2Pi is 2251799813685248 bytes, more than gpusim supports "
        "(at most 1125899906842624 bytes, 2^50: 1Pi)");
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      count: 2\n"
             "      capacity: {cpu: 1e13, memory: 1Ti}\n",
        GS_EINVAL, 10, 23,
        "spec.cluster.nodePools[0].capacity.cpu: 1e13 is 10000000000000000 millicores, more than gpusim supports "
        "(at most 1125899906842624 millicores, 2^50: about 1.1e12 cores)");
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      count: 2\n"
             "      capacity: {cpu: \"96\", memory: 1Ti, example.com/fpga: 1e300}\n",
        GS_EINVAL, 10, 60,
        "spec.cluster.nodePools[0].capacity.example.com/fpga: 1e300 is 9223372036854775807, more than gpusim "
        "supports (at most 1125899906842624, 2^50: about 1.1e15)");
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      count: 2\n"
             "      capacity: {cpu: \"96\", memory: 1Ti, pods: 2e15}\n",
        GS_EINVAL, 10, 48,
        "spec.cluster.nodePools[0].capacity.pods: 2e15 is 2000000000000000, more than gpusim supports (at most "
        "1125899906842624, 2^50: about 1.1e15)");
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      count: 2\n"
             "      capacity: {cpu: \"96\", memory: 1Ti}\n"
             "      reserved: {ephemeral-storage: 9Ei}\n",
        GS_EINVAL, 11, 37,
        "spec.cluster.nodePools[0].reserved.ephemeral-storage: 9Ei is 9223372036854775807 bytes, more than gpusim "
        "supports (at most 1125899906842624 bytes, 2^50: 1Pi)");
}

Test(scenario, sample_interval_at_least_one_second)
{
    good(HEAD "  sampleInterval: 1s\n" CLUSTER);
    cr_assert_eq(sc.sample_interval, GS_SEC(1));
    gs_scenario_free(&sc);
    bad(HEAD "  sampleInterval: 1us\n" CLUSTER, GS_EINVAL, 6, 19, "spec.sampleInterval must be at least 1s, got 1us");
    bad(HEAD "  sampleInterval: 999ms\n" CLUSTER, GS_EINVAL, 6, 19,
        "spec.sampleInterval must be at least 1s, got 999ms");
    bad(HEAD "  sampleInterval: 0s\n" CLUSTER, GS_EINVAL, 6, 19, "spec.sampleInterval must be at least 1s, got 0s");
    /* --set goes through the same rule */
    const char *sets[] = {"sampleInterval=1us"};
    int rc = load_file_sets(HEAD CLUSTER, sets, 1);
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert_str_eq(err.file, "--set");
    cr_assert_eq(err.line, 1);
    cr_assert_eq(err.col, 16);
    cr_assert_str_eq(err.msg, "spec.sampleInterval must be at least 1s, got 1us");
}

Test(scenario, gpu_product_from_the_catalog)
{
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      count: 2\n"
             "      gpu: {product: NVIDIA-H100-80GB, count: 8}\n"
             "      capacity: {cpu: \"96\", memory: 1Ti}\n",
        GS_EINVAL, 10, 22,
        "unknown GPU product 'NVIDIA-H100-80GB' at spec.cluster.nodePools[0].gpu.product (did you mean "
        "'NVIDIA-H100-80GB-HBM3'?); spec.catalog.gpus can add a product to the catalog");
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: cpu, count: 1, capacity: {cpu: \"8\", memory: 1Gi}}\n"
             "    - {name: x, count: 1, gpu: {product: Acme-Tensor-9000, count: 1}, "
             "capacity: {cpu: \"8\", memory: 1Gi}}\n",
        GS_EINVAL, 9, 42,
        "unknown GPU product 'Acme-Tensor-9000' at spec.cluster.nodePools[1].gpu.product: it is not in the catalog "
        "(models/catalog/gpus.yaml, e.g. NVIDIA-H100-80GB-HBM3, NVIDIA-A100-SXM4-80GB, NVIDIA-L4, Tesla-T4); "
        "spec.catalog.gpus can add it");
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: t4, count: 1, gpu: {product: tesla-t4-16gb, count: 1}, "
             "capacity: {cpu: \"8\", memory: 1Gi}}\n",
        GS_EINVAL, 8, 43,
        "unknown GPU product 'tesla-t4-16gb' at spec.cluster.nodePools[0].gpu.product (did you mean 'Tesla-T4'?); "
        "spec.catalog.gpus can add a product to the catalog");
    /* spec.catalog.gpus adds one */
    good(HEAD "  catalog:\n"
              "    gpus:\n"
              "    - {product: A100-SXM4-40GB, nvmlName: A100-SXM4-40GB, memoryMiB: 40960,\n"
              "       computeCapability: \"8.0\",\n"
              "       family: ampere, migCapable: true, typicalPerNode: 8, architecture: Ampere, brand: Nvidia}\n"
              "  cluster:\n"
              "    nodePools:\n"
              "    - {name: old, count: 1, gpu: {product: A100-SXM4-40GB, count: 8}, "
              "capacity: {cpu: \"8\", memory: 1Gi}}\n");
    cr_assert_str_eq(sc.world.pools[0].gpu_product, "A100-SXM4-40GB");
}

Test(scenario, missing_required_field)
{
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      capacity: {cpu: \"96\", memory: 1Ti}\n",
        GS_EINVAL, 8, 7, "missing required field 'count' in spec.cluster.nodePools[0]");
    gs_scenario_free(&sc);
    bad(HEAD "  seed: 1\n", GS_EINVAL, 6, 3, "missing required field 'cluster' in spec");
    gs_scenario_free(&sc);
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: a, count: 1, capacity: {cpu: 1}}\n",
        GS_EINVAL, 8, 37, "missing required field 'memory' in spec.cluster.nodePools[0].capacity");
}

Test(scenario, wrong_type)
{
    bad(HEAD "  cluster:\n"
             "    nodePools: {a: b}\n",
        GS_EINVAL, 7, 16, "expected a sequence at spec.cluster.nodePools, got a mapping");
    gs_scenario_free(&sc);
    bad(HEAD "  seed: \"7\"\n" CLUSTER, GS_EINVAL, 6, 9,
        "expected an integer at spec.seed, got the string \"7\" (remove the quotes)");
    gs_scenario_free(&sc);
    bad(HEAD "  seed: 1.5\n" CLUSTER, GS_EINVAL, 6, 9, "expected an integer at spec.seed, got 1.5");
    gs_scenario_free(&sc);
    bad(HEAD "  featureGates: {DynamicResourceAllocation: yes}\n" CLUSTER, GS_EINVAL, 6, 45,
        "expected true or false at spec.featureGates.DynamicResourceAllocation, got 'yes' (YAML 1.1 "
        "yes/no/on/off are not booleans here: write true or false)");
    gs_scenario_free(&sc);
    bad(HEAD "  horizon: 90\n" CLUSTER, GS_EINVAL, 6, 12,
        "invalid duration \"90\" at spec.horizon: expected a Go duration such as 90s, 1h30m or 250ms");
}

Test(scenario, negative_count)
{
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      count: -1\n"
             "      capacity: {cpu: \"96\", memory: 1Ti}\n",
        GS_EINVAL, 9, 14, "spec.cluster.nodePools[0].count must be >= 0, got -1");
}

Test(scenario, label_value_must_be_string)
{
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: h100\n"
             "      count: 1\n"
             "      capacity: {cpu: \"96\", memory: 1Ti}\n"
             "      labels: {rack: 7}\n",
        GS_EINVAL, 11, 22,
        "label value at spec.cluster.nodePools[0].labels.rack must be a string, got the number 7 (quote it: \"7\")");
}

Test(scenario, bad_kubernetes_version)
{
    bad(HEAD "  kubernetesVersion: \"1.27\"\n" CLUSTER, GS_EINVAL, 6, 22,
        "unsupported kubernetesVersion \"1.27\" at spec.kubernetesVersion: gpusim models 1.28 to 1.35");
    gs_scenario_free(&sc);
    bad(HEAD "  kubernetesVersion: latest\n" CLUSTER, GS_EINVAL, 6, 22,
        "invalid kubernetesVersion \"latest\" at spec.kubernetesVersion: expected a release such as \"1.34\"");
}

Test(scenario, bad_metadata_name)
{
    bad("apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: My_Scenario}\nspec: {}\n", GS_EINVAL, 3, 18,
        "invalid metadata.name \"My_Scenario\": must be a DNS-1123 label (at most 63 lowercase letters, digits or "
        "'-', starting and ending with a letter or digit, e.g. 'gang-deadlock')");
}

Test(scenario, bad_api_version_and_kind)
{
    bad("apiVersion: gpusim/v1\nkind: Scenario\nmetadata: {name: t}\nspec: {}\n", GS_EINVAL, 1, 13,
        "unsupported apiVersion \"gpusim/v1\": expected gpusim/v1alpha1");
    gs_scenario_free(&sc);
    bad("apiVersion: gpusim/v1alpha1\nkind: Pod\nmetadata: {name: t}\nspec: {}\n", GS_EINVAL, 2, 7,
        "unsupported kind \"Pod\": expected Scenario");
}

Test(scenario, unsupported_keys)
{
    bad(HEAD "  operator:\n"
             "    devicePlugin: {mps: {root: /run/nvidia/mps}}\n" CLUSTER,
        GS_ENOTSUP, 7, 20, "not supported yet: spec.operator.devicePlugin.mps");
    gs_scenario_free(&sc);
    bad(HEAD "  versions: {kueue: v0.9.0}\n" CLUSTER, GS_ENOTSUP, 6, 21,
        "not supported yet: spec.versions.kueue: v0.9.0 (gpusim models Kueue v0.13.x to v0.15.x)");
    gs_scenario_free(&sc);
    bad(HEAD "  featureGates: {DRAExtendedResource: true}\n" CLUSTER, GS_ENOTSUP, 6, 18,
        "not supported yet: spec.featureGates.DRAExtendedResource");
    gs_scenario_free(&sc);
    /* Coscheduling is modelled, but a profile needs exactly one QueueSort plugin
     * (framework/runtime/framework.go NewFramework). */
    bad(HEAD CLUSTER "  scheduler:\n"
                     "    config:\n"
                     "      profiles:\n"
                     "      - plugins: {multiPoint: {enabled: [{name: Coscheduling}]}}\n",
        GS_EINVAL, 15, 18,
        "spec.scheduler.config.profiles[0].plugins: only one queue sort plugin required for profile with scheduler "
        "name \"default-scheduler\", but got 2 (with Coscheduling, disable PrioritySort under queueSort)");
    gs_scenario_free(&sc);
    bad(HEAD CLUSTER "  scheduler:\n"
                     "    config:\n"
                     "      profiles:\n"
                     "      - plugins: {multiPoint: {enabled: [{name: CapacityScheduling}]}}\n",
        GS_ENOTSUP, 15, 49,
        "not supported yet: spec.scheduler.config.profiles[0].plugins.multiPoint.enabled[0] (out-of-tree plugin "
        "CapacityScheduling)");
    gs_scenario_free(&sc);
    bad(HEAD CLUSTER "  scheduler:\n"
                     "    config:\n"
                     "      profiles:\n"
                     "      - plugins: {queueSort: {disabled: [{name: \"*\"}]}}\n",
        GS_EINVAL, 15, 18,
        "spec.scheduler.config.profiles[0].plugins: only one queue sort plugin required for profile with scheduler "
        "name \"default-scheduler\", but got 0");
}

Test(scenario, gang_admission_and_coscheduling_config)
{
    struct gs_error err = {0};
    int rc = gs_scenario_load_string("t.yaml", HEAD CLUSTER "  scheduler: {admission: gang}\n", &sc, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert(sc.sched.gang_admission);
    cr_assert(sc.sched.filter_enabled[GS_PL_COSCHEDULING]);
    cr_assert_not(sc.sched.filter_enabled[GS_PL_PRIORITY_SORT]);
    gs_scenario_free(&sc);
    rc = gs_scenario_load_string("t.yaml",
                                 HEAD CLUSTER "  scheduler:\n"
                                              "    config:\n"
                                              "      profiles:\n"
                                              "      - plugins:\n"
                                              "          multiPoint: {enabled: [{name: Coscheduling}]}\n"
                                              "          queueSort: {disabled: [{name: PrioritySort}]}\n"
                                              "        pluginConfig:\n"
                                              "        - name: Coscheduling\n"
                                              "          args: {permitWaitingTimeSeconds: 10, podGroupBackoffSeconds: 5}\n",
                                 &sc, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_not(sc.sched.gang_admission);
    cr_assert(sc.sched.filter_enabled[GS_PL_COSCHEDULING]);
    cr_assert_eq(sc.sched.permit_wait_us, GS_SEC(10));
    cr_assert_eq(sc.sched.pg_backoff_us, GS_SEC(5));
    gs_scenario_free(&sc);
    rc = gs_scenario_load_string("t.yaml",
                                 HEAD CLUSTER "  scheduler:\n"
                                              "    config:\n"
                                              "      profiles:\n"
                                              "      - pluginConfig:\n"
                                              "        - name: Coscheduling\n"
                                              "          args: {kind: NodeResourcesFitArgs}\n",
                                 &sc, &err);
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert(not(eq(ptr, strstr(err.msg, "expected CoschedulingArgs"), NULL)), "%s", err.msg);
}

Test(scenario, gpu_in_capacity_refused)
{
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: a, count: 1, capacity: {cpu: 1, memory: 1Gi, nvidia.com/gpu: 8}}\n",
        GS_EINVAL, 8, 59,
        "nvidia.com/gpu cannot be set in spec.cluster.nodePools[0].capacity: the device plugin advertises it; use "
        "gpu: {product, count} in the node pool");
}

Test(scenario, duplicate_pool_and_taint_effect)
{
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - {name: a, count: 1, capacity: {cpu: 1, memory: 1Gi}}\n"
             "    - {name: a, count: 1, capacity: {cpu: 1, memory: 1Gi}}\n",
        GS_EINVAL, 9, 14, "duplicate node pool name 'a' (first at line 8 column 14)");
    gs_scenario_free(&sc);
    bad(HEAD "  cluster:\n"
             "    nodePools:\n"
             "    - name: a\n"
             "      count: 1\n"
             "      capacity: {cpu: 1, memory: 1Gi}\n"
             "      taints: [{key: k, effect: NoSchedul}]\n",
        GS_EINVAL, 11, 33,
        "invalid value 'NoSchedul' at spec.cluster.nodePools[0].taints[0].effect: expected one of NoSchedule, "
        "PreferNoSchedule, NoExecute (did you mean 'NoSchedule'?)");
}

Test(scenario, scheduler_errors)
{
    bad(HEAD CLUSTER "  scheduler:\n"
                     "    config:\n"
                     "      profiles:\n"
                     "      - plugins: {score: {disabled: [{name: NodeResourceFit}]}}\n",
        GS_EINVAL, 15, 45,
        "unknown plugin 'NodeResourceFit' at spec.scheduler.config.profiles[0].plugins.score.disabled[0].name "
        "(did you mean 'NodeResourcesFit'?)");
    gs_scenario_free(&sc);
    bad(HEAD CLUSTER "  scheduler:\n"
                     "    config:\n"
                     "      profiles:\n"
                     "      - pluginConfig:\n"
                     "        - name: NodeResourcesFit\n"
                     "          args: {scoringStrategy: {type: MostAllocated, resources: [{name: cpu, weight: 101}]}}\n",
        GS_EINVAL, 17, 89,
        "spec.scheduler.config.profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: resource "
        "weight of cpu not in valid range (0, 100], got 101");
    gs_scenario_free(&sc);
    bad(HEAD CLUSTER "  scheduler:\n"
                     "    config:\n"
                     "      profiles:\n"
                     "      - pluginConfig:\n"
                     "        - name: NodeResourcesFit\n"
                     "          args: {scoringStrategy: {type: RequestedToCapacityRatio}}\n",
        GS_EINVAL, 17, 35,
        "spec.scheduler.config.profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: must be "
        "specified when type is RequestedToCapacityRatio");
    gs_scenario_free(&sc);
    bad(HEAD CLUSTER "  scheduler:\n"
                     "    config:\n"
                     "      profiles:\n"
                     "      - {}\n"
                     "      - {schedulerName: other}\n",
        GS_ENOTSUP, 16, 9, "not supported yet: spec.scheduler.config.profiles[1] (more than one profile)");
    gs_scenario_free(&sc);
    bad(HEAD CLUSTER "  scheduler:\n"
                     "    config: {percentageOfNodesToScore: 101}\n",
        GS_EINVAL, 13, 40, "spec.scheduler.config.percentageOfNodesToScore must be between 0 and 100, got 101");
}

Test(scenario, object_errors)
{
    bad(HEAD "  objects:\n"
             "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: a}, value: 1}\n"
             "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: a}, value: 2}\n" CLUSTER,
        GS_EINVAL, 8, 78, "duplicate PriorityClass \"a\" (first at line 7 column 78)");
    gs_scenario_free(&sc);
    bad(HEAD "  objects:\n"
             "  - {apiVersion: v1, kind: ConfigMap, metadata: {name: a}}\n" CLUSTER,
        GS_EINVAL, 7, 28,
        "unsupported object kind \"ConfigMap\" (apiVersion v1) at spec.objects[0]: supported: scheduling.k8s.io/v1 "
        "PriorityClass, kueue.x-k8s.io/v1beta1 ResourceFlavor, ClusterQueue, LocalQueue, kueue.x-k8s.io/v1alpha1 "
        "Topology and resource.k8s.io/v1 DeviceClass, ResourceClaim and ResourceClaimTemplate");
    gs_scenario_free(&sc);
    bad(HEAD "  objects:\n"
             "  - {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: a}, value: 2000000000}\n" CLUSTER,
        GS_EINVAL, 7, 89,
        "spec.objects[0].value: maximum allowed value of a user defined priority is 1000000000, got 2000000000");
}

/* ------------------------------------------------------------------ --set */

static char tmp_path[64];

static int load_file_sets(const char *text, const char *const *sets, int n)
{
    strcpy(tmp_path, "/tmp/gpusim-test-XXXXXX");
    int fd = mkstemp(tmp_path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
    memset(&err, 0, sizeof err);
    int rc = gs_scenario_load(tmp_path, sets, n, -1, -1, &sc, &err);
    unlink(tmp_path);
    return rc;
}

Test(scenario, set_overrides)
{
    const char *sets[] = {"seed=7", "cluster.nodePools[0].count=8", "scheduler.tieBreak=first",
                          "cluster.nodePools[0].labels[nvidia.com/gpu.product]=H100",
                          "metadata.description=from --set", "cluster.nodePools[1]={name: b, count: 1, capacity: {cpu: 2, memory: 1Gi}}"};
    int rc = load_file_sets(HEAD CLUSTER, sets, 6);
    cr_assert_eq(rc, 0, "%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    cr_assert_eq(sc.seed, 7);
    cr_assert_eq(sc.world.pools[0].count, 8);
    cr_assert(sc.sched.tiebreak_first);
    cr_assert_str_eq(gs_labels_get(&sc.world.pools[0].labels, "nvidia.com/gpu.product"), "H100");
    cr_assert_str_eq(sc.description, "from --set");
    cr_assert_eq(sc.world.npools, 2);
    cr_assert_eq(sc.world.pools[1].capacity.v[GS_RES_CPU], 2000);
    cr_assert_not_null(strstr(sc.path, "/tmp/gpusim-test-"));
}

Test(scenario, set_overrides_seed_and_horizon_flags)
{
    memset(&err, 0, sizeof err);
    strcpy(tmp_path, "/tmp/gpusim-test-XXXXXX");
    int fd = mkstemp(tmp_path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(HEAD "  seed: 3\n  horizon: 1h\n" CLUSTER, f);
    fclose(f);
    int rc = gs_scenario_load(tmp_path, NULL, 0, 99, GS_SEC(10), &sc, &err);
    unlink(tmp_path);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(sc.seed, 99);
    cr_assert_eq(sc.horizon, GS_SEC(10));
}

Test(scenario, check_after_the_horizon_flag)
{
    /* --horizon is the horizon the checks must fit in */
    memset(&err, 0, sizeof err);
    strcpy(tmp_path, "/tmp/gpusim-test-XXXXXX");
    int fd = mkstemp(tmp_path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    fputs(HEAD "  horizon: 1h\n" CLUSTER "  expect:\n  - {node: h100-0, at: 30m, schedulable: true}\n", f);
    fclose(f);
    int rc = gs_scenario_load(tmp_path, NULL, 0, -1, GS_MIN(10), &sc, &err);
    cr_assert_eq(rc, GS_EINVAL, "%s", err.msg);
    cr_assert_str_eq(err.msg, "spec.expect[0]: at 30m is after the horizon 10m0s (--horizon): the run ends before it");
    cr_assert_eq(err.line, 14);
    cr_assert_eq(err.col, 24);
    rc = gs_scenario_load(tmp_path, NULL, 0, -1, GS_MIN(30), &sc, &err);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_str_eq(sc.expects[0].what, "node h100-0 at 30m0s: schedulable true");
    gs_scenario_free(&sc);
    rc = gs_scenario_load(tmp_path, NULL, 0, -1, -1, &sc, &err);
    unlink(tmp_path);
    cr_assert_eq(rc, 0, "%s", err.msg);
}

Test(scenario, set_errors)
{
    const char *s1[] = {"seed=7", "cluster.nodePools.count=8"};
    int rc = load_file_sets(HEAD CLUSTER, s1, 2);
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert_str_eq(err.file, "--set");
    cr_assert_eq(err.line, 2);
    cr_assert_eq(err.col, 19);
    cr_assert_str_eq(err.msg, "cannot set key 'count': spec.cluster.nodePools is a sequence (use [index])");

    const char *s2[] = {"cluster.nodePools[0].capacity.memory=16GG"};
    rc = load_file_sets(HEAD CLUSTER, s2, 1);
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert_str_eq(err.file, "--set");
    cr_assert_eq(err.line, 1);
    cr_assert_eq(err.col, 38);
    cr_assert_str_eq(err.msg, "invalid quantity \"16GG\" at spec.cluster.nodePools[0].capacity.memory: quantities "
                              "must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");

    const char *s3[] = {"seed"};
    rc = load_file_sets(HEAD CLUSTER, s3, 1);
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert_eq(err.col, 1);
    cr_assert_str_eq(err.msg, "invalid --set 'seed': expected path=value, e.g. scheduler.tieBreak=first");

    const char *s4[] = {"cluster.nodePools[5].count=1"};
    rc = load_file_sets(HEAD CLUSTER, s4, 1);
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert_eq(err.col, 18);
    cr_assert_str_eq(err.msg, "index [5] out of range: spec.cluster.nodePools has 1 item (use [1] to append)");

    const char *s5[] = {"scheduler.tiebreak=first"};
    rc = load_file_sets(HEAD CLUSTER, s5, 1);
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert_str_eq(err.file, "--set");
    cr_assert_eq(err.col, 11);
    cr_assert_str_eq(err.msg, "unknown key 'tiebreak' in spec.scheduler (did you mean 'tieBreak'?)");

    const char *s6[] = {"seed=[1"};
    rc = load_file_sets(HEAD CLUSTER, s6, 1);
    cr_assert_eq(rc, GS_EINVAL);
    cr_assert_str_eq(err.file, "--set");
    cr_assert_eq(err.line, 1, "%d:%d %s", err.line, err.col, err.msg);
    cr_assert_eq(err.col, 8);
    cr_assert_str_eq(err.msg, "invalid YAML: did not find expected ',' or ']' (while parsing a flow sequence "
                              "started at line 1 column 6)");
}

Test(scenario, set_does_not_change_aliased_nodes)
{
    const char *sets[] = {"cluster.nodePools[1].capacity.cpu=4"};
    int rc = load_file_sets(HEAD "  cluster:\n"
                                 "    nodePools:\n"
                                 "    - {name: a, count: 1, capacity: &cap {cpu: \"8\", memory: 32Gi}}\n"
                                 "    - {name: b, count: 1, capacity: *cap}\n",
                            sets, 1);
    cr_assert_eq(rc, 0, "%s", err.msg);
    cr_assert_eq(sc.world.pools[0].capacity.v[GS_RES_CPU], 8000);
    cr_assert_eq(sc.world.pools[1].capacity.v[GS_RES_CPU], 4000);
}

Test(scenario, missing_file)
{
    memset(&err, 0, sizeof err);
    int rc = gs_scenario_load("/nonexistent/x.yaml", NULL, 0, -1, -1, &sc, &err);
    cr_assert_eq(rc, GS_EIO);
    cr_assert_str_eq(err.file, "/nonexistent/x.yaml");
    cr_assert_str_eq(err.msg, "cannot open: No such file or directory");
}

/* ------------------------------------------------------------------ accessors */

Test(yaml, edit_distance_and_suggest)
{
    cr_assert_eq(gs_y_edit_distance("gpus", "gpu"), 1);
    cr_assert_eq(gs_y_edit_distance("nmae", "name"), 1, "adjacent swap counts 1");
    cr_assert_eq(gs_y_edit_distance("", "abc"), 3);
    static const char *const keys[] = {"name", "count", "gpu", "capacity", NULL};
    cr_assert_str_eq(gs_y_suggest("capactiy", keys), "capacity");
    cr_assert_str_eq(gs_y_suggest("COUNT", keys), "count");
    cr_assert_null(gs_y_suggest("zzzzzz", keys));
}

Test(yaml, positions_and_scalars)
{
    struct gs_arena a = {0};
    struct gs_error e = {0};
    struct gs_ynode *r;
    int rc = gs_yaml_load_string("x.yaml", "a: 1\nb:\n  c: 'q'\n  d: [~, yes, \"\"]\n", &a, &r, &e);
    cr_assert_eq(rc, 0, "%s", e.msg);
    cr_assert_eq(r->type, GS_Y_MAP);
    cr_assert_eq(r->n, 2);
    struct gs_ynode *b = gs_y_get(r, "b");
    cr_assert_eq(b->line, 3);
    cr_assert_eq(b->col, 3);
    struct gs_ynode *c = gs_y_get(b, "c");
    cr_assert_str_eq(c->text, "q");
    cr_assert_eq(c->plain, false);
    cr_assert_str_eq(c->file, "x.yaml");
    struct gs_ynode *d = gs_y_get(b, "d");
    cr_assert_eq(d->n, 3);
    cr_assert(gs_y_is_null(d->items[0]));
    cr_assert(eq(int, gs_y_is_null(d->items[2]), 0), "a quoted empty string is not null");
    cr_assert_eq(d->items[1]->col, 10);

    struct gs_ydec dec = {.err = &e, .arena = &a};
    bool bv;
    cr_assert_eq(gs_y_bool(&dec, d->items[1], "b.d[1]", &bv), GS_EINVAL);
    const char *s;
    cr_assert_eq(gs_y_str(&dec, gs_y_get(r, "a"), "a", &s), 0);
    cr_assert_str_eq(s, "1");
    cr_assert_eq(gs_y_kstr(&dec, gs_y_get(r, "a"), "a", &s), GS_EINVAL);
    cr_assert_str_eq(e.msg, "expected a string at a, got the number 1 (quote it: \"1\")");
    cr_assert_eq(gs_y_str(&dec, d->items[0], "b.d[0]", &s), GS_EINVAL);
    cr_assert_str_eq(e.msg, "expected a string at b.d[0], got null");
    double dv;
    cr_assert_eq(gs_y_double(&dec, gs_y_get(r, "a"), "a", &dv), 0);
    cr_assert_eq(dv, 1.0);
    int64_t iv;
    cr_assert_eq(gs_y_int(&dec, gs_y_get(r, "a"), "a", 2, 5, &iv), GS_EINVAL);
    cr_assert_str_eq(e.msg, "a must be between 2 and 5, got 1");
    gs_arena_free(&a);
}

/* libyaml's scanner costs O(depth) per token: deep nesting is refused as it is read. */
Test(yaml, nesting_depth_limit)
{
    static char text[300000], deeper[300000];
    struct gs_arena a = {0};
    struct gs_error e = {0};
    struct gs_ynode *r;
    /* 100 levels: the root mapping and 99 sequences */
    size_t n = (size_t)snprintf(text, sizeof text, "a: ");
    for (int i = 0; i < 99; i++)
        text[n++] = '[';
    for (int i = 0; i < 99; i++)
        text[n++] = ']';
    text[n++] = '\n';
    text[n] = '\0';
    cr_assert(eq(int, gs_yaml_load_string("deep.yaml", text, &a, &r, &e), 0), "%s", e.msg);
    /* 101 (built in another buffer: snprintf from a buffer into itself is undefined) */
    snprintf(deeper, sizeof deeper, "a: [%s", strchr(text, '['));
    cr_assert(eq(int, gs_yaml_load_string("deep.yaml", deeper, &a, &r, &e), GS_EINVAL));
    cr_assert(eq(str, e.msg, "invalid YAML: nesting deeper than 100 levels of mappings and sequences"));
    cr_assert(eq(int, e.line, 1));
    cr_assert(eq(int, e.col, 103));
    /* block style counts too */
    n = 0;
    for (int i = 0; i < 101; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "%*sk:\n", i, "");
    cr_assert(eq(int, gs_yaml_load_string("deep.yaml", text, &a, &r, &e), GS_EINVAL));
    cr_assert(eq(str, e.msg, "invalid YAML: nesting deeper than 100 levels of mappings and sequences"));
    cr_assert(eq(int, e.line, 101));
    cr_assert(eq(int, e.col, 101));
    /* 200 KB of '[' is refused at once (it took over two minutes before the limit) */
    memset(text, '[', 200000);
    text[200000] = '\0';
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    cr_assert(eq(int, gs_yaml_load_string("deep.yaml", text, &a, &r, &e), GS_EINVAL));
    clock_gettime(CLOCK_MONOTONIC, &t1);
    cr_assert(eq(str, e.msg, "invalid YAML: nesting deeper than 100 levels of mappings and sequences"));
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    /* generous under valgrind (make test-valgrind runs about 50 times slower) */
    cr_expect(lt(dbl, secs, getenv("GPUSIM_VALGRIND") ? 60.0 : 1.0), "took %.3f s", secs);
    gs_arena_free(&a);
}

Test(yaml, alias_bomb_refused)
{
    char text[2048];
    size_t n = (size_t)snprintf(text, sizeof text, "a0: &a0 [x,x,x,x,x,x,x,x,x,x]\n");
    for (int i = 1; i <= 8; i++) {
        n += (size_t)snprintf(text + n, sizeof text - n, "a%d: &a%d [", i, i);
        for (int j = 0; j < 10; j++)
            n += (size_t)snprintf(text + n, sizeof text - n, "%s*a%d", j ? "," : "", i - 1);
        n += (size_t)snprintf(text + n, sizeof text - n, "]\n");
    }
    struct gs_arena a = {0};
    struct gs_error e = {0};
    struct gs_ynode *r;
    cr_assert(eq(int, gs_yaml_load_string("bomb.yaml", text, &a, &r, &e), GS_EINVAL));
    cr_assert(eq(str, e.msg, "invalid YAML: more than 1000000 nodes after expanding aliases (23 written, "
                             "1011100 from aliases)"));
    gs_arena_free(&a);
}

/* A document that is simply that large, without any alias, says so: the limit it hit is the
 * document's size, not alias expansion (it used to say "after expanding aliases"). */
Test(yaml, node_limit_without_aliases)
{
    /* a: [0,0,...] with 1000000 items: the root mapping, its key and the sequence make it
     * 1000003 nodes */
    size_t items = 1000000, cap = 2 * items + 16;
    char *text = gs_malloc(cap);
    cr_assert(not(eq(ptr, text, NULL)));
    size_t n = (size_t)snprintf(text, cap, "a: [");
    for (size_t i = 0; i < items; i++) {
        text[n++] = '0';
        text[n++] = i + 1 < items ? ',' : ']';
    }
    text[n++] = '\n';
    text[n] = '\0';
    struct gs_arena a = {0};
    struct gs_error e = {0};
    struct gs_ynode *r;
    cr_assert(eq(int, gs_yaml_load_string("big.yaml", text, &a, &r, &e), GS_EINVAL));
    cr_expect(eq(str, e.msg, "invalid YAML: more than 1000000 nodes in the document"));
    cr_expect(eq(int, e.line, 1));
    cr_expect(eq(int, e.col, 5 + 2 * 999997)); /* the 1000001st node: item 999998 */
    gs_arena_free(&a);
    gs_free(text);
}
