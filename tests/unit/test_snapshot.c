/* The kubectl snapshot import (spec.cluster.source format kubectl, sim/scenario/snapshot.c)
 * and the JSON loader under it (sim/scenario/json.c): the hand-made fixture in
 * tests/fixtures/snapshot, malformed JSON with line:column, wrong types with the JSON path,
 * quantities, and the pod rules (Running bound, Pending queued, Succeeded left out). */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/run.h"
#include "sim/scenario.h"
#include "sim/scenario/json.h"
#include "sim/scenario/podspec.h"

#define FIXTURES GPUSIM_SOURCE_DIR "/tests/fixtures/snapshot"

static char dir[128];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/gpusim-test-snapshot-%d", (int)getpid());
    cr_assert_eq(mkdir(dir, 0700), 0);
}

static void teardown(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(snapshot, .init = setup, .fini = teardown);

/* Write `text` to <dir>/<name>; returns the path (static storage, one per name slot). */
static const char *put(const char *name, const char *text)
{
    static char paths[16][256];
    static int k;
    char *p = paths[k++ % 16];
    snprintf(p, 256, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert(ne(ptr, f, NULL));
    fputs(text, f);
    fclose(f);
    return p;
}

static int load_source(const char *nodes, const char *pods, struct gs_scenario *sc, struct gs_error *err)
{
    char yaml[2048];
    snprintf(yaml, sizeof yaml,
             "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n"
             "  cluster:\n    source: {format: kubectl, nodes: %s%s%s}\n",
             nodes, pods ? ", pods: " : "", pods ? pods : "");
    memset(err, 0, sizeof *err);
    return gs_scenario_load_string("s.yaml", yaml, sc, err);
}

static const char one_node[] =
    "{\"kind\": \"List\", \"items\": [{\"kind\": \"Node\", \"metadata\": {\"name\": \"n1\","
    " \"labels\": {\"nvidia.com/gpu.product\": \"NVIDIA-L4\"}},\n"
    " \"status\": {\"capacity\": {\"cpu\": \"8\", \"memory\": \"32Gi\", \"nvidia.com/gpu\": \"2\"},\n"
    "             \"allocatable\": {\"cpu\": \"7500m\", \"memory\": \"30Gi\", \"nvidia.com/gpu\": \"2\"}}}]}\n";

/* ------------------------------------------------------------------ the JSON loader */

Test(snapshot, json_tree_keeps_positions_and_text)
{
    struct gs_arena a = {0};
    struct gs_error e = {0};
    struct gs_ynode *root;
    const char *t = "{\n  \"a\": [1.50, \"x\\\"y\", true, null],\n  \"b\": {\"c\": 1e3}\n}\n";
    cr_assert_eq(gs_json_load_string("t.json", t, &a, &root, &e), 0, "%s", e.msg);
    cr_assert_eq(root->type, GS_Y_MAP);
    cr_assert_eq(root->n, 2);
    const struct gs_ynode *arr = gs_y_get(root, "a");
    cr_assert_eq(arr->type, GS_Y_SEQ);
    cr_expect_eq(arr->line, 2);
    cr_expect_eq(arr->col, 8);
    cr_expect_str_eq(arr->items[0]->text, "1.50"); /* numbers keep their text */
    cr_expect(eq(int, arr->items[0]->plain, true));
    cr_expect_str_eq(arr->items[1]->text, "x\"y");
    cr_expect(eq(int, arr->items[1]->plain, false)); /* strings are quoted scalars */
    cr_expect_eq(arr->items[1]->col, 15);
    cr_expect(eq(int, gs_y_is_null(arr->items[3]), true));
    const struct gs_ynode *c = gs_y_get(gs_y_get(root, "b"), "c");
    cr_expect_str_eq(c->text, "1e3");
    cr_expect_eq(c->line, 3);
    cr_expect_eq(c->col, 14);
    cr_expect_eq(root->pairs[1].key->line, 3);
    cr_expect_eq(root->pairs[1].key->col, 3);
    gs_arena_free(&a);
}

Test(snapshot, json_malformed_has_line_and_column)
{
    struct gs_arena a = {0};
    struct gs_error e = {0};
    struct gs_ynode *root;
    cr_expect(eq(int, gs_json_load_string("bad.json", "{\n  \"a\": 1,\n  \"b\": ]\n}\n", &a, &root, &e), GS_EINVAL));
    cr_expect(eq(str, e.file, "bad.json"));
    cr_expect(eq(int, e.line, 3));
    cr_expect(gt(int, e.col, 0));
    cr_expect(eq(ptr, strstr(e.msg, "invalid JSON: "), e.msg), "%s", e.msg);
    cr_expect(eq(int, gs_json_load_string("dup.json", "{\"a\": 1, \"a\": 2}", &a, &root, &e), GS_EINVAL));
    cr_expect(ne(ptr, strstr(e.msg, "duplicate"), NULL), "%s", e.msg);
    cr_expect(eq(int, gs_json_load_string("e.json", "", &a, &root, &e), GS_EINVAL));
    cr_expect(eq(int, gs_json_load_file("/nonexistent/x.json", "kubectl node list", GS_SCN_KUBECTL_LIMIT, &a, &root, &e),
                 GS_EIO));
    cr_expect(eq(str, e.msg, "cannot open: No such file or directory"));
    gs_arena_free(&a);
}

/* ------------------------------------------------------------------ the fixture */

Test(snapshot, fixture_nodes_and_pods)
{
    struct gs_scenario sc;
    struct gs_error e;
    cr_assert(eq(int, load_source(FIXTURES "/nodes.json", FIXTURES "/pods.json", &sc, &e), 0), "%s:%d:%d: %s",
              e.file, e.line, e.col, e.msg);
    struct gs_world *w = &sc.world;
    /* One pool per instance type; nodes keep their names, labels, taints, cordon, resources. */
    cr_assert(eq(int, w->npools, 3));
    cr_expect(eq(str, (char *)w->pools[0].name, "p4d-24xlarge"));
    cr_expect(eq(int, w->pools[0].count, 2));
    cr_expect(eq(int, w->pools[0].gpu_count, 8));
    cr_expect(eq(str, (char *)w->pools[0].gpu_product, "NVIDIA-A100-SXM4-40GB"));
    cr_expect(eq(str, (char *)w->pools[0].nodes[1].name, "ip-10-0-1-12"));
    cr_expect(eq(int, w->pools[0].nodes[0].ntaints, 1));
    cr_expect(eq(str, (char *)w->pools[0].nodes[0].taints[0].key, "nvidia.com/gpu"));
    cr_expect(eq(int, w->pools[0].nodes[0].taints[0].effect, GS_EFFECT_NO_SCHEDULE));
    cr_expect(eq(i64, w->pools[0].nodes[0].allocatable->v[GS_RES_CPU], 95690));
    cr_expect(eq(i64, w->pools[0].nodes[0].capacity->v[GS_RES_MEMORY], INT64_C(1186847268) * 1024));
    cr_expect(eq(i64, w->pools[0].nodes[1].allocatable->v[GS_RES_MEMORY], INT64_C(1176284160) * 1024));
    cr_expect(eq(str, (char *)gs_labels_get(&w->pools[0].nodes[0].labels, "topology.kubernetes.io/zone"),
                 "us-east-1a"));
    cr_expect(eq(str, (char *)w->pools[2].name, "m6i-4xlarge"));
    cr_expect(eq(int, w->pools[2].nodes[0].unschedulable, true));
    cr_expect(eq(int, w->pools[2].gpu_count, 0));
    /* The node-name lookup, through the loader's index and by scanning. */
    struct gs_ydec d = {.err = &e, .arena = &w->arena, .world = w};
    int pool = -9;
    cr_expect(eq(int, gs_scn_node_pool(&d, NULL, "ip-10-0-3-31", &pool), 0));
    cr_expect(eq(int, pool, 2));
    cr_assert(eq(int, gs_scn_names_new(&d.names), 0));
    cr_expect(eq(int, gs_scn_node_pool(&d, NULL, "ip-10-0-3-31", &pool), 0));
    cr_expect(eq(int, pool, 2));
    cr_expect(eq(int, gs_scn_node_pool(&d, NULL, "p4d-24xlarge-7", &pool), 0)); /* <pool>-<index> */
    cr_expect(eq(int, pool, 0));
    cr_expect(eq(int, gs_scn_node_pool(&d, NULL, "p4d-24xlarge-07", &pool), 0)); /* not as %d prints it */
    cr_expect(eq(int, pool, -1));
    cr_expect(eq(int, gs_scn_node_pool(&d, NULL, "ip-10-0-9-99", &pool), 0));
    cr_expect(eq(int, pool, -1));
    gs_scn_names_free(d.names);
    /* Running pods: one workload, bound by nodeName; Pending: another; Succeeded left out. */
    cr_assert(eq(int, w->nworkloads, 2));
    const struct gs_workload *run = &w->workloads[0], *pend = &w->workloads[1];
    cr_expect(eq(str, (char *)run->name, "snapshot-running"));
    cr_expect(eq(int, run->kind, GS_WL_LIST));
    cr_expect(eq(i64, run->start_latency, 0));
    cr_assert(eq(int, run->nlist, 2));
    cr_expect(eq(str, (char *)run->list[0].name, "train-0"));
    cr_expect(eq(str, (char *)run->list[0].tmpl->node_name, "ip-10-0-1-11"));
    int gpu = gs_res_find(&w->res, "nvidia.com/gpu");
    cr_expect(eq(i64, run->list[0].tmpl->requests.v[gpu], 6));
    cr_expect(eq(i64, run->list[0].tmpl->requests.v[GS_RES_CPU], 40100)); /* two containers */
    cr_expect(eq(i32, run->list[1].tmpl->priority, 2000000000));
    cr_expect(eq(str, (char *)run->list[1].tmpl->priority_class, "system-cluster-critical"));
    cr_assert(eq(int, pend->nlist, 3));
    cr_expect(eq(str, (char *)pend->name, "snapshot-pending"));
    cr_expect(eq(i64, pend->start_latency, -1));
    cr_expect(eq(ptr, (void *)pend->list[0].tmpl->node_name, NULL));
    cr_expect(eq(int, pend->list[0].tmpl->ntolerations, 1));
    cr_expect(eq(i32, pend->list[1].tmpl->priority, 1000)); /* spec.priority, class "high" undefined */
    cr_expect(eq(i64, pend->list[1].tmpl->requests.v[GS_RES_MEMORY], INT64_C(32) << 30)); /* requests from limits */
    cr_expect(eq(i64, pend->list[2].tmpl->requests.v[GS_RES_CPU], 3000)); /* max(init 3, containers 2) */
    cr_expect(eq(str, (char *)gs_labels_get(&pend->list[2].tmpl->node_selector, "kubernetes.io/os"), "linux"));
    cr_expect(eq(str, (char *)gs_labels_get(&pend->list[2].tmpl->labels, "app"), "api"));
    gs_scenario_free(&sc);
}

Test(snapshot, fixture_runs)
{
    struct gs_scenario sc;
    struct gs_error e = {0};
    cr_assert_eq(gs_scenario_load(GPUSIM_SOURCE_DIR "/scenarios/teaching/from-snapshot.yaml", NULL, 0, -1, -1, &sc,
                                  &e),
                 0, "%s:%d:%d: %s", e.file, e.line, e.col, e.msg);
    char trace[256], err[256];
    snprintf(trace, sizeof trace, "%s/t.db", dir);
    struct gs_run_opts o = {.trace_path = trace};
    struct gs_run_result r;
    cr_assert_eq(gs_run(&sc, &o, &r, err, sizeof err), 0, "%s", err);
    cr_expect_eq(r.checks_failed, 0);
    cr_expect_gt(r.checks_total, 10);
    cr_expect_eq(r.pods_created, 5);
    /* Running pods were bound at 0s without a scheduling cycle. */
    int p = gs_world_find_pod(&sc.world, "train-0");
    cr_assert_geq(p, 0);
    cr_expect_eq(sc.world.pods[p].scheduled_us, 0);
    cr_expect_str_eq(sc.world.nodes[sc.world.pods[p].node].name, "ip-10-0-1-11");
    cr_expect_eq(r.pods_scheduled, 3);
    gs_scenario_free(&sc);
}

/* ------------------------------------------------------------------ errors */

Test(snapshot, wrong_type_names_json_path_and_position)
{
    const char *nodes = put("n.json", "{\"kind\": \"List\", \"items\": [\n"
                                      "  {\"metadata\": {\"name\": \"a\"}, \"status\": {\"capacity\": {\"cpu\": \"4\"}}},\n"
                                      "  {\"metadata\": {\"name\": \"b\"},\n"
                                      "   \"status\": {\"capacity\": {\"cpu\": \"4\"}, \"allocatable\": {\"cpu\": {\"x\": 1}}}}]}\n");
    struct gs_scenario sc;
    struct gs_error e;
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), GS_EINVAL);
    cr_expect_str_eq(e.file, nodes);
    cr_expect_eq(e.line, 4);
    cr_expect_eq(e.col, 64);
    cr_expect(ne(ptr, strstr(e.msg, "items[1].status.allocatable.cpu"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);

    nodes = put("n2.json", "{\"items\": [{\"metadata\": {\"name\": 7}, \"status\": {\"capacity\": {}}}]}");
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "items[0].metadata.name"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);

    nodes = put("n3.json", "{\"items\": [{\"metadata\": {\"name\": \"a\", \"labels\": {\"x\": 1}}, "
                           "\"status\": {\"capacity\": {\"cpu\": \"1\"}}}]}");
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "items[0].metadata.labels"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);

    nodes = put("n4.json", "{\"items\": [{\"metadata\": {\"name\": \"a\"}, \"spec\": {\"taints\": "
                           "[{\"key\": \"k\", \"effect\": \"NoPlace\"}]}, \"status\": {\"capacity\": {\"cpu\": \"1\"}}}]}");
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "items[0].spec.taints[0].effect"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);

    nodes = put("n5.json", "{\"kind\": \"PodList\", \"apiVersion\": \"v1\"}");
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "missing required field 'items'"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);
}

Test(snapshot, malformed_file_through_the_scenario)
{
    const char *nodes = put("bad.json", "{\"items\": [\n  {\"metadata\": {\"name\": \"a\"},}\n]}\n");
    struct gs_scenario sc;
    struct gs_error e;
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), GS_EINVAL);
    cr_expect_str_eq(e.file, nodes);
    cr_expect_eq(e.line, 2);
    cr_expect(ne(ptr, strstr(e.msg, "invalid JSON"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);
    cr_assert_eq(load_source("/nonexistent/nodes.json", NULL, &sc, &e), GS_EINVAL);
    cr_expect_str_eq(e.file, "s.yaml"); /* at the scenario's nodes key */
    cr_expect(ne(ptr, strstr(e.msg, "cannot read spec.cluster.source.nodes"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);
}

Test(snapshot, quantities)
{
    const char *nodes = put("q.json", "{\"items\": [{\"metadata\": {\"name\": \"a\"}, \"status\": {"
                                      "\"capacity\": {\"cpu\": \"1.5\", \"memory\": \"1Gi\", \"example.com/fpga\": 2, "
                                      "\"ephemeral-storage\": \"100M\"}}}]}");
    struct gs_scenario sc;
    struct gs_error e;
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), 0, "%s", e.msg);
    const struct gs_pool_node *n = &sc.world.pools[0].nodes[0];
    cr_expect_eq(n->capacity->v[GS_RES_CPU], 1500);
    cr_expect_eq(n->capacity->v[GS_RES_MEMORY], INT64_C(1) << 30);
    cr_expect_eq(n->capacity->v[GS_RES_EPHEMERAL], 100000000);
    cr_expect_eq(n->capacity->v[gs_res_find(&sc.world.res, "example.com/fpga")], 2);
    cr_expect_eq(n->allocatable->v[GS_RES_CPU], 1500); /* allocatable defaults to capacity */
    cr_expect_eq(n->capacity->v[GS_RES_PODS], 110);
    cr_expect_str_eq(sc.world.pools[0].name, "cpu");
    gs_scenario_free(&sc);

    nodes = put("q2.json", "{\"items\": [{\"metadata\": {\"name\": \"a\"}, \"status\": {\"capacity\": {\"cpu\": \"12x\"}}}]}");
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "items[0].status.capacity.cpu"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);

    nodes = put("q3.json", "{\"items\": [{\"metadata\": {\"name\": \"a\"}, \"status\": {\"capacity\": {\"cpu\": \"-1\"}}}]}");
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "must not be negative"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);

    nodes = put("q4.json", "{\"items\": [{\"metadata\": {\"name\": \"a\"}, \"status\": {\"capacity\": {\"cpu\": \"1\"}, "
                           "\"allocatable\": {\"cpu\": \"2\"}}}]}");
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "exceeds status.capacity.cpu"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);
}

Test(snapshot, pod_rules)
{
    const char *nodes = put("n.json", one_node);
    const char *pods = put("p.json",
        "{\"items\": [\n"
        " {\"metadata\": {\"name\": \"w\", \"namespace\": \"a\"}, \"spec\": {\"nodeName\": \"n1\", \"containers\": "
        "[{\"name\": \"c\", \"resources\": {\"requests\": {\"cpu\": \"1\"}}}]}, \"status\": {\"phase\": \"Running\"}},\n"
        " {\"metadata\": {\"name\": \"w\", \"namespace\": \"b\"}, \"spec\": {\"containers\": [{\"name\": \"c\"}]}, "
        "\"status\": {\"phase\": \"Pending\"}},\n"
        " {\"metadata\": {\"name\": \"done\"}, \"spec\": {}, \"status\": {\"phase\": \"Failed\"}}]}");
    struct gs_scenario sc;
    struct gs_error e;
    cr_assert_eq(load_source(nodes, pods, &sc, &e), 0, "%s", e.msg);
    cr_assert_eq(sc.world.nworkloads, 2);
    /* A name in two namespaces is qualified. */
    cr_expect_str_eq(sc.world.workloads[0].list[0].name, "a/w");
    cr_expect_str_eq(sc.world.workloads[1].list[0].name, "b/w");
    gs_scenario_free(&sc);

    pods = put("p2.json", "{\"items\": [{\"metadata\": {\"name\": \"r\"}, \"spec\": {\"containers\": [{\"name\": \"c\"}]}, "
                          "\"status\": {\"phase\": \"Running\"}}]}");
    cr_assert_eq(load_source(nodes, pods, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "items[0]: a Running pod has no spec.nodeName"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);

    pods = put("p3.json", "{\"items\": [{\"metadata\": {\"name\": \"r\"}, \"spec\": {\"nodeName\": \"zz\", "
                          "\"containers\": [{\"name\": \"c\"}]}, \"status\": {\"phase\": \"Running\"}}]}");
    cr_assert_eq(load_source(nodes, pods, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "items[0].spec.nodeName: node 'zz' is not in"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);

    /* What places a Pending pod and is not modelled is refused, never ignored. */
    pods = put("p4.json", "{\"items\": [{\"metadata\": {\"name\": \"r\"}, \"spec\": {\"containers\": [{\"name\": \"c\"}], "
                          "\"topologySpreadConstraints\": [{\"maxSkew\": 1}]}, \"status\": {\"phase\": \"Pending\"}}]}");
    cr_assert_eq(load_source(nodes, pods, &sc, &e), GS_ENOTSUP, "%d %s", e.code, e.msg);
    cr_expect(ne(ptr, strstr(e.msg, "items[0].spec.topologySpreadConstraints"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);

    /* Requests as the API server computes them; a fractional GPU is refused by it. */
    pods = put("p5.json", "{\"items\": [{\"metadata\": {\"name\": \"r\"}, \"spec\": {\"containers\": [{\"name\": \"c\", "
                          "\"resources\": {\"limits\": {\"nvidia.com/gpu\": \"0.5\"}}}]}, \"status\": {\"phase\": \"Pending\"}}]}");
    cr_assert_eq(load_source(nodes, pods, &sc, &e), 0, "%s", e.msg);
    cr_expect_not_null(sc.world.workloads[0].list[0].tmpl->invalid_detail);
    gs_scenario_free(&sc);

    pods = put("p6.json", "{\"items\": [{\"metadata\": {\"name\": \"r\"}, \"spec\": {\"priorityClassName\": \"nope\", "
                          "\"containers\": [{\"name\": \"c\"}]}, \"status\": {\"phase\": \"Pending\"}}]}");
    cr_assert_eq(load_source(nodes, pods, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "no PriorityClass 'nope'"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);
}

Test(snapshot, node_names)
{
    const char *nodes = put("d.json", "{\"items\": [{\"metadata\": {\"name\": \"a\"}, \"status\": {\"capacity\": {}}},"
                                      "{\"metadata\": {\"name\": \"a\"}, \"status\": {\"capacity\": {}}}]}");
    struct gs_scenario sc;
    struct gs_error e;
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), GS_EINVAL);
    cr_expect(ne(ptr, strstr(e.msg, "duplicate node name 'a'"), NULL), "%s", e.msg);
    gs_scenario_free(&sc);
    /* A single Node object is a list of one. */
    nodes = put("one.json", "{\"kind\": \"Node\", \"metadata\": {\"name\": \"solo\"}, \"status\": {\"capacity\": {\"cpu\": \"1\"}}}");
    cr_assert_eq(load_source(nodes, NULL, &sc, &e), 0, "%s", e.msg);
    cr_expect_str_eq(sc.world.pools[0].nodes[0].name, "solo");
    gs_scenario_free(&sc);
}
