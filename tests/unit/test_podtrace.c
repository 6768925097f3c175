/* openb imports into scenarios: spec.cluster.source format openb (sim/scenario/openb_source.c)
 * and spec.workloads[].trace (sim/scenario/podtrace.c), on the fixture in tests/fixtures/openb
 * and, when present, the real files in ../shared/data/openb (skipped otherwise). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/run.h"
#include "sim/scenario.h"

#define FIX GPUSIM_SOURCE_DIR "/tests/fixtures/openb"

static char dir[128];

static void setup(void)
{
    snprintf(dir, sizeof dir, "/tmp/gpusim-test-podtrace-%d", (int)getpid());
    cr_assert_eq(mkdir(dir, 0700), 0);
}

static void teardown(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

TestSuite(podtrace, .init = setup, .fini = teardown);

static const char *data_dir(void) { return GPUSIM_SOURCE_DIR "/../shared/data/openb"; }

/* A scenario on the fixture's (or `nodes`') cluster with one trace workload `trace` (YAML
 * flow map body) and `extra` entry keys. */
static int load(const char *nodes, const char *trace, const char *extra, struct gs_scenario *sc, struct gs_error *e)
{
    char yaml[4096];
    snprintf(yaml, sizeof yaml,
             "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n"
             "  cluster: {source: {format: openb, nodes: %s}}\n"
             "  workloads:\n  - {trace: {%s}%s%s}\n",
             nodes, trace, extra ? ", " : "", extra ? extra : "");
    memset(e, 0, sizeof *e);
    return gs_scenario_load_string("t.yaml", yaml, sc, e);
}

static const struct gs_listed_pod *listed(const struct gs_workload *w, const char *name)
{
    for (int i = 0; i < w->nlist; i++)
        if (strcmp(w->list[i].name, name) == 0)
            return &w->list[i];
    cr_assert_fail("no listed pod %s", name);
    return NULL;
}

Test(podtrace, openb_nodes_become_pools)
{
    struct gs_scenario sc;
    struct gs_error e;
    cr_assert_eq(load(FIX "/nodes.csv", "format: openb, pods: " FIX "/pods.csv", NULL, &sc, &e), 0, "%s:%d: %s",
                 e.file, e.line, e.msg);
    const struct gs_world *w = &sc.world;
    cr_assert_eq(w->npools, 5);
    static const char *const names[] = {"g2-8gpu", "t4-2gpu", "v100m32-4gpu", "p100-2gpu", "cpu"};
    static const char *const products[] = {"openb-G2", "Tesla-T4", "Tesla-V100-SXM2-32GB", "Tesla-P100-PCIE-16GB",
                                           NULL};
    for (int i = 0; i < 5; i++) {
        cr_expect_str_eq(w->pools[i].name, names[i]);
        if (products[i])
            cr_expect_str_eq(w->pools[i].gpu_product, products[i]);
        else
            cr_expect_null(w->pools[i].gpu_product);
    }
    cr_expect_eq(w->pools[0].count, 2);
    cr_expect_eq(w->pools[0].gpu_count, 8);
    cr_expect_str_eq(w->pools[0].nodes[1].name, "openb-node-0001");
    cr_expect_str_eq(gs_labels_get(&w->pools[2].nodes[0].labels, "alibabacloud.com/gpu-card-model"), "V100M32");
    cr_expect_eq(w->pools[2].nodes[0].capacity->v[GS_RES_CPU], 48000);
    cr_expect_eq(w->pools[2].nodes[0].capacity->v[GS_RES_MEMORY], INT64_C(376832) << 20);
    cr_expect_eq(w->pools[2].nodes[0].allocatable->v[GS_RES_PODS], 110);
    cr_expect_eq(w->pools[4].nodes[0].labels.n, 0);
    gs_scenario_free(&sc);
}

Test(podtrace, rows_become_pods_with_shared_templates)
{
    struct gs_scenario sc;
    struct gs_error e;
    cr_assert_eq(load(FIX "/nodes.csv", "format: openb, pods: " FIX "/pods.csv, timestamps: real", "name: ob", &sc,
                      &e),
                 0, "%s", e.msg);
    const struct gs_world *w = &sc.world;
    cr_assert_eq(w->nworkloads, 1);
    const struct gs_workload *wl = &w->workloads[0];
    cr_expect_str_eq(wl->name, "ob");
    cr_expect_eq(wl->kind, GS_WL_LIST);
    cr_assert_eq(wl->nlist, 10);
    cr_expect_eq(wl->arrival.count, 10);
    int gpu = gs_res_find(&w->res, "nvidia.com/gpu");
    const struct gs_listed_pod *p0 = listed(wl, "openb-pod-0000"), *p2 = listed(wl, "openb-pod-0002");
    const struct gs_listed_pod *p3 = listed(wl, "openb-pod-0003");
    /* Whole GPUs: nvidia.com/gpu request and limit. */
    cr_expect_eq(p0->tmpl->requests.v[gpu], 8);
    cr_expect_eq(p0->tmpl->limits.v[gpu], 8);
    cr_expect_eq(p0->tmpl->requests.v[GS_RES_CPU], 64000);
    cr_expect_eq(p0->tmpl->requests.v[GS_RES_MEMORY], INT64_C(262144) << 20);
    cr_expect_null(gs_labels_get(&p0->tmpl->annotations, "alibabacloud.com/gpu-milli"));
    /* A share: the annotation, no nvidia.com/gpu; one template per shape. */
    cr_expect_eq(p2->tmpl, p3->tmpl);
    cr_expect_eq(p2->tmpl->requests.v[gpu], 0);
    cr_expect_str_eq(gs_labels_get(&p2->tmpl->annotations, "alibabacloud.com/gpu-milli"), "500");
    /* gpu_spec: a required node affinity on the card model, models deduplicated. */
    const struct gs_pod_template *t6 = listed(wl, "openb-pod-0006")->tmpl;
    cr_assert(t6->affinity.has_required);
    cr_assert_eq(t6->affinity.nrequired, 1);
    const struct gs_requirement *rq = &t6->affinity.required[0].exprs[0];
    cr_expect_str_eq(rq->key, "alibabacloud.com/gpu-card-model");
    cr_expect_eq(rq->op, GS_OP_IN);
    cr_assert_eq(rq->nvalues, 2);
    cr_expect_str_eq(rq->values[0], "P100");
    cr_expect_str_eq(rq->values[1], "T4");
    cr_expect(!p0->tmpl->affinity.has_required);
    /* Real timestamps: arrival at creation_time, duration from scheduled_time (or creation). */
    const struct gs_listed_pod *p1 = listed(wl, "openb-pod-0001"), *p8 = listed(wl, "openb-pod-0008");
    cr_expect_eq(p1->arrive, GS_SEC(60));
    cr_expect_eq(p1->duration, GS_SEC(600));
    cr_expect_eq(p8->arrive, GS_SEC(200));
    cr_expect_eq(p8->duration, GS_SEC(1800));
    for (int i = 1; i < wl->nlist; i++)
        cr_expect_leq(wl->list[i - 1].arrive, wl->list[i].arrive);
    gs_scenario_free(&sc);
}

Test(podtrace, file_order_rate_limit_duration)
{
    struct gs_scenario sc;
    struct gs_error e;
    cr_assert_eq(load(FIX "/nodes.csv", "format: openb, pods: " FIX "/pods.csv", NULL, &sc, &e), 0, "%s", e.msg);
    const struct gs_workload *wl = &sc.world.workloads[0];
    cr_expect_str_eq(wl->name, "openb");
    for (int i = 0; i < wl->nlist; i++) {
        cr_expect_eq(wl->list[i].arrive, 0);
        cr_expect_eq(wl->list[i].duration, -1);
    }
    cr_expect_eq(wl->duration.kind, GS_DIST_NONE);
    gs_scenario_free(&sc);

    cr_assert_eq(load(FIX "/nodes.csv", "format: openb, pods: " FIX "/pods.csv, rate: 2/s, start: 1m, limit: 3",
                      "duration: 10m, startLatency: 5s", &sc, &e),
                 0, "%s", e.msg);
    wl = &sc.world.workloads[0];
    cr_assert_eq(wl->nlist, 3);
    cr_expect_eq(wl->list[0].arrive, GS_SEC(60));
    cr_expect_eq(wl->list[2].arrive, GS_SEC(61));
    cr_expect_str_eq(wl->list[2].name, "openb-pod-0002");
    cr_expect_eq(wl->arrival.start, GS_SEC(60));
    cr_expect_eq(wl->duration.kind, GS_DIST_FIXED);
    cr_expect_eq(wl->duration.fixed, GS_SEC(600));
    cr_expect_eq(wl->start_latency, GS_SEC(5));
    gs_scenario_free(&sc);
}

Test(podtrace, errors)
{
    struct gs_scenario sc;
    struct gs_error e;
    cr_expect_eq(load(FIX "/nodes.csv", "format: openb, pods: " FIX "/pods.csv, timestamps: real, rate: 1/s", NULL,
                      &sc, &e),
                 GS_EINVAL);
    cr_expect(strstr(e.msg, "'rate' in spec.workloads[0].trace goes with timestamps: none"), "%s", e.msg);
    gs_scenario_free(&sc);
    cr_expect_eq(load(FIX "/nodes.csv", "format: openb, pods: " FIX "/pods.csv, timestamps: real", "duration: 1h",
                      &sc, &e),
                 GS_EINVAL);
    cr_expect(strstr(e.msg, "'duration' in spec.workloads[0] goes with timestamps: none"), "%s", e.msg);
    gs_scenario_free(&sc);
    cr_expect_eq(load(FIX "/nodes.csv", "format: openb, pods: /nonexistent.csv", NULL, &sc, &e), GS_EINVAL);
    cr_expect(strstr(e.msg, "cannot read the trace '/nonexistent.csv' of spec.workloads[0]"), "%s", e.msg);
    cr_expect_str_eq(e.file, "t.yaml");
    gs_scenario_free(&sc);
    cr_expect_eq(load(FIX "/nodes.csv", "format: alibaba, pods: x.csv", NULL, &sc, &e), GS_EINVAL);
    cr_expect(strstr(e.msg, "spec.workloads[0].trace.format"), "%s", e.msg);
    gs_scenario_free(&sc);
    cr_expect_eq(load(FIX "/nodes.csv", "format: openb, pods: x.csv, timestamp: real", NULL, &sc, &e), GS_EINVAL);
    cr_expect(strstr(e.msg, "did you mean 'timestamps'"), "%s", e.msg);
    gs_scenario_free(&sc);

    /* timestamps: real on a file without times (the multigpu* schema). */
    char csv[256];
    snprintf(csv, sizeof csv, "%s/short.csv", dir);
    FILE *f = fopen(csv, "w");
    cr_assert(f);
    fputs("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,1,1000\n", f);
    fclose(f);
    char trace[512];
    snprintf(trace, sizeof trace, "format: openb, pods: %s, timestamps: real", csv);
    cr_expect_eq(load(FIX "/nodes.csv", trace, NULL, &sc, &e), GS_EINVAL);
    cr_expect(strstr(e.msg, "needs the creation_time and deletion_time columns"), "%s", e.msg);
    gs_scenario_free(&sc);

    /* A bad row: the CSV reader's file:line:column. */
    f = fopen(csv, "w");
    cr_assert(f);
    fputs("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,1024,1,1000\np1,x,1024,1,1000\n", f);
    fclose(f);
    snprintf(trace, sizeof trace, "format: openb, pods: %s", csv);
    cr_expect_eq(load(FIX "/nodes.csv", trace, NULL, &sc, &e), GS_EINVAL);
    cr_expect_str_eq(e.file, csv);
    cr_expect_eq(e.line, 3);
    gs_scenario_free(&sc);

    /* A pods file is a workload, not part of an openb cluster source. */
    const char *y = "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: t}\nspec:\n"
                    "  cluster: {source: {format: openb, nodes: a.csv, pods: b.csv}}\n";
    cr_expect_eq(gs_scenario_load_string("t.yaml", y, &sc, &e), GS_EINVAL);
    cr_expect(strstr(e.msg, "goes with format kubectl"), "%s", e.msg);
    gs_scenario_free(&sc);
}

Test(podtrace, real_data_loads_and_runs)
{
    struct stat st;
    if (stat(data_dir(), &st) != 0)
        cr_skip_test("openb data not found at %s (../shared/data/openb next to the source tree)", data_dir());
    char nodes[512], trace[1024];
    snprintf(nodes, sizeof nodes, "%s/openb_node_list_gpu_node.csv", data_dir());
    snprintf(trace, sizeof trace, "format: openb, pods: %s/openb_pod_list_default.csv, timestamps: real", data_dir());
    struct gs_scenario sc;
    struct gs_error e;
    cr_assert_eq(load(nodes, trace, NULL, &sc, &e), 0, "%s:%d: %s", e.file, e.line, e.msg);
    const struct gs_world *w = &sc.world;
    int nodes_total = 0;
    int64_t gpus = 0;
    for (int i = 0; i < w->npools; i++) {
        nodes_total += w->pools[i].count;
        gpus += (int64_t)w->pools[i].count * w->pools[i].gpu_count;
    }
    cr_expect_eq(nodes_total, 1213);
    cr_expect_eq(gpus, 6212);
    cr_expect_eq(w->npools, 12);
    const struct gs_workload *wl = &w->workloads[0];
    cr_assert_eq(wl->nlist, 8152);
    /* Interned: far fewer templates than rows. */
    int distinct = 0;
    const struct gs_pod_template **seen = calloc(8152, sizeof *seen);
    cr_assert(seen);
    for (int i = 0; i < wl->nlist; i++) {
        bool found = false;
        for (int j = 0; j < distinct && !found; j++)
            found = seen[j] == wl->list[i].tmpl;
        if (!found)
            seen[distinct++] = wl->list[i].tmpl;
    }
    free(seen);
    cr_expect_lt(distinct, 1000, "%d templates", distinct);
    gs_scenario_free(&sc);

    /* The first 2000 rows through the whole run, all at once. */
    snprintf(trace, sizeof trace, "format: openb, pods: %s/openb_pod_list_default.csv, limit: 2000", data_dir());
    cr_assert_eq(load(nodes, trace, NULL, &sc, &e), 0, "%s", e.msg);
    char db[256], err[256];
    snprintf(db, sizeof db, "%s/t.db", dir);
    struct gs_run_opts o = {.trace_path = db, .trace_level = GS_TRACE_SUMMARY};
    struct gs_run_result r;
    cr_assert_eq(gs_run(&sc, &o, &r, err, sizeof err), 0, "%s", err);
    cr_expect_eq(r.pods_created, 2000);
    cr_expect_gt(r.pods_scheduled, 1500);
    gs_scenario_free(&sc);
}
