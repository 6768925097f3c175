/* The summary's plain words on fragmentation (reports/summary.c print_free): free GPUs at the
 * end per pool with the largest free block on one node, the largest pending request and whether
 * fragmentation blocks it, and the FGD figure named as such; checked on real runs, and the free
 * GPUs against the trace's own last sample. */
#include <criterion/criterion.h>
#include <criterion/new/assert.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/report.h"
#include "sim/metrics.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "sim/trace.h"

static char trace_path[256];
static char partial_path[272];

static void setup(void)
{
    snprintf(trace_path, sizeof trace_path, "/tmp/gpusim-test-summary-words-%d.db", (int)getpid());
    snprintf(partial_path, sizeof partial_path, "%s.partial", trace_path);
}

static void teardown(void)
{
    unlink(trace_path);
    unlink(partial_path);
}

TestSuite(summary_words, .init = setup, .fini = teardown);

/* Run `yaml` and return its summary (malloc'd). */
static char *run_summary(const char *yaml)
{
    struct gs_scenario sc;
    struct gs_error err = {0};
    int rc = gs_scenario_load_string("test.yaml", yaml, &sc, &err);
    cr_assert(eq(int, rc, 0), "load: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    struct gs_run_opts o = {.trace_path = trace_path, .trace_level = GS_TRACE_EVENTS};
    struct gs_run_result r;
    char ebuf[256];
    cr_assert(eq(int, gs_run(&sc, &o, &r, ebuf, sizeof ebuf), 0), "%s", ebuf);
    gs_scenario_free(&sc);
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    cr_assert_not_null(m);
    char rerr[256] = "";
    cr_assert(eq(int, gs_report_summary(trace_path, m, rerr, sizeof rerr), 0), "%s", rerr);
    fclose(m);
    return buf;
}

/* The lines of `out` from the one starting with `from` up to (not including) the one starting
 * with `to`, in a static buffer. */
static char *lines(const char *out, const char *from, const char *to)
{
    static char buf[4096];
    const char *a = strstr(out, from);
    cr_assert_not_null(a, "no line '%s' in:\n%s", from, out);
    const char *b = strstr(a, to);
    cr_assert_not_null(b, "no line '%s' after '%s' in:\n%s", to, from, out);
    snprintf(buf, sizeof buf, "%.*s", (int)(b - a), a);
    return buf;
}

/* allocatable - allocated in the trace's last whole-cluster sample */
static int sample_free(void)
{
    sqlite3 *db;
    cr_assert(eq(int, sqlite3_open_v2(trace_path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK));
    sqlite3_stmt *st;
    cr_assert(eq(int,
                 sqlite3_prepare_v2(db,
                                    "SELECT gpus_allocatable - gpus_allocated FROM sample WHERE pool = ''"
                                    " ORDER BY t_us DESC, rowid DESC LIMIT 1",
                                    -1, &st, NULL),
                 SQLITE_OK));
    cr_assert(eq(int, sqlite3_step(st), SQLITE_ROW));
    int v = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

#define HEAD(name, horizon)                                                                        \
    "apiVersion: gpusim/v1alpha1\nkind: Scenario\nmetadata: {name: " name "}\nspec:\n"            \
    "  horizon: " horizon "\n  cluster:\n    nodePools:\n"
#define POD(name, gpus, extra)                                                                     \
    "  - {name: " name ", arrival: {at: 0s}, template: {spec: {" extra "containers: [{name: c, "  \
    "resources: {limits: {nvidia.com/gpu: " #gpus "}}}]}}}\n"

/* scenarios/teaching/fragmentation.yaml: 1, 1, 2 and 2 GPUs busy on four 4-GPU nodes */
static const char fragmentation[] =
    HEAD("fragmentation", "10m")
    "    - {name: gpu, count: 4, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: '48', memory: 192Gi}}\n"
    "  workloads:\n"
    POD("busy-0", 1, "nodeName: gpu-0, ") POD("busy-1", 1, "nodeName: gpu-1, ")
    POD("busy-2", 2, "nodeName: gpu-2, ") POD("busy-3", 2, "nodeName: gpu-3, ")
    "  - {name: four-gpu, arrival: {at: 1m}, template: {spec: {containers: [{name: c, resources: {limits: "
    "{nvidia.com/gpu: 4}}}]}}}\n";

Test(summary_words, fragmentation_blocks_the_largest_request)
{
    char *out = run_summary(fragmentation);
    cr_assert(eq(str, lines(out, "Free GPUs:", "Fragmented:"),
                 "Free GPUs:   10 of 16 allocatable at the end (10m0s); largest free block on one node: 3 (gpu-0)\n"
                 "Pending:     the largest request is 4 GPUs (four-gpu): blocked by fragmentation: 10 GPUs are free in "
                 "the cluster, but no node has more than 3 free\n"));
    cr_assert(eq(str, lines(out, "Fragmented:", "\n"), "Fragmented:  mean 2.00, max 2.00 GPUs by the FGD paper's measure: the expected number of free GPUs that a typical pod of this scenario cannot use"));
    cr_assert(eq(int, sample_free(), 10)); /* the history's free GPUs are the samples' */
    free(out);
}

/* Two 8-GPU nodes with 5 busy each: 6 free, 3 per node; two 4-GPU pods wait. */
static const char two_blocked[] =
    HEAD("two-blocked", "5m")
    "    - {name: h100, count: 2, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '96', memory: 1Ti}}\n"
    "  workloads:\n"
    POD("busy-0", 5, "nodeName: h100-0, ") POD("busy-1", 5, "nodeName: h100-1, ")
    "  - {name: wide, replicas: 2, arrival: {at: 1m}, template: {spec: {containers: [{name: c, resources: {limits: "
    "{nvidia.com/gpu: 4}}}]}}}\n";

Test(summary_words, every_pod_fragmentation_blocks_is_counted)
{
    char *out = run_summary(two_blocked);
    cr_assert(eq(str, lines(out, "Free GPUs:", "Fragmented:"),
                 "Free GPUs:   6 of 16 allocatable at the end (5m0s); largest free block on one node: 3 (h100-0)\n"
                 "Pending:     the largest request is 4 GPUs (wide-0): blocked by fragmentation: 6 GPUs are free in the "
                 "cluster, but no node has more than 3 free; 2 pending pods are blocked by fragmentation\n"));
    cr_assert(eq(int, sample_free(), 6));
    free(out);
}

/* Two pools: the h100 node full, one L4 GPU busy; an 8-GPU pod cannot fit in 7 free GPUs. */
static const char pools[] =
    HEAD("pools", "5m")
    "    - {name: h100, count: 1, gpu: {product: NVIDIA-H100-80GB-HBM3, count: 8}, capacity: {cpu: '96', memory: 1Ti}}\n"
    "    - {name: l4, count: 2, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: '48', memory: 192Gi}}\n"
    "    - {name: cpu, count: 1, capacity: {cpu: '32', memory: 64Gi}}\n"
    "  workloads:\n"
    POD("train", 8, "nodeName: h100-0, ") POD("infer", 1, "nodeName: l4-0, ")
    "  - {name: big, arrival: {at: 1m}, template: {spec: {containers: [{name: c, resources: {limits: "
    "{nvidia.com/gpu: 8}}}]}}}\n";

Test(summary_words, free_gpus_per_pool_and_not_enough_in_total)
{
    char *out = run_summary(pools);
    cr_assert(eq(str, lines(out, "Free GPUs:", "Fragmented:"),
                 "Free GPUs:   7 of 16 allocatable at the end (5m0s)\n"
                 "  h100  0 of 8 free\n"
                 "  l4    7 of 8 free; largest free block on one node: 4 (l4-1)\n"
                 "Pending:     the largest request is 8 GPUs (big): not fragmentation: only 7 GPUs are free in the "
                 "cluster\n"));
    cr_assert(eq(int, sample_free(), 7));
    free(out);
}

/* A pod no node selects: GPUs are free where it cannot go. */
static const char elsewhere[] =
    HEAD("elsewhere", "5m")
    "    - {name: gpu, count: 1, gpu: {product: NVIDIA-L4, count: 4}, capacity: {cpu: '48', memory: 192Gi}}\n"
    "  workloads:\n"
    POD("lost", 2, "nodeSelector: {pool: none}, ");

Test(summary_words, gpus_free_but_something_else_holds_the_pod)
{
    char *out = run_summary(elsewhere);
    cr_assert(eq(str, lines(out, "Free GPUs:", "Fragmented:"),
                 "Free GPUs:   4 of 4 allocatable at the end (5m0s); largest free block on one node: 4 (gpu-0)\n"
                 "Pending:     the largest request is 2 GPUs (lost): not fragmentation: gpu-0 has 4 free (its message "
                 "below says what holds it)\n"));
    free(out);
}

/* A trace with more events than the summary rebuilds the cluster from (GS_REPORT_FREE_MAX_EVENTS,
 * 200000: the summary follows every run, and must not cost more memory than a long run): it says
 * so instead of loading them. */
Test(summary_words, too_many_events_are_not_loaded)
{
    struct gs_trace *t = NULL;
    char err[256];
    cr_assert(eq(int, gs_trace_open(trace_path, GS_TRACE_EVENTS, &t, err, sizeof err), 0), "%s", err);
    gs_trace_run_kv(t, "scenario", "many");
    gs_trace_node(t, 0, "gpu-0", "gpu", "NVIDIA-L4", 4);
    struct gs_trace_pod p = {.id = 0, .name = "p", .workload = "w", .created_us = 0, .scheduled_us = -1,
                             .started_us = -1, .finished_us = -1, .node_id = -1, .phase = "Pending", .gpu = 1};
    cr_assert(eq(int, gs_trace_pod(t, &p), 0));
    /* two messages in turn, so the trace does not fold them into one aggregated row */
    for (int i = 0; i < 200001; i++)
        cr_assert(eq(int, gs_trace_pod_event(t, i, 0, "FailedScheduling", i % 2 ? "odd" : "even"), 0));
    struct gs_metrics s = {.t = 0, .gpus_capacity = 4, .gpus_allocatable = 4};
    cr_assert(eq(int, gs_trace_sample(t, "", &s), 0));
    cr_assert(eq(int, gs_trace_close(t, "complete", 200001), 0));
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    cr_assert_not_null(m);
    cr_assert(eq(int, gs_report_summary(trace_path, m, err, sizeof err), 0), "%s", err);
    fclose(m);
    cr_assert(eq(str, lines(buf, "Free GPUs:", "\n"),
                 "Free GPUs:   not computed: the trace has 200001 events, more than the 200000 the summary rebuilds "
                 "the cluster from"));
    free(buf);
}
